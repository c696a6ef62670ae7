"""The runtime and users' kernels: Runtime (its family calls are added by each family's
module, see family.py), the process's default runtime, Kernel, and the launch
information. Under torch.compile a Kernel call goes through a torch.library op."""
import itertools
import os
import threading
import weakref

from . import _lib
from ._arrays import (TORCH_DTYPES, array_facts, as_integer, current_device, dlpack_stream, stream_handle,
                      torch_tensor_type)
from ._torch_ops import TorchOps, grad_mode
from .errors import InvalidArgument

_lib_ = _lib.lib
# The launch without argtypes: ctypes then converts nothing (every argument is passed as a
# ctypes object or a C int), 1.5-2 us less per call than checked conversions.
_launch = _lib_["ktune_c_kernel_launch_checked"]
_launch.restype = _lib.ctypes.c_int


class Runtime:
    """ktune's runtime: the tuning database (default: $KTUNE_CACHE_DIR/tuning.db, as the
    CLI and C++ use), the compiled winners and their launches. Thread-safe. Each family
    adds its calls as methods (rt.transpose(...), rt.gemm(...), ...)."""

    def __init__(self, database=None, read_only=False):
        handle = _lib_.ktune_c_runtime_new(_lib.c_text(database, "database") if database else None,
                                           1 if read_only else 0)
        self._handle = _lib.check(handle)

    def __del__(self, _free=_lib_.ktune_c_runtime_free):  # (bound now: at exit, module globals are gone)
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def kernel(self, path_or_source, entry, type=None):
        """A user's kernel on this runtime (Kernel)."""
        return Kernel(path_or_source, entry, type, runtime=self)

    def refresh(self):
        """Looks up again, at their next call, the problems this runtime serves from
        anything but an exact record (after tuning them, say). Records other processes
        write are noticed by themselves within half a second; this makes it immediate."""
        _lib.check(_lib_.ktune_c_runtime_refresh(self._handle))


_default = None
_default_lock = threading.Lock()
_callables = weakref.WeakValueDictionary()  # id -> Kernel or a family's callable: what a torch.library op launches
_callable_ids = itertools.count(1)


def default_runtime():
    """The process's runtime (the default database), made at first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Runtime()
    return _default


def refresh():
    """The default runtime's refresh() (Runtime.refresh); nothing to do before it exists."""
    if _default is not None:
        _default.refresh()


_TUNE_ON_MISS = {"off": "", "now": "1", "background": "background"}


def tune_on_miss(mode):
    """What a call with no exact record does (KTUNE_TUNE_ON_MISS, read at each problem's
    first call): "off" (the default: served by the shipped winners or the model), "now"
    (tunes it before launching; the call waits), "background" (served at once, tuned by
    a tuner process; later calls pick the record up). See docs/runtime-api.md."""
    if mode not in _TUNE_ON_MISS:
        raise InvalidArgument(f"tune_on_miss: mode {mode!r}: one of {', '.join(map(repr, _TUNE_ON_MISS))}")
    if _TUNE_ON_MISS[mode]:
        os.environ["KTUNE_TUNE_ON_MISS"] = _TUNE_ON_MISS[mode]
    else:
        os.environ.pop("KTUNE_TUNE_ON_MISS", None)


def register_callable(obj):
    """An id a torch.library op can name obj by (ops take numbers and tensors, not objects)."""
    with _default_lock:
        key = next(_callable_ids)
        _callables[key] = obj
    return key


def callable_by_id(key):
    obj = _callables.get(key)
    if obj is None:
        raise RuntimeError(f"ktune: the kernel this compiled function launches (id {key}) was released")
    return obj


def last_launch():
    """This thread's last launch: {"match": exact | nearest | same_arch | shipped | model | fallback,
    "config": the config that ran, "tuned_shape": the tuned problem it came from}."""
    return _lib.last_launch()


def _build_kernel_op(torch):
    from . import _torch
    return _torch


_kernel_op = TorchOps(_build_kernel_op)


_SCALAR_RANGE = {_lib.I32: (-2**31, 2**31), _lib.I64: (-2**63, 2**63)}


