"""The deprecated top-level linear algebra of PyTorch 1.x that 2.13 still has: `cholesky`, `cholesky_inverse`,
`cholesky_solve`, `triangular_solve`, `matrix_exp` (the `torch.linalg` namespace itself is a later issue)."""
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl

from .. import return_types
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import fresh
from ._registry import register
from .._fused import jit as _fjit

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "triangular_solve", "matrix_exp"]

_WARNED = set()


def _warn_once(key, msg):
    """PyTorch's TORCH_WARN_ONCE: the first call in the process warns."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(msg, UserWarning, stacklevel=4)


def _square(name, x, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {type(x).__name__}")
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg[0].upper()} must have at least 2 dimensions.")
    if x._shape[-1] != x._shape[-2]:
        raise RuntimeError(f"{name}: {arg[0].upper()} must be batches of square matrices, but they are "
                           f"{x._shape[-2]} by {x._shape[-1]} matrices")
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{short_name(x._dtype)}")


def _mh(a):
    return jnp.conj(jnp.swapaxes(a, -1, -2))


@register("cholesky", out=True, kind="linalg")
def cholesky(input, upper=False):
    """`torch.cholesky(input, upper=False, *, out=None)` (deprecated in PyTorch): the Cholesky factor of a
    symmetric (Hermitian) positive-definite matrix, lower (or upper) triangular; one that is not
    positive-definite raises LinAlgError (a host sync, as PyTorch). Shares torch.linalg.cholesky's code."""
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
               "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
               "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\n"
               "U = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for all "
               "valid (symmetric positive definite) inputs.")
    if isinstance(input, Tensor) and not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{short_name(input._dtype)}'")
    _square("cholesky", input, "A")
    from .linalg_decompositions import cholesky_value
    return cholesky_value("cholesky", input, upper)[0]


@P.kernel(static=("upper",))
def _cholesky_inverse_k(f, upper):
    lo = _mh(f) if upper else f
    eye = jnp.broadcast_to(jnp.eye(f.shape[-1], dtype=f.dtype), f.shape)
    inv_lo = jsl.solve_triangular(lo, eye, lower=True)
    return _mh(inv_lo) @ inv_lo


@register("cholesky_inverse", out=True, kind="linalg")
def cholesky_inverse(input, upper=False):
    """`torch.cholesky_inverse(L, upper=False, *, out=None)`: the inverse of A = L L^H (or U^H U) from its
    Cholesky factor."""
    _square("cholesky_inverse", input)
    return fresh(_cholesky_inverse_k(input._value, upper=bool(upper)), input._dtype, input._storage.device)


@P.kernel(static=("upper",))
def _cholesky_solve_k(b, f, upper):
    lo = _mh(f) if upper else f
    shape = jnp.broadcast_shapes(b.shape[:-2], f.shape[:-2])
    lo = jnp.broadcast_to(lo, shape + lo.shape[-2:])
    b = jnp.broadcast_to(b, shape + b.shape[-2:])
    y = jsl.solve_triangular(lo, b, lower=True)
    return jsl.solve_triangular(lo, y, lower=True, trans="C")


@register("cholesky_solve", out=True, kind="linalg")
def cholesky_solve(input, input2, upper=False):
    """`torch.cholesky_solve(B, L, upper=False, *, out=None)`: X with A X = B, A = L L^H (or U^H U)."""
    _square("cholesky_solve", input2)
    if input._dtype is not input2._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{short_name(input._dtype)} and A of type {short_name(input2._dtype)} instead.")
    out = _cholesky_solve_k(input._value, input2._value, upper=bool(upper))
    return fresh(out, input._dtype, input._storage.device)


def _tri_solve(a, b, upper, left, unit, trans):
    shape = jnp.broadcast_shapes(b.shape[:-2], a.shape[:-2])
    a = jnp.broadcast_to(a, shape + a.shape[-2:])
    b = jnp.broadcast_to(b, shape + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return jnp.zeros(b.shape, b.dtype)
    return jax.lax.linalg.triangular_solve(a, b, left_side=left, lower=not upper, transpose_a=trans,
                                           unit_diagonal=unit)


tri_solve = _fjit(_tri_solve, static_argnames=("upper", "left", "unit", "trans"))
tri_solve.__doc__ = """X with op(A) X = B (left) or X op(A) = B from one triangle of A (op = transpose when
`trans`), batch dims broadcast: the solve of torch.triangular_solve and torch.linalg.solve_triangular."""


@P.kernel(static=("upper", "transpose", "unit"))
def _tri_solve_k(b, a, upper, transpose, unit):
    x = _tri_solve(a, b, upper, True, unit, transpose)
    return x, jnp.broadcast_to(a, x.shape[:-2] + a.shape[-2:])


@register("triangular_solve", out=True, kind="linalg")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """`torch.triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None)` ->
    (solution, cloned_coefficient) (deprecated in PyTorch): X with A X = b for a triangular A."""
    _warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of "
               "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
               "torch.linalg.solve_triangular has its arguments reversed and does not return a copy of one "
               "of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
               "torch.linalg.solve_triangular(A, B).")
    _square("triangular_solve", A, "A")
    x, a = _tri_solve_k(input._value, A._value, upper=bool(upper), transpose=bool(transpose),
                        unit=bool(unitriangular))
    dev = input._storage.device
    return return_types.triangular_solve((fresh(x, input._dtype, dev), fresh(a, A._dtype, dev)))


@P.kernel
def _expm_k(a):
    return jsl.expm(a)


@register("matrix_exp", kind="linalg", grad_name="LinalgMatrixExpBackward0")
def matrix_exp(input):
    """`torch.matrix_exp(input)`: the matrix exponential of square matrices."""
    _square("linalg.matrix_exp", input, "A")
    return fresh(_expm_k(input._value), input._dtype, input._storage.device)
