"""`torch.distributions.exp_family.ExponentialFamily`: distributions of the form
`p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))`; entropy by the Bregman divergence of the log
normalizer `F`, differentiated with torch.autograd."""
from ..autograd.engine_api import grad as _grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give `_natural_params`, `_log_normalizer(*natural_params)`, `_mean_carrier_measure`."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """`entropy()`: `F(theta) - <theta, grad F(theta)> - E[k(x)]`."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        grads = _grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for p, g in zip(nparams, grads):
            result -= (p * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
