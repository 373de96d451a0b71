"""`nn.Identity`, `nn.Linear`, `nn.Bilinear`, `nn.LazyLinear` (ported from PyTorch 2.13), with PyTorch's
default initialisation: Linear's weight `kaiming_uniform_(a=sqrt(5))` (U(-1/sqrt(fan_in), 1/sqrt(fan_in)))
and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)); Bilinear's weight and bias U(-1/sqrt(in1), 1/sqrt(in1)). The
draws come from torchshim's RNG: same distributions as PyTorch, not the same numbers."""
import math

from ..._api import empty
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter
from . import _init_helpers as init
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]


def _linear_f(*args):
    from ..functional import linear
    return linear(*args)


def _bilinear_f(*args):
    from ..functional import bilinear
    return bilinear(*args)


class Identity(Module):
    """`Identity(*args, **kwargs)`: returns its input (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """`Linear(in_features, out_features, bias=True, device=None, dtype=None)`: `y = x @ weight.T + bias`,
    weight (out_features, in_features), bias (out_features,)."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw weight (kaiming_uniform_, a=sqrt(5)) and bias (U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init.calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return _linear_f(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear that MultiheadAttention uses for its output projection (a marker class in PyTorch)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)


class Bilinear(Module):
    """`Bilinear(in1_features, in2_features, out_features, bias=True, device=None, dtype=None)`:
    `y = x1^T A x2 + b`, weight (out, in1, in2)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return _bilinear_f(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """`LazyLinear(out_features, bias=True, device=None, dtype=None)`: a Linear whose in_features is taken
    from the last dim of the first input; it then becomes a `Linear`."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        # bias is hardcoded to False to avoid creating tensor that will soon be overwritten.
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        """Initialize as Linear once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materialize weight (out_features, input.shape[-1]) and bias, then initialize them."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal "
                                     "to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]
