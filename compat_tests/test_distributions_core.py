"""torch.distributions, the core (distribution.py, constraints, transforms, constraint_registry, kl and the
distributions Normal, Uniform, Bernoulli, Categorical, OneHotCategorical(StraightThrough), Exponential,
Laplace, Cauchy, HalfCauchy, HalfNormal, LogNormal, Gumbel, Geometric, Poisson, Independent,
TransformedDistribution) against real PyTorch on the same parameters: log_prob, cdf, icdf, entropy, moments,
KL values, transforms, gradients of log_prob and of rsample (through the implicit-reparameterisation identity
`dx/dtheta = -dF(x; theta)/dtheta / p(x)` evaluated with real torch at torchshim's draws), validation errors
(type and message), shapes of sample/expand, repr. Sampling statistics: test_distributions_sampling.py."""
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import compare_errors, compare_values

LIBS = (torch, torchshim)
RNG = np.random.default_rng(0)


def _t(lib, a, dtype="float32", grad=False):
    if isinstance(a, (int, float)):
        return a
    t = lib.tensor(np.asarray(a), dtype=getattr(lib, dtype))
    return t.requires_grad_() if grad else t


# name -> (class name, params {name: array or number}, kwargs, value array (in the support))
P23 = RNG.uniform(-1, 1, (2, 3))
POS23 = RNG.uniform(0.5, 2, (2, 3))
PROB23 = RNG.uniform(0.1, 0.9, (2, 3))
X23 = RNG.uniform(-2, 2, (2, 3))
XPOS23 = RNG.uniform(0.1, 3, (2, 3))
U23 = RNG.uniform(0.05, 0.95, (2, 3))
LOGITS24 = RNG.normal(size=(2, 4))
PROBS24 = RNG.uniform(0.1, 1, (2, 4))

CASES = {
    "Normal": ("Normal", {"loc": P23, "scale": POS23}, X23),
    "Normal-scalar": ("Normal", {"loc": 0.5, "scale": 2.0}, X23[0]),
    "Uniform": ("Uniform", {"low": P23 - 2, "high": P23 + 2}, X23 * 0.9),
    "Bernoulli-probs": ("Bernoulli", {"probs": PROB23}, (U23 > 0.5).astype(float)),
    "Bernoulli-logits": ("Bernoulli", {"logits": P23 * 3}, (U23 > 0.5).astype(float)),
    "Categorical-probs": ("Categorical", {"probs": PROBS24}, np.array([[0, 3], [2, 1], [1, 1]])),
    "Categorical-logits": ("Categorical", {"logits": LOGITS24}, np.array([3, 1])),
    "OneHotCategorical": ("OneHotCategorical", {"probs": PROBS24}, np.eye(4)[[1, 3]]),
    "OneHotCategoricalStraightThrough": ("OneHotCategoricalStraightThrough", {"logits": LOGITS24},
                                         np.eye(4)[[0, 2]]),
    "Exponential": ("Exponential", {"rate": POS23}, XPOS23),
    "Laplace": ("Laplace", {"loc": P23, "scale": POS23}, X23),
    "Cauchy": ("Cauchy", {"loc": P23, "scale": POS23}, X23),
    "HalfCauchy": ("HalfCauchy", {"scale": POS23}, XPOS23),
    "HalfNormal": ("HalfNormal", {"scale": POS23}, XPOS23),
    "LogNormal": ("LogNormal", {"loc": P23, "scale": POS23}, XPOS23),
    "Gumbel": ("Gumbel", {"loc": P23, "scale": POS23}, X23),
    "Gumbel-scalar": ("Gumbel", {"loc": 1.0, "scale": 2.0}, X23),
    "Geometric-probs": ("Geometric", {"probs": PROB23}, np.floor(XPOS23 * 2)),
    "Geometric-logits": ("Geometric", {"logits": P23}, np.floor(XPOS23 * 2)),
    "Poisson": ("Poisson", {"rate": POS23 * 3}, np.floor(XPOS23 * 2)),
}
INT_VALUES = ("Categorical",)  # value dtype int64


def make(lib, case, dtype="float32", grad=False):
    cls, params, _ = CASES[case]
    kw = {k: _t(lib, v, dtype, grad) for k, v in params.items()}
    return getattr(lib.distributions, cls)(**kw), kw


def value(lib, case, dtype="float32"):
    cls, _, v = CASES[case]
    return _t(lib, v, "int64" if cls in INT_VALUES else dtype)


def both(fn, rtol=None, atol=None):
    """fn(lib) under both libraries: same exception (type, message) or the same values."""
    out = []
    for lib in LIBS:
        try:
            out.append(("ok", fn(lib)))
        except Exception as e:  # noqa: BLE001
            out.append(("err", e))
    (kr, r), (kg, g) = out
    if kr == "err":
        assert kg == "err", f"torch raised {type(r).__name__}: {r}; torchshim returned {g!r}"
        if "torchshim" in str(g):  # a class printed in the message: torchshim.X is torch.X here
            g = type(g)(str(g).replace("torchshim", "torch"))
        compare_errors(r, g)
        return
    assert kg == "ok", f"torchshim raised {type(g).__name__}: {g}"
    compare_values(r, g, rtol=rtol, atol=atol)
    return r, g


