"""A user's Kernel as a torch.library custom op with a fake (meta) implementation, so
torch.compile(fullgraph=True) of a function calling it compiles without graph breaks.
(Each family's module makes its own ops: family.TorchOps.)"""
import torch

from . import _lib
from ._runtime import callable_by_id


# The arrays the description declares out or inout are the mutated ones; in arrays are
# only read (so torch.compile never copies them).
@torch.library.custom_op("ktune::kernel", mutates_args=("outputs",))
def kernel(kernel_id: int, inputs: list[torch.Tensor], outputs: list[torch.Tensor], ints: list[int],
           floats: list[float], problem: list[int]) -> None:
    k = callable_by_id(kernel_id)
    inputs_, outputs_, ints_, floats_ = iter(inputs), iter(outputs), iter(ints), iter(floats)
    args = [(next(outputs_) if writes else next(inputs_)) if kind == _lib.POINTER
            else next(floats_) if kind in (_lib.F32, _lib.F64) else next(ints_)
            for kind, writes in zip(k.kinds, k.writes)]
    k.launch(args, dict(zip(k.variables, problem)), None)


@kernel.register_fake
def _(kernel_id, inputs, outputs, ints, floats, problem):
    return None
