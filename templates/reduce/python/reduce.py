"""ktune.sum/max/min/mean from Python: the reduction families' runtime calls."""
import math
from typing import Optional

from ktune import family
from ktune.family import C

__all__ = ["sum", "max", "min", "mean"]

_whole = family.c_function("ktune_c_reduce", C.c_int, [C.c_void_p, C.c_uint64, C.c_uint64, C.c_int64, C.c_char_p,
                                                       C.c_char_p, C.c_uint64])
_lines = [family.c_function(name, C.c_int, [C.c_void_p, C.c_uint64, C.c_uint64] + [C.c_int64] * 3 +
                            [C.c_char_p, C.c_char_p, C.c_uint64])
          for name in ("ktune_c_reduce_rows", "ktune_c_reduce_cols")]
_OPS = ("sum", "max", "min", "mean")


@family.runtime_method("reduce")
def _runtime_reduce(runtime, x, op, dim=None, *, out=None, stream=None):
    """op ("sum", "max", "min", "mean") over every element of x (dim=None: a contiguous
    array), or over one dimension of a matrix (dim 0 or 1, -1, -2): rows or columns,
    row-major with a pitch or a transposed view. Results in f32 (f64 for f64 input):
    a 0-d array, or one per kept row or column. Returns it. No gradient: ktune.sum etc.
    have one."""
    family.no_grad_here("reduce", x)
    return _reduce_on(runtime, x, op, dim, out=out, stream=stream)


def _reduce_on(runtime, x, op, dim=None, *, out=None, stream=None, plan_key=None):
    """The call; with plan_key (a plain tensor on the default runtime), its plan is kept."""
    family.require(_whole, "reduce")
    if op not in _OPS:
        raise family.InvalidArgument(f"op '{op}': sum, max, min or mean")
    s = family.stream_handle(stream, like=x)
    a = family.as_device_array(x, "x", family.dlpack_stream(s))
    if a.dtype not in ("f32", "f16", "bf16", "f64"):
        raise TypeError(f"x is {a.dtype}: reductions take f32, f16, bf16 or f64")
    result = "f64" if a.dtype == "f64" else "f32"
    names = (runtime._handle, op.encode(), family.DTYPE_NAMES[a.dtype], s)
    if dim is None:
        if not a.contiguous:
            raise family.InvalidArgument(f"x with strides {a.strides} is not contiguous: reduce over a dim, or copy it")
        n = math.prod(a.shape)
        kept = ()
        fn, sizes = _whole, (n,)
    else:
        if len(a.shape) != 2 or dim not in (0, 1, -1, -2):
            raise family.InvalidArgument(f"dim={dim}: x must be a matrix and dim 0 or 1 (x is {len(a.shape)}-D)")
        dim %= 2
        layout, ld = family.matrix_layout(a, "x")
        rows, cols = a.shape if layout == "n" else a.shape[::-1]  # the row-major matrix in memory
        along_rows = (dim == 1) == (layout == "n")  # reduce each stored row (else each stored column)
        kept = (a.shape[0],) if dim == 1 else (a.shape[1],)
        fn, sizes = (_lines[0] if along_rows else _lines[1]), (rows, cols, ld)
    if out is None:
        target, o = family.new_array(a, kept, result)
    else:
        target, o = out, family.as_device_array(out, "out", family.dlpack_stream(s))
        if o.shape != kept or o.dtype != result or (kept and o.strides != (1,)):
            raise family.InvalidArgument(f"out must be a contiguous {result} array of shape {kept}, not {o.shape} "
                                         f"{o.dtype}")
    if math.prod(a.shape) == 0:  # as PyTorch: an empty sum is 0, a mean nan, a max has no value
        if math.prod(kept) == 0:
            return target  # no result to compute
        if op in ("max", "min"):
            raise family.InvalidArgument(f"{op} over an empty dim has no value (as torch.amax)")
        target[...] = 0 if op == "sum" else float("nan")
        return target
    family.check(fn(names[0], o.address, a.address, *sizes, *names[1:]))
    if plan_key is not None:
        _plans.put(plan_key, family.planned_call(fn, names[0], kept, target.dtype, sizes + names[1:3]))
    return target


_plans = family.Plans()


def _build_ops(torch):
    @torch.library.custom_op("ktune::reduce", mutates_args=())
    def reduce_op(x: torch.Tensor, op: str, dim: Optional[int]) -> torch.Tensor:
        return _reduce_on(family.default_runtime(), x, op, dim)

    @reduce_op.register_fake
    def _(x, op, dim):
        kind = torch.float64 if x.dtype == torch.float64 else torch.float32
        if dim is None:
            return x.new_empty((), dtype=kind)
        return x.new_empty((x.shape[0],) if dim % 2 == 1 else (x.shape[1],), dtype=kind)

    def setup(ctx, inputs, output):
        x, ctx.op, ctx.dim = inputs
        ctx.save_for_backward(x, output)

    def backward(ctx, grad):
        """sum: the gradient broadcast back; mean: divided by the count; max and min:
        shared among the elements equal to the result (as torch.amax)."""
        x, result = ctx.saved_tensors
        keep = [1] * x.dim() if ctx.dim is None else [1, -1] if ctx.dim % 2 == 0 else [-1, 1]
        g = grad.reshape(keep)
        if ctx.op in ("sum", "mean"):
            gx = g.expand(x.shape)
            if ctx.op == "mean":
                gx = gx / (x.numel() if ctx.dim is None else x.shape[ctx.dim % 2])
        else:
            hit = (x == result.reshape(keep).to(x.dtype)).to(g.dtype)
            over = None if ctx.dim is None else ctx.dim % 2
            ties = hit.sum() if over is None else hit.sum(dim=over, keepdim=True)
            gx = hit * g / ties
        return gx.to(x.dtype), None, None

    reduce_op.register_autograd(backward, setup_context=setup)
    return reduce_op


_ops = family.TorchOps(_build_ops)


def _reduction(op):
    def call(x, dim=None, *, out=None, stream=None):
        return family.dispatch(op, _plans, _ops, _reduce_on, x, (op, dim), out=out, stream=stream)

    call.__name__ = call.__qualname__ = op
    call.__doc__ = (f"{op} over every element of x (dim=None), or over dim 0 or 1 of a matrix, on the default "
                    "runtime (see Runtime.reduce): a 0-d array, or one value per kept row or column; f32 (f64 for "
                    "f64 input). Differentiable (without out=).")
    return call


# Named as PyTorch's (they shadow the builtins only as attributes of the package).
sum, max, min, mean = (_reduction(op) for op in _OPS)  # noqa: A001
