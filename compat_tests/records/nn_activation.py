"""Records for activation functionals (torchshim/ops/nn_activation.py, torchshim/nn/functional/activation.py).

F-only ops are called through `T.nn.functional`; `F.<op>(x * 1, inplace=True)` exercises the in-place variants
on a non-leaf (so the gradient checks see PyTorch's in-place node names, e.g. EluBackward1). rrelu is checked
in
eval mode here (training draws random noise: compat_tests/test_nn_activation.py checks its statistics).
"""
from harness import Arg, OpRecord, unary_samples

FL = ("float32", "float64", "float16", "bfloat16")
BAD = ("int64", "bool", "complex64")  # dtypes the float-only kernels reject


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


def Fin(name):
    """F.<name>(x * 1, ..., inplace=True): the in-place variant on a non-leaf."""
    return lambda T, x, *xs, **kw: getattr(T.nn.functional, name)(x * 1, *xs, **kw, inplace=True)


def Fu(name):
    """F.<name>_(x * 1, ...)."""
    return lambda T, x, *xs, **kw: getattr(T.nn.functional, name + "_")(x * 1, *xs, **kw)


def with_kw(samples, **kw):
    def s(d):
        for specs, k in samples(d):
            yield specs, {**k, **kw}
    return s


def one(*kws, shape=(3, 4), low=-3.0, high=3.0):
    return lambda d: [((Arg(shape, d, low, high),), kw) for kw in kws]


U = unary_samples()
U5 = unary_samples(-5.0, 5.0)  # reaches the saturated pieces of hardswish / hardsigmoid
FL2 = ("float32", "float64")


def _dt(name):
    """call `T.<name>(x, dim, dtype=T.<dtype>)`; the sample names the dtype by string."""
    def f(T, x, dim, dtype=None):
        return getattr(T, name)(x, dim, **({"dtype": getattr(T, dtype)} if dtype else {}))
    return f


def _Fdt(name):
    def f(T, x, *args, dtype=None, **kw):
        extra = {"dtype": getattr(T, dtype)} if dtype else {}
        return getattr(T.nn.functional, name)(x, *args, **kw, **extra)
    return f


def softmax_samples(d):
    yield (Arg((3, 4), d), 1), {}
    yield (Arg((3, 4), d), 0), {}
    yield (Arg((2, 3, 4), d, noncontig=True), -2), {}
    yield (Arg((2, 3, 4), d, -30, 30), -1), {}
    yield (Arg((), d), 0), {}
    yield (Arg((), d), -1), {}
    yield (Arg((0, 3), d), 1), {}
    yield (Arg((5,), d), 0), {}
    yield (Arg((3, 4), d), 2), {}


def softmax_dtype_samples(d):
    yield (Arg((3, 4), d), 1), {"dtype": "float64"}
    yield (Arg((3, 4), d), 0), {"dtype": "float32"}
    yield (Arg((3, 4), d), 0), {"dtype": "float16"}
    yield (Arg((3, 4), d), 1), {"dtype": "int64"}
    yield (Arg((3, 4), d), 0), {"dtype": "int64"}


def prelu_samples(d):
    yield (Arg((2, 3, 4), d), Arg((3,), d, 0, 1)), {}
    yield (Arg((2, 3), d), Arg((1,), d, 0, 1)), {}
    yield (Arg((2, 3, 4, 2), d, noncontig=True), Arg((3,), d, 0, 1)), {}
    yield (Arg((5,), d), Arg((), d, 0, 1)), {}
    yield (Arg((), d), Arg((1,), d, 0, 1)), {}
    yield (Arg((2, 3, 4), d), Arg((), d, 0, 1)), {}
    yield (Arg((2, 3, 4), d), Arg((4,), d)), {}
    yield (Arg((5,), d), Arg((5,), d)), {}
    yield (Arg((2, 3), d), Arg((3, 1), d)), {}
    yield (Arg((2, 3), d), Arg((3,), "float64" if d != "float64" else "float32")), {}


def glu_samples(d):
    yield (Arg((3, 4), d),), {}
    yield (Arg((4, 3), d),), {"dim": 0}
    yield (Arg((2, 6, 2), d, noncontig=True),), {"dim": 1}
    yield (Arg((0, 4), d),), {}
    yield (Arg((3, 3), d),), {}
    yield (Arg((3, 4), d),), {"dim": 2}
    yield (Arg((), d),), {}


