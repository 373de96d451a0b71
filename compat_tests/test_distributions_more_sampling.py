"""Statistical checks of the samplers of test_distributions_more.py's distributions: sample means and
variances of many draws within 5 standard errors of the analytic moments (which test_distributions_more.py
checks against PyTorch), and reparameterisation gradients whose average equals the derivative of the mean."""
import numpy as np
import pytest

import torchshim as T

N = 20000
D = T.distributions

CASES = {
    "Gamma": lambda: D.Gamma(T.tensor([0.3, 2.5]), T.tensor([1.0, 3.0])),
    "Chi2": lambda: D.Chi2(T.tensor([3.0])),
    "Beta": lambda: D.Beta(T.tensor([0.5, 2.0]), T.tensor([3.0, 2.0])),
    "Dirichlet": lambda: D.Dirichlet(T.tensor([0.5, 1.0, 3.0])),
    "Binomial": lambda: D.Binomial(10, T.tensor([0.2, 0.7])),
    "NegativeBinomial": lambda: D.NegativeBinomial(T.tensor([3.0]), T.tensor([0.4])),
    "Multinomial": lambda: D.Multinomial(5, T.tensor([0.2, 0.3, 0.5])),
    "InverseGamma": lambda: D.InverseGamma(T.tensor([5.0]), T.tensor([2.0])),
    "Kumaraswamy": lambda: D.Kumaraswamy(T.tensor([2.0]), T.tensor([3.0])),
    "Weibull": lambda: D.Weibull(T.tensor([1.5]), T.tensor([2.0])),
    "Pareto": lambda: D.Pareto(T.tensor([1.0]), T.tensor([5.0])),
    "StudentT": lambda: D.StudentT(T.tensor([6.0]), T.tensor([1.0]), T.tensor([2.0])),
    "FisherSnedecor": lambda: D.FisherSnedecor(T.tensor([6.0]), T.tensor([12.0])),
    "ContinuousBernoulli": lambda: D.ContinuousBernoulli(T.tensor([0.2, 0.8])),
    "VonMises": lambda: D.VonMises(T.tensor([0.5]), T.tensor([4.0])),
    "MultivariateNormal": lambda: D.MultivariateNormal(T.tensor([1.0, -1.0]),
                                                       T.tensor([[2.0, 0.5], [0.5, 1.0]])),
    "LowRankMultivariateNormal": lambda: D.LowRankMultivariateNormal(T.zeros(2), T.tensor([[1.0], [0.5]]),
                                                                     T.tensor([0.5, 1.0])),
    "GeneralizedPareto": lambda: D.GeneralizedPareto(T.tensor([0.0]), T.tensor([1.0]), T.tensor([0.1])),
    "Wishart": lambda: D.Wishart(T.tensor(5.0), T.tensor([[1.0, 0.3], [0.3, 2.0]])),
    "Mixture": lambda: D.MixtureSameFamily(D.Categorical(T.tensor([0.3, 0.7])),
                                           D.Normal(T.tensor([-2.0, 1.0]), T.tensor([0.5, 1.0]))),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_moments(case):
    T.manual_seed(7)
    d = CASES[case]()
    x = d.sample((N,)).double().numpy()
    mean, var = d.mean.double().numpy(), d.variance.double().numpy()
    se = np.sqrt(var / N)
    assert np.all(np.abs(x.mean(0) - mean) < 5 * se + 1e-9), (x.mean(0), mean)
    # the sample variance's standard error from the sample's fourth moment
    if case == "VonMises":  # its variance is the circular variance 1 - E[cos(x - loc)]
        x = 1 - np.cos(x - d.loc.double().numpy())
        assert abs(x.mean() - var[0]) < 5 * x.std() / np.sqrt(N)
        return
    m4 = ((x - x.mean(0)) ** 4).mean(0)
    se_var = np.sqrt(np.maximum(m4 - var ** 2, 0) / N)
    assert np.all(np.abs(x.var(0) - var) < 6 * se_var + 1e-9), (x.var(0), var)


@pytest.mark.slow
def test_lkj_marginals():
    """Correlations of LKJCholesky(3, 2) samples: per-entry mean and variance against PyTorch's own sampler
    (its onion method's off-diagonal variances are not all the textbook 1 / (2 eta + d - 1))."""
    import torch
    torch.manual_seed(3)
    T.manual_seed(3)
    lr = torch.distributions.LKJCholesky(3, torch.tensor(2.0)).sample((N,)).double()
    lg = D.LKJCholesky(3, T.tensor(2.0)).sample((N,)).double()
    ref, got = (lr @ lr.mT).numpy(), (lg @ lg.mT).numpy()
    for i, j in ((1, 0), (2, 0), (2, 1)):
        r, g = ref[:, i, j], got[:, i, j]
        assert abs(g.mean() - r.mean()) < 5 * np.sqrt(2 * r.var() / N)
        assert abs(g.var() - r.var()) < 0.06 * r.var()
    assert np.allclose(np.diagonal(got, axis1=1, axis2=2), 1, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Gamma", "Beta", "Dirichlet"])
def test_reparameterised_gradient_mean(name):
    """E[d x / d theta] over many rsample draws equals d E[x] / d theta."""
    T.manual_seed(11)
    a = T.tensor([1.5, 0.7], dtype=T.float64, requires_grad=True)
    if name == "Gamma":
        d = D.Gamma(a, T.tensor([2.0, 1.0], dtype=T.float64))
    elif name == "Beta":
        d = D.Beta(a, T.tensor([2.0, 1.0], dtype=T.float64))
    else:
        d = D.Dirichlet(a)
    (g,) = T.autograd.grad(d.rsample((N,)).select(-1, 0).sum() / N if name == "Dirichlet"
                           else d.rsample((N,))[:, 0].sum() / N, a)
    (ref,) = T.autograd.grad(d.mean[..., 0].sum(), a)
    assert np.allclose(g.numpy(), ref.numpy(), rtol=0.05, atol=0.01), (g, ref)
