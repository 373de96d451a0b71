"""ctc_loss (imported by nn_loss.py): the CTC forward algorithm in log space as one `jax.lax.scan` over time,
batched over the samples with length masks.

The gradient is jax's vjp of that forward plus PyTorch's extra term: PyTorch's CPU/CUDA backward returns
`exp(log_probs) - exp(log_alpha_beta + nll - log_probs)` per time step inside the input length (the gradient
as if log_probs came from log_softmax), so the vjp's `-exp(...)` gets `exp(log_probs)` added. Infinite losses
give NaN gradients (or zero with zero_infinity), as PyTorch; the gradient has no derivative of its own
(PyTorch: "derivative for aten::_ctc_loss_backward is not implemented").
"""
import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import _dispatch as P
from ._loss_common import (MEAN, NONE, SUM, device_of, host, not_implemented, raising_guard,
                           reduction_arg)
from ._registry import register

__all__ = ["lengths_type_error"]

_NEG = -math.inf


@jax.custom_jvp
def _lse(*xs):
    """log(sum(exp(x))) of several same-shaped arrays, PyTorch's way (max 0 when all are -inf); its
    derivative gives no weight to -inf terms and no NaN when every term is -inf."""
    m = xs[0]
    for x in xs[1:]:
        m = jnp.maximum(m, x)
    m = jnp.where(m == _NEG, jnp.zeros((), m.dtype), m)
    return jnp.log(sum(jnp.exp(x - m) for x in xs)) + m


@_lse.defjvp
def _lse_jvp(primals, tangents):
    out = _lse(*primals)
    finite = out != _NEG
    safe = jnp.where(finite, out, jnp.zeros((), out.dtype))
    zero = jnp.zeros((), out.dtype)
    t = sum(jnp.where(finite, jnp.exp(x - safe), zero) * dx for x, dx in zip(primals, tangents))
    return out, t


def _nll(lp, ext, skip, il, tl):
    """Negative log likelihood per sample: lp (T, N, C), ext (N, L) extended labels (blank, l1, blank, ...),
    skip (N, L) where the s-2 transition is allowed, il / tl (N,) input and target lengths."""
    t_len, n = lp.shape[0], lp.shape[1]
    if t_len == 0:
        return jnp.where(tl == 0, jnp.zeros((n,), lp.dtype), jnp.full((n,), jnp.inf, lp.dtype))
    big_l = ext.shape[1]
    lpe = jnp.take_along_axis(lp, jnp.broadcast_to(ext[None], (t_len,) + ext.shape), axis=2)  # (T, N, L)
    s = jnp.arange(big_l)[None, :]
    valid = s <= 2 * tl[:, None]
    neg = jnp.full((), _NEG, lp.dtype)
    a0 = jnp.where((s == 0) | ((s == 1) & (tl[:, None] > 0)), lpe[0], neg)
    a0 = jnp.where(valid, a0, neg)

    def step(a, xs):
        t, row = xs
        pad1 = jnp.concatenate([jnp.full((n, 1), _NEG, a.dtype), a[:, :-1]], 1)
        pad2 = jnp.concatenate([jnp.full((n, 2), _NEG, a.dtype), a[:, :-2]], 1)[:, :big_l]
        new = _lse(a, pad1, jnp.where(skip, pad2, neg)) + row
        new = jnp.where(valid, new, neg)
        return jnp.where((t < il)[:, None], new, a), None
    a, _ = jax.lax.scan(step, a0, (jnp.arange(1, t_len), lpe[1:]))
    last = jnp.take_along_axis(a, jnp.clip(2 * tl, 0, big_l - 1)[:, None], 1)[:, 0]
    prev = jnp.take_along_axis(a, jnp.clip(2 * tl - 1, 0, big_l - 1)[:, None], 1)[:, 0]
    ll = jnp.where(tl == 0, a[:, 0], _lse(last, prev))
    empty = jnp.where(tl == 0, jnp.zeros((), lp.dtype), jnp.full((), jnp.inf, lp.dtype))
    return jnp.where(il == 0, empty, -ll)


