"""Margin and embedding losses of the op table (imported by nn_loss.py): hinge_embedding_loss,
margin_ranking_loss, cosine_embedding_loss, multilabel_soft_margin_loss, triplet_margin_loss.

PyTorch composes these from ATen ops (`clamp_min`, `where`, ...); each is one jitted kernel here with the
composite's dtypes, rounding of 16-bit intermediates and `grad_fn` name (the node of its last ATen op). The
`torch.<name>` forms take the reduction code with PyTorch's effective default 0 (no reduction: its Python
binding reads the declared default `Mean` as 0).
"""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from . import _dispatch as P
from . import _subgrad as S
from ._loss_common import (EPS12, MEAN, NONE, Like, bool_sub_error, broadcast_shape, by_reduction,
                           device_of, is_intlike, neg_bool_error, not_implemented, opmath, reduce,
                           reduced_dtype, rnd, rt)
from ._registry import register

__all__ = []


def _new(arr, dtype, like):
    return P.fresh(arr, dtype, device_of(like))


def _clamp_min0(x):
    """clamp_min(x, 0) with PyTorch's gradient (passed through at 0)."""
    return S.clamp(x, jnp.zeros((), x.dtype), None)


def _no_complex_clamp(d):
    if d.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


# ---- hinge embedding ---------------------------------------------------------------------------------------
@partial(P.kernel, static=("reduction", "margin", "dt", "rdt"))
def _hinge_k(x, t, *, reduction, margin, dt, rdt):
    oc = opmath(dt)
    m = jnp.asarray(margin).astype(dt).astype(oc)  # empty_like(self).fill_(margin): margin in self's dtype
    xc = x.astype(oc)
    mc = rnd(_clamp_min0(rnd(m - xc, dt)), dt)
    zero = jnp.zeros((), oc)
    out = rnd(jnp.where(t != 1, mc, zero) + jnp.where(t != -1, xc, zero), dt)
    return reduce(out, reduction, dt, rdt)


@register("hinge_embedding_loss", method=False, kind="loss", grad_name=by_reduction("AddBackward0", 3, NONE))
def hinge_embedding_loss(input, target, margin=1.0, reduction=NONE):
    """`torch.hinge_embedding_loss(input, target, margin=1.0, reduction=0)`: input where target != -1, plus
    max(0, margin - input) where target != 1, in input's dtype (an integer input truncates margin, as
    PyTorch).

    Difference: a `target` requiring grad gets a zero gradient here, None in PyTorch (the F form detaches
    it)."""
    d = input._dtype
    if d is D.bool_:
        raise bool_sub_error(True)
    _no_complex_clamp(d)
    broadcast_shape(input._shape, target._shape)
    rdt = reduced_dtype(d, reduction)
    r = _hinge_k(input._value, target._value, reduction=reduction, margin=float(margin), dt=d.np, rdt=rdt.np)
    return _new(r, rdt, input)


# ---- margin ranking ----------------------------------------------------------------------------------------
@partial(P.kernel, static=("reduction", "margin", "ddt", "dt", "tdt"))
def _ranking_k(a, b, t, *, reduction, margin, ddt, dt, tdt):
    oc = opmath(dt)
    diff = rnd(a.astype(opmath(ddt)) - b.astype(opmath(ddt)), ddt)
    nt = rnd(-t.astype(opmath(tdt)), tdt)
    u = rnd(rnd(nt.astype(oc) * diff.astype(oc), dt) + margin, dt)
    return reduce(_clamp_min0(u), reduction, dt, dt)


@register("margin_ranking_loss", method=False, kind="loss",
          grad_name=by_reduction("ClampMinBackward0", 4, NONE))
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=NONE):
    """`torch.margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0)`:
    max(0, -target (input1 - input2) + margin), reduced."""
    if target._dtype is D.bool_:
        raise neg_bool_error()
    bi, bt = input1._dtype is D.bool_, input2._dtype is D.bool_
    if bi or bt:
        raise bool_sub_error(bi and bt)
    ddt = rt(input1, input2)
    pd = rt(target, Like(ddt, max(input1.ndim, input2.ndim)))
    d = rt(Like(pd, max(input1.ndim, input2.ndim, target.ndim)), float(margin))
    _no_complex_clamp(d)
    broadcast_shape(input1._shape, input2._shape, target._shape)
    r = _ranking_k(input1._value, input2._value, target._value, reduction=reduction, margin=float(margin),
                   ddt=ddt.np, dt=d.np, tdt=target._dtype.np)
    return _new(r, reduced_dtype(d, reduction), input1)


# ---- cosine embedding --------------------------------------------------------------------------------------
@partial(P.kernel, static=("reduction", "margin", "dim", "pdt", "sdt", "dt"))
def _cos_emb_k(a, b, t, *, reduction, margin, dim, pdt, sdt, dt):
    oc = opmath(dt)

    def dot(u, v):  # (u * v).sum(dim), rounded as PyTorch stores them
        p = rnd(u.astype(opmath(pdt)) * v.astype(opmath(pdt)), pdt)
        if np.dtype(sdt).kind in "iub":
            return jnp.sum(p.astype(np.int64), dim)
        return rnd(jnp.sum(p, dim), sdt)
    prod = dot(a, b).astype(oc)
    m1 = rnd(dot(a, a).astype(oc) + EPS12, dt)
    m2 = rnd(dot(b, b).astype(oc) + EPS12, dt)
    denom = rnd(jnp.sqrt(rnd(m1 * m2, dt)), dt)
    cos = rnd(prod / denom, dt)
    zero = jnp.zeros((), oc)
    pos = rnd(1 - cos, dt)
    neg = rnd(_clamp_min0(rnd(cos - margin, dt)), dt)
    out = rnd(jnp.where(t == 1, pos, zero) + jnp.where(t == -1, neg, zero), dt)
    return reduce(out, reduction, dt, dt)


