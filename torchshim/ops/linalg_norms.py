"""`torch.linalg` norms: vector_norm, matrix_norm, norm (and the deprecated top-level `frobenius_norm`,
`nuclear_norm`); `torch.norm` (ops/reduction.py) and `linalg.cond` (linalg_spectral.py) share these
implementations.

Every norm is one jitted kernel (dims, ord, keepdim, dtypes static). Vector norms differentiate with PyTorch's
conventions at 0 and at ties (`_subgrad.vector_norm`); the spectral norms (2, -2, 'nuc') call
`jnp.linalg.svd` directly, so their gradients are those of the singular values (well defined for distinct
singular values, like PyTorch's svd backward)."""

import functools
import math
import operator
from functools import partial

import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import promote_types, short_name
from .._tensor import _wrap_dim
from .._warnings import user_stacklevel, warn_once
from ..autograd._names import arg
from . import _dispatch as P
from . import _subgrad as S
from ._registry import register
from .movement import checked_out, same_dtype_out
from .reduction import dims_of, is_intlike

__all__ = ["vector_norm_t", "matrix_norm_t", "fmt_number", "check_floating"]

_LOW = (D.float16, D.bfloat16)


def fmt_number(x):
    """A number as C++'s stream prints a double (`3`, `3.5`, `inf`, `-inf`)."""
    x = float(x)
    return ("-inf" if x < 0 else "inf") if math.isinf(x) else f"{x:g}"


def check_floating(name, d, low_precision=True):
    """ATen's checkFloatingOrComplex."""
    if is_intlike(d):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {short_name(d)}"
        )
    if not low_precision and d in _LOW:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {short_name(d)}")


def _check_dtype_arg(name, dtype, xd):
    if dtype is None:
        return
    if is_intlike(dtype):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {short_name(dtype)}")
    if dtype.is_complex != xd.is_complex:
        kind = "complex for complex" if xd.is_complex else "real for real"
        raise RuntimeError(f"{name}: dtype should be {kind} inputs, but got {short_name(dtype)}")
    if promote_types(dtype, xd) is not dtype:
        raise RuntimeError(
            f"{name}: the dtype of the input ({short_name(xd)}) should be convertible without "
            f"narrowing to the specified dtype ({short_name(dtype)})"
        )


# ---- vector norm -------------------------------------------------------------------------------------------
@partial(P.kernel, static=("p", "dims", "keepdim", "cdt", "rdt"))
def _vnorm_k(a, *, p, dims, keepdim, cdt, rdt):
    a = a.astype(cdt)
    if a.dtype in (jnp.float16, jnp.bfloat16):
        a = a.astype(jnp.float32)
    return S.vector_norm(a, p, dims, keepdim).astype(rdt)  # PyTorch's norm_backward conventions at 0 and ties


def _ord_text(p):
    return repr(p) if math.isinf(p) or p != int(p) else str(int(p))


def vector_norm_t(input, ord=2, dim=None, keepdim=False, dtype=None):
    """`linalg.vector_norm` on Tensors (shared by torch.norm and the matrix norms)."""
    d = input._dtype
    check_floating("linalg.vector_norm", d)
    _check_dtype_arg("linalg.vector_norm", dtype, d)
    p = float(ord)
    dims = dims_of(dim, input.ndim)
    if p < 0 or p == math.inf:
        if input.numel() == 0:
            given = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
            if not given:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {_ord_text(p)} norm on an empty "
                    "tensor because the operation does not have an identity"
                )
            for k in given:
                if input._shape[_wrap_dim(k, input.ndim)] == 0:
                    raise RuntimeError(
                        f"linalg.vector_norm cannot compute the {_ord_text(p)} norm on the "
                        f"dimension {k}because this dimension is empty and the operation does "
                        "not have an identity"
                    )
    cdt = dtype or d
    rdt = cdt.to_real()
    r = _vnorm_k(input._value, p=p, dims=dims, keepdim=bool(keepdim), cdt=cdt.np, rdt=rdt.np)
    return P.fresh(r, rdt, input._storage.device)


