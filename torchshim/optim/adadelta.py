"""`torch.optim.Adadelta` (update math: `_functional.adadelta`, after PyTorch's `_single_tensor_adadelta`)."""
from ._functional import adadelta as _adadelta_update
from ._checks import validate
from ._shell import CAPTURABLE_DEVICES, ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

__all__ = ["Adadelta"]


class Adadelta(ElementwiseOptimizer):
    """`torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)`. State: 'step', 'square_avg', 'acc_delta'."""

    _update = staticmethod(_adadelta_update)
    _capturable_devices = [d for d in CAPTURABLE_DEVICES if d != "xla"]
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        validate(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p if group["capturable"] else None)
        zeros_state(state, p, "square_avg", "acc_delta")

    def _state_keys(self, group):
        return ("step", "square_avg", "acc_delta")

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), rho=hyper(group["rho"]), eps=hyper(group["eps"]),
                    weight_decay=hyper(group["weight_decay"]), has_wd=bool(group["weight_decay"] != 0),
                    maximize=bool(group["maximize"]))
