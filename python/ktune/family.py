"""What a family's Python module builds on (templates/<family>/python/<family>.py, see
docs/adding-a-family.md): the library's C calls, arrays and streams, the runtimes, and
torch.library ops made for torch.compile. The package imports each family's module and
exports the names in its __all__; nothing else in the package names a family."""
import ctypes
import sys

from . import _lib
from ._arrays import (DeviceArray, as_device_array, contiguous_strides, dlpack_stream, empty_like, stream_handle,
                      torch_dtype)
from ._runtime import Runtime, callable_by_id, default_runtime, register_callable
from ._torch_ops import TorchOps, needs_grad
from .errors import InvalidArgument

__all__ = ["as_device_array", "C", "c_function", "c_text", "callable_by_id", "check", "default_runtime", "dispatch", "dlpack_stream",
           "DTYPE_NAMES", "empty_like", "InvalidArgument", "matrix_layout", "needs_grad", "new_array",
           "no_grad_here", "no_grad_in_place", "plain", "planned_call", "Plans", "raw_stream", "refuse_under_capture",
           "register_callable", "require", "row_major", "Runtime", "runtime_method", "shape_text", "stream_handle",
           "torch_dtype", "TorchOps"]

C = ctypes
check = _lib.check
c_text = _lib.c_text
DTYPE_NAMES = {name: name.encode() for name in ("f16", "bf16", "f32", "f64", "i8", "u8", "i16", "i32", "i64")}


# Every signature the families bound (name -> (restype, argtypes)): checked against the
# C headers by the package's tests.
SIGNATURES = {}


def c_function(name, restype, argtypes):
    """The library's C function `name` with its signature, or None where this libktune
    was built without it (a build of some families: KTUNE_FAMILIES)."""
    function = getattr(_lib.lib, name, None)
    if function is not None:
        function.restype, function.argtypes = restype, argtypes
        SIGNATURES[name] = (restype, argtypes)
    return function


def require(function, family):
    """`function`, or a clear error when the library lacks the family."""
    if function is None:
        raise InvalidArgument(f"this libktune was built without the {family} family (KTUNE_FAMILIES)")
    return function


def runtime_method(name):
    """Makes the decorated function(runtime, ...) the Runtime method `name`: rt.transpose(...)."""
    def attach(function):
        if hasattr(Runtime, name):
            raise ImportError(f"ktune: two families define Runtime.{name}")
        function.__name__ = function.__qualname__ = name
        setattr(Runtime, name, function)
        return function
    return attach


def new_array(a, shape, dtype=None):
    """A new contiguous array like a's (empty_like: its framework and device, a's dtype or
    `dtype`) and its DeviceArray, read without checking again what was just made."""
    target = empty_like(a, shape, dtype)
    if type(target) is type(a.obj) and hasattr(target, "data_ptr"):  # PyTorch: its address, nothing more to read
        return target, DeviceArray(target, target.data_ptr(), shape, contiguous_strides(shape), dtype or a.dtype,
                                   a.device, contiguous=True)
    return target, as_device_array(target, "out")


class Plans:
    """Launch plans of a call on plain PyTorch tensors, by what its checks read (shapes,
    strides, dtypes, options): a call whose key was checked before skips the checks and
    is an allocation and the C call (the host cost of a small call is all Python work).
    A plan binds the default runtime and is used only where plain() holds."""

    def __init__(self, size=1024):
        self._plans, self._size = {}, size

    def get(self, key):
        return self._plans.get(key)

    def put(self, key, plan):
        if len(self._plans) >= self._size:  # bounded: a new set of shapes starts over
            self._plans.clear()
        self._plans[key] = plan


def planned_call(fn, handle, shape, dtype, args):
    """A Plans entry: the C call `fn(handle, out, *inputs, *args, stream)` again on
    tensors of the key it was checked for, into `out` or a new (shape, dtype) tensor."""
    def run(*inputs, out=None):
        if out is None:
            out = inputs[0].new_empty(shape, dtype=dtype)
        check(fn(handle, out.data_ptr(), *[t.data_ptr() for t in inputs], *args, raw_stream(inputs[0])))
        return out
    return run