METHODS = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev", "perplexity")


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("what", METHODS)
def test_values(case, what):
    def fn(lib):
        d, _ = make(lib, case, "float64" if case.endswith("scalar") else "float32")
        if what in ("log_prob", "cdf"):
            return getattr(d, what)(value(lib, case))
        if what == "icdf":
            return d.icdf(_t(lib, U23))
        if what in ("entropy", "perplexity"):
            return getattr(d, what)()
        return getattr(d, what)
    both(fn, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_shapes_and_flags(case):
    def fn(lib):
        d, _ = make(lib, case)
        e = d.expand((4,) + tuple(d.batch_shape))
        s = d.sample((5,))
        return (d.batch_shape, d.event_shape, e.batch_shape, e.event_shape, s.shape, str(s.dtype),
                e.sample().shape, d.has_rsample, d.has_enumerate_support, repr(d), repr(d.support),
                type(e).__name__, e.log_prob(value(lib, case)))
    both(fn, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", sorted(c for c in CASES if CASES[c][0] in
                                        ("Bernoulli", "Categorical", "OneHotCategorical")))
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support(case, expand):
    both(lambda lib: make(lib, case)[0].enumerate_support(expand))


GRAD_CASES = [c for c in sorted(CASES) if not c.endswith("scalar")]


@pytest.mark.parametrize("case", GRAD_CASES)
@pytest.mark.parametrize("what", ["log_prob", "entropy", "cdf"])
def test_gradients(case, what):
    """Gradients w.r.t. the parameters of log_prob / entropy / cdf (float64)."""
    def fn(lib):
        d, kw = make(lib, case, "float64", grad=True)
        if what == "entropy":
            out = d.entropy()
        else:
            out = getattr(d, what)(value(lib, case, "float64"))
        ts = [t for t in kw.values() if not isinstance(t, (int, float))]
        return lib.autograd.grad((out * out.detach().abs().add(1)).sum(), ts, allow_unused=True)
    both(fn, rtol=1e-7, atol=1e-9)


RSAMPLE = ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "HalfCauchy", "HalfNormal", "LogNormal"]


@pytest.mark.parametrize("case", RSAMPLE)
def test_rsample_gradient(case):
    """rsample carries gradients: dx/dtheta of torchshim's draws equals -(dF/dtheta)/p at those draws, F and
    p from real torch (the implicit reparameterisation identity; holds for every inverse-CDF-type sampler)."""
    torchshim.manual_seed(1)
    d, kw = make(torchshim, case, "float64", grad=True)
    x = d.rsample()
    names = list(kw)
    grads = torchshim.autograd.grad(x.sum(), [kw[n] for n in names])
    xv = torch.tensor(x.detach().numpy())
    rd, rkw = make(torch, case, "float64", grad=True)
    cdf = rd.cdf(xv)
    dF = torch.autograd.grad(cdf.sum(), [rkw[n] for n in names])
    pdf = rd.log_prob(xv).exp()
    for n, g, f in zip(names, grads, dF):
        expected = (-f / pdf).detach().numpy()
        np.testing.assert_allclose(g.numpy(), expected, rtol=1e-6, atol=1e-9, err_msg=n)


def test_rsample_gradient_gumbel():
    """Gumbel: x = loc - scale * log(-log u), so dx/dloc = 1 and dx/dscale = (x - loc) / scale."""
    torchshim.manual_seed(2)
    loc = torchshim.tensor(P23, requires_grad=True)
    scale = torchshim.tensor(POS23, requires_grad=True)
    x = torchshim.distributions.Gumbel(loc, scale).rsample()
    gl, gs = torchshim.autograd.grad(x.sum(), [loc, scale])
    np.testing.assert_allclose(gl.numpy(), np.ones((2, 3)), rtol=1e-6)
    np.testing.assert_allclose(gs.numpy(), ((x - loc) / scale).detach().numpy(), rtol=1e-6)


def test_straight_through_gradient():
    torchshim.manual_seed(3)
    logits = torchshim.tensor(LOGITS24, requires_grad=True)
    d = torchshim.distributions.OneHotCategoricalStraightThrough(logits=logits)
    s = d.rsample()
    w = torchshim.arange(4.0, dtype=torchshim.float64)
    (g,) = torchshim.autograd.grad((s * w).sum(), [logits])
    rl = torch.tensor(LOGITS24, requires_grad=True)
    (rg,) = torch.autograd.grad((torch.softmax(rl, -1) * torch.arange(4.0, dtype=torch.float64)).sum(), [rl])
    np.testing.assert_allclose(g.numpy(), rg.numpy(), rtol=1e-6)
    assert ((s == 0) | (s == 1)).all() and (s.sum(-1) == 1).all()


# ---- KL ----------------------------------------------------------------------------------------------------
KL_PAIRS = [
    ("Normal", "Normal"), ("Normal-scalar", "Normal"), ("Uniform", "Uniform"),
    ("Bernoulli-probs", "Bernoulli-logits"), ("Categorical-probs", "Categorical-logits"),
    ("OneHotCategorical", "OneHotCategoricalStraightThrough"), ("Exponential", "Exponential"),
    ("Laplace", "Laplace"), ("Cauchy", "Cauchy"), ("HalfNormal", "HalfNormal"), ("LogNormal", "LogNormal"),
    ("Gumbel", "Gumbel"), ("Geometric-probs", "Geometric-logits"), ("Poisson", "Poisson"),
    ("Bernoulli-probs", "Poisson"), ("Exponential", "Gumbel"), ("Exponential", "Normal"),
    ("Exponential", "Uniform"), ("Gumbel", "Normal"), ("Gumbel", "Uniform"), ("Gumbel", "Exponential"),
    ("Laplace", "Normal"), ("Laplace", "Uniform"), ("Normal", "Gumbel"), ("Normal", "Laplace"),
    ("Normal", "Uniform"), ("Normal", "Exponential"), ("Poisson", "Bernoulli-probs"),
    ("Uniform", "Exponential"), ("Uniform", "Gumbel"), ("Uniform", "Normal"),
    ("Uniform", "Laplace"), ("Cauchy", "Normal"), ("Normal", "Poisson"), ("HalfCauchy", "HalfCauchy"),
]


