"""Records for convolutions (torchshim/ops/nn_conv.py, torchshim/nn/functional/conv.py): convolution,
conv1d/2d/3d (numeric and 'same'/'valid' padding, stride, dilation, groups, unbatched, empty batch),
conv_transpose1d/2d/3d (output_padding, groups, dilation), conv_tbc, and F.unfold/F.fold (im2col/col2im).

Errors are checked in float32 (shape checks) plus the dtypes each CPU kernel rejects.
"""

from harness import Arg, OpRecord

F = ("float32", "float64")
LOW = ("float16", "bfloat16")


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


def _conv(nd, d):
    """(input, weight[, bias]) specs and kwargs for conv{nd}d samples of dtype d."""
    s = lambda *t: t[:nd]  # noqa: E731  (the first nd sizes)
    x = lambda c, n=6, b=2: Arg((b, c) + (n,) * nd, d)  # noqa: E731
    w = lambda o, i, k=3: Arg((o, i) + (k,) * nd, d)  # noqa: E731
    b = lambda o: Arg((o,), d)  # noqa: E731
    return [
        ((x(4), w(5, 4), b(5)), {}),
        ((x(4, 7), w(5, 4)), {"stride": 2, "padding": 1}),
        ((x(4, 7), w(5, 4, 2)), {"dilation": 2, "padding": s(1, 2, 0)}),
        ((x(4), w(6, 2), b(6)), {"groups": 2}),
        ((x(4), w(4, 1)), {"groups": 4, "padding": 1}),
        ((x(4, 5), w(3, 4)), {"padding": "same"}),
        ((x(4, 5), w(3, 4, 2)), {"padding": "same"}),
        ((x(4, 5), w(3, 4, 2)), {"padding": "same", "dilation": 2}),
        ((x(4, 5), w(3, 4)), {"padding": "valid"}),
        ((Arg((4,) + (6,) * nd, d), w(5, 4), b(5)), {"stride": s(2, 1, 1)}),
        ((x(4, b=0), w(5, 4)), {}),
        ((Arg((2, 4) + (6,) * nd, d, noncontig=True), w(5, 4)), {"stride": (1,) * nd, "padding": (1,) * nd}),
    ]


def _conv_samples(nd, ints=False):
    def samples(d):
        out = _conv(nd, d)
        if ints:  # dilation (slow_conv_dilated) supports int64 only; keep the cases every int kernel runs
            out = [c for c in out if "dilation" not in c[1]]
        return out

    return samples


def _conv_errors(nd):
    sp = (6,) * nd
    k = (3,) * nd
    return lambda d: [
        ((Arg((2, 4) + sp), Arg((5, 3) + k)), {}),  # channels
        ((Arg(sp), Arg((5, 4) + k)), {}),  # rank
        ((Arg((2, 4) + (2,) * nd), Arg((5, 4) + k)), {}),  # kernel larger than input
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"stride": 0}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"padding": -1}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"dilation": 0}),
        ((Arg((1, 4) + sp), Arg((5, 4) + k)), {"dilation": 0}),
        ((Arg((1, 4) + sp), Arg((5, 4) + k, "float64")), {}),
        ((Arg((1, 4) + sp), Arg((5, 4) + k), Arg((5,), "float64")), {}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"groups": 0}),
        ((Arg((2, 4) + sp), Arg((5, 2) + k)), {"groups": 3}),
        ((Arg((2, 4) + sp), Arg((5, 2) + k)), {"groups": 2}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"stride": (1,) * (nd + 1)}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"padding": "foo"}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k)), {"padding": "same", "stride": 2}),
        ((Arg((2, 4) + sp), Arg((5, 4) + k), Arg((4,))), {}),  # bias size
        ((Arg((2, 4) + sp), Arg((5, 4) + k), Arg((5,), "float64")), {}),  # bias dtype
        ((Arg((2, 4) + sp), Arg((5, 4) + k, "float64")), {}),  # weight dtype
        ((Arg((2, 4) + sp), Arg((5, 4) + (3,) * (nd + 1))), {}),  # weight rank
        ((Arg((2, 4) + sp, "bool"), Arg((5, 4) + k, "bool")), {}),
        ((Arg((2, 4) + sp, "int32"), Arg((5, 4) + k, "int32")), {"dilation": 2}),
        ((Arg((2, 4) + sp, "complex64"), Arg((5, 4) + k)), {}),
        ((Arg((2, 4) + sp), Arg((0, 4) + k)), {}),
    ]


