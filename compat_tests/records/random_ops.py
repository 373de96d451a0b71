"""Records for random ops (torchshim/ops/random.py). Values can't match PyTorch's stream, so each call returns
what must agree: shape, dtype, requires_grad, device type, whether the values lie in the distribution's
support, and errors/messages. Statistics and seeding are tested in compat_tests/test_random.py."""
import numpy as np

from harness import FLOATS_ALL, Arg, OpRecord, to_numpy

EXTRA_COVERED = ["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson",
                 "rand_like", "randn_like", "randint_like", "uniform_", "normal_", "random_", "exponential_",
                 "geometric_", "log_normal_", "cauchy_"]

FC = FLOATS_ALL + ("complex64", "complex128")
BAD = ("int64", "int32", "uint8", "bool")
INTS = ("int64", "int32", "int16", "int8", "uint8")


def _lib_kw(T, kw):
    kw = dict(kw)
    if isinstance(kw.get("dtype"), str):
        kw["dtype"] = getattr(T, kw["dtype"])
    if "generator" in kw:
        kw["generator"] = T.Generator().manual_seed(kw["generator"])
    if "out" in kw:
        kw["out"] = T.empty(0, dtype=getattr(T, kw["out"]))
    return kw


def _meta(r, lo=None, hi=None, closed=True):
    """What both libraries must agree on for a random result."""
    if isinstance(r, tuple):
        return tuple(_meta(x) for x in r)
    m = (r.shape, r.dtype, r.requires_grad, r.device.type)
    if lo is None or r.numel() == 0:
        return m
    x = to_numpy(r)
    x = np.concatenate([x.real.ravel(), x.imag.ravel()]) if np.iscomplexobj(x) else x.astype(np.float64)
    return m + (bool(((x >= lo) & ((x <= hi) if closed else (x < hi))).all()),)


def fn(name, lo=None, hi=None, closed=True):
    """call = T.<name>(*xs, **kw) with dtype/generator/out given by name; returns _meta."""
    return lambda T, *xs, **kw: _meta(getattr(T, name)(*xs, **_lib_kw(T, kw)), lo, hi, closed)


def ip(name, lo=None, hi=None, closed=True):
    """call = x.clone().<name>(*args, **kw): must return self; returns _meta."""
    def call(T, x, *xs, **kw):
        y = x.clone()
        assert getattr(y, name)(*xs, **_lib_kw(T, kw)) is y
        return _meta(y, lo, hi, closed)
    return call


def S(*cases):
    """samples from (args tuple, kwargs) pairs; the string 'D' in kwargs is replaced by the record's dtype."""
    return lambda d: [(args, {k: (d if v == "D" else v) for k, v in kw.items()}) for args, kw in cases]


def A(shape=(4, 5), lo=0.0, hi=1.0):
    return lambda d: [((Arg(shape, d, lo, hi),), {})]


def _with_arg(shape, cases, lo=-1.0, hi=1.0, noncontig=False):
    return lambda d: [((Arg(shape, d, lo, hi, noncontig=noncontig),) + args, kw) for args, kw in cases]


