"""The activation layers (ported from PyTorch 2.13's torch/nn/modules/activation.py), each a thin module over
its `torch.nn.functional` function: same constructor arguments and defaults, `inplace=` where PyTorch has it,
`extra_repr`. PReLU owns a `weight` parameter (num_parameters,) filled with `init` (0.25). RReLU draws its
slopes in training with torchshim's RNG (same law as PyTorch, not the same numbers). MultiheadAttention, which
PyTorch keeps in this file, lives with the attention layers.

Example:
    >>> net = nn.Sequential(nn.Linear(4, 4), nn.GELU(approximate="tanh"), nn.Softmax(dim=-1))
    >>> net(torch.randn(2, 4)).shape
    torch.Size([2, 4])
"""
import warnings

from ..._api import empty, sigmoid, tanh
from .. import functional as F
from ..parameter import Parameter
from . import _init_helpers as _init
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU",
           "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid",
           "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d",
           "LogSoftmax"]


def _inplace_str(inplace, lead=""):
    return f"{lead}inplace=True" if inplace else ""


class Threshold(Module):
    """`Threshold(threshold, value, inplace=False)`: y = x if x > threshold else value."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_str(self.inplace, ', ')}"


class _InplaceOnly(Module):
    """An activation whose only argument is `inplace` (repr 'inplace=True' or nothing)."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return _inplace_str(self.inplace)


class ReLU(_InplaceOnly):
    """`ReLU(inplace=False)`: max(0, x)."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """`RReLU(lower=1/8, upper=1/3, inplace=False)`: randomized leaky ReLU; slopes drawn from U(lower, upper)
    in training, (lower + upper) / 2 in eval."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_str(self.inplace, ', ')}"


class Hardtanh(Module):
    """`Hardtanh(min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None)`: clamp to
    [min_val, max_val] (min_value/max_value are the deprecated names, with PyTorch's FutureWarning)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self.inplace, ', ')}"


class ReLU6(Hardtanh):
    """`ReLU6(inplace=False)`: Hardtanh(0, 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace)


class Sigmoid(Module):
    """`Sigmoid()`: 1 / (1 + exp(-x))."""

    def forward(self, input):
        return sigmoid(input)


class Hardsigmoid(Module):
    """`Hardsigmoid(inplace=False)`: relu6(x + 3) / 6 (no extra_repr, as PyTorch)."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """`Tanh()`."""

    def forward(self, input):
        return tanh(input)


class SiLU(_InplaceOnly):
    """`SiLU(inplace=False)`: x * sigmoid(x)."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceOnly):
    """`Mish(inplace=False)`: x * tanh(softplus(x))."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(Module):
    """`Hardswish(inplace=False)`: x * relu6(x + 3) / 6 (no extra_repr, as PyTorch)."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class _AlphaInplace(Module):
    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_str(self.inplace, ', ')}"


class ELU(_AlphaInplace):
    """`ELU(alpha=1.0, inplace=False)`: x if x > 0 else alpha * (exp(x) - 1)."""

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaInplace):
    """`CELU(alpha=1.0, inplace=False)`: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_InplaceOnly):
    """`SELU(inplace=False)`: scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """`GLU(dim=-1)`: a * sigmoid(b) for the two halves a, b of `input` along `dim`."""

    __constants__ = ["dim"]

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """`GELU(approximate='none')`: x * Phi(x) ('tanh': the tanh approximation)."""

    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """`Hardshrink(lambd=0.5)`: x if |x| > lambd else 0."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class LeakyReLU(Module):
    """`LeakyReLU(negative_slope=0.01, inplace=False)`."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_str(self.inplace, ', ')}"


class LogSigmoid(Module):
    """`LogSigmoid()`: log(sigmoid(x))."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """`Softplus(beta=1.0, threshold=20.0)`: log(1 + exp(beta * x)) / beta (linear above threshold)."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """`Softshrink(lambd=0.5)`: x - lambd, x + lambd or 0."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    """`PReLU(num_parameters=1, init=0.25, device=None, dtype=None)`: max(0, x) + weight * min(0, x), with a
    learnable weight (num_parameters,) initialised to `init` (one slope, or one per channel, dim 1)."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        """Fill the weight with `init`."""
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """`Softsign()`: x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """`Tanhshrink()`: x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    """`Softmax/Softmin/LogSoftmax(dim=None)` (dim None: PyTorch's implicit-dim choice, with its warning)."""

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return getattr(F, self._fn)(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """`Softmin(dim=None)`: softmax(-x) along `dim`."""

    _fn = "softmin"


class Softmax(_SoftmaxBase):
    """`Softmax(dim=None)`: exp(x) / sum(exp(x)) along `dim`."""

    _fn = "softmax"


class LogSoftmax(_SoftmaxBase):
    """`LogSoftmax(dim=None)`: log(softmax(x)) along `dim`."""

    _fn = "log_softmax"


class Softmax2d(Module):
    """`Softmax2d()`: softmax over the channels (dim -3) of a 3D or 4D input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)
