"""Records for the linear-layer functionals (torchshim/ops/nn_linear.py): `F.linear` (no `torch.linear` in
PyTorch) and `torch.bilinear` / `F.bilinear`. Samples cover each ATen path of linear (2-D addmm, flattened
addmm for contiguous inputs with a 1-D bias, matmul + add_ otherwise, no bias), 1-D weights and inputs, empty
batches, non-contiguous operands, and the error cases of each path."""
from harness import Arg, OpRecord

F32 = ("float32",)
LINEAR_DTYPES = ("float32", "float64", "int64", "complex64")
LOW = ("float16", "bfloat16", "int32")


def _F(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


def _linear_ok(d):
    return [
        ((Arg((2, 3), d), Arg((4, 3), d), Arg((4,), d)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d)), {"bias": None}),
        ((Arg((3,), d), Arg((4, 3), d)), {}),
        ((Arg((3,), d), Arg((4, 3), d), Arg((4,), d)), {}),
        ((Arg((2, 3), d), Arg((3,), d)), {}),
        ((Arg((3,), d), Arg((3,), d)), {}),
        ((Arg((3,), d), Arg((3,), d), Arg((), d)), {}),
        ((Arg((2, 5, 3), d), Arg((4, 3), d), Arg((4,), d)), {}),
        ((Arg((2, 5, 3), d, noncontig=True), Arg((4, 3), d), Arg((4,), d)), {}),
        ((Arg((2, 2, 5, 3), d), Arg((4, 3), d)), {}),
        ((Arg((2, 5, 3), d), Arg((4, 3), d), Arg((2, 1, 4), d)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d), Arg((2, 4), d)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d), Arg((1,), d)), {}),
        ((Arg((2, 3), d, noncontig=True), Arg((4, 3), d, noncontig=True), Arg((4,), d)), {}),
        ((Arg((0, 3), d), Arg((4, 3), d), Arg((4,), d)), {}),
        ((Arg((2, 0, 3), d), Arg((4, 3), d), Arg((4,), d)), {}),
        ((Arg((2, 0), d), Arg((4, 0), d), Arg((4,), d)), {}),
        ((Arg((2, 2, 3), d), Arg((3,), d), Arg((), d)), {}),
    ]


def _linear_bad(d):
    f64 = "float64"
    return [
        ((Arg((2, 3), d), Arg((4, 2), d)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d), Arg((3,), d)), {}),
        ((Arg((2, 3), d), Arg((3,), d), Arg((), d)), {}),
        ((Arg((), d), Arg((), d)), {}),
        ((Arg((2, 3), d), Arg((4, 3), f64)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d), Arg((4,), f64)), {}),
        ((Arg((2, 5, 3), d), Arg((4, 3), d), Arg((4,), f64)), {}),
        ((Arg((2, 5, 3), d), Arg((4, 3), d), Arg((3, 1, 4), d)), {}),
        ((Arg((2, 3), d), Arg((1, 4, 3), d)), {}),
        ((Arg((2, 2, 3), d), Arg((3,), d), Arg((1,), d)), {}),
        ((Arg((2, 3), "bool"), Arg((4, 3), "bool")), {}),
        ((Arg((2, 5, 3), "int64", noncontig=True), Arg((4, 3), "int64"), Arg((2, 1, 4), f64)), {}),
        ((Arg((2, 3), d), Arg((4, 3), d), 1.0), {}),
        ((1.0, Arg((4, 3), d)), {}),
    ]


def _bilinear_ok(d):
    return [
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d), Arg((5,), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d)), {}),
        ((Arg((3,), d), Arg((4,), d), Arg((5, 3, 4), d)), {}),
        ((Arg((2, 2, 3), d), Arg((2, 2, 4), d, noncontig=True), Arg((5, 3, 4), d), Arg((5,), d)), {}),
        ((Arg((0, 3), d), Arg((0, 4), d), Arg((5, 3, 4), d), Arg((5,), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d, noncontig=True)), {"bias": None}),
    ]


def _bilinear_bad(d):
    f64 = "float64"
    return [
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), f64)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d), Arg((5,), f64)), {}),
        ((Arg((2, 3), d), Arg((4,), d), Arg((5, 3, 4), d)), {}),
        ((Arg((2, 3), d), Arg((3, 4), d), Arg((5, 3, 4), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 2, 4), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 2), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d), Arg((4,), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3), d)), {}),
        ((Arg((), d), Arg((), d), Arg((5, 3, 4), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d), Arg((), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d), Arg((2, 5), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4), d), Arg((5, 1), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5, 3, 4, 1), d)), {}),
        ((Arg((2, 3), d), Arg((2, 4), d), Arg((5,), d)), {}),
        ((Arg((2, 3), "bool"), Arg((2, 4), "bool"), Arg((5, 3, 4), "bool")), {}),
        ((3, Arg((2, 4), d), Arg((5, 3, 4), d)), {}),
    ]


def _s(fn):
    return lambda d: fn(d)[:4]


RECORDS = [
    OpRecord("linear", _linear_ok, LINEAR_DTYPES, call=_F("linear"), method=False),
    OpRecord("linear", _s(_linear_ok), LOW, call=_F("linear"), method=False),
    OpRecord("linear", _linear_bad, F32, call=_F("linear"), method=False),
    OpRecord("linear", lambda d: [((Arg((2, 3), d), Arg((4, 3), d), Arg((4,), d)), {})], F32,
             call=lambda T, x, w, b: T.nn.functional.linear(input=x, weight=w, bias=b), method=False),
    OpRecord("bilinear", _bilinear_ok, LINEAR_DTYPES, method=False),
    OpRecord("bilinear", _s(_bilinear_ok), LOW, method=False),
    OpRecord("bilinear", _bilinear_bad, F32, method=False),
    OpRecord("bilinear", _bilinear_ok, F32, call=_F("bilinear"), method=False),
]
