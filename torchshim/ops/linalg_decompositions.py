"""`torch.linalg` decompositions: cholesky(_ex), qr, svd, svdvals, eig, eigvals, eigh, eigvalsh,
householder_product, and the top-level spellings torch.svd / qr / geqrf / orgqr / ormqr; the removal errors
of torch.eig / symeig / lstsq / matrix_rank. (LU, solvers, inverse, det: ops/linalg_solvers.py.)

The ops are registered under PyTorch's aten names (`linalg_svd`, ...; torchshim/linalg binds them).
Gradients are jax's derivatives of forwards written to follow PyTorch's conventions (see each docstring).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .. import return_types
from .._promotion import short_name
from .._warnings import user_stacklevel, warn_once
from ..autograd._ops import any_requires_grad, differentiable
from ..autograd.grad_mode import is_grad_enabled
from ._linalg_common import (
    check_backward,
    check_float,
    check_low,
    check_matrix,
    check_square,
    check_tensor,
    concrete,
    mh,
    new,
    node_outputs,
    raise_info,
    write_plain_out,
)
from ._loss_common import raising_guard
from ._registry import register
from .._fused import jit as _fjit

__all__ = [
    "linalg_cholesky",
    "linalg_cholesky_ex",
    "linalg_qr",
    "qr",
    "geqrf",
    "linalg_householder_product",
    "orgqr",
    "ormqr",
    "linalg_svd",
    "linalg_svdvals",
    "svd",
    "linalg_eig",
    "linalg_eigvals",
    "linalg_eigh",
    "linalg_eigvalsh",
    "cholesky_value",
]

_sg = jax.lax.stop_gradient


def _hermitian_from(a, upper):
    """The Hermitian matrix PyTorch's LAPACK calls read from one triangle of `a` (real diagonal), whose
    derivative is that of (a + a^H) / 2: PyTorch's gradients of cholesky/eigh are Hermitian."""
    n = a.shape[-1]
    eye = jnp.eye(n, dtype=bool)
    tri = jnp.triu(a, 1) if upper else jnp.tril(a, -1)
    h = tri + mh(tri) + jnp.where(eye, jnp.real(a).astype(a.dtype), 0)
    sym = (a + mh(a)) / 2
    return _sg(h) + (sym - _sg(sym))


# ---- cholesky --------------------------------------------------------------------------------------------
def _chol_info_one(a):
    """LAPACK potrf's info for one Hermitian matrix: the order of the first leading minor that is not
    positive-definite (0: none), by the unblocked Cholesky-Crout recurrence."""
    n = a.shape[-1]
    rows = jnp.arange(n)

    def body(j, carry):
        lo, info = carry
        row = lo[j]
        d = jnp.real(a[j, j]) - jnp.sum(jnp.abs(row) ** 2)
        ok = (d > 0) & (info == 0)
        ljj = jnp.sqrt(jnp.where(ok, d, 1)).astype(a.dtype)
        col = (a[:, j] - lo @ jnp.conj(row)) / ljj
        col = jnp.where(rows > j, col, jnp.where(rows == j, ljj, 0))
        lo = lo.at[:, j].set(jnp.where(ok, col, lo[:, j]))
        return lo, jnp.where((info == 0) & ~(d > 0), j + 1, info).astype(jnp.int32)

    return jax.lax.fori_loop(0, n, body, (jnp.zeros_like(a), jnp.int32(0)))[1]


@_fjit
def _cholesky_info(h, lo):
    batch = h.shape[:-2]
    if h.size == 0:
        return jnp.zeros(batch, jnp.int32)
    flat = h.reshape((-1,) + h.shape[-2:])
    return jax.lax.cond(
        jnp.any(jnp.isnan(lo)),
        lambda: jax.vmap(_chol_info_one)(flat).reshape(batch),
        lambda: jnp.zeros(batch, jnp.int32),
    )


@functools.partial(_fjit, static_argnames=("upper",))
def _cholesky_k(a, upper):
    h = _hermitian_from(a, False)
    lo = jax.lax.linalg.cholesky(h, symmetrize_input=False) if a.size else a
    info = _cholesky_info(_sg(h), _sg(lo))
    return (mh(lo) if upper else lo), info


