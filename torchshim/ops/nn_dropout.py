"""Dropout: torch.dropout, alpha_dropout, feature_dropout, feature_alpha_dropout and their in-place `*_`
functions (F.dropout/dropout1d/2d/3d/alpha_dropout/feature_alpha_dropout are in nn/functional/dropout.py).

PyTorch's CPU algorithm (`_dropout_impl`): p = 0, eval mode or an empty input return the input itself; p = 1
multiplies by zero (so NaN stays NaN, as in PyTorch); otherwise a Bernoulli(1 - p) noise tensor is drawn
(elementwise, or one value per (sample, channel) for the feature variants), scaled by 1 / (1 - p) (alpha
dropout: scaled and shifted to keep SELU's mean and variance), and the input is multiplied by it. The noise is
drawn with torchshim's generator in one jitted kernel (a `RandomKernel`: a new shape compiles nothing),
outside any differentiable op; the multiplication (and alpha's addition) are the public mul/add, so the
history is PyTorch's (MulBackward0, AddBackward0) and the gradient is noise * scale. The random stream is
torchshim's, not PyTorch's (same distribution).
"""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .._promotion import short_name
from .._random import draw
from . import _dispatch as P
from ._random_blocks import random_kernel
from ._registry import register

_ALPHA = 1.7580993408473766
_HALF = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {float(p):g}")


@random_kernel(static=("p", "dt", "alpha"))
def _noise_k(key, shape, *, p, dt, alpha):
    """(multiplier, shift) of one dropout draw in numpy dtype `dt`, rounded as PyTorch's noise ops."""
    dt = np.dtype(dt)
    cdt = np.float32 if dt in _HALF else dt
    keep = jax.random.bernoulli(key, 1 - p, shape).astype(dt)
    if not alpha:
        return (keep.astype(cdt) / jnp.asarray(1 - p, cdt)).astype(dt), None
    a = 1.0 / np.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = ((keep - 1).astype(cdt) * jnp.asarray(_ALPHA * a, cdt)).astype(dt)
    b = (b.astype(cdt) + jnp.asarray(_ALPHA * a * p, cdt)).astype(dt)
    return (keep.astype(cdt) * jnp.asarray(a, cdt)).astype(dt), b


def _noise_shape(input, feature):
    if not feature:
        return tuple(input._shape)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input._shape[:2]) + (1,) * (input.ndim - 2)


def _dropout_impl(input, p, train, feature, alpha, inplace, generator=None):
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = P.fresh(jnp.zeros((), input._dtype.np), input._dtype, input._storage.device)
        return input.mul_(zero) if inplace else input * zero
    shape = _noise_shape(input, feature)
    d = input._dtype
    if d.is_complex:
        raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for \'{short_name(d)}\'')
    if not d.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {short_name(d)}")
    raw, n = draw(generator)
    dev = input._storage.device
    mult, shift = _noise_k(Dev.to_jax(dev), raw, n, shape=shape, p=float(p), dt=d.np, alpha=alpha)
    noise = P.fresh(mult, d, dev)
    out = input.mul_(noise) if inplace else input * noise
    if alpha:
        out.add_(P.fresh(shift, d, dev))
    return out


def dropout_(input, p, train):
    """`torch.dropout_(input, p, train)`: in-place `torch.dropout`."""
    return _dropout_impl(input, p, train, False, False, True)


def alpha_dropout_(input, p, train):
    """`torch.alpha_dropout_(input, p, train)`: in-place `torch.alpha_dropout`."""
    return _dropout_impl(input, p, train, False, True, True)


def feature_dropout_(input, p, train):
    """`torch.feature_dropout_(input, p, train)`: in-place `torch.feature_dropout`."""
    return _dropout_impl(input, p, train, True, False, True)


def feature_alpha_dropout_(input, p, train):
    """`torch.feature_alpha_dropout_(input, p, train)`: in-place `torch.feature_alpha_dropout`."""
    return _dropout_impl(input, p, train, True, True, True)


@register("dropout", method=False, inplace=dropout_, inplace_function=True, kind="composite")
def dropout(input, p, train):
    """`torch.dropout(input, p, train)`: zero each element with probability p and scale the rest by 1 / (1 -
    p) in training; the input itself when p == 0 or not train. RuntimeError for p outside [0, 1]."""
    return _dropout_impl(input, p, train, False, False, False)


@register("alpha_dropout", method=False, inplace=alpha_dropout_, inplace_function=True, kind="composite")
def alpha_dropout(input, p, train):
    """`torch.alpha_dropout(input, p, train)`: dropout that keeps SELU's self-normalizing mean and variance
    (dropped values go to -alpha * scale, then an affine correction)."""
    return _dropout_impl(input, p, train, False, True, False)


@register("feature_dropout", method=False, inplace=feature_dropout_, inplace_function=True, kind="composite")
def feature_dropout(input, p, train):
    """`torch.feature_dropout(input, p, train)`: dropout of whole channels (one draw per (N, C) entry)."""
    return _dropout_impl(input, p, train, True, False, False)


@register("feature_alpha_dropout", method=False, inplace=feature_alpha_dropout_, inplace_function=True,
          kind="composite")
def feature_alpha_dropout(input, p, train):
    """`torch.feature_alpha_dropout(input, p, train)`: alpha dropout of whole channels."""
    return _dropout_impl(input, p, train, True, True, False)
