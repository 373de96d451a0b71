"""`torch.lobpcg`: the k extreme eigenpairs of a symmetric positive definite (generalized) eigenproblem
A X = B X E by LOBPCG (Knyazev 2001, `method="basic"`; with the orthogonal basis selection of Stathopoulos &
Wu 2002 / Duersch et al. 2018, `method="ortho"`), composed of public ops.

The iteration is data dependent (convergence tests, column dropping) and so synchronises with the host every
step, as PyTorch's does; it does not trace under jax.jit. The random start comes from torchshim's generator,
so the iterates are not PyTorch's bit for bit; the converged eigenpairs agree to the tolerance.

Gradients, as PyTorch: when A (or B) requires grad, A is symmetrised ((A + A^T) / 2) and the result gets the
analytic backward of a partial symmetric eigendecomposition (`_LOBPCGFunction`), not a differentiation of
the iterations; PyTorch's ValueErrors for sparse, complex and B != None backward.
"""
from . import _api as torch
from . import linalg as _linalg, overrides as _overrides, sparse as _sparse
from .autograd.function import Function as _Function

__all__ = ["lobpcg"]


def _floating_dtype(A):
    return A.dtype if A.dtype in (torch.float16, torch.float32, torch.float64) else torch.float32


def _mm(A, X):
    """A @ X with A = None meaning the identity and a sparse COO A going through torch.sparse.mm."""
    if A is None:
        return X
    if A.layout == torch.sparse_coo:
        return _sparse.mm(A, X)
    return torch.matmul(A, X)


def _qform(A, S):
    """S^T A S."""
    return torch.matmul(S.mT, _mm(A, S))


def _symeig(M, largest=False):
    """Eigenpairs of the symmetric M from its upper triangle, ascending (descending when `largest`)."""
    E, Z = _linalg.eigh(M, UPLO="U")
    if largest:
        E, Z = torch.flip(E, dims=(-1,)), torch.flip(Z, dims=(-1,))
    return E, Z


# ---------------------------------------------------------------------------------------------- backward

def _eigenspace_grad(D_grad, U_grad, D, U):
    """The gradient for A of (D, U) restricted to span(U): U (diag(D_grad) + (U^T U_grad) / (d_j - d_i)) U^T,
    the off-diagonal quotient set to 0 on the diagonal."""
    gap = D.unsqueeze(-2) - D.unsqueeze(-1)
    eye = torch.eye(D.shape[-1], dtype=torch.bool, device=D.device)
    inv_gap = torch.where(eye, torch.zeros_like(gap), 1 / torch.where(eye, torch.ones_like(gap), gap))
    inner = torch.diag_embed(D_grad) + torch.matmul(U.mT, U_grad) * inv_gap
    return torch.matmul(U, torch.matmul(inner, U.mT))


def _complement_grad(U_grad, A, D, U):
    """The part of A's gradient that the eigenvector cotangents carry outside span(U): with P = I - U U^T,
    -sum_i y_i u_i^T where y_i solves P (A - d_i) P y_i = P g_i in range(P) (the Sylvester equation of the
    perturbed invariant subspace, column by column). The system is made regular on span(U) by adding U U^T,
    which leaves the range(P) block untouched."""
    m = U.shape[-2]
    eye = torch.eye(m, dtype=A.dtype, device=A.device)
    UUt = torch.matmul(U, U.mT)
    P = eye - UUt
    shifted = A.unsqueeze(-3) - D.unsqueeze(-1).unsqueeze(-1) * eye  # (..., k, m, m): A - d_i I
    K = torch.matmul(P.unsqueeze(-3), torch.matmul(shifted, P.unsqueeze(-3))) + UUt.unsqueeze(-3)
    rhs = torch.matmul(P, U_grad).mT.unsqueeze(-1)  # (..., k, m, 1): P g_i
    Y = _linalg.solve(K, rhs).squeeze(-1).mT  # (..., m, k)
    return -torch.matmul(Y, U.mT)


def _symeig_grad(D_grad, U_grad, A, D, U):
    res = _eigenspace_grad(D_grad, U_grad, D, U)
    if U.shape[-1] != U.shape[-2]:
        res = res + _complement_grad(U_grad, A, D, U)
    return res


