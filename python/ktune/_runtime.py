"""The runtime's calls on framework arrays: Runtime, transpose, gemm, the reductions,
Elementwise and Kernel, and their routing through torch.library ops under torch.compile."""
import itertools
import threading
import weakref

from . import _lib
from ._arrays import as_device_array, dlpack_stream, empty_like, stream_handle
from .errors import InvalidArgument

_lib_ = _lib.lib
_DTYPE_BYTES = {name: name.encode() for name in ("f16", "bf16", "f32", "f64", "i8", "u8", "i16", "i32", "i64")}


class Runtime:
    """ktune's runtime: the tuning database (default: $KTUNE_CACHE_DIR/tuning.db, as the
    CLI and C++ use), the compiled winners and their launches. Thread-safe."""

    def __init__(self, database=None, read_only=False):
        handle = _lib_.ktune_c_runtime_new(database.encode() if database else None, 1 if read_only else 0)
        self._handle = _lib.check(handle)

    def __del__(self, _free=_lib_.ktune_c_runtime_free):  # (bound now: at exit, module globals are gone)
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def transpose(self, x, out=None, *, stream=None):
        """out (cols x rows) = x (rows x cols) transposed, on the caller's stream. x and out
        are row-major with unit column stride and any row pitch (a slice of a larger
        matrix is a pitch, not a copy); a transposed view is refused (its transpose is a
        plain copy: `x.t().contiguous()`). Returns out."""
        if not _lib.HAS_TRANSPOSE:
            raise InvalidArgument("this libktune was built without the transpose family")
        s = stream_handle(stream, like=x)
        a = as_device_array(x, "x", dlpack_stream(s))
        _rows_and_pitch(a, "x")
        rows, cols = a.shape
        if out is None:
            out = empty_like(a, (cols, rows))
        o = as_device_array(out, "out", dlpack_stream(s))
        _rows_and_pitch(o, "out")
        if o.shape != (cols, rows) or o.dtype != a.dtype or o.device != a.device:
            raise InvalidArgument(f"out must be {cols}x{rows} {a.dtype} on device {a.device}, not "
                                  f"{'x'.join(map(str, o.shape))} {o.dtype} on device {o.device}")
        _lib.check(_lib_.ktune_c_transpose(self._handle, o.address, a.address, rows, cols, o.strides[0],
                                           a.strides[0], _DTYPE_BYTES[a.dtype], s))
        return out

    def gemm(self, a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None):
        """alpha * a @ b + beta * c, with a (m x k) and b (k x n) each row-major or a
        transposed view (the layout is read from the strides: nn, nt, tn, tt). C is
        written in place: `c` (read when beta != 0) or `out`, not both; neither allocates
        a new (m x n) array. f32, f64, f16, bf16; out_dtype="f32" keeps halves' f32
        accumulators; math "auto", "simt" or "tf32" (an opt-in for f32). Returns C."""
        if not _lib.HAS_GEMM:
            raise InvalidArgument("this libktune was built without the gemm family")
        if c is not None and out is not None:
            raise InvalidArgument("give c or out, not both: C is read and written in place")
        s = stream_handle(stream, like=a)
        A, B = as_device_array(a, "a", dlpack_stream(s)), as_device_array(b, "b", dlpack_stream(s))
        if len(A.shape) != 2 or len(B.shape) != 2 or A.shape[1] != B.shape[0]:
            raise InvalidArgument(f"a ({'x'.join(map(str, A.shape))}) and b ({'x'.join(map(str, B.shape))}) are not "
                                  "m x k and k x n matrices")
        if A.dtype != B.dtype:
            raise TypeError(f"a is {A.dtype} and b is {B.dtype}: one dtype for both")
        m, k = A.shape
        n = B.shape[1]
        ta, lda = _operand_layout(A, "a")
        tb, ldb = _operand_layout(B, "b")
        target = c if c is not None else out
        if target is None:
            if beta != 0:
                raise InvalidArgument("beta != 0 reads C: give c")
            target = empty_like(A, (m, n), out_dtype)
        C = as_device_array(target, "c" if c is not None else "out", dlpack_stream(s))
        _rows_and_pitch(C, "c" if c is not None else "out")
        want = out_dtype or A.dtype
        if C.shape != (m, n) or C.dtype != want or C.device != A.device:
            raise InvalidArgument(f"C must be {m}x{n} {want} on device {A.device}, not {'x'.join(map(str, C.shape))} "
                                  f"{C.dtype} on device {C.device}")
        _lib.check(_lib_.ktune_c_gemm(self._handle, C.address, A.address, B.address, m, n, k, lda, ldb,
                                      max(C.strides[0], n), float(alpha), float(beta), _DTYPE_BYTES[A.dtype],
                                      (ta + tb).encode(), str(math).encode(),
                                      _DTYPE_BYTES[out_dtype] if out_dtype else None, s))
        return target

    def reduce(self, x, op, dim=None, *, out=None, stream=None):
        """op ("sum", "max", "min", "mean") over every element of x (dim=None: a contiguous
        array), or over one dimension of a matrix (dim 0 or 1, -1, -2): rows or columns,
        row-major with a pitch or a transposed view. Results in f32 (f64 for f64 input):
        a 0-d array, or one per kept row or column. Returns it."""
        if not _lib.HAS_REDUCE:
            raise InvalidArgument("this libktune was built without the reduction families")
        if op not in ("sum", "max", "min", "mean"):
            raise InvalidArgument(f"op '{op}': sum, max, min or mean")
        s = stream_handle(stream, like=x)
        a = as_device_array(x, "x", dlpack_stream(s))
        if a.dtype not in ("f32", "f16", "bf16", "f64"):
            raise TypeError(f"x is {a.dtype}: reductions take f32, f16, bf16 or f64")
        result = "f64" if a.dtype == "f64" else "f32"
        if dim is None:
            n = 1
            for size in a.shape:
                n *= size
            if not a.contiguous:
                raise InvalidArgument(f"x with strides {a.strides} is not contiguous: reduce over a dim, or copy it")
            target = out if out is not None else empty_like(a, (), result)
            call = lambda o: _lib_.ktune_c_reduce(self._handle, o, a.address, n, op.encode(), _DTYPE_BYTES[a.dtype], s)
            kept = ()
        else:
            if len(a.shape) != 2 or dim not in (0, 1, -1, -2):
                raise InvalidArgument(f"dim={dim}: x must be a matrix and dim 0 or 1 (x is {len(a.shape)}-D)")
            dim %= 2
            layout, ld = _operand_layout(a, "x")
            rows, cols = a.shape if layout == "n" else a.shape[::-1]  # the row-major matrix in memory
            along_rows = (dim == 1) == (layout == "n")  # reduce each stored row (else each stored column)
            kept = (a.shape[0],) if dim == 1 else (a.shape[1],)
            target = out if out is not None else empty_like(a, kept, result)
            fn = _lib_.ktune_c_reduce_rows if along_rows else _lib_.ktune_c_reduce_cols
            call = lambda o: fn(self._handle, o, a.address, rows, cols, ld, op.encode(), _DTYPE_BYTES[a.dtype], s)
        o = as_device_array(target, "out", dlpack_stream(s))
        if o.shape != kept or o.dtype != result or (kept and o.strides != (1,)):
            raise InvalidArgument(f"out must be a contiguous {result} array of shape {kept}, not {o.shape} {o.dtype}")
        _lib.check(call(o.address))
        return target

    def kernel(self, path_or_source, entry, type=None):
        return Kernel(path_or_source, entry, type, runtime=self)

    def elementwise(self, expression, dtype, out_dtype=None, scalars=()):
        return Elementwise(expression, dtype, out_dtype, scalars, runtime=self)


