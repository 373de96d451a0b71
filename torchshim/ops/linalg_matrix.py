"""Matrix functions: inverse, det, logdet, slogdet, the removed `solve`, cross, cdist, matrix_power,
pinverse (singular inputs raise `LinAlgError` where PyTorch does)."""
import math

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import return_types
from .._promotion import can_cast, short_name
from .._tensor import _wrap_dim
from .._warnings import warn_once
from ..autograd._names import arg, complex_input
from . import _dispatch as P
from ._registry import register
from .movement import checked_out, not_implemented, same_dtype_out
from .linalg import _LOW, _mm, _new, mm_precision
from .._fused import jit as _fjit


# ---- inverse / det / logdet / slogdet / solve ------------------------------------------------------------
def _check_square(name, t):
    if t.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if t._shape[-1] != t._shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {t._shape[-2]} by "
                           f"{t._shape[-1]} matrices")
    if not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{short_name(t._dtype)}")
    if t._dtype.np in _LOW:
        raise not_implemented("lu_cpu", t._dtype)


@_fjit
def _inv_k(a):
    if a.size == 0:
        return a, jnp.zeros(a.shape[:-2], jnp.int32)
    lu = jax.lax.linalg.lu(a)[0]
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    info = jnp.where(jnp.any(zero, -1), jnp.argmax(zero, -1) + 1, 0)
    return jnp.linalg.inv(a), info


def _inverse(input, name="linalg.inv"):
    from .linalg_solvers import inv_value  # torch.linalg.inv's checks and LinAlgError (one implementation)
    return inv_value(name, input, True)[0]


@register("inverse", kind="linalg", grad_name="LinalgInvExBackward0")
@checked_out(same_dtype_out)
def inverse(input):
    """`torch.inverse(input, *, out=None)` (= torch.linalg.inv): singular inputs raise `_LinAlgError` (a
    RuntimeError) with PyTorch's message; the check reads the LU pivots eagerly (skipped under tracing)."""
    return _inverse(input)


@P.kernel
def _det_k(a):
    return jnp.linalg.det(a)


@register("det", kind="linalg", grad_name="LinalgDetBackward0")
def det(input):
    """`torch.det(input)` (= torch.linalg.det) of a square matrix or batch."""
    _check_square("linalg.det", input)
    return _new(_det_k(input._value), input._dtype, input)


@P.kernel
def _slogdet_k(a):
    sign, logabs = jnp.linalg.slogdet(a)
    return sign.astype(a.dtype), logabs


@P.kernel
def _logdet_k(a):
    sign, logabs = jnp.linalg.slogdet(a)
    if jnp.iscomplexobj(a):
        return (logabs + jnp.log(sign)).astype(a.dtype)
    return jnp.where(sign < 0, jnp.nan, logabs).astype(a.dtype)


slogdet_result = return_types.slogdet


@register("slogdet", kind="linalg", grad_name="LinalgSlogdetBackward0")
@checked_out(same_dtype_out)
def slogdet(input):
    """`torch.slogdet(input, *, out=None)` -> (sign, logabsdet); a singular matrix gives (0, -inf)."""
    _check_square("linalg.slogdet", input)
    sign, logabs = _slogdet_k(input._value)
    return slogdet_result((_new(sign, input._dtype, input), _new(logabs, input._dtype.to_real(), input)))


@register("logdet", kind="linalg", grad_name=complex_input("AddBackward0", "WhereBackward0"))
def logdet(input):
    """`torch.logdet(input)`: log det; NaN for a negative determinant, -inf for a singular matrix."""
    _check_square("logdet", input)
    return _new(_logdet_k(input._value), input._dtype, input)


_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor "
    "of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU "
    "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` "
    "or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = "
    "torch.linalg.solve(A, B)")


@register("solve", kind="linalg")
def solve(input, A, *, out=None):
    """`torch.solve(B, A)`: removed in PyTorch 2.x, where it always raises RuntimeError; so does torchshim.

    The 0.x/1.x behaviour ((solution, LU)) would contradict PyTorch 2.13, so it is not provided, and neither
    is the older `torch.gesv` name (absent from PyTorch 2.13). Use `torch.linalg.solve(A, B)`."""
    raise RuntimeError(_SOLVE_REMOVED)


# ---- cross / cdist / matrix_power / pinverse -------------------------------------------------------------


@P.kernel(static=("dim", "shape"))
def _cross_k(a, b, dim, shape):
    return jnp.cross(jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape), axis=dim)