class _LOBPCGFunction(_Function):
    """lobpcg with the analytic backward of the computed eigenpairs (A's gradient only, B = None)."""

    @staticmethod
    def forward(ctx, A, k, B, X, n, iK, niter, tol, largest, method, tracker, iparams, fparams, bparams):
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, iparams, fparams, bparams)
        ctx.save_for_backward(A, B, D, U)
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        if A.is_sparse or (B is not None and B.is_sparse and ctx.needs_input_grad[2]):
            raise ValueError("lobpcg.backward does not support sparse input yet. "
                             "Note that lobpcg.forward does though.")
        if A.is_complex() or (B is not None and B.is_complex()):
            raise ValueError("lobpcg.backward does not support complex input yet. "
                             "Note that lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        D_grad = torch.zeros_like(D) if D_grad is None else D_grad
        U_grad = torch.zeros_like(U) if U_grad is None else U_grad
        return (_symeig_grad(D_grad, U_grad, A, D, U),) + (None,) * 13


# ---------------------------------------------------------------------------------------------- front

def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
    tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None) -> (E, X)

    The k largest (`largest=True`, the default) or smallest eigenvalues E (*, k) and eigenvectors X (*, m, k)
    of A X = B X E for a symmetric positive definite A (*, m, m) (dense, batched or sparse COO) and B (the
    identity when None). k defaults to X's columns or 1; n (the block size, >= k) to k or X's columns; X is
    the starting block (random when None); iK a preconditioner; niter the iteration limit (default 1000, -1:
    until converged); tol the residual tolerance (default sqrt(eps) of A's float type); method "ortho"
    (default) or "basic" (any other string runs "basic", as PyTorch); `tracker(worker)` is called after every
    step with the `LOBPCG` worker (its `iparams`, `fparams`, `bparams`, `ivars`, `fvars`, `bvars`, `tvars`,
    `A`, `B`, `iK`, `E`, `X`, `S`, `R`; `worker.bvars["force_stop"] = True` stops it); the ortho_* dicts set
    ortho_i_max/ortho_j_max, ortho_tol/ortho_tol_drop/ortho_tol_replace and ortho_use_drop. PyTorch's
    AssertionError for a non-square A, B of another shape or X of the wrong shape, ValueError when m < 3 n.

    Differences from PyTorch: the random start block (see the module docstring); synchronises every step.
    """
    tensors = (A, B, X, iK)
    if not {type(t) for t in tensors} <= {torch.Tensor, type(None)} \
            and _overrides.has_torch_function(tensors):
        return _overrides.handle_torch_function(
            lobpcg, tensors, A, k=k, B=B, X=X, n=n, iK=iK, niter=niter, tol=tol, largest=largest,
            method=method, tracker=tracker, ortho_iparams=ortho_iparams, ortho_fparams=ortho_fparams,
            ortho_bparams=ortho_bparams)
    if A.requires_grad or (B is not None and B.requires_grad):
        # A's gradient is made symmetric (so that A - t A.grad stays symmetric) by symmetrising A first
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return _LOBPCGFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                     ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                   ortho_bparams)


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
            ortho_bparams):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = _floating_dtype(A)
    if tol is None:
        tol = {torch.float32: 1.2e-07, torch.float64: 2.23e-16}[dtype] ** 0.5  # KeyError for half, as PyTorch
    m = A.shape[-1]
    if k is None:
        k = 1 if X is None else X.shape[-1]
    n = X.shape[-1] if X is not None else (k if n is None else n)
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)

    def solve_one(A_, B_, X_):
        X_ = torch.randn((m, n), dtype=dtype, device=A.device) if X_ is None else X_
        if not (X_.dim() == 2 and tuple(X_.shape) == (m, n)):
            raise AssertionError(f"{'X_' if A.dim() > 2 else 'X'} shape mismatch: got {X_.shape}, "
                                 f"expected {(m, n)}")
        worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
        worker.run()
        return worker.E[:k], worker.X[:, :k]

    if A.dim() == 2:
        return solve_one(A, B, X)
    batch = tuple(A.shape[:-2])
    N = 1
    for s in batch:
        N *= s
    bA = A.reshape((N, m, m))
    bB = B.reshape((N, m, m)) if B is not None else None
    bX = X.reshape((N,) + tuple(X.shape[-2:])) if X is not None else None
    bE = torch.empty((N, k), dtype=dtype, device=A.device)
    bV = torch.empty((N, m, k), dtype=dtype, device=A.device)
    for i in range(N):
        iparams["batch_index"] = i
        bE[i], bV[i] = solve_one(bA[i], None if bB is None else bB[i], None if bX is None else bX[i])
    return bE.reshape(batch + (k,)), bV.reshape(batch + (m, k))


# ---------------------------------------------------------------------------------------------- worker

class LOBPCG:
    """The LOBPCG iteration state (what a `tracker` sees): inputs `A`, `B`, `iK`; parameters `iparams`
    (m, n, k, niter, ortho_i_max, ...), `fparams` (tol, ortho_tol, ...), `bparams` (largest,
    ortho_use_drop); iteration variables `ivars` (istep, converged_count, converged_end, iterations_left,
    ...), `fvars` (X_norm, A_norm, B_norm, ortho_*_rerr), `bvars` (force_stop), `tvars` (rerr) and the
    tensors `E` (n Ritz values), `X` (m x n Ritz vectors), `R` (residuals), `S` (m x 3n search basis)."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = torch.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = torch.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = torch.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        names = ["iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars", "A", "B", "iK", "X",
                 "E"]
        return "LOBPCG:\n" + "".join(f"  {name}={getattr(self, name)}\n" for name in names)

    # -- the iteration
    def run(self):
        """One step, then steps until `stop_iteration()`; the tracker after each."""
        self.update()
        self.call_tracker()
        while not self.stop_iteration():
            self.update()
            self.call_tracker()

    def call_tracker(self):
        if self.tracker is not None:
            self.tracker(self)

    def stop_iteration(self):
        """True when forced (bvars["force_stop"]), out of iterations, or k pairs have converged."""
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def update(self):
        """One LOBPCG step (the first also measures the norms the convergence test scales by)."""
        if self.ivars["istep"] == 0:
            x_norm = float(torch.norm(self.X))
            self.fvars["X_norm"] = x_norm
            inv_x_norm = x_norm ** -1  # ZeroDivisionError for an empty X, as PyTorch
            self.fvars["A_norm"] = float(torch.norm(_mm(self.A, self.X))) * inv_x_norm
            self.fvars["B_norm"] = float(torch.norm(_mm(self.B, self.X))) * inv_x_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self):
        """R = A X - B X diag(E)."""
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self):
        """The number of leading Ritz pairs whose backward-stable relative residual
        ||r_j|| / (||x_j|| (||A|| + |e_j| ||B||)) is under tol (Duersch et al. 2018, sec. 4.3); the first
        unconverged pair ends the count so that the converged ones stay in order."""
        before = self.ivars["converged_count"]
        rerr = torch.norm(self.R, 2, (0,)) / (torch.norm(self.X, 2, (0,)) * (
            self.fvars["A_norm"] + torch.abs(self.E[: self.X.shape[-1]]) * self.fvars["B_norm"]))
        count = 0
        for ok in (rerr < self.fparams["tol"]).tolist():
            if not ok:
                break
            count += 1
        if count < before:
            raise AssertionError(f"the number of converged eigenpairs (was {before}, got {count}) "
                                 "cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    # -- the two variants
    def _update_basic(self):
        mm, n, largest = torch.matmul, self.iparams["n"], self.bparams["largest"]
        nc, ns = self.ivars["converged_count"], self.ivars["converged_end"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            E, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X[:] = mm(self.X, mm(Ri, Z))  # in place: the caller's X too, as PyTorch
            self.E[:] = E
            n_p = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _mm(self.iK, self.R)
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            E_, Z = _symeig(_qform(_qform(self.A, S_), Ri), largest)
            self.X[:, nc:] = mm(S_, mm(Ri, Z[:, : n - nc]))
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Ri, Z[:, n: 2 * n - nc]))
            n_p = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n: n + n_p] = P
            W = _mm(self.iK, self.R[:, nc:])
        ns = self.ivars["converged_end"] = n + n_p + W.shape[-1]
        self.S[:, n + n_p: ns] = W

    def _update_ortho(self):
        mm, n, largest = torch.matmul, self.iparams["n"], self.bparams["largest"]
        nc, ns = self.ivars["converged_count"], self.ivars["converged_end"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            _, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X = mm(self.X, mm(Ri, Z))
            self.update_residual()
            n_p = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = _symeig(_qform(self.A, S_), largest)  # S_ is B-orthonormal: plain Rayleigh-Ritz
            self.X[:, nc:] = mm(S_, Z[:, : n - nc])
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Z[:, n - nc:], _linalg.qr(Z[: n - nc, n - nc:].mT).Q))
            n_p = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n: n + n_p] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, : n + n_p])
        ns = self.ivars["converged_end"] = n + n_p + W.shape[-1]
        self.S[:, n + n_p: ns] = W

    # -- the building blocks
    def _get_rayleigh_ritz_transform(self, S):
        """Ri (upper triangular) with Ri^T S^T B S Ri = I: S^T B S scaled to unit diagonal by d = diag^-1/2,
        Cholesky-factored R^T R, Ri = diag(d) R^-1; the Ritz problem becomes Ri^T S^T A S Ri Z = Z E."""
        SBS = _qform(self.B, S)
        d = SBS.diagonal(0, -2, -1) ** -0.5
        R = _linalg.cholesky(SBS * d * d.reshape(d.shape[0], 1), upper=True)
        return _linalg.solve_triangular(R, d.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """U made B-orthonormal by the SVQB scheme (Stathopoulos & Wu 2002; Duersch's algorithm 4): exact zero
        columns dropped, U^T B U scaled to unit diagonal, its eigenvalues below tau * max|E| raised to that
        floor (or those columns dropped when `drop`)."""
        if U.numel() == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        nonzero = torch.where(abs(d) != 0.0)[0]
        if len(nonzero) < len(d):
            U = U[:, nonzero]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            left = torch.where(abs(d) != 0.0)[0]
            if len(left) != len(d):
                raise AssertionError(f"expected nz[0] length {len(d)}, got {len(left)}")
        d_col = (d ** -0.5).reshape(d.shape[0], 1)
        E, Z = _symeig((UBU * d_col) * d_col.mT)
        floor = tau * abs(E).max()
        if drop:
            keep = torch.where(E > floor)[0]
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E = torch.where(E < floor, floor, E)
        return torch.matmul(U * d_col.mT, Z * E ** -0.5)

    def _get_ortho(self, U, V):
        """U made B-orthonormal and B-orthogonal to the B-orthonormal V (Duersch's algorithm 3; algorithm 6,
        dropping nearly dependent columns, with bparams["ortho_use_drop"]): at most ortho_i_max rounds of
        projecting V out, each with at most ortho_j_max SVQB passes, stopping when the relative errors of
        U^T B U - I and V^T B U fall under ortho_tol. May return fewer (or no) columns."""
        mm = torch.matmul
        m = self.iparams["m"]
        tau_ortho, tau_drop, tau_replace = (self.fparams[key] for key in
                                            ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"))
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [key for key in self.fvars if key.startswith("ortho_") and key.endswith("_rerr")]:
            del self.fvars[key]
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)

        BV_norm = torch.norm(_mm(self.B, V))
        BU = _mm(self.B, U)
        VBU = mm(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - mm(V, VBU)
            drop, tau_svqb = False, tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if U.numel() == 0:  # every column of U was B-collinear to V
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _mm(self.B, U)
                UBU = mm(U.mT, BU)
                rerr = float(torch.norm(UBU - torch.eye(UBU.shape[-1], dtype=UBU.dtype, device=UBU.device))) \
                    * float(torch.norm(BU) * torch.norm(U)) ** -1
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = mm(V.mT, BU)
            rerr = float(torch.norm(VBU)) * float(BV_norm * torch.norm(U)) ** -1
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                if self.B is None:
                    raise AssertionError("B must not be None")
                raise ValueError("Overdetermined shape of U:"
                                 f" #B-cols(={self.B.shape[-1]}) >= #U-cols(={U.shape[-1]}) +"
                                 f" #V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U
