"""Records for reductions, scans, order statistics and sorting (torchshim/ops/reduction.py, sorting.py).

NaN inputs are made with `sqrt` of values in [-3, 3] (about half NaN). Where PyTorch's answer is not unique
(indices among equal values for median/kthvalue/topk, unsorted topk), the inputs are tie-free floats or the
record compares values only.
"""
from harness import COMMON, Arg, OpRecord

F = ("float32", "float64")
F16 = ("float16", "bfloat16")
ORD = ("float32", "float64", "int64", "int32", "uint8", "int16")  # ordered dtypes for max/min/sort


def red(empty=True, full=True):
    """Reduction samples: all dims, 0-dim, empty, dims int/tuple/negative, keepdim, non-contiguous."""
    def samples(d):  # the first sample has a dim: PyTorch's full reductions take no out=
        yield (Arg((5,), d),), {"dim": 0}
        if full:
            yield (Arg((3, 4), d),), {}
            yield (Arg((), d),), {}
            if empty:
                yield (Arg((0,), d),), {}
        yield (Arg((2, 3, 4), d, noncontig=True),), {"dim": 1}
        yield (Arg((2, 3, 4), d),), {"dim": (0, 2), "keepdim": True}
        yield (Arg((2, 3, 4), d, noncontig=True),), {"dim": -1, "keepdim": False}
        yield (Arg((3, 4), d),), {"dim": (-1, -2)}
        yield (Arg((), d),), {"dim": 0, "keepdim": True}
        yield (Arg((4, 3), d),), {"dim": [1], "keepdim": True}
        if empty:
            yield (Arg((0, 3), d),), {"dim": 0}
            yield (Arg((2, 0), d),), {"dim": 1, "keepdim": True}
    return samples


def one_dim(empty=False):
    """Samples for ops taking a single int dim (max(dim), median(dim), sort, cumsum, ...)."""
    def samples(d):
        yield (Arg((3, 4), d),), {"dim": 1}
        yield (Arg((5,), d),), {"dim": 0}
        yield (Arg((2, 3, 4), d, noncontig=True),), {"dim": 1}
        yield (Arg((2, 3, 4), d),), {"dim": -1, "keepdim": True}
        yield (Arg((2, 3, 4), d, noncontig=True),), {"dim": 0, "keepdim": False}
        yield (Arg((), d),), {"dim": 0}
        yield (Arg((), d),), {"dim": -1, "keepdim": True}
        if empty:
            yield (Arg((2, 0), d),), {"dim": 0}
    return samples


def no_keepdim(samples):
    def s(d):
        for specs, kw in samples(d):
            yield specs, {k: v for k, v in kw.items() if k != "keepdim"}
    return s


def errors(*kws, shape=(3, 4)):
    return lambda d: [((Arg(shape, d),), kw) for kw in kws]


def _with_dtype(name):
    """call `T.<name>(x, dtype=T.<dtype>)`; the sample names the dtype (so ids stay readable)."""
    def f(T, x, dtype=None, **kw):
        return getattr(T, name)(x, **kw, **({"dtype": getattr(T, dtype)} if dtype else {}))
    return f


NORM_ORDERS = (1, 2, 3, 0.5, 0, float("inf"), float("-inf"), -1, "fro", "nuc", None)
DIM_ERRORS = errors({"dim": 5}, {"dim": -3}, {"dim": (0, 0)}, {"dim": (1, -1)})
SCAN = no_keepdim(one_dim(empty=True))
_nan = lambda f: (lambda T, x, **kw: f(T, x.sqrt(), **kw))  # noqa: E731
_vals = lambda f: (lambda T, *xs, **kw: f(T, *xs, **kw)[0])  # noqa: E731
_sorted_vals = lambda f: (lambda T, *xs, **kw: f(T, *xs, **kw)[0].sort(-1)[0])  # noqa: E731

