"""`torch.optim.Adadelta` (update math: `_functional.adadelta`, after PyTorch's `_single_tensor_adadelta`)."""
from .. import _api as torchshim

from ._functional import adadelta as _adadelta_update
from ._shell import CAPTURABLE_DEVICES, ElementwiseOptimizer, check_tensor_lr, hyper
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["Adadelta"]


class Adadelta(ElementwiseOptimizer):
    """`torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)`. State: 'step', 'square_avg', 'acc_delta'."""

    _update = staticmethod(_adadelta_update)
    _capturable_devices = [d for d in CAPTURABLE_DEVICES if d != "xla"]

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            self._step_to_tensor(group)

    def _init_state(self, group, p, state):
        state["step"] = torchshim.zeros((), dtype=_get_scalar_dtype(),
                                        device=p.device if group["capturable"] else None)
        state["square_avg"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        state["acc_delta"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)

    def _state_keys(self, group):
        return ("step", "square_avg", "acc_delta")

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), rho=hyper(group["rho"]), eps=hyper(group["eps"]),
                    weight_decay=hyper(group["weight_decay"]), has_wd=bool(group["weight_decay"] != 0),
                    maximize=bool(group["maximize"]))
