"""`torch.optim.RAdam` (update math: `_functional.radam`, after PyTorch's `_single_tensor_radam`)."""
from ._functional import radam as _radam_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

__all__ = ["RAdam"]


class RAdam(ElementwiseOptimizer):
    """`torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False)`:
    rectified Adam. State: 'step', 'exp_avg', 'exp_avg_sq'."""

    _update = staticmethod(_radam_update)
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("decoupled_weight_decay", False), ("capturable", False))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        validate(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p if group["capturable"] else None)
        zeros_state(state, p, "exp_avg", "exp_avg_sq")

    def _state_keys(self, group):
        return ("step", "exp_avg", "exp_avg_sq")

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        return dict(lr=hyper(_to_scalar(group["lr"])), beta1=hyper(beta1), beta2=hyper(beta2),
                    eps=hyper(group["eps"]), weight_decay=hyper(group["weight_decay"]),
                    has_wd=bool(group["weight_decay"] != 0),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]),
                    maximize=bool(group["maximize"]))
