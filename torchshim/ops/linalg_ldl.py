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
from ._linalg_common import check_float, check_low, check_square, check_tensor, new, synced
from ._loss_common import raising_guard
from ._registry import register

__all__ = ["linalg_ldl_factor", "linalg_ldl_factor_ex", "linalg_ldl_solve"]

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0
_FACTOR_GRAD = raising_guard(RuntimeError, "derivative for aten::linalg_ldl_factor_ex is not implemented")
_SOLVE_GRAD = raising_guard(RuntimeError, "derivative for aten::linalg_ldl_solve is not implemented")


def _cabs1(x):
    """LAPACK's |re| + |im| (izamax's measure), |x| for real x."""
    return jnp.abs(jnp.real(x)) + jnp.abs(jnp.imag(x)) if jnp.iscomplexobj(x) else jnp.abs(x)


def _sytf2_one(a, herm):
    """(LD, 1-based int32 pivots, info) of one matrix by LAPACK's lower sytf2 (hetf2 when `herm`)."""
    n = a.shape[-1]
    idx = jnp.arange(n)
    cplx = jnp.iscomplexobj(a)
    conj = jnp.conj if (herm and cplx) else (lambda x: x)
    re = (lambda x: jnp.real(x).astype(a.dtype)) if (herm and cplx) else (lambda x: x)
    rdt = jnp.finfo(a.dtype).dtype

    def diag_abs(x):
        return jnp.abs(jnp.real(x)) if herm else _cabs1(x)

    def step(state):
        a, piv, info, k = state
        col = a[:, k]
        absakk = diag_abs(a[k, k])
        below = jnp.where(idx > k, _cabs1(col), -1.0).astype(rdt)
        imax = jnp.argmax(below)
        colmax = jnp.maximum(below[imax], 0.0)
        zero = (jnp.maximum(absakk, colmax) == 0) | jnp.isnan(absakk)
        # row imax of the trailing block: columns k..imax-1 (lower triangle), rows below imax in column imax
        rowpart = jnp.where((idx >= k) & (idx < imax), _cabs1(a[imax, :]), -1.0)
        colpart = jnp.where(idx > imax, _cabs1(a[:, imax]), -1.0)
        rowmax = jnp.maximum(jnp.max(rowpart), jnp.max(colpart)).astype(rdt)
        no_swap = absakk >= _ALPHA * colmax
        no_swap2 = absakk >= _ALPHA * colmax * (colmax / jnp.where(rowmax == 0, 1, rowmax))
        one_swap = diag_abs(a[imax, imax]) >= _ALPHA * rowmax
        keep = zero | no_swap | (~no_swap & no_swap2)
        kp = jnp.where(keep, k, imax)
        kstep = jnp.where(keep | one_swap, 1, 2)
        kstep = jnp.where(k == n - 1, 1, kstep)
        kk = k + kstep - 1
        a = jnp.where(zero, a.at[k, k].set(re(a[k, k])), _interchange(a, k, kk, kp, kstep, idx, conj, re))
        upd1 = _update1(a, k, idx, herm and cplx, conj, re)
        upd2 = _update2(a, k, idx, herm and cplx, conj, re)
        a = jnp.where(zero, a, jnp.where(kstep == 1, upd1, upd2))
        p = jnp.where(kstep == 1, kp + 1, -(kp + 1)).astype(jnp.int32)
        piv = piv.at[k].set(p)
        piv = jnp.where(kstep == 2, piv.at[jnp.minimum(k + 1, n - 1)].set(p), piv)
        info = jnp.where(zero & (info == 0), k + 1, info).astype(jnp.int32)
        return a, piv, info, k + kstep

    init = (a, jnp.zeros((n,), jnp.int32), jnp.int32(0), jnp.int32(0))
    a, piv, info, _ = jax.lax.while_loop(lambda s: s[3] < n, step, init)
    return jnp.tril(a), piv, info


def _interchange(a, k, kk, kp, kstep, idx, conj, re):
    """Swap rows and columns kk and kp of the trailing block (lower triangle only), as sytf2."""
    swap = kp != kk
    ckk, ckp = a[:, kk], a[:, kp]
    below = idx > kp
    new_kk = jnp.where(below, ckp, ckk)
    new_kp = jnp.where(below, ckk, ckp)
    b = a.at[:, kk].set(new_kk).at[:, kp].set(new_kp)
    # A[j, kk] <-> A[kp, j] for kk < j < kp (conjugated for Hermitian)
    mid = (idx > kk) & (idx < kp)
    col_kk = b[:, kk]
    row_kp = b[kp, :]
    b = b.at[:, kk].set(jnp.where(mid, conj(row_kp), col_kk))
    b = b.at[kp, :].set(jnp.where(mid, conj(col_kk), b[kp, :]))
    b = b.at[kp, kk].set(conj(b[kp, kk]))
    dkk, dkp = re(b[kk, kk]), re(b[kp, kp])
    b = b.at[kk, kk].set(dkp).at[kp, kp].set(dkk)
    # a 2x2 block: A[k+1, k] <-> A[kp, k]
    k1 = jnp.minimum(k + 1, a.shape[-1] - 1)
    t1, t2 = b[k1, k], b[kp, k]
    b2 = b.at[k, k].set(re(b[k, k])).at[kp, k].set(t1).at[k1, k].set(t2)
    b = jnp.where(kstep == 2, b2, b)
    plain = a.at[k, k].set(re(a[k, k]))
    plain = jnp.where(kstep == 2, plain.at[k1, k1].set(re(plain[k1, k1])), plain)
    return jnp.where(swap, b, plain)