RECORDS = [
    # ---- sums, means, products
    OpRecord("sum", red(), COMMON + ("int32", "uint8", "complex64"), out=True),
    OpRecord("sum", red(), F16, rtol=1e-2, atol=1e-2),  # one rounding of a float32 accumulation: 16-bit ulps
    OpRecord("sum", lambda d: [((Arg((3, 4), d),), {"dtype": "float64"}),
                               ((Arg((3, 4), d),), {"dim": 1, "dtype": "int64"}),
                               ((Arg((3, 4), d, 0, 9),), {"dim": 0, "keepdim": True, "dtype": "int8"})],
             ("float32", "int32", "bool"), call=_with_dtype("sum")),
    OpRecord("sum", DIM_ERRORS, ("float32",)),
    OpRecord("sum", lambda d: [((Arg((3, 4), d),), {}), ((Arg((3, 4), d),), {"dim": 1})], F,
             call=lambda T, x, **kw: T.sum(x, 1, True)),
    OpRecord("nansum", red(), COMMON, out=True),
    OpRecord("nansum", red(), F, call=_nan(lambda T, x, **kw: T.nansum(x, **kw))),
    OpRecord("nansum", lambda d: [((Arg((3,), d),), {})], ("complex64",)),
    OpRecord("mean", red(), F + ("complex64",), out=True),
    OpRecord("mean", red(), F16, rtol=1e-2, atol=1e-2),
    OpRecord("mean", lambda d: [((Arg((3, 4), d),), {})], ("int64", "bool", "uint8")),
    OpRecord("mean", lambda d: [((Arg((3, 4), d),), {"dim": 1})], ("int64", "float32"),
             call=lambda T, x, **kw: (T.mean(x, dtype=T.float64, **kw), T.mean(x.float(), dtype=T.int64))),
    OpRecord("mean", DIM_ERRORS, ("float32",)),
    OpRecord("nanmean", red(), F, out=True),
    OpRecord("nanmean", red(), F, call=_nan(lambda T, x, **kw: T.nanmean(x, **kw))),
    OpRecord("nanmean", lambda d: [((Arg((3,), d),), {})], ("int64", "complex64")),
    OpRecord("prod", lambda d: [((Arg((3, 4), d, 0.5, 2, noncontig=True),), {"dim": 1}),
                                ((Arg((3, 4), d, 0.5, 2),), {}), ((Arg((), d),), {}), ((Arg((0,), d),), {}),
                                ((Arg((2, 3, 4), d, 0.5, 2),), {"dim": -1, "keepdim": True}),
                                ((Arg((), d),), {"dim": 0}), ((Arg((0, 3), d),), {"dim": 0})],
             COMMON + ("int32", "complex64"), out=True),
    OpRecord("prod", lambda d: [((Arg((3, 4), d), (0, 1)), {})], ("float32",), method=False,
             msg="received an invalid combination of arguments"),
    OpRecord("prod", lambda d: [((Arg((3, 4), d),), {"dim": 2})], ("float32",)),
    OpRecord("prod", lambda d: [((Arg((3, 4), d),), {"dim": 1})], ("float32", "int64"),
             call=lambda T, x, **kw: T.prod(x, dtype=T.float64, **kw)),
    # ---- variance, standard deviation
    *[OpRecord(n, red(), F + ("complex64",), out=n in ("var", "std"))
      for n in ("var", "std", "var_mean", "std_mean")],
    *[OpRecord(n, lambda d: [((Arg((3, 4), d),), {"dim": 1, "correction": 0}),
                             ((Arg((3, 4), d),), {"dim": (0, 1), "correction": 2, "keepdim": True}),
                             ((Arg((3, 4), d),), {"dim": 1, "correction": 0.5}),
                             ((Arg((3, 4), d),), {"dim": 1, "correction": 5}),
                             ((Arg((3, 4), d),), {"dim": 1, "unbiased": False}),
                             ((Arg((3, 4), d),), {"unbiased": False})], F)
      for n in ("var", "std", "var_mean")],
    OpRecord("var", lambda d: [((Arg((3, 4), d), 1, False), {}), ((Arg((3, 4), d), 1, True, True), {}),
                               ((Arg((3, 4), d), False), {}), ((Arg((3, 4), d), None, True), {})], F,
             call=lambda T, *xs: T.var(*xs)),
    OpRecord("std", lambda d: [((Arg((3, 4), d), 0, False, True), {})], F, call=lambda T, *xs: T.std(*xs)),
    OpRecord("var", lambda d: [((Arg((3,), d),), {})], ("int64", "bool")),
    OpRecord("std", DIM_ERRORS, ("float32",)),
    OpRecord("var", red(), F16, rtol=1e-2, atol=1e-2),
    # ---- norm
    OpRecord("norm", red(), F + ("complex64",), out=True),
    OpRecord("norm", lambda d: [((Arg((3, 4), d), p), kw) for p in NORM_ORDERS
                                for kw in ({}, {"dim": 1}, {"dim": (0, 1), "keepdim": True})
                                if not (p == "nuc" and kw.get("dim") == 1)], F,
             call=lambda T, x, p, **kw: T.norm(x, p, **kw)),
    OpRecord("norm", lambda d: [((Arg((2, 3, 4), d),), {"p": "nuc", "dim": (0, 2)}),
                                ((Arg((2, 3, 4), d, noncontig=True),), {"p": "fro", "dim": (2, 0)}),
                                ((Arg((2, 3, 4), d),), {"p": "fro", "dim": (0, 1, 2)}),
                                ((Arg((3, 4), d),), {"dtype": "float64"}),
                                ((Arg((3, 4), d),), {"dtype": "int64"}),
                                ((Arg((3, 4), d),), {"p": 2, "dim": 1, "dtype": "complex64"}),
                                ((Arg((0,), d),), {"p": float("inf")}),
                                ((Arg((0, 3), d),), {"p": -1, "dim": 0}),
                                ((Arg((0, 3), d),), {"p": float("inf"), "dim": 1}),
                                ((Arg((4,), d),), {"p": "nuc"}), ((Arg((3, 4), d),), {"p": "bad"})],
             ("float32",), call=_with_dtype("norm")),
    OpRecord("norm", lambda d: [((Arg((3, 4), d),), {})], ("int64", "bool")),
    OpRecord("norm", lambda d: [((Arg((3, 4), d),), {})], F, call=lambda T, x: x.norm(1, 1, True, T.float64)),
    OpRecord("norm", red(), F16, rtol=1e-2, atol=1e-2),
    # ---- logical, counting, logsumexp
    OpRecord("all", red(), COMMON + ("uint8", "complex64"), out=True),
    OpRecord("any", red(), COMMON + ("uint8", "complex64"), out=True),
    OpRecord("all", lambda d: [((Arg((3, 4), d, 0, 1),), {}), ((Arg((3, 4), d, 1, 3),), {"dim": 1})],
             ("int64",)),
    OpRecord("any", DIM_ERRORS, ("bool",)),
    OpRecord("count_nonzero", no_keepdim(red()), COMMON + ("complex64",)),
    OpRecord("count_nonzero", DIM_ERRORS, ("float32",)),
    OpRecord("logsumexp", no_keepdim(red(full=False)), COMMON + ("complex64",), out=True),
    OpRecord("logsumexp", lambda d: [((Arg((3, 4), d),), {"dim": 1, "keepdim": True}),
                                     ((Arg((3, 4), d, -1e3, 1e3),), {"dim": 0})], F),
    OpRecord("logsumexp", lambda d: [((Arg((3, 4), d),), {"dim": 1})], F16, rtol=1e-2, atol=1e-2),
    OpRecord("logsumexp", DIM_ERRORS, ("float32",)),
    # ---- scans
    OpRecord("cumsum", SCAN, COMMON + ("int32", "uint8", "complex64"), inplace=True, out=True),
    OpRecord("cumsum", lambda d: [((Arg((3, 4), d),), {"dim": 1})], ("float32", "int32", "bool"),
             call=lambda T, x, **kw: (T.cumsum(x, dtype=T.float64, **kw), T.cumsum(x, dtype=T.int32, **kw))),
    OpRecord("cumsum", lambda d: [((Arg((3, 4), d),), {"dim": 1})], F16, rtol=1e-2, atol=1e-2),
    OpRecord("cumsum", lambda d: [((Arg((3,), d),), {"dim": 0})], ("bool",),
             call=lambda T, x, **kw: x.cumsum_(**kw)),
    OpRecord("cumsum", errors({"dim": 2}, {"dim": (0, 1)}), ("float32",)),
    OpRecord("cumprod", SCAN, COMMON + ("int32", "complex64"), inplace=True, out=True),
    OpRecord("cumprod", lambda d: [((Arg((3, 4), d),), {"dim": 0})], ("int64",),
             call=lambda T, x, **kw: (T.cumprod(x, dtype=T.float32, **kw), T.cumprod(x, dtype=T.bool, **kw))),
    OpRecord("cummax", SCAN, ORD + ("bool",), out=True),
    OpRecord("cummin", SCAN, ORD + ("bool",), out=True),
    OpRecord("cummax", no_keepdim(one_dim()), F, call=_nan(lambda T, x, **kw: T.cummax(x, **kw))),
    OpRecord("cummin", no_keepdim(one_dim()), F, call=_nan(lambda T, x, **kw: T.cummin(x, **kw))),
    OpRecord("cummax", errors({"dim": 2}), ("float32", "complex64")),
]