@pytest.mark.parametrize("p,q", KL_PAIRS, ids=[f"{p}-{q}" for p, q in KL_PAIRS])
def test_kl(p, q):
    def fn(lib):
        dp, kp = make(lib, p, "float64", grad=True)
        dq, kq = make(lib, q, "float64", grad=True)
        kl = lib.distributions.kl_divergence(dp, dq)
        ts = [t for t in list(kp.values()) + list(kq.values()) if not isinstance(t, (int, float))]
        fin = lib.isfinite(kl)
        gs = lib.autograd.grad(lib.where(fin, kl, 0).sum(), ts, allow_unused=True) if fin.any() else ()
        return kl, gs
    both(fn, rtol=1e-7, atol=1e-9)


def test_kl_uniform_edge_and_zero_probs():
    def fn(lib):
        D = lib.distributions
        a = D.Uniform(lib.tensor([0.0, 0.0]), lib.tensor([1.0, 2.0]))
        b = D.Uniform(lib.tensor([-1.0, 0.5]), lib.tensor([2.0, 3.0]))
        c1 = D.Categorical(probs=lib.tensor([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]]))
        c2 = D.Categorical(probs=lib.tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]))
        b1 = D.Bernoulli(lib.tensor([0.0, 1.0, 0.3, 0.5]))
        b2 = D.Bernoulli(lib.tensor([0.5, 0.0, 1.0, 0.5]))
        kl = D.kl_divergence
        return (kl(a, b), kl(b, a), kl(c1, c2), kl(b1, b2),
                kl(D.Exponential(lib.tensor([1.0])), D.Uniform(0.0, 1.0)))
    both(fn)


def test_kl_registry():
    D = torchshim.distributions

    class MyNormal(D.Normal):
        pass

    class A(D.Distribution):
        arg_constraints = {}

    class B(A):
        pass

    # the most specific match is used; an unregistered pair raises
    assert float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0))) == pytest.approx(0.5)
    with pytest.raises(NotImplementedError,
                       match="No KL\\(p \\|\\| q\\) is implemented for p type A and q type Normal"):
        D.kl_divergence(A(validate_args=False), D.Normal(0.0, 1.0))

    def f1(p, q):
        return 1

    def f2(p, q):
        return 2
    D.register_kl(A, B)(f1)
    D.register_kl(B, A)(f2)
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(B, B\). Please register_kl\(B, B\)"):
        assert D.kl_divergence(B(validate_args=False), B(validate_args=False)) == 2
    D.register_kl(B, B)(f1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.kl_divergence(B(validate_args=False), B(validate_args=False)) == 1
    del D.kl._KL_REGISTRY[A, B], D.kl._KL_REGISTRY[B, A], D.kl._KL_REGISTRY[B, B]
    D.kl._KL_MEMOIZE.clear()


def test_kl_expfamily_cross_error():
    both(lambda lib: lib.distributions.kl.kl_divergence(lib.distributions.Poisson(lib.tensor([1.0])),
                                                        lib.distributions.Exponential(lib.tensor([1.0]))))


def test_expfamily_entropy_matches_closed_form():
    """ExponentialFamily.entropy (Bregman, via autograd) equals each family's closed-form entropy."""
    def fn(lib):
        D = lib.distributions
        ds = (D.Normal(_t(lib, P23, "float64"), _t(lib, POS23, "float64")),
              D.Exponential(_t(lib, POS23, "float64")), D.Bernoulli(_t(lib, PROB23, "float64")))
        return [(D.ExponentialFamily.entropy(d), d.entropy()) for d in ds]
    r, g = both(fn, rtol=1e-7, atol=1e-9)
    for a, b in g:
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-7)
    # Poisson has no expected carrier measure: the Bregman entropy raises in both
    both(lambda lib: lib.distributions.ExponentialFamily.entropy(lib.distributions.Poisson(lib.ones(2))))