def _chol_message(code):
    return (
        "The factorization could not be completed because the input is not positive-definite (the "
        f"leading minor of order {code} is not positive-definite)."
    )


def cholesky_value(name, input, upper, check=True, kernel="cholesky_cpu"):
    """(L, info) of torch.linalg.cholesky(_ex) and torch.cholesky; raises LinAlgError when `check`."""
    check_square(name, input)
    check_float(name, input)
    check_low(kernel, input)
    lo, info = _cholesky_k(input._value, upper=bool(upper))
    if check:
        raise_info(name, info, input.ndim > 2, _chol_message)
    return new(lo, input._dtype, input), new(info, D.int32, input)


@register(
    "linalg_cholesky",
    function=False,
    method=False,
    out="linalg_cholesky_ex",
    kind="linalg",
    grad_name="LinalgCholeskyExBackward0",
)
def linalg_cholesky(A, *, upper=False):
    """`torch.linalg.cholesky(A, *, upper=False, out=None)`: raises LinAlgError for an input that is not
    positive-definite (reads `info` on the host, as PyTorch syncs). Only the lower (upper=False) triangle of A
    is read; the gradient is Hermitian, as PyTorch's."""
    return cholesky_value("linalg.cholesky", A, upper)[0]


@register("linalg_cholesky_ex", function=False, method=False, out=True, kind="linalg")
def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    """`torch.linalg.cholesky_ex(A, *, upper=False, check_errors=False, out=None)` -> (L, info); no host sync
    unless check_errors=True. Difference: where info > 0, L is NaN (PyTorch: LAPACK's partial factor)."""
    lo, info = cholesky_value("linalg.cholesky_ex", A, upper, check=bool(check_errors))
    return return_types.linalg_cholesky_ex((lo, info))


# ---- QR / geqrf / householder_product / ormqr ------------------------------------------------------------
_QR_MODES = ("reduced", "complete", "r")


def _qr_grad_check(mode, m, n):
    def guard(q, r):
        if mode == "r":
            return raising_guard(
                RuntimeError,
                "The derivative of linalg.qr depends on Q, which is not computed "
                "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                "differentiate through linalg.qr.",
            )(r, q)
        if mode == "complete" and m > n:
            return raising_guard(
                RuntimeError,
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
            )(r, q)
        return r

    return guard


def _qr_k(a, mode):
    m, n = a.shape[-2:]
    if a.size == 0:
        k = m if mode == "complete" else min(m, n)
        q = jnp.broadcast_to(jnp.eye(m, k, dtype=a.dtype), a.shape[:-2] + (m, k))
        return q, jnp.zeros(a.shape[:-2] + (k, n), a.dtype)
    q, r = jnp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    r = _qr_grad_check(mode, m, n)(q, r)
    return q, r


_qr_jit = _fjit(_qr_k, static_argnames=("mode",))


def _qr(name, A, mode):
    check_tensor(name.replace(".", "_"), A, "A", 1)
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    check_matrix(name, A)
    check_float(name, A)
    check_low("geqrf_cpu", A)
    q, r = _qr_jit(A._value, mode=mode)
    if mode == "r":
        q = jnp.zeros((0,), q.dtype)
    return new(q, A._dtype, A), new(r, A._dtype, A)


@register("linalg_qr", function=False, method=False, out=True, kind="linalg")
def linalg_qr(A, mode="reduced"):
    """`torch.linalg.qr(A, mode='reduced', *, out=None)` -> (Q, R); mode 'reduced', 'complete' or 'r' (Q
    empty). Householder QR (LAPACK geqrf/orgqr, as PyTorch: same signs of R's diagonal)."""
    return return_types.linalg_qr(_qr("linalg.qr", A, mode))


@register("qr", out="linalg_qr", kind="linalg", grad_name="LinalgQrBackward0")
def qr(input, some=True):
    """`torch.qr(input, some=True, *, out=None)` (deprecated; warns once) = torch.linalg.qr(input,
    'reduced' if some else 'complete')."""
    warn_once(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
        "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
        "'reduced' if some else 'complete')",
        UserWarning,
        user_stacklevel(),
    )
    return return_types.qr(_qr("linalg.qr", input, "reduced" if some else "complete"))