def typed_arg(fname, name, pos, check, type_name):
    """PyTorch's argument-parser TypeError for parameter `name` (positional index `pos`) when `check(value)`
    fails: "f(): argument 'n' (position 2) must be int, not float" (no position when passed by keyword)."""

    def deco(fn):
        @functools.wraps(fn)
        def f(*args, **kwargs):
            by_pos = len(args) > pos
            if by_pos or name in kwargs:
                v = args[pos] if by_pos else kwargs[name]
                if not check(v):
                    where = f" (position {pos + 1})" if by_pos else ""
                    raise TypeError(
                        f"{fname}(): argument '{name}'{where} must be {type_name}, not {type(v).__name__}"
                    )
            return fn(*args, **kwargs)

        return f

    return deco


def _is_number(v):
    return isinstance(v, (int, float)) or hasattr(v, "__float__") and not isinstance(v, str)


@register("linalg_vector_norm", function=False, method=False, kind="reduction")
@checked_out(same_dtype_out)
@typed_arg("linalg_vector_norm", "ord", 1, _is_number, "Number")
def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """`torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None)`: the ord-norm
    of x over dim (all dims when None or ()); complex inputs give real results; half types accumulate in
    float32. Gradient at 0 is 0 (PyTorch's convention)."""
    return vector_norm_t(x, ord, dim, keepdim, dtype)


# ---- matrix norm -------------------------------------------------------------------------------------------
def _svdvals(m):
    return jnp.linalg.svd(m, compute_uv=False)


@partial(P.kernel, static=("ord", "dims", "keepdim", "rdt"))
def _mnorm_k(a, *, ord, dims, keepdim, rdt):
    """The spectral/'nuc' norms (dims moved last, svd) and the ±1/±inf norms (abs sums, then max/min)."""
    if a.dtype in (jnp.float16, jnp.bfloat16):
        a = a.astype(jnp.float32)
    if ord in ("nuc", 2.0, -2.0):
        m = jnp.moveaxis(a, dims, (-2, -1))
        s = _svdvals(m).astype(rdt)
        r = jnp.sum(s, -1) if ord == "nuc" else jnp.max(s, -1) if ord > 0 else jnp.min(s, -1)
        return jnp.expand_dims(r, dims) if keepdim else r
    d0, d1 = dims
    if abs(ord) == math.inf:
        d0, d1 = d1, d0
    col = S.vector_norm(a, 1.0, (d0,), keepdim).astype(rdt)
    if not keepdim and d0 < d1:
        d1 -= 1
    if col.shape[d1] == 0:  # amax of an empty dim: zeros (amin raised before)
        return jnp.zeros(col.shape[:d1] + ((1,) if keepdim else ()) + col.shape[d1 + 1 :], rdt)
    return jnp.max(col, d1, keepdims=keepdim) if ord > 0 else jnp.min(col, d1, keepdims=keepdim)


def _matrix_dims(input, dim):
    if isinstance(dim, int):
        raise TypeError(
            "linalg_matrix_norm() received an invalid combination of arguments - got (Tensor, "
            "dim=int), but expected one of:"
        )
    given = tuple(operator.index(k) for k in dim)
    if len(given) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, given))}")
    dims = tuple(_wrap_dim(k, input.ndim) for k in given)
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    return dims


