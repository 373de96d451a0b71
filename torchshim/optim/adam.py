"""`torch.optim.Adam` (update math: `_functional.adam`, written after PyTorch's `_single_tensor_adam`)."""
from .. import _api as torchshim

from .._tensor import Tensor
from ._functional import adam as _adam_update
from ._shell import ElementwiseOptimizer, check_tensor_lr, hyper, scalar_state
from .optimizer import _get_scalar_dtype, _to_scalar

__all__ = ["Adam"]


class Adam(ElementwiseOptimizer):
    """`torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
    foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
    decoupled_weight_decay=False)`. State: 'step' (a float32 0-dim tensor), 'exp_avg', 'exp_avg_sq'
    (+ 'max_exp_avg_sq' with amsgrad).

    Differences from PyTorch: see `ElementwiseOptimizer` (foreach/fused run the single-tensor math;
    capturable=True runs on cuda devices with the same math as capturable=False).
    """

    _update = staticmethod(_adam_update)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(
                        f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            self._step_to_tensor(group, fused=fused if (group["capturable"] or group["fused"]) else None)

    def _init_state(self, group, p, state):
        if group["capturable"] or group["fused"]:
            state["step"] = torchshim.zeros((), dtype=_get_scalar_dtype(is_fused=group["fused"]),
                                            device=p.device)
        else:
            state["step"] = scalar_state(0.0)
        state["exp_avg"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        state["exp_avg_sq"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)

    def _state_keys(self, group):
        keys = ("step", "exp_avg", "exp_avg_sq")
        return keys + ("max_exp_avg_sq",) if group["amsgrad"] else keys

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        return dict(lr=hyper(_to_scalar(group["lr"])), beta1=hyper(beta1), beta2=hyper(beta2),
                    eps=hyper(group["eps"]), weight_decay=hyper(group["weight_decay"]),
                    has_wd=bool(group["weight_decay"] != 0),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]),
                    amsgrad=bool(group["amsgrad"]), maximize=bool(group["maximize"]))
