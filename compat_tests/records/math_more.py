"""Records for torchshim/ops/math_more.py (isreal, gradient, histogramdd, hash_tensor, nonzero_static,
empty_permuted, slice_inverse, torch.resize_as_); the Tensor methods of ops/tensor_state.py (resize,
resize_as, set_, record_stream, module_load) and the jit/tracing checks are in test_math_more.py."""

from harness import Arg, OpRecord

F = ("float32", "float64")


def _slice_inverse_of_slice(T, base, dim, start, end, step=1):
    """slice_inverse of a slice of `base` (a non-leaf, so gradients flow through the view), doubled."""
    view = base[start:end:step] if dim == 0 else base[:, start:end:step]
    return T.slice_inverse(view, base, dim, start, end, step) * 2

FC = ("float32", "float64", "complex64", "complex128")

RECORDS = [
    OpRecord(
        "isreal",
        lambda d: [((Arg((3, 4), d),), {}), ((Arg((), d),), {}), ((Arg((0, 2), d),), {}),
                   ((Arg((2, 3), d, noncontig=True),), {})],
        ("float32", "float64", "int64", "bool", "complex64", "complex128", "float16"),
    ),
    OpRecord(  # complex values whose imaginary part is exactly 0 in places
        "isreal",
        lambda d: [((Arg((2, 3), d, -1, 1),), {})],
        ("complex64",),
        call=lambda T, x: T.isreal(T.complex(x.real, (x.imag > 0).to(x.real.dtype) * x.imag)),
        method=False,
    ),
    OpRecord(
        "gradient",
        lambda d: [
            ((Arg((5,), d),), {}),
            ((Arg((3, 4), d),), {"spacing": 2.0}),
            ((Arg((3, 4), d),), {"dim": 1, "edge_order": 2}),
            ((Arg((3, 4), d, noncontig=True),), {"spacing": [0.5, 2.0]}),
            ((Arg((2, 3, 4), d),), {"dim": [0, -1], "spacing": [1.5, 3.0]}),
            ((Arg((4, 3), d),), {"dim": 0, "edge_order": 2, "spacing": 0.25}),
            ((Arg((1, 4), d),), {}),
            ((Arg((2, 4), d),), {"edge_order": 2}),
            ((Arg((5,), d),), {"edge_order": 3}),
            ((Arg((3, 4), d),), {"spacing": [1.0, 2.0, 3.0]}),
            ((Arg((3, 4), d),), {"dim": [0, 1], "spacing": [1.0]}),
            ((Arg((3, 4), d),), {"dim": 2}),
            ((Arg((), d),), {}),
        ],
        FC + ("int64",),
        call=lambda T, x, **kw: T.gradient(x, **kw),
        method=False,
    ),
    OpRecord(  # coordinates (non-uniform spacing), first- and second-order edges
        "gradient",
        lambda d: [((Arg((5,), d), Arg((5,), "float64", 0, 1)), {}),
                   ((Arg((5, 3), d), Arg((5,), "float64", 0, 1)), {"edge_order": 2}),
                   ((Arg((3, 4), d), Arg((4,), "float64", 0, 1)), {"dim": 1})],
        F + ("complex128",),
        call=lambda T, x, c, **kw: T.gradient(x, spacing=[T.cumsum(c + 0.5, 0).to(
            x.real.dtype if x.is_complex() else x.dtype)], **kw),
        method=False,
    ),
    OpRecord(
        "histogramdd",
        lambda d: [
            ((Arg((6, 2), d), [3, 2]), {}),
            ((Arg((5, 3), d), 2), {"range": [-1.0, 1.0, -2.0, 2.0, 0.0, 3.0]}),
            ((Arg((2, 4, 2), d), [2, 3]), {"density": True}),
            ((Arg((6, 1), d), [4]), {}),
            ((Arg((6, 2), d), [3, 2]), {"range": [1.0, 0.0, 0.0, 1.0]}),
            ((Arg((6, 2), d), [3]), {}),
            ((Arg((6, 2), d), [3, 0]), {}),
            ((Arg((6, 2), d), [3, 3]), {"range": [0.0, 1.0]}),
            ((Arg((6,), d), [3]), {}),
        ],
        F + ("int64",),
        call=lambda T, x, b, **kw: T.histogramdd(x, b, **kw),
        method=False,
    ),
    OpRecord(  # weights, explicit edges, equal min and max
        "histogramdd",
        lambda d: [
            ((Arg((6, 2), d), Arg((6,), d, 0, 2)), {"bins": [2, 3]}),
            ((Arg((6, 2), d), Arg((6,), d, 0, 2)), {"bins": [2, 3], "density": True}),
            ((Arg((6, 2), d), Arg((3,), d)), {"bins": [2, 3]}),
            ((Arg((6, 2), d), Arg((6,), "float16")), {"bins": [2, 3]}),
        ],
        F,
        call=lambda T, x, w, **kw: T.histogramdd(x, weight=w, **kw),
        method=False,
    ),
    OpRecord(
        "histogramdd",
        lambda d: [((Arg((5, 2), d),), {})],
        F,
        call=lambda T, x: (T.histogramdd(x, [T.tensor([-3.0, 0.0, 1.0, 3.0], dtype=x.dtype),
                                             T.tensor([-2.0, 2.0], dtype=x.dtype)]),
                           T.histogramdd(x * 0 + 1, 2)),
        method=False,
    ),
    OpRecord(
        "hash_tensor",
        lambda d: [((Arg((3, 4), d),), {}), ((Arg((3, 4), d),), {"dim": 1}),
                   ((Arg((2, 3, 4), d, noncontig=True),), {"dim": [0, 2], "keepdim": True}),
                   ((Arg((0, 3), d),), {"dim": 0}), ((Arg((0, 3), d),), {}), ((Arg((2,), d),), {"mode": 1})],
        ("float32", "float64", "float16", "int64", "int8", "uint8", "bool", "complex64"),
    ),
    OpRecord(
        "nonzero_static",
        lambda d: [((Arg((3, 4), d, -1, 1),), {"size": 4}), ((Arg((3, 4), d, -1, 1),), {"size": 20}),
                   ((Arg((2, 3), d, -1, 1),), {"size": 8, "fill_value": 7}),
                   ((Arg((), d),), {"size": 2}), ((Arg((5,), d, -1, 1),), {"size": 0}),
                   ((Arg((5,), d),), {"size": -1}), ((Arg((5,), d),), {"size": 2.5})],
        ("float32", "int64", "bool", "complex64"),
    ),
    OpRecord(  # values are undefined in PyTorch (zeros here): compare shape, dtype, stride
        "empty_permuted",
        lambda d: [(((2, 3, 4), (0, 2, 1)), {}), (((2, 3, 4), (2, 0, 1)), {}), (((3,), (0,)), {}),
                   (((2, 3), (1, 0)), {"requires_grad": True}), (((2, 3, 4), (0, 1)), {}),
                   (((2, 3, 4), (0, 1, 1)), {}), (((2, 3, 4), (0, 1, 5)), {})],
        ("float32", "int64"),
        call=lambda T, size, layout, **kw: (lambda t: (t.shape, t.stride(), t.dtype, t.requires_grad,
                                                       t.is_contiguous()))(
            T.empty_permuted(size, layout, dtype=T.float32, **kw)),
        method=False,
    ),
    OpRecord(
        "slice_inverse",
        lambda d: [((Arg((4, 3), d),), {"dim": 0, "start": 1, "end": 3}),
                   ((Arg((4, 3), d),), {"dim": 1, "start": 0, "end": 3, "step": 2}),
                   ((Arg((4, 3), d, requires_grad=d != "int64"),), {"dim": 0, "start": 2, "end": None})],
        ("float32", "float64", "int64", "complex64"),
        call=lambda T, b, **kw: _slice_inverse_of_slice(T, b * 1, **kw),
        method=False,
    ),
    OpRecord(  # a src that does not fit the input's storage
        "slice_inverse",
        lambda d: [((Arg((2, 4), d), Arg((3, 4), d)), {})],
        ("float32",),
        call=lambda T, x, src: T.slice_inverse(x, src, 0, 0, 2),
        method=False,
    ),
    OpRecord(
        "resize_as_",
        lambda d: [((Arg((6,), d), Arg((2, 2), d)), {}), ((Arg((2, 3), d), Arg((3, 3), "int64")), {}),
                   ((Arg((2, 3), d), Arg((3, 2), d)), {"memory_format": None})],
        ("float32", "int64"),
        call=lambda T, x, tmpl, **kw: (lambda r: (r.shape, r.reshape(-1)[:6]))(T.resize_as_(x.clone(), tmpl,
                                                                                              **kw)),
        method=False,
    ),
]