def _ctc(lp, ext, skip, il, tl, zero_infinity):
    """_nll with PyTorch's gradient (see the module docstring); ext/skip/il/tl get no gradient."""
    @jax.custom_vjp
    def f(x, *rest):
        return _nll(x, *rest)

    def fwd(x, *rest):
        out = _nll(x, *rest)
        return out, (x, out, rest)

    def bwd(res, g):
        x, out, rest = res
        il = rest[2]
        _, pull = jax.vjp(lambda v: _nll(v, *rest), x)
        (tg,) = pull(g)
        inside = (jnp.arange(x.shape[0])[:, None] < il[None, :])[..., None]  # (T, N, 1)
        grad = jnp.where(inside, jnp.exp(x) * g[None, :, None] + tg, jnp.zeros((), x.dtype))
        inf = jnp.isinf(out)[None, :, None]
        if zero_infinity:
            grad = jnp.where(inf, jnp.zeros((), x.dtype), grad)
        else:
            grad = jnp.where(inf & inside, jnp.full((), jnp.nan, x.dtype), grad)
        guard = raising_guard(RuntimeError, "derivative for aten::_ctc_loss_backward is not implemented")
        return (guard(grad, x, g),) + (None,) * len(rest)
    f.defvjp(fwd, bwd)
    return f(lp, ext, skip, il, tl)


@partial(P.kernel, static=("blank", "reduction", "zero_infinity", "batched", "concat_len"))
def _ctc_k(lp, targets, il, tl, *, blank, reduction, zero_infinity, batched, concat_len):
    if not batched:
        lp = lp[:, None, :]
    n = lp.shape[1]
    il = jnp.asarray(il, jnp.int64).reshape(n)
    tl = jnp.asarray(tl, jnp.int64).reshape(n)
    tg = targets.astype(jnp.int64)
    if tg.ndim == 1:  # concatenated: the padded (N, S) layout from the offsets
        offsets = jnp.cumsum(tl) - tl
        k = jnp.arange(concat_len)
        idx = offsets[:, None] + k[None, :]
        tg = jnp.take(tg, jnp.clip(idx, 0, max(tg.shape[0] - 1, 0)), mode="clip") if tg.shape[0] else \
            jnp.zeros((n, concat_len), jnp.int64)
    big_s = tg.shape[1]
    ext = jnp.full((n, 2 * big_s + 1), blank, jnp.int64)
    ext = ext.at[:, 1::2].set(tg)
    ext = jnp.clip(ext, 0, lp.shape[2] - 1)
    s = jnp.arange(2 * big_s + 1)
    prev2 = jnp.concatenate([jnp.full((n, 2), -1, jnp.int64), ext[:, :-2]], 1)[:, :2 * big_s + 1]
    skip = (s[None, :] > 1) & (prev2 != ext)
    res = _ctc(lp, ext, skip, il, tl, zero_infinity)
    if zero_infinity:
        res = jnp.where(res == jnp.inf, jnp.zeros((), res.dtype), res)
    if reduction == MEAN:
        return jnp.mean(res / jnp.maximum(tl, 1).astype(res.dtype))
    if reduction == SUM:
        return jnp.sum(res)
    return res if batched else res[0]


def lengths_type_error(il, tl, *rest):
    """PyTorch's TypeError for lengths that are neither tensors nor sequences of ints (`rest`: the further
    arguments given, which its message lists too)."""
    got = ", ".join(["Tensor", "Tensor"] + [type(v).__name__ for v in (il, tl, *rest)])
    return TypeError(f"ctc_loss() received an invalid combination of arguments - got ({got}), but "
                     "expected one "
                     "of:")


def _lengths(name, v):
    """(array or tuple, host values or None) of input_lengths / target_lengths."""
    if isinstance(v, Tensor):
        d = v._dtype
        if d.is_floating_point or d.is_complex or d is D.bool_:
            raise RuntimeError(f"{name} must be integral")
        h = host(v)
        return v._value, None if h is None else h.astype(np.int64).reshape(-1)
    vals = tuple(int(x) for x in v)
    return vals, np.asarray(vals, np.int64)


