"""`torch.linalg` matrix functions and products: matrix_power, matrix_exp, cross (sharing the top-level ops'
implementations), vecdot, multi_dot (and the deprecated `torch.chain_matmul`), tensorinv, tensorsolve, vander,
diagonal, matmul. Norms are in `linalg_norms.py`; cond, matrix_rank, pinv in `linalg_spectral.py`."""

import math
import operator
from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import _fused
from .._promotion import c_name, short_name
from .._tensor import Tensor, _wrap_dim
from .._warnings import user_stacklevel, warn_once
from ..autograd._names import arg
from . import _dispatch as P
from . import linalg_legacy, linalg_matrix
from ._registry import installed, register
from .linalg import LinAlgError, _mm
from .linalg_norms import check_floating, typed_arg
from .movement import checked_out, same_dtype_out
from .._fused import jit as _fjit

__all__ = ["multi_dot_t"]


# ---- shared with the top-level spellings ------------------------------------------------------------------
@register(
    "linalg_matrix_power",
    function=False,
    method=False,
    kind="linalg",
    grad_name=linalg_matrix._matrix_power_name,
)
@checked_out(same_dtype_out)
@typed_arg("linalg_matrix_power", "n", 1, lambda n: isinstance(n, int) and not isinstance(n, bool), "int")
def linalg_matrix_power(A, n):
    """`torch.linalg.matrix_power(A, n, *, out=None)` (the implementation of `torch.matrix_power`): repeated
    squaring; n < 0 inverts first (LinAlgError for singular A, checked eagerly outside tracing)."""
    return linalg_matrix.matrix_power(A, n)


@register("linalg_matrix_exp", function=False, method=False, kind="linalg")
def linalg_matrix_exp(A):
    """`torch.linalg.matrix_exp(A)` (the implementation of `torch.matrix_exp`): `jax.scipy.linalg.expm`;
    gradient the Fréchet derivative (jax's)."""
    return linalg_legacy.matrix_exp(A)


@register("linalg_cross", function=False, method=False, kind="linalg")
@checked_out(same_dtype_out)
def linalg_cross(input, other, *, dim=-1):
    """`torch.linalg.cross(input, other, *, dim=-1, out=None)`: operands of equal ndim broadcast; dim must
    have length 3 in both (shares `torch.cross`'s implementation)."""
    return linalg_matrix.cross(input, other, dim)


@register("linalg_diagonal", function=False, method=False, kind="composite")
def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """`torch.linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1)`: `torch.diagonal` (a view) with the matrix
    dims last by default."""
    return installed("diagonal")(A, offset, dim1, dim2)


@register("linalg_matmul", function=False, method=False, kind="composite")
def linalg_matmul(input, other, *, out=None):
    """`torch.linalg.matmul(input, other, *, out=None)`: `torch.matmul`."""
    return installed("matmul")(input, other, out=out)


# ---- vecdot ------------------------------------------------------------------------------------------------
@partial(P.kernel, static=("dim", "shape"))
def _vecdot_k(x, y, *, dim, shape):
    x, y = jnp.broadcast_to(x, shape), jnp.broadcast_to(y, shape)
    return jnp.sum(jnp.conj(x) * y, dim)


def _vecdot_name(args, kwargs):
    x, y = arg(args, kwargs, 0, "x"), arg(args, kwargs, 1, "y")
    return "VdotBackward0" if x.ndim == 1 and y.ndim == 1 else "SumBackward1"


def _vecdot_out(r, out):
    if out._dtype is not r._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected out of dtype{short_name(r._dtype)} but found {short_name(out._dtype)}"
        )