def _update1(a, k, idx, herm, conj, re):
    """A 1x1 pivot: A[k+1:, k+1:] -= x x^T / d (x x^H for Hermitian), x /= d."""
    d = re(a[k, k])
    x = jnp.where(idx > k, a[:, k], 0)
    r = 1 / d
    trail = (idx[:, None] > k) & (idx[None, :] > k) & (idx[:, None] >= idx[None, :])
    out = a - jnp.where(trail, r * x[:, None] * conj(x)[None, :], 0)
    if herm:
        out = jnp.where(jnp.eye(a.shape[-1], dtype=bool), jnp.real(out).astype(a.dtype), out)
    return out.at[:, k].set(jnp.where(idx > k, r * x, a[:, k]))


def _update2(a, k, idx, herm, conj, re):
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
    out = a - jnp.where(trail, ck[:, None] * conj(wk)[None, :] + ck1[:, None] * conj(wkp1)[None, :], 0)
    if herm:
        out = jnp.where(jnp.eye(n, dtype=bool) & rows[None, :], jnp.real(out).astype(a.dtype), out)
    out = out.at[:, k].set(jnp.where(rows, wk, out[:, k])).at[:, k1].set(jnp.where(rows, wkp1, out[:, k1]))
    return jnp.where(k < n - 2, out, a)


@functools.partial(jax.jit, static_argnames=("herm",))
def _ldl_factor_k(a, herm):
    batch, n = a.shape[:-2], a.shape[-1]
    if a.size == 0:
        return a, jnp.zeros(batch + (n,), jnp.int32), jnp.zeros(batch, jnp.int32)
    flat = jax.lax.stop_gradient(a).reshape((-1, n, n))
    ld, piv, info = jax.vmap(lambda m: _sytf2_one(m, herm))(flat)
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


@register(
    "linalg_ldl_factor",
    function=False,
    method=False,
    out=True,
    kind="linalg",
    grad_name="NotImplemented",
)
def linalg_ldl_factor(A, *, hermitian=False):
    """`torch.linalg.ldl_factor(A, *, hermitian=False, out=None)` -> (LD, pivots): Bunch-Kaufman LDL^T of a
    symmetric (LDL^H of a Hermitian, for complex A with hermitian=True) matrix, reading its lower triangle,
    in LAPACK sytrf's compact form and pivots. A zero pivot (singular A) raises the RuntimeError PyTorch
    2.13 raises there (its internal assert 'Unknown error code: k'), after reading `info` on the host (a
    sync, as in PyTorch). No derivative (as PyTorch)."""
    ld, piv, _ = _ldl_factor("torch.linalg.ldl_factor", A, hermitian, True)
    return return_types.linalg_ldl_factor((ld, piv))


@register(
    "linalg_ldl_factor_ex",
    function=False,
    method=False,
    out=True,
    kind="linalg",
    grad_name="NotImplemented",
)
def linalg_ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """`torch.linalg.ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None)` -> (LD, pivots,
    info): info = k > 0 where D[k-1, k-1] is exactly zero (LAPACK's). No host sync unless check_errors."""
    return return_types.linalg_ldl_factor_ex(
        _ldl_factor("torch.linalg.ldl_factor_ex", A, hermitian, bool(check_errors))
    )


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


@functools.partial(jax.jit, static_argnames=("herm",))
def _ldl_solve_k(ld, piv, b, herm):
    batch = jnp.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    n, r = ld.shape[-1], b.shape[-1]
    out_dt = b.dtype
    if ld.size == 0 or b.size == 0:
        return jnp.zeros(batch + b.shape[-2:], out_dt)
    ld_b = jnp.broadcast_to(jax.lax.stop_gradient(ld), batch + (n, n)).reshape((-1, n, n))
    piv_b = jnp.broadcast_to(piv, batch + (n,)).reshape((-1, n)).astype(jnp.int32)
    b_b = jnp.broadcast_to(jax.lax.stop_gradient(b), batch + (n, r)).reshape((-1, n, r))
    x = jax.vmap(lambda m, p, y: _sytrs_one(m, p, y, herm))(ld_b, piv_b, b_b)
    return _SOLVE_GRAD(x.reshape(batch + (n, r)), ld, b)


@register(
    "linalg_ldl_solve", function=False, method=False, out=True, kind="linalg", grad_name="NotImplemented"
)
def linalg_ldl_solve(LD, pivots, B, *, hermitian=False):
    """`torch.linalg.ldl_solve(LD, pivots, B, *, hermitian=False, out=None)`: X with A X = B from
    ldl_factor's (LD, pivots) (LAPACK sytrs / hetrs). B's batch dimensions broadcast against LD's; pivots
    must have LD's shape without its last dimension. Checking that every 1 <= |pivot| <= n reads the
    pivots on the host, as PyTorch (skipped under jax tracing). No derivative (as PyTorch)."""
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
    return new(_ldl_solve_k(LD._value, piv, B._value, herm=herm), LD._dtype, LD)
