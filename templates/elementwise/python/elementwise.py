"""ktune.elementwise from Python: an expression compiled once, called on framework arrays."""
import math
import re
import threading

from ktune import family
from ktune.family import C

__all__ = ["Elementwise", "elementwise"]

_new = family.c_function("ktune_c_elementwise_new", C.c_void_p, [C.c_void_p] + [C.c_char_p] * 4)
_free = family.c_function("ktune_c_elementwise_free", None, [C.c_void_p])
_names = {part: family.c_function(f"ktune_c_elementwise_{part}", C.c_char_p, [C.c_void_p])
          for part in ("inputs", "outputs", "scalars")}
_gradient = family.c_function("ktune_c_elementwise_gradient", C.c_char_p, [C.c_void_p])
_call = family.c_function("ktune_c_elementwise_call", C.c_int,
                          [C.c_void_p, C.POINTER(C.c_uint64), C.c_int, C.POINTER(C.c_uint64), C.c_int, C.c_int64,
                           C.POINTER(C.c_double), C.c_int, C.c_uint64])


_GRAD_OUT, _GRAD_IN = "ktune_dout_", "ktune_din_"  # the backward's names (ElementwiseExpr::gradient)


class Elementwise:
    """An elementwise expression, e.g. ktune.elementwise("out = a * b + c", "f16"); call it
    with its inputs (in .inputs order; contiguous arrays of one shape) and its scalars by
    name: op(a, b, c) returns the output (a tuple for two), op(a, b, c, out=y) writes y.
    A name given by keyword at the call is a scalar even if the expression was made
    without declaring it (op = elementwise("out = alpha * x + y", "f32"); op(x, y,
    alpha=2.0)). Differentiable (PyTorch, without out=): the expression is
    differentiated symbolically and the backward runs as generated ktune kernels."""

    def __init__(self, expression, dtype, out_dtype=None, scalars=(), runtime=None):
        family.require(_new, "elementwise")
        self._runtime = runtime or family.default_runtime()
        self.expression = str(expression)
        for name in scalars:
            if not isinstance(name, str) or "," in name:
                raise family.InvalidArgument(f"scalars: names, not {name!r}")
        handle = _new(self._runtime._handle, family.c_text(self.expression, "expression"),
                      family.c_text(dtype, "dtype"), family.c_text(out_dtype, "out_dtype") if out_dtype else None,
                      family.c_text(",".join(scalars), "scalars") if scalars else None)
        self._handle = family.check(handle)
        self.inputs, self.outputs, self.scalars = (
            [v for v in _names[part](self._handle).decode().split(",") if v] for part in ("inputs", "outputs", "scalars"))
        self.dtype, self.out_dtype = str(dtype), str(out_dtype or dtype)
        self._variants = {}  # frozenset of names taken as scalars at a call -> Elementwise
        self._backward = None  # [Elementwise], made at the first backward
        self._buffers = threading.local()  # each thread's ctypes arrays for the C call
        self._plans = family.Plans()  # (shape, strides, dtype) of each input: plain-tensor calls checked before
        self._id = family.register_callable(self)

    def __del__(self, _free=_free):
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def __call__(self, *arrays, out=None, stream=None, **scalars):
        named_inputs = [name for name in scalars if name in self.inputs and name not in self.scalars]
        if named_inputs:  # documented style: op(x, y, alpha=2.0) with alpha undeclared
            return self._with_scalars(named_inputs)(*arrays, out=out, stream=stream, **scalars)
        if len(arrays) != len(self.inputs):
            raise family.InvalidArgument(f"takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), not {len(arrays)}")
        if (scalars or self.scalars) and set(scalars) != set(self.scalars):
            unknown = sorted(set(scalars) - set(self.scalars))
            raise family.InvalidArgument(f"scalars: give {self.scalars}, not {sorted(scalars)}" +
                                         (f" ({', '.join(unknown)}: not in '{self.expression}')" if unknown else ""))
        values = [float(scalars[name]) for name in self.scalars]
        fast = out is None and stream is None and family.plain(*arrays)
        if fast:
            key = tuple((a.shape, a.stride(), a.dtype) for a in arrays)
            if self._plans.get(key):
                return self._planned(arrays, values)
        if out is not None:
            family.no_grad_in_place("elementwise", *arrays)
        ops = _ops.routed(arrays[0], *arrays[1:]) if stream is None and out is None and arrays else None
        if ops is not None:
            results = ops(self._id, list(arrays), values)
            return results[0] if len(results) == 1 else tuple(results)
        result = self.launch(arrays, values, out, stream)
        if fast:
            self._plans.put(key, True)
        return result

    def _planned(self, arrays, values):
        """A launch on inputs whose shapes, strides and dtypes were checked before: the
        outputs, the addresses and the C call."""
        first = arrays[0]
        dtype = family.torch_dtype(self.out_dtype)
        outs = [first.new_empty(first.shape, dtype=dtype) for _ in self.outputs]
        n = first.numel()
        if n:
            o_buf, i_buf, s_buf = self._thread_buffers()
            for k, o in enumerate(outs):
                o_buf[k] = o.data_ptr()
            for k, a in enumerate(arrays):
                i_buf[k] = a.data_ptr()
            for k, v in enumerate(values):
                s_buf[k] = v
            family.check(_call(self._handle, o_buf, len(outs), i_buf, len(arrays), n, s_buf, len(values),
                               family.raw_stream(first)))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _with_scalars(self, names):
        key = frozenset(names)
        if key not in self._variants:
            self._variants[key] = Elementwise(self.expression, self.dtype, self.out_dtype,
                                              list(self.scalars) + sorted(names), self._runtime)
        return self._variants[key]

    def backward_ops(self):
        """The backward's elementwise operations (at most two outputs each), made once:
        inputs are this one's inputs and ktune_dout_<output>; outputs ktune_din_<input>."""
        if self._backward is None:
            text = family.check(_gradient(self._handle)).decode()
            ops = []
            for line in filter(None, text.split("\n")):
                used = [name for name in self.scalars if name in _identifiers(line)]
                ops.append(Elementwise(line, self.dtype, self.dtype, used, self._runtime))
            self._backward = ops
        return self._backward

    def launch(self, arrays, values, out=None, stream=None):
        """The launch itself: returns the output(s)."""
        if not arrays:
            raise family.InvalidArgument("an elementwise call needs its inputs")
        s = family.stream_handle(stream, like=arrays[0])
        ds = family.dlpack_stream(s)
        ins = [family.as_device_array(a, name, ds) for a, name in zip(arrays, self.inputs)]
        first = ins[0]
        for a, name in zip(ins, self.inputs):
            if a.shape != first.shape or a.dtype != self.dtype or not a.contiguous:
                raise family.InvalidArgument(f"input {name} must be a contiguous {self.dtype} array of shape "
                                             f"{first.shape}, not {a.dtype} {a.shape}" +
                                             ("" if a.contiguous else " (strided)"))
        if out is None:
            made = [family.new_array(first, first.shape, self.out_dtype) for _ in self.outputs]
            outs, out_arrays = [t for t, _ in made], [o for _, o in made]
        else:
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            if len(outs) != len(self.outputs):
                raise family.InvalidArgument(f"out: {len(self.outputs)} arrays ({', '.join(self.outputs)})")
            out_arrays = [family.as_device_array(o, name, ds) for o, name in zip(outs, self.outputs)]
            for o, name in zip(out_arrays, self.outputs):
                if o.shape != first.shape or not o.contiguous or o.dtype != self.out_dtype:
                    raise family.InvalidArgument(
                        f"output {name} must be a contiguous {self.out_dtype} array of shape {first.shape}")
        n = math.prod(first.shape)
        if n:  # (empty inputs: empty outputs, as PyTorch's)
            o_buf, i_buf, s_buf = self._thread_buffers()
            for k, o in enumerate(out_arrays):
                o_buf[k] = o.address
            for k, a in enumerate(ins):
                i_buf[k] = a.address
            for k, v in enumerate(values):
                s_buf[k] = v
            family.check(_call(self._handle, o_buf, len(out_arrays), i_buf, len(ins), n, s_buf, len(values), s))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _thread_buffers(self):
        """This thread's address and scalar arrays for the C call, made at its first call."""
        b = self._buffers
        if not hasattr(b, "outs"):
            b.outs = (C.c_uint64 * max(1, len(self.outputs)))()
            b.ins = (C.c_uint64 * max(1, len(self.inputs)))()
            b.scalars = (C.c_double * max(1, len(self.scalars)))()
        return b.outs, b.ins, b.scalars