@register("cosine_embedding_loss", method=False, kind="loss", grad_name=by_reduction("AddBackward0", 4, NONE))
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=NONE):
    """`torch.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0)`: 1 - cos(x1, x2) where
    target == 1, max(0, cos(x1, x2) - margin) where target == -1 (cosine over the last dim, 1e-12 added to the
    squared norms)."""
    td = target.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{list(input1._shape)} and {list(input2._shape)}.")
    pdt = rt(input1, input2)
    sdt = D.int64 if is_intlike(pdt) else pdt  # an integer sum is int64
    d = rt(Like(sdt, td), 1e-12)
    broadcast_shape(input1._shape, input2._shape)
    r = _cos_emb_k(input1._value, input2._value, target._value, reduction=reduction, margin=float(margin),
                   dim=td, pdt=pdt.np, sdt=sdt.np, dt=d.np)
    return _new(r, reduced_dtype(d, reduction), input1)


# ---- multilabel soft margin --------------------------------------------------------------------------------
@partial(P.kernel, static=("reduction", "xdt", "dt", "has_w"))
def _mlsm_k(x, t, w, *, reduction, xdt, dt, has_w):
    oc = opmath(dt)
    xo = x.astype(opmath(xdt))
    ls1 = rnd(jax.nn.log_sigmoid(xo), xdt).astype(oc)
    ls2 = rnd(jax.nn.log_sigmoid(rnd(-xo, xdt)), xdt).astype(oc)
    tt = t.astype(oc)
    loss = rnd(rnd(tt * ls1, dt) + rnd(rnd(1 - tt, dt) * ls2, dt), dt)
    loss = rnd(-loss, dt)
    if has_w:
        loss = rnd(loss * w.astype(oc), dt)
    loss = rnd(rnd(jnp.sum(loss, -1), dt) / x.shape[-1], dt)
    return reduce(loss, reduction, dt, dt)


@register("multilabel_soft_margin_loss", method=False, function=False, kind="loss",
          grad_name=by_reduction("DivBackward0", 3))
def multilabel_soft_margin_loss(input, target, weight=None, reduction=MEAN):
    """`multilabel_soft_margin_loss(input, target, weight=None, reduction=Mean)` (PyTorch's Python "
    "function, as
    one op): -(y log_sigmoid(x) + (1 - y) log_sigmoid(-x)) [* weight], averaged over the last (class) dim."""
    xd = input._dtype
    if not xd.is_floating_point:
        raise not_implemented("log_sigmoid_cpu", xd)
    if target._dtype is D.bool_:
        raise bool_sub_error(False)
    n = max(input.ndim, target.ndim)
    d = rt(target, input)
    if weight is not None:
        d = rt(Like(d, n), weight)
    broadcast_shape(input._shape, target._shape, *(() if weight is None else (weight._shape,)))
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    r = _mlsm_k(input._value, target._value, None if weight is None else weight._value, reduction=reduction,
                xdt=xd.np, dt=d.np, has_w=weight is not None)
    return _new(r, d, input)


# ---- triplet margin ----------------------------------------------------------------------------------------
def _distance(a, b, p, eps, nd):
    """at::pairwise_distance: norm(a - b + eps, p) over the last dim, PyTorch's norm gradient conventions."""
    return S.vector_norm(a - b + eps, p, (nd - 1,) if nd else (), False)


@partial(P.kernel, static=("reduction", "margin", "p", "eps", "swap", "dt"))
def _triplet_k(a, pos, neg, *, reduction, margin, p, eps, swap, dt):
    oc = opmath(dt)
    a, pos, neg = a.astype(oc), pos.astype(oc), neg.astype(oc)
    nd = max(a.ndim, pos.ndim, neg.ndim)
    dp = rnd(_distance(a, pos, p, eps, nd), dt)
    dn = rnd(_distance(a, neg, p, eps, nd), dt)
    if swap:
        dn = S.minimum(dn, rnd(_distance(pos, neg, p, eps, nd), dt))
    u = rnd(rnd(margin + dp, dt) - dn, dt)
    return reduce(_clamp_min0(u), reduction, dt, dt)


@register("triplet_margin_loss", method=False, kind="loss",
          grad_name=by_reduction("ClampMinBackward0", 7, NONE))
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=NONE):
    """`torch.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
    reduction=0)`: max(0, margin + d(a, p) - d(a, n)), d the pairwise p-norm distance over the last dim
    (`swap`: d(a, n) replaced by min(d(a, n), d(p, n)))."""
    a, pn, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == pn == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same "
                           "number of "
                           f"dimensions, but got: anchor {a}D, positive {pn}D, and negative {n}D inputs")
    from .nn_distance import check_pairwise
    dts = [check_pairwise(anchor, positive), check_pairwise(anchor, negative)]
    if swap:
        dts.append(check_pairwise(positive, negative))
    d = rt(*(Like(x) for x in dts))
    broadcast_shape(anchor._shape, positive._shape, negative._shape)
    r = _triplet_k(anchor._value, positive._value, negative._value, reduction=reduction, margin=float(margin),
                   p=float(p), eps=float(eps), swap=bool(swap), dt=d.np)
    return _new(r, d, anchor)
