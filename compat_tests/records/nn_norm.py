"""Records for normalization (torchshim/ops/nn_norm.py, torchshim/nn/functional/normalization.py). batch_norm
and instance_norm calls return the running statistics after the call too (their in-place update with momentum
and the unbiased variance is part of the behaviour); running statistics are detached copies, as module buffers
are."""
from harness import Arg, OpRecord

FL = ("float32", "float64")
F16 = ("float16", "bfloat16")


def _stats(*ts):
    return [None if t is None else t.detach().clone() for t in ts]


def torch_bn(T, x, w=None, b=None, rm=None, rv=None, training=True, momentum=0.1, eps=1e-5):
    rm, rv = _stats(rm, rv)
    if rv is not None:
        rv = rv.abs() + 0.5
    out = T.batch_norm(x, w, b, rm, rv, training, momentum, eps, False)
    return out, rm, rv


def F_bn(T, x, rm=None, rv=None, w=None, b=None, **kw):
    rm, rv = _stats(rm, rv)
    if rv is not None:
        rv = rv.abs() + 0.5
    out = T.nn.functional.batch_norm(x, rm, rv, w, b, **kw)
    return out, rm, rv


def bn_samples(d, p="float32"):
    pd = d if d in FL else p
    C = lambda: Arg((3,), pd)  # noqa: E731
    yield (Arg((4, 3), d), C(), C(), C(), C()), {}
    yield (Arg((4, 3, 5), d), C(), C(), C(), C()), {"training": False}
    yield (Arg((2, 3, 4, 2), d, noncontig=True), None, None, C(), C()), {"momentum": 0.3}
    yield (Arg((2, 3, 4), d), C(), C(), None, None), {"eps": 1e-3}
    yield (Arg((2, 3, 4), d), None, None, None, None), {}
    yield (Arg((2, 3, 2, 2, 2), d), C(), None, C(), C()), {"training": False}


def bn_errors(d):
    yield (Arg((2, 3, 4), d), None, None, None, None), {"training": False}
    yield (Arg((2, 3, 4), d), None, None, Arg((3,), d), None), {"training": False}
    yield (Arg((2, 3, 4), d), Arg((2,), d), None, None, None), {}
    yield (Arg((2, 3, 4), d), None, Arg((2,), d), None, None), {}
    yield (Arg((2, 3, 4), d), None, None, Arg((4,), d), Arg((3,), d)), {}
    yield (Arg((4,), d), None, None, Arg((4,), d), Arg((4,), d)), {}
    yield (Arg((2, 3, 4), "int64"), None, None, Arg((3,), d), Arg((3,), d)), {}
    yield (Arg((2, 3, 4), d), Arg((3,), "float64"), None, None, None), {}
    yield (Arg((2, 3, 4), "float64"), None, None, Arg((3,), "float32"), Arg((3,), "float32")), {}
    yield (Arg((2, 3, 4), "float16"), Arg((3,), "float16"), None, Arg((3,), "float32"), None), {}


def F_bn_samples(d):
    yield (Arg((4, 3), d), Arg((3,), d), Arg((3,), d)), {"training": True}
    yield (Arg((4, 3, 2), d), Arg((3,), d), Arg((3,), d), Arg((3,), d), Arg((3,), d)), {}
    yield (Arg((4, 3, 2), d), None, None, Arg((3,), d)), {"training": True, "momentum": 0.5, "eps": 0.1}
    yield (Arg((1, 3), d), Arg((3,), d), Arg((3,), d)), {"training": True}
    yield (Arg((1, 3, 1), d), None, None), {"training": True}
    yield (Arg((4, 3), d), Arg((3,), d), Arg((3,), d)), {"training": True, "eps": 0.0}
    yield (Arg((4, 3), d), Arg((3,), d), Arg((3,), d)), {"eps": -1.0}
    yield (Arg((4, 3), d), Arg((3,), d), Arg((3,), d)), {"training": True, "momentum": None}
    yield (Arg((1, 3), d), Arg((3,), d), Arg((3,), d)), {}


def ln_samples(d, p=None):
    pd = p or d
    yield (Arg((2, 3, 4), d), (4,)), {}
    yield (Arg((2, 3, 4), d), (3, 4), Arg((3, 4), pd), Arg((3, 4), pd)), {}
    yield (Arg((2, 3, 4), d, noncontig=True), [4], Arg((4,), pd)), {"eps": 1e-2}
    yield (Arg((5,), d), 5, None, Arg((5,), pd)), {}
    yield (Arg((0, 3), d), (3,)), {}


def ln_errors(d):
    yield (Arg((2, 3, 4), d), (3,)), {}
    yield (Arg((2, 3, 4), d), (2, 3)), {}
    yield (Arg((2, 3, 4), d), ()), {}
    yield (Arg((2, 3, 4), d), (4,), Arg((3,), d)), {}
    yield (Arg((2, 3, 4), d), (4,), None, Arg((5,), d)), {}
    yield (Arg((2, 3, 4), "int64"), (4,)), {}
    yield (Arg((2, 3, 4), d), (4,), Arg((4,), "float64")), {}
    yield (Arg((4,), d), (2, 4)), {}


def gn_samples(d, p=None):
    pd = p or d
    yield (Arg((2, 4, 3), d), 2), {}
    yield (Arg((2, 6, 2, 2), d, noncontig=True), 3, Arg((6,), pd), Arg((6,), pd)), {}
    yield (Arg((3, 4), d), 4, Arg((4,), pd)), {"eps": 1e-2}
    yield (Arg((2, 4, 3), d), 1, None, Arg((4,), pd)), {}
    yield (Arg((0, 4, 3), d), 2), {}