def _operand_layout(x, name):
    """("n", pitch) for a row-major operand, ("t", pitch) for a transposed view of one."""
    rows, cols = x.shape
    if cols == 1 or x.strides[1] == 1:
        return "n", max(x.strides[0], cols)
    if rows == 1 or x.strides[0] == 1:
        return "t", max(x.strides[1], rows)
    raise InvalidArgument(f"{name} has strides {x.strides}: neither row-major nor a transposed view of a row-major "
                          "matrix (copy it with .contiguous())")


def _rows_and_pitch(a, name):
    if len(a.shape) != 2:
        raise InvalidArgument(f"{name} must be 2-D, not {len(a.shape)}-D")
    if a.shape[1] > 1 and a.strides[1] != 1:
        raise InvalidArgument(f"{name} must have unit column stride (strides (pitch, 1)), not {a.strides}: "
                              "a transposed view's transpose is a copy (.contiguous() / .copy())")
    if a.shape[0] > 1 and a.strides[0] < a.shape[1]:
        raise InvalidArgument(f"{name}: its row pitch {a.strides[0]} is less than its {a.shape[1]} columns")


_default = None
_default_lock = threading.Lock()
kernels = weakref.WeakValueDictionary()  # id -> Kernel: what the torch.library op launches
_kernel_ids = itertools.count(1)


