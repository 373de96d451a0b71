"""Records for torchshim/ops/linalg_legacy.py (cholesky, cholesky_inverse, cholesky_solve,
triangular_solve, matrix_exp). Positive-definite matrices are built from the inputs (x x^T + 3 I), factors as
tril(x) + 3 I."""
import warnings

from harness import Arg, OpRecord

F = ("float32", "float64")


def _spd(T, x):
    return x @ x.mT + 3 * T.eye(x.shape[-1], dtype=x.dtype)


def _factor(T, x):
    return T.tril(x) + 3 * T.eye(x.shape[-1], dtype=x.dtype)


def _quiet(fn):
    def call(T, *a, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(T, *a, **kw)
    return call


RECORDS = [
    OpRecord("cholesky", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 4, 4), d),), {"upper": True})], F,
             call=_quiet(lambda T, x, **kw: T.cholesky(_spd(T, x), **kw)), rtol=1e-4, atol=1e-5),
    OpRecord("cholesky", lambda d: [((Arg((2, 3), d),), {}), ((Arg((3, 3), "int64"),), {})], F,
             call=_quiet(lambda T, x, **kw: T.cholesky(x, **kw)), method=False),
    OpRecord("cholesky_inverse", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 3, 3), d),), {"upper": True})],
             F, call=lambda T, x, **kw: T.cholesky_inverse(_factor(T, x).mT if kw else _factor(T, x), **kw),
             rtol=1e-3, atol=1e-4),
    OpRecord("cholesky_solve", lambda d: [((Arg((3, 2), d), Arg((3, 3), d)), {}),
                                          ((Arg((2, 3, 2), d), Arg((3, 3), d)), {"upper": True})], F,
             call=lambda T, b, x, **kw: T.cholesky_solve(b, _factor(T, x).mT if kw else _factor(T, x), **kw),
             rtol=1e-4, atol=1e-5),
    OpRecord("triangular_solve", lambda d: [((Arg((3, 2), d), Arg((3, 3), d)), {}),
                                            ((Arg((3, 2), d), Arg((3, 3), d)), {"upper": False}),
                                            ((Arg((2, 3, 2), d), Arg((3, 3), d)), {"transpose": True}),
                                            ((Arg((3, 2), d), Arg((3, 3), d)), {"unitriangular": True})], F,
             call=_quiet(lambda T, b, x, **kw: T.triangular_solve(b, x + 3 * T.eye(3, dtype=x.dtype), **kw)),
             rtol=1e-4, atol=1e-5),
    OpRecord("matrix_exp", lambda d: [((Arg((3, 3), d, -1, 1),), {}), ((Arg((2, 4, 4), d, -1, 1),), {}),
                                      ((Arg((2, 3), d),), {})], F, rtol=1e-4, atol=1e-5),
]