RECORDS = [
    # factories
    OpRecord("rand", S(((2, 3), {"dtype": "D"}), (((2, 3),), {"dtype": "D"}), ((), {"dtype": "D"}),
                       ((0, 4), {"dtype": "D", "requires_grad": True}),
                       ((5,), {"dtype": "D", "generator": 3})),
             FC, call=fn("rand", 0, 1)),
    OpRecord("rand", S(((3,), {}), ((3,), {"out": "float64"}), ((3,), {"out": "float32", "dtype": "float64"}),
                       ((-1,), {}), ((2.5,), {}), ((3,), {"dtype": "D"}), ((3,), {"out": "int64"}),
                       ((), {"size": (2, 3)})), ("int64", "bool"), call=fn("rand", 0, 1)),
    OpRecord("randn", S(((2, 3), {"dtype": "D"}), ((), {"dtype": "D"}),
                        ((4,), {"dtype": "D", "generator": 1}),
                        ((2,), {"dtype": "D", "requires_grad": True})), FC, call=fn("randn")),
    OpRecord("randn", S(((3,), {"dtype": "D"}), ((3,), {"out": "D"}), ((-2, 3), {})), BAD, call=fn("randn")),
    OpRecord("randint", S(((5, (3, 4)), {}), ((3, 10, (20,)), {"dtype": "D"}),
                          ((-5, 0, [2, 2]), {"dtype": "D"}), ((0, 2, (6,)), {"dtype": "D", "generator": 7}),
                          ((10, (3,)), {"out": "D"}), ((0, 5), {"size": (3,)}),
                          ((), {"high": 5, "size": (3,)})),
             INTS + ("float32", "float64"), call=fn("randint", -5, 9)),
    OpRecord("randint", S(((0, 2, (50,)), {"dtype": "D"}), ((5, 3, (2,)), {}), ((5, 5, (2,)), {}),
                          ((0, 3, (2,)), {"dtype": "D"}), ((-1, 1, (2,)), {"dtype": "D"})), ("bool",),
             call=fn("randint", 0, 1)),
    OpRecord("randint", S(((0, 300, (3,)), {"dtype": "uint8"}), ((-200, 5, (3,)), {"dtype": "int8"}),
                          ((0, 70000, (3,)), {"dtype": "float16"}), ((0, 5000, (3,)), {"dtype": "float16"}),
                          ((0, 3, (2,)), {"dtype": "complex64"}), ((0.5, 5.5, (3,)), {}), ((5,), {}),
                          ((5, 3), {}), ((5, (3,)), {"requires_grad": True}),
                          ((-2**63, 2**63 - 1, (3,)), {})), ("int64",),
             call=fn("randint")),
    OpRecord("randperm", S(((0,), {}), ((7,), {"dtype": "D"}), ((7,), {"dtype": "D", "generator": 2}),
                           ((5,), {"out": "D"})), ("int64", "int32", "int16", "uint8", "float32", "float64",
                                                   "float16", "bfloat16"), call=fn("randperm", 0, 6)),
    OpRecord("randperm", S(((-1,), {}), ((300,), {"dtype": "uint8"}), ((129,), {"dtype": "int8"}),
                           ((3000,), {"dtype": "float16"}), ((3,), {"dtype": "bool"}),
                           ((3,), {"dtype": "complex64"}),
                           ((3,), {"dtype": "float32", "requires_grad": True})), ("int64",),
             call=fn("randperm")),
    OpRecord("rand_like", A(), FC, call=fn("rand_like", 0, 1)),
    OpRecord("rand_like", _with_arg((3,), [((), {"dtype": "float64"}), ((), {"requires_grad": True}),
                                           ((), {"generator": 4})]), ("float32",),
             call=fn("rand_like", 0, 1)),
    OpRecord("rand_like", A(), BAD, call=fn("rand_like")),
    OpRecord("randn_like", A(), FC, call=fn("randn_like")),
    OpRecord("randn_like", A(), BAD, call=fn("randn_like")),
    OpRecord("randint_like", _with_arg((4, 5), [((5,), {}), ((3, 6), {}), ((), {"high": 4}), ((5, 2), {}),
                                               ((3,), {"dtype": "int64"}), ((3,), {"generator": 1})]),
             INTS + ("float32", "bool"), call=fn("randint_like", 0, 5)),
    # normal: all four overloads
    OpRecord("normal", lambda d: [((Arg((3, 4), d), Arg((3, 4), d, 0, 2)), {}),
                                  ((Arg((3, 1), d), Arg((4,), d, 0, 2)), {}), ((Arg((3,), d), 2.0), {}),
                                  ((1.0, Arg((2, 3), d, 0, 2)), {}), ((Arg((), d), Arg((), d, 0, 1)), {}),
                                  ((Arg((0,), d), Arg((0,), d)), {}),
                                  ((Arg((3,), d), Arg((3,), d, 0, 1)), {"generator": 5}),
                                  ((Arg((3,), d), Arg((3,), d, 0, 1)), {"out": "float64"})],
             FLOATS_ALL + ("complex64",), call=fn("normal")),
    OpRecord("normal", S(((0.0, 1.0, (2, 3)), {}), ((2, 3, [4]), {}), ((0.0, 1.0, (2,)), {"dtype": "D"}),
                         ((0.0, 1.0, (2,)), {"dtype": "D", "requires_grad": True}),
                         ((0.0, 1.0, (3,)), {"out": "D"}), ((0.0, 1.0, (3,)), {"generator": 9, "dtype": "D"}),
                         ((0.0, 1.0), {}), ((0.0, 1.0, 5), {}), ((0.0, -1.0, (2,)), {}),
                         ((0.0, float("nan"), (2,)), {})), ("float32", "float64", "int64"),
             call=fn("normal")),
    OpRecord("normal", lambda d: [((Arg((3,), d), Arg((4,), d, 0, 1)), {}),
                                  ((Arg((4,), d), Arg((2, 2), d, 0, 1)), {}),
                                  ((Arg((3,), d), Arg((3,), d, -2, -1)), {}), ((Arg((3,), d), -1.0), {}),
                                  ((Arg((3,), "int64"), 1.0), {}), ((0.0, Arg((3,), "int64", 1, 2)), {}),
                                  ((Arg((3,), d), Arg((3,), "float64", 0, 1)), {}),
                                  ((Arg((3,), "float64"), Arg((3,), d, 0, 1)), {})], ("float32",),
             call=fn("normal")),
    # bernoulli (+ Tensor.bernoulli_, generated from the same entry)
    OpRecord("bernoulli", lambda d: [((Arg((4, 5), d, 0, 1),), {}),
                                     ((Arg((4, 5), d, 0, 1, noncontig=True),), {"generator": 3}),
                                     ((Arg((3,), d, 0, 1),), {"out": d}), ((Arg((), d, 0, 1),), {})],
             FLOATS_ALL, call=fn("bernoulli", 0, 1)),
    OpRecord("bernoulli", lambda d: [((Arg((4, 5), d),), {"p": 0.3}), ((Arg((4, 5), d), 0.0), {}),
                                     ((Arg((4,), d), 1), {})],
             FLOATS_ALL + ("int64", "uint8", "bool"), call=fn("bernoulli", 0, 1)),
    OpRecord("bernoulli", lambda d: [((Arg((3,), d, 0, 1),), {}), ((Arg((3,), d, 0, 1), 0.5), {})],
             ("int64", "bool", "complex64"), call=fn("bernoulli")),
    OpRecord("bernoulli", S(((Arg((3,), "float32", 1.5, 2),), {}), ((Arg((3,), "float32", -1, -0.5),), {}),
                            ((Arg((3,)), 1.5), {}), ((Arg((3,)), -0.1), {}), ((Arg((3,)), float("nan")), {})),
             ("float32",), call=fn("bernoulli")),
    OpRecord("bernoulli", lambda d: [((Arg((4, 5), d),), {}), ((Arg((4, 5), d), 0.2), {}),
                                     ((Arg((4, 5), d, noncontig=True), Arg((4, 5), "float32", 0, 1)), {}),
                                     ((Arg((4, 5), d), Arg((4, 1), "float64", 0, 1)), {"generator": 2}),
                                     ((Arg((3,), d), 1.5), {}),
                                     ((Arg((3,), d), Arg((2,), "float32", 0, 1)), {}),
                                     ((Arg((4,), d), Arg((2, 2), "float32", 0, 1)), {}),
                                     ((Arg((3,), d), Arg((3,), "float32", 1.5, 2)), {}),
                                     ((Arg((3,), d), Arg((3,), "int64", 0, 1)), {})],
             ("float32", "float64", "int64", "bool", "complex64"), call=ip("bernoulli_", 0, 1)),
    # multinomial
    OpRecord("multinomial", lambda d: [((Arg((5,), d, 0.1, 1), 3), {}), ((Arg((4, 6), d, 0, 1), 6), {}),
                                       ((Arg((4, 6), d, 0, 1), 10, True), {}),
                                       ((Arg((3,), d, 0.1, 1), 1), {"generator": 1}),
                                       ((Arg((3,), d, 0.1, 1), 2), {"out": "int64"}),
                                       ((Arg((0, 3), d), 2), {}),
                                       ((Arg((3,), d, 0.1, 1),), {"num_samples": 4, "replacement": True})],
             FLOATS_ALL, call=fn("multinomial", 0, 5)),
    OpRecord("multinomial", S(((Arg((3,), "float32", 0.1, 1), 4), {}),
                              ((Arg((3,), "float32", 0.1, 1), 0), {}),
                              ((Arg((3,), "float32", 0.1, 1), -1), {}),
                              ((Arg((2,), "float32", -2, -1), 1), {}),
                              ((Arg((2,), "float32", -2, -1), 3, True), {}),
                              ((Arg((2,), "float32", 0, 0), 1), {}),
                              ((Arg((2,), "float32", 0, 0), 3, True), {}),
                              ((Arg((2, 2), "float32", 0, 0), 1), {}), ((Arg((3,), "int64", 1, 2), 1), {}),
                              ((Arg((2, 2, 2)), 1), {}), ((Arg(()), 1), {}), ((Arg((0,)), 1), {}),
                              ((Arg((3,), "float32", 0.1, 1), 1), {"out": "int32"})),
             ("float32",), call=fn("multinomial")),
    OpRecord("multinomial", S(((float("inf"), 1), {}), ((float("inf"), 3, True), {}), ((float("nan"), 1), {}),
                              ((float("nan"), 3, True), {})), ("float32",),
             call=lambda T, v, *a: fn("multinomial")(T, T.tensor([v, 1.0]), *a)),
    # poisson
    OpRecord("poisson", lambda d: [((Arg((4, 5), d, 0, 6),), {}), ((Arg((3,), d, 0, 0),), {}),
                                   ((Arg((3,), d, 1, 2),), {"generator": 1})], FLOATS_ALL,
             call=fn("poisson", 0, 1e9)),
    OpRecord("poisson", S(((Arg((3,), "float32", -2, -1),), {}), ((Arg((3,), "int64", 1, 2),), {})),
             ("float32",), call=fn("poisson")),
    # in-place samplers on every dtype (errors for the unsupported ones), plus parameter errors
    OpRecord("uniform_", _with_arg((4, 5), [((), {}), ((2.0, 5.0), {}), ((-1, 1), {"generator": 1}),
                                           ((), {"from": 3, "to": 4}), ((2, 2), {})], noncontig=True),
             FC + BAD, call=ip("uniform_", -1, 5)),
    OpRecord("uniform_", _with_arg((3,), [((5, 2), {}), ((0, float("inf")), {}), ((float("nan"), 1), {}),
                                         ((-3e38, 3e38), {}), ((-60000, 60000), {})]),
             ("float32", "float64", "float16", "complex64"), call=ip("uniform_")),
    OpRecord("normal_", _with_arg((4, 5), [((), {}), ((1.0, 2.0), {}), ((3, 0), {"generator": 2}),
                                           ((0, -1), {})],
                                  noncontig=True), FC + BAD, call=ip("normal_")),
    OpRecord("exponential_", _with_arg((4, 5), [((), {}), ((2.0,), {"generator": 1}), ((float("inf"),), {}),
                                               ((0,), {}), ((-1,), {}), ((float("nan"),), {})],
                                       noncontig=True),
             FC + BAD, call=ip("exponential_", 0, float("inf"))),
    OpRecord("geometric_", _with_arg((4, 5), [((0.3,), {}), ((0.9,), {"generator": 1}),
                                              ((0,), {}), ((1,), {}),
                                             ((1.5,), {})], noncontig=True),
             FLOATS_ALL + INTS + ("bool", "complex64"), call=ip("geometric_", 1, 1e9)),
    OpRecord("geometric_", S(((), {})), ("float32",), call=lambda T: T.zeros(2).geometric_()),
    OpRecord("log_normal_", _with_arg((4, 5), [((), {}), ((0.5, 0.25), {"generator": 1}), ((0, 0), {}),
                                               ((0, -1), {})],
                                      noncontig=True), FC + BAD, call=ip("log_normal_", 0, float("inf"))),
    OpRecord("cauchy_", _with_arg((4, 5), [((), {}), ((1.0, 0.5), {"generator": 1}), ((0, 0), {})],
                                  noncontig=True),
             FC + BAD + ("int8",), call=ip("cauchy_")),
    OpRecord("random_", _with_arg((4, 5), [((), {}), ((10,), {}), ((3, 10), {"generator": 1}),
                                           ((), {"to": 5}),
                                          ((-5, None), {}), ((5, 2), {}), ((0, 2.5), {})], noncontig=True),
             FLOATS_ALL + INTS + ("bool", "complex64"), call=ip("random_")),
    OpRecord("random_", _with_arg((50,), [((0, 2), {}), ((3, 10), {}), ((-5, 0), {})]),
             INTS[:4] + ("float32",), call=ip("random_", -5, 9)),
    OpRecord("random_", _with_arg((3,), [((0, 70000), {}), ((-1, 5), {}), ((-200, 5), {}), ((0, 5000), {}),
                                        ((2**25, 2**25 + 10), {}), ((2**20, None), {})]),
             ("float16", "uint8", "int8", "float32"), call=ip("random_")),
]