_GEQRF_GRAD = raising_guard(NotImplementedError, "the derivative for 'geqrf' is not implemented.")


@_fjit
def _geqrf_k(a):
    m, n = a.shape[-2:]
    if a.size == 0:
        return a, jnp.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    h, tau = jnp.linalg.qr(_sg(a), mode="raw")
    return _GEQRF_GRAD(jnp.swapaxes(h, -1, -2), a), _GEQRF_GRAD(tau, a)


def _geqrf(input):
    check_tensor("geqrf", input, "input", 1)
    check_matrix("geqrf", input, "A")
    check_float("geqrf", input)
    check_low("geqrf_cpu", input)
    a, tau = _geqrf_k(input._value)
    return return_types.geqrf((new(a, input._dtype, input), new(tau, input._dtype, input)))


_geqrf_recorded = differentiable("geqrf", _geqrf)


@register("geqrf", out=True, kind="composite")
def geqrf(input):
    """`torch.geqrf(input, *, out=None)` -> (a, tau): LAPACK's Householder QR in compact form. No
    derivative (PyTorch: NotImplementedError at backward; a complex input requiring grad raises at the call,
    as PyTorch)."""
    check_tensor("geqrf", input, "input", 1)
    if input._dtype.is_complex and is_grad_enabled() and any_requires_grad((input,), None):
        raise RuntimeError("geqrf does not support automatic differentiation for outputs with complex dtype.")
    return _geqrf_recorded(input)


def _reflectors(a, tau, q, conj_tau=False, reverse=True):
    """Apply the Householder reflectors H_i = I - tau_i v_i v_i^H (v_i: column i of `a` below the diagonal,
    1 on it) to q from the left, H_1 (H_2 (... H_k q)) (reverse) or H_k (... (H_1 q)); differentiable."""
    m, k = a.shape[-2], tau.shape[-1]
    rows = jnp.arange(m)

    def body(j, q):
        i = k - 1 - j if reverse else j
        col = jax.lax.dynamic_index_in_dim(a, i, axis=-1, keepdims=False)
        v = jnp.where(rows > i, col, jnp.where(rows == i, 1, 0).astype(a.dtype))
        t = jax.lax.dynamic_index_in_dim(tau, i, axis=-1, keepdims=False)
        t = jnp.conj(t) if conj_tau else t
        w = jnp.einsum("...i,...ij->...j", jnp.conj(v), q)
        return q - t[..., None, None] * v[..., :, None] * w[..., None, :]

    return jax.lax.fori_loop(0, k, body, q)


@_fjit
def _householder_k(a, tau):
    m, n = a.shape[-2:]
    q = jnp.broadcast_to(jnp.eye(m, n, dtype=a.dtype), a.shape)
    return _reflectors(a, tau, q)


def _householder_checks(name, input, tau):
    check_tensor(name.replace("torch.", "").replace(".", "_"), input, "input", 1)
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input._shape[-2] < input._shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if input._shape[-1] < tau._shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(
            f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.ndim} and input.ndim is equal to {input.ndim}"
        )
    if input._shape[:-2] != tau._shape[:-1]:
        raise RuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(tau._shape[:-1])}"
        )
    if tau._dtype is not input._dtype:
        raise RuntimeError(
            f"{name}: tau dtype {short_name(tau._dtype)} does not match input dtype "
            f"{short_name(input._dtype)}"
        )
    check_float(name, input)
    check_low("orgqr_cpu", input)


@register("linalg_householder_product", function=False, method=False, out=True, kind="linalg")
def linalg_householder_product(A, tau):
    """`torch.linalg.householder_product(A, tau, *, out=None)`: the first n columns of H_1 ... H_k (LAPACK
    orgqr), computed reflector by reflector in jax (differentiable twice)."""
    _householder_checks("torch.linalg.householder_product", A, tau)
    return new(_householder_k(A._value, tau._value), A._dtype, A)


