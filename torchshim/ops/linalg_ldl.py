"""`torch.linalg.ldl_factor(_ex)` and `torch.linalg.ldl_solve`: the Bunch-Kaufman LDL^T (LDL^H) factorization
of symmetric or Hermitian, possibly indefinite matrices, with LAPACK sytrf/hetrf's compact output (PyTorch
passes uplo='L': L below the diagonal, D's 1x1 and 2x2 blocks on and just below it, upper triangle zero) and
its pivot convention (1-based; a 2x2 block at rows k, k+1 stores -p twice). The factorization follows LAPACK's
unblocked sytf2/hetf2 step by step (same pivot choices; sytrf uses it for the sizes of up to 64 rows it is
used on here), the solve sytrs/hetrs, both as jax loops (they trace under jax.jit).

No derivative, as in PyTorch (grad_fn NotImplemented, backward raises).
"""

import functools
import math

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import return_types
from .._promotion import short_name
from . import _dispatch as P
from ._linalg_common import check_float, check_low, check_square, check_tensor, new, synced, write_plain_out
from ._loss_common import raising_guard
from ._registry import register
from .._fused import jit as _fjit

__all__ = ["linalg_ldl_factor", "linalg_ldl_factor_ex", "linalg_ldl_solve"]

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0
_FACTOR_GRAD = raising_guard(RuntimeError, "derivative for aten::linalg_ldl_factor_ex is not implemented")
_SOLVE_GRAD = raising_guard(RuntimeError, "derivative for aten::linalg_ldl_solve is not implemented")


def _cabs1(x):
    """LAPACK's |re| + |im| (izamax's measure), |x| for real x."""
    return jnp.abs(jnp.real(x)) + jnp.abs(jnp.imag(x)) if jnp.iscomplexobj(x) else jnp.abs(x)


def _sytf2_one(a, herm):
    """(LD, 1-based int32 pivots, info) of one matrix by LAPACK's lower sytf2 (hetf2 when `herm`): the same
    pivot decisions and the same floating-point operations on the lower triangle. (The imaginary parts of a
    Hermitian input's diagonal are dropped up front: hetf2 never reads them and ends with a real diagonal.)"""
    n = a.shape[-1]
    idx = jnp.arange(n)
    herm = herm and jnp.iscomplexobj(a)
    conj = jnp.conj if herm else (lambda x: x)
    rdt = jnp.finfo(a.dtype).dtype
    eye = jnp.eye(n, dtype=bool)
    if herm:
        a = jnp.where(eye, jnp.real(a).astype(a.dtype), a)
    a = jnp.tril(a)

    def diag_abs(x):
        return jnp.abs(jnp.real(x)) if herm else _cabs1(x)

    def full(a):  # the symmetric (Hermitian) matrix the lower triangle stands for
        return a + conj(jnp.swapaxes(jnp.tril(a, -1), -1, -2))

    def step(state):
        a, piv, info, k = state
        absakk = diag_abs(a[k, k])
        below = jnp.where(idx > k, _cabs1(a[:, k]), -1.0).astype(rdt)
        imax = jnp.argmax(below)  # the first maximum, as LAPACK's i?amax
        colmax = jnp.maximum(below[imax], 0.0)
        zero = (jnp.maximum(absakk, colmax) == 0) | jnp.isnan(absakk)
        f = full(a)
        rowmax = jnp.max(jnp.where((idx >= k) & (idx != imax), _cabs1(f[imax]), -1.0)).astype(rdt)
        keep = zero | (absakk >= _ALPHA * colmax)
        keep = keep | (absakk >= _ALPHA * colmax * (colmax / jnp.where(rowmax == 0, 1, rowmax)))
        one = keep | (diag_abs(a[imax, imax]) >= _ALPHA * rowmax) | (k == n - 1)
        kp = jnp.where(keep, k, imax)
        kstep = jnp.where(one, 1, 2)
        kk = k + kstep - 1
        # interchange rows and columns kk and kp of the trailing block A[k:, k:]
        perm = jnp.where(idx == kk, kp, jnp.where(idx == kp, kk, idx))
        trail = (idx[:, None] >= k) & (idx[None, :] >= k)
        a = jnp.tril(jnp.where(trail, f[perm][:, perm], a))
        a = jnp.where(zero, state[0], jnp.where(kstep == 1, _update1(a, k, idx, herm, conj),
                                                _update2(a, k, idx, herm, conj)))
        p = jnp.where(kstep == 1, kp + 1, -(kp + 1)).astype(jnp.int32)
        k1 = jnp.minimum(k + 1, n - 1)
        piv = piv.at[k].set(p)
        piv = piv.at[k1].set(jnp.where(kstep == 2, p, piv[k1]))
        info = jnp.where(zero & (info == 0), k + 1, info).astype(jnp.int32)
        return a, piv, info, k + kstep

    init = (a, jnp.zeros((n,), jnp.int32), jnp.int32(0), jnp.int32(0))
    a, piv, info, _ = jax.lax.while_loop(lambda s: s[3] < n, step, init)
    return a, piv, info


