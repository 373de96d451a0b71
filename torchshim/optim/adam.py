"""`torch.optim.Adam` (update math: `_functional.adam`, written after PyTorch's `_single_tensor_adam`)."""
from .._tensor import Tensor
from ._functional import adam as _adam_update
from ._checks import validate
from ._shell import ElementwiseOptimizer, hyper, scalar_state, zeros_state
from .optimizer import _to_scalar

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
    _group_defaults = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                       ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        validate(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
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
        self._init_fused(fused, foreach, differentiable)

    def _init_state(self, group, p, state):
        on_device = group["capturable"] or group["fused"]
        state["step"] = scalar_state(0.0, p if on_device else None, is_fused=group["fused"])
        zeros_state(state, p, "exp_avg", "exp_avg_sq")
        if group["amsgrad"]:
            zeros_state(state, p, "max_exp_avg_sq")

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
