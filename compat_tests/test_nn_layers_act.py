"""Activation, normalization, dropout, embedding and distance layers against real PyTorch through nn_harness:
outputs, first- (and for PyTorch's double-differentiable list, second-) order gradients w.r.t. inputs and
parameters, running statistics in train and eval, errors, reprs and state dicts, tracing. Random layers
(dropout, RReLU in training) are checked statistically and in their deterministic corners."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, Idx, check
from nn_harness import check_module, check_repr, check_state_dict_roundtrip, check_traced


def _lib(module):
    return torch if isinstance(module, torch.nn.Module) else torchshim


def _nonleaf(m, x, *rest):
    """Call an in-place layer on a non-leaf copy of the input (an in-place op on a leaf that requires grad is
    an error in both libraries)."""
    return m(x * 1, *rest)


def _case(build, inputs, second_order=False, call=None, modes=("train", "eval"), traced=True, **kw):
    extra = {"call": call} if call is not None else {}
    check_module(build, inputs, second_order=second_order, modes=modes, **extra, **kw)
    if traced:
        check_traced(build, inputs, modes=modes, **extra)


def _missing(name):
    return pytest.mark.xfail(not hasattr(torchshim.nn.functional, name), strict=True,
                             reason=f"torchshim.nn.functional.{name} is not written yet")


# ---- activations -------------------------------------------------------------------------------------------
X = [Arg((2, 3, 4))]
ACT = {
    "threshold": (lambda T: T.nn.Threshold(0.1, 20.0), X, True, None),
    "threshold-inplace": (lambda T: T.nn.Threshold(0.5, -1.0, inplace=True), X, False, _nonleaf),
    "relu": (lambda T: T.nn.ReLU(), X, True, None),
    "relu-inplace": (lambda T: T.nn.ReLU(inplace=True), X, False, _nonleaf),
    "hardtanh": (lambda T: T.nn.Hardtanh(-2.0, 1.5), X, True, None),
    "relu6-inplace": (lambda T: T.nn.ReLU6(inplace=True), [Arg((3, 4), low=-2, high=8)], False, _nonleaf),
    "relu6": (lambda T: T.nn.ReLU6(), [Arg((3, 4), low=-2, high=8)], True, None),
    "sigmoid": (lambda T: T.nn.Sigmoid(), X, True, None),
    "hardsigmoid": (lambda T: T.nn.Hardsigmoid(), [Arg((3, 5), low=-4, high=4)], False, None),
    "tanh": (lambda T: T.nn.Tanh(), X, True, None),
    "silu": (lambda T: T.nn.SiLU(), X, True, None),
    "mish-inplace": (lambda T: T.nn.Mish(inplace=True), X, False, _nonleaf),
    "hardswish": (lambda T: T.nn.Hardswish(), [Arg((3, 5), low=-4, high=4)], False, None),
    "elu": (lambda T: T.nn.ELU(alpha=0.5), X, True, None),
    "celu": (lambda T: T.nn.CELU(alpha=1.5), X, True, None),
    "selu": (lambda T: T.nn.SELU(), X, True, None),
    "glu": (lambda T: T.nn.GLU(dim=1), [Arg((2, 4, 3))], True, None),
    "gelu": (lambda T: T.nn.GELU(), X, True, None),
    "gelu-tanh-f64": (lambda T: T.nn.GELU(approximate="tanh"), [Arg((3, 4), "float64")], True, None),
    "hardshrink": (lambda T: T.nn.Hardshrink(0.7), X, False, None),
    "leaky-relu": (lambda T: T.nn.LeakyReLU(0.2), X, True, None),
    "leaky-relu-inplace": (lambda T: T.nn.LeakyReLU(inplace=True), X, False, _nonleaf),
    "logsigmoid": (lambda T: T.nn.LogSigmoid(), X, True, None),
    "softplus": (lambda T: T.nn.Softplus(beta=2.0, threshold=3.0), X, True, None),
    "softshrink": (lambda T: T.nn.Softshrink(0.3), X, False, None),
    "prelu": (lambda T: T.nn.PReLU(), X, True, None),
    "prelu-channels": (lambda T: T.nn.PReLU(3, init=0.1), [Arg((2, 3, 4), noncontig=True)], True, None),
    "softsign": (lambda T: T.nn.Softsign(), X, True, None),
    "tanhshrink": (lambda T: T.nn.Tanhshrink(), X, True, None),
    "softmin": (lambda T: T.nn.Softmin(dim=1), X, True, None),
    "softmax": (lambda T: T.nn.Softmax(dim=-1), X, True, None),
    "softmax2d": (lambda T: T.nn.Softmax2d(), [Arg((2, 3, 2, 2))], True, None),
    "softmax2d-unbatched": (lambda T: T.nn.Softmax2d(), [Arg((3, 2, 2))], False, None),
    "log-softmax": (lambda T: T.nn.LogSoftmax(dim=0), X, True, None),
    "rrelu-eval": (lambda T: T.nn.RReLU(0.1, 0.3), X, False, None),
}


@pytest.mark.parametrize("name", list(ACT))
def test_activation_matches_torch(name):
    build, inputs, second, call = ACT[name]
    modes = ("eval",) if name == "rrelu-eval" else ("train",)
    _case(build, inputs, second_order=second, call=call, modes=modes)


@pytest.mark.parametrize("name", ["relu", "gelu", "softmax", "prelu-channels", "elu"])
def test_activation_low_precision(name):
    build, inputs, _, _ = ACT[name]
    for dt in ("bfloat16", "float16"):
        check_module(lambda T, dt=dt: build(T).to(getattr(T, dt)), [a.with_dtype(dt) for a in inputs],
                     grad=False, modes=("train",))


@pytest.mark.parametrize("name", list(ACT))
def test_activation_repr(name):
    check_repr(ACT[name][0])


def test_softmax_implicit_dim_warns():
    def f(T, x):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            outs = [T.nn.Softmax()(x), T.nn.LogSoftmax()(x), T.nn.Softmin()(x)]
        return outs + [[str(m.message) for m in w]]
    check(f, [Arg((2, 3))])


def test_rrelu_training_draws_slopes_in_range():
    """RReLU in training: negative inputs scaled by a slope from U(lower, upper) (different streams), positive
    ones unchanged; the gradient w.r.t. the input is that slope."""
    torchshim.manual_seed(0)
    x = torchshim.linspace(-3, 3, 4000).requires_grad_()
    y = torchshim.nn.RReLU(0.1, 0.3)(x)
    (g,) = torchshim.autograd.grad(y.sum(), x)
    xv, yv, gv = x.detach().numpy(), y.detach().numpy(), g.numpy()
    neg = xv < 0
    slopes = yv[neg] / xv[neg]
    assert np.all(slopes >= 0.1 - 1e-6) and np.all(slopes <= 0.3 + 1e-6)
    assert abs(slopes.mean() - 0.2) < 0.01 and slopes.std() > 0.04
    np.testing.assert_allclose(gv[neg], slopes, rtol=1e-5)
    np.testing.assert_array_equal(yv[~neg], xv[~neg])


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.Softmax2d(), [Arg((3, 4))]),
    (lambda T: T.nn.GLU(), [Arg((2, 3))]),
    (lambda T: T.nn.PReLU(3), [Arg((2, 4, 3))]),
    (lambda T: T.nn.ReLU(inplace=True), [Arg((2, 3))]),
    (lambda T: T.nn.Softmax(dim=3), [Arg((2, 3))]),
], ids=["softmax2d-rank", "glu-odd", "prelu-channels", "inplace-leaf", "softmax-dim"])
def test_activation_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True)


def test_activation_constructors():
    def f(T):
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = T.nn.Hardtanh(min_value=-2.0, max_value=3.0)
        out += [repr(m), [(x.category.__name__, str(x.message)) for x in w]]
        try:
            T.nn.Hardtanh(1.0, 0.5)
        except AssertionError as e:
            out.append(str(e))
        p = T.nn.PReLU(4, init=0.1, dtype=T.float64)
        out += [p.weight, p.weight.dtype, p.init, p.num_parameters]
        return out
    check(f)


# ---- normalization -----------------------------------------------------------------------------------------
NORM = {
    "bn1d": (lambda T: T.nn.BatchNorm1d(3), [Arg((4, 3))], True),
    "bn1d-3d": (lambda T: T.nn.BatchNorm1d(3, momentum=0.3), [Arg((4, 3, 5))], True),
    "bn2d": (lambda T: T.nn.BatchNorm2d(3), [Arg((2, 3, 4, 4))], True),
    "bn2d-noaffine": (lambda T: T.nn.BatchNorm2d(3, affine=False, eps=1e-3), [Arg((2, 3, 2, 3))], False),
    "bn2d-untracked": (lambda T: T.nn.BatchNorm2d(3, track_running_stats=False), [Arg((2, 3, 2, 3))], False),
    "bn2d-f64-noncontig": (lambda T: T.nn.BatchNorm2d(2, dtype=T.float64), [Arg((3, 2, 2, 3), "float64",
                                                                              noncontig=True)], False),
    "bn3d-nobias": (lambda T: T.nn.BatchNorm3d(2, bias=False), [Arg((2, 2, 2, 3, 2))], True),
    "syncbn": (lambda T: T.nn.SyncBatchNorm(3), [Arg((2, 3, 4))], False),
    "syncbn-cma": (lambda T: T.nn.SyncBatchNorm(3, momentum=None), [Arg((4, 3))], False),
    "in1d": (lambda T: T.nn.InstanceNorm1d(3), [Arg((2, 3, 5))], True),
    "in1d-unbatched-affine": (lambda T: T.nn.InstanceNorm1d(3, affine=True), [Arg((3, 5))], False),
    "in2d-tracked": (lambda T: T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True), [Arg((2, 3, 3,
                                                                                                    4))],
                     False),
    "in3d": (lambda T: T.nn.InstanceNorm3d(2, momentum=None, track_running_stats=True), [Arg((2, 2, 2, 3,
                                                                                              2))],
             False),
    "layernorm": (lambda T: T.nn.LayerNorm(4), [Arg((2, 3, 4))], True),
    "layernorm-2d-noaffine": (lambda T: T.nn.LayerNorm([3, 4], elementwise_affine=False), [Arg((2, 3, 4))],
                              False),
    "layernorm-nobias": (lambda T: T.nn.LayerNorm(4, bias=False, eps=1e-3), [Arg((5, 4))], False),
    "groupnorm": (lambda T: T.nn.GroupNorm(2, 4), [Arg((2, 4, 3))], True),
    "groupnorm-noaffine": (lambda T: T.nn.GroupNorm(3, 6, affine=False), [Arg((2, 6, 2, 2))], False),
    "rmsnorm": (lambda T: T.nn.RMSNorm([4]), [Arg((2, 3, 4))], True),
    "rmsnorm-eps-noaffine": (lambda T: T.nn.RMSNorm((3, 4), eps=1e-3, elementwise_affine=False), [Arg((2, 3,
                                                                                                       4))],
                             False),
    "lrn": (lambda T: T.nn.LocalResponseNorm(3), [Arg((2, 5, 4, 4))], True),
    "lrn-3d": (lambda T: T.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), [Arg((2, 5, 6))], False),
    "crossmaplrn": (lambda T: T.nn.CrossMapLRN2d(3, alpha=0.5), [Arg((2, 7, 3, 2))], False),
    "crossmaplrn-even": (lambda T: T.nn.CrossMapLRN2d(4, alpha=0.2, beta=0.5, k=2), [Arg((1, 5, 2, 2))],
                         False),
}


@pytest.mark.parametrize("name", list(NORM))
def test_norm_matches_torch(name):
    build, inputs, second = NORM[name]
    _case(build, inputs, second_order=second)


def test_batchnorm_cumulative_average_over_several_batches():
    """momentum=None: the running statistics are the plain average over the batches seen (num_batches_tracked
    counts them); the module's state is compared after every call."""
    check_module(lambda T: T.nn.BatchNorm1d(3, momentum=None), [Arg((4, 3))], modes=("train", "train",
                                                                                     "eval"))
    check_traced(lambda T: T.nn.BatchNorm1d(3, momentum=None), [Arg((4, 3))], modes=("train",))