def _convT(nd):
    def samples(d):
        x = Arg((2, 4) + (4,) * nd, d)
        return [
            ((x, Arg((4, 3) + (3,) * nd, d), Arg((3,), d)), {}),
            ((x, Arg((4, 3) + (3,) * nd, d)), {"stride": 2, "padding": 1, "output_padding": 1}),
            ((x, Arg((4, 2) + (2,) * nd, d)), {"stride": 2, "dilation": 2, "output_padding": (1,) * nd}),
            ((x, Arg((4, 3) + (3,) * nd, d), Arg((6,), d)), {"groups": 2, "stride": (2,) + (1,) * (nd - 1)}),
            ((Arg((4,) + (4,) * nd, d), Arg((4, 3) + (3,) * nd, d)), {"padding": 1}),
            ((x, Arg((4, 3) + (3,) * nd, d)), {"padding": 3}),
            ((Arg((0, 4) + (4,) * nd, d), Arg((4, 3) + (3,) * nd, d)), {}),
            (
                (Arg((2, 4) + (4,) * nd, d, noncontig=True), Arg((4, 3) + (3,) * nd, d)),
                {"stride": 3, "padding": 1},
            ),
        ]

    return samples


def _convT_errors(nd):
    x = Arg((2, 4) + (4,) * nd)
    w = Arg((4, 3) + (3,) * nd)
    return lambda d: [
        ((x, w), {"output_padding": 2, "stride": 2}),
        ((x, w), {"output_padding": 1}),
        ((x, w), {"output_padding": -1}),
        ((x, Arg((3, 3) + (3,) * nd)), {}),
        ((x, w, Arg((4,))), {}),
        ((x, w), {"groups": 3}),
        ((x, w), {"padding": 5}),
        ((Arg((1, 4) + (4,) * nd, "float64"), Arg((4, 3) + (3,) * nd, "float64")), {"padding": 5}),
        ((x, w), {"stride": 0}),
        ((Arg((1, 4) + (4,) * nd, "float64"), Arg((4, 3) + (3,) * nd, "float64")), {"dilation": 0}),
        ((x, w), {"dilation": 0}),
        ((x, w), {"padding": "same"}),
        ((Arg((4,) * nd), w), {}),
        ((x, Arg((4, 3) + (3,) * nd, "float64")), {}),
        ((Arg((2, 4) + (4,) * nd, "int32"), Arg((4, 3) + (3,) * nd, "int32")), {}),
        ((Arg((2, 4) + (4,) * nd, "int64"), Arg((4, 3) + (3,) * nd, "int64"), Arg((3,))), {}),
    ]


def _convolution(d):
    x, w = Arg((2, 4, 6, 6), d), Arg((5, 4, 3, 3), d)
    return [
        ((x, w, Arg((5,), d), (1, 1), (1, 1), (1, 1), False, (0, 0), 1), {}),
        ((x, w, None, (2,), (0,), (1,), False, (0,), 1), {}),
        ((Arg((2, 4, 5), d), Arg((4, 3, 3), d), None, (2,), (1,), (1,), True, (1,), 1), {}),
        ((Arg((2, 4, 6, 6), d), Arg((4, 2, 3, 3), d), None, (1,), (0,), (1,), False, (0,), 2), {}),
    ]