def _ctc_checks(lp, targets, il, tl, blank, batch):
    ctx = " (while checking arguments for ctc_loss_allocate_outputs)"
    nd = lp.ndim if lp.ndim == 3 else lp.ndim + 1
    if nd != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {nd}-dimensional tensor for argument #1 "
                           f"'log_probs'{ctx}")
    if not 1 <= targets.ndim <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for "
                           f"argument #2 'targets'{ctx}")
    num_labels = lp._shape[-1]
    if not 0 <= blank < num_labels:
        raise RuntimeError("blank must be in label range")
    if il is not None and len(il) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl is not None and len(tl) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if tl is not None:
        for v in tl:
            if v < 0:
                raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                                   f"{v}{ctx}")
        if targets.ndim == 1:
            if targets._shape[0] != int(tl.sum()):
                raise RuntimeError(f"Expected tensor to have size {int(tl.sum())} at dimension 0, but got "
                                   f"size {targets._shape[0]} for argument #2 'targets'{ctx}")
        else:
            if targets._shape[0] != batch:
                raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                                   f"{targets._shape[0]} for argument #2 'targets'{ctx}")
            mx = int(tl.max()) if tl.size else 0
            if targets._shape[1] < mx:
                raise RuntimeError(f"Expected tensor to have size at least {mx} at dimension 1, but got size "
                                   f"{targets._shape[1]} for argument #2 'targets'{ctx}")
    if il is not None:
        t_len = lp._shape[0]
        for v in il:
            if v < 0:
                raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v}{ctx}")
            if v > t_len:
                raise RuntimeError(f"Expected input_lengths to have value at most {t_len}, but got value "
                                   f"{v}{ctx}")


def _ctc_name(args, kwargs):
    r = reduction_arg(args, kwargs, 5, NONE)
    if r == MEAN:
        return "MeanBackward0"
    if r == SUM:
        return "SumBackward0"
    if args[0].ndim != 3:
        return "SqueezeBackward1"
    zi = args[6] if len(args) > 6 else kwargs.get("zero_infinity", False)
    return "WhereBackward0" if zi else "CtcLossBackward0"


@register("ctc_loss", method=False, kind="loss", grad_name=_ctc_name)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=NONE, zero_infinity=False):
    """`torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
    zero_infinity=False)`: the Connectionist Temporal Classification loss. log_probs (T, N, C) or (T, C)
    (float32/float64), targets padded (N, S) or concatenated (sum(target_lengths),), lengths as integer
    tensors or tuples of ints; 'mean' divides each loss by its target length (at least 1) and averages.
    `reduction` defaults to 0 (none), as PyTorch's Python binding reads its declared default.

    Differences: the length checks read the lengths on the host, so under jax tracing (tensor lengths) they
    are skipped; target values outside [0, C) are clamped (PyTorch reads out of bounds)."""
    if isinstance(input_lengths, (int, float)) or isinstance(target_lengths, (int, float)):
        raise lengths_type_error(input_lengths, target_lengths)
    il, il_h = _lengths("input_lengths", input_lengths)
    tl, tl_h = _lengths("target_lengths", target_lengths)
    d = log_probs._dtype
    if d not in (D.float32, D.float64):
        raise not_implemented("ctc_loss_cpu", d)
    batched = log_probs.ndim == 3
    batch = log_probs._shape[1] if batched else 1
    _ctc_checks(log_probs, targets, il_h, tl_h, int(blank), batch)
    if targets.ndim == 1:
        concat_len = int(tl_h.max()) if tl_h is not None and tl_h.size else targets._shape[0]
    else:
        concat_len = 0
    r = _ctc_k(log_probs._value, targets._value, il, tl, blank=int(blank), reduction=int(reduction),
               zero_infinity=bool(zero_infinity), batched=batched, concat_len=concat_len)
    return P.fresh(r, d, device_of(log_probs))
