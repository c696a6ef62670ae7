"""ktune.gemm from Python: the GEMM families' runtime call on framework arrays."""
import sys
from typing import Optional

from ktune import family
from ktune.family import C

__all__ = ["gemm", "addmm"]

_gemm = family.c_function("ktune_c_gemm", C.c_int, [C.c_void_p] + [C.c_uint64] * 3 + [C.c_int64] * 6 +
                          [C.c_double, C.c_double] + [C.c_char_p] * 4 + [C.c_uint64])


@family.runtime_method("gemm")
def _runtime_gemm(runtime, a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None):
    """alpha * a @ b + beta * c, with a (m x k) and b (k x n) each row-major or a
    transposed view (the layout is read from the strides: nn, nt, tn, tt). C is
    written in place: `c` (read when beta != 0) or `out`, not both; neither allocates
    a new (m x n) array. f32, f64, f16, bf16; out_dtype="f32" keeps halves' f32
    accumulators; math "auto", "simt" or "tf32" (an opt-in for f32). Returns C.
    No gradient: ktune.gemm and ktune.addmm have one."""
    family.no_grad_here("gemm", a, b, c)
    return _gemm_on(runtime, a, b, out, c=c, alpha=alpha, beta=beta, math=math, out_dtype=out_dtype, stream=stream)


def _gemm_on(runtime, a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None,
             plan_key=None):
    """The call; with plan_key (C = alpha a b of plain tensors, default runtime), its plan is kept."""
    call = family.require(_gemm, "gemm")
    if out_dtype is not None and out_dtype not in family.DTYPE_NAMES:
        raise family.InvalidArgument(f"out_dtype {out_dtype!r}: one of {', '.join(family.DTYPE_NAMES)}, or None")
    if c is not None and out is not None:
        raise family.InvalidArgument("give c or out, not both: C is read and written in place")
    s = family.stream_handle(stream, like=a)
    A, B = family.as_device_array(a, "a", family.dlpack_stream(s)), family.as_device_array(b, "b", family.dlpack_stream(s))
    if len(A.shape) != 2 or len(B.shape) != 2 or A.shape[1] != B.shape[0]:
        raise family.InvalidArgument(f"a ({family.shape_text(A.shape)}) and b ({family.shape_text(B.shape)}) are not "
                                     "m x k and k x n matrices")
    if A.dtype != B.dtype:
        raise TypeError(f"a is {A.dtype} and b is {B.dtype}: one dtype for both")
    m, k = A.shape
    n = B.shape[1]
    ta, lda = family.matrix_layout(A, "a")
    tb, ldb = family.matrix_layout(B, "b")
    name = "c" if c is not None else "out"
    target = c if c is not None else out
    if target is None:
        if beta != 0:
            raise family.InvalidArgument("beta != 0 reads C: give c")
        target, Cm = family.new_array(A, (m, n), out_dtype)
    else:
        Cm = family.as_device_array(target, name, family.dlpack_stream(s))
    family.row_major(Cm, name)
    want = out_dtype or A.dtype
    if Cm.shape != (m, n) or Cm.dtype != want or Cm.device != A.device:
        raise family.InvalidArgument(f"C must be {m}x{n} {want} on device {A.device}, not "
                                     f"{family.shape_text(Cm.shape)} {Cm.dtype} on device {Cm.device}")
    if m == 0 or n == 0:  # empty: nothing to compute, as torch.mm
        return target
    if k == 0:  # C = beta * C (the empty product is zero)
        if beta == 0:
            target[...] = 0
        else:
            target *= beta
        return target
    sizes = (m, n, k, max(lda, 1), max(ldb, 1), max(Cm.strides[0], n), float(alpha), float(beta),
             family.DTYPE_NAMES[A.dtype], (ta + tb).encode(), family.c_text(math, "math"),
             family.DTYPE_NAMES[out_dtype] if out_dtype else None)
    family.check(call(runtime._handle, Cm.address, A.address, B.address, *sizes, s))
    if plan_key is not None:
        _plans.put(plan_key, family.planned_call(_gemm, runtime._handle, (m, n), target.dtype, sizes))
    return target


_plans = family.Plans()