@register("linalg_vecdot", function=False, method=False, kind="linalg", grad_name=_vecdot_name)
@checked_out(_vecdot_out)
def linalg_vecdot(x, y, *, dim=-1):
    """`torch.linalg.vecdot(x, y, *, dim=-1, out=None)`: sum(conj(x) * y) over dim, operands broadcast;
    floating/complex of one dtype."""
    check_floating("linalg.vecdot", x._dtype)
    if x._dtype is not y._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{short_name(x._dtype)} and y of type {short_name(y._dtype)} instead"
        )
    if x.ndim == 1 and y.ndim == 1 and x._shape != y._shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x._shape[0]}] and src [{y._shape[0]}] "
            f"to have the same number of elements, but got {x._shape[0]} and {y._shape[0]} "
            "elements respectively"
        )
    shape = tuple(P.broadcast_error((x._shape, y._shape)))
    d = _wrap_dim(dim, len(shape)) if shape else None
    return P.fresh(_vecdot_k(x._value, y._value, dim=d, shape=shape), x._dtype, x._storage.device)


# ---- multi_dot / chain_matmul ------------------------------------------------------------------------------
def _order(dims):
    """PyTorch's multi_dot order: the cheaper of the two for 3 matrices, else the classic DP; a nested tuple
    of    matrix indices."""
    n = len(dims) - 1
    if n == 2:
        return (0, 1)
    if n == 3:
        a, b, c, d = dims
        return ((0, 1), 2) if a * b * c + a * c * d < b * c * d + a * b * d else (0, (1, 2))
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for ln in range(1, n):
        for i in range(n - ln):
            j = i + ln
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def build(i, j):
        if i == j:
            return i
        k = split[i][j]
        return (build(i, k), build(k + 1, j))

    return build(0, n - 1)


@partial(P.kernel, static=("order", "squeeze"))
def _chain_k(*mats, order, squeeze):
    def ev(o):
        return mats[o] if isinstance(o, int) else _mm(ev(o[0]), ev(o[1]))

    r = ev(order)
    if squeeze[1]:
        r = r[..., 0]
    if squeeze[0]:
        r = r[..., 0, :] if r.ndim == 2 else r[0]
    return r


def multi_dot_t(tensors, name="multi_dot"):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    dt = first._dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._dtype is not dt:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {c_name(dt)} "
                f"and tensor {i} {c_name(t._dtype)}"
            )
    vals = [t._value for t in tensors]
    squeeze = (first.ndim == 1, last.ndim == 1)
    if squeeze[0]:
        vals[0] = vals[0][None, :]
    if squeeze[1]:
        vals[-1] = vals[-1][:, None]
    for i in range(n - 1):
        if vals[i].shape[1] != vals[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i]._shape)} and "
                f"{list(tensors[i + 1]._shape)} cannot be multiplied"
            )
    dims = tuple(v.shape[0] for v in vals) + (vals[-1].shape[1],)
    r = _chain_k(*vals, order=_order(dims), squeeze=squeeze)
    return P.fresh(r, dt, first._storage.device)


def _multi_dot_out(r, out):
    if out._dtype is not r._dtype:
        raise RuntimeError(
            f"multi_dot(): expected out tensor to have dtype {c_name(r._dtype)} but got {c_name(out._dtype)}"
        )


