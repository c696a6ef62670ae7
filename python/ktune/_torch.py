"""PyTorch integration: ktune's calls as torch.library custom ops with fake (meta)
implementations, so torch.compile(fullgraph=True) of a function calling ktune.transpose
or a user Kernel compiles without graph breaks. Eager calls skip the dispatcher (it would
add its cost to every call); under torch.compile the calls go through these ops."""
from typing import Optional

import torch

from . import _lib


def compiling():
    return torch.compiler.is_compiling()


@torch.library.custom_op("ktune::transpose", mutates_args=())
def transpose(x: torch.Tensor) -> torch.Tensor:
    from ._runtime import default_runtime
    return default_runtime().transpose(x)


@transpose.register_fake
def _(x):
    return x.new_empty((x.shape[1], x.shape[0]))


@torch.library.custom_op("ktune::transpose_out", mutates_args=("out",))
def transpose_out(x: torch.Tensor, out: torch.Tensor) -> None:
    from ._runtime import default_runtime
    default_runtime().transpose(x, out)


@transpose_out.register_fake
def _(x, out):
    return None


_DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}


@torch.library.custom_op("ktune::gemm", mutates_args=())
def gemm(a: torch.Tensor, b: torch.Tensor, alpha: float, math: str, out_dtype: Optional[str]) -> torch.Tensor:
    from ._runtime import default_runtime
    return default_runtime().gemm(a, b, alpha=alpha, math=math, out_dtype=out_dtype)


@gemm.register_fake
def _(a, b, alpha, math, out_dtype):
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_DTYPES[out_dtype] if out_dtype else a.dtype)


@torch.library.custom_op("ktune::gemm_out", mutates_args=("c",))
def gemm_out(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, alpha: float, beta: float, math: str,
             out_dtype: Optional[str]) -> None:
    from ._runtime import default_runtime
    default_runtime().gemm(a, b, c=c, alpha=alpha, beta=beta, math=math, out_dtype=out_dtype)


@gemm_out.register_fake
def _(a, b, c, alpha, beta, math, out_dtype):
    return None


@torch.library.custom_op("ktune::reduce", mutates_args=())
def reduce(x: torch.Tensor, op: str, dim: Optional[int]) -> torch.Tensor:
    from ._runtime import default_runtime
    return default_runtime().reduce(x, op, dim)


@reduce.register_fake
def _(x, op, dim):
    kind = torch.float64 if x.dtype == torch.float64 else torch.float32
    if dim is None:
        return x.new_empty((), dtype=kind)
    return x.new_empty((x.shape[0],) if dim % 2 == 1 else (x.shape[1],), dtype=kind)


@torch.library.custom_op("ktune::elementwise", mutates_args=())
def elementwise(op_id: int, inputs: list[torch.Tensor], scalars: list[float]) -> list[torch.Tensor]:
    from ._runtime import kernels
    op = kernels[op_id]
    result = op.launch(inputs, scalars)
    return list(result) if isinstance(result, tuple) else [result]


@elementwise.register_fake
def _(op_id, inputs, scalars):
    from ._runtime import kernels
    op = kernels[op_id]
    return [inputs[0].new_empty(inputs[0].shape, dtype=_DTYPES[op.out_dtype]) for _ in op.outputs]


# The arrays the description declares out or inout are the mutated ones; in arrays are
# only read (so torch.compile never copies them).
@torch.library.custom_op("ktune::kernel", mutates_args=("outputs",))
def kernel(kernel_id: int, inputs: list[torch.Tensor], outputs: list[torch.Tensor], ints: list[int],
           floats: list[float], problem: list[int]) -> None:
    from ._runtime import kernels
    k = kernels.get(kernel_id)
    if k is None:
        raise RuntimeError(f"ktune: the Kernel this compiled function launches (id {kernel_id}) was released")
    inputs_, outputs_, ints_, floats_ = iter(inputs), iter(outputs), iter(ints), iter(floats)
    args = [(next(outputs_) if writes else next(inputs_)) if kind == _lib.POINTER
            else next(floats_) if kind in (_lib.F32, _lib.F64) else next(ints_)
            for kind, writes in zip(k.kinds, k.writes)]
    k.launch(args, dict(zip(k.variables, problem)), None)


@kernel.register_fake
def _(kernel_id, inputs, outputs, ints, floats, problem):
    return None
