"""ktune from Python: launch the stored best kernels on PyTorch, CuPy or JAX arrays, and
tune from Python (the `ktune` tuner in a child process). See docs/python.md."""
from . import _lib
from ._runtime import (Elementwise, Kernel, Runtime, _reduction, default_runtime, elementwise, gemm, last_launch,
                       transpose)
from ._tune import tune, tune_kernel
from .errors import CompileError, CudaError, DatabaseError, Error, InvalidArgument, TuningError

__version__ = _lib.lib.ktune_c_version().decode()

# ktune.sum(x), ktune.max(x, dim=1), ...: named as PyTorch's (they shadow the builtins
# only as attributes of this package).
sum = _reduction("sum")  # noqa: A001
max = _reduction("max")  # noqa: A001
min = _reduction("min")  # noqa: A001
mean = _reduction("mean")

if "torch" in __import__("sys").modules:  # torch first: its custom ops now, before any torch.compile
    from ._runtime import _torch_ops as _register

    _register(__import__("torch").empty(0))

__all__ = ["Elementwise", "Kernel", "Runtime", "default_runtime", "elementwise", "gemm", "last_launch", "max", "mean", "min", "sum", "transpose", "tune", "tune_kernel", "Error",
           "InvalidArgument", "CudaError", "CompileError", "DatabaseError", "TuningError", "__version__"]
