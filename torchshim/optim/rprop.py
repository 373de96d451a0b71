"""`torch.optim.Rprop` (update math: `_functional.rprop`, after PyTorch's `_single_tensor_rprop`)."""
from .. import _api as torchshim

from ._functional import rprop as _rprop_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

__all__ = ["Rprop"]


class Rprop(ElementwiseOptimizer):
    """`torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
    foreach=None, maximize=False, differentiable=False)`: resilient backpropagation. State: 'step', 'prev',
    'step_size'."""

    _update = staticmethod(_rprop_update)
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        validate(lr=lr, etas=etas)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = scalar_state(0.0, p if group["capturable"] else None)
        zeros_state(state, p, "prev")
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