@register("cross", kind="linalg", grad_name="LinalgCrossBackward0")
@checked_out(same_dtype_out)
def cross(input, other, dim=None):
    """`torch.cross(input, other, dim=None, *, out=None)`: without dim, the first dim of size 3 (deprecated;
    warns once per process, like PyTorch). Operands broadcast; dtypes must match."""
    if dim is None:
        warn_once("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                  "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change "
                  "to agree with that of linalg.cross in a future release.", UserWarning, stacklevel=3)
        dim = next((i for i, s in enumerate(input._shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input.ndim)
    if input._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._shape[d]} "
                           f"and {other._shape[d]}")
    shape = P.broadcast_error((input._shape, other._shape))
    if input._dtype is not other._dtype:
        raise RuntimeError(f"expected scalar type {short_name(input._dtype)} but found "
                           f"{short_name(other._dtype)}")
    if input._dtype is D.bool_:
        raise not_implemented("cross", input._dtype)
    return _new(_cross_k(input._value, other._value, dim=d, shape=shape), input._dtype, input)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@P.kernel(static=("p", "use_mm", "batch"))
def _cdist_k(x1, x2, p, use_mm, batch):
    x1 = jnp.broadcast_to(x1, batch + x1.shape[-2:])
    x2 = jnp.broadcast_to(x2, batch + x2.shape[-2:])
    if use_mm:
        n1 = jnp.sum(x1 * x1, -1, keepdims=True)
        n2 = jnp.sum(x2 * x2, -1, keepdims=True)
        a = jnp.concatenate([-2 * x1, n1, jnp.ones_like(n1)], -1)
        b = jnp.concatenate([x2, jnp.ones_like(n2), n2], -1)
        r = jnp.matmul(a, jnp.swapaxes(b, -1, -2), precision=mm_precision(a.dtype))
        return jnp.sqrt(jnp.maximum(r, 0))
    d = jnp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return jnp.sum(d != 0, -1).astype(x1.dtype)
    if p == math.inf:
        return jnp.max(d, -1, initial=0)
    if p == 1:
        return jnp.sum(d, -1)
    if p == 2:
        return jnp.sqrt(jnp.sum(d * d, -1))
    return jnp.sum(d ** p, -1) ** (1.0 / p)


@register("cdist", method=False, kind="linalg")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """`torch.cdist(x1, x2, p=2.0, compute_mode=...)`: p-norm distances between row sets (batch dims
    broadcast).

    p == 2 uses PyTorch's matmul formula when compute_mode asks for it (default: either side has > 25
    rows)."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for nm, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {nm} got: {x.ndim}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: "
                           f"{x2._shape[-1]}")
    for nm, x in (("X1", x1), ("X2", x2)):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {nm} got: {short_name(x._dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = P.broadcast_error((x1._shape[:-2], x2._shape[:-2]))
    if x1._dtype is not x2._dtype:
        raise RuntimeError(f"expected scalar type {short_name(x1._dtype)} but found {short_name(x2._dtype)}")
    if x1._dtype.np in _LOW:
        raise not_implemented("cdist", x1._dtype)
    mode = _CDIST_MODES[compute_mode]
    r1, r2 = x1._shape[-2], x2._shape[-2]
    use_mm = p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    return _new(_cdist_k(x1._value, x2._value, p=float(p), use_mm=use_mm, batch=batch), x1._dtype, x1)


@P.kernel(static=("n",))
def _mpow_k(a, n):
    if n == 0:
        return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n <= 3:
        r = a
        for _ in range(n - 1):
            r = _mm(r, a)
        return r
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else _mm(z, z)
        if bit:
            result = z if result is None else _mm(result, z)
    return result


def _mpow_out(r, out):
    if not can_cast(r._dtype, out._dtype):
        raise RuntimeError(f"matrix_power: Expected result to be safely castable from {short_name(r._dtype)} "
                           f"dtype, but got result with dtype {short_name(out._dtype)}")
    same_dtype_out(r, out)


def _matrix_power_name(args, kwargs):
    a, n = arg(args, kwargs, 0, "input"), arg(args, kwargs, 1, "n")
    if n == 0:
        return "CopyBackwards"
    if n == 1:
        return "CloneBackward0"
    if n == -1:
        return "LinalgInvExBackward0"
    return "MmBackward0" if a.ndim == 2 else "UnsafeViewBackward0"


@register("matrix_power", kind="linalg", grad_name=_matrix_power_name)
@checked_out(_mpow_out)
def matrix_power(input, n):
    """`torch.matrix_power(input, n, *, out=None)`: n-th power by repeated squaring; n < 0 inverts first."""
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if input._shape[-1] != input._shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input._shape[-2]} by {input._shape[-1]} matrices")
    if n < 0:
        input, n = _inverse(input), -n
    return _new(_mpow_k(input._value, n=int(n)), input._dtype, input)


@register("pinverse", kind="linalg", grad_name="LinalgPinvBackward0")
def pinverse(input, rcond=1e-15):
    """`torch.pinverse(input, rcond=1e-15)`: Moore-Penrose pseudo-inverse via SVD (singular values <= rcond *
    max are dropped; rcond may be a Tensor): torch.linalg.pinv's implementation (ops/linalg_spectral.py)."""
    from .linalg_spectral import pinverse_t
    return pinverse_t(input, rcond)
