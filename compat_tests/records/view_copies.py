"""Records for torchshim/ops/view_copies.py: the `*_copy` functions, the `*_scatter` functions and `ravel`.
(The top-level in-place functions `torch.abs_`, ... are tested in test_reach_names.py.)"""

from harness import Arg, OpRecord

F = ("float32", "float64")
FI = ("float32", "float64", "int64", "bool")


def _one(*cases):
    return lambda d: [((Arg(shape, d, noncontig=nc), *args), kw) for shape, nc, args, kw in cases]


_COPIES = {
    "permute_copy": _one(((2, 3, 4), False, ((2, 0, 1),), {}), ((3, 4), True, ((1, 0),), {})),
    "t_copy": _one(((3, 4), False, (), {}), ((4,), False, (), {})),
    "view_copy": _one(
        ((3, 4), False, ((12,),), {}), ((3, 4), False, ((2, -1),), {}), ((3, 4), True, ((12,),), {})
    ),
    "expand_copy": _one(((3, 1), False, ((2, 3, 4),), {}), ((4,), False, ((3, -1),), {})),
    "select_copy": _one(((3, 4), False, (0, 1), {}), ((2, 3, 4), True, (-1, 2), {})),
    "slice_copy": _one(
        ((5, 4), False, (), {}), ((5, 4), False, (0, 1, 4, 2), {}), ((5, 4), True, (1, 1), {})
    ),
    "split_copy": _one(((5, 4), False, (2,), {}), ((5, 4), False, (3, 1), {})),
    "split_with_sizes_copy": _one(((5, 4), False, ([2, 3],), {}), ((5, 4), False, ([1, 3], 1), {})),
    "unbind_copy": _one(((3, 4), False, (), {}), ((3, 4), True, (1,), {})),
    "diagonal_copy": _one(((3, 4), False, (), {}), ((2, 3, 4), False, (1, 1, 2), {})),
    "squeeze_copy": _one(((3, 1, 4), False, (), {}), ((3, 1, 4), False, (1,), {})),
    "unsqueeze_copy": _one(((3, 4), False, (0,), {}), ((3, 4), True, (-1,), {})),
    "transpose_copy": _one(((3, 4), False, (0, 1), {}), ((2, 3, 4), False, (-1, 0), {})),
    "unfold_copy": _one(((6, 4), False, (0, 2, 1), {}), ((6,), False, (0, 3, 2), {})),
    "alias_copy": _one(((3, 4), False, (), {}), ((3, 4), True, (), {})),
    "as_strided_copy": _one(((3, 4), False, ((2, 2), (1, 2)), {}), ((3, 4), False, ((2,), (3,), 1), {})),
    "narrow_copy": _one(((5, 4), False, (0, 1, 3), {}), ((5, 4), False, (1, 2, 2), {})),
}

RECORDS = [
    OpRecord(
        n,
        s,
        FI,
        method=n == "narrow_copy",
        out=n not in ("split_copy", "unbind_copy", "split_with_sizes_copy"),
    )
    for n, s in _COPIES.items()
]
RECORDS += [
    OpRecord("view_as_real_copy", _one(((3,), False, (), {})), ("complex64",), method=False),
    OpRecord("ravel", _one(((3, 4), False, (), {}), ((3, 4), True, (), {}), ((), False, (), {})), FI),
    OpRecord(
        "select_scatter",
        lambda d: [
            ((Arg((3, 4), d), Arg((4,), d), 0, 1), {}),
            ((Arg((3, 4), d, noncontig=True), Arg((3,), d), 1, -1), {}),
            ((Arg((3, 4), d), Arg((3,), d), 0, 0), {}),
            ((Arg((3, 4), d), Arg((4,), d), 0, 3), {}),
        ],
        FI,
    ),
    OpRecord(
        "slice_scatter",
        lambda d: [
            ((Arg((5, 4), d), Arg((5, 4), d)), {}),
            ((Arg((5, 4), d), Arg((2, 4), d), 0, 1, 5, 2), {}),
            ((Arg((5, 4), d), Arg((5, 2), d)), {"dim": 1, "start": 2}),
            ((Arg((5, 4), d), Arg((5, 3), d)), {"dim": 1, "start": 2}),
        ],
        FI,
        out=True,
    ),
    OpRecord(
        "diagonal_scatter",
        lambda d: [
            ((Arg((3, 4), d), Arg((3,), d)), {}),
            ((Arg((3, 4), d), Arg((3,), d), 1), {}),
            ((Arg((4, 3), d), Arg((2,), d), -2), {}),
            ((Arg((2, 3, 4), d), Arg((4, 2), d), 0, 0, 1), {}),
            ((Arg((3, 4), d), Arg((4,), d)), {}),
        ],
        FI,
    ),
    OpRecord(
        "as_strided_scatter",
        lambda d: [
            ((Arg((3, 4), d), Arg((2, 2), d), (2, 2), (1, 2)), {}),
            ((Arg((3, 4), d), Arg((3,), d), (3,), (4,), 1), {}),
            ((Arg((3, 4), d), Arg((2,), d), (3,), (1,)), {}),
        ],
        FI,
    ),
]