RECORDS += [
    # ---- max / min / amax / amin / argmax / argmin (first index among ties, like PyTorch)
    *[OpRecord(n, lambda d: [((Arg((3, 4), d),), {}), ((Arg((), d),), {}), ((Arg((0,), d),), {}),
                             ((Arg((2, 3), d, noncontig=True),), {})], ORD + ("bool", "float16", "bfloat16"),
               out=True) for n in ("max", "min")],
    *[OpRecord(n, one_dim(empty=True), ORD + ("bool",), out=True) for n in ("max", "min")],
    *[OpRecord(n, one_dim(), F, call=_nan(lambda T, x, n=n, **kw: getattr(T, n)(x, **kw)))
      for n in ("max", "min")],
    *[OpRecord(n, lambda d: [((Arg((3, 4), d),), {})], F, call=_nan(lambda T, x, n=n: getattr(T, n)(x)))
      for n in ("max", "min", "amax", "amin", "argmax", "argmin")],
    *[OpRecord(n, lambda d: [((Arg((3, 4), d), Arg((4,), d)), {}), ((Arg((3,), d), Arg((), d)), {}),
                             ((Arg((3, 4), d), 1.5), {}), ((Arg((3, 4), d), (0, 1)), {}),
                             ((Arg((0, 3), d),), {"dim": 0}),
                             ((Arg((3, 4), d),), {"keepdim": True}), ((Arg((3, 4), d),), {"dim": 2})],
               ("float32", "int64")) for n in ("max", "min")],
    OpRecord("max", lambda d: [((Arg((3, 4), d), Arg((3, 4), d)), {})], ("float32",),
             call=lambda T, x, y: (T.max(x, other=y), x.max(y), x.min(y), x.max(1),
                                   x.min(dim=0, keepdim=True))),
    OpRecord("max", lambda d: [((Arg((3,), d),), {}), ((Arg((3,), d),), {"dim": 0})], ("complex64",)),
    OpRecord("min", lambda d: [((Arg((3,), d),), {})], ("complex64",)),
    *[OpRecord(n, red(), ORD + ("bool", "float16"), out=True) for n in ("amax", "amin")],
    OpRecord("amax", DIM_ERRORS, ("float32",)),
    OpRecord("amax", lambda d: [((Arg((2, 0, 3), d),), {"dim": (2, 0)}), ((Arg((2, 0, 3), d),), {"dim": 2}),
                                ((Arg((3,), "complex64"),), {})], ("float32",)),
    *[OpRecord(n, lambda d: [((Arg((3, 4), d),), {}), ((Arg((3, 4), d),), {"keepdim": True}),
                             ((Arg((), d),), {}), ((Arg((0,), d),), {}), *one_dim(empty=True)(d)],
               ORD + ("float16",), out=True)
      for n in ("argmax", "argmin")],
    OpRecord("argmax", lambda d: [((Arg((3, 4), d),), {"dim": 2}), ((Arg((3, 4), d),), {"dim": 0})],
             ("float32", "bool", "complex64")),
    OpRecord("argmax", lambda d: [((Arg((3, 4), d), (0, 1)), {})], ("float32",), method=False,
             msg="must be int, not tuple"),
    OpRecord("argmin", lambda d: [((Arg((3, 4), d),), {})], ("bool",)),
    *[OpRecord(n, one_dim(), F, call=_nan(lambda T, x, n=n, **kw: getattr(T, n)(x, **kw)))
      for n in ("argmax", "argmin")],
    # ---- median, nanmedian, kthvalue, mode
    *[OpRecord(n, lambda d: [*one_dim(empty=True)(d), ((Arg((3, 4), d),), {}), ((Arg((), d),), {}),
                             ((Arg((0,), d),), {}), ((Arg((5,), d, noncontig=True),), {})], F + F16, out=True)
      for n in ("median", "nanmedian")],
    *[OpRecord(n, lambda d: [((Arg((3, 4), d),), {}), ((Arg((4, 5), d, 0, 50),), {"dim": 1})],
               ("int64", "uint8"), call=_vals(lambda T, x, n=n, **kw: (getattr(T, n)(x, **kw), None)))
      for n in ("median", "nanmedian")],
    *[OpRecord(n, lambda d: [((Arg((6, 7), d),), {}), ((Arg((6, 7), d),), {"dim": 1}),
                             ((Arg((6, 7), d),), {"dim": 0, "keepdim": True}),
                             ((Arg((3, 2), d),), {"dim": 1})], F,
               call=_nan(lambda T, x, n=n, **kw: getattr(T, n)(x, **kw))) for n in ("median", "nanmedian")],
    OpRecord("median", lambda d: [((Arg((3,), d),), {}), ((Arg((3,), d),), {"dim": 0}),
                                  ((Arg((3, 4), d),), {"dim": 2})], ("bool", "complex64", "float32")),
    OpRecord("kthvalue", lambda d: [((Arg((3, 4), d), 2), {}), ((Arg((3, 4), d), 3), {"dim": 0}),
                                    ((Arg((2, 3, 4), d, noncontig=True), 1), {"dim": 1, "keepdim": True}),
                                    ((Arg((5,), d), 5), {}), ((Arg((), d), 1), {}),
                                    ((Arg((), d), 1), {"dim": 0})],
             F + F16, out=True),
    OpRecord("kthvalue", lambda d: [((Arg((3, 4), d), 2), {})], ("int64",),
             call=_vals(lambda T, x, k: T.kthvalue(x, k))),
    OpRecord("kthvalue", lambda d: [((Arg((3, 4), d), 2), {"dim": 1})], F,
             call=_nan(lambda T, x, k, **kw: T.kthvalue(x, k, **kw))),
    OpRecord("kthvalue", lambda d: [((Arg((3, 4), d), 0), {}), ((Arg((3, 4), d), 5), {}),
                                    ((Arg((), d), 2), {}), ((Arg((0,), d), 1), {}),
                                    ((Arg((3, 4), d), 1), {"dim": 3})], ("float32", "bool")),
    OpRecord("mode", lambda d: [((Arg((3, 4), d, 0, 3),), {}), ((Arg((4, 9), d, 0, 3),), {"dim": 1}),
                                ((Arg((4, 9), d, 0, 3, noncontig=True),), {"dim": 0, "keepdim": True}),
                                ((Arg((2, 3, 4), d, 0, 2),), {"dim": -2}), ((Arg((), d),), {}),
                                ((Arg((2, 0), d),), {"dim": 0}), ((Arg((0,), d),), {})],
             ("int64", "int32", "uint8", "bool", "float32", "float64"), out=True),
    OpRecord("mode", lambda d: [((Arg((3, 4), d),), {})], ("complex64",)),
]

