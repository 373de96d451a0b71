"""`torch.optim.SparseAdam`: constructor and errors only — torchshim has no sparse gradients, so every step
with a gradient raises PyTorch's dense-gradient error."""
from ..autograd import grad_mode as _gm
from ._checks import validate
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """`torch.optim.SparseAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False)`.

    Difference from PyTorch: torchshim tensors are never sparse, so `step()` raises "SparseAdam does not
    support dense gradients, please consider Adam instead" whenever a parameter has a gradient (what PyTorch
    does for dense gradients).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        validate(lr=lr, eps=eps, betas=betas, strict=("lr", "eps"))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = []
        for index, param_group in enumerate(self.param_groups):
            for d_index, d_param in enumerate(param_group["params"]):
                if d_param.is_complex():
                    complex_params.append([index, d_index])
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support "
                             "complex parameters")

    @_gm.no_grad()
    def step(self, closure=None):
        """`step(closure=None)`: raises for any (dense) gradient, as PyTorch does."""
        loss = None
        if closure is not None:
            with _gm.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
