"""torch.library ops made once, when PyTorch is first seen."""
import sys


class TorchOps:
    """A family's torch.library custom ops (with fake implementations), made by
    `build(torch)` once: at `import ktune` after `import torch`, or at the first call with
    a PyTorch tensor. Calls go through them only inside torch.compile; an eager call skips
    the dispatcher, which would add its cost to every call."""

    all = []  # every family's, built together when torch is first seen

    def __init__(self, build):
        self._build, self._ops = build, None
        TorchOps.all.append(self)

    def ops(self):
        if self._ops is None:
            TorchOps.build_all()  # all at once: none is then first made while torch.compile traces
        return self._ops

    def under_compile(self, x):
        """The ops when x is a PyTorch tensor inside torch.compile, else None."""
        if not type(x).__module__.startswith("torch"):
            return None
        ops = self.ops()
        return ops if sys.modules["torch"].compiler.is_compiling() else None

    def routed(self, x, *more):
        """The ops when a call on x (and `more`, the other differentiable tensors) must
        go through the dispatcher: inside torch.compile, or when any of them requires
        grad under grad mode (the ops carry the backward); else None (an eager call
        without autograd skips the dispatcher)."""
        if not type(x).__module__.startswith("torch"):
            return None
        torch = sys.modules["torch"]
        if torch.compiler.is_compiling() or needs_grad(x, *more):
            return self.ops()
        return None

    @staticmethod
    def build_all():
        torch = sys.modules["torch"]
        for ops in TorchOps.all:
            if ops._ops is None:
                ops._ops = ops._build(torch)


def grad_mode():
    """Whether PyTorch is loaded and records gradients now."""
    torch = sys.modules.get("torch")
    return torch is not None and torch.is_grad_enabled()


def needs_grad(*arrays):
    """Whether PyTorch records gradients now and any of the arrays requires grad."""
    return grad_mode() and any(getattr(a, "requires_grad", False) for a in arrays)