def matrix_norm_t(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    """`linalg.matrix_norm` on Tensors (shared by torch.norm, linalg.norm, nuclear_norm, linalg.cond)."""
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        low = ord != "nuc"
    else:
        if abs(float(ord)) not in (1.0, 2.0, math.inf):
            raise RuntimeError(f"linalg.matrix_norm: Order {fmt_number(ord)} not supported.")
        ord = float(ord)
        low = abs(ord) != 2.0
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    check_floating("linalg.matrix_norm", A._dtype, low)
    dims = _matrix_dims(A, dim)
    _check_dtype_arg("linalg.matrix_norm", dtype, A._dtype)
    if ord == "fro":
        return vector_norm_t(A, 2, dims, keepdim, dtype)
    x = A if dtype is None else A.to(dtype)
    rdt = x._dtype.to_real()
    shape = x._shape
    if ord in (-2.0, -1.0, -math.inf):  # amin over an empty dim raises
        if ord == -2.0:
            if min(shape[dims[0]], shape[dims[1]]) == 0:
                raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
        else:
            d0, d1 = dims if ord == -1.0 else dims[::-1]
            if shape[d1] == 0:
                raise IndexError(
                    f"amin(): Expected reduction dim {d1 - (not keepdim and d0 < d1)} to have non-zero size."
                )
    if ord in ("nuc", 2.0) and 0 in (shape[dims[0]], shape[dims[1]]):
        rshape = (
            tuple(1 if i in dims else s for i, s in enumerate(shape))
            if keepdim
            else tuple(s for i, s in enumerate(shape) if i not in dims)
        )
        return P.fresh(jnp.zeros(rshape, rdt.np), rdt, A._storage.device)
    r = _mnorm_k(x._value, ord=ord, dims=dims, keepdim=bool(keepdim), rdt=rdt.np)
    return P.fresh(r, rdt, A._storage.device)


def exact_out(name):
    """out= of the CompositeImplicit linalg norms: exactly the result's dtype, PyTorch's message."""

    def check(r, out):
        if out._dtype is not r._dtype:
            raise RuntimeError(
                f"{name} expected out tensor dtype {short_name(r._dtype)} but got: {short_name(out._dtype)}"
            )

    return check


def _matrix_norm_name(args, kwargs):
    o = arg(args, kwargs, 1, "ord", "fro")
    if o == "fro":
        return "LinalgVectorNormBackward0"
    if o == "nuc":
        return "SumBackward1"
    return "AmaxBackward0" if float(o) > 0 else "AminBackward0"


@register("linalg_matrix_norm", function=False, method=False, kind="reduction", grad_name=_matrix_norm_name)
@checked_out(exact_out("linalg.matrix_norm"))
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """`torch.linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None)`:
    ord in 'fro', 'nuc', inf, -inf, 1, -1, 2, -2 over the two dims; 'nuc'/±2 via the singular values
    (`jnp.linalg.svd`; no half types, like PyTorch)."""
    return matrix_norm_t(A, ord, dim, keepdim, dtype)


def _norm_dims(X, ord, dim):
    """linalg.norm's routing: (matrix?, dims)."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}"
            )
    elif ord is not None and X.ndim not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {X.ndim}D."
        )
    else:
        dims = None
    if isinstance(ord, str):
        return True, dims if dims is not None else (0, 1)
    if ord is not None and ((dims is not None and len(dims) == 2) or (dims is None and X.ndim == 2)):
        return True, dims if dims is not None else (0, 1)
    return False, dims


def _linalg_norm_name(args, kwargs):
    X, o = arg(args, kwargs, 0, "input"), arg(args, kwargs, 1, "ord")
    matrix, dims = _norm_dims(X, o, arg(args, kwargs, 2, "dim"))
    return _matrix_norm_name((X, o), {}) if matrix else "LinalgVectorNormBackward0"


@register("linalg_norm", function=False, method=False, kind="reduction", grad_name=_linalg_norm_name)
@checked_out(exact_out("linalg.norm"))
def linalg_norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """`torch.linalg.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None)`: a matrix norm when
    ord is given and dim has 2 entries (or A is 2-D without dim), else a vector norm (ord None: 2-norm of the
    flattened input)."""
    matrix, dims = _norm_dims(input, ord, dim)
    if matrix:
        return matrix_norm_t(input, ord, dims, keepdim, dtype)
    return vector_norm_t(input, 2.0 if ord is None else ord, dims, keepdim, dtype)


# ---- deprecated top-level spellings ------------------------------------------------------------------------
_FRO_WARN = (
    "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed "
    "in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead"
    " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3175.)"
)
_NUC_WARN = (
    "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed "
    "in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead"
    " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3229.)"
)


@register("frobenius_norm", method=False, kind="reduction", grad_name="NormBackward1")
@checked_out(same_dtype_out)
def frobenius_norm(input, dim, keepdim=False):
    """`torch.frobenius_norm(input, dim, keepdim=False, *, out=None)` (deprecated, warns once): the 2-norm
    over at most 2 dims."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    warn_once(_FRO_WARN, UserWarning, stacklevel=user_stacklevel())
    if is_intlike(input._dtype):
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got "
            f"{short_name(input._dtype)} instead."
        )
    return vector_norm_t(input, 2, dims, keepdim)


@register("nuclear_norm", method=False, kind="reduction", grad_name="SumBackward1")
@checked_out(exact_out("linalg.matrix_norm"))
def nuclear_norm(input, dim=None, keepdim=False):
    """`torch.nuclear_norm(input, keepdim=False, *, out=None)` / `nuclear_norm(input, dim, keepdim=False, *,
    out=None)` (deprecated, warns once): the sum of singular values over dim (default the last two)."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    warn_once(_NUC_WARN, UserWarning, stacklevel=user_stacklevel())
    return matrix_norm_t(input, "nuc", (-2, -1) if dim is None else dim, keepdim)
