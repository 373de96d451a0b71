"""Classification losses of the op table (imported by nn_loss.py): nll_loss (PyTorch's nll_loss_nd: any number
of spatial dims), cross_entropy (class indices or class probabilities, label smoothing), multi_margin_loss,
multilabel_margin_loss.

Class indices are gathered with jax (which clamps out-of-range indices silently); PyTorch's "Target 7 is out
of bounds." / "target out of range" errors come from a host check of the concrete target, so under jax tracing
out-of-range targets are not detected.
"""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._index_check import storage_range
from .._promotion import short_name
from . import _dispatch as P
from ..autograd._names import arg
from ._loss_common import (MEAN, NONE, SUM, Like, device_of, not_implemented, on_host,
                           once_differentiable, opmath, rnd, rt)
from ._registry import register

__all__ = []


# ---- nll_loss ----------------------------------------------------------------------------------------------
def _nll_core(x, t, w, reduction, ignore_index, dt):
    """nll over rows: x (M, C) opmath log-probabilities, t (M,) int64 class indices, w (C,) or None.
    Returns the per-row loss (rounded to dt) or the reduced loss (mean: divided by the total weight)."""
    valid = t != ignore_index
    safe = jnp.where(valid, t, 0)
    picked = jnp.take_along_axis(x, safe[:, None], 1, mode="clip")[:, 0]
    wt = jnp.ones((), x.dtype) if w is None else jnp.take(w, safe, mode="clip")
    zero = jnp.zeros((), x.dtype)
    loss = jnp.where(valid, -picked * wt, zero)
    if reduction == NONE:
        return rnd(loss, dt)
    total = jnp.sum(jnp.where(valid, jnp.broadcast_to(wt, valid.shape), zero))
    s = jnp.sum(loss)
    return rnd(s / total if reduction == MEAN else s, dt)


def _rows(x, t):
    """(M, C) rows and (M,) targets of an (C,), (N, C) or (N, C, d1, ...) input."""
    if x.ndim == 1:
        return x[None, :], t.reshape(1)
    if x.ndim == 2:
        return x, t
    return jnp.moveaxis(x, 1, -1).reshape(-1, x.shape[1]), t.reshape(-1)


@partial(P.kernel, static=("reduction", "ignore_index", "dt", "has_w"))
def _nll_k(x, t, w, *, reduction, ignore_index, dt, has_w):
    oc = opmath(dt)
    rows, tt = _rows(x.astype(oc), t.astype(jnp.int64))
    r = _nll_core(rows, tt, None if not has_w else w.astype(oc), reduction, ignore_index, dt)
    if reduction == NONE:
        r = r.reshape(t.shape if x.ndim != 1 else ())
    return r.astype(dt)


def _target_dtype_check(target):
    if target._dtype not in (D.int64, D.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {short_name(target._dtype)}")


def _scalar_type_check(expected, t):
    if t._dtype is not expected:
        raise RuntimeError(f"expected scalar type {short_name(expected)} but found {short_name(t._dtype)}")


def _nll_checks(input, target, weight, ignore_index, input_dtype=None):
    """nll_loss_nd's checks, in PyTorch's order (shapes, target dtype, weight, input dtype, target values)."""
    nd = input.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1:
        tb = target._shape[0] if target.ndim else 0
        if input._shape[0] != tb:
            raise ValueError(f"Expected input batch_size ({input._shape[0]}) to match target batch_size "
                             f"({tb}).")
    elif target.ndim == 1 and target._shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target._shape[0]}")
    if nd not in (1, 2, 4) and tuple(target._shape[1:]) != tuple(input._shape[2:]):
        raise RuntimeError(f"Expected target size {[input._shape[0], *input._shape[2:]]}, got "
                           f"{list(target._shape)}")
    _target_dtype_check(target)
    c = input._shape[-1] if nd <= 2 else input._shape[1]
    if nd <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if weight is not None and not (weight.ndim == 1 and weight.numel() == c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no "
                               "classes but "
                               f"got weight tensor of shape: {list(weight._shape)}")
    else:
        if nd == 4 and target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.ndim}")
        if weight is not None and weight.numel() != c:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if nd == 4 and tuple(target._shape) != (input._shape[0], *input._shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {list(input._shape)} , target: "
                               f"{list(target._shape)}")
    d = input._dtype if input_dtype is None else input_dtype
    if weight is not None:
        _scalar_type_check(d, weight)
    if not d.is_floating_point:
        raise not_implemented("nll_loss_out_frame" if nd <= 2 else "nll_loss2d_forward_out_frame", d)
    _check_targets(target, c, ignore_index)
    return d


