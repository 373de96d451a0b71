"""Records for torchshim/ops/statistics.py (aminmax, cov, corrcoef, quantile, nanquantile, diff,
logcumsumexp, dist, renorm, trapezoid, trapz, cumulative_trapezoid, addr)."""

from harness import Arg, OpRecord

F = ("float32", "float64")


RECORDS = [
    OpRecord(
        "aminmax",
        lambda d: [
            ((Arg((3, 4), d),), {}),
            ((Arg((3, 4), d),), {"dim": 1}),
            ((Arg((2, 3, 4), d, noncontig=True),), {"dim": -1, "keepdim": True}),
            ((Arg((3, 4), d),), {"keepdim": True}),
            ((Arg((), d),), {"dim": 0}),
            ((Arg((0,), d),), {}),
            ((Arg((2, 0), d),), {"dim": 0}),
        ],
        F + ("int64", "bool"),
        out=False,
    ),
    OpRecord(
        "cov",
        lambda d: [
            ((Arg((3, 5), d),), {}),
            ((Arg((6,), d),), {}),
            ((Arg((3, 5), d),), {"correction": 0}),
            ((Arg((2, 3, 4), d),), {}),
        ],
        F + ("int64",),
    ),
    OpRecord(
        "cov",
        lambda d: [
            ((Arg((2, 5), d), Arg((5,), "int64", 0, 3), None), {}),
            ((Arg((2, 5), d), None, Arg((5,), d, 0, 2)), {}),
            ((Arg((2, 5), d), Arg((5,), "int64", 0, 3), Arg((5,), d, 0, 2)), {}),
            ((Arg((2, 5), d), None, Arg((5,), d, 0, 2)), {"correction": 0}),
            ((Arg((2, 5), d), Arg((4,), "int64", 0, 3), None), {}),
        ],
        F,
        call=lambda T, x, f, a, **kw: T.cov(x, fweights=f, aweights=a, **kw),
        method=False,
    ),
    OpRecord("corrcoef", lambda d: [((Arg((3, 5), d),), {}), ((Arg((4, 6), d, noncontig=True),), {})], F),
    OpRecord(
        "quantile",
        lambda d: [
            ((Arg((3, 5), d), 0.3), {}),
            ((Arg((3, 5), d), 0.5), {"dim": 1}),
            ((Arg((3, 5), d), 1.0), {"dim": 0, "keepdim": True}),
            ((Arg((3, 5), d), Arg((3,), d, 0, 1)), {"dim": 1}),
            ((Arg((3, 5), d), 0.7), {"keepdim": True}),
            ((Arg((3, 5), d), 0.25), {"dim": -1, "interpolation": "lower"}),
            ((Arg((3, 5), d), 0.4), {"dim": 1, "interpolation": "higher"}),
            ((Arg((3, 5), d), 0.45), {"dim": 1, "interpolation": "midpoint"}),
            ((Arg((3, 5), d), 0.375), {"dim": 1, "interpolation": "nearest"}),
            ((Arg((3, 5), d), 1.5), {}),
            ((Arg((3, 5), d), 0.5), {"interpolation": "cubic"}),
        ],
        F,
        out=True,
    ),
    OpRecord("quantile", lambda d: [((Arg((5,), d), 0.5), {})], ("int64",)),
    OpRecord(
        "quantile",
        lambda d: [((Arg((4, 6), d, -1, 3), 0.5), {"dim": 1})],
        F,
        call=lambda T, x, q, **kw: T.quantile(x.sqrt(), q, **kw),
        method=False,
    ),
    OpRecord(
        "nanquantile",
        lambda d: [
            ((Arg((4, 6), d, -1, 3), 0.5), {"dim": 1}),
            ((Arg((4, 6), d, -1, 3), 0.2), {}),
            ((Arg((4, 6), d, -3, 0.1), 0.5), {"dim": 0}),
        ],
        F,
        call=lambda T, x, q, **kw: T.nanquantile(x.sqrt(), q, **kw),
        method=False,
    ),
    OpRecord("nanquantile", lambda d: [((Arg((3, 5), d), 0.3), {"dim": 1})], F, out=True),
    OpRecord(
        "diff",
        lambda d: [
            ((Arg((3, 5), d),), {}),
            ((Arg((3, 5), d), 2, 0), {}),
            ((Arg((6,), d), 1, 0, Arg((2,), d), Arg((1,), d)), {}),
            ((Arg((6,), d), 7), {}),
            ((Arg((), d),), {}),
            ((Arg((3, 4), d, noncontig=True),), {"dim": 0}),
        ],
        F + ("int64", "bool"),
        out=True,
    ),
    OpRecord(
        "logcumsumexp",
        lambda d: [
            ((Arg((3, 4), d), 1), {}),
            ((Arg((5,), d), 0), {}),
            ((Arg((2, 3, 4), d, noncontig=True), 0), {}),
            ((Arg((), d), 0), {}),
            ((Arg((0, 3), d), 0), {}),
        ],
        F,
        out=True,
    ),
    OpRecord("logcumsumexp", lambda d: [((Arg((3,), d), 0), {})], ("int64",)),
    OpRecord(
        "dist",
        lambda d: [
            ((Arg((3, 4), d), Arg((3, 4), d)), {}),
            ((Arg((3, 4), d), Arg((4,), d), 1), {}),
            ((Arg((3, 4), d), Arg((3, 4), d), 3.5), {}),
            ((Arg((3, 4), d), Arg((3, 4), d), float("inf")), {}),
            ((Arg((3, 4), d), Arg((3, 4), d), 0), {}),
            ((Arg((3,), d), Arg((4,), d)), {}),
        ],
        F,
    ),
    OpRecord("dist", lambda d: [((Arg((3,), d), Arg((3,), d)), {})], ("int64",)),
    OpRecord(
        "renorm",
        lambda d: [
            ((Arg((3, 4), d), 2, 0, 1.5), {}),
            ((Arg((3, 4), d), 1, 1, 2.0), {}),
            ((Arg((2, 3, 4), d, noncontig=True), 3, -1, 1.0), {}),
            ((Arg((3, 4), d), 0, 0, 1.0), {}),
            ((Arg((3, 4), d), 2, 0, -1.0), {}),
            ((Arg((4,), d), 2, 0, 1.0), {}),
        ],
        F,
        inplace=True,
        out=True,
    ),
    OpRecord(
        "trapezoid",
        lambda d: [
            ((Arg((3, 5), d),), {}),
            ((Arg((3, 5), d), Arg((5,), d)), {}),
            ((Arg((3, 5), d),), {"dx": 0.5, "dim": 0}),
            ((Arg((3, 5), d), Arg((3, 5), d)), {"dim": 1}),
            ((Arg((3, 5), d), 2.0), {}),
        ],
        F + ("int64",),
        method=False,
    ),
    OpRecord(
        "trapz",
        lambda d: [
            ((Arg((3, 5), d),), {}),
            ((Arg((3, 5), d), Arg((5,), d)), {}),
            ((Arg((3, 5), d),), {"dx": 0.5, "dim": 0}),
        ],
        F,
        method=False,
    ),
    OpRecord(
        "cumulative_trapezoid",
        lambda d: [
            ((Arg((3, 5), d),), {}),
            ((Arg((3, 5), d), Arg((5,), d)), {}),
            ((Arg((3, 5), d),), {"dx": 0.5, "dim": 0}),
        ],
        F,
        method=False,
    ),
    OpRecord(
        "addr",
        lambda d: [
            ((Arg((3, 4), d), Arg((3,), d), Arg((4,), d)), {}),
            ((Arg((4,), d), Arg((3,), d), Arg((4,), d)), {"beta": 2, "alpha": 3}),
            ((Arg((3, 4), d), Arg((3,), d), Arg((4,), d)), {"beta": 0}),
            ((Arg((3, 4), d), Arg((3, 1), d), Arg((4,), d)), {}),
        ],
        F + ("int64", "bool"),
        inplace=True,
        out=True,
    ),
]
