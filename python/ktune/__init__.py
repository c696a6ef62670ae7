"""ktune from Python: launch the stored best kernels on PyTorch, CuPy or JAX arrays, and
tune from Python (the `ktune` tuner in a child process). See docs/python.md."""
import sys as _sys

from . import _lib
from . import families as _families
from ._runtime import Kernel, Runtime, default_runtime, last_launch, refresh, tune_on_miss
from ._torch_ops import TorchOps as _TorchOps
from ._tune import tune, tune_kernel
from .errors import CompileError, CudaError, DatabaseError, Error, InvalidArgument, TuningError

__version__ = _lib.lib.ktune_c_version().decode()
__all__ = ["Kernel", "Runtime", "default_runtime", "last_launch", "refresh", "tune", "tune_kernel", "tune_on_miss", "Error", "InvalidArgument",
           "CudaError", "CompileError", "DatabaseError", "TuningError", "__version__"]

# Each family's calls (ktune.transpose, ktune.gemm, ktune.sum, ...), from its folder.
for _module in _families.load():
    for _name in _module.__all__:
        if _name in globals():
            raise ImportError(f"ktune: {_module.__name__} exports '{_name}', which ktune already has")
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)

if "torch" in _sys.modules:  # torch first: its custom ops now, before any torch.compile traces a call
    _TorchOps.build_all()
