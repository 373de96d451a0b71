"""`torch.optim.Adafactor` (Shazeer & Stern, PyTorch's variant), written with torchshim tensor ops: the
update needs norms read back as Python numbers (relative step size, update clipping), as PyTorch's does."""
import math

from .. import _api as torch
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _get_scalar_dtype, _to_scalar

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """`torch.optim.Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0,
    *, foreach=None, maximize=False)`. State: 'step' and, for a parameter with 2+ dims, the factored second
    moments 'row_var' (last dim 1) and 'col_var' (dim -2 is 1); for a vector, 'variance'."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not torch.is_tensor(p_state["step"]):
                    p_state["step"] = torch.tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _init_state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
            if p.grad.dim() > 1:
                row_shape = list(p.grad.shape)
                row_shape[-1] = 1
                state["row_var"] = p.grad.new_zeros(row_shape)
                col_shape = list(p.grad.shape)
                col_shape[-2] = 1
                state["col_var"] = p.grad.new_zeros(col_shape)
            else:
                state["variance"] = torch.zeros_like(p.grad, memory_format=torch.preserve_format)
        return state

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns `closure()` when given."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._group_step(group)
        return loss

    def _group_step(self, group):
        eps1, eps2 = group["eps"]
        lr = _to_scalar(group["lr"])
        d, beta2_decay, weight_decay = group["d"], group["beta2_decay"], group["weight_decay"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if torch.is_complex(p):
                raise RuntimeError("Adafactor does not support complex parameters")
            if p.grad.is_sparse:
                raise RuntimeError("Adafactor does not support sparse gradients")
            state = self._init_state(p)
            grad = -p.grad if group["maximize"] else p.grad
            if eps1 is None:
                eps1 = torch.finfo(p.dtype).eps
            state["step"] += 1
            step = state["step"].item()
            one_minus_beta2_t = step ** beta2_decay
            rho_t = min(lr, 1 / (step ** 0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_var.lerp_(torch.norm(grad, dim=-1, keepdim=True).square().div(grad.size(-1)),
                              one_minus_beta2_t)
                col_var.lerp_(torch.norm(grad, dim=-2, keepdim=True).square().div(grad.size(-2)),
                              one_minus_beta2_t)
                var_estimate = (row_var @ col_var).div(row_var.mean(dim=-2, keepdim=True).clamp(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp(min=eps1 * eps1).rsqrt().mul(grad)
            denom = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * d))
            p.add_(update, alpha=-alpha / denom)