def _update1(a, k, idx, herm, conj):
    """A 1x1 pivot (LAPACK syr/her, then scal): A[i, j] += x_i * (-x_j / d) on the trailing lower triangle
    (x_j conjugated for Hermitian, whose diagonal stays real), then x /= d."""
    r = 1 / a[k, k]
    x = jnp.where(idx > k, a[:, k], 0)
    trail = (idx[:, None] > k) & (idx[None, :] > k) & (idx[:, None] >= idx[None, :])
    out = a + jnp.where(trail, x[:, None] * (-r * conj(x))[None, :], 0)
    if herm:
        out = jnp.where(jnp.eye(a.shape[-1], dtype=bool), jnp.real(out).astype(a.dtype), out)
    return out.at[:, k].set(jnp.where(idx > k, r * x, a[:, k]))


def _update2(a, k, idx, herm, conj):
    """A 2x2 pivot at rows k, k+1 (sytf2's / hetf2's formulas)."""
    n = a.shape[-1]
    k1 = jnp.minimum(k + 1, n - 1)
    ck, ck1 = a[:, k], a[:, k1]
    if herm:
        d = jnp.abs(a[k1, k])
        d11 = jnp.real(a[k1, k1]) / d
        d22 = jnp.real(a[k, k]) / d
        tt = 1 / (d11 * d22 - 1)
        d21 = a[k1, k] / d
        dd = tt / d
        wk = dd * (d11 * ck - d21 * ck1)
        wkp1 = dd * (d22 * ck1 - jnp.conj(d21) * ck)
    else:
        d21 = a[k1, k]
        d11 = a[k1, k1] / d21
        d22 = a[k, k] / d21
        t = 1 / (d11 * d22 - 1)
        d21 = t / d21
        wk = d21 * (d11 * ck - ck1)
        wkp1 = d21 * (d22 * ck1 - ck)
    rows = idx > k + 1
    wk, wkp1 = jnp.where(rows, wk, 0), jnp.where(rows, wkp1, 0)
    trail = (idx[:, None] >= idx[None, :]) & rows[None, :]
    upd = ck[:, None] * conj(wk)[None, :] + ck1[:, None] * conj(wkp1)[None, :]  # (MKL's rounding)
    out = a - jnp.where(trail, upd, 0)
    if herm:
        out = jnp.where(jnp.eye(n, dtype=bool) & rows[None, :], jnp.real(out).astype(a.dtype), out)
    out = out.at[:, k].set(jnp.where(rows, wk, out[:, k])).at[:, k1].set(jnp.where(rows, wkp1, out[:, k1]))
    return jnp.where(k < n - 2, out, a)


@functools.partial(_fjit, static_argnames=("herm",))
def _ldl_factor_k(a, herm):
    batch, n = a.shape[:-2], a.shape[-1]
    if a.size == 0:
        return a, jnp.zeros(batch + (n,), jnp.int32), jnp.zeros(batch, jnp.int32)
    flat = jax.lax.stop_gradient(a).reshape((-1, n, n))
    ld, piv, info = jax.lax.map(lambda m: _sytf2_one(m, herm), flat)  # (vmap: a batched loop, slow to build)
    ld = _FACTOR_GRAD(ld.reshape(a.shape), a)
    return ld, piv.reshape(batch + (n,)), info.reshape(batch)


_ERR = (
    'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp":'
    "1642, please report a bug to PyTorch. {name}: Unknown error code: {code}."
)