# ---- edge values: parameters and values at the boundaries, dtypes, shapes ---------------------------------
_NOVAL = dict(validate_args=False)
kw = _NOVAL
EDGES = {
    "bern-extreme": lambda T, D: D.Bernoulli(logits=T.tensor([-100., 0., 100.]), **kw).log_prob(
        T.tensor([1., 0., 0.])),
    "bern-extreme-ent": lambda T, D: D.Bernoulli(logits=T.tensor([-100., 0., 100.]), **kw).entropy(),
    "bern-probs01": lambda T, D: (D.Bernoulli(T.tensor([0., 1.]), **kw).log_prob(T.tensor([0., 1.])),
                                  D.Bernoulli(T.tensor([0., 1.]), **kw).entropy(),
                                  D.Bernoulli(T.tensor([0., 0.5, 1.]), **kw).mode),
    "geo-1": lambda T, D: (D.Geometric(T.tensor([1., 0.5]), **kw).log_prob(T.tensor([0., 0.])),
                           D.Geometric(T.tensor([1., 0.5]), **kw).entropy()),
    "poi-0": lambda T, D: D.Poisson(T.tensor([0., 2.]), **kw).log_prob(T.tensor([0., 1.])),
    "unif-out": lambda T, D: (D.Uniform(0., 1., **kw).log_prob(T.tensor([-1., 0., 1., 2.])),
                              D.Uniform(0., 1., **kw).cdf(T.tensor([-1., 2.]))),
    "halfn-neg": lambda T, D: (D.HalfNormal(T.tensor([1.]), **kw).log_prob(T.tensor([-1., 1.])),
                               D.HalfCauchy(T.tensor([1.]), **kw).log_prob(T.tensor([-1., 1.]))),
    "cat-zero": lambda T, D: (D.Categorical(T.tensor([0., 1., 1.])).entropy(),
                              D.Categorical(T.tensor([0., 1., 1.])).log_prob(T.tensor([0, 1])),
                              D.Categorical(logits=T.tensor([-float("inf"), 0., 0.])).entropy()),
    "exp-0": lambda T, D: D.Exponential(T.tensor([1.]), **kw).log_prob(T.tensor([-1., 0.])),
    "lognormal-0": lambda T, D: D.LogNormal(0., 1., **kw).log_prob(T.tensor([0., 1.])),
    "laplace-cdf": lambda T, D: (D.Laplace(0., 1.).cdf(T.tensor([-50., 0., 50.])),
                                 D.Laplace(0., 1.).icdf(T.tensor([0., 0.5, 1.]))),
    "normal-icdf01": lambda T, D: D.Normal(0., 1.).icdf(T.tensor([0., 1., 0.5])),
    "cauchy-icdf": lambda T, D: D.Cauchy(0., 1.).icdf(T.tensor([0.25, 0.5])),
    "gumbel-f64": lambda T, D: (
        D.Gumbel(T.tensor([0.], dtype=T.float64), 1.).log_prob(T.tensor([100.], dtype=T.float64)),
        D.Gumbel(T.tensor([1.], dtype=T.float64), 2.).cdf(T.tensor([0.5], dtype=T.float64))),
    "normal-intvalue": lambda T, D: D.Normal(0., 1.).log_prob(T.tensor([1, 2])),
    "normal-f64-mixed": lambda T, D: D.Normal(T.tensor([0.], dtype=T.float64), 1.).log_prob(T.tensor([1.])),
    "normal-f16": lambda T, D: D.Normal(T.tensor([0.], dtype=T.float16), T.tensor([1.], dtype=T.float16)
                                        ).log_prob(T.tensor([1.], dtype=T.float16)),
    "td-negative-affine-cdf": lambda T, D: D.TransformedDistribution(
        D.Normal(0., 1.), [D.AffineTransform(0., -2.)]).cdf(T.tensor([1.])),
    "ohc-mode": lambda T, D: D.OneHotCategorical(T.tensor([[0.2, 0.5, 0.3]])).mode,
    "cat-mode-batch": lambda T, D: D.Categorical(logits=T.zeros(2, 3)).mode,
    "kl-td-diff": lambda T, D: D.kl_divergence(
        D.LogNormal(0., 1.),
        D.TransformedDistribution(D.Normal(0., 1.), [D.ExpTransform(), D.ExpTransform()])),
    "kl-ind-diff": lambda T, D: D.kl_divergence(D.Independent(D.Normal(T.zeros(2, 2), 1.), 1),
                                                D.Independent(D.Normal(T.zeros(2, 2), 1.), 2)),
    "kl-halfcauchy": lambda T, D: D.kl_divergence(D.HalfCauchy(T.ones(1)), D.HalfNormal(T.ones(1))),
    "expand-bad": lambda T, D: D.Normal(T.zeros(3), 1.).expand((2,)),
    "sample-shape-int": lambda T, D: D.Normal(T.zeros(3), 1.).sample(4).shape,
    "td-event": lambda T, D: (
        D.TransformedDistribution(D.Normal(T.zeros(2, 3), 1.), [D.StickBreakingTransform()]).event_shape,
        D.TransformedDistribution(D.Normal(T.zeros(2, 3), 1.),
                                  [D.ReshapeTransform((3,), (3, 1))]).event_shape),
    "bern-enumerate": lambda T, D: D.Bernoulli(T.tensor([[0.3, 0.4]])).enumerate_support(False),
    "perplex": lambda T, D: D.Categorical(T.tensor([0.2, 0.8])).perplexity(),
    "ind-rsample": lambda T, D: D.Independent(D.Bernoulli(T.ones(2) / 2), 1).has_rsample,
    "geom-logits-lp": lambda T, D: D.Geometric(logits=T.tensor([2., -3.])).log_prob(T.tensor([3., 1.])),
    "uniform-mode": lambda T, D: D.Uniform(T.zeros(2), T.ones(2)).mode,
    "power-sign": lambda T, D: D.PowerTransform(T.tensor([-2., 3.])).sign,
    "affine-sign0": lambda T, D: D.AffineTransform(0., 0.).sign,
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edges(name):
    both(lambda lib: EDGES[name](lib, lib.distributions), rtol=1e-5, atol=1e-6)


# ---- validation errors -------------------------------------------------------------------------------------
ERRORS = {
    "normal-scale": lambda lib, D: D.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -1.0])),
    "normal-scalar-scale": lambda lib, D: D.Normal(0.0, 0.0),
    "normal-nan-loc": lambda lib, D: D.Normal(lib.tensor(float("nan")), 1.0),
    "uniform-low-high": lambda lib, D: D.Uniform(lib.tensor([0.0, 2.0]), lib.tensor([1.0, 1.0])),
    "bernoulli-both": lambda lib, D: D.Bernoulli(probs=0.5, logits=0.0),
    "bernoulli-none": lambda lib, D: D.Bernoulli(),
    "bernoulli-probs": lambda lib, D: D.Bernoulli(probs=lib.tensor([0.5, 1.5])),
    "categorical-0d": lambda lib, D: D.Categorical(probs=lib.tensor(1.0)),
    "categorical-logits-0d": lambda lib, D: D.Categorical(logits=lib.tensor(1.0)),
    "categorical-neg": lambda lib, D: D.Categorical(probs=lib.tensor([0.5, -0.5, 1.0])),
    "geometric-zero": lambda lib, D: D.Geometric(probs=lib.tensor([0.0, 0.5])),
    "poisson-neg": lambda lib, D: D.Poisson(lib.tensor([-1.0])),
    "exponential-rate": lambda lib, D: D.Exponential(lib.tensor([[0.0, 1.0]])),
    "independent-ndims": lambda lib, D: D.Independent(D.Normal(lib.zeros(3), 1.0), 2),
    "logprob-support": lambda lib, D: D.HalfNormal(lib.tensor([1.0, 2.0])).log_prob(lib.tensor([-1.0, 1.0])),
    "logprob-not-tensor": lambda lib, D: D.Normal(0.0, 1.0).log_prob(1.0),
    "logprob-event-shape": lambda lib, D: D.OneHotCategorical(lib.ones(3)).log_prob(lib.ones(4)),
    "logprob-broadcast": lambda lib, D: D.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(4)),
    "logprob-categorical-range": lambda lib, D: D.Categorical(lib.ones(3)).log_prob(lib.tensor([3])),
    "logprob-bernoulli-value": lambda lib, D: D.Bernoulli(lib.tensor([0.3])).log_prob(lib.tensor([0.5])),
    "cdf-uniform-out": lambda lib, D: D.Uniform(0.0, 1.0).cdf(lib.tensor([1.5])),
    "transformed-list": lambda lib, D: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]),
    "transformed-type": lambda lib, D: D.TransformedDistribution(D.Normal(0.0, 1.0), 3),
    "transformed-event": lambda lib, D: D.TransformedDistribution(D.Normal(0.0, 1.0),
                                                                  D.StickBreakingTransform()),
    "enumerate-independent": lambda lib, D: D.Independent(D.Bernoulli(lib.ones(2, 2) / 2),
                                                          1).enumerate_support(),
    "onehot-inner-validation": lambda lib, D: D.OneHotCategorical(lib.tensor([0.5, -0.5, 1.0]),
                                                                  validate_args=False),
    "set-default-validate": lambda lib, D: D.Distribution.set_default_validate_args(2),
    "mode-not-implemented": lambda lib, D: D.Distribution().mode,
    "expand-custom-init": lambda lib, D: type("N2", (D.Normal,), {"__init__": lambda self: D.Normal.__init__(
        self, 0.0, 1.0)})().expand((2,)),
    "no-arg-constraints-ok": lambda lib, D: repr(D.Distribution(validate_args=False)),
    "cache-size": lambda lib, D: D.ExpTransform(cache_size=2),
    "reshape-numel": lambda lib, D: D.ReshapeTransform((2, 3), (4,)),
    "reshape-shape": lambda lib, D: D.ReshapeTransform((2, 3), (6,)).forward_shape((4, 3, 2)),
    "corrchol-shape": lambda lib, D: D.CorrCholeskyTransform().forward_shape((4,)),
    "corrchol-square": lambda lib, D: D.CorrCholeskyTransform().inverse_shape((3, 2)),
    "stick-shape": lambda lib, D: D.StickBreakingTransform().forward_shape(()),
    "event-dim-mismatch": lambda lib, D: D.StickBreakingTransform().inv.inv.event_dim,
    "biject-unknown": lambda lib, D: D.biject_to(D.constraints.lower_cholesky),
    "register-bad": lambda lib, D: D.transform_to.register(int, lambda c: None),
    "dependent-check": lambda lib, D: D.constraints.dependent.check(lib.ones(1)),
    "dependent-event-dim": lambda lib, D: D.constraints.dependent.event_dim,
    "independent-check-dim": lambda lib, D: D.constraints.independent(D.constraints.real,
                                                                      2).check(lib.ones(3)),
    "vec-to-tril": lambda lib, D: D.utils.vec_to_tril_matrix(lib.ones(4)),
    "tril-to-vec-diag": lambda lib, D: D.utils.tril_matrix_to_vec(lib.ones(3, 3), diag=3),
    "broadcast-all": lambda lib, D: D.utils.broadcast_all(lib.ones(2), "a"),
    "broadcast-all-shapes": lambda lib, D: D.utils.broadcast_all(lib.ones(2), lib.ones(3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ERRORS[name](lib, lib.distributions)
    both(fn)


def test_validation_full_message():
    """The whole message, including the tensors printed in it."""
    msgs = []
    for lib in LIBS:
        with pytest.raises(ValueError) as e:
            lib.distributions.Normal(lib.tensor([0.0, 1.0]), lib.tensor([[1.0, -1.0]]))
        msgs.append(str(e.value))
        with pytest.raises(ValueError) as e:
            lib.distributions.Exponential(lib.tensor(2.0)).log_prob(lib.tensor([1.0, -2.0]))
        msgs.append(str(e.value))
    assert msgs[:2] == msgs[2:]


def test_validate_args_switches():
    for lib in LIBS:
        D = lib.distributions
        d = D.Normal(lib.tensor([0.0]), lib.tensor([-1.0]), validate_args=False)
        assert d.log_prob(lib.tensor([-1.0])).isnan().all()
        D.Distribution.set_default_validate_args(False)
        try:
            D.Normal(0.0, -1.0)
            assert not D.Normal(0.0, 1.0)._validate_args
        finally:
            D.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            D.Normal(0.0, -1.0)


def test_arg_constraints_warning():
    for lib in LIBS:
        class Mine(lib.distributions.Distribution):
            pass
        with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
            Mine()
        with pytest.warns(UserWarning, match="does not define `support`"):
            Mine(validate_args=True)._validate_sample(lib.ones(1))


def test_sample_n_and_shapes():
    for lib in LIBS:
        D = lib.distributions
        with pytest.warns(FutureWarning, match="will be deprecated. Use `sample"):
            assert tuple(D.Normal(lib.zeros(2), 1.0).sample_n(3).shape) == (3, 2)
        d = D.Normal(lib.zeros(2, 1), lib.ones(3))
        assert tuple(d._extended_shape((4,))) == (4, 2, 3)
        assert not d.sample().requires_grad
        assert d.rsample().shape == (2, 3)


def test_independent_and_transformed():
    def fn(lib):
        D = lib.distributions
        base = D.Normal(_t(lib, P23), _t(lib, POS23))
        ind = D.Independent(base, 1)
        td = D.TransformedDistribution(base, [D.ExpTransform(), D.AffineTransform(1.0, _t(lib, POS23[0]))])
        ind2 = D.TransformedDistribution(D.Normal(_t(lib, P23), 1.0), D.StickBreakingTransform())
        tdi = D.TransformedDistribution(D.Uniform(0.0, 1.0), [D.SigmoidTransform().inv])
        v = _t(lib, XPOS23 + 1.0)
        y = ind2.transforms[0](_t(lib, X23))
        return (ind.log_prob(_t(lib, X23)), ind.entropy(), ind.batch_shape, ind.event_shape, repr(ind),
                repr(ind.support), ind.expand((4, 2)).batch_shape, td.log_prob(v), td.cdf(v),
                td.icdf(_t(lib, U23)),
                td.batch_shape, td.event_shape, repr(td.support), ind2.log_prob(y), ind2.batch_shape,
                ind2.event_shape, tdi.log_prob(_t(lib, X23)), tdi.cdf(_t(lib, X23)),
                td.expand((5, 2, 3)).batch_shape,
                D.LogNormal(_t(lib, P23), _t(lib, POS23)).expand((2, 2, 3)).log_prob(v))
    both(fn, rtol=2e-5, atol=2e-6)


# ---- transforms --------------------------------------------------------------------------------------------
def _transforms(lib):
    T = lib.distributions.transforms
    loc, scale = _t(lib, P23), _t(lib, POS23)
    return {
        "exp": (T.ExpTransform(), X23), "power": (T.PowerTransform(_t(lib, POS23)), XPOS23),
        "power-scalar": (T.PowerTransform(2.5), XPOS23),
        "sigmoid": (T.SigmoidTransform(), X23), "tanh": (T.TanhTransform(), X23),
        "softplus": (T.SoftplusTransform(), X23), "abs": (T.AbsTransform(), X23),
        "affine": (T.AffineTransform(loc, scale), X23), "affine-scalar": (T.AffineTransform(1.5, -2.0), X23),
        "affine-event": (T.AffineTransform(loc, scale, event_dim=1), X23),
        "affine-event2": (T.AffineTransform(0.5, 3.0, event_dim=2), X23),
        "softmax": (T.SoftmaxTransform(), X23), "stick": (T.StickBreakingTransform(), X23),
        "corr-chol": (T.CorrCholeskyTransform(), X23),
        "lower-chol": (T.LowerCholeskyTransform(), RNG.normal(size=(2, 3, 3)) if lib is torch else None),
        "pos-def": (T.PositiveDefiniteTransform(), None),
        "compose": (T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform(),
                                        T.PowerTransform(0.5)]),
                    X23),
        "compose-stick": (T.ComposeTransform([T.ExpTransform().inv, T.StickBreakingTransform()]), XPOS23),
        "independent": (T.IndependentTransform(T.SigmoidTransform(), 1), X23),
        "reshape": (T.ReshapeTransform((3,), (3, 1)), X23),
        "cat": (T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=1, lengths=[1, 2]), X23),
        "cat-event": (T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1), T.SigmoidTransform()],
                                     dim=-1, lengths=[2, 1]), X23),
        "stack": (T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=0), X23),
        "cdf": (T.CumulativeDistributionTransform(lib.distributions.Normal(loc, scale)), X23),
        "identity": (T.identity_transform, X23),
        "inv-sigmoid": (T.SigmoidTransform().inv, U23),
        "cached": (T.TanhTransform(cache_size=1), X23),
    }


