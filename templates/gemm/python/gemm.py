"""ktune.gemm from Python: the GEMM families' runtime call on framework arrays."""
from typing import Optional

from ktune import family
from ktune.family import C

__all__ = ["gemm"]

_gemm = family.c_function("ktune_c_gemm", C.c_int, [C.c_void_p] + [C.c_uint64] * 3 + [C.c_int64] * 6 +
                          [C.c_double, C.c_double] + [C.c_char_p] * 4 + [C.c_uint64])


@family.runtime_method("gemm")
def _runtime_gemm(runtime, a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None):
    """alpha * a @ b + beta * c, with a (m x k) and b (k x n) each row-major or a
    transposed view (the layout is read from the strides: nn, nt, tn, tt). C is
    written in place: `c` (read when beta != 0) or `out`, not both; neither allocates
    a new (m x n) array. f32, f64, f16, bf16; out_dtype="f32" keeps halves' f32
    accumulators; math "auto", "simt" or "tf32" (an opt-in for f32). Returns C."""
    call = family.require(_gemm, "gemm")
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
        target = family.empty_like(A, (m, n), out_dtype)
    Cm = family.as_device_array(target, name, family.dlpack_stream(s))
    family.row_major(Cm, name)
    want = out_dtype or A.dtype
    if Cm.shape != (m, n) or Cm.dtype != want or Cm.device != A.device:
        raise family.InvalidArgument(f"C must be {m}x{n} {want} on device {A.device}, not "
                                     f"{family.shape_text(Cm.shape)} {Cm.dtype} on device {Cm.device}")
    family.check(call(runtime._handle, Cm.address, A.address, B.address, m, n, k, lda, ldb, max(Cm.strides[0], n),
                      float(alpha), float(beta), family.DTYPE_NAMES[A.dtype], (ta + tb).encode(), str(math).encode(),
                      family.DTYPE_NAMES[out_dtype] if out_dtype else None, s))
    return target



def _build_ops(torch):
    @torch.library.custom_op("ktune::gemm", mutates_args=())
    def gemm_op(a: torch.Tensor, b: torch.Tensor, alpha: float, math: str, out_dtype: Optional[str]) -> torch.Tensor:
        return family.default_runtime().gemm(a, b, alpha=alpha, math=math, out_dtype=out_dtype)

    @gemm_op.register_fake
    def _(a, b, alpha, math, out_dtype):
        dtype = family.torch_dtype(out_dtype) if out_dtype else a.dtype
        return a.new_empty((a.shape[0], b.shape[1]), dtype=dtype)

    @torch.library.custom_op("ktune::gemm_out", mutates_args=("c",))
    def gemm_out(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, alpha: float, beta: float, math: str,
                 out_dtype: Optional[str]) -> None:
        family.default_runtime().gemm(a, b, c=c, alpha=alpha, beta=beta, math=math, out_dtype=out_dtype)

    @gemm_out.register_fake
    def _(a, b, c, alpha, beta, math, out_dtype):
        return None

    return gemm_op, gemm_out


_ops = family.TorchOps(_build_ops)


def gemm(a, b, out=None, *, c=None, alpha=1.0, beta=0.0, math="auto", out_dtype=None, stream=None):
    """alpha * a @ b + beta * c on the default runtime (Runtime.gemm)."""
    if c is None and out is None and beta != 0:
        raise family.InvalidArgument("beta != 0 reads C: give c")
    ops = _ops.under_compile(a) if stream is None else None
    if ops is None:
        return family.default_runtime().gemm(a, b, out, c=c, alpha=alpha, beta=beta, math=math, out_dtype=out_dtype,
                                             stream=stream)
    if c is None and out is None:
        return ops[0](a, b, float(alpha), str(math), out_dtype)
    target = c if c is not None else out
    ops[1](a, b, target, float(alpha), float(beta), str(math), out_dtype)
    return target
