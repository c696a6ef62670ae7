"""ktune.scan and ktune.cumsum from Python: the scan family's calls on framework arrays."""
import math
from typing import Optional

from ktune import family
from ktune.family import C

__all__ = ["scan", "cumsum"]

_whole = family.c_function("ktune_c_scan", C.c_int, [C.c_void_p, C.c_uint64, C.c_uint64, C.c_int64, C.c_char_p,
                                                     C.c_char_p, C.c_int, C.c_uint64])
_rows = family.c_function("ktune_c_scan_rows", C.c_int, [C.c_void_p, C.c_uint64, C.c_uint64] + [C.c_int64] * 4 +
                          [C.c_char_p, C.c_char_p, C.c_int, C.c_uint64])
_OPS = ("sum", "max", "min")
_TYPES = ("f32", "f64", "i32", "i64", "f16", "bf16")


@family.runtime_method("scan")
def _runtime_scan(runtime, x, op="sum", dim=None, *, exclusive=False, out=None, stream=None):
    """Prefix op ("sum", "max", "min") of x: over every element in memory order (dim=None;
    a contiguous array), or along the last dim of a matrix (dim=-1 or 1: each row, as
    torch.cumsum(x, dim=-1); rows with any pitch). Inclusive, or exclusive (out[0] is
    the identity). The result has x's shape: f32 for f16/bf16 input, else x's dtype;
    out may be x itself (in place). Returns it. No gradient: ktune.scan has one."""
    family.no_grad_here("scan", x)
    return _scan_on(runtime, x, op, dim, exclusive, out=out, stream=stream)


def _scan_on(runtime, x, op, dim, exclusive, *, out=None, stream=None, plan_key=None):
    """The call; with plan_key (a plain tensor on the default runtime), its plan is kept."""
    family.require(_whole, "scan")
    if op not in _OPS:
        raise family.InvalidArgument(f"op '{op}': sum, max or min")
    s = family.stream_handle(stream, like=x)
    a = family.as_device_array(x, "x", family.dlpack_stream(s))
    if a.dtype not in _TYPES:
        raise TypeError(f"x is {a.dtype}: scans take {', '.join(_TYPES)}")
    result = "f32" if a.dtype in ("f16", "bf16") else a.dtype
    target, o = family.new_array(a, a.shape, result) if out is None else \
        (out, family.as_device_array(out, "out", family.dlpack_stream(s)))
    if o.shape != a.shape or o.dtype != result or o.device != a.device:
        raise family.InvalidArgument(f"out must be {family.shape_text(a.shape)} {result} on device {a.device}, not "
                                     f"{family.shape_text(o.shape)} {o.dtype} on device {o.device}")
    head = (runtime._handle, o.address, a.address)
    tail = (op.encode(), family.DTYPE_NAMES[a.dtype], 1 if exclusive else 0, s)
    if dim is None:
        if not a.contiguous or not o.contiguous:
            raise family.InvalidArgument("dim=None scans a contiguous array: give dim=-1 for rows, or copy it")
        n = math.prod(a.shape)
        if n == 0:
            return target
        fn, sizes = _whole, (n,)
    else:
        if len(a.shape) != 2 or dim not in (1, -1):
            raise family.InvalidArgument(f"dim={dim}: rows are scanned along the last dim of a matrix (dim=-1)")
        family.row_major(a, "x")
        family.row_major(o, "out")
        rows, cols = a.shape
        if not rows or not cols:
            return target
        fn, sizes = _rows, (rows, cols, max(o.strides[0], cols), max(a.strides[0], cols))
    family.check(fn(*head, *sizes, *tail))
    if plan_key is not None:
        _plans.put(plan_key, family.planned_call(fn, runtime._handle, a.shape, target.dtype, sizes + tail[:3]))
    return target


_plans = family.Plans()


def _build_ops(torch):
    @torch.library.custom_op("ktune::scan", mutates_args=())
    def scan_op(x: torch.Tensor, op: str, dim: Optional[int], exclusive: bool) -> torch.Tensor:
        return _scan_on(family.default_runtime(), x, op, dim, exclusive)

    @scan_op.register_fake
    def _(x, op, dim, exclusive):
        return x.new_empty(x.shape, dtype=torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype)

    def setup(ctx, inputs, output):
        x, ctx.op, ctx.dim, ctx.exclusive = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        """An exclusive scan's out[i] is the inclusive one's out[i-1], so its gradient is
        the inclusive one's of the gradient shifted by one. Sum: the reversed prefix sum
        of the gradient (ktune's scan, on the reversed gradient); max and min: each
        gradient to the element that was the running extreme (torch.cummax's index)."""
        (x,) = ctx.saved_tensors
        lines = x.reshape(1, -1) if ctx.dim is None else x  # one row, or the rows
        g = grad.reshape(lines.shape)
        if ctx.exclusive:
            g = torch.cat([g[:, 1:], torch.zeros_like(g[:, :1])], dim=1)
        if ctx.op == "sum":
            gx = scan_op(g.flip(1).contiguous(), "sum", None if ctx.dim is None else 1, False).flip(1)
        else:
            running = torch.cummax(lines, dim=1) if ctx.op == "max" else torch.cummin(lines, dim=1)
            gx = torch.zeros_like(g).scatter_add_(1, running.indices, g)
        return gx.reshape(x.shape).to(x.dtype), None, None, None

    scan_op.register_autograd(backward, setup_context=setup)
    return scan_op


_ops = family.TorchOps(_build_ops)


def scan(x, op="sum", dim=None, *, exclusive=False, out=None, stream=None):
    """Prefix op ("sum", "max", "min") of x on the default runtime (see Runtime.scan):
    dim=None over every element in memory order (x contiguous, any shape), dim=-1 (or 1)
    along each row of a matrix. Differentiable (without out=)."""
    return family.dispatch("scan", _plans, _ops, _scan_on, x, (op, dim, bool(exclusive)), out=out, stream=stream)


def cumsum(x, dim=None, *, out=None, stream=None):
    """scan(x, "sum", dim): torch.cumsum's name. Unlike torch.cumsum, dim may be left out:
    dim=None scans every element in memory order (a 2-D x as one flat array); dim=-1 (or
    1) scans each row. Differentiable (without out=)."""
    return scan(x, "sum", dim, out=out, stream=stream)
