"""`torch.svd_lowrank` and `torch.pca_lowrank`: randomized low-rank SVD / PCA (Halko, Martinsson & Tropp
2009, algorithms 4.4 and 5.1), composed of public ops (randn, matmul, linalg.qr, linalg.svd), so autograd
records through them and they batch over leading dimensions like those ops.

The random test matrix comes from torchshim's generator (`torch.manual_seed` makes a run repeatable), not
PyTorch's stream: the factors differ from PyTorch's run for run, their products and singular values agree to
the accuracy of the approximation.
"""
from . import _api as torch
from . import linalg as _linalg, overrides as _overrides, sparse as _sparse

__all__ = ["svd_lowrank", "pca_lowrank"]


def _dispatch(fn, tensors, *args, **kwargs):
    """PyTorch's `__torch_function__` hand-off of these Python functions: only when an argument is a
    Tensor subclass or another type that overrides it."""
    if not {type(t) for t in tensors} <= {torch.Tensor, type(None)} \
            and _overrides.has_torch_function(tensors):
        return True, _overrides.handle_torch_function(fn, tensors, *args, **kwargs)
    return False, None


def _floating_dtype(A):
    """The dtype of the random test matrices: A's own for half/float/double, float32 otherwise."""
    return A.dtype if A.dtype in (torch.float16, torch.float32, torch.float64) else torch.float32


def _mm(A, B):
    """A @ B, with a sparse COO `A` through torch.sparse.mm as PyTorch's low-rank helpers do."""
    if A.layout == torch.sparse_coo:
        return _sparse.mm(A, B)
    return torch.matmul(A, B)


def _adjoint(A):
    """A^H; a real sparse COO A by its transpose (torchshim's sparse tensors have no conj/adjoint)."""
    return A.mT if A.layout == torch.sparse_coo and not A.is_complex() else A.mH


def _range_basis(A, q, niter, M):
    """Q with q orthonormal columns (fewer when A has fewer rows) such that Q Q^H (A - M) ~ A - M, by a
    Gaussian sketch and `niter` power (subspace) iterations, re-orthonormalised by QR at every step."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_complex() else _floating_dtype(A)
    R = torch.randn(A.shape[-1], q, dtype=dtype, device=A.device)
    X = _mm(A, R)
    if M is not None:
        X = X - _mm(M, R)
    Q = _linalg.qr(X).Q
    for _ in range(niter):
        X = _mm(_adjoint(A), Q)
        if M is not None:
            X = X - _mm(M.mH, Q)
        Q = _linalg.qr(X).Q
        X = _mm(A, Q)
        if M is not None:
            X = X - _mm(M, Q)
        Q = _linalg.qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    wide = m < n
    if wide:  # work on the tall one
        A = _adjoint(A)
        M = None if M is None else M.mH
    Q = _range_basis(A, q, niter, M)
    B = _mm(Q.mH, A)
    if M is not None:
        B = B - _mm(Q.mH, M)
    U, S, Vh = _linalg.svd(B, full_matrices=False)
    U, V = Q.matmul(U), Vh.mH
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """svd_lowrank(A, q=6, niter=2, M=None) -> (U, S, V)

    An approximate SVD `A ~ U diag(S) V^H` (of `A - M` when `M`, broadcast to A's shape, is given) of a
    matrix, a batch of matrices or a sparse COO matrix: U is (*, m, q'), S (*, q'), V (*, n, q') with
    q' = min(q, m, n). `q=None` means 6, `niter=None` means 2. Returns a plain tuple, as PyTorch.

    Differences from PyTorch: the random sketch comes from torchshim's generator, so the factors are not
    PyTorch's bit for bit (see the module docstring).
    """
    handled, result = _dispatch(svd_lowrank, (A, M), A, q=q, niter=niter, M=M)
    if handled:
        return result
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """pca_lowrank(A, q=None, center=True, niter=2) -> (U, S, V)

    Principal component analysis of the data matrix A (*, m, n) (m samples, n features) by `svd_lowrank` of A
    centred over its rows (`center=True`) or of A as given: V's columns are the principal directions,
    S**2 / (m - 1) the variances along them. `q` defaults to min(6, m, n); PyTorch's ValueError when q is not
    in [0, min(m, n)] or niter is negative. A sparse COO A must be 2-D; it is centred without densifying it.

    Differences from PyTorch: the random sketch (see `svd_lowrank`).
    """
    handled, result = _dispatch(pca_lowrank, (A,), A, q=q, center=center, niter=niter)
    if handled:
        return result
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    if A.layout == torch.sparse_coo:
        if A.dim() != 2:
            raise ValueError("pca_lowrank input is expected to be 2-dimensional tensor")
        # the row of column means, as a rank-one mean matrix M = 1_m c (dense: only m x n through matmuls)
        dtype = _floating_dtype(A)
        c = (_sparse.sum(A, dim=(-2,)) / m).to_dense().to(dtype)
        M = torch.ones(m, 1, dtype=dtype, device=A.device).matmul(c.reshape(1, n))
        return _svd_lowrank(A, q, niter=niter, M=M)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
