"""torch.nn.functional ops, attention: scaled_dot_product_attention (F.multi_head_attention_forward, PyTorch's
Python composite, is in torchshim/nn/functional/attention.py).

scaled_dot_product_attention follows PyTorch's math backend (`_scaled_dot_product_attention_math`, what its
CPU autograd path runs): query and key are each scaled by sqrt(scale), masks are added (bool masks as -inf
where False, is_causal as the upper-left causal mask), a "safe" softmax gives all-masked rows zeros instead of
NaN, dropout multiplies by a Bernoulli(1 - p) mask scaled by 1 / (1 - p), then the product with value. float16
and bfloat16 inputs are computed in float32. The whole computation is one jitted kernel and one autograd node;
the dropout mask is drawn with torchshim's generator before it (so the pullback re-runs with the same mask).
"""
import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import c_name, short_name
from .._random import draw, make_key
from ..autograd._names import ndim_name
from ..autograd._ops import differentiable
from . import _dispatch as P
from ._registry import register

_REDUCED = (D.float16, D.bfloat16)


@P.kernel(static=("scale", "is_causal", "mask_kind", "groups", "p", "cdt", "rdt"))
def _sdpa_k(q, k, v, mask, keep, *, scale, is_causal, mask_kind, groups, p, cdt, rdt):
    q, k, v = q.astype(cdt), k.astype(cdt), v.astype(cdt)
    if groups > 1:
        k = jnp.repeat(k, groups, axis=-3)
        v = jnp.repeat(v, groups, axis=-3)
    s = math.sqrt(abs(scale))
    q = q * (-s if scale < 0 else s)
    attn = jnp.matmul(q, jnp.swapaxes(k * s, -2, -1))
    L, S = attn.shape[-2], attn.shape[-1]
    neg_inf = jnp.asarray(-jnp.inf, cdt)
    if is_causal:
        attn = jnp.where(jnp.tril(jnp.ones((L, S), bool)), attn, neg_inf)
    if mask_kind == "bool":
        attn = jnp.where(mask, attn, neg_inf)
    elif mask_kind == "float":
        attn = attn + mask.astype(cdt)
    # PyTorch's _safe_softmax: rows that are all -inf give 0 (and no gradient), not NaN
    dead = jnp.all(attn == neg_inf, axis=-1, keepdims=True)
    probs = jax.nn.softmax(jnp.where(dead, jnp.zeros((), cdt), attn), axis=-1)
    probs = jnp.where(dead, jnp.zeros((), cdt), probs)
    if p >= 1:
        probs = probs * jnp.zeros((), cdt)
    elif keep is not None:
        probs = probs * keep.astype(cdt) * jnp.asarray(1 / (1 - p), cdt)
    return jnp.matmul(probs, v).astype(rdt)


def _sdpa(query, key, value, attn_mask, keep, scale, is_causal, mask_kind, groups, p):
    cdt = D.float32 if query._dtype in _REDUCED else query._dtype
    out = _sdpa_k(query._value, key._value, value._value, None if attn_mask is None else attn_mask._value,
                  None if keep is None else keep._value, scale=scale, is_causal=is_causal,
                  mask_kind=mask_kind, groups=groups, p=p, cdt=cdt.np, rdt=query._dtype.np)
    return P.fresh(out, query._dtype, query._storage.device)


_sdpa_core = differentiable("scaled_dot_product_attention", _sdpa,
                             grad_name=ndim_name(["MmBackward0"] * 3 + ["UnsafeViewBackward0"]))

# PyTorch's CPU autograd uses its fused flash kernel for 4-d inputs of equal head dims and batch sizes without
# dropout (and a mask that doesn't require grad): node ScaledDotProductFlashAttentionForCpuBackward0, whose
# backward can't be differentiated again. Same math here, that node name, and that error at double backward.
_NO_FLASH_DD = "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented"


@jax.custom_jvp
def _raise_on_derivative(x):
    return x


def _raise_jvp(primals, tangents):
    raise RuntimeError(_NO_FLASH_DD)


_raise_on_derivative.defjvp(_raise_jvp)


@partial(jax.custom_vjp, nondiff_argnums=(4,))
def _flash_k(q, k, v, mask, cfg):
    return _sdpa_k(q, k, v, mask, None, **dict(cfg))


def _flash_fwd(q, k, v, mask, cfg):
    return _flash_k(q, k, v, mask, cfg), (q, k, v, mask)


def _flash_bwd(cfg, res, g):
    q, k, v, mask = res
    q, k, v, g = (_raise_on_derivative(x) for x in (q, k, v, g))
    _, pullback = jax.vjp(lambda q, k, v: _sdpa_k(q, k, v, mask, None, **dict(cfg)), q, k, v)
    return (*pullback(g), None)


_flash_k.defvjp(_flash_fwd, _flash_bwd)
# the eager entry: a kernel like every other op's (one dispatch; recorded in fused eager mode)
_flash_call = P.kernel(lambda q, k, v, mask, cfg: _flash_k(q, k, v, mask, cfg), static=("cfg",))


