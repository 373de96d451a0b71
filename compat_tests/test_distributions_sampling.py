"""torch.distributions sampling, checked statistically (the random streams differ from PyTorch's): many
draws from torchshim, compared with real torch's mean/variance (z-scores of the sample moments), cdf
(Kolmogorov-Smirnov distance) or probability mass (per-value frequencies). Bounds are loose (p ~ 1e-6 per
check) so the tests do not flake; seeds are fixed anyway. Reproducibility under torch.manual_seed too."""
import numpy as np
import pytest
import torch

import torchshim

N = 20000
Z = 5.0  # z-score bound


def _pair(cls, **params):
    ts = {k: torchshim.tensor(np.asarray(v, dtype=np.float64)) for k, v in params.items()}
    rs = {k: torch.tensor(np.asarray(v, dtype=np.float64)) for k, v in params.items()}
    return getattr(torchshim.distributions, cls)(**ts), getattr(torch.distributions, cls)(**rs)


def _moments(x, ref, rsample):
    """x: (N, *batch) draws; ref: the torch distribution. Mean and variance within Z standard errors."""
    x = np.asarray(x, dtype=np.float64)
    mu, var = ref.mean.numpy(), ref.variance.numpy()
    m = x.mean(0)
    assert np.all(np.abs(m - mu) < Z * np.sqrt(var / len(x))), (m, mu)
    s2 = x.var(0)
    m4 = ((x - mu) ** 4).mean(0)
    se = np.sqrt(np.maximum(m4 - var ** 2, 1e-30) / len(x))
    assert np.all(np.abs(s2 - var) < Z * se + 1e-12), (s2, var)


def _ks(x, ref):
    """Kolmogorov-Smirnov distance of each batch element's draws to torch's cdf, below the p=1e-6 bound."""
    x = np.sort(np.asarray(x, dtype=np.float64), axis=0)
    n = len(x)
    cdf = ref.cdf(torch.tensor(x)).numpy()
    ecdf_hi = np.arange(1, n + 1).reshape((n,) + (1,) * (x.ndim - 1)) / n
    d = np.maximum(np.abs(ecdf_hi - cdf), np.abs(ecdf_hi - 1 / n - cdf)).max(0)
    assert np.all(d < 2.7 / np.sqrt(n)), d


CONTINUOUS = {
    "Normal": dict(loc=[0.0, 2.0], scale=[1.0, 0.5]),
    "Uniform": dict(low=[0.0, -2.0], high=[1.0, 3.0]),
    "Exponential": dict(rate=[0.5, 3.0]),
    "Laplace": dict(loc=[0.0, 1.0], scale=[1.0, 2.0]),
    "Cauchy": dict(loc=[0.0, 1.0], scale=[1.0, 2.0]),
    "HalfCauchy": dict(scale=[1.0, 2.0]),
    "HalfNormal": dict(scale=[1.0, 2.0]),
    "LogNormal": dict(loc=[0.0, 0.5], scale=[0.5, 0.25]),
    "Gumbel": dict(loc=[0.0, 1.0], scale=[1.0, 2.0]),
}
NO_MOMENTS = ("Cauchy", "HalfCauchy")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_continuous(name, method):
    torchshim.manual_seed(0)
    d, ref = _pair(name, **CONTINUOUS[name])
    x = getattr(d, method)((N,))
    assert tuple(x.shape) == (N, 2) and str(x.dtype) == "torch.float64"
    if name not in NO_MOMENTS:
        _moments(x.numpy(), ref, method == "rsample")
    if name != "Gumbel":
        _ks(x.numpy(), ref)
    else:  # Gumbel's cdf: exp(-exp(-(x - loc) / scale))
        loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
        xs = np.sort(x.numpy(), 0)
        cdf = np.exp(-np.exp(-(xs - loc) / scale))
        e = np.arange(1, N + 1)[:, None] / N
        assert np.all(np.abs(e - cdf).max(0) < 2.7 / np.sqrt(N))


def _pmf_check(x, ref, support):
    """Each value's frequency within Z standard errors of torch's probability."""
    x = np.asarray(x)
    n = len(x)
    for v in support:
        p = ref.log_prob(torch.full(x.shape[1:], float(v), dtype=torch.float64)).exp().numpy()
        f = (x == v).mean(0)
        assert np.all(np.abs(f - p) < Z * np.sqrt(p * (1 - p) / n) + 1e-12), (v, f, p)


