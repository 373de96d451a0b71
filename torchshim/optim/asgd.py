"""`torch.optim.ASGD` (update math: `_functional.asgd`, after PyTorch's `_single_tensor_asgd`)."""
from .. import _api as torchshim

from ._functional import asgd as _asgd_update
from ._shell import ElementwiseOptimizer, check_tensor_lr, hyper
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["ASGD"]


class ASGD(ElementwiseOptimizer):
    """`torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
    maximize=False, differentiable=False, capturable=False)`: averaged SGD. State: 'step', 'eta', 'mu'
    (0-dim tensors), 'ax' (the running average)."""

    _update = staticmethod(_asgd_update)
    _capturable_message = "params, mus, etas, and state_steps"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            self._step_to_tensor(group, keys=("step", "eta", "mu"))

    def _init_state(self, group, p, state):
        state["step"] = torchshim.zeros((), device=p.device, dtype=_get_scalar_dtype())
        state["eta"] = torchshim.as_tensor(_to_scalar(group["lr"]), device=p.device,
                                           dtype=_get_scalar_dtype()).clone().detach()
        state["mu"] = torchshim.ones((), device=p.device, dtype=_get_scalar_dtype())
        state["ax"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)

    def _state_keys(self, group):
        return ("step", "eta", "mu", "ax")

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), lambd=hyper(group["lambd"]),
                    alpha=hyper(group["alpha"]),
                    t0=hyper(group["t0"]), weight_decay=hyper(group["weight_decay"]),
                    has_wd=bool(group["weight_decay"] != 0), maximize=bool(group["maximize"]))