def _ldl_factor(name, A, hermitian, check):
    check_tensor("linalg_ldl_factor" + ("_ex" if name.endswith("_ex") else ""), A, "input", 1)
    ex = "torch.linalg.ldl_factor_ex"
    check_square(ex, A)
    check_float(ex, A)
    check_low("ldl_factor_kernel_cpu", A)
    herm = bool(hermitian) and A._dtype.is_complex
    ld, piv, info = _ldl_factor_k(A._value, herm=herm)
    if check and synced(info) and info.size and bool(jnp.any(info != 0)):
        code = int(jnp.ravel(info)[jnp.argmax(jnp.ravel(info) != 0)])
        raise RuntimeError(_ERR.format(name=name, code=code))
    return new(ld, A._dtype, A), new(piv, D.int32, A), new(info, D.int32, A)


@register("linalg_ldl_factor", function=False, method=False, kind="linalg", grad_name="NotImplemented")
def linalg_ldl_factor(A, *, hermitian=False, out=None):
    """`torch.linalg.ldl_factor(A, *, hermitian=False, out=None)` -> (LD, pivots): Bunch-Kaufman LDL^T of a
    symmetric (LDL^H of a Hermitian, for complex A with hermitian=True) matrix, reading its lower triangle,
    in LAPACK sytrf's compact form and pivots. A zero pivot (singular A) raises the RuntimeError PyTorch
    2.13 raises there (its internal assert 'Unknown error code: k'), after reading `info` on the host (a
    sync, as in PyTorch). No derivative (as PyTorch). out= is accepted with an input requiring grad, as in
    PyTorch (torchshim's out then has no history)."""
    ld, piv, _ = _ldl_factor("torch.linalg.ldl_factor", A, hermitian, True)
    return write_plain_out(return_types.linalg_ldl_factor((ld, piv)), out)


@register("linalg_ldl_factor_ex", function=False, method=False, kind="linalg", grad_name="NotImplemented")
def linalg_ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """`torch.linalg.ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None)` -> (LD, pivots,
    info): info = k > 0 where D[k-1, k-1] is exactly zero (LAPACK's). No host sync unless check_errors.
    out= as ldl_factor's."""
    r = _ldl_factor("torch.linalg.ldl_factor_ex", A, hermitian, bool(check_errors))
    return write_plain_out(return_types.linalg_ldl_factor_ex(r), out)


# ---- solve -----------------------------------------------------------------------------------------------
def _sytrs_one(ld, piv, b, herm):
    """X with A X = B for one (LD, pivots) of sytrf (lower) and B (n x r); LAPACK sytrs / hetrs."""
    n = ld.shape[-1]
    idx = jnp.arange(n)
    conj = jnp.conj if herm else (lambda x: x)

    def swap_rows(b, i, j):
        bi, bj = b[i], b[j]
        return b.at[i].set(bj).at[j].set(bi)

    def fwd(state):  # L D Y = P^T B
        b, k = state
        p = piv[k]
        two = p < 0
        kp = jnp.where(two, -p, p) - 1
        k1 = jnp.minimum(k + 1, n - 1)
        # 1x1
        b1 = swap_rows(b, k, kp)
        col = jnp.where(idx > k, ld[:, k], 0)
        b1 = b1 - col[:, None] * b1[k][None, :]
        dk = jnp.real(ld[k, k]).astype(ld.dtype) if herm else ld[k, k]
        b1 = b1.at[k].set(b1[k] / dk)
        # 2x2
        b2 = swap_rows(b, k1, kp)
        c0 = jnp.where(idx > k + 1, ld[:, k], 0)
        c1 = jnp.where(idx > k + 1, ld[:, k1], 0)
        b2 = b2 - c0[:, None] * b2[k][None, :] - c1[:, None] * b2[k1][None, :]
        akm1k = ld[k1, k]
        akm1 = ld[k, k] / conj(akm1k)
        ak = ld[k1, k1] / akm1k
        denom = akm1 * ak - 1
        bkm1 = b2[k] / conj(akm1k)
        bk = b2[k1] / akm1k
        b2 = b2.at[k].set((ak * bkm1 - bk) / denom).at[k1].set((akm1 * bk - bkm1) / denom)
        return jnp.where(two, b2, b1), k + jnp.where(two, 2, 1)

    b, _ = jax.lax.while_loop(lambda s: s[1] < n, fwd, (b, jnp.int32(0)))

    def back(state):  # L^T X = Y (L^H for Hermitian), then the interchanges
        b, k = state
        p = piv[k]
        two = p < 0
        kp = jnp.where(two, -p, p) - 1
        col = jnp.where(idx > k, conj(ld[:, k]), 0)
        b1 = b.at[k].add(-(col[:, None] * b).sum(0))
        km1 = jnp.maximum(k - 1, 0)
        colm = jnp.where(idx > k, conj(ld[:, km1]), 0)
        b2 = b1.at[km1].add(-(colm[:, None] * b).sum(0))
        b = jnp.where(two, b2, b1)
        return swap_rows(b, k, kp), k - jnp.where(two, 2, 1)

    b, _ = jax.lax.while_loop(lambda s: s[1] >= 0, back, (b, jnp.int32(n - 1)))
    return b