@pytest.mark.slow
@pytest.mark.parametrize("name,params,support", [
    ("Bernoulli", dict(probs=[0.2, 0.7]), [0, 1]),
    ("Bernoulli", dict(logits=[-1.0, 2.0]), [0, 1]),
    ("Geometric", dict(probs=[0.3, 0.8]), range(8)),
    ("Geometric", dict(logits=[0.0, -1.0]), range(8)),
    ("Poisson", dict(rate=[0.5, 4.0]), range(10)),
    ("Poisson", dict(rate=[30.0, 100.0]), range(20, 110, 10)),
], ids=["Bernoulli-probs", "Bernoulli-logits", "Geometric-probs", "Geometric-logits", "Poisson-small",
        "Poisson-large"])
def test_discrete(name, params, support):
    torchshim.manual_seed(1)
    d, ref = _pair(name, **params)
    x = d.sample((N,))
    assert tuple(x.shape) == (N, 2) and str(x.dtype) == "torch.float64"
    _moments(x.numpy(), ref, False)
    _pmf_check(x.numpy(), ref, support)


@pytest.mark.slow
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_categorical(param):
    torchshim.manual_seed(2)
    v = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    kw = {param: v if param == "probs" else np.log(v) + 0.3}
    d, ref = _pair("Categorical", **kw)
    x = d.sample((N,))
    assert tuple(x.shape) == (N, 2) and str(x.dtype) == "torch.int64"
    freq = np.stack([(x.numpy() == k).mean(0) for k in range(4)], -1)
    p = ref.probs.numpy()
    assert np.all(np.abs(freq - p) < Z * np.sqrt(p * (1 - p) / N))
    oh, _ = _pair("OneHotCategorical", **kw)
    y = oh.sample((N,)).numpy()
    assert y.shape == (N, 2, 4) and np.all(y.sum(-1) == 1)
    assert np.all(np.abs(y.mean(0) - p) < Z * np.sqrt(p * (1 - p) / N))


@pytest.mark.slow
def test_independent_transformed():
    torchshim.manual_seed(3)
    D = torchshim.distributions
    base = D.Normal(torchshim.tensor([0.0, 1.0], dtype=torchshim.float64),
                    torchshim.tensor([1.0, 0.5], dtype=torchshim.float64))
    x = D.Independent(base, 1).rsample((N,)).numpy()
    assert x.shape == (N, 2)
    _moments(x, torch.distributions.Normal(torch.tensor([0.0, 1.0], dtype=torch.float64),
                                           torch.tensor([1.0, 0.5], dtype=torch.float64)), True)
    td = D.TransformedDistribution(base, [D.AffineTransform(1.0, 2.0), D.ExpTransform()])
    ref = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(torch.tensor([0.0, 1.0], dtype=torch.float64),
                                   torch.tensor([1.0, 0.5], dtype=torch.float64)),
        [torch.distributions.AffineTransform(1.0, 2.0), torch.distributions.ExpTransform()])
    _ks(td.sample((N,)).numpy(), ref)


def _dists():
    D, T = torchshim.distributions, torchshim
    one, p = T.ones(3), T.ones(3) / 2
    return [D.Normal(T.zeros(3), 1.0), D.Uniform(0.0, one), D.Bernoulli(p), D.Exponential(one),
            D.Laplace(0.0, one), D.Cauchy(0.0, one), D.Gumbel(0.0, one), D.Geometric(p), D.HalfNormal(one),
            D.LogNormal(0.0, one), D.HalfCauchy(one), D.Categorical(T.ones(3, 4)), D.Poisson(one),
            D.OneHotCategorical(T.ones(3, 4))]


CHEAP = 4  # the first few compile in well under a second: the default session runs those


@pytest.mark.parametrize("which", [
    pytest.param(slice(0, CHEAP), id="cheap"),
    pytest.param(slice(CHEAP, None), id="rest", marks=pytest.mark.slow)])
def test_reproducible_with_manual_seed(which):
    """Draws come from torchshim's default generator: the same seed gives the same draws."""
    for d in _dists()[which]:
        torchshim.manual_seed(7)
        a = d.sample((4,))
        torchshim.manual_seed(7)
        b = d.sample((4,))
        c = d.sample((4,))
        name = type(d).__name__
        assert torchshim.equal(a, b), name
        assert a.shape == (4,) + tuple(d.batch_shape) + tuple(d.event_shape)
        if name not in ("Bernoulli", "Categorical", "OneHotCategorical", "Geometric", "Poisson"):
            assert not torchshim.equal(a, c), name