def _build_ops(torch):
    rt = family.default_runtime

    @torch.library.custom_op("ktune::gemm", mutates_args=())
    def gemm_op(a: torch.Tensor, b: torch.Tensor, alpha: float, math: str, out_dtype: Optional[str]) -> torch.Tensor:
        return _gemm_on(rt(), a, b, alpha=alpha, math=math, out_dtype=out_dtype)

    @gemm_op.register_fake
    def _(a, b, alpha, math, out_dtype):
        dtype = family.torch_dtype(out_dtype) if out_dtype else a.dtype
        return a.new_empty((a.shape[0], b.shape[1]), dtype=dtype)

    @torch.library.custom_op("ktune::addmm", mutates_args=())
    def addmm_op(c: torch.Tensor, a: torch.Tensor, b: torch.Tensor, alpha: float, beta: float,
                 math: str) -> torch.Tensor:
        result = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
        result.copy_(c.expand(result.shape))
        return _gemm_on(rt(), a, b, c=result, alpha=alpha, beta=beta, math=math)

    @addmm_op.register_fake
    def _(c, a, b, alpha, beta, math):
        return a.new_empty((a.shape[0], b.shape[1]))

    def operand_grads(ctx, grad):
        """d(alpha a b)/da = alpha grad b^T, d/db = alpha a^T grad: ktune's GEMM on
        transposed views (its tn and nt layouts), no copies of a or b."""
        a, b = ctx.saved_tensors
        g = grad.to(a.dtype).contiguous()
        ga = gemm_op(g, b.t(), ctx.alpha, ctx.math, None) if ctx.needs_input_grad[ctx.first] else None
        gb = gemm_op(a.t(), g, ctx.alpha, ctx.math, None) if ctx.needs_input_grad[ctx.first + 1] else None
        return ga, gb

    def gemm_setup(ctx, inputs, output):
        a, b, ctx.alpha, ctx.math, _ = inputs
        ctx.first = 0
        ctx.save_for_backward(a, b)

    def gemm_backward(ctx, grad):
        return (*operand_grads(ctx, grad), None, None, None)

    gemm_op.register_autograd(gemm_backward, setup_context=gemm_setup)

    def addmm_setup(ctx, inputs, output):
        c, a, b, ctx.alpha, ctx.beta, ctx.math = inputs
        ctx.first, ctx.c_shape = 1, c.shape
        ctx.save_for_backward(a, b)

    def addmm_backward(ctx, grad):
        gc = (ctx.beta * grad).sum_to_size(ctx.c_shape) if ctx.needs_input_grad[0] else None
        return (gc, *operand_grads(ctx, grad), None, None, None)

    addmm_op.register_autograd(addmm_backward, setup_context=addmm_setup)

    @torch.library.custom_op("ktune::gemm_out", mutates_args=("c",))
    def gemm_out(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, alpha: float, beta: float, math: str,
                 out_dtype: Optional[str]) -> None:
        _gemm_on(rt(), a, b, c=c, alpha=alpha, beta=beta, math=math, out_dtype=out_dtype)

    @gemm_out.register_fake
    def _(a, b, c, alpha, beta, math, out_dtype):
        return None

    return gemm_op, gemm_out, addmm_op


_ops = family.TorchOps(_build_ops)


def gemm(a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None):
    """alpha * a @ b + beta * c on the default runtime (see Runtime.gemm). Differentiable
    in a and b when it allocates C (no out=, no c=); the gradients are ktune GEMMs on
    transposed views. For a gradient in C as well, ktune.addmm(c, a, b)."""
    fast = c is None and out is None and stream is None and family.plain(a, b)
    if fast:
        key = (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, alpha, beta, math, out_dtype)
        plan = _plans.get(key)
        if plan is not None:
            return plan(a, b)
    if c is None and out is None and beta != 0:
        raise family.InvalidArgument("beta != 0 reads C: give c (in place), or call ktune.addmm(c, a, b, beta=...)")
    if c is not None or out is not None:
        family.no_grad_in_place("gemm", a, b, c)
    ops = _ops.routed(a, b) if stream is None else None
    if ops is None:
        return _gemm_on(family.default_runtime(), a, b, out, c=c, alpha=alpha, beta=beta, math=math,
                        out_dtype=out_dtype, stream=stream, plan_key=key if fast else None)
    if c is None and out is None:
        return ops[0](a, b, float(alpha), str(math), out_dtype)
    target = c if c is not None else out
    ops[1](a, b, target, float(alpha), float(beta), str(math), out_dtype)
    return target


def addmm(c, a, b, *, beta=1.0, alpha=1.0, math="auto", stream=None):
    """beta * c + alpha * a @ b as a new (m x n) array, like torch.addmm: c is m x n or
    broadcasts to it (a bias row, say) and is not written. Differentiable in c, a and b.
    (PyTorch tensors: one copy of c, then ktune's GEMM in place.)"""
    if type(a).__module__.startswith("torch"):
        ops = _ops.ops()
        if stream is None:
            return ops[2](c, a, b, float(alpha), float(beta), str(math))
        with sys.modules["torch"].cuda.stream(sys.modules["torch"].cuda.ExternalStream(family.stream_handle(stream))):
            return ops[2](c, a, b, float(alpha), float(beta), str(math))
    raise family.InvalidArgument("addmm takes PyTorch tensors (for other arrays: gemm(a, b, c=copy_of_c, beta=...))")
