"""What the package's tests share (python/tests and each family's templates/<family>/python/
test_*.py): the package under test, fake arrays for tests without a GPU, PyTorch when
there is a GPU."""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The package of this checkout, or with KTUNE_TEST_INSTALLED=1 the installed one (pip install .).
if not os.environ.get("KTUNE_TEST_INSTALLED") and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))
import ktune  # noqa: E402

__all__ = ["DATA", "HAVE_GPU", "ROOT", "WHY_NO_GPU", "CpuArray", "FakeDeviceArray", "jax_on_gpu", "ktune", "random", "torch"]

DATA = ROOT / "tests" / "data" / "user_kernels"

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    torch, HAVE_GPU = None, False
WHY_NO_GPU = None if HAVE_GPU else "no CUDA device" if torch else "PyTorch is not installed"


class CpuArray:
    """An array that says it is on the CPU (DLPack device type 1), as numpy's do."""

    def __dlpack__(self, stream=None):
        raise AssertionError("a CPU array must be refused before its data are read")

    def __dlpack_device__(self):
        return (1, 0)


class FakeDeviceArray:
    """A device array by __cuda_array_interface__, at an address nothing may touch."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x1000, False),
                                         "strides": strides, "version": 3}


def jax_on_gpu(test):
    """jax.numpy where JAX is installed and sees a GPU; else the test is skipped."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        test.skipTest("JAX is not installed")
    if not any(d.platform == "gpu" for d in jax.devices()):
        test.skipTest("JAX sees no GPU")
    return jnp


def random(shape, dtype):
    """A fresh random PyTorch tensor on the GPU."""
    if dtype in (torch.uint8, torch.int32, torch.int64):
        return torch.randint(0, 100, shape, device="cuda", dtype=dtype)
    return torch.randn(shape, device="cuda").to(dtype)
