"""`torch.optim.SGD` (update math: `_functional.sgd`, hand-written after PyTorch's `_single_tensor_sgd`)."""
from ._functional import sgd as _sgd_update
from ._shell import ElementwiseOptimizer, check_fused_device_dtype, check_tensor_lr, hyper

__all__ = ["SGD"]


class SGD(ElementwiseOptimizer):
    """`torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)`: stochastic gradient descent with
    optional (Nesterov) momentum. State: 'momentum_buffer' when momentum != 0.

    >>> opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    """

    _update = staticmethod(_sgd_update)

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_tensor_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True
            self._need_device_dtype_check_for_fused = True
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _prepare(self, group, params):
        # PyTorch's SGD creates no state up front: the momentum buffer is the first gradient, stored after the
        # step (and only when momentum != 0).
        for p in params:
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                check_fused_device_dtype(p)
                self._need_device_dtype_check_for_fused = False
            if group["momentum"] != 0:
                self.state[p]

    def _state_keys(self, group):
        return ("momentum_buffer",) if group["momentum"] != 0 else ()

    def _hyper(self, group):
        return dict(lr=hyper(group["lr"]), momentum=hyper(group["momentum"]),
                    dampening=hyper(group["dampening"]),
                    weight_decay=hyper(group["weight_decay"]), has_wd=bool(group["weight_decay"] != 0),
                    has_momentum=bool(group["momentum"] != 0), nesterov=bool(group["nesterov"]),
                    maximize=bool(group["maximize"]))
