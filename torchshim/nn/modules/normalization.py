"""`nn.LayerNorm`, `nn.GroupNorm`, `nn.RMSNorm`, `nn.LocalResponseNorm` and `nn.CrossMapLRN2d` (ported from
PyTorch 2.13's torch/nn/modules/normalization.py). The affine `weight` starts at ones and `bias` at zeros.

CrossMapLRN2d runs PyTorch's legacy autograd Function (`_functions.py`), quirks included.

Example:
    >>> nn.LayerNorm([4, 5], bias=False)(torch.randn(3, 4, 5)).shape
    torch.Size([3, 4, 5])
"""
import numbers

from ..._api import empty
from .. import functional as F
from ..parameter import Parameter
from . import _init_helpers as init
from ._functions import CrossMapLRN2d as _cross_map_lrn2d
from .module import Module

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


class LocalResponseNorm(Module):
    """`LocalResponseNorm(size, alpha=0.0001, beta=0.75, k=1.0)`: x / (k + alpha/size * sum of x^2 over `size`
    neighbouring channels)^beta."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(Module):
    """`CrossMapLRN2d(size, alpha=0.0001, beta=0.75, k=1)`: the legacy cross-channel LRN of a 4D input
    (PyTorch's autograd Function, quirks included; see the module docstring)."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """`LayerNorm(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None)`:
    normalise over the last len(normalized_shape) dims; weight/bias have shape normalized_shape."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """weight to 1, bias to 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(Module):
    """`GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None, *, bias=True)`:
    normalise each group of num_channels // num_groups channels over it and the spatial dims."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None, *,
                 bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.weight = Parameter(empty(num_channels, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(num_channels, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """weight to 1, bias to 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


class RMSNorm(Module):
    """`RMSNorm(normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None)`:
    x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) dims (eps None: the dtype's
    eps)."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """weight to 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(
            **self.__dict__)