def gn_errors(d):
    yield (Arg((2, 4, 3), d), 3), {}
    yield (Arg((2, 4, 3), d), 2, Arg((3,), d)), {}
    yield (Arg((2, 4, 3), d), 2, None, Arg((2, 2), d)), {}
    yield (Arg((2, 4, 3), "int64"), 2), {}
    yield (Arg((2, 4, 3), d), 2, Arg((4,), "float64")), {}


def F_gn_errors(d):
    yield (Arg((4,), d), 2), {}
    yield (Arg((1, 4), d), 4), {}
    yield (Arg((2, 4, 3), d), 0), {}


def torch_in(T, x, w=None, b=None, rm=None, rv=None, use_input_stats=True, momentum=0.1, eps=1e-5):
    rm, rv = _stats(rm, rv)
    if rv is not None:
        rv = rv.abs() + 0.5
    out = T.instance_norm(x, w, b, rm, rv, use_input_stats, momentum, eps, False)
    return out, rm, rv


def F_in(T, x, rm=None, rv=None, w=None, b=None, **kw):
    rm, rv = _stats(rm, rv)
    if rv is not None:
        rv = rv.abs() + 0.5
    return T.nn.functional.instance_norm(x, rm, rv, w, b, **kw), rm, rv


def in_samples(d):
    C = lambda: Arg((3,), d)  # noqa: E731
    yield (Arg((2, 3, 4), d),), {}
    yield (Arg((2, 3, 4), d), C(), C(), C(), C()), {}
    yield (Arg((2, 3, 4, 2), d, noncontig=True), None, None, C(), C()), {"use_input_stats": False}
    yield (Arg((2, 3, 4), d), C(), None, C(), C()), {"momentum": 0.4, "eps": 1e-3}
    yield (Arg((2, 3, 4), d),), {"use_input_stats": False}
    yield (Arg((2, 3, 4), d), Arg((2,), d)), {}
    yield (Arg((2, 3, 4), d), None, None, Arg((2,), d), Arg((2,), d)), {}


def F_in_samples(d):
    C = lambda: Arg((3,), d)  # noqa: E731
    yield (Arg((2, 3, 4), d), C(), C(), C(), C()), {}
    yield (Arg((2, 3, 4), d), C(), C()), {"use_input_stats": False}
    yield (Arg((2, 3, 1), d),), {}
    yield (Arg((2, 3), d),), {}
    yield (Arg((2, 3, 1), d), C(), C()), {"use_input_stats": False}


def lrn_samples(d):
    yield (Arg((2, 5, 3), d), 3), {}
    yield (Arg((2, 5, 3, 2), d, noncontig=True), 2), {"alpha": 0.1, "beta": 0.5, "k": 2.0}
    yield (Arg((2, 4, 2, 2, 2), d), 4), {}
    yield (Arg((1, 3, 4), d), 1), {"alpha": 1.0}
    yield (Arg((0, 3, 4), d), 2), {}
    yield (Arg((3, 4), d), 2), {}


def rms_samples(d, p=None):
    pd = p or d
    yield (Arg((2, 3, 4), d), (4,)), {}
    yield (Arg((2, 3, 4), d, -1e-3, 1e-3), [3, 4], Arg((3, 4), pd)), {}
    yield (Arg((2, 3, 4), d, noncontig=True), 4, None), {"eps": 0.5}
    yield (Arg((4,), d), (4,), Arg((4,), pd)), {"eps": 1e-6}


def rms_errors(d):
    yield (Arg((2, 3, 4), d), (3,)), {}
    yield (Arg((2, 3, 4), d), (2, 3)), {}
    yield (Arg((2, 3, 4), d), ()), {}
    yield (Arg((2, 3, 4), d), (4,), Arg((3,), d)), {}
    yield (Arg((2, 3, 4), "int64"), (4,)), {}


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


RECORDS = [
    OpRecord("batch_norm", bn_samples, FL, call=torch_bn),
    OpRecord("batch_norm", bn_samples, F16, call=torch_bn, rtol=1e-2, atol=1e-2),
    OpRecord("batch_norm", bn_errors, ("float32",), call=torch_bn),
    OpRecord("batch_norm", F_bn_samples, FL, call=F_bn),
    OpRecord("layer_norm", ln_samples, FL, method=False),
    OpRecord("layer_norm", lambda d: ln_samples(d, "float32"), F16, method=False, rtol=1e-2, atol=1e-2),
    OpRecord("layer_norm", ln_errors, ("float32",), method=False),
    OpRecord("layer_norm", ln_samples, FL, call=Fn("layer_norm")),
    OpRecord("group_norm", gn_samples, FL, method=False),
    OpRecord("group_norm", lambda d: gn_samples(d, "float32"), F16, method=False, rtol=1e-2, atol=1e-2),
    OpRecord("group_norm", gn_errors, ("float32",), method=False),
    OpRecord("group_norm", lambda d: list(gn_samples(d))[:3], FL, call=Fn("group_norm")),
    OpRecord("group_norm", F_gn_errors, ("float32",), call=Fn("group_norm")),
    OpRecord("instance_norm", in_samples, FL, call=torch_in),
    OpRecord("instance_norm", F_in_samples, FL, call=F_in),
    OpRecord("local_response_norm", lrn_samples, FL + ("float16",), call=Fn("local_response_norm")),
    OpRecord("rms_norm", rms_samples, FL, method=False),
    OpRecord("rms_norm", rms_samples, F16, method=False, rtol=1e-2, atol=1e-2),
    OpRecord("rms_norm", rms_errors, ("float32",), method=False),
    OpRecord("rms_norm", rms_samples, FL, call=Fn("rms_norm")),
]
