"""Hand-written checks for torch.linalg's norms and matrix functions beyond the records
(compat_tests/records/linalg_functions.py): public names, deprecation warnings, torch.norm sharing the linalg
implementation, pinv's Moore-Penrose identities on rank-deficient input, and tracing with gradients."""

import jax
import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, check

NAMES = [
    "norm",
    "vector_norm",
    "matrix_norm",
    "cond",
    "matrix_rank",
    "pinv",
    "matrix_power",
    "matrix_exp",
    "cross",
    "vecdot",
    "multi_dot",
    "tensorinv",
    "tensorsolve",
    "vander",
    "diagonal",
    "matmul",
]


@pytest.mark.parametrize("name", NAMES)
def test_public_names(name):
    assert getattr(torchshim.linalg, name).__name__ == getattr(torch.linalg, name).__name__
    from torchshim.linalg import _functions

    assert name in _functions.__all__


@pytest.mark.parametrize(
    "call",
    [
        lambda T, x: T.chain_matmul(x, x),
        lambda T, x: T.frobenius_norm(x, (0, 1)),
        lambda T, x: T.nuclear_norm(x),
    ],
)
def test_deprecation_warnings(call):
    def f(T, x):
        T.set_warn_always(True)
        try:
            return call(T, x)
        finally:
            T.set_warn_always(False)

    check(f, (Arg((3, 3)),), warn=True, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"p": "nuc"},
        {"p": 3, "dim": 1},
        {"p": "fro", "dim": (0, 1)},
        {"p": float("inf")},
        {"p": "nuc", "dim": (0, 1), "keepdim": True},
    ],
)
def test_torch_norm_agrees_with_linalg(kw):
    x = torchshim.randn(3, 4)
    p = kw.get("p", "fro")
    ref = torchshim.norm(x, **kw)
    if p == "nuc":
        alt = torchshim.linalg.matrix_norm(x, "nuc", kw.get("dim", (0, 1)), kw.get("keepdim", False))
    else:
        alt = torchshim.linalg.vector_norm(x, 2 if p == "fro" else p, kw.get("dim"), kw.get("keepdim", False))
    np.testing.assert_allclose(ref.numpy(), alt.numpy(), rtol=1e-6)


def test_pinv_moore_penrose_rank_deficient():
    a = torchshim.randn(4, 2, dtype=torchshim.float64) @ torchshim.randn(2, 3, dtype=torchshim.float64)
    p = torchshim.linalg.pinv(a)
    np.testing.assert_allclose((a @ p @ a).numpy(), a.numpy(), atol=1e-10)
    np.testing.assert_allclose((p @ a @ p).numpy(), p.numpy(), atol=1e-10)
    np.testing.assert_allclose((a @ p).mT.numpy(), (a @ p).numpy(), atol=1e-10)
    assert int(torchshim.linalg.matrix_rank(a)) == 2


def test_gradients_trace_under_jit():
    """vector/matrix norms, cond, pinv and their gradients inside one jax.jit (no host round-trips)."""

    def f(arr):
        from torchshim._tensor import fresh

        x = fresh(arr, torchshim.float64, None)
        y = (
            torchshim.linalg.vector_norm(x, 3)
            + torchshim.linalg.matrix_norm(x, "nuc")
            + torchshim.linalg.cond(x, "fro")
            + torchshim.linalg.pinv(x).sum()
            + torchshim.linalg.matrix_rank(x).to(torchshim.float64)
        )
        return y._value

    a = np.eye(3) * 2 + 0.1 * np.arange(9.0).reshape(3, 3)
    eager = f(jax.numpy.asarray(a))
    traced = jax.jit(f)(jax.numpy.asarray(a))
    np.testing.assert_allclose(np.asarray(traced), np.asarray(eager), rtol=1e-10)
    g = jax.jit(jax.grad(f))(jax.numpy.asarray(a))
    assert np.all(np.isfinite(np.asarray(g)))
