"""`torch.special`: the special functions (gamma/zeta family, error functions, Bessel and Airy functions,
orthogonal polynomials, and the special spellings of top-level ops).

They are table ops registered under PyTorch's aten names (`special_erfcx`, ...; torchshim/ops/special.py and
special_poly.py), so they record autograd nodes, take `out=` and go through `__torch_function__`; this package
binds them under their `torch.special` names (`torch.special.erfcx.__name__ == "special_erfcx"`, as in
PyTorch).
"""
from .. import _api  # noqa: F401  (installs the op table)
from .._api import Tensor  # noqa: F401  (torch.special re-exports it)
from ..ops._registry import installed as _op

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
    "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
    "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
    "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]

for _name in __all__:
    globals()[_name] = _op("special_" + _name)
del _name
