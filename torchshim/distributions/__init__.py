"""`torch.distributions`: probability distributions, constraints, transforms, constraint registries and KL
divergences, written on torchshim's public API as PyTorch's own package is written on torch's.

Differences from PyTorch: validation (`validate_args`, on by default) reads its checks on the host, so
under jax tracing pass `validate_args=False` (PyTorch syncs there too); random streams differ (the same
distributions, drawn from torchshim's generator: `torch.manual_seed` makes them reproducible)."""
from . import constraints, transforms  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "ExponentialFamily", "Geometric",
    "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "Laplace", "LogNormal", "Normal",
    "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "Uniform", "TransformedDistribution",
    "biject_to", "kl_divergence", "register_kl", "transform_to",
]
__all__.extend(transforms.__all__)

# The other distributions (Beta, Gamma, MultivariateNormal, ...; one module each, PyTorch's module names) and
# their KL pairs (`_kl_more.py`, registered with `register_kl`) are imported HERE, each adding its names to
# __all__; keep `_add_kl_info()` last.

from .beta import Beta  # noqa: E402
from .binomial import Binomial  # noqa: E402
from .chi2 import Chi2  # noqa: E402
from .continuous_bernoulli import ContinuousBernoulli  # noqa: E402
from .dirichlet import Dirichlet  # noqa: E402
from .fishersnedecor import FisherSnedecor  # noqa: E402
from .gamma import Gamma  # noqa: E402
from .generalized_pareto import GeneralizedPareto  # noqa: E402
from .inverse_gamma import InverseGamma  # noqa: E402
from .kumaraswamy import Kumaraswamy  # noqa: E402
from .lkj_cholesky import LKJCholesky  # noqa: E402
from .logistic_normal import LogisticNormal  # noqa: E402
from .lowrank_multivariate_normal import LowRankMultivariateNormal  # noqa: E402
from .mixture_same_family import MixtureSameFamily  # noqa: E402
from .multinomial import Multinomial  # noqa: E402
from .multivariate_normal import MultivariateNormal  # noqa: E402
from .negative_binomial import NegativeBinomial  # noqa: E402
from .pareto import Pareto  # noqa: E402
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli  # noqa: E402,F401
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical  # noqa: E402,F401
from .studentT import StudentT  # noqa: E402
from .von_mises import VonMises  # noqa: E402
from .weibull import Weibull  # noqa: E402
from .wishart import Wishart  # noqa: E402
from . import _kl_more  # noqa: E402,F401  (KL pairs of the distributions above)
__all__ += ["Beta", "Binomial", "Chi2", "ContinuousBernoulli", "Dirichlet", "FisherSnedecor", "Gamma",
            "GeneralizedPareto", "InverseGamma", "Kumaraswamy", "LKJCholesky", "LogisticNormal",
            "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
            "NegativeBinomial", "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
            "VonMises",
            "Weibull", "Wishart"]

from .kl import _add_kl_info  # noqa: E402

_add_kl_info()
del _add_kl_info