def test_lazy_norms_materialize():
    def f(T, x2, x3, x4, x5):
        out = []
        for m, x in ((T.nn.LazyBatchNorm1d(), x2), (T.nn.LazyBatchNorm2d(affine=False), x4),
                     (T.nn.LazyBatchNorm3d(bias=False), x5), (T.nn.LazyInstanceNorm1d(), x3),
                     (T.nn.LazyInstanceNorm2d(track_running_stats=False), x4),
                     (T.nn.LazyInstanceNorm3d(affine=False), x5)):
            before = [repr(m), m.has_uninitialized_params(), list(m.state_dict())]
            y = m(x)
            out.append(before + [type(m).__name__, repr(m), y, dict(m.state_dict()), m.num_features])
        return out
    check(f, [Arg((4, 3)), Arg((2, 3, 5)), Arg((2, 3, 2, 3)), Arg((2, 3, 2, 2, 2))])


def test_lazy_batchnorm_values_match_after_copy():
    def build(T):
        m = T.nn.LazyBatchNorm2d()
        m(T.ones(2, 3, 2, 2))
        return m
    check_module(build, [Arg((2, 3, 2, 2))])


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.BatchNorm1d(3), [Arg((2, 3, 2, 2))]),
    (lambda T: T.nn.BatchNorm2d(3), [Arg((2, 3, 4))]),
    (lambda T: T.nn.BatchNorm3d(3), [Arg((2, 3, 4))]),
    (lambda T: T.nn.BatchNorm1d(3), [Arg((1, 3))]),
    (lambda T: T.nn.BatchNorm1d(3), [Arg((4, 2))]),
    (lambda T: T.nn.SyncBatchNorm(3), [Arg((3,))]),
    (lambda T: T.nn.SyncBatchNorm(0), [Arg((2, 0))]),
    (lambda T: T.nn.InstanceNorm2d(3), [Arg((2, 3))]),
    (lambda T: T.nn.InstanceNorm1d(3, affine=True), [Arg((2, 4, 5))]),
    (lambda T: T.nn.LayerNorm(4), [Arg((2, 3))]),
    (lambda T: T.nn.GroupNorm(2, 4), [Arg((2, 6, 3))]),
    (lambda T: T.nn.CrossMapLRN2d(3), [Arg((2, 3, 4))]),
], ids=["bn1d-rank", "bn2d-rank", "bn3d-rank", "bn-batch-of-one", "bn-features", "syncbn-rank",
        "syncbn-empty", "in2d-rank", "in-affine-features", "layernorm-shape", "groupnorm-channels",
        "crossmaplrn-rank"])
