"""`torch.linalg` LU and solvers: lu, lu_factor(_ex), lu_solve, solve(_ex), solve_triangular, lstsq, inv(_ex),
det, slogdet, and the top-level torch.lu / lu_unpack / lu_solve. inverse/det/slogdet share their kernels with
torch.inverse/det/slogdet (ops/linalg_matrix.py), solve_triangular with torch.triangular_solve
(ops/linalg_legacy.py).

Errors that depend on values (singular inputs) read `info` on the host, as PyTorch synchronises; the `_ex`
forms return `info` and trace under jax.jit.
"""

import functools

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import return_types
from .._promotion import short_name
from .._warnings import user_stacklevel, warn_once
from ..autograd._ops import differentiable
from . import _dispatch as P
from ._linalg_common import (
    check_float,
    check_low,
    check_matrix,
    check_square,
    check_tensor,
    mh,
    new,
    raise_info,
)
from ._registry import register
from .linalg_legacy import tri_solve
from .linalg_matrix import _det_k, _inv_k, _slogdet_k
from .._fused import jit as _fjit

__all__ = [
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_lu",
    "lu",
    "lu_unpack",
    "linalg_lu_solve",
    "lu_solve",
    "linalg_solve",
    "linalg_solve_ex",
    "linalg_solve_triangular",
    "linalg_lstsq",
    "linalg_inv",
    "linalg_inv_ex",
    "linalg_det",
    "linalg_slogdet",
]


# ---- LU --------------------------------------------------------------------------------------------------
@_fjit
def _lu_k(a):
    """(packed LU, 1-based int32 pivots, info) as LAPACK getrf: info = first exactly-zero U[i, i]
    (1-based)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        return a, jnp.ones(a.shape[:-2] + (k,), jnp.int32), jnp.zeros(a.shape[:-2], jnp.int32)
    lu_, piv, _ = jax.lax.linalg.lu(a)
    zero = jnp.diagonal(lu_, axis1=-2, axis2=-1) == 0
    info = jnp.where(jnp.any(zero, -1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)
    return lu_, (piv + 1).astype(jnp.int32), info


def _lu_checks(name, A, pivot):
    check_tensor(name.replace("torch.", "").replace(".", "_"), A, "A", 1)
    if A.ndim < 2:
        raise RuntimeError(
            f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A._shape)} instead"
        )
    check_low("lu_cpu", A)
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{short_name(A._dtype)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _lu_message(code):
    return (
        f"U[{code},{code}] is zero and using it on lu_solve would result in a division by zero. If you "
        "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
        "linalg.lu_factor_ex(A, pivot)"
    )


def _lu_factor(name, A, pivot, check):
    _lu_checks("torch.lu_factor", A, pivot)
    lu_, piv, info = _lu_k(A._value)
    if check:
        raise_info(name, info, A.ndim > 2, _lu_message, RuntimeError)
    return new(lu_, A._dtype, A), new(piv, D.int32, A), new(info, D.int32, A)


@register(
    "linalg_lu_factor",
    function=False,
    method=False,
    out="linalg_lu_factor_ex",
    kind="linalg",
    grad_name="LinalgLuFactorExBackward0",
)
def linalg_lu_factor(A, *, pivot=True):
    """`torch.linalg.lu_factor(A, *, pivot=True, out=None)` -> (LU, pivots) (LAPACK getrf; pivots 1-based
    int32). Raises PyTorch's RuntimeError when some U[i, i] is zero (host sync); pivot=False raises as on
    PyTorch's CPU."""
    lu_, piv, _ = _lu_factor("torch.linalg.lu_factor", A, pivot, True)
    return return_types.linalg_lu_factor((lu_, piv))


@register("linalg_lu_factor_ex", function=False, method=False, out=True, kind="linalg")
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    """`torch.linalg.lu_factor_ex(A, *, pivot=True, check_errors=False, out=None)` -> (LU, pivots, info); no
    host sync unless check_errors=True."""
    return return_types.linalg_lu_factor_ex(
        _lu_factor("torch.linalg.lu_factor_ex", A, pivot, bool(check_errors))
    )


