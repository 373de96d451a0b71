"""`torch.optim.RMSprop` (update math: `_functional.rmsprop`, after PyTorch's `_single_tensor_rmsprop`)."""
from .. import _api as torchshim

from ._functional import rmsprop as _rmsprop_update
from ._shell import ElementwiseOptimizer, check_tensor_lr, hyper
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["RMSprop"]


class RMSprop(ElementwiseOptimizer):
    """`torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
    capturable=False, foreach=None, maximize=False, differentiable=False)`. State: 'step', 'square_avg'
    (+ 'momentum_buffer' when momentum > 0, 'grad_avg' when centered)."""

    _update = staticmethod(_rmsprop_update)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            self._step_to_tensor(group)

    def _init_state(self, group, p, state):
        state["step"] = torchshim.zeros((), dtype=_get_scalar_dtype(),
                                        device=p.device if group["capturable"] else None)
        state["square_avg"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        if group["momentum"] > 0:
            state["momentum_buffer"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        if group["centered"]:
            state["grad_avg"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)

    def _state_keys(self, group):
        return (("step", "square_avg") + (("momentum_buffer",) if group["momentum"] > 0 else ())
                + (("grad_avg",) if group["centered"] else ()))

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), alpha=hyper(group["alpha"]), eps=hyper(group["eps"]),
                    weight_decay=hyper(group["weight_decay"]), momentum=hyper(group["momentum"]),
                    has_wd=bool(group["weight_decay"] != 0), has_momentum=bool(group["momentum"] > 0),
                    centered=bool(group["centered"]), maximize=bool(group["maximize"]))