@functools.partial(_fjit, static_argnames=("herm",))
def _ldl_solve_k(ld, piv, b, herm):
    batch = jnp.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    n, r = ld.shape[-1], b.shape[-1]
    out_dt = b.dtype
    if ld.size == 0 or b.size == 0:
        return jnp.zeros(batch + b.shape[-2:], out_dt)
    ld_b = jnp.broadcast_to(jax.lax.stop_gradient(ld), batch + (n, n)).reshape((-1, n, n))
    piv_b = jnp.broadcast_to(piv, batch + (n,)).reshape((-1, n)).astype(jnp.int32)
    b_b = jnp.broadcast_to(jax.lax.stop_gradient(b), batch + (n, r)).reshape((-1, n, r))
    x = jax.lax.map(lambda t: _sytrs_one(*t, herm), (ld_b, piv_b, b_b))
    return _SOLVE_GRAD(x.reshape(batch + (n, r)), ld, b)


@register("linalg_ldl_solve", function=False, method=False, kind="linalg", grad_name="NotImplemented")
def linalg_ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """`torch.linalg.ldl_solve(LD, pivots, B, *, hermitian=False, out=None)`: X with A X = B from
    ldl_factor's (LD, pivots) (LAPACK sytrs / hetrs). B's batch dimensions broadcast against LD's; pivots
    must have LD's shape without its last dimension. Checking that every 1 <= |pivot| <= n reads the
    pivots on the host, as PyTorch (skipped under jax tracing). No derivative (as PyTorch); out= as
    ldl_factor's."""
    name = "torch.linalg.ldl_solve"
    check_tensor("linalg_ldl_solve", LD, "LD", 1)
    check_tensor("linalg_ldl_solve", pivots, "pivots", 2)
    check_tensor("linalg_ldl_solve", B, "B", 3)
    check_square(name, LD)
    check_float(name, LD)
    if B.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if pivots._dtype.is_floating_point or pivots._dtype.is_complex or pivots._dtype is D.bool_:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {short_name(pivots._dtype)}")
    if pivots._shape != LD._shape[:-1]:
        raise RuntimeError(
            f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape "
            f"{list(pivots._shape)} instead"
        )
    if B._dtype is not LD._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {short_name(B._dtype)} and A of "
            f"type {short_name(LD._dtype)} instead."
        )
    n = LD._shape[-1]
    if B._shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix is "
            f"{B._shape[-2]} by {B._shape[-1]}"
        )
    P.broadcast_error((B._shape[:-2], LD._shape[:-2]))
    check_low("ldl_solve_kernel_cpu", LD)
    piv = pivots._value
    if synced(piv) and piv.size:
        mag = jnp.abs(piv)
        for bad, cond in (("<= LD.size(-2)", mag > n), (">= 1", mag < 1)):
            if bool(jnp.any(cond)):
                raise RuntimeError(
                    f"Pivots given to ldl_solve must all satisfy |pivot| {bad}. Did you properly pass the "
                    "result of ldl_factor?"
                )
    herm = bool(hermitian) and LD._dtype.is_complex
    return write_plain_out(new(_ldl_solve_k(LD._value, piv, B._value, herm=herm), LD._dtype, LD), out)
