"""`torch.linalg` functions of the singular values: cond, matrix_rank, pinv (shared by `torch.pinverse`).

They call `jnp.linalg.svd` / `jnp.linalg.eigh` directly. Tolerances follow PyTorch: with neither atol nor
rtol, rtol = eps * max(m, n); with atol > 0 and no rtol, rtol = 0; a singular value counts when it is greater
than max(atol, rtol * largest). Tensor tolerances broadcast against the batch. pinv's gradient is PyTorch's
constant-rank formula (a `jax.custom_jvp` built on the result), so it is defined for rank-deficient inputs
too.
"""

import math
from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import can_cast, short_name
from .._tensor import Tensor
from ..autograd._names import arg
from . import _dispatch as P
from ._registry import register
from .linalg_matrix import _inv_k
from .linalg_norms import check_floating, fmt_number, matrix_norm_t
from .movement import checked_out, not_implemented
from .._fused import jit as _fjit

__all__ = ["pinv_t"]

HI = jax.lax.Precision.HIGHEST
_SVD_TYPES = (D.float32, D.float64, D.complex64, D.complex128)


def _mm(a, b):
    return jnp.matmul(a, b, precision=HI)


def _mh(a):
    return jnp.conj(jnp.swapaxes(a, -1, -2))


# ---- tolerances --------------------------------------------------------------------------------------------
def _tol_arrays(name, A, atol, rtol, eps_default):
    """(atol array or None, rtol array or None, batch shape of the result) with PyTorch's checks."""
    real = A._dtype.to_real()
    if (isinstance(atol, Tensor) and rtol is not None and not isinstance(rtol, Tensor)) or (
        isinstance(rtol, Tensor) and atol is not None and not isinstance(atol, Tensor)
    ):
        kw = ", ".join(
            f"{k}={'Tensor' if isinstance(v, Tensor) else type(v).__name__}"
            for k, v in (("rtol", rtol), ("atol", atol))
            if v is not None
        )
        raise TypeError(
            f"linalg_{name.split('.')[-1]}() received an invalid combination of "
            f"arguments - got (Tensor, {kw}), but expected one of:"
        )
    out = []
    batch = A._shape[:-2]
    for nm, t in (("atol", atol), ("rtol", rtol)):
        if t is None:
            out.append(None)
            continue
        if isinstance(t, Tensor):
            if (
                t._requires_grad and name == "linalg.pinv"
            ):  # checked whatever the grad mode (PyTorch: only while recording)
                raise RuntimeError(
                    f"The function 'linalg_{name.split('.')[-1]}' is not differentiable with "
                    f"respect to argument '{nm}'. This input cannot have requires_grad True."
                )
            if t._dtype.is_complex:
                raise RuntimeError(
                    f"torch.{name}: {nm} tensor of complex type is not supported. Got {short_name(t._dtype)}"
                )
            batch = P.broadcast_error((batch, t._shape))
            out.append(t._value.astype(real.np))
        else:
            out.append(jnp.asarray(float(t), real.np))
    return out[0], out[1], tuple(batch)


def _tolerance(s_max, atol, rtol, default_rtol):
    """max(atol, rtol * s_max) with PyTorch's defaults (s_max: (...,) array)."""
    if rtol is None:
        rtol = default_rtol if atol is None else jnp.where(atol > 0, 0, default_rtol).astype(s_max.dtype)
    tol = rtol * s_max
    return tol if atol is None else jnp.maximum(atol, tol)


def _eps(A):
    return float(jnp.finfo(A._dtype.to_real().np).eps) * max(A._shape[-2], A._shape[-1])


# ---- pinv --------------------------------------------------------------------------------------------------
def _pinv_value(a, atol, rtol, hermitian, default_rtol):
    if hermitian:
        w, v = jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False)
        s = jnp.abs(w)
        smax = jnp.max(s, -1) if s.shape[-1] else jnp.zeros(s.shape[:-1], s.dtype)
        tol = _tolerance(smax, atol, rtol, default_rtol)
        inv = jnp.where(s > tol[..., None], 1 / jnp.where(s == 0, 1, w), 0).astype(a.dtype)
        return _mm(v * inv[..., None, :], _mh(v))
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    smax = s[..., 0] if s.shape[-1] else jnp.zeros(s.shape[:-1], s.dtype)
    tol = _tolerance(smax, atol, rtol, default_rtol)
    inv = jnp.where(s > tol[..., None], 1 / jnp.where(s == 0, 1, s), 0).astype(a.dtype)
    return _mm(_mh(vh) * inv[..., None, :], _mh(u))


