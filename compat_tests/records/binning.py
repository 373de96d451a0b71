"""Records for torchshim/ops/binning.py (bincount, histc, histogram, bucketize, searchsorted, isin,
unique_consecutive)."""

from harness import Arg, OpRecord

F = ("float32", "float64")
INT = ("int64", "int32", "uint8", "int16")


def _search(T, s, v, **kw):
    return T.searchsorted(T.sort(s).values, v, **kw)


def _bucketize(T, v, b, **kw):
    return T.bucketize(v, T.sort(b).values, **kw)


def _histogram(T, x, bins=100, w=None, **kw):
    if w is not None:
        kw["weight"] = w
    if isinstance(bins, int):
        return T.histogram(x, bins, **kw)
    return T.histogram(x, T.sort(bins).values, **kw)


RECORDS = [
    OpRecord(
        "bincount",
        lambda d: [
            ((Arg((10,), d, 0, 6),), {}),
            ((Arg((10,), d, 0, 3),), {"minlength": 7}),
            ((Arg((0,), d),), {}),
            ((Arg((0,), d),), {"minlength": 3}),
            ((Arg((2, 3), d, 0, 3),), {}),
            ((Arg((4,), d, 0, 3),), {"minlength": -1}),
        ],
        INT,
    ),
    OpRecord(
        "bincount",
        lambda d: [
            ((Arg((8,), "int64", 0, 5), Arg((8,), d)), {}),
            ((Arg((8,), "int64", 0, 3), Arg((8,), d)), {"minlength": 6}),
            ((Arg((8,), "int64", 0, 3), Arg((7,), d)), {}),
            ((Arg((3,), "int64", -3, -1),), {}),
        ],
        ("float32", "float64", "int64"),
    ),
    OpRecord("bincount", lambda d: [((Arg((3,), d),), {})], ("float32",)),
    OpRecord(
        "histc",
        lambda d: [
            ((Arg((20,), d),), {}),
            ((Arg((4, 5), d),), {"bins": 7}),
            ((Arg((20,), d),), {"bins": 4, "min": -1, "max": 2}),
            ((Arg((0,), d),), {"bins": 3}),
            ((Arg((3,), d, 1, 1),), {"bins": 4}),
            ((Arg((5,), d),), {"bins": 4, "min": 3, "max": 0}),
            ((Arg((5,), d),), {"bins": 0}),
        ],
        F,
        out=True,
    ),
    OpRecord("histc", lambda d: [((Arg((5,), d),), {})], ("int64",)),
    OpRecord(
        "histogram",
        lambda d: [
            ((Arg((20,), d),), {"bins": 5}),
            ((Arg((4, 5), d),), {"bins": 4, "range": (-1.0, 2.0)}),
            ((Arg((10,), d), 3, Arg((10,), d, 0, 2)), {"density": True}),
            ((Arg((10,), d), Arg((4,), d)), {}),
            ((Arg((5,), d),), {"bins": 4, "range": (2.0, 1.0)}),
        ],
        F,
        call=_histogram,
    ),
    OpRecord("histogram", lambda d: [((Arg((20,), d),), {"bins": 5})], F),
    OpRecord("histogram", lambda d: [((Arg((5,), d),), {"bins": 3})], ("int64",)),
    OpRecord(
        "bucketize",
        lambda d: [
            ((Arg((3, 4), d, -6, 6), Arg((5,), d, -4, 4)), {}),
            ((Arg((7,), d, -6, 6), Arg((5,), d, -4, 4)), {"right": True}),
            ((Arg((7,), d, -6, 6), Arg((5,), d, -4, 4)), {"out_int32": True}),
            ((2, Arg((5,), d, -4, 4)), {}),
            ((Arg((3,), d), Arg((2, 2), d)), {}),
        ],
        ("float32", "int64"),
        call=_bucketize,
    ),
    OpRecord(
        "bucketize",
        lambda d: [((Arg((3, 4), d, -6, 6), Arg((5,), d, -4, 4)), {})],
        ("float32",),
        method=False,
        out=True,
    ),
    OpRecord(
        "searchsorted",
        lambda d: [
            ((Arg((6,), d, -4, 4), Arg((3, 4), d, -6, 6)), {}),
            ((Arg((2, 6), d, -4, 4), Arg((2, 3), d, -6, 6)), {"side": "right"}),
            ((Arg((6,), d, -4, 4), 1), {"right": True}),
            ((Arg((2, 6), d, -4, 4), Arg((3, 3), d, -6, 6)), {}),
            ((Arg((6,), d, -4, 4), Arg((2,), d)), {"side": "middle"}),
            ((Arg((6,), d, -4, 4), Arg((2,), d)), {"side": "left", "right": True}),
        ],
        ("float32", "int64"),
        call=_search,
    ),
    OpRecord(
        "searchsorted",
        lambda d: [((Arg((6,), d, -4, 4), Arg((3, 4), d, -6, 6)), {})],
        ("float32",),
        method=False,
        out=True,
    ),
    OpRecord(
        "isin",
        lambda d: [
            ((Arg((3, 4), d, -3, 3), Arg((5,), d, -3, 3)), {}),
            ((Arg((3, 4), d, -3, 3), Arg((2, 2), d, -3, 3)), {"invert": True}),
            ((Arg((6,), d, -3, 3), 1), {}),
            ((2, Arg((6,), d, -3, 3)), {}),
            ((Arg((6,), d, -3, 3), Arg((3,), "float64", -3, 3)), {}),
        ],
        ("int64", "float32"),
        method=False,
        out=True,
    ),
    OpRecord(
        "unique_consecutive",
        lambda d: [
            ((Arg((12,), d, 0, 2),), {}),
            ((Arg((3, 4), d, 0, 1),), {"return_inverse": True}),
            ((Arg((12,), d, 0, 2),), {"return_counts": True}),
            ((Arg((6, 2), d, 0, 1),), {"dim": 0, "return_inverse": True, "return_counts": True}),
            ((Arg((2, 6), d, 0, 1),), {"dim": 1}),
            ((Arg((0,), d),), {"return_counts": True}),
        ],
        ("int64", "float32", "bool"),
    ),
]