def _convolution_errors(d):
    x, w = Arg((2, 4, 6, 6)), Arg((5, 4, 3, 3))
    return [
        ((Arg((4, 6)), Arg((5, 4, 3)), None, (1,), (0,), (1,), False, (0,), 1), {}),
        ((x, w, None, (1, 1, 1), (0,), (1,), False, (0,), 1), {}),
        ((x, w, None, (1,), (0, 0, 0), (1,), False, (0,), 1), {}),
        ((x, w, None, (1,), (0,), (1, 1, 1), False, (0,), 1), {}),
        ((x, w, None, (1,), (0,), (1,), False, (0, 0, 0), 1), {}),
        ((x, Arg((5, 4)), None, (1,), (0,), (1,), False, (0,), 1), {}),
        ((x, w, Arg((5,), "float64"), (1,), (0,), (1,), False, (0,), 1), {}),
    ]


def _tbc(d):
    return [
        ((Arg((7, 2, 4), d), Arg((3, 4, 5), d), Arg((5,), d)), {}),
        ((Arg((7, 2, 4), d), Arg((3, 4, 5), d), Arg((5,), d)), {"pad": 1}),
        ((Arg((5, 3, 2), d), Arg((2, 2, 3), d), Arg((3,), d), 2), {}),
    ]


def _tbc_errors(d):
    return [
        ((Arg((7, 4)), Arg((3, 4, 5)), Arg((5,))), {}),
        ((Arg((7, 2, 4)), Arg((3, 4)), Arg((5,))), {}),
        ((Arg((7, 2, 4)), Arg((3, 4, 5)), Arg((5, 1))), {}),
        ((Arg((7, 2, 4)), Arg((3, 3, 5)), Arg((5,))), {}),
        ((Arg((7, 2, 4)), Arg((3, 4, 5)), Arg((4,))), {}),
        ((Arg((7, 2, 4), "bool"), Arg((3, 4, 5), "bool"), Arg((5,), "bool")), {}),
        ((Arg((7, 2, 4)), Arg((3, 4, 5), "float64"), Arg((5,))), {}),
        ((Arg((7, 2, 4)), Arg((3, 4, 5)), Arg((5,), "float64")), {}),
        ((Arg((2, 2, 4)), Arg((3, 4, 5)), Arg((5,))), {}),
        ((Arg((1, 2, 4)), Arg((3, 4, 5)), Arg((5,))), {}),
        ((Arg((7, 2, 4)), Arg((3, 4, 5)), Arg((5,))), {"pad": -2}),
    ]


def _unfold(d):
    return [
        ((Arg((2, 3, 6, 5), d), 2), {}),
        ((Arg((2, 3, 6, 5), d), (2, 3)), {"stride": 2, "padding": 1}),
        ((Arg((2, 3, 7, 7), d), 3), {"dilation": 2, "padding": (1, 0)}),
        ((Arg((3, 6, 5), d), 2), {"stride": (1, 2)}),
        ((Arg((0, 3, 6, 5), d), 2), {}),
        ((Arg((2, 3, 6, 5), d, noncontig=True), 3), {"padding": 1}),
    ]


def _unfold_errors(d):
    x = Arg((2, 3, 6, 5))
    return [
        ((Arg((6, 5)), 2), {}),
        ((Arg((1, 2, 3, 6, 5)), 2), {}),
        ((x, 7), {}),
        ((Arg((2, 3, 6, 4)), (7, 2)), {}),
        ((x, 0), {}),
        ((x, 2), {"stride": 0}),
        ((x, 2), {"dilation": 0}),
        ((x, 2), {"padding": -1}),
        ((x, 2), {"dilation": 0, "padding": -1}),
        ((x, 2), {"padding": -1, "stride": 0}),
        ((x, (2, 2, 2)), {}),
        ((Arg((2, 0, 6, 5)), 2), {}),
        ((Arg((2, 3, 6, 5), "int64"), 2), {}),
    ]