@partial(jax.custom_jvp, nondiff_argnums=(3, 4))
def _pinv(a, atol, rtol, hermitian, default_rtol):
    return _pinv_value(a, atol, rtol, hermitian, default_rtol)


@_pinv.defjvp
def _pinv_jvp(hermitian, default_rtol, primals, tangents):
    """d pinv(A) at constant rank: -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P (PyTorch's
    pinv_backward is its transpose)."""
    a, atol, rtol = primals
    da = tangents[0]
    p = _pinv(a, atol, rtol, hermitian, default_rtol)
    ph, dah = _mh(p), _mh(da)
    t1 = -_mm(_mm(p, da), p)
    t2 = _mm(_mm(p, ph), dah) - _mm(_mm(_mm(p, ph), dah), _mm(a, p))
    t3 = _mm(dah, _mm(ph, p)) - _mm(_mm(p, a), _mm(dah, _mm(ph, p)))
    return p, t1 + t2 + t3


@partial(P.kernel, static=("hermitian", "default_rtol", "shape"))
def _pinv_k(a, atol, rtol, *, hermitian, default_rtol, shape):
    a = jnp.broadcast_to(a, shape)
    if a.size == 0:
        return jnp.zeros(shape[:-2] + (shape[-1], shape[-2]), a.dtype)
    return _pinv(a, atol, rtol, hermitian, default_rtol)


def _check_square_eigh(A):
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"linalg.eigh: A must be batches of square matrices, but they are {A._shape[-2]} by "
            f"{A._shape[-1]} matrices"
        )


def pinv_t(A, atol=None, rtol=None, hermitian=False):
    """`linalg.pinv` on Tensors (shared by torch.pinverse)."""
    if A.ndim < 2 or A._dtype not in _SVD_TYPES:
        raise RuntimeError(
            f"linalg.pinv({short_name(A._dtype)}{{{list(A._shape)}}}): expected a tensor with 2 "
            "or more dimensions of float, double, cfloat or cdouble types"
        )
    at, rt, batch = _tol_arrays("linalg.pinv", A, atol, rtol, None)
    if hermitian:
        _check_square_eigh(A)
    shape = batch + A._shape[-2:]
    r = _pinv_k(A._value, at, rt, hermitian=bool(hermitian), default_rtol=_eps(A), shape=shape)
    return P.fresh(r, A._dtype, A._storage.device)


def castable_out(name):
    def check(r, out):
        if not can_cast(r._dtype, out._dtype):
            raise RuntimeError(
                f"{name}: Expected result to be safely castable from {short_name(r._dtype)} "
                f"dtype, but got result with dtype {short_name(out._dtype)}"
            )

    return check


@register("linalg_pinv", function=False, method=False, kind="linalg")
@checked_out(castable_out("linalg.pinv"))
def linalg_pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """`torch.linalg.pinv(A, *, atol=None, rtol=None, hermitian=False, out=None)` (also the older
    `pinv(A, rcond, hermitian=False)`, rcond = rtol with atol = 0): the Moore-Penrose pseudo-inverse via the
    SVD (eigh of the lower triangle when hermitian). atol/rtol may be floats or broadcasting Tensors."""
    if rcond is not None:
        if rtol is not None:
            raise TypeError(
                "linalg_pinv() received an invalid combination of arguments - got (Tensor, "
                f"rtol={type(rtol).__name__}, rcond={type(rcond).__name__}), but expected one of:"
            )
        atol, rtol = (0.0 if not isinstance(rcond, Tensor) else None), rcond
    return pinv_t(input, atol, rtol, hermitian)


def pinverse_t(input, rcond=1e-15):
    """torch.pinverse(input, rcond) = linalg.pinv(input, rcond)."""
    return pinv_t(input, 0.0 if not isinstance(rcond, Tensor) else None, rcond, False)


# ---- matrix_rank -------------------------------------------------------------------------------------------
@partial(P.kernel, static=("hermitian", "default_rtol", "shape"))
def _rank_k(a, atol, rtol, *, hermitian, default_rtol, shape):
    if a.shape[-1] == 0 or a.shape[-2] == 0:
        return jnp.zeros(shape[:-2], jnp.int64)
    if hermitian:
        s = jnp.abs(jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False)[0])
        smax = jnp.max(s, -1)
    else:
        s = jnp.linalg.svd(a, compute_uv=False)
        smax = s[..., 0]
    tol = _tolerance(smax, atol, rtol, default_rtol)
    s = jnp.broadcast_to(s, shape[:-2] + s.shape[-1:])
    tol = jnp.broadcast_to(tol, shape[:-2])
    return jnp.sum(s > tol[..., None], -1).astype(jnp.int64)


