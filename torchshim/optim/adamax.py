"""`torch.optim.Adamax` (update math: `_functional.adamax`, after PyTorch's `_single_tensor_adamax`)."""
from ._functional import adamax as _adamax_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

__all__ = ["Adamax"]


class Adamax(ElementwiseOptimizer):
    """`torch.optim.Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
    maximize=False, differentiable=False, capturable=False)`: Adam with the infinity norm. State: 'step',
    'exp_avg', 'exp_inf'."""

    _update = staticmethod(_adamax_update)
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        validate(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p if group["capturable"] else None)
        zeros_state(state, p, "exp_avg", "exp_inf")

    def _state_keys(self, group):
        return ("step", "exp_avg", "exp_inf")

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        return dict(lr=hyper(_to_scalar(group["lr"])), beta1=hyper(beta1), beta2=hyper(beta2),
                    eps=hyper(group["eps"]), weight_decay=hyper(group["weight_decay"]),
                    has_wd=bool(group["weight_decay"] != 0), maximize=bool(group["maximize"]))