def _check_targets(target, c, ignore_index):
    r = storage_range(target._storage) if target._storage.array.dtype.kind in "iu" else None
    if r is not None and 0 <= r[0] and r[1] < c:
        return  # every stored value is a class index (the same targets every step: no host read again)

    def check(a):
        a = a.astype(np.int64).ravel()
        bad = (a != ignore_index) & ((a < 0) | (a >= c))
        if bad.any():
            raise IndexError(f"Target {int(a[np.argmax(bad)])} is out of bounds.")
    on_host(target, check)


# ---- grad_fn names of nll_loss and cross_entropy ------------------------------------------------------
def _nll_name_of(ndim, reduction):
    if ndim <= 2:
        return "NllLossBackward0"
    if ndim == 4 or reduction != NONE:
        return "NllLoss2DBackward0"
    return "ViewBackward0"


def _nll_name(args, kwargs):
    return _nll_name_of(args[0].ndim, arg(args, kwargs, 3, "reduction", MEAN))


def _ce_name(args, kwargs):
    x, t = args[0], args[1]
    reduction = arg(args, kwargs, 3, "reduction", MEAN)
    if tuple(x._shape) == tuple(t._shape):
        return "DivBackward1" if reduction == MEAN and x.numel() else "NegBackward0"
    if arg(args, kwargs, 5, "label_smoothing", 0.0) > 0:
        return "AddBackward0"
    return _nll_name_of(x.ndim, reduction)


@register("nll_loss", method=False, function=False, kind="loss", grad_name=_nll_name)
def nll_loss(input, target, weight=None, reduction=MEAN, ignore_index=-100):
    """ATen `nll_loss_nd(input, target, weight=None, reduction=Mean, ignore_index=-100)`: -input[n, target[n]]
    (times weight[target[n]]) for input (C), (N, C) or (N, C, d1, ...) and int64/uint8 class indices; 'mean'
    divides by the summed weights of the non-ignored targets (NaN when there are none)."""
    d = _nll_checks(input, target, weight, ignore_index)
    r = _nll_k(input._value, target._value, None if weight is None else weight._value, reduction=reduction,
               ignore_index=int(ignore_index), dt=d.np, has_w=weight is not None)
    return P.fresh(r, d, device_of(input))


# ---- cross_entropy -----------------------------------------------------------------------------------------
def _log_softmax(x, axis, dt):
    return rnd(jax.nn.log_softmax(x, axis=axis), dt)