RECORDS += [
    # ---- sort, argsort, msort, topk (stable: ties keep their order)
    OpRecord("sort", lambda d: [((Arg((3, 4), d),), {}), ((Arg((3, 4), d),), {"dim": 0, "descending": True}),
                                ((Arg((2, 3, 4), d, noncontig=True),), {"dim": 1}), ((Arg((), d),), {}),
                                ((Arg((0,), d),), {}), ((Arg((2, 0, 3), d),), {"dim": 1}),
                                ((Arg((5,), d, noncontig=True),), {"descending": True})], F + F16, out=True),
    OpRecord("sort", lambda d: [((Arg((4, 9), d, 0, 3),), {"stable": True}),
                                ((Arg((4, 9), d, 0, 3),), {"stable": True, "descending": True}),
                                ((Arg((4, 9), d, 0, 3, noncontig=True),), {"stable": True, "dim": 0})],
             ("int64", "int32", "uint8", "bool")),
    OpRecord("sort", lambda d: [((Arg((3, 6), d),), {}), ((Arg((3, 6), d),), {"descending": True})], F,
             call=_nan(lambda T, x, **kw: T.sort(x, **kw))),
    OpRecord("sort", lambda d: [((Arg((3,), d),), {}), ((Arg((3, 4), d),), {"dim": 2})],
             ("complex64", "float32")),
    OpRecord("argsort", lambda d: [((Arg((3, 4), d),), {"stable": True}),
                                   ((Arg((3, 4), d),), {"dim": 0, "descending": True, "stable": True}),
                                   ((Arg((2, 3, 4), d, noncontig=True),), {"dim": 1, "stable": True}),
                                   ((Arg((), d),), {"stable": True})], F, out=True),
    OpRecord("argsort", lambda d: [((Arg((4, 9), d, 0, 3),), {"stable": True}),
                                   ((Arg((4, 9), d, 0, 3),), {"stable": True, "descending": True}),
                                   ((Arg((4, 9), d, 0, 3),), {"stable": True, "dim": 0})], ("int64", "bool")),
    OpRecord("argsort", lambda d: [((Arg((3, 4), d),), {}),
                                   ((Arg((3, 4), d),), {"dim": 0, "descending": True})], F),
    OpRecord("msort", lambda d: [((Arg((4, 3), d),), {}), ((Arg((), d),), {}),
                                 ((Arg((5,), d, noncontig=True),), {}),
                                 ((Arg((4, 3, 2), d, noncontig=True),), {})], COMMON + ("int32",), out=True),
    OpRecord("topk", lambda d: [((Arg((3, 6), d), 2), {}),
                                ((Arg((3, 6), d), 3), {"dim": 0, "largest": False}),
                                ((Arg((2, 3, 4), d, noncontig=True), 4), {"dim": -1}),
                                ((Arg((3, 6), d), 0), {}),
                                ((Arg((), d), 1), {}), ((Arg((), d), 0), {}), ((Arg((0,), d), 0), {}),
                                ((Arg((5,), d), 5), {"largest": False})], F + F16, out=True),
    OpRecord("topk", lambda d: [((Arg((3, 6), d), 3), {}),
                                ((Arg((3, 6), d), 2), {"dim": 0, "largest": False})], F,
             call=_sorted_vals(lambda T, x, k, **kw: T.topk(x, k, sorted=False, **kw))),
    OpRecord("topk", lambda d: [((Arg((3, 6), d), 2), {}), ((Arg((3, 6), d), 2), {"largest": False})], F,
             call=_nan(lambda T, x, k, **kw: T.topk(x, k, **kw))),
    OpRecord("topk", lambda d: [((Arg((3, 6), d), 7), {}), ((Arg((), d), 2), {}), ((Arg((0,), d), 1), {}),
                                ((Arg((3, 6), d), 1), {"dim": 2})], ("float32", "bool", "complex64")),
    # ---- unique (sorted output; NaNs distinct)
    OpRecord("unique", lambda d: [((Arg((4, 5), d, 0, 4),), kw) for kw in (
        {}, {"return_inverse": True}, {"return_counts": True},
        {"return_inverse": True, "return_counts": True}, {"sorted": False},
        {"dim": 0, "return_inverse": True, "return_counts": True}, {"dim": 1}, {"dim": -1})]
        + [((Arg((), d),), {"return_inverse": True}), ((Arg((0,), d),), {}), ((Arg((0, 3), d),), {"dim": 0}),
           ((Arg((6, 2), d, 0, 1, noncontig=True),), {"dim": 0, "return_inverse": True})],
        ("int64", "int32", "uint8", "bool", "float32")),
    OpRecord("unique", lambda d: [((Arg((3, 4), d),), {"return_inverse": True, "return_counts": True})], F,
             call=_nan(lambda T, x, **kw: T.unique(x, **kw))),
    OpRecord("unique", lambda d: [((Arg((0, 3), d),), {"dim": 1}), ((Arg((3, 4), d),), {"dim": 2}),
                                  ((Arg((3,), "complex64"),), {})], ("float32",)),
]