def test_norm_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True, modes=("train",))


def test_instance_norm_feature_mismatch_warns():
    def f(T, x):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = T.nn.InstanceNorm1d(4)(x)
        return [y, [str(m.message) for m in w]]
    check(f, [Arg((2, 3, 5))])


def test_norm_constructors_and_defaults():
    def f(T):
        out = []
        for m in (T.nn.BatchNorm2d(3), T.nn.BatchNorm1d(2, dtype=T.float64), T.nn.InstanceNorm2d(3,
                                                                                                 affine=True),
                  T.nn.LayerNorm((2, 3)), T.nn.GroupNorm(2, 4), T.nn.RMSNorm(3), T.nn.SyncBatchNorm(2,
                                                                                                    bias=False)):
            out.append([repr(m), dict(m.state_dict()), [(n, p.requires_grad) for n,
                                                        p in m.named_parameters()]])
        try:
            T.nn.GroupNorm(3, 4)
        except ValueError as e:
            out.append(str(e))
        return out
    check(f)


def test_batchnorm_reset_and_num_batches_tracked():
    def f(T, x):
        m = T.nn.BatchNorm1d(3)
        m(x)
        m(x)
        before = [m.num_batches_tracked, m.num_batches_tracked.dtype, m.running_mean.clone()]
        m.reset_running_stats()
        after = [m.num_batches_tracked, m.running_mean, m.running_var]
        m.weight.data.fill_(2.0)
        m.reset_parameters()
        return before + after + [m.weight, m.bias]
    check(f, [Arg((4, 3))])


