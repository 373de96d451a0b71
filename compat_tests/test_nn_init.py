"""torch.nn.init against real PyTorch: exact fills (constant_, ones_, zeros_, eye_, dirac_) compared value for
value; random initializers compared statistically (the RNG streams differ): bounds, moments and orthogonality,
each checked on a large sample from both libraries; gains, fans, warnings and errors compared with torch's."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import compare_errors, compare_values, to_numpy

T_INIT, S_INIT = torch.nn.init, torchshim.nn.init


def both(fn):
    """fn(lib) under torch and torchshim: (result, result) or, when both raise, the errors compared."""
    out = []
    for lib in (torch, torchshim):
        try:
            out.append(fn(lib))
        except Exception as e:  # compared below
            out.append(e)
    r, g = out
    if isinstance(r, Exception) or isinstance(g, Exception):
        assert isinstance(r, Exception) and isinstance(g, Exception), f"torch: {r!r}, torchshim: {g!r}"
        compare_errors(r, g)
        return None
    return r, g


def samples(init, shape, *args, dtype="float32", **kwargs):
    """(torch sample, torchshim sample) as float64 numpy arrays, from `init(empty(shape), *args, **kwargs)`
    (both libraries seeded, so a run is reproducible)."""
    torch.manual_seed(0)
    torchshim.manual_seed(0)
    r = getattr(torch.nn.init, init)(torch.empty(shape, dtype=getattr(torch, dtype)), *args, **kwargs)
    g = getattr(torchshim.nn.init, init)(torchshim.empty(shape, dtype=getattr(torchshim, dtype)), *args,
                                         **kwargs)
    assert str(r.dtype) == str(g.dtype) and tuple(r.shape) == tuple(g.shape)
    return to_numpy(r).astype(np.float64), to_numpy(g).astype(np.float64)


def close_moments(r, g, rel=0.0):
    """The two samples agree in mean and standard deviation within 5 standard errors of the difference (plus
    `rel` of the spread, for the rounding of low-precision dtypes)."""
    spread = max(r.std(), 1e-12)
    n = min(r.size, g.size)
    assert abs(r.mean() - g.mean()) < spread * (5 * math.sqrt(2 / n) + rel), (r.mean(), g.mean())
    assert abs(r.std() - g.std()) < spread * (5 * math.sqrt(1 / n) + rel), (r.std(), g.std())


# ---- gains and fans ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("linear",), ("conv1d",), ("conv2d",), ("conv3d",), ("conv_transpose1d",), ("conv_transpose2d",),
    ("conv_transpose3d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
    ("leaky_relu", 3), ("leaky_relu", None), ("selu",), ("linear", 5.0),
    ("leaky_relu", True), ("leaky_relu", "0.2"), ("leaky_relu", [1]), ("gelu",), ("Relu",),
])
def test_calculate_gain(args):
    res = both(lambda T: T.nn.init.calculate_gain(*args))
    if res is not None:
        assert res[0] == res[1] and type(res[0]) is type(res[1])


@pytest.mark.parametrize("shape", [(2, 3), (4, 3, 5), (4, 3, 5, 5), (6, 2, 3, 3, 3), (0, 3), (3,), ()])
def test_fan_in_and_fan_out(shape):
    res = both(lambda T: T.nn.init._calculate_fan_in_and_fan_out(T.empty(shape)))
    if res is not None:
        assert res[0] == res[1]


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "FAN_OUT", "Fan_In", "fan_avg"])
def test_calculate_correct_fan(mode):
    res = both(lambda T: T.nn.init._calculate_correct_fan(T.empty(4, 3, 2), mode))
    if res is not None:
        assert res[0] == res[1]


# ---- exact fills -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "bool"])
@pytest.mark.parametrize("fill", ["constant_", "ones_", "zeros_"])
def test_constant_fills(fill, dtype):
    args = (0.3,) if fill == "constant_" else ()
    res = both(lambda T: getattr(T.nn.init, fill)(T.full((3, 4), 7, dtype=getattr(T, dtype)), *args))
    if res is not None:
        compare_values(*res)


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 2), (0, 3), (3,), (2, 2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_eye_(shape, dtype):
    res = both(lambda T: T.nn.init.eye_(T.full(shape, 7, dtype=getattr(T, dtype))))
    if res is not None:
        compare_values(*res)


@pytest.mark.parametrize("shape,groups", [
    ((4, 3, 5), 1), ((3, 4, 5), 1), ((4, 2, 3, 3), 1), ((4, 4, 3, 2), 2), ((6, 2, 3, 3, 3), 3),
    ((6, 5, 1, 2), 2), ((4, 2, 3, 3), 3), ((4, 2), 1), ((1, 1, 1, 1, 1, 1), 1),
])
def test_dirac_(shape, groups):
    res = both(lambda T: T.nn.init.dirac_(T.full(shape, 7.0), groups))
    if res is not None:
        compare_values(*res)


def test_fills_on_parameters_write_in_place_without_history():
    for T in (torch, torchshim):
        p = T.nn.Parameter(T.empty(3, 3))
        v0 = p._version
        for fill, args in [("constant_", (0.5,)), ("ones_", ()), ("zeros_", ()), ("eye_", ()),
                           ("uniform_", ()), ("normal_", ()), ("trunc_normal_", ()), ("xavier_uniform_", ()),
                           ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ()),
                           ("orthogonal_", ()), ("sparse_", (0.5,))]:
            out = getattr(T.nn.init, fill)(p, *args)
            assert out is p, fill
            assert p.requires_grad and p.grad_fn is None and p.is_leaf, fill
        assert p._version > v0
        q = T.nn.Parameter(T.empty(2, 3, 3))
        assert T.nn.init.dirac_(q) is q and q.grad_fn is None


# ---- random initializers: statistics -----------------------------------------------------------------------
def test_uniform_bounds_and_moments():
    r, g = samples("uniform_", (200, 500), -0.5, 1.5)
    assert g.min() >= -0.5 and g.max() < 1.5 and r.min() >= -0.5 and r.max() < 1.5
    close_moments(r, g)
    r, g = samples("uniform_", (100, 100))
    assert g.min() >= 0 and g.max() < 1
    close_moments(r, g)


def test_normal_moments():
    r, g = samples("normal_", (200, 500), 2.0, 0.5)
    close_moments(r, g)


@pytest.mark.parametrize("args", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 1.5), (0.0, 1.0, 1.0, 3.0),
                                  (0.0, 1.0, -6.0, -5.0), (0.0, 0.02, -0.04, 0.04), (5.0, 1.0, -1.0, 2.0)])
def test_trunc_normal_bounds_and_moments(args):
    mean, std, a, b = args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r, g = samples("trunc_normal_", (200, 500), mean, std, a, b)
    assert r.min() >= a and r.max() <= b
    assert g.min() >= a and g.max() <= b
    close_moments(r, g)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
@pytest.mark.parametrize("init,args", [("uniform_", (-1.0, 1.0)), ("normal_", ()), ("trunc_normal_", ()),
                                       ("xavier_uniform_", ()), ("kaiming_normal_", ())])
def test_random_init_other_dtypes(init, args, dtype):
    r, g = samples(init, (100, 200), *args, dtype=dtype)
    close_moments(r, g, rel=0.01)
    if init in ("uniform_", "trunc_normal_"):
        assert g.min() >= -2 and g.max() <= 2


def test_trunc_normal_warns_far_mean():
    for T in (torch, torchshim):
        with pytest.warns(UserWarning, match=r"mean is more than 2 std from \[a, b\] in nn.init.trunc_norm"):
            T.nn.init.trunc_normal_(T.empty(10), mean=5.0, a=-1.0, b=1.0)


@pytest.mark.parametrize("shape", [(300, 200), (64, 32, 3, 3), (500, 20, 5)])
@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier(shape, gain):
    fan_in, fan_out = torchshim.nn.init._calculate_fan_in_and_fan_out(torchshim.empty(shape))
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    r, g = samples("xavier_uniform_", shape, gain=gain)
    assert np.abs(r).max() <= bound and np.abs(g).max() <= bound and np.abs(g).max() > 0.98 * bound
    close_moments(r, g)
    r, g = samples("xavier_normal_", shape, gain=gain)
    assert abs(r.std() - bound / math.sqrt(3)) < 0.03 * r.std()
    close_moments(r, g)


@pytest.mark.parametrize("kw", [{}, {"a": math.sqrt(5)}, {"mode": "fan_out"}, {"nonlinearity": "relu"},
                                {"mode": "fan_out", "nonlinearity": "relu"}, {"a": 0.2, "mode": "FAN_IN"},
                                {"nonlinearity": "tanh"}, {"nonlinearity": "selu"}])
@pytest.mark.parametrize("shape", [(400, 100), (64, 16, 3, 3)])
def test_kaiming(shape, kw):
    t = torchshim.empty(shape)
    fan = torchshim.nn.init._calculate_correct_fan(t, kw.get("mode", "fan_in"))
    gain = torchshim.nn.init.calculate_gain(kw.get("nonlinearity", "leaky_relu"), kw.get("a", 0))
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    r, g = samples("kaiming_uniform_", shape, **kw)
    assert np.abs(r).max() <= bound and np.abs(g).max() <= bound and np.abs(g).max() > 0.98 * bound
    close_moments(r, g)
    r, g = samples("kaiming_normal_", shape, **kw)
    close_moments(r, g)


@pytest.mark.parametrize("init", ["kaiming_uniform_", "kaiming_normal_"])
def test_kaiming_zero_element_warns_and_is_a_no_op(init):
    for T in (torch, torchshim):
        t = T.empty(0, 3)
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert getattr(T.nn.init, init)(t) is t


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (6, 2, 3), (2, 3, 2, 2), (1, 7), (0, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_(shape, dtype):
    gain = 1.7
    r = torch.nn.init.orthogonal_(torch.empty(shape, dtype=getattr(torch, dtype)), gain=gain)
    g = torchshim.nn.init.orthogonal_(torchshim.empty(shape, dtype=getattr(torchshim, dtype)), gain=gain)
    assert str(r.dtype) == str(g.dtype) and tuple(r.shape) == tuple(g.shape)
    if r.numel() == 0:
        return
    tol = 1e-5 if dtype == "float32" else 1e-12
    for t in (to_numpy(r), to_numpy(g)):
        m = t.reshape(shape[0], -1).astype(np.float64)
        gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        np.testing.assert_allclose(gram, gain ** 2 * np.eye(gram.shape[0]), atol=tol * 10)


def test_orthogonal_is_haar_distributed():
    """Sign correction (diag(R) > 0) makes Q uniformly distributed: its entries have mean 0 in both."""
    qs = {T.__name__: np.stack([to_numpy(T.nn.init.orthogonal_(T.empty(3, 3))) for _ in range(300)])
          for T in (torch, torchshim)}
    for q in qs.values():
        assert np.abs(q.mean(axis=0)).max() < 0.15
        assert abs(q.std() - 1 / math.sqrt(3)) < 0.05


@pytest.mark.parametrize("shape,sparsity", [((10, 30), 0.3), ((7, 5), 0.5), ((4, 6), 0.0), ((5, 3), 1.0),
                                            ((200, 50), 0.1)])
def test_sparse_(shape, sparsity):
    r, g = samples("sparse_", shape, sparsity, std=0.5)
    for t in (r, g):
        zeros = (t == 0).sum(axis=0)
        np.testing.assert_array_equal(zeros, np.full(shape[1], math.ceil(sparsity * shape[0])))
    if sparsity < 1:
        close_moments(r[r != 0], g[g != 0])


# ---- generator= --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("init,args", [
    ("uniform_", ()), ("normal_", ()), ("trunc_normal_", ()), ("xavier_uniform_", ()), ("xavier_normal_", ()),
    ("kaiming_uniform_", ()), ("kaiming_normal_", ()), ("orthogonal_", ()), ("sparse_", (0.0,)),
])
def test_generator_argument(init, args):
    """The same seeded generator gives the same values (as in torch); whether the default generator moves
    (only sparse_, whose row choice ignores `generator`) is torch's."""
    moved = []
    for T in (torch, torchshim):
        fn = getattr(T.nn.init, init)
        T.manual_seed(0)
        state = T.get_rng_state()
        a = fn(T.empty(6, 4), *args, generator=T.Generator().manual_seed(3))
        b = fn(T.empty(6, 4), *args, generator=T.Generator().manual_seed(3))
        c = fn(T.empty(6, 4), *args, generator=T.Generator().manual_seed(4))
        assert T.equal(a, b) and not T.equal(a, c), (T.__name__, init)
        moved.append(not T.equal(T.get_rng_state(), state))
    assert moved[0] == moved[1]


