"""`torch.optim.NAdam` (update math: `_functional.nadam`, after PyTorch's `_single_tensor_nadam`)."""
from ._functional import nadam as _nadam_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

__all__ = ["NAdam"]


class NAdam(ElementwiseOptimizer):
    """`torch.optim.NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False)`:
    Adam with Nesterov momentum. State: 'step', 'mu_product' (0-dim tensors), 'exp_avg', 'exp_avg_sq'."""

    _update = staticmethod(_nadam_update)
    _capturable_message = "params, mu_products and state_steps"
    _group_defaults = (("maximize", False), ("foreach", None), ("capturable", False),
                       ("differentiable", False), ("decoupled_weight_decay", False))
    _scalar_state_keys = ("step", "mu_product")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        validate(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p if group["capturable"] else None)
        state["mu_product"] = scalar_state(1.0, p if group["capturable"] else None)
        zeros_state(state, p, "exp_avg", "exp_avg_sq")

    def _state_keys(self, group):
        return ("step", "mu_product", "exp_avg", "exp_avg_sq")

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        return dict(lr=hyper(_to_scalar(group["lr"])), beta1=hyper(beta1), beta2=hyper(beta2),
                    eps=hyper(group["eps"]), weight_decay=hyper(group["weight_decay"]),
                    momentum_decay=hyper(group["momentum_decay"]), has_wd=bool(group["weight_decay"] != 0),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]),
                    maximize=bool(group["maximize"]))