def test_batchnorm_load_state_dict_versions():
    def f(T):
        out = []
        src = T.nn.BatchNorm1d(2)
        src.num_batches_tracked.fill_(7)
        for version in (1, None, 2):
            m = T.nn.BatchNorm1d(2)
            m.num_batches_tracked.fill_(3)
            sd = src.state_dict()
            del sd["num_batches_tracked"]
            if version is None:
                del sd._metadata[""]["version"]
            else:
                sd._metadata[""]["version"] = version
            try:
                out.append([repr(m.load_state_dict(sd)), m.num_batches_tracked])
            except RuntimeError as e:
                out.append(str(e))
        return out
    check(f)


def test_instance_norm_load_old_running_stats():
    def f(T):
        sd = T.nn.InstanceNorm1d(2, track_running_stats=True).state_dict()
        del sd._metadata[""]["version"]
        try:
            return T.nn.InstanceNorm1d(2).load_state_dict(sd)
        except RuntimeError as e:
            return str(e)
    check(f)


def test_norm_state_dict_round_trip():
    check_state_dict_roundtrip(lambda T: T.nn.BatchNorm2d(3))
    check_state_dict_roundtrip(lambda T: T.nn.LayerNorm([2, 3]))


def test_convert_sync_batchnorm():
    def f(T, x):
        net = T.nn.Sequential(T.nn.Identity(), T.nn.BatchNorm1d(3, momentum=0.2),
                              T.nn.Sequential(T.nn.BatchNorm1d(3, affine=False)))
        net(x)
        shared = net[1].weight
        conv = T.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        return [repr(conv), conv[1].weight is shared, conv[1].num_batches_tracked, conv(x),
                conv[1].running_mean]
    check(f, [Arg((4, 3))])


