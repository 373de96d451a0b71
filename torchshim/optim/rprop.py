"""`torch.optim.Rprop` (update math: `_functional.rprop`, after PyTorch's `_single_tensor_rprop`)."""
from .. import _api as torchshim

from ._functional import rprop as _rprop_update
from ._shell import ElementwiseOptimizer, check_tensor_lr, hyper
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["Rprop"]


class Rprop(ElementwiseOptimizer):
    """`torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
    foreach=None, maximize=False, differentiable=False)`: resilient backpropagation. State: 'step', 'prev',
    'step_size'."""

    _update = staticmethod(_rprop_update)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
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
        state["prev"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        if p.dtype.is_complex:
            state["step_size"] = torchshim.full_like(p.grad, complex(group["lr"], group["lr"]))
        else:
            state["step_size"] = torchshim.full_like(p.grad, _to_scalar(group["lr"]))

    def _state_keys(self, group):
        return ("step", "prev", "step_size")

    def _hyper(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        return dict(etaminus=hyper(etaminus), etaplus=hyper(etaplus), step_size_min=hyper(step_size_min),
                    step_size_max=hyper(step_size_max), maximize=bool(group["maximize"]))
