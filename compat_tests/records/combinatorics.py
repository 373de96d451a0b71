"""Records for torchshim/ops/combinatorics.py (triangle indices, combinations, unravel_index, vander, the
hsplit family and the window functions)."""

from harness import Arg, OpRecord

F = ("float32", "float64")
FI = ("float32", "int64")


def _none(*cases):
    return lambda d: [(args, kw) for args, kw in cases]


RECORDS = [
    OpRecord(
        "tril_indices",
        _none(
            ((3, 4), {}),
            ((3, 4, 1), {}),
            ((4, 3, -2), {}),
            ((0, 3), {}),
            ((3, 3), {"dtype": "int32"}),
            ((-1, 3), {}),
        ),
        ("int64",),
        method=False,
        call=lambda T, *a, **kw: T.tril_indices(
            *a, **{k: getattr(T, v) if k == "dtype" else v for k, v in kw.items()}
        ),
    ),
    OpRecord(
        "triu_indices",
        _none(((3, 4), {}), ((3, 4, 1), {}), ((4, 3, -2), {}), ((3, 0), {})),
        ("int64",),
        method=False,
    ),
    OpRecord(
        "combinations",
        lambda d: [
            ((Arg((4,), d),), {}),
            ((Arg((4,), d), 3), {}),
            ((Arg((3,), d),), {"with_replacement": True}),
            ((Arg((3,), d), 1), {}),
            ((Arg((3,), d), 0), {}),
            ((Arg((2, 2), d),), {}),
            ((Arg((5,), d), 4), {}),
        ],
        F + ("int64",),
        method=False,
    ),
    OpRecord(
        "unravel_index",
        lambda d: [
            ((Arg((5,), d, 0, 11), (3, 4)), {}),
            ((Arg((2, 2), d, -12, 11), (3, 4)), {}),
            ((Arg((3,), d, 0, 5), 6), {}),
            ((Arg((4,), d, -14, 14), (3, 4)), {}),
        ],
        ("int64", "int32"),
        method=False,
    ),
    OpRecord("unravel_index", lambda d: [((Arg((3,), d), (3, 4)), {})], ("float32",), method=False),
    OpRecord(
        "vander",
        lambda d: [
            ((Arg((4,), d),), {}),
            ((Arg((4,), d), 3), {}),
            ((Arg((4,), d), 5, True), {}),
            ((Arg((3,), d), 0), {}),
            ((Arg((2, 2), d),), {}),
        ],
        F + ("int64", "int32", "bool"),
        method=False,
    ),
    OpRecord(
        "hsplit",
        lambda d: [
            ((Arg((3, 4), d), 2), {}),
            ((Arg((6,), d), [1, 4]), {}),
            ((Arg((3, 4), d), 3), {}),
            ((Arg((), d), 1), {}),
        ],
        FI,
    ),
    OpRecord(
        "vsplit",
        lambda d: [((Arg((4, 3), d), 2), {}), ((Arg((4, 3), d), [1]), {}), ((Arg((4,), d), 2), {})],
        FI,
    ),
    OpRecord(
        "dsplit",
        lambda d: [
            ((Arg((2, 3, 4), d), 2), {}),
            ((Arg((2, 3, 4), d), [1, 3]), {}),
            ((Arg((3, 4), d), 2), {}),
        ],
        FI,
    ),
]


def _win(name, extra=()):
    def call(T, n, *args, **kw):
        if "dtype" in kw:
            kw["dtype"] = getattr(T, kw["dtype"])
        return getattr(T, name)(n, *args, **kw)

    cases = [((n,), {}) for n in (0, 1, 2, 5, 8)] + [
        ((5, False), {}),
        ((6,), {"dtype": "float64"}),
        ((4,), {"dtype": "float16"}),
        ((7,), {"dtype": "bfloat16"}),
        ((-1,), {}),
        ((3,), {"dtype": "int64"}),
    ]
    cases += list(extra)
    return OpRecord(name, _none(*cases), ("float32",), method=False, call=call)


RECORDS += [
    _win("hann_window"),
    _win("blackman_window"),
    _win("bartlett_window"),
    _win("hamming_window", [((5, True, 0.5, 0.4), {}), ((6, False, 0.6), {})]),
    _win("kaiser_window", [((5, True, 3.0), {}), ((6, False, 8.0), {})]),
]
