"""ktune.elementwise from Python: an expression compiled once, called on framework arrays."""
import math

from ktune import family
from ktune.family import C

__all__ = ["Elementwise", "elementwise"]

_new = family.c_function("ktune_c_elementwise_new", C.c_void_p, [C.c_void_p] + [C.c_char_p] * 4)
_free = family.c_function("ktune_c_elementwise_free", None, [C.c_void_p])
_names = {part: family.c_function(f"ktune_c_elementwise_{part}", C.c_char_p, [C.c_void_p])
          for part in ("inputs", "outputs", "scalars")}
_call = family.c_function("ktune_c_elementwise_call", C.c_int,
                          [C.c_void_p, C.POINTER(C.c_uint64), C.c_int, C.POINTER(C.c_uint64), C.c_int, C.c_int64,
                           C.POINTER(C.c_double), C.c_int, C.c_uint64])


class Elementwise:
    """An elementwise expression, e.g. ktune.elementwise("out = a * b + c", "f16"); call it
    with its inputs (in .inputs order; contiguous arrays of one size) and its scalars by
    name: op(a, b, c) returns the output (a tuple for two), op(a, b, c, out=y) writes y."""

    def __init__(self, expression, dtype, out_dtype=None, scalars=(), runtime=None):
        family.require(_new, "elementwise")
        self._runtime = runtime or family.default_runtime()
        handle = _new(self._runtime._handle, expression.encode(), str(dtype).encode(),
                      str(out_dtype).encode() if out_dtype else None, ",".join(scalars).encode() if scalars else None)
        self._handle = family.check(handle)
        self.inputs, self.outputs, self.scalars = (
            [v for v in _names[part](self._handle).decode().split(",") if v] for part in ("inputs", "outputs", "scalars"))
        self.dtype, self.out_dtype = str(dtype), str(out_dtype or dtype)
        self._id = family.register_callable(self)

    def __del__(self, _free=_free):
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def __call__(self, *arrays, out=None, stream=None, **scalars):
        if len(arrays) != len(self.inputs):
            raise family.InvalidArgument(f"takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), not {len(arrays)}")
        if set(scalars) != set(self.scalars):
            raise family.InvalidArgument(f"scalars: give {self.scalars}, not {sorted(scalars)}")
        values = [float(scalars[name]) for name in self.scalars]
        ops = _ops.under_compile(arrays[0]) if stream is None and out is None and arrays else None
        if ops is not None:
            results = ops(self._id, list(arrays), values)
            return results[0] if len(results) == 1 else tuple(results)
        return self.launch(arrays, values, out, stream)

    def launch(self, arrays, values, out=None, stream=None):
        """The launch itself: returns the output(s)."""
        if not arrays:
            raise family.InvalidArgument("an elementwise call needs its inputs")
        s = family.stream_handle(stream, like=arrays[0])
        ins = [family.as_device_array(a, name, family.dlpack_stream(s)) for a, name in zip(arrays, self.inputs)]
        first = ins[0]
        for a, name in zip(ins, self.inputs):
            if a.shape != first.shape or not a.contiguous or a.dtype != self.dtype:
                raise family.InvalidArgument(f"input {name} must be a contiguous {self.dtype} array of shape {first.shape}")
        outs = list(out) if isinstance(out, (tuple, list)) else [out] if out is not None else \
            [family.empty_like(first, first.shape, self.out_dtype) for _ in self.outputs]
        if len(outs) != len(self.outputs):
            raise family.InvalidArgument(f"out: {len(self.outputs)} arrays ({', '.join(self.outputs)})")
        out_arrays = [family.as_device_array(o, name, family.dlpack_stream(s)) for o, name in zip(outs, self.outputs)]
        for o, name in zip(out_arrays, self.outputs):
            if o.shape != first.shape or not o.contiguous or o.dtype != self.out_dtype:
                raise family.InvalidArgument(
                    f"output {name} must be a contiguous {self.out_dtype} array of shape {first.shape}")
        n = math.prod(first.shape)
        u64 = C.c_uint64
        family.check(_call(self._handle, (u64 * max(1, len(out_arrays)))(*[o.address for o in out_arrays]),
                           len(out_arrays), (u64 * len(ins))(*[a.address for a in ins]), len(ins), n,
                           (C.c_double * max(1, len(values)))(*values), len(values), s))
        return outs[0] if len(outs) == 1 else tuple(outs)


@family.runtime_method("elementwise")
def _runtime_elementwise(runtime, expression, dtype, out_dtype=None, scalars=()):
    return Elementwise(expression, dtype, out_dtype, scalars, runtime=runtime)


def elementwise(expression, dtype, out_dtype=None, scalars=()):
    """An elementwise operation on the default runtime (Elementwise)."""
    return family.default_runtime().elementwise(expression, dtype, out_dtype, scalars)



def _build_ops(torch):
    @torch.library.custom_op("ktune::elementwise", mutates_args=())
    def elementwise_op(op_id: int, inputs: list[torch.Tensor], scalars: list[float]) -> list[torch.Tensor]:
        result = family.callable_by_id(op_id).launch(inputs, scalars)
        return list(result) if isinstance(result, tuple) else [result]

    @elementwise_op.register_fake
    def _(op_id, inputs, scalars):
        op = family.callable_by_id(op_id)
        dtype = family.torch_dtype(op.out_dtype)
        return [inputs[0].new_empty(inputs[0].shape, dtype=dtype) for _ in op.outputs]

    return elementwise_op


_ops = family.TorchOps(_build_ops)