@register("linalg_multi_dot", function=False, method=False, kind="linalg", grad_name="ViewBackward0")
@checked_out(_multi_dot_out)
def linalg_multi_dot(tensors):
    """`torch.linalg.multi_dot(tensors, *, out=None)`: the chain product in PyTorch's cheapest order; the
    first    / last tensor may be 1-D (a row / column vector, squeezed from the result)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    return multi_dot_t(list(tensors))


_CHAIN_WARN = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
    "multiple parameters. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1102.)"
)


def _chain_name(args, kwargs):
    return "CloneBackward0" if len(args) == 1 else "ViewBackward0"


@P.kernel
def _copy_k(a):
    return a + jnp.zeros((), a.dtype)


@register("chain_matmul", method=False, kind="linalg", grad_name=_chain_name)
@checked_out(_multi_dot_out)
def chain_matmul(*matrices):
    """`torch.chain_matmul(*matrices, out=None)` (deprecated; warns once): `linalg.multi_dot` of 2-D matrices
    (one matrix: a copy)."""
    warn_once(_CHAIN_WARN, UserWarning, stacklevel=user_stacklevel())
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return P.fresh(_copy_k(matrices[0]._value), matrices[0]._dtype, matrices[0]._storage.device)
    return multi_dot_t(list(matrices))


# ---- tensorinv / tensorsolve -------------------------------------------------------------------------------
def _prod(shape):
    r = 1
    for s in shape:
        r *= s
    return r


@register("linalg_tensorinv", function=False, method=False, kind="linalg", grad_name="ReshapeAliasBackward0")
@checked_out(lambda r, out: None)
def linalg_tensorinv(A, ind=2):
    """`torch.linalg.tensorinv(A, ind=2, *, out=None)`: the inverse of A seen as a prod(shape[:ind]) x
    prod(shape[ind:]) matrix, shaped shape[ind:] + shape[:ind]. Singular input: LinAlgError (checked eagerly,
    skipped under tracing)."""
    ind = operator.index(ind)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _prod(A._shape[:ind]), _prod(A._shape[ind:])
    if rows != cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    check_floating("linalg.inv", A._dtype)
    m = P.fresh(A._value.reshape(rows, cols), A._dtype, A._storage.device)
    inv = linalg_matrix._inverse(m, "inv")
    return P.fresh(inv._value.reshape(A._shape[ind:] + A._shape[:ind]), A._dtype, A._storage.device)


@_fjit
def _solve_k(a, b):
    lu = jax.lax.linalg.lu(a)[0]
    singular = jnp.any(jnp.diagonal(lu) == 0)
    return jnp.linalg.solve(a, b), singular


@register("linalg_tensorsolve", function=False, method=False, kind="linalg", grad_name="ViewBackward0")
@checked_out(lambda r, out: None)
def linalg_tensorsolve(A, B, dims=None):
    """`torch.linalg.tensorsolve(A, B, dims=None, *, out=None)`: X with tensordot(A, X, X.ndim) = B (dims of A
    moved last first). Singular systems raise LinAlgError (checked eagerly, skipped under tracing)."""
    a = _fused.concrete(A._value)  # arranged eagerly below, and the singularity check reads the host anyway
    if dims is not None:
        dims = [_wrap_dim(d, A.ndim) for d in ((dims,) if isinstance(dims, int) else dims)]
        a = jnp.moveaxis(a, dims, range(A.ndim - len(dims), A.ndim))
    shape = a.shape
    k = B.ndim
    rows, cols = _prod(shape[:k]), _prod(shape[k:])
    if rows != cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {cols} != {rows}"
        )
    check_floating("linalg.solve", A._dtype)
    x, singular = _solve_k(a.reshape(rows, cols), B._value.reshape(rows).astype(a.dtype))
    if not isinstance(singular, jax.core.Tracer) and bool(singular):
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    return P.fresh(x.reshape(shape[k:]), A._dtype, A._storage.device)


# ---- vander ------------------------------------------------------------------------------------------------
@partial(P.kernel, static=("n", "dt"))
def _vander_k(x, *, n, dt):
    x = x.astype(dt)
    pw = jnp.cumprod(jnp.broadcast_to(x[..., None], x.shape + (n - 1,)), -1)
    return jnp.concatenate([jnp.ones(x.shape + (1,), dt), pw], -1)


@register("linalg_vander", function=False, method=False, kind="linalg", grad_name="CatBackward0")
def linalg_vander(x, *, N=None):
    """`torch.linalg.vander(x, *, N=None)`: columns x^0 ... x^(N-1) (N defaults to x.shape[-1]); integer
    inputs give int64."""
    if x._dtype is D.bool_:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got Bool"
        )
    n = (x._shape[-1] if x.ndim else 1) if N is None else N
    if n < 2:
        raise RuntimeError("N must be greater than 1.")
    dt = D.int64 if not (x._dtype.is_floating_point or x._dtype.is_complex) else x._dtype
    v = x._value if x.ndim else x._value.reshape(1)  # a 0-dim x is one point: a (1, N) result, as PyTorch
    return P.fresh(_vander_k(v, n=int(n), dt=dt.np), dt, x._storage.device)