TRANSFORMS = sorted(_transforms(torch))
_LOWER = RNG.normal(size=(2, 3, 3))


def _x_for(name, x):
    return _LOWER if name in ("lower-chol", "pos-def") else x


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transform(name):
    def fn(lib):
        t, x = _transforms(lib)[name]
        x = _t(lib, _x_for(name, x), "float64", grad=True)
        y = t(x)
        out = [y, t.inv(y), repr(t), repr(t.domain), repr(t.codomain), t.bijective,
               t.forward_shape(x.shape), t.inverse_shape(y.shape), t == t, t != t.inv, t.inv.inv is t]
        if t.bijective and name not in ("lower-chol", "pos-def"):
            ladj = t.log_abs_det_jacobian(x, y)
            out += [ladj, lib.autograd.grad(ladj.sum() + y.sum(), [x])[0]]
        try:
            out.append(t.sign)
        except NotImplementedError as e:
            out.append(repr(e))
        try:
            out.append(t.event_dim)
        except ValueError as e:
            out.append(str(e))
        return out
    both(fn, rtol=1e-6, atol=1e-9)


def test_transform_caching():
    for lib in LIBS:
        T = lib.distributions.transforms
        t = T.ExpTransform(cache_size=1)
        x = lib.randn(3)
        y = t(x)
        assert t(x) is y and t.inv(y) is x
        assert t.with_cache(1) is t and t.with_cache(0)._cache_size == 0
        c = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], cache_size=1)
        assert all(p._cache_size == 1 for p in c.parts)
        assert c.inv.inv is c and c.with_cache(0)._cache_size == 0
        with pytest.raises(TypeError, match="unhashable"):
            hash(T.ExpTransform())
        assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
        assert T.AffineTransform(lib.ones(2), 2.0) != T.AffineTransform(lib.zeros(2), 2.0)
        assert T.PowerTransform(lib.tensor(2.0)) == T.PowerTransform(2.0)