@pytest.mark.parametrize("name", list(NORM))
def test_norm_repr(name):
    check_repr(NORM[name][0])


@pytest.mark.parametrize("build", [lambda T: T.nn.LazyBatchNorm1d(),
                                   lambda T: T.nn.LazyInstanceNorm2d(bias=False),
                                   lambda T: T.nn.LazyBatchNorm3d(track_running_stats=False)])
def test_lazy_norm_repr(build):
    check_repr(build)


# ---- dropout -----------------------------------------------------------------------------------------------
DROPOUTS = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
_DROP_SHAPE = {"Dropout": (2, 3, 4), "Dropout1d": (2, 3, 4), "Dropout2d": (2, 3, 2, 2), "Dropout3d": (2, 3, 2,
                                                                                                      2, 1),
               "AlphaDropout": (2, 3, 4), "FeatureAlphaDropout": (2, 3, 2, 2)}


@_missing("dropout")
@pytest.mark.parametrize("cls", DROPOUTS)
def test_dropout_deterministic_corners_match_torch(cls):
    """eval mode is the identity, and p=0 in training too; p=1 in training zeroes everything (Dropout*) or
    sets every element to alpha dropout's fixed value."""
    shape = _DROP_SHAPE[cls]
    _case(lambda T: getattr(T.nn, cls)(0.3), [Arg(shape)], modes=("eval",), second_order=True)
    _case(lambda T: getattr(T.nn, cls)(0.0), [Arg(shape)], modes=("train",))
    check_module(lambda T: getattr(T.nn, cls)(1.0), [Arg(shape)], modes=("train",))


@_missing("dropout")
@pytest.mark.parametrize("cls,p", [("Dropout", 0.3), ("Dropout2d", 0.5), ("AlphaDropout", 0.2),
                                   ("FeatureAlphaDropout", 0.4), ("Dropout1d", 0.25), ("Dropout3d", 0.5)])
