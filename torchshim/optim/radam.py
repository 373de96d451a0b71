"""`torch.optim.RAdam` (update math: `_functional.radam`, after PyTorch's `_single_tensor_radam`)."""
from .. import _api as torchshim

from ._functional import radam as _radam_update
from ._shell import ElementwiseOptimizer, check_tensor_lr, hyper, scalar_state
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["RAdam"]


class RAdam(ElementwiseOptimizer):
    """`torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False)`:
    rectified Adam. State: 'step', 'exp_avg', 'exp_avg_sq'."""

    _update = staticmethod(_radam_update)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("capturable", False)
            self._step_to_tensor(group)

    def _init_state(self, group, p, state):
        if group["capturable"]:
            state["step"] = torchshim.zeros((), dtype=_get_scalar_dtype(), device=p.device)
        else:
            state["step"] = scalar_state(0.0)
        state["exp_avg"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        state["exp_avg_sq"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)

    def _state_keys(self, group):
        return ("step", "exp_avg", "exp_avg_sq")

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        return dict(lr=hyper(_to_scalar(group["lr"])), beta1=hyper(beta1), beta2=hyper(beta2),
                    eps=hyper(group["eps"]), weight_decay=hyper(group["weight_decay"]),
                    has_wd=bool(group["weight_decay"] != 0),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]),
                    maximize=bool(group["maximize"]))