@register(
    "orgqr", out="linalg_householder_product", kind="linalg", grad_name="LinalgHouseholderProductBackward0"
)
def orgqr(input, input2):
    """`torch.orgqr(input, tau, *, out=None)` = torch.linalg.householder_product(input, tau)."""
    _householder_checks("torch.linalg.householder_product", input, input2)
    return new(_householder_k(input._value, input2._value), input._dtype, input)


@functools.partial(_fjit, static_argnames=("left", "transpose"))
def _ormqr_k(a, tau, c, left, transpose):
    if left:  # Q c = H_1 (... H_k c); Q^H c = H_k^H (... H_1^H c)
        return _reflectors(a, tau, c, conj_tau=transpose, reverse=not transpose)
    # c Q = (Q^H c^H)^H; c Q^H = (Q c^H)^H
    return mh(_reflectors(a, tau, mh(c), conj_tau=not transpose, reverse=transpose))


@register("ormqr", out=True, kind="linalg")
def ormqr(input, input2, input3, left=True, transpose=False):
    """`torch.ormqr(input, tau, other, left=True, transpose=False, *, out=None)`: other multiplied by the Q
    of geqrf's (input, tau) (LAPACK ormqr), reflector by reflector in jax."""
    name = "torch.ormqr"
    check_tensor("ormqr", input, "input", 1)
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input3.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    d = -2 if left else -1
    if input3._shape[d] != input._shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{d}] must be equal to input.shape[-2]")
    if input2._shape[-1] > input3._shape[d]:
        raise RuntimeError(f"{name}: other.shape[{d}] must be greater than or equal to tau.shape[-1]")
    if input2._dtype is not input._dtype or input3._dtype is not input._dtype:
        bad = input2 if input2._dtype is not input._dtype else input3
        nm = "tau" if bad is input2 else "other"
        raise RuntimeError(
            f"{name}: Expected input and {nm} to have the same dtype, but input has dtype "
            f"{short_name(input._dtype)} and {nm} has dtype {short_name(bad._dtype)}"
        )
    check_float(name, input)
    check_low("ormqr_cpu", input)
    out = _ormqr_k(input._value, input2._value, input3._value, left=bool(left), transpose=bool(transpose))
    return new(out, input._dtype, input)


# ---- SVD -------------------------------------------------------------------------------------------------
def _svd_arrays(a, full_matrices, compute_uv):
    m, n = a.shape[-2:]
    k = min(m, n)
    rdt = jnp.finfo(a.dtype).dtype
    if a.size == 0:
        u = jnp.broadcast_to(
            jnp.eye(m, m if full_matrices else k, dtype=a.dtype),
            a.shape[:-2] + (m, m if full_matrices else k),
        )
        vh = jnp.broadcast_to(
            jnp.eye(n if full_matrices else k, n, dtype=a.dtype),
            a.shape[:-2] + (n if full_matrices else k, n),
        )
        return u, jnp.zeros(a.shape[:-2] + (k,), rdt), vh
    if not compute_uv:
        return None, jnp.linalg.svd(a, compute_uv=False), None
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    if full_matrices and m != n:
        # PyTorch differentiates through the first k columns of U / rows of Vh only (the rest is not
        # unique); the full factors' values, the reduced factors' derivative.
        uf, _, vhf = jnp.linalg.svd(_sg(a), full_matrices=True)
        u = uf.at[..., :, :k].add(u - _sg(u))
        vh = vhf.at[..., :k, :].add(vh - _sg(vh))
    return u, s, vh


_svd_k = _fjit(_svd_arrays, static_argnames=("full_matrices", "compute_uv"))


def _svd_checks(A, driver):
    check_tensor("linalg_svd", A, "A", 1)
    check_matrix("linalg.svd", A)
    check_float("linalg.svd", A)
    check_low("linalg_svd_cpu", A)
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )


_PHASE_TOL = 1e-2  # PyTorch's rtol = atol of its phase checks (lax: "we don't want false positives")
_SVD_PHASE = (
    "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}. "
    "The specified loss function depends on this phase term, making it ill-defined."
)
_EIG_PHASE = (
    "{}: The eigenvectors in the complex case are specified up to multiplication by e^{{i phi}}. The "
    "specified loss function depends on this quantity, so it is ill-defined."
)