def test_dropout_training_statistics(cls, p):
    """Training mode: the kept fraction is about 1 - p, whole channels are dropped by the feature variants,
    kept values are scaled by 1 / (1 - p) (Dropout*), and alpha dropout keeps mean 0 / variance 1 of a
    standard normal input. The gradient is the mask times the scale (the output's Jacobian)."""
    torchshim.manual_seed(1)
    feature = cls not in ("Dropout", "AlphaDropout")
    shape = {"Dropout1d": (256, 64, 16), "Dropout3d": (32, 64, 4, 4, 4)}.get(cls, (64, 32, 8, 8) if feature
                                                                          else (200_000,))
    x = torchshim.randn(*shape).requires_grad_()
    m = getattr(torchshim.nn, cls)(p)
    y = m(x)
    (g,) = torchshim.autograd.grad(y.sum(), x)
    xv, yv, gv = x.detach().numpy(), y.detach().numpy(), g.numpy()
    if cls.startswith("Dropout"):
        kept = yv != 0
        if feature:
            per_channel = kept.reshape(shape[0], shape[1], -1)
            assert np.all(per_channel.all(-1) | ~per_channel.any(-1))  # a channel is kept or dropped whole
        frac = kept.mean()
        np.testing.assert_allclose(yv[kept], xv[kept] / (1 - p), rtol=1e-5)
        np.testing.assert_allclose(gv, kept / (1 - p), rtol=1e-5)
    else:
        frac = (gv != 0).mean()
        assert abs(yv.mean()) < 0.05 and abs(yv.std() - 1) < 0.05
    n = shape[0] * shape[1] if feature else np.prod(shape)
    assert abs(frac - (1 - p)) < 5 * math.sqrt(p * (1 - p) / n) + 1e-3, (frac, p)


@_missing("dropout")
def test_dropout_inplace_and_errors():
    def f(T, x):
        out = []
        y = x * 1
        r = T.nn.Dropout(0.5, inplace=True).eval()(y)
        out.append(r is y)
        for fn in (lambda: T.nn.Dropout(1.5), lambda: T.nn.Dropout2d(-0.1), lambda: T.nn.Dropout1d()(x[0, 0,
                                                                                                       0])):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        return out
    check(f, [Arg((2, 3, 4, 5))])


@pytest.mark.parametrize("cls", DROPOUTS)
def test_dropout_repr(cls):
    check_repr(lambda T: getattr(T.nn, cls)(0.2, inplace=cls == "Dropout"))


# ---- embedding ---------------------------------------------------------------------------------------------
EMB = {
    "embedding": (lambda T: T.nn.Embedding(10, 3), [Idx((2, 4), 10)], None),
    "embedding-padding": (lambda T: T.nn.Embedding(6, 2, padding_idx=-2), [Idx((7,), 6)], None),
    "embedding-max-norm": (lambda T: T.nn.Embedding(5, 4, max_norm=1.0, norm_type=1.5), [Idx((3, 2), 5)],
                           None),
    "embedding-scale-grad": (lambda T: T.nn.Embedding(4, 3, scale_grad_by_freq=True), [Idx((9,), 4)], None),
}


@_missing("embedding")
@pytest.mark.parametrize("name", list(EMB))
def test_embedding_matches_torch(name):
    build, inputs, _ = EMB[name]
    _case(build, inputs, modes=("train",))


@_missing("embedding_bag")
@pytest.mark.parametrize("mode,kwargs", [("mean", {}), ("sum", {"padding_idx": 1}), ("max", {}),
                                         ("sum", {"include_last_offset": True}), ("mean", {"max_norm": 0.5})])
def test_embedding_bag_matches_torch(mode, kwargs):
    # with include_last_offset the last offset must be len(input): PyTorch's backward reads past grad_output
    # for the indices after it (uninitialised values in weight.grad)
    offsets = [0, 2, 2, 5, 8] if kwargs.get("include_last_offset") else [0, 2, 2, 5]

    def call(m, idx, **kw):
        T = _lib(m)
        return m(idx, T.tensor(offsets))
    _case(lambda T: T.nn.EmbeddingBag(7, 3, mode=mode, **kwargs), [Idx((8,), 7)], call=call, modes=("train",))


@_missing("embedding_bag")
def test_embedding_bag_2d_and_per_sample_weights():
    _case(lambda T: T.nn.EmbeddingBag(10, 3), [Idx((3, 4), 10)], modes=("train",))

    def call(m, idx, w):
        return m(idx, _lib(m).tensor([0, 3]), per_sample_weights=w)
    _case(lambda T: T.nn.EmbeddingBag(6, 2, mode="sum"), [Idx((5,), 6), Arg((5,))], call=call,
          modes=("train",))