@register("linalg_matrix_rank", function=False, method=False, kind="linalg")
@checked_out(castable_out("torch.linalg.matrix_rank"))
def linalg_matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None):
    """`torch.linalg.matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None)` (also the older
    `matrix_rank(A, tol, hermitian=False)`, tol = atol with rtol = 0): the number of singular values (|eigen
    values| when hermitian) above max(atol, rtol * largest); int64, no gradient. Syncs nothing."""
    if tol is not None:
        if atol is not None or rtol is not None:
            kw = ", ".join(
                f"{k}={type(v).__name__}" for k, v in (("atol", atol), ("rtol", rtol)) if v is not None
            )
            raise TypeError(
                "linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, "
                f"{kw}, tol={type(tol).__name__}), but expected one of:"
            )
        atol, rtol = tol, (0.0 if not isinstance(tol, Tensor) else None)
    if input.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if input._dtype not in _SVD_TYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")
    at, rt, batch = _tol_arrays("linalg.matrix_rank", input, atol, rtol, None)
    if isinstance(tol, Tensor) and rt is None:
        rt = jnp.zeros((), at.dtype)
    if hermitian:
        _check_square_eigh(input)
    r = _rank_k(
        input._value,
        at,
        rt,
        hermitian=bool(hermitian),
        default_rtol=_eps(input),
        shape=batch + input._shape[-2:],
    )
    return P.fresh(r, D.int64, input._storage.device)


# ---- cond --------------------------------------------------------------------------------------------------
@partial(P.kernel, static=("ord",))
def _cond_svd_k(a, *, ord):
    s = jnp.linalg.svd(a, compute_uv=False)
    if ord == "nuc":
        return jnp.sum(s, -1) * jnp.sum(1 / s, -1)
    return s[..., 0] / s[..., -1] if ord == 2 else s[..., -1] / s[..., 0]


@_fjit
def _masked_inv_k(a):
    inv, info = _inv_k(a)
    return jnp.where((info > 0)[..., None, None], jnp.asarray(math.inf, a.dtype), inv)


@_fjit
def _nan_to_inf_k(r):
    return jnp.where(jnp.isnan(r), jnp.asarray(math.inf, r.dtype), r)


def _cond_name(args, kwargs):
    p = arg(args, kwargs, 1, "p")
    if p is None or p in (2, -2):
        return "SqueezeBackward1"
    return "MulBackward0" if p == "nuc" else "NanToNumBackward0"


def _square_for(name, A):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {A._shape[-2]} by "
            f"{A._shape[-1]} matrices"
        )


@register("linalg_cond", function=False, method=False, kind="linalg", grad_name=_cond_name)
@checked_out(castable_out("linalg.cond"))
def linalg_cond(input, p=None):
    """`torch.linalg.cond(A, p=None, *, out=None)`: p in None/2/-2 (singular values, any shape), 'nuc'
    (sum(s) * sum(1/s)), 'fro', 1, -1, inf, -inf (norm(A) * norm(inv(A)); a singular matrix gives inf, as
    PyTorch). Empty matrices give 0. Differs: PyTorch's backward through a singular input with a norm-based p
    raises an in-place modification error; torchshim returns its (inf/nan) gradient."""
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        _square_for(f"linalg.cond(ord={p})", input)
    else:
        if input.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if p is not None and float(p) not in (1.0, -1.0, 2.0, -2.0, math.inf, -math.inf):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {fmt_number(p)}")
        if p is not None and abs(float(p)) != 2.0:
            _square_for(f"linalg.cond(ord={fmt_number(p)})", input)
    rdt = input._dtype.to_real()
    dev = input._storage.device
    if input.numel() == 0:
        return P.fresh(jnp.zeros(input._shape[:-2], rdt.np), rdt, dev)
    if p is None or p == "nuc" or (not isinstance(p, str) and abs(float(p)) == 2.0):
        check_floating("linalg.svd", input._dtype)
        if input._dtype not in _SVD_TYPES:
            raise not_implemented("linalg_svd_cpu", input._dtype)
        ord = "nuc" if p == "nuc" else (2 if p is None or float(p) > 0 else -2)
        return P.fresh(_cond_svd_k(input._value, ord=ord).astype(rdt.np), rdt, dev)
    check_floating("linalg.inv", input._dtype, low_precision=False)
    inv = P.fresh(_masked_inv_k(input._value), input._dtype, dev)
    r = matrix_norm_t(input, p) * matrix_norm_t(inv, p)
    return P.fresh(_nan_to_inf_k(r._value), rdt, dev)
