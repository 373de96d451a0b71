"""Records for torchshim/ops/tensor_misc.py table ops (put, fill_diagonal_); its Tensor methods (new,
sum_to_size, apply_, resize_, ...) are tested in test_reach_names.py."""

from harness import Arg, Idx, OpRecord

FI = ("float32", "float64", "int64")

RECORDS = [
    OpRecord(
        "put",
        lambda d: [
            ((Arg((3, 4), d), Idx((5,), 12), Arg((5,), d)), {}),
            ((Arg((3, 4), d, noncontig=True), Idx((2, 2), 12), Arg((4,), d)), {}),
            ((Arg((3, 4), d), Idx((6,), 4), Arg((6,), d)), {"accumulate": True}),
            ((Arg((3, 4), d), Idx((2,), 3), Arg((3,), d)), {}),
            ((Arg((3, 4), d), Idx((2,), 3), Arg((2,), "float16")), {}),
        ],
        FI,
        inplace=True,
    ),
    OpRecord(
        "put",
        lambda d: [((Arg((3, 4), d), Idx((1,), 12), Arg((1,), d)), {})],
        FI,
        call=lambda T, x, i, s: T.put(x, i + 12, s),
        method=False,
    ),
    OpRecord(
        "fill_diagonal_",
        lambda d: [
            ((Arg((3, 4), d), 2), {}),
            ((Arg((7, 3), d), 1.5), {}),
            ((Arg((7, 3), d), 1), {"wrap": True}),
            ((Arg((3, 3, 3), d), 0), {}),
            ((Arg((2, 3, 3), d), 0), {}),
            ((Arg((3,), d), 0), {}),
        ],
        FI,
        call=lambda T, x, v, **kw: x.clone().fill_diagonal_(v, **kw),
        method=False,
    ),
]
