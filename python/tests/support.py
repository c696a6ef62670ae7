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

__all__ = ["DATA", "HAVE_GPU", "ROOT", "WHY_NO_GPU", "CpuArray", "FakeDeviceArray", "assert_captured_like_eager",
           "assert_compiled_like_eager", "assert_gradcheck", "jax_on_gpu", "ktune", "random", "torch"]

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


def _fresh_like(x):
    return random(tuple(x.shape), x.dtype)


def _close(test, got, want, what, tol):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    test.assertEqual(len(got), len(want), what)
    for g, w in zip(got, want):
        test.assertEqual(tuple(g.shape), tuple(w.shape), what)
        torch.testing.assert_close(g.to(w.dtype), w, rtol=tol, atol=tol, msg=lambda m: f"{what}: {m}")


def assert_captured_like_eager(test, call, reference, inputs, tol=1e-5, eager_first=True):
    """call(*inputs) captured with torch.cuda.graph (on PyTorch's own side stream: one
    ktune never saw; eager_first=False makes the capture the problem's first call, so its
    kernel loads under capture), then replayed twice with fresh data copied into the
    inputs, each replay equal to reference(*inputs); the process's CUDA state stays usable."""
    if eager_first:
        call(*inputs)
        torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call(*inputs)
    for replay in range(2):
        for x in inputs:
            x.copy_(_fresh_like(x))
        graph.replay()
        torch.cuda.synchronize()
        _close(test, out, reference(*inputs), f"replay {replay}", tol)
    del graph
    torch.cuda.synchronize()
    test.assertEqual(int(torch.ones(3, device="cuda").sum()), 3)  # CUDA still works


def assert_compiled_like_eager(test, fn, reference, make_inputs, tol=1e-5):
    """torch.compile(fn, mode="reduce-overhead") (CUDA graphs of PyTorch's own, on its
    streams) over three calls with fresh inputs, each equal to reference."""
    compiled = torch.compile(fn, mode="reduce-overhead")
    for call in range(3):
        inputs = make_inputs()
        got = compiled(*inputs)
        got = tuple(g.clone() for g in got) if isinstance(got, (tuple, list)) else got.clone()
        _close(test, got, reference(*inputs), f"compiled call {call}", tol)


def assert_gradcheck(test, fn, *shapes, dtype=None):
    """torch.autograd.gradcheck of fn on fresh f64 inputs that require grad."""
    inputs = [torch.randn(shape, device="cuda", dtype=dtype or torch.float64, requires_grad=True) for shape in shapes]
    test.assertTrue(torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4))
