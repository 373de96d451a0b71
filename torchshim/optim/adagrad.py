"""`torch.optim.Adagrad` (update math: `_functional.adagrad`, after PyTorch's `_single_tensor_adagrad`)."""
from .. import _api as torchshim

from ._functional import adagrad as _adagrad_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, check_fused_device_dtype, hyper, scalar_state
from .optimizer import _to_scalar

__all__ = ["Adagrad"]


class Adagrad(ElementwiseOptimizer):
    """`torch.optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
    eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None)`. State ('step', 'sum') is
    created for every parameter at construction, as in PyTorch."""

    _update = staticmethod(_adagrad_update)
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None))

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        validate(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                 initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        self._init_fused(fused, foreach, differentiable, device_check=True)
        for group in self.param_groups:
            for p in group["params"]:
                self._fill_state(group, p, self.state[p], initial_accumulator_value)

    def _fill_state(self, group, p, state, initial_accumulator_value):
        state["step"] = scalar_state(0.0, p if group["fused"] else None, is_fused=group["fused"])
        init_value = (complex(initial_accumulator_value, initial_accumulator_value) if p.is_complex()
                      else initial_accumulator_value)
        state["sum"] = torchshim.full_like(p, init_value, memory_format=torchshim.preserve_format)

    def share_memory(self):
        """Calls `share_memory_()` on the state sum tensors (a no-op in torchshim)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _prepare(self, group, params):
        for p in params:
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                check_fused_device_dtype(p)
                self._need_device_dtype_check_for_fused = False
            state = self.state[p]
            if len(state) == 0:
                if group["fused"]:
                    check_fused_device_dtype(p)
                self._fill_state(group, p, state, self.defaults["initial_accumulator_value"])

    def _state_keys(self, group):
        return ("step", "sum")

    def _hyper(self, group):
        return dict(lr=hyper(_to_scalar(group["lr"])), lr_decay=hyper(group["lr_decay"]),
                    eps=hyper(group["eps"]),
                    weight_decay=hyper(group["weight_decay"]), has_wd=bool(group["weight_decay"] != 0),
                    maximize=bool(group["maximize"]))