def _fold(d):
    return [
        ((Arg((2, 12, 20), d), (5, 6), 2), {}),
        ((Arg((2, 12, 12), d), (6, 5), 2), {"stride": 2, "padding": 1}),
        ((Arg((12, 9), d), (7, 7), 2), {"dilation": 2}),
        (
            (
                Arg((2, 12, 6), d),
                (5, 5),
                (2, 3),
            ),
            {"stride": (2, 1), "dilation": (1, 2), "padding": 1},
        ),
        ((Arg((0, 12, 20), d), (5, 6), 2), {}),
        ((Arg((2, 12, 20), d, noncontig=True), (5, 6), 2), {}),
    ]


def _fold_errors(d):
    x = Arg((2, 12, 16))
    return [
        ((Arg((12,)), (5, 5), 2), {}),
        ((Arg((2, 12, 15)), (5, 5), 2), {}),
        ((Arg((2, 11, 16)), (5, 5), 2), {}),
        ((x, (5, 5), 0), {}),
        ((x, (5, 5), 2), {"stride": 0}),
        ((x, (5, 5), 2), {"dilation": 0}),
        ((x, (5, 5), 2), {"padding": -1}),
        ((x, (5, 5), 2), {"stride": 0, "dilation": 0}),
        ((x, (5, 5), 2), {"dilation": 0, "padding": -1}),
        ((x, (0, 5), 2), {}),
        ((Arg((2, 12, 0)), (5, 5), 2), {}),
        ((Arg((2, 12, 16), "int64"), (5, 5), 2), {}),
        ((x, (5, 5, 5), 2), {}),
    ]


_INT_OK = ("int64", "int32", "int16", "int8", "uint8")

RECORDS = [
    OpRecord("convolution", _convolution, F + ("int64",), method=False),
    OpRecord("convolution", _convolution_errors, ("float32",), method=False),
]
for _n in (1, 2, 3):
    RECORDS += [
        OpRecord(f"conv{_n}d", _conv_samples(_n), F, method=False, atol=2e-5, rtol=1e-5),
        OpRecord(f"conv{_n}d", _conv_samples(_n), LOW, method=False),
        # complex: PyTorch's 3-product (Gauss) decomposition; c - a - b cancels, so small results carry the
        # float32 rounding of large partial sums (summation order differs from PyTorch's kernels)
        OpRecord(
            f"conv{_n}d", _conv_samples(_n), ("complex64", "complex128"), method=False, rtol=1e-5, atol=1e-4
        ),
        OpRecord(f"conv{_n}d", _conv_samples(_n, ints=True), _INT_OK, method=False),
        OpRecord(f"conv{_n}d", _conv_errors(_n), ("float32",), method=False),
        OpRecord(
            f"conv{_n}d",
            _conv_samples(_n),
            ("float32",),
            method=False,
            call=Fn(f"conv{_n}d"),
            atol=2e-5,
            rtol=1e-5,
        ),
        OpRecord(f"conv_transpose{_n}d", _convT(_n), F, method=False, atol=2e-5, rtol=1e-5),
        OpRecord(f"conv_transpose{_n}d", _convT(_n), LOW + ("int64",), method=False),
        OpRecord(f"conv_transpose{_n}d", _convT(_n), ("complex64",), method=False, rtol=1e-5, atol=1e-4),
        OpRecord(f"conv_transpose{_n}d", _convT_errors(_n), ("float32",), method=False),
    ]
RECORDS += [
    OpRecord("conv_tbc", _tbc, F + LOW + ("int64", "int32", "complex64"), method=False),
    OpRecord("conv_tbc", _tbc_errors, ("float32",), method=False),
    OpRecord("im2col", _unfold, F + LOW + ("bool", "complex64"), method=False, call=Fn("unfold")),
    OpRecord("im2col", _unfold_errors, ("float32",), method=False, call=Fn("unfold")),
    OpRecord("col2im", _fold, F + LOW + ("bool", "complex64"), method=False, call=Fn("fold")),
    OpRecord("col2im", _fold_errors, ("float32",), method=False, call=Fn("fold")),
]