class Kernel:
    """A user's kernel (a .cu file with a `// @` description, or its text), launched with
    its stored winner: k(y, x, n, problem={"n": n}). Arguments in declaration order:
    device arrays for pointers, Python numbers for scalars. Each array is checked against
    its `@arg` line before anything launches: its dtype (the type parameter bound), that
    it is dense (contiguous) and on the current device, and that it holds at least the
    elements its declared size gives at this problem. A kernel has no gradient: a tensor
    that requires grad under grad mode is refused (call it under torch.no_grad())."""

    def __init__(self, path_or_source, entry, type=None, runtime=None):
        self._runtime = runtime or default_runtime()
        handle = _lib_.ktune_c_kernel_new(self._runtime._handle, _lib.c_text(path_or_source, "the kernel's path or source"),
                                          _lib.c_text(entry, "entry"), _lib.c_text(type, "type") if type else None)
        self._handle = _lib.check(handle)
        self.variables = [v for v in _lib_.ktune_c_kernel_variables(self._handle).decode().split(",") if v]
        count = _lib_.ktune_c_kernel_arg_count(self._handle)
        self.names = _lib_.ktune_c_kernel_arg_names(self._handle).decode().split(",")
        self.kinds = [_lib_.ktune_c_kernel_arg_kind(self._handle, i) for i in range(count)]
        self.dtypes = [_lib_.ktune_c_kernel_arg_dtype(self._handle, i).decode() for i in range(count)]
        self.writes = [_lib_.ktune_c_kernel_arg_role(self._handle, i) in (1, 2) for i in range(count)]  # out, inout
        # Built once: the variables' names as the C call takes them, and argument labels.
        self._names = (_lib.ctypes.c_char_p * max(1, len(self.variables)))(*[v.encode() for v in self.variables])
        self._labels = [f"argument {i} ({name})" for i, name in enumerate(self.names)]
        self._dtype_names = [d.encode() for d in self.dtypes]
        self._first_array = next((i for i, k in enumerate(self.kinds) if k == _lib.POINTER), None)
        self._handle_c = _lib.ctypes.c_void_p(self._handle)  # (the launch's arguments go unconverted: _launch)
        self._buffers = threading.local()  # each thread's ctypes argument arrays, made at its first call
        self._id = register_callable(self)

    def __del__(self, _free=_lib_.ktune_c_kernel_free):
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def __call__(self, *args, problem, stream=None):
        """Launches with the stored winner (ktune.last_launch() tells which config ran)."""
        if len(args) != len(self.kinds):
            raise InvalidArgument(f"takes {len(self.kinds)} arguments, not {len(args)}")
        if not isinstance(problem, dict):
            raise TypeError("problem: a dict of the kernel's problem variables, e.g. {'n': 4096}")
        like = args[self._first_array] if self._first_array is not None else None
        ops = _kernel_op.under_compile(like) if stream is None else None
        if ops is not None:
            return self._call_op(ops, args, problem)
        return self.launch(args, problem, stream)

    def _call_op(self, ops, args, problem):
        pointers = [(a, w) for a, k, w in zip(args, self.kinds, self.writes) if k == _lib.POINTER]
        inputs, outputs = [a for a, w in pointers if not w], [a for a, w in pointers if w]
        ints = [int(a) for a, k in zip(args, self.kinds) if k in (_lib.I32, _lib.I64)]
        floats = [float(a) for a, k in zip(args, self.kinds) if k in (_lib.F32, _lib.F64)]
        missing = [v for v in self.variables if v not in problem]
        if missing or len(problem) != len(self.variables):
            raise InvalidArgument(f"problem: give exactly the variables {self.variables}")
        ops.kernel(self._id, inputs, outputs, ints, floats, [int(problem[v]) for v in self.variables])
        return None  # under torch.compile the launch information stays with the op

    def launch(self, args, problem, stream):
        """The launch itself (no torch.compile routing): args a sequence, problem a dict."""
        s = stream_handle(stream, like=args[self._first_array] if self._first_array is not None else None)
        c_args, slots, values, counts, dtypes = self._thread_buffers()
        keep = []  # what keeps each array (and its DLPack capsule) alive through the launch
        current = current_device()
        grad = grad_mode()
        tensor = torch_tensor_type()
        for i, (a, kind) in enumerate(zip(args, self.kinds)):
            if kind != _lib.POINTER:
                self._scalar(i, a, kind, slots[i])
            elif (type(a) is tensor and TORCH_DTYPES.get(a.dtype) == self.dtypes[i] and a.get_device() == current
                  and a.is_contiguous() and not (grad and a.requires_grad)):
                slots[i].pointer, counts[i] = a.data_ptr(), a.numel()  # a plain PyTorch tensor, as declared
            else:
                slots[i].pointer, counts[i] = self._array(i, a, s, current, keep, grad)
        for name, value in problem.items():  # (ctypes would wrap what does not fit an int64)
            number = as_integer(value)
            if number is None or not -2**63 <= number < 2**63:
                raise InvalidArgument(f"problem variable {name!r} = {value!r}: an integer from 1 to 2^31-1")
        if len(problem) == len(self.variables) and all(v in problem for v in self.variables):
            names = self._names
            for j, v in enumerate(self.variables):
                values[j] = problem[v]
            count = len(self.variables)
        else:  # the library names what is missing or unknown
            names = (_lib.ctypes.c_char_p * max(1, len(problem)))(*[_lib.c_text(k, "a problem variable's name")
                                                                     for k in problem])
            values = (_lib.ctypes.c_int64 * max(1, len(problem)))(*[int(v) for v in problem.values()])
            count = len(problem)
        _lib.check(_launch(self._handle_c, _lib.ctypes.c_uint64(s), names, values, count, c_args, counts, dtypes,
                           len(args)))
        del keep

    def _array(self, i, a, s, current, keep, grad):
        """Array argument i: (address, element count), checked on the host, or the error
        that says what is wrong with it."""
        address, dtype, count, contiguous = array_facts(a, self._labels[i], dlpack_stream(s), current, keep)
        if dtype != self.dtypes[i]:
            raise TypeError(f"{self._labels[i]} is declared {self.dtypes[i]}, but a {dtype} array was given")
        if not contiguous:
            raise InvalidArgument(f"{self._labels[i]} is not contiguous (a view with strides, e.g. a transpose): "
                                  "the kernel reads it as a dense array; pass .contiguous()")
        if grad and getattr(a, "requires_grad", False):
            raise InvalidArgument(f"{self._labels[i]} requires grad, but a ktune.Kernel has no backward: its result "
                                  "would be detached silently. Call it under torch.no_grad() (or pass .detach())")
        return address, count

    def _scalar(self, i, a, kind, slot):
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            raise TypeError(f"{self._labels[i]} is a scalar: a Python int or float, not a {type(a).__name__}")
        if kind == _lib.F32:
            slot.f32 = a
        elif kind == _lib.F64:
            slot.f64 = a
        elif isinstance(a, float):
            raise TypeError(f"{self._labels[i]} is an integer scalar ({self.dtypes[i]}), not a float")
        else:
            low, high = _SCALAR_RANGE[kind]
            if not low <= a < high:
                raise InvalidArgument(f"{self._labels[i]} = {a} does not fit its {self.dtypes[i]} "
                                      f"({low} .. {high - 1})")
            if kind == _lib.I32:
                slot.i32 = a
            else:
                slot.i64 = a

    def _thread_buffers(self):
        """This thread's argument array (kinds set once), its value slots, the values
        array, and the arrays' counts and dtypes (scalars' entries: -1 and NULL)."""
        b = self._buffers
        if not hasattr(b, "args"):
            n = max(1, len(self.kinds))
            b.args = (_lib.Arg * n)()
            for i, kind in enumerate(self.kinds):
                b.args[i].kind = kind
            b.slots = [b.args[i].value for i in range(len(self.kinds))]
            b.values = (_lib.ctypes.c_int64 * max(1, len(self.variables)))()
            b.counts = (_lib.ctypes.c_int64 * n)(*([-1] * n))
            b.dtypes = (_lib.ctypes.c_char_p * n)(*[d if k == _lib.POINTER else None
                                                    for d, k in zip(self._dtype_names, self.kinds)])
        return b.args, b.slots, b.values, b.counts, b.dtypes

