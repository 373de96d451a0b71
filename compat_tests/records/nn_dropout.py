"""Records for dropout (torchshim/ops/nn_dropout.py, torchshim/nn/functional/dropout.py): only the
deterministic parts, identical to PyTorch's — p = 0 and eval mode (the input itself), p = 1 (zeros,
MulBackward0), empty inputs, and the errors and warnings. The random parts are checked statistically in
compat_tests/test_nn_dropout.py.
"""
from harness import Arg, OpRecord

FL = ("float32", "float64", "float16", "bfloat16")


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


def Fin(name):
    return lambda T, x, *xs, **kw: getattr(T.nn.functional, name)(x * 1, *xs, **kw, inplace=True)


def torch_samples(d):
    """torch.dropout(input, p, train) and friends (positional)."""
    yield (Arg((3, 4), d), 0.5, False), {}
    yield (Arg((3, 4), d), 0.0, True), {}
    yield (Arg((3, 4), d), 1.0, True), {}
    yield (Arg((2, 3, 4), d, noncontig=True), 1.0, True), {}
    yield (Arg((0, 3), d), 0.5, True), {}
    yield (Arg((3, 4), d), 1.5, True), {}
    yield (Arg((3, 4), d), -0.1, False), {}


def torch_int_samples(d):
    yield (Arg((3, 4), d), 0.5, False), {}
    yield (Arg((3, 4), d), 1.0, True), {}
    yield (Arg((3, 4), d), 0.5, True), {}


def f_samples(d):
    yield (Arg((3, 4), d),), {"training": False}
    yield (Arg((3, 4), d),), {"p": 0.0}
    yield (Arg((3, 4), d),), {"p": 1.0, "training": True}
    yield (Arg((2, 3, 4), d, noncontig=True),), {"p": 0.3, "training": False}
    yield (Arg((3, 4), d),), {"p": 1.5}
    yield (Arg((3, 4), d),), {"p": -0.5, "training": False}


def feature_samples(shapes):
    def s(d):
        for shape in shapes:
            yield (Arg(shape, d),), {"training": False}
            yield (Arg(shape, d),), {"p": 1.0}
            yield (Arg(shape, d),), {"p": 0.0}
        yield (Arg(shapes[0], d),), {"p": 2.0}
    return s


def feature_rank_errors(shapes):
    return lambda d: [((Arg(shape, d),), {"p": 0.5}) for shape in shapes]


RECORDS = [
    OpRecord("dropout", torch_samples, FL, method=False),
    OpRecord("dropout", torch_int_samples, ("int64", "bool", "complex64"), method=False),
    OpRecord("dropout", torch_samples, ("float32", "float64"), call=lambda T, x, *a: T.dropout_(x * 1, *a)),
    OpRecord("dropout", f_samples, FL, call=Fn("dropout")),
    OpRecord("dropout", f_samples, ("float32", "float64"), call=Fin("dropout")),
    OpRecord("alpha_dropout", torch_samples, FL, method=False),
    OpRecord("alpha_dropout", torch_int_samples, ("int64", "complex64"), method=False),
    OpRecord("alpha_dropout", torch_samples, ("float32", "float64"),
             call=lambda T, x, *a: T.alpha_dropout_(x * 1, *a)),
    OpRecord("alpha_dropout", lambda d: list(f_samples(d)) + [((Arg((3, 4), d),), {})], FL,
             call=Fn("alpha_dropout")),
    OpRecord("alpha_dropout", f_samples, ("float32",), call=Fin("alpha_dropout")),
    OpRecord("feature_dropout", lambda d: list(torch_samples(d)) + [((Arg((4,), d), 0.5, True), {}),
                                                                    ((Arg((4,), d), 0.5, False), {})],
             FL, method=False),
    OpRecord("feature_dropout", torch_samples, ("float32", "float64"),
             call=lambda T, x, *a: T.feature_dropout_(x * 1, *a)),
    OpRecord("feature_alpha_dropout", lambda d: list(torch_samples(d)) + [((Arg((4,), d), 0.5, True), {})],
             FL, method=False),
    OpRecord("feature_alpha_dropout", torch_samples, ("float32",),
             call=lambda T, x, *a: T.feature_alpha_dropout_(x * 1, *a)),
    OpRecord("feature_alpha_dropout", feature_samples([(2, 3, 4), (2, 3)]), FL,
             call=Fn("feature_alpha_dropout")),
    OpRecord("feature_dropout", feature_samples([(2, 3, 4), (3, 4)]), FL, call=Fn("dropout1d")),
    OpRecord("feature_dropout", feature_samples([(2, 3, 4)]), ("float32", "float64"), call=Fin("dropout1d")),
    OpRecord("feature_dropout", feature_rank_errors([(2, 3, 4, 5), (4,)]), ("float32",),
             call=Fn("dropout1d")),
    OpRecord("feature_dropout", feature_samples([(2, 3, 4, 5), (3, 4, 5)]), FL, call=Fn("dropout2d")),
    OpRecord("feature_dropout", feature_samples([(2, 3, 4, 5)]), ("float32",), call=Fin("dropout2d")),
    OpRecord("feature_dropout", feature_samples([(2, 3, 2, 2, 2), (3, 2, 2, 2)]), FL, call=Fn("dropout3d")),
    OpRecord("feature_dropout", feature_samples([(2, 3, 2, 2, 2)]), ("float32",), call=Fin("dropout3d")),
]