CONSTRAINTS = {
    "real": lambda C, lib: C.real,
    "positive": lambda C, lib: C.positive,
    "nonnegative": lambda C, lib: C.nonnegative,
    "greater_than": lambda C, lib: C.greater_than(1.5),
    "greater_than_eq": lambda C, lib: C.greater_than_eq(-1.0),
    "less_than": lambda C, lib: C.less_than(0.5),
    "interval": lambda C, lib: C.interval(-1.0, 2.0),
    "unit_interval": lambda C, lib: C.unit_interval,
    "half_open": lambda C, lib: C.half_open_interval(0.0, 1.0),
    "simplex": lambda C, lib: C.simplex,
    "real_vector": lambda C, lib: C.real_vector,
    "independent": lambda C, lib: C.independent(C.positive, 1),
    "corr_cholesky": lambda C, lib: C.corr_cholesky,
    "lower_cholesky": lambda C, lib: C.lower_cholesky,
    "positive_definite": lambda C, lib: C.positive_definite,
    "cat": lambda C, lib: C.cat([C.positive, C.real], dim=-1, lengths=[1, 2]),
    "stack": lambda C, lib: C.stack([C.positive, C.unit_interval], dim=0),
    "interval-tensor": lambda C, lib: C.interval(lib.tensor([0.0, 1.0]), lib.tensor([2.0, 5.0])),
}


