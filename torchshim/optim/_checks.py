"""PyTorch 2.13's checks on the optimizers' constructor arguments: one helper, `validate`, for all of them.

Each PyTorch constructor checks its arguments one after the other and raises on the first bad one, so the
order matters when several are bad (`Adam([p], lr=-1, betas=(2, 0))` reports the learning rate). `validate`
checks its keyword arguments in the order they are written; a constructor lists them in PyTorch's order.
Tensor hyperparameters (lr, betas) go through the same comparisons as in PyTorch (`bool()` of a one-element
comparison; a many-element one raises PyTorch's "Boolean value of Tensor ... is ambiguous").
"""
from .._tensor import Tensor

__all__ = ["validate", "check_fused_flags"]

# what PyTorch's message calls each lower-bounded argument: "Invalid {what}: {value}"
_WHAT = {"lr": "learning rate", "eps": "epsilon value", "momentum": "momentum value",
         "weight_decay": "weight_decay value", "lr_decay": "lr_decay value",
         "initial_accumulator_value": "initial_accumulator_value value", "alpha": "alpha value",
         "momentum_decay": "momentum_decay value", "rho": "rho value"}


def _ok(name, x, nan_ok, strict):
    if name == "rho":
        return 0.0 <= x <= 1.0
    if name in strict:
        return 0.0 < x
    if nan_ok:
        return not x < 0.0
    return 0.0 <= x


def validate(*, nan_ok=False, strict=(), **args):
    """PyTorch's constructor checks on `args`, in the order given (each optimizer passes PyTorch's order);
    the first bad argument raises ValueError with PyTorch's message.

    - `lr`: a Tensor lr must have one element ("Tensor lr must be 1-element"), then `0 <= lr`;
    - `eps`, `momentum`, `weight_decay`, `lr_decay`, `initial_accumulator_value`, `alpha`, `momentum_decay`:
      `0 <= x` ("Invalid epsilon value: -1", ...; written `not 0.0 <= x`, so NaN is rejected);
    - `betas`: `0 <= betas[i] < 1` for i = 0 then 1 ("Invalid beta parameter at index 1: 1.0");
    - `rho`: `0 <= rho <= 1`; `etas`: `0 < etas[0] < 1 < etas[1]` ("Invalid eta values: 0.5, 1.0").

    `strict`: names checked as `0 < x` (SparseAdam's lr and eps). `nan_ok=True`: the lower bounds are
    written `x < 0.0` (SGD's checks, which let NaN through)."""
    for name, x in args.items():
        if name == "lr" and isinstance(x, Tensor) and x.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if name == "betas":
            for i in (0, 1):
                if not 0.0 <= x[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {x[i]}")
        elif name == "etas":
            if not 0.0 < x[0] < 1.0 < x[1]:
                raise ValueError(f"Invalid eta values: {x[0]}, {x[1]}")
        elif not _ok(name, x, nan_ok, strict):
            raise ValueError(f"Invalid {_WHAT[name]}: {x}")


def check_fused_flags(fused, foreach, differentiable):
    """PyTorch's checks after `Optimizer.__init__` in the optimizers with a fused implementation (SGD, Adam,
    AdamW, Adagrad): `fused=True` excludes `differentiable=True`, then `foreach=True`."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