@partial(P.kernel, static=("reduction", "ls", "dt", "tdt", "rdt", "wdt", "has_w"))
def _ce_prob_k(x, t, w, *, reduction, ls, dt, tdt, rdt, wdt, has_w):
    cd = 0 if x.ndim == 1 else 1
    c = x.shape[cd]
    oc = opmath(rdt)
    lsm = _log_softmax(x.astype(opmath(dt)), cd, dt).astype(oc)
    tt = t.astype(opmath(tdt))
    if ls > 0:
        tt = rnd(rnd(tt * (1 - ls), tdt) + ls / c, tdt)
    prod = lsm * tt.astype(oc)
    if has_w:
        shape = [1] * x.ndim
        shape[cd] = c
        prod = rnd(rnd(prod, rt_np(dt, tdt)) * w.astype(oc).reshape(shape), rdt)
    prod = rnd(prod, rdt)
    if reduction == NONE:
        r = -jnp.sum(prod, cd)
    else:
        s = jnp.sum(prod)
        if reduction == MEAN:
            s = s / (x.size // c) if x.size else jnp.full((), jnp.nan, oc)
        r = -rnd(s, rdt)
    return r.astype(rdt)


def rt_np(a, b):
    return np.promote_types(np.dtype(a), np.dtype(b)) if np.dtype(a) != np.dtype(b) else np.dtype(a)


@partial(P.kernel, static=("reduction", "ignore_index", "ls", "dt", "has_w"))
def _ce_index_k(x, t, w, *, reduction, ignore_index, ls, dt, has_w):
    oc = opmath(dt)
    cd = 0 if x.ndim == 1 else 1
    c = x.shape[cd]
    lsm = _log_softmax(x.astype(oc), cd, dt)
    rows, tt = _rows(lsm, t.astype(jnp.int64))
    wo = None if not has_w else w.astype(oc)
    nll = _nll_core(rows, tt, wo, reduction, ignore_index, dt)
    if ls <= 0:
        if reduction == NONE:
            nll = nll.reshape(t.shape if x.ndim != 1 else ())
        return nll.astype(dt)
    # PyTorch's cross_entropy_loss_label_smoothing
    smooth = rnd(-jnp.sum(rnd(rows * wo, dt) if has_w else rows, 1), dt)
    valid = tt != ignore_index
    smooth = jnp.where(valid, smooth, jnp.zeros((), oc))
    if reduction == MEAN:
        if has_w:
            den = jnp.sum(jnp.where(valid, jnp.take(wo, jnp.where(valid, tt, 0), mode="clip"), 0))
        else:
            den = jnp.sum(valid)
        ret = rnd(rnd(jnp.sum(smooth), dt) / den, dt)
    elif reduction == SUM:
        ret = rnd(jnp.sum(smooth), dt)
    else:
        ret = smooth
    out = rnd(rnd((1 - ls) * nll, dt) + rnd(ret * (ls / c), dt), dt)
    if reduction == NONE:
        out = out.reshape(t.shape if x.ndim != 1 else ())
    return out.astype(dt)


def _log_softmax_check(input):
    cd = 0 if input.ndim == 1 else 1
    if cd >= max(input.ndim, 1) or input.ndim == 0:
        from .._tensor import _wrap_dim
        _wrap_dim(cd, input.ndim)
    d = input._dtype
    if not d.is_floating_point:
        last = cd == input.ndim - 1
        raise not_implemented("log_softmax_lastdim_kernel_impl" if last else "log_softmax_kernel_impl", d)
    return cd


@register("cross_entropy", method=False, function=False, kind="loss", grad_name=_ce_name)
def cross_entropy(input, target, weight=None, reduction=MEAN, ignore_index=-100, label_smoothing=0.0):
    """ATen `cross_entropy_loss(input, target, weight=None, reduction=Mean, ignore_index=-100,
    label_smoothing=0.0)`: log_softmax over the class dim (dim 1, or 0 for a 1-D input) followed by nll_loss
    for class indices, or -sum(target * log_softmax) for class probabilities (a target shaped like the
    input); label smoothing mixes in the uniform distribution, as PyTorch."""
    ls = float(label_smoothing)
    if tuple(input._shape) == tuple(target._shape):
        td = target._dtype
        if not td.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{short_name(td)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if input.ndim == 0:
            from .._tensor import _wrap_dim
            _wrap_dim(1, 0)
        cd = 0 if input.ndim == 1 else 1
        c = input._shape[cd]
        if weight is not None and not (weight.ndim == 1 and weight.numel() == c):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} "
                               "classes or "
                               f"no classes but got weight tensor of shape: {list(weight._shape)}")
        _log_softmax_check(input)
        if ls > 0 and ls > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {_num(ls)}")
        n = input.ndim
        pd = rt(Like(input._dtype, n), Like(td, n))
        rdt = pd if weight is None else rt(Like(pd, n), Like(weight._dtype, n))
        r = _ce_prob_k(input._value, target._value, None if weight is None else weight._value,
                       reduction=reduction, ls=max(ls, 0.0), dt=input._dtype.np, tdt=td.np, rdt=rdt.np,
                       wdt=None if weight is None else weight._dtype.np, has_w=weight is not None)
        return P.fresh(r, rdt, device_of(input))
    _log_softmax_check(input)
    if ls > 0 and ls > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {_num(ls)}")
    d = _nll_checks(input, target, weight, ignore_index)
    r = _ce_index_k(input._value, target._value, None if weight is None else weight._value,
                    reduction=reduction, ignore_index=int(ignore_index), ls=ls, dt=d.np,
                    has_w=weight is not None)
    return P.fresh(r, d, device_of(input))


def _num(v):
    return repr(v) if v != int(v) else f"{int(v)}"


# ---- multi margin, multilabel margin -----------------------------------------------------------------------
def _mm_value(x, w, t, p, margin, reduction, has_w, none_shape):
    n, c = x.shape
    xt = jnp.take_along_axis(x, t[:, None], 1, mode="clip")
    z = margin - xt + x
    z = jnp.where(z > 0, z, jnp.zeros((), x.dtype))
    if p == 2:
        z = z * z
    if has_w:
        z = z * jnp.take(w, t, mode="clip")[:, None]
    z = jnp.where(jnp.arange(c)[None, :] != t[:, None], z, jnp.zeros((), x.dtype))
    per = jnp.sum(z, 1) / c
    if reduction == NONE:
        return per.reshape(none_shape)
    s = jnp.sum(per)
    return s / n if reduction == MEAN else s


@partial(P.kernel, static=("p", "margin", "reduction", "has_w", "none_shape"))
def _mm_k(x, t, w, *, p, margin, reduction, has_w, none_shape):
    x2 = x.reshape(1, 1) if x.ndim == 0 else x.reshape(-1, x.shape[-1])
    t2 = t.reshape(-1).astype(jnp.int64)
    if has_w:
        return once_differentiable(
            lambda a, ww, tt: _mm_value(a, ww, tt, p, margin, reduction, True, none_shape),
            (x2, w.reshape(-1)), (t2,), RuntimeError,
            "derivative for aten::multi_margin_loss_backward is not implemented")
    return once_differentiable(lambda a, tt: _mm_value(a, None, tt, p, margin, reduction, False, none_shape),
                               (x2,), (t2,), RuntimeError,
                               "derivative for aten::multi_margin_loss_backward is not implemented")


