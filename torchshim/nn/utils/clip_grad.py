"""Gradient clipping, ported from PyTorch 2.13's torch/nn/utils/clip_grad.py: `clip_grad_norm_`,
`clip_grad_value_`, `get_total_norm`, `clip_grads_with_norm_` (and the deprecated `clip_grad_norm`).

Everything runs under `no_grad` and edits `.grad` in place. `foreach` is accepted and has no effect (one path
serves both; PyTorch's CPU build supports foreach too, so `foreach=True` never raises here). The clipping
multiplies by `min(max_norm / (total_norm + 1e-6), 1)` without reading the norm on the host, so it also runs
under `jax.jit`; only `error_if_nonfinite=True` reads it (skipped while tracing).
"""
import functools
import types
import warnings

import jax

from ...autograd.grad_mode import no_grad
from ..._tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """`get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None)`: the `norm_type`-norm
    of the per-tensor norms (the norm of all elements as one vector); `norm_type` may be `inf` / `'inf'`.
    An empty list gives `tensor(0.)`. `foreach` is ignored.

    >>> get_total_norm([torchshim.tensor([3.0]), torchshim.tensor([4.0])])
    tensor(5.)
    """
    torch = _torch()
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    norms = [torch.norm(t, norm_type) for t in tensors]
    total_norm = torch.norm(torch.stack(norms), norm_type)
    if error_if_nonfinite and not isinstance(total_norm._value, jax.core.Tracer) \
            and bool(torch.logical_or(total_norm.isnan(), total_norm.isinf())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           f"non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the "
                           "non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """`clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None)`: scale every `.grad` in place
    by `min(max_norm / (total_norm + 1e-6), 1)` (a pre-computed total norm, e.g. from `get_total_norm`)."""
    torch = _torch()
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.device))


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """`clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None)`: clip
    the gradients' total norm (all `.grad`s as one vector) to `max_norm`, in place; returns the total norm
    before clipping. `error_if_nonfinite=True` raises when that norm is nan or inf.

    >>> p = torchshim.nn.Parameter(torchshim.ones(4)); p.grad = torchshim.full((4,), 3.0)
    >>> clip_grad_norm_([p], 1.0)
    tensor(6.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator would be exhausted by the first pass
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of `clip_grad_norm_` (FutureWarning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """`clip_grad_value_(parameters, clip_value, foreach=None)`: clamp every `.grad` to
    [-clip_value, clip_value], in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