@pytest.mark.parametrize("reg", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraint_registry(reg, name):
    def fn(lib):
        C = lib.distributions.constraints
        c = CONSTRAINTS[name](C, lib)
        t = getattr(lib.distributions, reg)(c)
        shape = {"corr_cholesky": (2, 3), "lower_cholesky": (2, 3, 3), "positive_definite": (2, 3, 3),
                 "stack": (2, 3), "interval-tensor": (3, 2)}.get(name, (2, 3))
        x = _t(lib, np.random.default_rng(5).normal(size=shape), "float64")
        y = t(x)
        return repr(t), y, bool(c.check(y).all()), c.event_dim, c.is_discrete, repr(c)
    both(fn, rtol=1e-6, atol=1e-9)


CHECKS = {
    "boolean": ("boolean", [[0.0, 1.0, 0.5]]), "one_hot": ("one_hot", [[[0.0, 1.0], [1.0, 1.0]]]),
    "nonnegative_integer": ("nonnegative_integer", [[0.0, 1.5, -1.0, 3.0]]),
    "positive_integer": ("positive_integer", [[0.0, 1.0, 2.0]]),
    "integer_interval": ("integer_interval", [[0.0, 2.0, 3.0, 1.5]], 0, 2),
    "real": ("real", [[float("nan"), 1.0, float("inf")]]), "positive": ("positive", [[0.0, 1.0]]),
    "simplex": ("simplex", [[[0.5, 0.5], [0.2, 0.7]]]),
    "multinomial": ("multinomial", [[[1.0, 2.0], [3.0, 1.0]]], 3),
    "lower_triangular": ("lower_triangular", [[[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]]]]),
    "lower_cholesky": ("lower_cholesky", [[[[1.0, 0.0], [2.0, 3.0]], [[-1.0, 0.0], [0.0, 1.0]]]]),
    "corr_cholesky": ("corr_cholesky", [[[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.5, 0.5]]]]),
    "square": ("square", [[[1.0, 2.0, 3.0]]]), "symmetric": ("symmetric", [[[[1.0, 2.0], [2.0, 1.0]],
                                                                              [[1.0, 2.0], [0.0, 1.0]]]]),
    "positive_definite": ("positive_definite", [[[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]]]),
    "positive_semidefinite": ("positive_semidefinite",
                              [[[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]]),
    "mixture": ("MixtureSameFamilyConstraint", [[[0.5, 0.5], [0.1, 0.2]]], "simplex"),
    "less_than": ("less_than", [[1.0, 2.0]], 1.5),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_constraint_check(name):
    def fn(lib):
        C = lib.distributions.constraints
        cname, (v,), *args = CHECKS[name]
        c = getattr(C, cname)
        if args:
            c = c(*[getattr(C, a) if isinstance(a, str) else a for a in args])
        r = c.check(_t(lib, v))
        return r, repr(c), c.event_dim, c.is_discrete
    both(fn)


def test_utils():
    def fn(lib):
        U = lib.distributions.utils
        m = _t(lib, _LOWER)
        v = U.tril_matrix_to_vec(m)
        return (U.broadcast_all(_t(lib, P23), 1.0, _t(lib, P23[0], "float64")), U.broadcast_all(1, 2.5),
                U.logits_to_probs(_t(lib, LOGITS24)), U.logits_to_probs(_t(lib, P23), is_binary=True),
                U.probs_to_logits(_t(lib, PROBS24 / PROBS24.sum(-1, keepdims=True))),
                U.probs_to_logits(_t(lib, [0.0, 0.5, 1.0]), is_binary=True),
                U.clamp_probs(_t(lib, [0.0, 1.0])), v, U.vec_to_tril_matrix(v),
                U.tril_matrix_to_vec(m, diag=-1),
                U.vec_to_tril_matrix(v[..., :3], diag=-1),
                U.tril_matrix_to_vec(m, diag=1), U.euler_constant)
    both(fn)


def test_lazy_property():
    for lib in LIBS:
        D = lib.distributions
        d = D.Bernoulli(logits=lib.tensor([0.0, 1.0]))
        assert "probs" not in d.__dict__
        _ = d.probs
        assert "probs" in d.__dict__
        assert isinstance(D.Bernoulli.probs, D.utils.lazy_property)
        assert isinstance(D.Bernoulli.probs, property)


def test_namespace():
    """Every name of torch.distributions this part provides exists; the modules are PyTorch's."""
    import torch.distributions as TD
    mine = ["Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "ExponentialFamily",
            "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "Laplace", "LogNormal",
            "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "Uniform",
            "TransformedDistribution", "biject_to", "kl_divergence", "register_kl", "transform_to"]
    for n in mine + TD.transforms.__all__:
        assert hasattr(torchshim.distributions, n), n
    for n in TD.constraints.__all__:
        assert hasattr(torchshim.distributions.constraints, n), n
    assert torchshim.distributions.Normal.__module__ == "torchshim.distributions.normal"
    for n in TD.utils.__all__:
        assert hasattr(torchshim.distributions.utils, n), n


def test_traces_under_jit():
    """log_prob/rsample/entropy/kl run on jax tracers (validate_args=False: validation reads values)."""
    import jax

    def f(loc, scale, x):
        D = torchshim.distributions
        loc, scale, x = (torchshim.as_tensor(a) for a in (loc, scale, x))
        n = D.Normal(loc, scale, validate_args=False)
        c = D.Categorical(logits=loc, validate_args=False)
        td = D.TransformedDistribution(n, [D.SigmoidTransform()], validate_args=False)
        return (n.log_prob(x) + n.entropy() + D.kl_divergence(n, D.Normal(0.0, 1.0, validate_args=False))
                + c.log_prob(torchshim.tensor(1)) + td.log_prob(torchshim.sigmoid(x)))._value
    args = [np.float32(P23[0]), np.float32(POS23[0]), np.float32(X23[0])]
    eager = f(*args)
    jitted = jax.jit(f)(*args)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-5)