@register("multi_margin_loss", method=False, function=False, kind="loss")
def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction=MEAN):
    """ATen `multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction=Mean)`: per sample,
    sum over classes d != y of max(0, margin - x[y] + x[d])^p * weight[y] / C. float32/float64; int64 targets;
    no second derivative (as PyTorch)."""
    nd = input.ndim
    if not ((nd == 2 and input._shape[1] != 0) or (nd == 1 and input._shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input._shape)}")
    nframe = 1 if nd <= 1 else input._shape[0]
    dim = 1 if nd == 0 else input._shape[-1]
    if not (target.ndim <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                           f"input samples (batch size). Expected target size [{nframe}], but got "
                           f"{list(target._shape)}. Input has shape {list(input._shape)}.")
    if weight is not None and not (weight.ndim <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight._shape)}")
    d = input._dtype
    if d not in (D.float32, D.float64):
        raise not_implemented("multi_margin_loss_cpu_kernel", d)
    _scalar_type_check(D.int64, target)
    if weight is not None:
        _scalar_type_check(d, weight)

    def check(a):
        if a.size and ((a < 0) | (a >= dim)).any():
            raise RuntimeError("target out of range")
    on_host(target, check)
    none_shape = (nframe,) if target.ndim > 0 else ()
    r = _mm_k(input._value, target._value, None if weight is None else weight._value, p=int(p),
              margin=float(margin), reduction=reduction, has_w=weight is not None, none_shape=none_shape)
    return P.fresh(r.astype(d.np), d, device_of(input))


def _mlm_value(x, t, reduction):
    n, c = x.shape
    idx = jnp.arange(c)
    first_end = jnp.min(jnp.where(t == -1, idx[None, :], c), 1, keepdims=True)
    tmask = idx[None, :] < first_end
    tsafe = jnp.where(tmask, t, 0)
    is_target = jnp.any(tmask[:, :, None] & (tsafe[:, :, None] == idx[None, None, :]), 1)
    xt = jnp.take_along_axis(x, tsafe, 1, mode="clip")
    z = 1 - xt[:, :, None] + x[:, None, :]
    z = jnp.where(z > 0, z, jnp.zeros((), x.dtype))
    keep = tmask[:, :, None] & ~is_target[:, None, :]
    per = jnp.sum(jnp.where(keep, z, jnp.zeros((), x.dtype)), (1, 2)) / c
    if reduction == NONE:
        return per
    s = jnp.sum(per)
    return s / n if reduction == MEAN else s


@partial(P.kernel, static=("reduction",))
def _mlm_k(x, t, *, reduction):
    nd = x.ndim
    x2 = x.reshape(1, -1) if nd <= 1 else x
    t2 = t.reshape(1, -1).astype(jnp.int64) if nd <= 1 else t.astype(jnp.int64)
    r = once_differentiable(lambda a, tt: _mlm_value(a, tt, reduction), (x2,), (t2,), RuntimeError,
                            "derivative for aten::multilabel_margin_loss_backward is not implemented")
    if reduction == NONE and nd <= 1:
        r = r.reshape(())
    return r


@register("multilabel_margin_loss", method=False, function=False, kind="loss")
def multilabel_margin_loss(input, target, reduction=MEAN):
    """ATen `multilabel_margin_loss(input, target, reduction=Mean)`: per sample, the target classes are
    target's entries before the first -1; sum over target classes j and non-target classes d of
    max(0, 1 - (x[j] - x[d])) / C. float32/float64; int64 targets; no second derivative (as PyTorch)."""
    nd = input.ndim
    if not ((nd == 2 and input._shape[1] != 0) or (nd == 1 and input._shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input._shape)}")
    if nd <= 1:
        dim = 1 if nd == 0 else input._shape[0]
        ok = target.ndim <= 1 and target.numel() == dim
    else:
        dim = input._shape[1]
        ok = target.ndim == 2 and tuple(target._shape) == tuple(input._shape)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target._shape)} for input of size: "
                           f"{list(input._shape)}")

    def check(a):
        if a.size and (a.min() < -1 or a.max() >= dim):
            raise RuntimeError("argument #2 'target' is out of range")
    on_host(target, check)
    d = input._dtype
    if d not in (D.float32, D.float64):
        raise not_implemented("multilabel_margin_loss_forward_out_frame", d)
    _scalar_type_check(D.int64, target)
    r = _mlm_k(input._value, target._value, reduction=reduction)
    return P.fresh(r.astype(d.np), d, device_of(input))
