"""`torch.optim.ASGD` (update math: `_functional.asgd`, after PyTorch's `_single_tensor_asgd`)."""
from .. import _api as torchshim

from ._functional import asgd as _asgd_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["ASGD"]


class ASGD(ElementwiseOptimizer):
    """`torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
    maximize=False, differentiable=False, capturable=False)`: averaged SGD. State: 'step', 'eta', 'mu'
    (0-dim tensors), 'ax' (the running average)."""

    _update = staticmethod(_asgd_update)
    _capturable_message = "params, mus, etas, and state_steps"
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))
    _scalar_state_keys = ("step", "eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        validate(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p)
        state["eta"] = torchshim.as_tensor(_to_scalar(group["lr"]), device=p.device,
                                           dtype=_get_scalar_dtype()).clone().detach()
        state["mu"] = scalar_state(1.0, p)
        zeros_state(state, p, "ax")

    def _state_keys(self, group):
        return ("step", "eta", "mu", "ax")

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), lambd=hyper(group["lambd"]),
                    alpha=hyper(group["alpha"]),
                    t0=hyper(group["t0"]), weight_decay=hyper(group["weight_decay"]),
                    has_wd=bool(group["weight_decay"] != 0), maximize=bool(group["maximize"]))
