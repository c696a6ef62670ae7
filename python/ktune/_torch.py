"""PyTorch integration: ktune's calls as torch.library custom ops with fake (meta)
implementations, so torch.compile(fullgraph=True) of a function calling ktune.transpose
or a user Kernel compiles without graph breaks. Eager calls skip the dispatcher (it would
add its cost to every call); under torch.compile the calls go through these ops."""
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


# Every array argument is declared mutated: the description's roles are not in the
# schema, and a kernel may write any of them.
@torch.library.custom_op("ktune::kernel", mutates_args=("arrays",))
def kernel(kernel_id: int, arrays: list[torch.Tensor], ints: list[int], floats: list[float],
           problem: list[int]) -> None:
    from ._runtime import kernels
    k = kernels.get(kernel_id)
    if k is None:
        raise RuntimeError(f"ktune: the Kernel this compiled function launches (id {kernel_id}) was released")
    arrays_, ints_, floats_ = iter(arrays), iter(ints), iter(floats)
    args = [next(arrays_) if kind == _lib.POINTER else next(floats_) if kind in (_lib.F32, _lib.F64) else next(ints_)
            for kind in k.kinds]
    k.launch(args, dict(zip(k.variables, problem)), None)


@kernel.register_fake
def _(kernel_id, arrays, ints, floats, problem):
    return None