def _perm_of(piv, m):
    """The row permutation `perm` (A[perm] = L U) from LAPACK's 1-based sequential swaps."""

    def one(p):
        def body(i, perm):
            j = p[i] - 1
            pi, pj = perm[i], perm[j]
            return perm.at[i].set(pj).at[j].set(pi)

        return jax.lax.fori_loop(0, p.shape[-1], body, jnp.arange(m))

    flat = piv.reshape((-1, piv.shape[-1]))
    return jax.vmap(one)(flat).reshape(piv.shape[:-1] + (m,))


def _unpack(lu_, piv, dtype):
    m, n = lu_.shape[-2:]
    k = min(m, n)
    lo = jnp.tril(lu_[..., :, :k], -1) + jnp.eye(m, k, dtype=lu_.dtype)
    up = jnp.triu(lu_[..., :k, :])
    perm = _perm_of(piv, m) if piv.shape[-1] else jnp.broadcast_to(jnp.arange(m), lu_.shape[:-2] + (m,))
    p = jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=dtype), -1, -2)
    return p, lo, up


_unpack_k = _fjit(_unpack, static_argnames=("dtype",))


def _plu(A, pivot):
    _lu_checks("linalg.lu", A, pivot)
    lu_, piv, _ = _lu_k(A._value)
    p, lo, up = _unpack_k(lu_, piv, dtype=A._dtype.np)
    return new(p, A._dtype, A), (new(lo, A._dtype, A), new(up, A._dtype, A))


_lu_recorded = differentiable("linalg_lu", lambda A, pivot: _plu(A, pivot)[1])


@register("linalg_lu", function=False, method=False, out=True, kind="composite")
def linalg_lu(A, *, pivot=True):
    """`torch.linalg.lu(A, *, pivot=True, out=None)` -> (P, L, U) with A = P L U (never raises for singular
    inputs, as PyTorch). P does not require grad (PyTorch's)."""
    p, _ = _plu(A, pivot)  # jitted kernels: the recorded call below reuses them
    lo, up = _lu_recorded(A, pivot)
    return return_types.linalg_lu((p, lo, up))


@register("lu", kind="linalg", grad_name="LinalgLuFactorExBackward0")
def lu(input, pivot=True, get_infos=False):
    """`torch.lu(A, pivot=True, get_infos=False, out=None)` / `Tensor.lu` (deprecated; warns once) -> (LU,
    pivots) or, with get_infos, torch.return_types._lu_with_info (LU, pivots, info). Never raises for a
    singular input (as PyTorch 2.13)."""
    warn_once(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
        "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, "
        "pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, "
        "pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
        UserWarning,
        user_stacklevel(),
    )
    lu_, piv, info = _lu_factor("torch.lu", input, pivot, False)
    return return_types._lu_with_info((lu_, piv, info)) if get_infos else (lu_, piv)


def _lu_unpack_lu(LU_data, LU_pivots, unpack_data, unpack_pivots):
    r = _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    return r[1], r[2]


_lu_unpack_recorded = differentiable("lu_unpack", _lu_unpack_lu)


@register("lu_unpack", method=False, out=True, kind="composite")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """`torch.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None)` -> (P, L, U);
    the parts not unpacked are empty tensors, as in PyTorch; P does not require grad (PyTorch's)."""
    p = _lu_unpack(LU_data, LU_pivots, False, unpack_pivots)[0]
    lo, up = _lu_unpack_recorded(LU_data, LU_pivots, unpack_data, False)
    return return_types.lu_unpack((p, lo, up))


def _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots):
    check_tensor("lu_unpack", LU_data, "LU_data", 1)
    if LU_data.ndim < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data._shape)} instead"
        )
    if LU_pivots._dtype is not D.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
        )
    dt = LU_data._dtype
    p, lo, up = _unpack_k(LU_data._value, LU_pivots._value, dtype=dt.np)
    empty = jnp.zeros((0,), dt.np)
    if not unpack_data:
        lo = up = empty
    if not unpack_pivots:
        p = empty
    return return_types.lu_unpack((new(p, dt, LU_data), new(lo, dt, LU_data), new(up, dt, LU_data)))


