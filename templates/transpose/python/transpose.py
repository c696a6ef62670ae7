"""ktune.transpose from Python: the transpose family's runtime call on framework arrays."""
from ktune import family
from ktune.family import C

__all__ = ["transpose"]

_transpose = family.c_function("ktune_c_transpose", C.c_int, [C.c_void_p, C.c_uint64, C.c_uint64] + [C.c_int64] * 4 +
                               [C.c_char_p, C.c_uint64])


@family.runtime_method("transpose")
def _runtime_transpose(runtime, x, out=None, *, stream=None):
    """out (cols x rows) = x (rows x cols) transposed, on the caller's stream. x and out
    are row-major with unit column stride and any row pitch (a slice of a larger
    matrix is a pitch, not a copy); a transposed view is refused (its transpose is a
    plain copy: `x.t().contiguous()`). Returns out. No gradient: ktune.transpose has one."""
    family.no_grad_here("transpose", x)
    return _transpose_on(runtime, x, out, stream)


def _transpose_on(runtime, x, out=None, stream=None, plan_key=None):
    """The call; with plan_key (plain tensors on the default runtime), its plan is kept."""
    call = family.require(_transpose, "transpose")
    s = family.stream_handle(stream, like=x)
    a = family.as_device_array(x, "x", family.dlpack_stream(s))
    family.row_major(a, "x")
    rows, cols = a.shape
    if out is None:
        out, o = family.new_array(a, (cols, rows))
    else:
        o = family.as_device_array(out, "out", family.dlpack_stream(s))
    family.row_major(o, "out")
    if o.shape != (cols, rows) or o.dtype != a.dtype or o.device != a.device:
        raise family.InvalidArgument(f"out must be {cols}x{rows} {a.dtype} on device {a.device}, not "
                                     f"{family.shape_text(o.shape)} {o.dtype} on device {o.device}")
    if rows and cols:  # an empty matrix: an empty result, as PyTorch's
        sizes = (rows, cols, max(o.strides[0], rows), max(a.strides[0], cols), family.DTYPE_NAMES[a.dtype])
        family.check(call(runtime._handle, o.address, a.address, *sizes, s))
        if plan_key is not None:
            _plans.put(plan_key, family.planned_call(_transpose, runtime._handle, (cols, rows), out.dtype, sizes))
    return out


_plans = family.Plans()


def _build_ops(torch):
    @torch.library.custom_op("ktune::transpose", mutates_args=())
    def transpose_op(x: torch.Tensor) -> torch.Tensor:
        return _transpose_on(family.default_runtime(), x)

    @transpose_op.register_fake
    def _(x):
        return x.new_empty((x.shape[1], x.shape[0]))

    def backward(ctx, grad):  # the gradient of a transpose is the transposed gradient
        return transpose_op(grad.contiguous())

    transpose_op.register_autograd(backward)

    @torch.library.custom_op("ktune::transpose_out", mutates_args=("out",))
    def transpose_out(x: torch.Tensor, out: torch.Tensor) -> None:
        _transpose_on(family.default_runtime(), x, out)

    @transpose_out.register_fake
    def _(x, out):
        return None

    return transpose_op, transpose_out


_ops = family.TorchOps(_build_ops)


def transpose(x, out=None, *, stream=None):
    """out (cols x rows) = x (rows x cols) transposed on the default runtime (see
    Runtime.transpose). Differentiable (without out=): the gradient is the transposed
    gradient, through ktune's transpose."""
    fast = stream is None and (family.plain(x) if out is None else family.plain(x, out))
    if fast:
        key = (x.shape, x.stride(), x.dtype) + ((None,) if out is None else (out.shape, out.stride(), out.dtype))
        plan = _plans.get(key)
        if plan is not None:
            return plan(x, out=out)
    if out is not None:
        family.no_grad_in_place("transpose", x)
    ops = _ops.routed(x) if stream is None else None
    if ops is not None:
        return ops[0](x) if out is None else (ops[1](x, out), out)[1]
    return _transpose_on(family.default_runtime(), x, out, stream, plan_key=key if fast else None)
