"""`torch.optim.RMSprop` (update math: `_functional.rmsprop`, after PyTorch's `_single_tensor_rmsprop`)."""
from ._functional import rmsprop as _rmsprop_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

__all__ = ["RMSprop"]


class RMSprop(ElementwiseOptimizer):
    """`torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
    capturable=False, foreach=None, maximize=False, differentiable=False)`. State: 'step', 'square_avg'
    (+ 'momentum_buffer' when momentum > 0, 'grad_avg' when centered)."""

    _update = staticmethod(_rmsprop_update)
    _group_defaults = (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                       ("differentiable", False), ("capturable", False))

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        validate(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p if group["capturable"] else None)
        zeros_state(state, p, "square_avg")
        if group["momentum"] > 0:
            zeros_state(state, p, "momentum_buffer")
        if group["centered"]:
            zeros_state(state, p, "grad_avg")

    def _state_keys(self, group):
        return (("step", "square_avg") + (("momentum_buffer",) if group["momentum"] > 0 else ())
                + (("grad_avg",) if group["centered"] else ()))

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), alpha=hyper(group["alpha"]), eps=hyper(group["eps"]),
                    weight_decay=hyper(group["weight_decay"]), momentum=hyper(group["momentum"]),
                    has_wd=bool(group["weight_decay"] != 0), has_momentum=bool(group["momentum"] > 0),
                    centered=bool(group["centered"]), maximize=bool(group["maximize"]))