def _imdiag(v, g):
    """imag(diag(V^H G)) over the batch (numpy)."""
    return np.imag(np.einsum("...ij,...ij->...j", np.conj(v), g))


def _svd_phase(vh_out):
    """The check PyTorch's svd_backward makes on the gradients of U and Vh (V for torch.svd: vh_out=False):
    imag(diag(U^H gU)) == -imag(diag(V^H gV)) within 1e-2, on the first k = min(m, n) singular vectors."""

    def check(node, grads):
        gu, gv = grads[0], grads[2]
        if gu is None and gv is None:
            return
        u, s_, v = node_outputs(node)
        vals = concrete(u, v, *[g._value for g in (gu, gv) if g is not None])
        if vals is None:
            return
        u, v, gs = vals[0], vals[1], iter(vals[2:])
        gu = next(gs) if gu is not None else None
        gv = next(gs) if gv is not None else None
        k = s_.shape[-1]
        if vh_out:
            v, gv = np.conj(np.swapaxes(v, -1, -2)), None if gv is None else np.conj(np.swapaxes(gv, -1, -2))
        zero = np.zeros(s_.shape)
        im_u = zero if gu is None else _imdiag(u[..., :, :k], gu[..., :, :k])
        im_v = zero if gv is None else _imdiag(v[..., :, :k], gv[..., :, :k])
        if not np.allclose(im_u, -im_v, rtol=_PHASE_TOL, atol=_PHASE_TOL):
            raise RuntimeError(_SVD_PHASE)

    return check


_SVD_CHECK_VH, _SVD_CHECK_V = _svd_phase(True), _svd_phase(False)


def _eig_phase(name):
    """The check of PyTorch's linalg_eig_backward (eigh's: name): imag(diag(V^H gV)) == 0 within 1e-2."""

    def check(node, grads):
        gv = grads[1]
        if gv is None:
            return
        vals = concrete(node_outputs(node)[1], gv._value)
        if vals is None:
            return
        im = _imdiag(*vals)
        if not np.allclose(im, 0, rtol=_PHASE_TOL, atol=_PHASE_TOL):
            raise RuntimeError(_EIG_PHASE.format(name))

    return check


_EIG_CHECK, _EIGH_CHECK = _eig_phase("linalg_eig_backward"), _eig_phase("linalg_eigh_backward")


def _linalg_svd(A, full_matrices=True, *, driver=None):
    _svd_checks(A, driver)
    u, s, vh = _svd_k(A._value, full_matrices=bool(full_matrices), compute_uv=True)
    rdt = A._dtype.to_real()
    return return_types.linalg_svd((new(u, A._dtype, A), new(s, rdt, A), new(vh, A._dtype, A)))


_linalg_svd_recorded = differentiable("linalg_svd", _linalg_svd)


@register("linalg_svd", function=False, method=False, out="_linalg_svd", kind="composite")
def linalg_svd(A, full_matrices=True, *, driver=None):
    """`torch.linalg.svd(A, full_matrices=True, *, driver=None, out=None)` -> (U, S, Vh) (LAPACK gesdd, as
    PyTorch on CPU; singular vectors are unique up to sign/phase, which may differ from PyTorch's LAPACK).
    driver= raises PyTorch's CPU error. Gradients: jax's SVD derivative (equal to PyTorch's on
    gauge-invariant losses); with full_matrices=True only the first min(m, n) columns of U / rows of Vh carry
    gradient, as in PyTorch. For complex A the backward raises PyTorch's error for a loss that depends on
    the singular vectors' phases (it reads the gradients on the host, as PyTorch; not under jax tracing)."""
    r = _linalg_svd_recorded(A, full_matrices, driver=driver)
    if r[0]._dtype.is_complex:
        check_backward(r[0], _SVD_CHECK_VH)
    return r