# ---- solves with an LU factorization ----------------------------------------------------------------------
def _solve_with_lu(lu_, piv, b, left, adjoint):
    """X with A X = B (left) or X A = B, A = P L U from (lu_, 1-based piv); A^H for adjoint. Broadcasts."""
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return mh(_solve_with_lu(lu_, piv, mh(b), True, not adjoint))
    batch = jnp.broadcast_shapes(lu_.shape[:-2], b.shape[:-2])
    lu_ = jnp.broadcast_to(lu_, batch + lu_.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    piv = jnp.broadcast_to(piv, batch + piv.shape[-1:])
    n = lu_.shape[-1]
    if lu_.size == 0 or b.size == 0:
        return jnp.zeros(b.shape, jnp.result_type(lu_, b))
    perm = _perm_of(piv, n)
    if not adjoint:  # L U X = P^T B
        pb = jnp.take_along_axis(b, perm[..., :, None], axis=-2)
        y = jax.lax.linalg.triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
        return jax.lax.linalg.triangular_solve(lu_, y, left_side=True, lower=False)
    # U^H L^H P^T X = B
    tri = functools.partial(
        jax.lax.linalg.triangular_solve, left_side=True, transpose_a=True, conjugate_a=True
    )
    y = tri(lu_, b, lower=False)
    z = tri(lu_, y, lower=True, unit_diagonal=True)
    inv = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(z, inv[..., :, None], axis=-2)


_lu_solve_k = _fjit(_solve_with_lu, static_argnames=("left", "adjoint"))


def _check_system(name, A, B, left, lhs="A"):
    """PyTorch's shape check of AX = B / XA = B (A square, batch dims broadcast)."""
    ok = (A._shape[-1] == B._shape[-2]) if left else (A._shape[-2] == B._shape[-1])
    if not ok:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{name}: Incompatible shapes of {lhs} and B for the equation {eq} "
            f"({A._shape[-2]}x{A._shape[-1]} and {B._shape[-2]}x{B._shape[-1]})"
        )
    P.broadcast_error((A._shape[:-2], B._shape[:-2]))


@register("linalg_lu_solve", function=False, method=False, out=True, kind="linalg")
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """`torch.linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None)`: X with A X = B (XA = B
    for left=False; A^H for adjoint) from lu_factor's (LU, pivots)."""
    name = "linalg.lu_solve"
    check_square(name, LU, "LU")
    check_matrix(name, B, "B")
    if pivots._dtype is not D.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if LU._dtype is not B._dtype:
        raise RuntimeError(
            f"{name}: Expected LU and B to have the same dtype, but found LU of type "
            f"{short_name(LU._dtype)} and B of type {short_name(B._dtype)} instead"
        )
    check_float(name, LU)
    _check_system(name, LU, B, left)
    out = _lu_solve_k(LU._value, pivots._value, B._value, left=bool(left), adjoint=bool(adjoint))
    return new(out, B._dtype, B)


@register("lu_solve", out="linalg_lu_solve", kind="linalg", grad_name="LinalgLuSolveBackward0")
def lu_solve(input, LU_data, LU_pivots):
    """`torch.lu_solve(b, LU_data, LU_pivots, *, out=None)` / `Tensor.lu_solve` (deprecated; warns once) =
    torch.linalg.lu_solve(LU_data, LU_pivots, b)."""
    warn_once(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed "
        "in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
        "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, "
        "B)",
        UserWarning,
        user_stacklevel(),
    )
    return linalg_lu_solve(LU_data, LU_pivots, input)


# ---- solve / solve_ex ------------------------------------------------------------------------------------
@functools.partial(_fjit, static_argnames=("left", "vector"))
def _solve_k(a, b, left, vector):
    lu_, piv, info = _lu_k(a)
    if vector:
        b = b[..., :, None] if left else b[..., None, :]
    x = _solve_with_lu(lu_, piv, b, left, False)
    if vector:
        x = x[..., :, 0] if left else x[..., 0, :]
    return x, info


def _solve(name, A, B, left, check):
    check_tensor(name.replace("torch.", "").replace(".", "_"), A, "A", 1)
    check_square("linalg.solve", A)
    check_float("linalg.solve", A)
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{short_name(A._dtype)} and B of type {short_name(B._dtype)} instead"
        )
    check_low("lu_cpu", A)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._shape == A._shape[:-1])
    if vector:
        n = B._shape[-1]
        ok = A._shape[-1] == n
        if not ok:
            eq = "AX = B" if left else "XA = B"
            raise RuntimeError(
                f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                f"({A._shape[-2]}x{A._shape[-1]} and {n}x1)"
            )
    else:
        _check_system("linalg.solve", A, B, left)
    x, info = _solve_k(A._value, B._value, left=bool(left), vector=vector)
    if check:
        raise_info(
            name, info, A.ndim > 2, lambda code: "The solver failed because the input matrix is singular."
        )
    return new(x, A._dtype, A), new(info, D.int32, A)