def dispatch(call, plans, ops, on, x, args, *, out=None, stream=None):
    """The public call of an op on one array (a family's ktune.NAME), in order: a kept
    plan (x a plain tensor, no out=, no stream=); the torch op (`ops`: autograd,
    torch.compile) where it routes; else on(default runtime, x, *args, out=, stream=,
    plan_key=), which keeps a plan under plan_key when one is given."""
    key = None
    if out is None and stream is None and plain(x):
        key = (call,) + tuple(args) + (x.shape, x.stride(), x.dtype)
        plan = plans.get(key)
        if plan is not None:
            return plan(x)
    if out is not None:
        no_grad_in_place(call, x)
    routed = ops.routed(x) if stream is None and out is None else None
    if routed is not None:
        return routed(x, *args)
    return on(default_runtime(), x, *args, out=out, stream=stream, plan_key=key)


def plain(*tensors):
    """True when every argument is a PyTorch tensor on the current device, no gradient is
    recorded for it and torch.compile is not tracing: where a Plans entry may be used."""
    torch = sys.modules.get("torch")
    if torch is None or torch.compiler.is_compiling():  # (first: Dynamo traces what follows)
        return False
    tensor = torch.Tensor
    device = torch._C._cuda_getDevice()
    grad = torch.is_grad_enabled()
    for t in tensors:
        if type(t) is not tensor or t.get_device() != device or (grad and t.requires_grad):
            return False
    return True


def raw_stream(x):
    """PyTorch's current stream on x's device, as a handle."""
    return sys.modules["torch"]._C._cuda_getCurrentRawStream(x.get_device())


def shape_text(shape):
    return "x".join(map(str, shape)) or "a scalar"


def matrix_layout(x, name):
    """("n", pitch) for a row-major matrix, ("t", pitch) for a transposed view of one."""
    rows, cols = x.shape
    if cols == 1 or x.strides[1] == 1:
        return "n", max(x.strides[0], cols)
    if rows == 1 or x.strides[0] == 1:
        return "t", max(x.strides[1], rows)
    raise InvalidArgument(f"{name} has strides {x.strides}: neither row-major nor a transposed view of a row-major "
                          "matrix (copy it with .contiguous())")


def row_major(a, name):
    """Checks a row-major matrix with unit column stride and a row pitch of at least its width."""
    if len(a.shape) != 2:
        raise InvalidArgument(f"{name} must be 2-D, not {len(a.shape)}-D")
    if a.shape[1] > 1 and a.strides[1] != 1:
        raise InvalidArgument(f"{name} must have unit column stride (strides (pitch, 1)), not {a.strides}: "
                              "a transposed view's transpose is a copy (.contiguous() / .copy())")
    if a.shape[0] > 1 and a.strides[0] < a.shape[1]:
        raise InvalidArgument(f"{name}: its row pitch {a.strides[0]} is less than its {a.shape[1]} columns")


def no_grad_in_place(call, *arrays):
    """A clear error where an in-place (out=, c=) call would record no gradient for
    arrays that require one, as PyTorch refuses out= under autograd."""
    if needs_grad(*arrays):
        raise InvalidArgument(f"{call}: a call writing into out= (or c=) has no gradient, and an input requires "
                              "grad; call it without out= (the result is then differentiable), or under "
                              "torch.no_grad()")


def no_grad_here(call, *arrays):
    """A clear error where a Runtime's own method (rt.transpose, ...: no dispatcher, no
    autograd) is called on arrays that require grad: ktune.transpose etc. differentiate."""
    if needs_grad(*arrays):
        raise InvalidArgument(f"Runtime.{call} records no gradient and an input requires grad: call ktune.{call} "
                              "(differentiable, on the default runtime), or under torch.no_grad()")


def refuse_under_capture(stream, call):
    """A typed error, before anything is enqueued, where `call` must read a result on the
    host (it synchronizes) and the stream is capturing a CUDA graph."""
    if stream and _lib.stream_capturing(stream):
        raise InvalidArgument(f"{call} reads its result's size on the host (it synchronizes), which a CUDA graph "
                              "capture cannot do: capture compact() instead (values and a device-side count)")