def _svdvals(A, driver=None):
    _svd_checks(A, driver)
    s = _svd_k(A._value, full_matrices=False, compute_uv=False)[1]
    return new(s, A._dtype.to_real(), A)


_svdvals_recorded = differentiable("linalg_svdvals", _svdvals, grad_name="LinalgSvdBackward0")


@register(
    "linalg_svdvals",
    function=False,
    method=False,
    out="_linalg_svd",
    kind="linalg",
    grad_name="LinalgSvdBackward0",
)
def linalg_svdvals(A, *, driver=None):
    """`torch.linalg.svdvals(A, *, driver=None, out=None)`: the singular values, descending."""
    return _svdvals(A, driver)


def _svd_uv(input, some=True):
    _svd_checks(input, None)
    u, s, vh = _svd_k(input._value, full_matrices=not some, compute_uv=True)
    dt, rdt = input._dtype, input._dtype.to_real()
    return return_types.svd((new(u, dt, input), new(s, rdt, input), new(mh(vh), dt, input)))


_svd_uv_recorded = differentiable("svd", _svd_uv, grad_name="LinalgSvdBackward0")


@register("svd", out="_linalg_svd", kind="composite")
def svd(input, some=True, compute_uv=True):
    """`torch.svd(input, some=True, compute_uv=True, *, out=None)` -> (U, S, V) with V = Vh^H (not Vh).
    compute_uv=False: U and V are zero matrices of the full shapes (m x m, n x n) that don't require grad,
    as in PyTorch. Complex inputs: the phase check of linalg.svd's backward."""
    if compute_uv:
        r = _svd_uv_recorded(input, bool(some))
        if r[0]._dtype.is_complex:
            check_backward(r[0], _SVD_CHECK_V)
        return r
    s = _svdvals_recorded(input)
    dt = input._dtype
    m, n = input._shape[-2:]
    batch = input._shape[:-2]
    u = new(jnp.zeros(batch + (m, m), dt.np), dt, input)
    v = new(jnp.zeros(batch + (n, n), dt.np), dt, input)
    return return_types.svd((u, s, v))


# ---- eig / eigh ------------------------------------------------------------------------------------------
def _eig_checks(name, A):
    check_tensor(name.replace(".", "_"), A, "A", 1)
    check_square(name, A)
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {short_name(A._dtype)}")
    check_low("linalg_eig_out_cpu", A)


@_fjit
def _eig_k(a):
    ct = jnp.result_type(a.dtype, jnp.complex64)
    if a.size == 0:
        return jnp.zeros(a.shape[:-1], ct), jnp.zeros(a.shape, ct)
    w, v = jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return w.astype(ct), v.astype(ct)


def _linalg_eig(A):
    _eig_checks("linalg.eig", A)
    w, v = _eig_k(A._value)
    ct = A._dtype.to_complex()
    return return_types.linalg_eig((new(w, ct, A), new(v, ct, A)))


_linalg_eig_recorded = differentiable("linalg_eig", _linalg_eig)


@register("linalg_eig", function=False, method=False, out=True, kind="composite")
def linalg_eig(A):
    """`torch.linalg.eig(A, *, out=None)` -> (eigenvalues, eigenvectors), complex (LAPACK geev: unit-norm
    eigenvectors, as PyTorch). The backward raises PyTorch's error for a loss that depends on the
    eigenvectors' phases (it reads the gradients on the host, as PyTorch; not under jax tracing)."""
    r = _linalg_eig_recorded(A)
    check_backward(r[1], _EIG_CHECK)
    return r


@register("linalg_eigvals", function=False, method=False, kind="linalg", grad_name="LinalgEigBackward0")
def linalg_eigvals(A, *, out=None):
    """`torch.linalg.eigvals(A, *, out=None)`: the (complex) eigenvalues of square matrices. out= is
    accepted with an input requiring grad, as in PyTorch (torchshim's out then has no history)."""
    _eig_checks("linalg.eigvals", A)
    return write_plain_out(new(_eig_k(A._value)[0], A._dtype.to_complex(), A), out)