def default_runtime():
    """The process's runtime (the default database), made at first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Runtime()
        return _default


_torch_module = None


def _torch_ops(x):
    """The torch.library ops when x is a PyTorch tensor inside torch.compile, else None
    (they are registered at the first call with a PyTorch tensor, or at `import ktune`
    after `import torch`)."""
    global _torch_module
    if not type(x).__module__.startswith("torch"):
        return None
    if _torch_module is None:
        from . import _torch
        _torch_module = _torch
    return _torch_module if _torch_module.compiling() else None


def transpose(x, out=None, *, stream=None):
    """out (cols x rows) = x (rows x cols) transposed on the default runtime (Runtime.transpose)."""
    ops = _torch_ops(x) if stream is None else None
    if ops is not None:
        return ops.transpose(x) if out is None else (ops.transpose_out(x, out), out)[1]
    return default_runtime().transpose(x, out, stream=stream)


def gemm(a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None):
    """alpha * a @ b + beta * c on the default runtime (Runtime.gemm)."""
    if c is None and out is None and beta != 0:
        raise InvalidArgument("beta != 0 reads C: give c")
    ops = _torch_ops(a) if stream is None else None
    if ops is not None and c is None and out is None:
        return ops.gemm(a, b, float(alpha), str(math), out_dtype)
    if ops is not None:
        target = c if c is not None else out
        ops.gemm_out(a, b, target, float(alpha), float(beta), str(math), out_dtype)
        return target
    return default_runtime().gemm(a, b, out, c=c, alpha=alpha, beta=beta, math=math, out_dtype=out_dtype,
                                  stream=stream)


def _reduction(op):
    def call(x, dim=None, *, out=None, stream=None):
        ops = _torch_ops(x) if stream is None and out is None else None
        if ops is not None:
            return ops.reduce(x, op, dim)
        return default_runtime().reduce(x, op, dim, out=out, stream=stream)

    call.__name__ = op
    call.__doc__ = f"{op} over x, or over one dim of a matrix, on the default runtime (Runtime.reduce)."
    return call


def last_launch():
    """This thread's last launch: {"match": exact | nearest | same_arch | fallback,
    "config": the config that ran, "tuned_shape": the tuned problem it came from}."""
    return _lib.last_launch()


class Elementwise:
    """An elementwise expression, e.g. ktune.elementwise("out = a * b + c", "f16"); call it
    with its inputs (in .inputs order; contiguous arrays of one size) and its scalars by
    name: op(a, b, c) returns the output (a tuple for two), op(a, b, c, out=y) writes y."""

    def __init__(self, expression, dtype, out_dtype=None, scalars=(), runtime=None):
        if not _lib.HAS_ELEMENTWISE:
            raise InvalidArgument("this libktune was built without the elementwise family")
        self._runtime = runtime or default_runtime()
        handle = _lib_.ktune_c_elementwise_new(self._runtime._handle, expression.encode(), str(dtype).encode(),
                                               str(out_dtype).encode() if out_dtype else None,
                                               ",".join(scalars).encode() if scalars else None)
        self._handle = _lib.check(handle)
        names = lambda f: [v for v in f(self._handle).decode().split(",") if v]
        self.inputs = names(_lib_.ktune_c_elementwise_inputs)
        self.outputs = names(_lib_.ktune_c_elementwise_outputs)
        self.scalars = names(_lib_.ktune_c_elementwise_scalars)
        self.dtype, self.out_dtype = str(dtype), str(out_dtype or dtype)
        with _default_lock:  # an id the torch.library op can name it by
            self._id = next(_kernel_ids)
            kernels[self._id] = self

    def __del__(self, _free=_lib_.ktune_c_elementwise_free if _lib.HAS_ELEMENTWISE else None):
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def __call__(self, *arrays, out=None, stream=None, **scalars):
        if len(arrays) != len(self.inputs):
            raise InvalidArgument(f"takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), not {len(arrays)}")
        if set(scalars) != set(self.scalars):
            raise InvalidArgument(f"scalars: give {self.scalars}, not {sorted(scalars)}")
        values = [float(scalars[name]) for name in self.scalars]
        ops = _torch_ops(arrays[0]) if stream is None and out is None and arrays else None
        if ops is not None:
            results = ops.elementwise(self._id, list(arrays), values)
            return results[0] if len(results) == 1 else tuple(results)
        return self.launch(arrays, values, out, stream)

    def launch(self, arrays, values, out=None, stream=None):
        """The launch itself: returns the output(s)."""
        if not arrays:
            raise InvalidArgument("an elementwise call needs its inputs")
        s = stream_handle(stream, like=arrays[0])
        ins = [as_device_array(a, name, dlpack_stream(s)) for a, name in zip(arrays, self.inputs)]
        first = ins[0]
        for a, name in zip(ins, self.inputs):
            if a.shape != first.shape or not a.contiguous or a.dtype != self.dtype:
                raise InvalidArgument(f"input {name} must be a contiguous {self.dtype} array of shape {first.shape}")
        outs = list(out) if isinstance(out, (tuple, list)) else [out] if out is not None else \
            [empty_like(first, first.shape, self.out_dtype) for _ in self.outputs]
        if len(outs) != len(self.outputs):
            raise InvalidArgument(f"out: {len(self.outputs)} arrays ({', '.join(self.outputs)})")
        out_arrays = [as_device_array(o, name, dlpack_stream(s)) for o, name in zip(outs, self.outputs)]
        for o, name in zip(out_arrays, self.outputs):
            if o.shape != first.shape or not o.contiguous or o.dtype != self.out_dtype:
                raise InvalidArgument(f"output {name} must be a contiguous {self.out_dtype} array of shape {first.shape}")
        n = 1
        for size in first.shape:
            n *= size
        u64 = _lib.ctypes.c_uint64
        _lib.check(_lib_.ktune_c_elementwise_call(
            self._handle, (u64 * max(1, len(out_arrays)))(*[o.address for o in out_arrays]), len(out_arrays),
            (u64 * len(ins))(*[a.address for a in ins]), len(ins), n,
            (_lib.ctypes.c_double * max(1, len(values)))(*values), len(values), s))
        return outs[0] if len(outs) == 1 else tuple(outs)


def elementwise(expression, dtype, out_dtype=None, scalars=()):
    """An elementwise operation on the default runtime (Elementwise)."""
    return default_runtime().elementwise(expression, dtype, out_dtype, scalars)


class Kernel:
    """A user's kernel (a .cu file with a `// @` description, or its text), launched with
    its stored winner: k(y, x, n, problem={"n": n}). Arguments in declaration order:
    device arrays for pointers, Python numbers for scalars."""

    def __init__(self, path_or_source, entry, type=None, runtime=None):
        self._runtime = runtime or default_runtime()
        handle = _lib_.ktune_c_kernel_new(self._runtime._handle, str(path_or_source).encode(), entry.encode(),
                                          type.encode() if type else None)
        self._handle = _lib.check(handle)
        self.variables = [v for v in _lib_.ktune_c_kernel_variables(self._handle).decode().split(",") if v]
        count = _lib_.ktune_c_kernel_arg_count(self._handle)
        self.kinds = [_lib_.ktune_c_kernel_arg_kind(self._handle, i) for i in range(count)]
        self.writes = [_lib_.ktune_c_kernel_arg_role(self._handle, i) in (1, 2) for i in range(count)]  # out, inout
        # Built once: the variables' names as the C call takes them, and argument labels.
        self._names = (_lib.ctypes.c_char_p * max(1, len(self.variables)))(*[v.encode() for v in self.variables])
        self._labels = [f"argument {i}" for i in range(count)]
        self._buffers = threading.local()  # each thread's ctypes argument arrays, made at its first call
        with _default_lock:  # an id the torch.library op can name it by
            self._id = next(_kernel_ids)
            kernels[self._id] = self

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
        like = next((a for a, k in zip(args, self.kinds) if k == _lib.POINTER), None)
        ops = _torch_ops(like) if stream is None else None
        if ops is not None:
            return self._call_op(ops, args, problem)
        return self.launch(args, problem, stream, like)

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

    def launch(self, args, problem, stream, like=None):
        """The launch itself (no torch.compile routing): args a sequence, problem a dict;
        `like`: the first array argument, when the caller has found it."""
        if like is None:
            like = next((a for a, k in zip(args, self.kinds) if k == _lib.POINTER), None)
        s = stream_handle(stream, like=like)
        c_args, slots, values = self._thread_buffers()
        keep = []
        for i, (a, kind) in enumerate(zip(args, self.kinds)):
            slot = slots[i]
            if kind == _lib.POINTER:
                arr = as_device_array(a, self._labels[i], dlpack_stream(s))
                keep.append(arr)
                slot.pointer = arr.address
            elif isinstance(a, bool) or not isinstance(a, (int, float)):
                raise TypeError(f"argument {i} is a scalar: a Python int or float, not a {type(a).__name__}")
            elif kind == _lib.F32:
                slot.f32 = a
            elif kind == _lib.F64:
                slot.f64 = a
            elif isinstance(a, float):
                raise TypeError(f"argument {i} is an integer scalar, not a float")
            elif kind == _lib.I32:
                if not -2**31 <= a < 2**31:
                    raise InvalidArgument(f"argument {i} = {a} does not fit its i32")
                slot.i32 = a
            else:
                slot.i64 = a
        if len(problem) == len(self.variables) and all(v in problem for v in self.variables):
            names = self._names
            for j, v in enumerate(self.variables):
                values[j] = problem[v]
            count = len(self.variables)
        else:  # the library names what is missing or unknown
            names = (_lib.ctypes.c_char_p * max(1, len(problem)))(*[str(k).encode() for k in problem])
            values = (_lib.ctypes.c_int64 * max(1, len(problem)))(*[int(v) for v in problem.values()])
            count = len(problem)
        _lib.check(_lib_.ktune_c_kernel_launch(self._handle, s, names, values, count, c_args, len(args)))
        del keep  # the arrays and their DLPack capsules lived through the launch

    def _thread_buffers(self):
        """This thread's argument array (kinds set once), its value slots, the values array."""
        b = self._buffers
        if not hasattr(b, "args"):
            b.args = (_lib.Arg * max(1, len(self.kinds)))()
            for i, kind in enumerate(self.kinds):
                b.args[i].kind = kind
            b.slots = [b.args[i].value for i in range(len(self.kinds))]
            b.values = (_lib.ctypes.c_int64 * max(1, len(self.variables)))()
        return b.args, b.slots, b.values