def test_embedding_from_pretrained_and_init():
    def f(T, w):
        out = []
        e = T.nn.Embedding.from_pretrained(w, padding_idx=1)
        out += [repr(e), e.weight.requires_grad, e.weight, e.padding_idx]
        e2 = T.nn.Embedding.from_pretrained(w, freeze=False, max_norm=2.0)
        out += [repr(e2), e2.weight.requires_grad]
        b = T.nn.EmbeddingBag.from_pretrained(w, mode="sum", padding_idx=-1)
        out += [repr(b), b.weight.requires_grad, b.padding_idx]
        b2 = T.nn.EmbeddingBag.from_pretrained(w, freeze=False)
        out += [b2.weight.requires_grad]
        z = T.nn.Embedding(4, 3, padding_idx=2)
        out += [z.weight[2], z.weight.requires_grad, T.nn.Embedding(3, 2, _freeze=True).weight.requires_grad]
        for fn in (lambda: T.nn.Embedding(3, 2, padding_idx=3), lambda: T.nn.Embedding(3, 2, padding_idx=-4),
                   lambda: T.nn.Embedding(3, 2, _weight=w), lambda: T.nn.Embedding.from_pretrained(w[0]),
                   lambda: T.nn.EmbeddingBag(3, 2,
                                             padding_idx=5), lambda: T.nn.EmbeddingBag.from_pretrained(w[0])):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        return out
    check(f, [Arg((5, 3))])


@pytest.mark.parametrize("build", [
    lambda T: T.nn.Embedding(10, 3),
    lambda T: T.nn.Embedding(6, 2, padding_idx=-2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                             sparse=True),
    lambda T: T.nn.EmbeddingBag(5, 2),
    lambda T: T.nn.EmbeddingBag(5, 2, max_norm=2.0, norm_type=3.0, mode="max", padding_idx=0,
                                scale_grad_by_freq=True),
])
def test_embedding_repr(build):
    check_repr(build)


def test_embedding_default_init_statistics():
    torchshim.manual_seed(0)
    for layer in (torchshim.nn.Embedding(400, 50, padding_idx=7), torchshim.nn.EmbeddingBag(400, 50,
                                                                                            padding_idx=7)):
        w = layer.weight.detach().numpy().astype(np.float64)
        assert np.all(w[7] == 0)
        rest = np.delete(w, 7, axis=0).ravel()
        assert abs(rest.mean()) < 5 / math.sqrt(rest.size) and abs(rest.std() - 1) < 0.02
        assert abs((rest ** 4).mean() - 3) < 0.15  # normal kurtosis
    layer.reset_parameters()
    assert np.all(layer.weight.detach().numpy()[7] == 0)


# ---- distance ----------------------------------------------------------------------------------------------
DIST = {
    "pairwise": (lambda T: T.nn.PairwiseDistance(), [Arg((4, 3)), Arg((4, 3))], True),
    "pairwise-p1-keepdim": (lambda T: T.nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True),
                            [Arg((2, 4, 3)), Arg((4, 3))], False),
    "pairwise-inf": (lambda T: T.nn.PairwiseDistance(p=float("inf")), [Arg((3,)), Arg((2, 3))], False),
    "cosine": (lambda T: T.nn.CosineSimilarity(), [Arg((3, 4)), Arg((3, 4))], True),
    "cosine-dim0-f64": (lambda T: T.nn.CosineSimilarity(dim=0, eps=1e-3), [Arg((3, 2), "float64"),
                                                                            Arg((3, 1), "float64")], False),
}


@pytest.mark.parametrize("name", list(DIST))
def test_distance_matches_torch(name):
    build, inputs, second = DIST[name]
    _case(build, inputs, second_order=second, modes=("train",))


@pytest.mark.parametrize("name", list(DIST))
def test_distance_repr(name):
    check_repr(DIST[name][0])


def test_distance_errors_match_torch():
    check_module(lambda T: T.nn.CosineSimilarity(), [Arg((3, 4)), Arg((2, 4))], expect_error=True,
                 modes=("train",))
    check_module(lambda T: T.nn.PairwiseDistance(), [Arg((3, 4)), Arg((3, 5))], expect_error=True,
                 modes=("train",))