def _eigh(name, A, UPLO):
    check_tensor(name.replace(".", "_"), A, "A", 1)
    upper = str(UPLO).upper()
    if upper not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    check_square("linalg.eigh", A)
    check_low("linalg_eigh_cpu", A)
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{short_name(A._dtype)}'")
    return _eigh_k(A._value, upper=upper == "U")


@functools.partial(_fjit, static_argnames=("upper",))
def _eigh_k(a, upper):
    if a.size == 0:
        return jnp.zeros(a.shape[:-1], jnp.finfo(a.dtype).dtype), a
    v, w = jax.lax.linalg.eigh(_hermitian_from(a, upper), symmetrize_input=False)
    return w, v


def _linalg_eigh(A, UPLO="L"):
    w, v = _eigh("linalg.eigh", A, UPLO)
    return return_types.linalg_eigh((new(w, A._dtype.to_real(), A), new(v, A._dtype, A)))


_linalg_eigh_recorded = differentiable("linalg_eigh", _linalg_eigh)


@register("linalg_eigh", function=False, method=False, out="_linalg_eigh", kind="composite")
def linalg_eigh(A, UPLO="L"):
    """`torch.linalg.eigh(A, UPLO='L', *, out=None)` -> (eigenvalues ascending, eigenvectors): reads the
    UPLO triangle only; gradients Hermitian as PyTorch's. Eigenvector signs/phases may differ from PyTorch's
    LAPACK (compare gauge-invariant quantities). For complex A the backward raises PyTorch's error for a
    loss that depends on the eigenvectors' phases (a host read of the gradients, as PyTorch; not under jax
    tracing)."""
    r = _linalg_eigh_recorded(A, UPLO)
    if r[1]._dtype.is_complex:
        check_backward(r[1], _EIGH_CHECK)
    return r


@register(
    "linalg_eigvalsh",
    function=False,
    method=False,
    out="_linalg_eigh",
    kind="linalg",
    grad_name="LinalgEighBackward0",
)
def linalg_eigvalsh(A, UPLO="L"):
    """`torch.linalg.eigvalsh(A, UPLO='L', *, out=None)`: the eigenvalues of a Hermitian matrix, ascending."""
    return new(_eigh("linalg.eigvalsh", A, UPLO)[0], A._dtype.to_real(), A)


# ---- removed top-level functions: PyTorch 2.13 still binds them, to raise ---------------------------------
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_EIG_REMOVED = _REMOVED + (
    "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
    "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
    "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
    "L_complex, V_complex = torch.linalg.eig(A)"
)
_SYMEIG_REMOVED = _REMOVED + (
    "The default behavior has changed from using the upper triangular portion of the matrix by default to "
    "using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
    "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
    "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
)
_LSTSQ_REMOVED = _REMOVED + (
    "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
    "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
    "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
    "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
    "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
    "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
    "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, "
    "B).solution"
)
_MATRIX_RANK_REMOVED = _REMOVED + (
    "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
    "`torch.linalg.matrix_rank()` to 'hermitian'."
)


@register("eig", kind="linalg")
def eig(input, eigenvectors=False):
    """`torch.eig(input, eigenvectors=False)` / `Tensor.eig`: removed in PyTorch 1.9; raises its
    RuntimeError (use torch.linalg.eig)."""
    raise RuntimeError(_EIG_REMOVED)


@register("symeig", kind="linalg")
def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """`torch.symeig(input, eigenvectors=False, upper=True)` / `Tensor.symeig`: removed; raises its
    RuntimeError (use torch.linalg.eigh)."""
    raise RuntimeError(_SYMEIG_REMOVED)


@register("lstsq", kind="linalg")
def lstsq(input, A, *, out=None):
    """`torch.lstsq(B, A)` / `Tensor.lstsq`: removed; raises its RuntimeError (use torch.linalg.lstsq)."""
    raise RuntimeError(_LSTSQ_REMOVED)


@register("matrix_rank", method=False, kind="linalg")
def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """`torch.matrix_rank(input, tol=None, symmetric=False)`: removed; raises its RuntimeError (use
    torch.linalg.matrix_rank). PyTorch has no Tensor.matrix_rank."""
    raise RuntimeError(_MATRIX_RANK_REMOVED)