RECORDS = [
    # ---- rectifiers
    OpRecord("relu", U, FL + ("int64", "int32", "uint8", "bool", "complex64"), inplace=True),
    OpRecord("relu", U, FL2, call=Fin("relu")),
    OpRecord("relu", U, FL2, call=Fu("relu")),
    OpRecord("relu", U, FL2, call=lambda T, x: T.relu_(x * 1)),
    OpRecord("relu6", with_kw(unary_samples(-9, 9)), FL + ("int64", "uint8", "bool", "complex64"),
             call=Fn("relu6")),
    OpRecord("relu6", unary_samples(-9, 9), FL2, call=Fin("relu6")),
    OpRecord("hardtanh", lambda d: [((Arg((3, 4), d),), {}),
                                    ((Arg((3, 4), d),), {"min_val": -0.5, "max_val": 2.0}),
                                    ((Arg((2, 3, 4), d, noncontig=True),), {"min_val": 0.0, "max_val": 0.5}),
                                    ((Arg((), d),), {}), ((Arg((0,), d),), {}),
                                    ((Arg((3, 4), d),), {"min_val": 2.0, "max_val": 1.0})],
             FL + ("int64", "int32", "bool", "complex64"), call=Fn("hardtanh")),
    OpRecord("hardtanh", one({"min_val": -1.5, "max_val": 2.5}, {"min_val": 0, "max_val": 2}, low=-4, high=4),
             ("int64", "uint8"), call=Fn("hardtanh")),
    OpRecord("hardtanh", one({}, {"min_val": -0.5, "max_val": 0.5}), FL2, call=Fin("hardtanh")),
    OpRecord("hardtanh", one({}, {"min_val": 2.0, "max_val": 1.0}), FL2, call=Fu("hardtanh")),
    OpRecord("leaky_relu", with_kw(U), FL + BAD, call=Fn("leaky_relu")),
    OpRecord("leaky_relu", one({"negative_slope": 0.2}, {"negative_slope": -1.5}), FL2,
             call=Fn("leaky_relu")),
    OpRecord("leaky_relu", one({}, {"negative_slope": 0.3}), FL2, call=Fin("leaky_relu")),
    OpRecord("leaky_relu", one({"negative_slope": 0.3}), FL2, call=Fu("leaky_relu")),
    OpRecord("prelu", prelu_samples, FL + ("int64",)),
    OpRecord("prelu", lambda d: list(prelu_samples(d))[:3], FL2, call=Fn("prelu"), method=False),
    OpRecord("rrelu", U, FL + BAD, method=False),
    OpRecord("rrelu", one({"lower": 0.1, "upper": 0.5}, {"lower": 0.3, "upper": 0.3},
                          {"lower": 0.5, "upper": 0.2}, {"lower": 0.5, "upper": 0.2, "training": True}),
             FL2, method=False),
    OpRecord("rrelu", one({}, {"lower": 0.2, "upper": 0.4}), FL2, call=Fn("rrelu")),
    OpRecord("rrelu", one({}), FL2, call=Fin("rrelu")),
    OpRecord("rrelu", one({}, {"training": True}), ("int64",), call=Fn("rrelu")),
    OpRecord("rrelu", one({"lower": 0.1, "upper": 0.2}), FL2, call=lambda T, x, **kw: T.rrelu_(x * 1, **kw)),
    # ---- exponential units
    OpRecord("elu", U, FL + BAD, call=Fn("elu")),
    OpRecord("elu", one({"alpha": 0.5}, {"alpha": 2.0}, {"alpha": -1.0}, low=-30, high=30), FL2,
             call=Fn("elu")),
    OpRecord("elu", one({}, {"alpha": 0.7}), FL2, call=Fin("elu")),
    OpRecord("elu", one({"alpha": 0.7}), FL2, call=Fu("elu")),
    OpRecord("selu", U, FL + BAD, method=False),
    OpRecord("selu", one({}), FL2, call=Fin("selu")),
    OpRecord("selu", one({}), FL2, call=lambda T, x: T.selu_(x * 1)),
    OpRecord("celu", U, FL + BAD, method=False),
    OpRecord("celu", one({"alpha": 0.5}, {"alpha": 2.0}, {"alpha": 0.0}), FL2, method=False),
    OpRecord("celu", one({}, {"alpha": 0.7}), FL2, call=Fin("celu")),
    OpRecord("celu", one({"alpha": 0.7}), FL2, call=lambda T, x, **kw: T.celu_(x * 1, **kw)),
    # ---- smooth units
    OpRecord("gelu", U, FL + BAD, call=Fn("gelu")),
    OpRecord("gelu", one({"approximate": "tanh"}, {"approximate": "none"}, {"approximate": "foo"}), FL,
             call=Fn("gelu")),
    OpRecord("silu", U, FL + BAD[:2] + ("complex64", "complex128"), call=Fn("silu")),
    OpRecord("silu", one({}, low=-100, high=100), FL2, call=Fin("silu")),
    OpRecord("mish", U, FL + BAD, call=Fn("mish")),
    OpRecord("mish", one({}, low=-100, high=100), FL2, call=Fin("mish")),
    OpRecord("hardswish", U5, FL + BAD, call=Fn("hardswish")),
    OpRecord("hardswish", one({}, low=-5, high=5), FL2, call=Fin("hardswish")),
    OpRecord("hardsigmoid", U5, FL + BAD, call=Fn("hardsigmoid")),
    OpRecord("hardsigmoid", one({}, low=-5, high=5), FL2, call=Fin("hardsigmoid")),
    # ---- shrinkage, threshold
    OpRecord("hardshrink", U, FL + BAD),
    OpRecord("hardshrink", one({"lambd": 1.0}, {"lambd": 0.0}), FL2, call=Fn("hardshrink")),
    OpRecord("softshrink", U, FL + BAD, call=Fn("softshrink")),
    OpRecord("softshrink", one({"lambd": 1.0}, {"lambd": 0.0}, {"lambd": -0.5}), FL + ("float16",),
             call=Fn("softshrink")),
    OpRecord("tanhshrink", U, FL + ("int64", "bool", "complex64"), call=Fn("tanhshrink")),
    OpRecord("threshold", lambda d: [((Arg((3, 4), d), 0.5, 2.0), {}), ((Arg((), d), 0.0, -1.0), {}),
                                     ((Arg((0,), d), 0.0, 1.0), {}),
                                     ((Arg((2, 3, 4), d, noncontig=True), -0.1, 0.1), {})],
             FL + ("int64", "int32", "uint8", "bool", "complex64"), method=False),
    OpRecord("threshold", lambda d: [((Arg((3, 4), d, -4, 4), 1.5, 7.9), {}),
                                     ((Arg((3, 4), d, 0, 4), 1, 2), {})],
             ("int64", "float16"), method=False),
    OpRecord("threshold", lambda d: [((Arg((3, 4), d), 0.5, 2.0), {})], FL2, call=Fn("threshold")),
    OpRecord("threshold", lambda d: [((Arg((3, 4), d), 0.5, 2.0), {})], FL2, call=Fin("threshold")),
    OpRecord("threshold", lambda d: [((Arg((3, 4), d), 0.5, 2.0), {})], FL2, call=Fu("threshold")),
    OpRecord("threshold", lambda d: [((Arg((3, 4), d), 0.5, 2.0), {})], FL2,
             call=lambda T, x, *a: T.threshold_(x * 1, *a)),
    # ---- log-sigmoid, softsign, softplus
    OpRecord("logsigmoid", unary_samples(-30, 30), FL + BAD, call=Fn("logsigmoid")),
    OpRecord("softsign", U, FL + ("int64", "bool", "complex64"), call=Fn("softsign")),
    OpRecord("softplus", unary_samples(-30, 30), FL + BAD, call=Fn("softplus")),
    OpRecord("softplus", one({"beta": 2.0}, {"beta": 0.5, "threshold": 1.0}, {"threshold": 0.0},
                             {"beta": -1.0}, low=-30, high=30), FL2, call=Fn("softplus")),
    # ---- softmax family
    OpRecord("softmax", softmax_samples, FL + ("int64", "bool", "complex64")),
    OpRecord("softmax", softmax_dtype_samples, ("float32", "int64"), call=_dt("softmax")),
    OpRecord("softmax", softmax_samples, FL2, call=Fn("softmax"), method=False),
    OpRecord("softmax", softmax_dtype_samples, ("float32",), call=_Fdt("softmax")),
    OpRecord("log_softmax", softmax_samples, FL + ("int64", "bool", "complex64")),
    OpRecord("log_softmax", softmax_dtype_samples, ("float32", "int64"), call=_dt("log_softmax")),
    OpRecord("log_softmax", softmax_samples, FL2, call=Fn("log_softmax"), method=False),
    OpRecord("softmin", softmax_samples, FL + ("int64", "bool"), call=Fn("softmin")),
    OpRecord("softmin", softmax_dtype_samples, ("float32", "int64"), call=_Fdt("softmin")),
    OpRecord("glu", glu_samples, FL + BAD, call=Fn("glu")),
]
