"""`torch.optim.SGD` (update math: `_functional.sgd`, hand-written after PyTorch's `_single_tensor_sgd`)."""
from ._functional import sgd as _sgd_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, check_fused_device_dtype, hyper

__all__ = ["SGD"]


class SGD(ElementwiseOptimizer):
    """`torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)`: stochastic gradient descent with
    optional (Nesterov) momentum. State: 'momentum_buffer' when momentum != 0.

    >>> opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    """

    _update = staticmethod(_sgd_update)
    _group_defaults = (("nesterov", False), ("maximize", False), ("foreach", None), ("differentiable", False),
                       ("fused", False))
    _scalar_state_keys = ()

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        validate(lr=lr, momentum=momentum, weight_decay=weight_decay, nan_ok=True)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        self._init_fused(fused, foreach, differentiable, device_check=True)

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