# ---- errors and deprecated aliases -------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.nn.init.xavier_uniform_(T.empty(3)),
    lambda T: T.nn.init.xavier_normal_(T.empty(())),
    lambda T: T.nn.init.kaiming_uniform_(T.empty(3)),
    lambda T: T.nn.init.kaiming_normal_(T.empty(3, 4), mode="fan_avg"),
    lambda T: T.nn.init.kaiming_uniform_(T.empty(3, 4), nonlinearity="gelu"),
    lambda T: T.nn.init.kaiming_uniform_(T.empty(3, 4), a="x"),
    lambda T: T.nn.init.eye_(T.empty(3, 4, 5)),
    lambda T: T.nn.init.dirac_(T.empty(3, 4)),
    lambda T: T.nn.init.dirac_(T.empty(3, 4, 5), groups=2),
    lambda T: T.nn.init.orthogonal_(T.empty(3)),
    lambda T: T.nn.init.orthogonal_(T.empty(3, 4, dtype=T.float16)),
    lambda T: T.nn.init.orthogonal_(T.empty(3, 4, dtype=T.bfloat16)),
    lambda T: T.nn.init.orthogonal_(T.empty(3, 4, dtype=T.int64)),
    lambda T: T.nn.init.sparse_(T.empty(3, 4, 5), 0.1),
    lambda T: T.nn.init.sparse_(T.empty(3, 4, dtype=T.int64), 0.5),
    lambda T: T.nn.init.uniform_(T.empty(3, 4, dtype=T.int64)),
    lambda T: T.nn.init.normal_(T.empty(3, 4, dtype=T.int32)),
    lambda T: T.nn.init.normal_(T.empty(3, 4), std=-1.0),
    lambda T: T.nn.init.trunc_normal_(T.empty(3, 4, dtype=T.int64)),
    lambda T: T.nn.init.trunc_normal_(T.empty(3, 4, dtype=T.int64), a=3.0, b=4.0),
    lambda T: T.nn.init.uniform_(T.empty(3), 2.0, 1.0),
], ids=["xavier-1d", "xavier-0d", "kaiming-1d", "kaiming-mode", "kaiming-nonlinearity", "kaiming-a",
        "eye-3d", "dirac-2d", "dirac-groups", "orthogonal-1d", "orthogonal-f16", "orthogonal-bf16",
        "orthogonal-int", "sparse-3d", "sparse-int", "uniform-int", "normal-int", "normal-std",
        "trunc-normal-int", "trunc-normal-int-tail", "uniform-bounds"])