@pytest.mark.slow
def test_traces_under_jit_wide():
    """More paths under jax.jit: transforms (forward, inverse, log-det), KL pairs written with `where`,
    log_prob of the discrete and transformed distributions, Bregman entropy; rsample/sample run traced."""
    import jax
    D = torchshim.distributions
    T = D.transforms
    kw = dict(validate_args=False)

    def f(x):
        x = torchshim.as_tensor(x)
        p = torchshim.sigmoid(x)
        out = []
        for t in [T.CorrCholeskyTransform(), T.StickBreakingTransform(), T.SoftmaxTransform(),
                  T.TanhTransform(),
                  T.PowerTransform(2.0), T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=-1,
                                                        lengths=[1, 2]),
                  T.StackTransform([T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform()], dim=0)]:
            y = t(x)
            out += [y.sum(), t.inv(y).sum()] + ([t.log_abs_det_jacobian(x, y).sum()] if t.bijective else [])
        kl = D.kl_divergence
        out += [kl(D.Bernoulli(p[0], **kw), D.Bernoulli(p[1], **kw)),
                kl(D.Categorical(p, **kw), D.Categorical(p.flip(-1), **kw)),
                kl(D.Uniform(x - 1, x + 1, **kw), D.Uniform(x - 2, x + 3, **kw)).sum(),
                kl(D.Poisson(p, **kw), D.Poisson(p + 1, **kw)).sum(),
                D.Geometric(p, **kw).log_prob(torchshim.ones(3)).sum(),
                D.Gumbel(x, 1.0, **kw).log_prob(x).sum(),
                D.HalfNormal(p, **kw).log_prob(p).sum(), D.Poisson(p, **kw).log_prob(torchshim.ones(3)).sum(),
                D.Bernoulli(logits=x, **kw).mode.sum(), D.HalfCauchy(p, **kw).log_prob(p).sum(),
                D.Independent(D.Normal(x, p, **kw), 1, **kw).log_prob(x),
                D.ExponentialFamily.entropy(D.Normal(x, p, **kw)).sum()]
        draws = [D.LogNormal(x, 1.0, **kw).rsample((2,)), D.Laplace(x, 1.0, **kw).rsample(),
                 D.Exponential(p, **kw).rsample(), D.Cauchy(x, 1.0, **kw).rsample(),
                 D.Geometric(p, **kw).sample(), D.Uniform(x - 1, x + 1, **kw).rsample()]
        return [o._value for o in out], [d._value for d in draws]
    x = np.float32(X23[0])
    (a, _), (b, draws) = f(x), jax.jit(f)(x)
    np.testing.assert_allclose(np.array(b), np.array(a), rtol=1e-4, atol=1e-6)  # float32, fused differently
    assert all(np.isfinite(np.asarray(d)).all() for d in draws)
