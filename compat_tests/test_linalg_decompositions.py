"""torch.linalg decompositions and solvers beyond the records (records/linalg_decompositions.py): the
LinAlgError class, names and named tuples, the `*_ex` forms tracing under jax.jit without a host sync, and
gradient conventions (svd with full_matrices, eigh/cholesky Hermitian gradients, singular det)."""

import warnings

import jax
import numpy as np
import pytest
import torch

import torchshim
from grad_harness import check_grad
from harness import Arg, check

NAMES = [
    "cholesky",
    "cholesky_ex",
    "qr",
    "svd",
    "svdvals",
    "eig",
    "eigvals",
    "eigh",
    "eigvalsh",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "solve",
    "solve_ex",
    "solve_triangular",
    "lstsq",
    "inv",
    "inv_ex",
    "det",
    "slogdet",
    "householder_product",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
]


@pytest.mark.parametrize("name", NAMES)
def test_names(name):
    assert getattr(torchshim.linalg, name).__name__ == getattr(torch.linalg, name).__name__
    assert name in torchshim.linalg._decompositions.__all__


def test_linalg_error_class():
    E = torchshim.linalg.LinAlgError
    assert issubclass(E, RuntimeError) and E.__name__ == torch.linalg.LinAlgError.__name__
    with pytest.raises(E, match="leading minor of order 2"):
        torchshim.linalg.cholesky(torchshim.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(E, match=r"\(Batch element 1\): The solver failed"):
        torchshim.linalg.solve(
            torchshim.stack([torchshim.eye(2), torchshim.ones(2, 2)]), torchshim.ones(2, 2)
        )


@pytest.mark.parametrize(
    "name,call",
    [
        ("linalg_svd", lambda T, x: T.linalg.svd(x)),
        ("linalg_eigh", lambda T, x: T.linalg.eigh(x @ x.mT)),
        ("linalg_eig", lambda T, x: T.linalg.eig(x)),
        ("linalg_qr", lambda T, x: T.linalg.qr(x)),
        ("linalg_lu", lambda T, x: T.linalg.lu(x)),
        ("linalg_lu_factor", lambda T, x: T.linalg.lu_factor(x)),
        ("linalg_lu_factor_ex", lambda T, x: T.linalg.lu_factor_ex(x)),
        ("linalg_cholesky_ex", lambda T, x: T.linalg.cholesky_ex(x @ x.mT)),
        ("linalg_inv_ex", lambda T, x: T.linalg.inv_ex(x)),
        ("linalg_solve_ex", lambda T, x: T.linalg.solve_ex(x, x)),
        ("linalg_lstsq", lambda T, x: T.linalg.lstsq(x, x)),
        ("linalg_slogdet", lambda T, x: T.linalg.slogdet(x)),
        ("svd", lambda T, x: T.svd(x)),
        ("qr", lambda T, x: T.qr(x)),
        ("geqrf", lambda T, x: T.geqrf(x)),
        ("lu_unpack", lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x))),
        ("slogdet", lambda T, x: T.slogdet(x)),
        ("_lu_with_info", lambda T, x: T.lu(x, get_infos=True)),
        ("linalg_ldl_factor", lambda T, x: T.linalg.ldl_factor(x + x.mT)),
        ("linalg_ldl_factor_ex", lambda T, x: T.linalg.ldl_factor_ex(x + x.mT)),
    ],
)
def test_named_tuples(name, call):
    x = np.random.default_rng(0).standard_normal((3, 3)) + 3 * np.eye(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = call(torch, torch.tensor(x))
        g = call(torchshim, torchshim.tensor(x))
    assert type(r).__name__ == type(g).__name__ == name
    fields = [
        f
        for f in dir(type(r))
        if not f.startswith("_") and f not in ("count", "index") and not f.startswith("n_")
    ]
    assert sorted(g._fields) == sorted(fields)
    assert repr(g).startswith(f"torch.return_types.{name}(")


def _traced(fn, *arrays):
    from torchshim._tensor import wrap

    def f(*a):
        out = fn(*[wrap(x) for x in a])
        return tuple(t._value for t in out)

    return jax.jit(f)(*arrays)


@pytest.mark.parametrize(
    "name,call",
    [
        ("cholesky_ex", lambda T, x: T.linalg.cholesky_ex(x)),
        ("inv_ex", lambda T, x: T.linalg.inv_ex(x)),
        ("lu_factor_ex", lambda T, x: T.linalg.lu_factor_ex(x)),
        ("solve_ex", lambda T, x: T.linalg.solve_ex(x, x)),
        ("ldl_factor_ex", lambda T, x: T.linalg.ldl_factor_ex(x)),
    ],
)
def test_ex_forms_trace_without_sync(name, call):
    """The info of the `_ex` forms is computed inside the kernel: the whole call traces under jax.jit, gives
    torch's info for a failing batch element."""
    bad = np.array(
        [
            [[2.0, 0.0], [0.0, 2.0]],
            [[1.0, 2.0], [2.0, 1.0]] if name == "cholesky_ex" else [[1.0, 2.0], [2.0, 4.0]],
        ]
    )
    got = _traced(lambda x: call(torchshim, x), jax.numpy.asarray(bad))
    ref = call(torch, torch.tensor(bad))
    np.testing.assert_array_equal(np.asarray(got[-1]), ref[-1].numpy())
    good = _traced(lambda x: call(torchshim, x), jax.numpy.asarray(bad[:1]))
    np.testing.assert_allclose(np.asarray(good[0]), call(torch, torch.tensor(bad[:1]))[0].numpy(), rtol=1e-6)


def test_check_errors_raises_eagerly():
    sing = [[1.0, 2.0], [2.0, 4.0]]
    for T in (torch, torchshim):
        with pytest.raises(RuntimeError, match="linalg.inv_ex: The diagonal element 2 is zero"):
            T.linalg.inv_ex(T.tensor(sing), check_errors=True)


# ---- gradient conventions ---------------------------------------------------------------------------------
def test_svd_full_matrices_gradient():
    """With full_matrices=True only the first k columns of U carry gradient (PyTorch narrows U/Vh)."""

    def fn(T, x):
        U, S, Vh = T.linalg.svd(x)
        return (U[:, :2] * S) @ Vh[:2]

    check_grad(fn, (Arg((4, 2), "float64"),), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigh_gradient_reads_one_triangle(dtype):
    """eigh reads one triangle; its gradient is the Hermitian one PyTorch returns."""

    def fn(T, x):
        w, V = T.linalg.eigh(x, UPLO="U")
        return w, (V * w.unsqueeze(-2).to(V.dtype)) @ V.mH

    check_grad(fn, (Arg((3, 3), dtype),), rtol=1e-6, atol=1e-8)


def test_cholesky_gradient_nonsymmetric_input():
    check_grad(
        lambda T, x: T.linalg.cholesky(x + 6 * T.eye(3, dtype=x.dtype)),
        (Arg((3, 3), "float64"),),
        rtol=1e-6,
        atol=1e-8,
    )


@pytest.mark.xfail(
    strict=True,
    reason="det of a singular matrix: first-order gradients agree (jax's cofactor "
    "derivative), the second-order gradient is NaN in torchshim (jax's det jvp is not twice "
    "differentiable there)",
)
def test_det_gradient_singular():
    check_grad(
        lambda T, x: T.linalg.det(x[:, :1].expand(3, 3) * T.arange(1.0, 4.0, dtype=x.dtype)),
        (Arg((3, 3), "float64"),),
        rtol=1e-6,
        atol=1e-8,
    )


def test_geqrf_has_no_derivative():
    check_grad(lambda T, x: T.geqrf(x)[0], (Arg((3, 3), "float64"),))


def test_qr_mode_r_has_no_derivative():
    check_grad(lambda T, x: T.linalg.qr(x, mode="r").R, (Arg((3, 3), "float64"),))


_PHASE_CASES = {
    "eig-real": (lambda T, x: T.linalg.eig(x).eigenvectors.real, "float64"),
    "eig-abs": (lambda T, x: T.linalg.eig(x).eigenvectors.abs(), "float64"),
    "eig-complex": (lambda T, x: T.linalg.eig(x).eigenvectors.imag, "complex128"),
    "eigh-real": (lambda T, x: T.linalg.eigh(x + x.mH).eigenvectors.real, "complex128"),
    "svd-U": (lambda T, x: T.linalg.svd(x).U.real, "complex128"),
    "svd-Vh": (lambda T, x: T.linalg.svd(x, full_matrices=False).Vh.imag, "complex128"),
    "svd-abs": (lambda T, x: T.linalg.svd(x).U.abs(), "complex128"),
    "svd-UVh": (lambda T, x: (lambda r: r.U[:, :1] * r.Vh[:1])(T.linalg.svd(x)), "complex128"),
    "torch.svd-V": (lambda T, x: T.svd(x).V.real, "complex128"),
}


@pytest.mark.parametrize("case", sorted(_PHASE_CASES))
def test_phase_dependent_loss(case):
    """PyTorch's eig/eigh/svd backward raises for a complex loss that depends on the eigenvectors' (singular
    vectors') phases; a gauge-invariant one (|V|, u_1 v_1^H) passes."""
    fn, dtype = _PHASE_CASES[case]
    shape = (4, 3) if case.startswith("svd") else (3, 3)
    check_grad(fn, (Arg(shape, dtype),), rtol=1e-6, atol=1e-8)


@pytest.mark.slow
def test_ldl_pivots_match_lapack():
    """Bunch-Kaufman decisions on many small symmetric indefinite matrices (ties, zeros, 2x2 pivots) give
    LAPACK sytrf's pivots, LD and info, real, complex symmetric and complex Hermitian."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 5, 5))
    x[:10] = np.round(2 * x[:10])  # ties and exact zeros (singular D, info > 0)
    x[10:20] *= rng.random((10, 5, 5)) < 0.4
    z = x + 1j * rng.standard_normal(x.shape)
    for a, herm in ((x, False), (z, False), (z, True)):  # only the lower triangle is read
        r = torch.linalg.ldl_factor_ex(torch.tensor(a), hermitian=herm)
        g = torchshim.linalg.ldl_factor_ex(torchshim.tensor(a), hermitian=herm)
        np.testing.assert_array_equal(np.asarray(g.pivots), r.pivots.numpy())
        np.testing.assert_array_equal(np.asarray(g.info), r.info.numpy())
        np.testing.assert_allclose(np.asarray(g.LD), r.LD.numpy(), rtol=1e-9, atol=1e-12)
        ok = r.info.numpy() == 0
        b = torch.tensor(rng.standard_normal((int(ok.sum()), 5, 2)).astype(a.dtype))
        want = torch.linalg.ldl_solve(r.LD[ok], r.pivots[ok], b, hermitian=herm).numpy()
        got = torchshim.linalg.ldl_solve(g.LD[ok], g.pivots[ok], torchshim.tensor(b.numpy()), hermitian=herm)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-8, atol=1e-10)


def test_removed_functions():
    x = [[1.0, 0.0], [0.0, 1.0]]
    for name in ("eig", "symeig", "matrix_rank"):
        check(lambda T, name=name: getattr(T, name)(T.tensor(x)))
    check(lambda T: T.lstsq(T.tensor(x), T.tensor(x)))
    check(lambda T: T.tensor(x).eig())
    check(lambda T: hasattr(T.Tensor, "matrix_rank"))