def test_errors(call):
    res = both(call)
    assert res is None, "expected both libraries to raise"


@pytest.mark.parametrize("name,args", [
    ("uniform", ()), ("normal", ()), ("constant", (0.1,)), ("eye", ()), ("dirac", ()), ("xavier_uniform", ()),
    ("xavier_normal", ()), ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()),
    ("sparse", (0.1,)),
])
def test_deprecated_aliases(name, args):
    shape = (4, 3, 3) if name == "dirac" else (4, 3)
    msgs = []
    for T in (torch, torchshim):
        with pytest.warns(FutureWarning) as rec:
            out = getattr(T.nn.init, name)(T.zeros(shape), *args)
        assert tuple(out.shape) == shape
        msgs.append([str(w.message) for w in rec if w.category is FutureWarning])
    assert msgs[0] == msgs[1]
    assert getattr(torchshim.nn.init, name).__name__ == name


def test_public_names_match_torch():
    assert sorted(torch.nn.init.__all__) == sorted(torchshim.nn.init.__all__)


def test_layer_helpers_use_nn_init():
    """nn.modules' init helpers are nn.init's functions (Linear's default init goes through them)."""
    from torchshim.nn.modules import _init_helpers as helpers
    assert helpers.kaiming_uniform_ is S_INIT.kaiming_uniform_ and helpers.uniform_ is S_INIT.uniform_
    assert helpers.calculate_fan_in_and_fan_out is S_INIT._calculate_fan_in_and_fan_out
    w = torchshim.nn.Linear(50, 400).weight
    assert float(w.abs().max()) <= 1 / math.sqrt(50)