@register(
    "linalg_solve",
    function=False,
    method=False,
    out="_linalg_solve_ex",
    kind="linalg",
    grad_name="LinalgSolveExBackward0",
)
def linalg_solve(A, B, *, left=True):
    """`torch.linalg.solve(A, B, *, left=True, out=None)`: X with A X = B (XA = B for left=False); B may be
    a (batch of) vector(s) as in PyTorch. Singular A raises LinAlgError (host sync)."""
    return _solve("torch.linalg.solve", A, B, left, True)[0]


@register("linalg_solve_ex", function=False, method=False, out="_linalg_solve_ex", kind="linalg")
def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    """`torch.linalg.solve_ex(A, B, *, left=True, check_errors=False, out=None)` -> (result, info); no host
    sync unless check_errors=True."""
    return return_types.linalg_solve_ex(_solve("torch.linalg.solve_ex", A, B, left, bool(check_errors)))


@register("linalg_solve_triangular", function=False, method=False, out=True, kind="linalg")
def linalg_solve_triangular(A, B, *, upper=None, left=True, unitriangular=False):
    """`torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None)`: reads only
    the `upper`/lower triangle of A (and not its diagonal when unitriangular). The result has A's dtype (B
    is converted), as PyTorch's CPU kernel does."""
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    name = "linalg.solve_triangular"
    check_matrix(name, A)
    check_matrix(name, B, "B")
    check_square(name, A)
    _check_system(name, A, B, left)
    if not (A._dtype.is_floating_point or A._dtype.is_complex) or A._dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{short_name(A._dtype)}'")
    b = B._value.astype(A._dtype.np)
    out = tri_solve(A._value, b, upper=bool(upper), left=bool(left), unit=bool(unitriangular), trans=False)
    return new(out, A._dtype, A)


# ---- lstsq -----------------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@functools.partial(_fjit, static_argnames=("rcond", "vector"))
def _lstsq_k(a, b, rcond, vector):
    if vector:
        b = b[..., None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    m, n = a.shape[-2:]
    rdt = jnp.finfo(a.dtype).dtype
    if a.size == 0:
        x = jnp.zeros(batch + (n, b.shape[-1]), a.dtype)
        s = jnp.zeros(batch + (min(m, n),), rdt)
        rank = jnp.zeros(batch, jnp.int64)
    else:
        s = jnp.linalg.svd(jax.lax.stop_gradient(a), compute_uv=False)
        tol = rcond * s[..., :1]
        rank = jnp.sum(s > tol, -1).astype(jnp.int64)
        x = jnp.linalg.pinv(a, rtol=rcond) @ b
    res = jnp.sum(jnp.abs(b - a @ x) ** 2, -2).astype(rdt)
    if vector:
        x = x[..., 0]  # residuals keep their column (PyTorch: batch + (1,))
    return x, res, rank, s


@register("linalg_lstsq", function=False, method=False, out=True, kind="composite")
def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """`torch.linalg.lstsq(A, B, rcond=None, *, driver=None, out=None)` -> (solution, residuals, rank,
    singular_values), with the fields each CPU driver fills (default 'gelsy': rank only; 'gels': residuals
    only; 'gelsd'/'gelss': all). The solution is computed through the SVD pseudo-inverse for every driver
    (equal to LAPACK's for full-rank problems; PyTorch's 'gels' returns garbage for rank-deficient ones).
    Residuals (m > n, not 'gelsy') need full rank: checking it reads the ranks on the host (skipped under
    tracing). Gradients flow to solution and residuals; singular_values don't require grad (PyTorch's)."""
    r = _lstsq(A, B, rcond, driver)
    x, res = _lstsq_recorded(A, B, rcond, driver)
    return return_types.linalg_lstsq((x, res, r[2], r[3]))


def _lstsq(A, B, rcond, driver):
    name = "torch.linalg.lstsq"
    check_tensor("linalg_lstsq", A, "A", 1)
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"{name}: Expected input and other to have the same dtype, but got input's dtype "
            f"{short_name(A._dtype)} and other's dtype {short_name(B._dtype)}"
        )
    if not (A._dtype in (D.float32, D.float64) or A._dtype in (D.complex64, D.complex128)):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError(
            f"{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - "
            "other.dim()) <= 1"
        )
    vector = B.ndim == A.ndim - 1
    if A._shape[-2] != B._shape[-1 if vector else -2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-{1 if vector else 2})")
    m, n = A._shape[-2:]
    if rcond is None:
        rcond = float(jnp.finfo(A._dtype.np).eps) * max(m, n)
    x, res, rank, s = _lstsq_k(A._value, B._value, rcond=float(rcond), vector=vector)
    rdt = A._dtype.to_real()
    empty = jnp.zeros((0,), rdt.np)
    want_res = m > n and driver != "gelsy"
    if want_res and driver != "gels" and not isinstance(rank, jax.core.Tracer) and bool(jnp.any(rank != n)):
        want_res = False
    res = res if want_res else empty
    rank = rank if driver != "gels" else jnp.zeros((0,), jnp.int64)
    s = s if driver in ("gelsd", "gelss") else empty
    return new(x, A._dtype, A), new(res, rdt, A), new(rank, D.int64, A), new(s, rdt, A)