def _sdpa_flash(query, key, value, attn_mask, scale, is_causal, mask_kind, groups):
    cdt = D.float32 if query._dtype in _REDUCED else query._dtype
    cfg = (("scale", scale), ("is_causal", is_causal), ("mask_kind", mask_kind), ("groups", groups),
           ("p", 0.0), ("cdt", np.dtype(cdt.np)), ("rdt", np.dtype(query._dtype.np)))
    mask = None if attn_mask is None else attn_mask._value
    out = _flash_call(query._value, key._value, value._value, mask, cfg=cfg)
    return P.fresh(out, query._dtype, query._storage.device)


_flash_core = differentiable("_scaled_dot_product_flash_attention_for_cpu", _sdpa_flash)


def _uses_flash(query, key, value, attn_mask, p, groups):
    if not (query.ndim == key.ndim == value.ndim == 4) or p > 0:
        return False
    if attn_mask is not None and attn_mask.requires_grad:
        return False
    (b, h, L, e), (bk, hk, s, ek), (bv, hv, _, ev) = query._shape, key._shape, value._shape
    return b == bk == bv and e == ek == ev and hk == hv and h == hk * groups and L > 0 and s > 0


@P.kernel(static=("shape", "p"))
def _keep_k(raw, n, *, shape, p):
    return jax.random.bernoulli(make_key(raw, n), 1 - p, shape)


def _heads_repeated(shape, groups):
    """`shape` after enable_gqa repeats the heads (dim -3) `groups` times."""
    shape = tuple(shape)
    return shape[:-3] + (shape[-3] * groups,) + shape[-2:] if groups > 1 else shape


def _check_matmul(a_shape, b_shape):
    """PyTorch's bmm message for a (..., n, m) @ (..., m2, p) product whose inner sizes differ."""
    if a_shape[-1] != b_shape[-2]:
        batch = np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))
        b = int(np.prod(batch, dtype=np.int64))
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, "
                           f"{a_shape[-1]}] but got: [{b}, {b_shape[-2]}].")


@register("scaled_dot_product_attention", method=False, function=False, functional=True, kind="composite")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    """`F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
    scale=None, enable_gqa=False)`: softmax(q @ k^T * scale + mask) @ v over the last two dims (batch dims
    broadcast). attn_mask: bool (True takes part) or float (added); is_causal: the upper-left causal mask;
    dropout_p > 0 draws a dropout mask from torchshim's generator (PyTorch applies dropout whenever
    dropout_p > 0, training or not); enable_gqa repeats key/value heads (dim -3) to query's.

    Differences: the math backend always (PyTorch's fused CPU kernels may round differently); the random
    stream is torchshim's."""
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, but got "
                           f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} "
                           "instead.")
    qd = query._dtype
    if key._dtype is not qd or value._dtype is not qd:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{c_name(qd)} key.dtype: {c_name(key._dtype)} and value.dtype: "
                           f"{c_name(value._dtype)} instead.")
    mask_kind = None
    if attn_mask is not None:
        md = attn_mask._dtype
        if md is not D.bool_ and md is not D.float32 and md is not qd:
            raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but "
                               f"got attn_mask.dtype: {c_name(md)} and  query.dtype: {c_name(qd)} instead.")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        mask_kind = "bool" if md is D.bool_ else "float"
    if not 0 <= dropout_p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {float(dropout_p):g}")
    groups = 1
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk, hv = query._shape[-3], key._shape[-3], value._shape[-3]
        if hq % hk or hq % hv or hk != hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        groups = hq // hk
    if not qd.is_floating_point:
        if qd.is_complex:
            raise NotImplementedError('"softmax_lastdim_kernel_impl" not implemented for '
                                      f'\'{short_name(qd)}\'')
        raise RuntimeError(f"expected scalar type Float but found {short_name(qd)}")
    kshape = _heads_repeated(key._shape, groups)
    _check_matmul(query._shape, kshape[:-2] + (kshape[-1], kshape[-2]))
    attn_shape = tuple(np.broadcast_shapes(tuple(query._shape[:-2]), kshape[:-2])) + (query._shape[-2],
                                                                                      key._shape[-2])
    if attn_mask is not None:
        try:
            np.broadcast_shapes(attn_shape, tuple(attn_mask._shape))
        except ValueError:
            P.broadcast_error((attn_shape, tuple(attn_mask._shape)))
    vshape = _heads_repeated(value._shape, groups)
    _check_matmul(attn_shape, vshape)
    scale = 1.0 / math.sqrt(query._shape[-1]) if scale is None else float(scale)
    keep = None
    p = float(dropout_p)
    if _uses_flash(query, key, value, attn_mask, p, groups):
        return _flash_core(query, key, value, attn_mask, scale, bool(is_causal), mask_kind, groups)
    if p > 0:
        raw, n = draw(None)
        keep = P.fresh(_keep_k(raw, n, shape=attn_shape, p=p), D.bool_, query._storage.device)
    return _sdpa_core(query, key, value, attn_mask, keep, scale, bool(is_causal), mask_kind, groups, p)