def _identifiers(text):
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


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

    def setup(ctx, inputs, output):
        ctx.op_id, _, ctx.scalars = inputs
        ctx.save_for_backward(*inputs[1])

    def backward(ctx, grads):
        """The symbolic gradient's kernels (Elementwise.backward_ops), through this same
        op, so a second derivative and torch.compile work as for the forward."""
        op = family.callable_by_id(ctx.op_id)
        inputs = ctx.saved_tensors
        dtype = family.torch_dtype(op.dtype)
        values = dict(zip(op.inputs, inputs))
        for name, g in zip(op.outputs, grads):
            values[_GRAD_OUT + name] = (torch.zeros_like(inputs[0]) if g is None else g.to(dtype)).contiguous()
        scalar = dict(zip(op.scalars, ctx.scalars))
        found = {}
        for b in op.backward_ops():
            results = elementwise_op(b._id, [values[name] for name in b.inputs], [scalar[s] for s in b.scalars])
            found.update({name[len(_GRAD_IN):]: t for name, t in zip(b.outputs, results)})
        grads_in = [found.get(name, torch.zeros_like(x)) for name, x in zip(op.inputs, inputs)]
        # The inputs' structure as PyTorch flattens it: a list of numbers is one leaf, an empty one a list.
        return None, grads_in, None if ctx.scalars else []

    elementwise_op.register_autograd(backward, setup_context=setup)
    return elementwise_op


_ops = family.TorchOps(_build_ops)