_lstsq_recorded = differentiable("linalg_lstsq", lambda A, B, rcond, driver: _lstsq(A, B, rcond, driver)[:2])


# ---- inv / det / slogdet (kernels shared with torch.inverse / det / slogdet) -------------------------------
def _inv_checks(name, A):
    check_tensor(name.replace(".", "_"), A, "A", 1)
    check_square("linalg.inv", A)
    check_float("linalg.inv", A)
    if A._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"linalg.inv: Low precision dtypes not supported. Got {short_name(A._dtype)}")


def _inv_message(code):
    return (
        f"The diagonal element {code} is zero, the inversion could not be completed because the input "
        "matrix is singular."
    )


def inv_value(name, A, check):
    """(inverse, info) of torch.linalg.inv(_ex) and torch.inverse."""
    _inv_checks(name, A)
    inv, info = _inv_k(A._value)
    if check:
        raise_info(name, info, A.ndim > 2, _inv_message)
    return new(inv, A._dtype, A), new(info, D.int32, A)


@register(
    "linalg_inv",
    function=False,
    method=False,
    out="linalg_inv_ex",
    kind="linalg",
    grad_name="LinalgInvExBackward0",
)
def linalg_inv(A):
    """`torch.linalg.inv(A, *, out=None)`: singular inputs raise LinAlgError (host sync)."""
    return inv_value("linalg.inv", A, True)[0]


@register("linalg_inv_ex", function=False, method=False, out=True, kind="linalg")
def linalg_inv_ex(A, *, check_errors=False):
    """`torch.linalg.inv_ex(A, *, check_errors=False, out=None)` -> (inverse, info); no host sync unless
    check_errors=True."""
    return return_types.linalg_inv_ex(inv_value("linalg.inv_ex", A, bool(check_errors)))


def _det_checks(name, A):
    check_tensor(name.replace(".", "_"), A, "A", 1)
    check_square(name, A)
    check_float(name, A)


@register("linalg_det", function=False, method=False, out="_linalg_det", kind="linalg")
def linalg_det(A):
    """`torch.linalg.det(A, *, out=None)` (= torch.det). Gradients through singular matrices are finite (jax's
    cofactor-based derivative), as PyTorch's."""
    _det_checks("linalg.det", A)
    check_low("lu_cpu", A)
    return new(_det_k(A._value), A._dtype, A)


@register("linalg_slogdet", function=False, method=False, out="_linalg_slogdet", kind="linalg")
def linalg_slogdet(A):
    """`torch.linalg.slogdet(A, *, out=None)` -> (sign, logabsdet); a singular matrix gives (0, -inf)."""
    _det_checks("linalg.slogdet", A)
    if A._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"linalg.slogdet: Low precision dtypes not supported. Got {short_name(A._dtype)}")
    sign, logabs = _slogdet_k(A._value)
    return return_types.linalg_slogdet((new(sign, A._dtype, A), new(logabs, A._dtype.to_real(), A)))
