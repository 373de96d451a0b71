"""Records for torch.linalg's norms and matrix functions (torchshim/ops/linalg_norms.py, linalg_spectral.py,
linalg_functions.py) and the top-level spellings sharing them (chain_matmul, frobenius_norm, nuclear_norm).

Namespaced ops are called through `call=` (`T.linalg.<name>`); out= variants are samples with an `out` dtype
keyword turned into an empty tensor by `_out`. Inverse-type ops get well-conditioned inputs (`_wc`)."""

import math
import warnings

from harness import Arg, OpRecord

F = ("float32", "float64")
FC = ("float32", "float64", "complex64", "complex128")
F32 = ("float32",)
INF = math.inf


def _s(*items):
    return lambda d: list(items)


def _a(*shapes, **kw):
    """Samples of one tensor of the record's dtype per shape (kw: the same keywords for all)."""
    return lambda d: [((Arg(s, d),), dict(kw)) for s in shapes]


def _lin(name):
    """`T.linalg.<name>(*xs, **kw)`; an `out` keyword (a dtype name) becomes `out=T.empty(0, dtype=...)`."""

    def call(T, *xs, **kw):
        if "out" in kw:
            kw["out"] = T.empty(0, dtype=getattr(T, kw["out"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(T.linalg, name)(*xs, **kw)

    call.__name__ = f"linalg_{name}"
    return call


def _top(name):
    def call(T, *xs, **kw):
        if "out" in kw:
            kw["out"] = T.empty(0, dtype=getattr(T, kw["out"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(T, name)(*xs, **kw)

    call.__name__ = name
    return call


def _wc(T, x):
    n = x.shape[-1]
    return (0.1 * x if x.is_complex() else x @ x.mT) + n * T.eye(n, dtype=x.dtype)


def _sing(T, x):
    """A rank-deficient square matrix (last column = first)."""
    return T.cat([x[..., :-1], x[..., :1]], -1)


def _on(fn, prep):
    def call(T, *xs, **kw):
        return fn(T, prep(T, xs[0]), *xs[1:], **kw)

    call.__name__ = f"{fn.__name__}_{prep.__name__}"
    return call


_VN = _lin("vector_norm")
_MN = _lin("matrix_norm")
_N = _lin("norm")

RECORDS = [
    # ---- vector_norm
    OpRecord(
        "linalg_vector_norm",
        lambda d: [
            ((Arg((3, 4), d),), {}),
            ((Arg((3, 4), d),), {"ord": 1, "dim": 1}),
            ((Arg((2, 3), d),), {"ord": INF}),
            ((Arg((2, 3), d),), {"ord": -INF, "dim": (0,)}),
            ((Arg((4,), d),), {"ord": 0}),
            ((Arg((2, 3), d),), {"ord": 3.5, "dim": (0, 1), "keepdim": True}),
            ((Arg((2, 3), d),), {"ord": -1, "dim": -1}),
            ((Arg((), d),), {}),
        ],
        FC,
        call=_VN,
        rtol=1e-5,
        atol=1e-6,
    ),
    OpRecord(
        "linalg_vector_norm",
        _s(
            ((Arg((3,), "float16"),), {}),
            ((Arg((3,), "bfloat16"),), {"dtype": None}),
            ((Arg((3,), "float32"),), {"dtype": "float64"}),
        ),
        F32,
        call=lambda T, x, dtype=None: T.linalg.vector_norm(x, dtype=dtype and getattr(T, dtype)),
        rtol=1e-3,
        atol=1e-3,
    ),
    OpRecord(
        "linalg_vector_norm",
        _s(
            ((Arg((3,), "int64"),), {}),
            ((Arg((0, 3)),), {"ord": -1, "dim": -2}),
            ((Arg((0,)),), {"ord": INF}),
            ((Arg((3, 3)),), {"dim": (0, 0)}),
            ((Arg((3,)),), {"ord": "fro"}),
            ((Arg((3,)),), {"out": "float64"}),
            ((Arg((3,)),), {"out": "float32"}),
            ((Arg((0, 3)),), {"ord": 2}),
        ),
        F32,
        call=_VN,
    ),
    OpRecord(
        "linalg_vector_norm",
        _s(
            ((Arg((3,)),), {"dtype": "int64"}),
            ((Arg((3,)),), {"dtype": "complex64"}),
            ((Arg((3,), "float64"),), {"dtype": "float32"}),
            ((Arg((3,), "complex64"),), {"dtype": "float32"}),
        ),
        F32,
        call=lambda T, x, dtype: T.linalg.vector_norm(x, dtype=getattr(T, dtype)),
    ),
    # gradients at 0 (PyTorch: 0) for the 2-norm and a p < 1 norm
    OpRecord(
        "linalg_vector_norm",
        _s(((Arg((3,), "float64", 0, 0),), {}), ((Arg((3,), "float64", 0, 0),), {"ord": 0.5})),
        ("float64",),
        call=_VN,
    ),
    # ---- matrix_norm
    OpRecord(
        "linalg_matrix_norm",
        lambda d: [
            ((Arg((3, 3), d),), {}),
            ((Arg((3, 4), d),), {"ord": "nuc"}),
            ((Arg((2, 3, 3), d),), {"ord": 2}),
            ((Arg((3, 2), d),), {"ord": -2}),
            ((Arg((3, 4), d),), {"ord": 1}),
            ((Arg((3, 4), d),), {"ord": -1}),
            ((Arg((2, 3, 4), d),), {"ord": INF, "dim": (0, 2), "keepdim": True}),
            ((Arg((3, 4), d),), {"ord": -INF}),
            ((Arg((2, 3, 2), d),), {"ord": "nuc", "dim": (2, 0), "keepdim": True}),
            ((Arg((2, 2, 3), d),), {"ord": "fro", "dim": (-1, 0)}),
        ],
        FC,
        call=_MN,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_matrix_norm",
        _s(
            ((Arg((3,)),), {}),
            ((Arg((3, 3), "int64"),), {}),
            ((Arg((3, 3)),), {"ord": 3}),
            ((Arg((3, 3)),), {"ord": "abc"}),
            ((Arg((3, 3)),), {"dim": (0,)}),
            ((Arg((3, 3)),), {"dim": (0, -2)}),
            ((Arg((3, 3)),), {"dim": 0}),
            ((Arg((3, 3), "float16"),), {"ord": "nuc"}),
            ((Arg((3, 3), "float16"),), {"ord": 1}),
            ((Arg((0, 3)),), {"ord": 1}),
            ((Arg((3, 0)),), {"ord": -1}),
            ((Arg((2, 0, 3)),), {"ord": -2, "keepdim": True}),
            ((Arg((0, 3)),), {"ord": "nuc"}),
            ((Arg((0, 3)),), {"ord": 2}),
            ((Arg((3, 3)),), {"out": "float64"}),
            ((Arg((3, 3)),), {"ord": "nuc", "out": "float32"}),
        ),
        F32,
        call=_MN,
        rtol=1e-3,
        atol=1e-3,
    ),
    OpRecord(
        "linalg_matrix_norm",
        _s(
            ((Arg((3, 3), "float64"),), {"dtype": "float32"}),
            ((Arg((3, 3)),), {"dtype": "float64", "ord": "nuc"}),
            ((Arg((3, 3)),), {"dtype": "float64", "ord": 1}),
        ),
        F32,
        call=lambda T, x, dtype, **kw: T.linalg.matrix_norm(x, dtype=getattr(T, dtype), **kw),
    ),
    # ---- norm
    OpRecord(
        "linalg_norm",
        lambda d: [
            ((Arg((3, 4), d),), {}),
            ((Arg((4,), d),), {"ord": 3}),
            ((Arg((3, 4), d),), {"ord": 2}),
            ((Arg((3, 4), d),), {"ord": "nuc"}),
            ((Arg((2, 3, 4), d),), {"ord": 1, "dim": (1, 2)}),
            ((Arg((2, 3, 4), d),), {"dim": 1, "keepdim": True}),
            ((Arg((2, 3, 4), d),), {"ord": -INF, "dim": (2,)}),
            ((Arg((2, 2, 2), d),), {}),
        ],
        FC,
        call=_N,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_norm",
        _s(
            ((Arg((2, 2, 2)),), {"dim": (0, 1, 2)}),
            ((Arg((2, 2, 2)),), {"ord": 2}),
            ((Arg((2, 2, 2)),), {"ord": "fro"}),
            ((Arg((3,)),), {"ord": "fro"}),
            ((Arg((3, 3)),), {"dim": ()}),
            ((Arg((3, 3), "int64"),), {}),
            ((Arg((3, 3)),), {"ord": "nuc", "dim": (0,)}),
            ((Arg((3,)),), {"out": "float64"}),
            ((Arg((3, 3)),), {"ord": 1, "out": "float32"}),
        ),
        F32,
        call=_N,
    ),
    # ---- cond
    OpRecord(
        "linalg_cond",
        lambda d: [
            ((Arg((3, 3), d),), {}),
            ((Arg((2, 3, 3), d),), {"p": "fro"}),
            ((Arg((3, 3), d),), {"p": "nuc"}),
            ((Arg((3, 3), d),), {"p": 1}),
            ((Arg((3, 3), d),), {"p": -INF}),
            ((Arg((2, 3), d),), {"p": -2}),
            ((Arg((3, 3), d),), {"p": INF}),
            ((Arg((3, 3), d),), {"p": -1}),
        ],
        FC,
        call=_on(_lin("cond"), _wc),
        rtol=1e-4,
        atol=1e-4,
    ),
    OpRecord(
        "linalg_cond",
        _s(((Arg((3, 3)),), {"p": "fro"}), ((Arg((3, 3)),), {"p": 1}), ((Arg((2, 3, 3)),), {"p": INF})),
        F32,
        call=_on(_lin("cond"), _sing),
    ),
    OpRecord(
        "linalg_cond",
        _s(
            ((Arg((2, 3)),), {"p": "fro"}),
            ((Arg((2, 3)),), {"p": 1}),
            ((Arg((3,)),), {}),
            ((Arg((3,)),), {"p": "fro"}),
            ((Arg((3,)),), {"p": 3}),
            ((Arg((3, 3)),), {"p": 3}),
            ((Arg((3, 3)),), {"p": "abc"}),
            ((Arg((3, 3), "int64"),), {}),
            ((Arg((3, 3), "int64"),), {"p": "fro"}),
            ((Arg((3, 3), "float16"),), {}),
            ((Arg((3, 3), "float16"),), {"p": 1}),
            ((Arg((0, 0)),), {}),
            ((Arg((2, 0, 0)),), {"p": "fro"}),
            ((Arg((2, 2)),), {"out": "int64"}),
            ((Arg((2, 2)),), {"out": "float64"}),
        ),
        F32,
        call=_lin("cond"),
    ),
    OpRecord(
        "linalg_cond",
        _s(
            ((Arg((2, 2), "float32", 0, 0),), {}),
            ((Arg((2, 2), "float32", 0, 0),), {"p": "fro"}),
            ((Arg((2, 2), "float32", 0, 0),), {"p": "nuc"}),
        ),
        F32,
        call=_lin("cond"),
    ),
    # ---- matrix_rank
    OpRecord(
        "linalg_matrix_rank",
        lambda d: [
            ((Arg((3, 3), d),), {}),
            ((Arg((2, 3, 4), d),), {}),
            ((Arg((3, 3), d),), {"hermitian": True}),
            ((Arg((3, 3), d),), {"atol": 0.5, "rtol": 0.1}),
            ((Arg((3, 3), d),), {"rtol": 0.4}),
            ((Arg((3, 3), d),), {"tol": 0.5}),
            ((Arg((3, 3), d),), {"atol": 0.0}),
            ((Arg((0, 3), d),), {}),
        ],
        FC,
        call=_on(_lin("matrix_rank"), _sing),
    ),
    OpRecord(
        "linalg_matrix_rank",
        _s(
            ((Arg((3, 3)), Arg((2,), "float32", 0.1, 2)), {}),
            ((Arg((3,)),), {}),
            ((Arg((3, 3), "int64"),), {}),
            ((Arg((3, 3), "float16"),), {}),
            ((Arg((2, 4)),), {"hermitian": True}),
            ((Arg((3, 3)),), {"tol": 0.5, "atol": 0.1}),
            ((Arg((3, 3)),), {"out": "int32"}),
            ((Arg((3, 3)),), {"out": "bool"}),
        ),
        F32,
        call=lambda T, x, *t, **kw: _lin("matrix_rank")(T, x, **({"atol": t[0]} if t else {}), **kw),
    ),
    OpRecord(
        "linalg_matrix_rank",
        _s(((Arg((3, 3)), Arg((), "complex64")), {})),
        F32,
        call=lambda T, x, t: T.linalg.matrix_rank(x, rtol=t),
    ),
    # ---- pinv (and torch.pinverse, which shares it)
    OpRecord(
        "linalg_pinv",
        lambda d: [
            ((Arg((3, 3), d),), {}),
            ((Arg((2, 3, 4), d),), {}),
            ((Arg((4, 2), d),), {"atol": 0.5}),
            ((Arg((3, 3), d),), {"rcond": 0.2}),
            ((Arg((3, 3), d),), {"rtol": 0.3, "atol": 0.1}),
            ((Arg((3, 3), d),), {"hermitian": True}),
        ],
        FC,
        call=_on(_lin("pinv"), _wc),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_pinv",
        lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 3, 3), d),), {"hermitian": True})],
        ("float64",),
        call=lambda T, x, **kw: T.linalg.pinv(_sing(T, x @ x.mT) if kw else _sing(T, x), **kw),
        rtol=1e-5,
        atol=1e-6,
    ),
    OpRecord(
        "linalg_pinv",
        _s(
            ((Arg((3, 3), "int64"),), {}),
            ((Arg((3,)),), {}),
            ((Arg((3, 3), "float16"),), {}),
            ((Arg((0, 3)),), {}),
            ((Arg((2, 4)),), {"hermitian": True}),
            ((Arg((3, 3)),), {"rcond": 0.1, "rtol": 0.1}),
            ((Arg((2, 2)),), {"out": "int64"}),
            ((Arg((2, 2)),), {"out": "float64"}),
        ),
        F32,
        call=_lin("pinv"),
    ),
    OpRecord(
        "linalg_pinv",
        _s(((Arg((3, 3)), Arg((2,), "float32", 0, 0.5)), {}), ((Arg((3, 3)), Arg((), "complex64")), {})),
        F32,
        call=lambda T, x, t: T.linalg.pinv(x, rtol=t),
    ),
    OpRecord(
        "pinverse",
        _s(
            ((Arg((3, 3), "float64"),), {}),
            ((Arg((2, 3, 4), "float64"),), {"rcond": 0.3}),
            ((Arg((3,)),), {}),
            ((Arg((2, 2), "int64"),), {}),
        ),
        ("float64",),
        rtol=1e-5,
        atol=1e-6,
    ),
    # ---- matrix_power / matrix_exp / cross / vecdot
    OpRecord(
        "linalg_matrix_power",
        lambda d: [
            ((Arg((3, 3), d),), {"n": 2}),
            ((Arg((2, 3, 3), d),), {"n": 5}),
            ((Arg((3, 3), d),), {"n": 0}),
            ((Arg((3, 3), d),), {"n": 1}),
            ((Arg((3, 3), d),), {"n": -2}),
        ],
        FC,
        call=_on(_lin("matrix_power"), lambda T, x: _wc(T, x) / 3),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_matrix_power",
        _s(
            ((Arg((2, 2), "int64"),), {"n": 3}),
            ((Arg((2, 2), "int64"),), {"n": -1}),
            ((Arg((3,)),), {"n": 2}),
            ((Arg((3, 3)),), {"n": 2.0}),
            ((Arg((2, 2), "float32", 0, 0),), {"n": -1}),
            ((Arg((2, 2)),), {"n": 2, "out": "float64"}),
        ),
        F32,
        call=_lin("matrix_power"),
    ),
    OpRecord(
        "linalg_matrix_exp",
        lambda d: [((Arg((3, 3), d, -1, 1),), {}), ((Arg((2, 2, 2), d, -1, 1),), {})],
        FC,
        call=_lin("matrix_exp"),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_matrix_exp",
        _s(((Arg((2, 2), "int64"),), {}), ((Arg((3,)),), {}), ((Arg((0, 0)),), {})),
        F32,
        call=_lin("matrix_exp"),
    ),
    OpRecord(
        "linalg_cross",
        lambda d: [
            ((Arg((2, 3), d), Arg((2, 3), d)), {}),
            ((Arg((2, 3), d), Arg((1, 3), d)), {}),
            ((Arg((3, 2), d), Arg((3, 2), d)), {"dim": 0}),
        ],
        FC + ("int64",),
        call=_lin("cross"),
    ),
    OpRecord(
        "linalg_cross",
        _s(
            ((Arg((2, 3)), Arg((3,))), {}),
            ((Arg((3, 2)), Arg((3, 2))), {}),
            ((Arg((2, 3)), Arg((2, 3), "float64")), {}),
            ((Arg((2, 3), "bool"), Arg((2, 3), "bool")), {}),
            ((Arg((2, 3)), Arg((2, 3))), {"dim": 2}),
            ((Arg((2, 3)), Arg((2, 3))), {"out": "float64"}),
        ),
        F32,
        call=_lin("cross"),
    ),
    OpRecord(
        "linalg_vecdot",
        lambda d: [
            ((Arg((2, 3), d), Arg((3,), d)), {}),
            ((Arg((3, 2), d), Arg((3, 2), d)), {"dim": 0}),
            ((Arg((4,), d), Arg((4,), d)), {}),
            ((Arg((), d), Arg((), d)), {}),
        ],
        FC,
        call=_lin("vecdot"),
        rtol=1e-5,
        atol=1e-6,
    ),
    OpRecord(
        "linalg_vecdot",
        _s(
            ((Arg((3,)), Arg((3,), "float64")), {}),
            ((Arg((3,), "int64"), Arg((3,), "int64")), {}),
            ((Arg((3,)), Arg((4,))), {}),
            ((Arg((2, 3)), Arg((4, 3))), {}),
            ((Arg((2, 3)), Arg((3,))), {"out": "float64"}),
            ((Arg((2, 3)), Arg((3,))), {"out": "float32"}),
        ),
        F32,
        call=_lin("vecdot"),
    ),
    # ---- multi_dot / chain_matmul
    OpRecord(
        "linalg_multi_dot",
        lambda d: [
            (([Arg((2, 3), d), Arg((3, 4), d)],), {}),
            (([Arg((2, 3), d), Arg((3, 4), d), Arg((4, 2), d)],), {}),
            (([Arg((3,), d), Arg((3, 4), d), Arg((4,), d)],), {}),
            (([Arg((4, 3), d), Arg((3, 1), d), Arg((1, 4), d), Arg((4, 2), d)],), {}),
            (([Arg((3,), d), Arg((3,), d)],), {}),
        ],
        FC + ("int64",),
        call=_lin("multi_dot"),
        rtol=1e-5,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_multi_dot",
        _s(
            (([Arg((3, 3))],), {}),
            (([],), {}),
            (([Arg((3, 3)), Arg((1, 3, 3))],), {}),
            (([Arg((1, 3, 3)), Arg((3, 3))],), {}),
            (([Arg((3, 3)), Arg((3,)), Arg((3, 3))],), {}),
            (([Arg((3, 3)), Arg((2, 2))],), {}),
            (([Arg((3, 3)), Arg((3, 3), "float64")],), {}),
            (([Arg(()), Arg((3, 3))],), {}),
            (([Arg((2, 3)), Arg((3, 2))],), {"out": "float64"}),
            (([Arg((2, 3)), Arg((3, 2))],), {"out": "float32"}),
        ),
        F32,
        call=_lin("multi_dot"),
    ),
    OpRecord(
        "chain_matmul",
        lambda d: [((Arg((2, 3), d), Arg((3, 4), d), Arg((4, 2), d)), {}), ((Arg((3, 3), d),), {})],
        F + ("complex128",),
        call=_top("chain_matmul"),
        rtol=1e-5,
        atol=1e-5,
    ),
    OpRecord(
        "chain_matmul",
        _s(
            ((), {}),
            ((Arg((3,)), Arg((3, 3))), {}),
            ((Arg((3,)),), {}),
            ((Arg((2, 3)), Arg((3, 2))), {"out": "float64"}),
        ),
        F32,
        call=_top("chain_matmul"),
    ),
    # ---- tensorinv / tensorsolve / vander / diagonal / matmul
    OpRecord(
        "linalg_tensorinv",
        lambda d: [((Arg((4, 2, 2), d),), {"ind": 1}), ((Arg((2, 3, 6), d),), {})],
        FC,
        call=_on(_lin("tensorinv"), lambda T, x: x + 4 * T.eye(x.shape[0], dtype=x.dtype).reshape(x.shape)),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_tensorinv",
        _s(
            ((Arg((4, 3, 2, 2)),), {"ind": 2}),
            ((Arg((4, 4)),), {"ind": 0}),
            ((Arg((4, 4), "float32", 0, 0),), {"ind": 1}),
            ((Arg((4, 4), "int64"),), {"ind": 1}),
            ((Arg((2, 2)),), {"ind": 1, "out": "float64"}),
        ),
        F32,
        call=_lin("tensorinv"),
    ),
    OpRecord(
        "linalg_tensorsolve",
        lambda d: [
            ((Arg((2, 3, 6), d), Arg((2, 3), d)), {}),
            ((Arg((6, 2, 3), d), Arg((2, 3), d)), {"dims": (0,)}),
        ],
        FC,
        call=lambda T, a, b, **kw: T.linalg.tensorsolve(
            a
            + 5
            * (T.eye(6, dtype=a.dtype).reshape(6, 2, 3) if kw else T.eye(6, dtype=a.dtype).reshape(2, 3, 6)),
            b,
            **kw,
        ),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_tensorsolve",
        _s(
            ((Arg((2, 3, 5)), Arg((2, 3))), {}),
            ((Arg((6, 4, 3)), Arg((4, 3))), {"dims": (0,)}),
            ((Arg((2, 2), "float32", 0, 0), Arg((2,))), {}),
            ((Arg((2, 2)), Arg((2,))), {"out": "float64"}),
        ),
        F32,
        call=_lin("tensorsolve"),
    ),
    OpRecord(
        "linalg_vander",
        lambda d: [((Arg((3,), d),), {}), ((Arg((2, 3), d),), {"N": 5}), ((Arg((), d),), {"N": 3}),
                   ((Arg((3,), d, 0, 0),), {})],
        FC + ("int64", "uint8"),
        call=_lin("vander"),
    ),
    OpRecord(
        "linalg_vander",
        _s(((Arg((3,)),), {"N": 1}), ((Arg(()),), {}), ((Arg((2,), "bool"),), {}), ((Arg((0,)),), {})),
        F32,
        call=_lin("vander"),
    ),
    OpRecord(
        "linalg_diagonal",
        lambda d: [
            ((Arg((2, 3, 4), d),), {}),
            ((Arg((2, 3, 4), d),), {"offset": 1}),
            ((Arg((3, 4, 2), d),), {"dim1": 0, "dim2": 2, "offset": -1}),
        ],
        ("float64", "complex128", "int64"),
        call=_lin("diagonal"),
    ),
    OpRecord("linalg_diagonal", _s(((Arg((2,)),), {}), ((Arg((2, 2)), 1), {})), F32, call=_lin("diagonal")),
    OpRecord(
        "linalg_matmul",
        lambda d: [
            ((Arg((2, 3), d), Arg((3, 4), d)), {}),
            ((Arg((2, 2, 3), d), Arg((3,), d)), {}),
            ((Arg((3,), d), Arg((3,), d)), {}),
        ],
        FC,
        call=_lin("matmul"),
        rtol=1e-5,
        atol=1e-5,
    ),
    OpRecord(
        "linalg_matmul",
        _s(((Arg((3, 3)), Arg(())), {}), ((Arg((2, 3)), Arg((3, 2))), {"out": "float64"})),
        F32,
        call=_lin("matmul"),
    ),
    # ---- deprecated norms
    OpRecord(
        "frobenius_norm",
        lambda d: [
            ((Arg((3, 4), d),), {"dim": (0, 1)}),
            ((Arg((2, 3, 4), d),), {"dim": (1,)}),
            ((Arg((3, 4), d),), {"dim": (0, 1), "keepdim": True}),
        ],
        FC,
        call=_top("frobenius_norm"),
        rtol=1e-5,
        atol=1e-6,
    ),
    OpRecord(
        "frobenius_norm",
        _s(
            ((Arg((2, 2, 2)),), {"dim": (0, 1, 2)}),
            ((Arg((2, 2), "int64"),), {"dim": (0, 1)}),
            ((Arg((2, 2), "float16"),), {"dim": (0, 1)}),
            ((Arg((2, 2)),), {"dim": (0, 1), "out": "float64"}),
        ),
        F32,
        call=_top("frobenius_norm"),
        rtol=1e-3,
        atol=1e-3,
    ),
    OpRecord(
        "nuclear_norm",
        lambda d: [
            ((Arg((3, 4), d),), {}),
            ((Arg((2, 3, 3), d),), {"keepdim": True}),
            ((Arg((2, 3, 2), d),), {"dim": (0, 2)}),
        ],
        FC,
        call=_top("nuclear_norm"),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "nuclear_norm",
        _s(
            ((Arg((2, 2, 2)),), {"dim": (0,)}),
            ((Arg((2, 2), "int64"),), {}),
            ((Arg((3,)),), {}),
            ((Arg((2, 2)),), {"out": "float64"}),
        ),
        F32,
        call=_top("nuclear_norm"),
    ),
]

# Known gradient gaps (compat_tests/test_gradients.py adds them to its GAPS): (reason, match, case names).
_OUT_REASON = (
    "out= with an input requiring grad: PyTorch first raises '<op>(): functions with out=... "
    "arguments don't support automatic differentiation'; these ops' own out= path (ops/linalg_norms.py, "
    "linalg_spectral.py, linalg_functions.py: checked_out) checks out's dtype first or writes it"
)
_COND_REASON = (
    "PyTorch 2.13's linalg.cond backward for p in 'fro'/±1/±inf on singular inputs and for p=-1 "
    "raises 'one of the variables needed for gradient computation has been modified by an inplace "
    "operation' (its masked_fill_ of inv_ex's result); torchshim differentiates norm(A)*norm(inv(A))"
)
_OUT_CASES = [
    f"{n}-{{_lin.call{{name='{c}'}}}}"
    for n, c in (
        ("linalg_matrix_norm-float32-3x3-ord='nuc',out='float32'", "matrix_norm"),
        ("linalg_norm-float32-3x3-ord=1,out='float32'", "norm"),
        ("linalg_cond-float32-2x2-out='float64'", "cond"),
        ("linalg_pinv-float32-2x2-out='float64'", "pinv"),
        ("linalg_matrix_power-float32-2x2-n=2,out='float64'", "matrix_power"),
        ("linalg_cross-float32-2x3,2x3-out='float64'", "cross"),
        ("linalg_vecdot-float32-2x3,3-out='float32'", "vecdot"),
        ("linalg_multi_dot-float32-[2x3,3x2]-out='float32'", "multi_dot"),
        ("linalg_tensorinv-float32-2x2-ind=1,out='float64'", "tensorinv"),
        ("linalg_tensorsolve-float32-2x2,2-out='float64'", "tensorsolve"),
        ("linalg_matmul-float32-2x3,3x2-out='float64'", "matmul"),
    )
] + ["frobenius_norm-float32-2x2-dim=(0,1),out='float64'-{_top.call{name='frobenius_norm'}}"]
_OUT_HISTORY = (
    "out= of PyTorch's CompositeImplicit ops (matrix_norm, norm, cond, tensorinv, tensorsolve) with an "
    "input requiring grad: out carries the result's history (requires grad); torchshim's "
    "checked_out writes out inside the op's node, without history"
)
_COND = "{_on.call{fn=_lin.call{name='cond'};prep=%s}}"
_HISTORY_CASES = [
    c
    for c in _OUT_CASES
    if c.startswith(
        ("linalg_matrix_norm", "linalg_norm", "linalg_cond", "linalg_tensorinv", "linalg_tensorsolve")
    )
]
GRAD_GAPS = [
    (
        _OUT_REASON,
        "functions with out=... arguments don't support automatic differentiation",
        [c for c in _OUT_CASES if c not in _HISTORY_CASES],
    ),
    (_OUT_HISTORY, "forward: requires_grad True vs False", _HISTORY_CASES),
    (
        _COND_REASON,
        "modified by an inplace operation",
        [
            "linalg_cond-float64-3x3-p=-1-" + _COND % "_wc",
            "linalg_cond-float32-3x3-p=-1-" + _COND % "_wc",
            "linalg_cond-float32-3x3-p='fro'-" + _COND % "_sing",
            "linalg_cond-float32-2x3x3-p=inf-" + _COND % "_sing",
        ],
    ),
]
