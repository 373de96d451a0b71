"""`torch.nn.functional` activations whose Python signature differs from the op table's aten form: `inplace=`
arguments, the implicit softmax dim, gumbel_softmax (random, built from public ops) and the in-place `*_`
functions. The computations are the table ops of torchshim/ops/nn_activation.py."""
import warnings

from ...ops import nn_activation as A
from ..._warnings import user_stacklevel
from ...ops._registry import installed

__all__ = ["relu", "relu_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu",
           "leaky_relu_", "hardtanh", "hardtanh_", "threshold", "threshold_", "rrelu", "rrelu_", "silu",
           "mish", "hardswish",
           "hardsigmoid", "softmax", "softmin", "log_softmax", "gumbel_softmax", "sigmoid", "tanh"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def relu(input, inplace=False):
    """`F.relu(input, inplace=False)`: max(0, x) (`torch.relu_` when inplace)."""
    return _torch().relu_(input) if inplace else _torch().relu(input)


def relu_(input):
    """`F.relu_(input)`: in-place relu."""
    return _torch().relu_(input)


def relu6(input, inplace=False):
    """`F.relu6(input, inplace=False)`: min(max(0, x), 6)."""
    return A.relu6_(input) if inplace else installed("relu6")(input)


def elu(input, alpha=1.0, inplace=False):
    """`F.elu(input, alpha=1.0, inplace=False)`."""
    return A.elu_(input, alpha) if inplace else installed("elu")(input, alpha)


def elu_(input, alpha=1.0):
    """`F.elu_(input, alpha=1.0)`: in-place elu (node EluBackward1, as PyTorch's)."""
    return A.elu_(input, alpha)


def selu(input, inplace=False):
    """`F.selu(input, inplace=False)`."""
    return _torch().selu_(input) if inplace else _torch().selu(input)


def selu_(input):
    """`F.selu_(input)`: in-place selu."""
    return _torch().selu_(input)


def celu(input, alpha=1.0, inplace=False):
    """`F.celu(input, alpha=1.0, inplace=False)`."""
    return _torch().celu_(input, alpha) if inplace else _torch().celu(input, alpha)


def celu_(input, alpha=1.0):
    """`F.celu_(input, alpha=1.0)`: in-place celu."""
    return _torch().celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """`F.leaky_relu(input, negative_slope=0.01, inplace=False)`."""
    return A.leaky_relu_(input, negative_slope) if inplace else installed("leaky_relu")(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """`F.leaky_relu_(input, negative_slope=0.01)`: in-place leaky_relu."""
    return A.leaky_relu_(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """`F.hardtanh(input, min_val=-1., max_val=1., inplace=False)`; min_val > max_val is a ValueError."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return A.hardtanh_(input, min_val, max_val) if inplace else installed("hardtanh")(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """`F.hardtanh_(input, min_val=-1., max_val=1.)`: in-place hardtanh (no min/max order check, as
    PyTorch's)."""
    return A.hardtanh_(input, min_val, max_val)


def threshold(input, threshold, value, inplace=False):
    """`F.threshold(input, threshold, value, inplace=False)`."""
    t = _torch()
    return t.threshold_(input, threshold, value) if inplace else t.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """`F.threshold_(input, threshold, value)`: in-place threshold."""
    return _torch().threshold_(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """`F.rrelu(input, lower=1/8, upper=1/3, training=False, inplace=False)`: randomized leaky ReLU (see
    `torch.rrelu`; torchshim's random stream)."""
    t = _torch()
    return t.rrelu_(input, lower, upper, training) if inplace else t.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """`F.rrelu_(input, lower=1/8, upper=1/3, training=False)`: in-place rrelu."""
    return _torch().rrelu_(input, lower, upper, training)


def silu(input, inplace=False):
    """`F.silu(input, inplace=False)`: x * sigmoid(x). Complex inputs requiring grad raise PyTorch's error."""
    if input.dtype.is_complex and input.requires_grad and _torch().is_grad_enabled():
        raise RuntimeError("silu does not support automatic differentiation for outputs with complex dtype.")
    return A.silu_(input) if inplace else installed("silu")(input)


def mish(input, inplace=False):
    """`F.mish(input, inplace=False)`: x * tanh(softplus(x))."""
    return A.mish_(input) if inplace else installed("mish")(input)


def hardswish(input, inplace=False):
    """`F.hardswish(input, inplace=False)`."""
    return A.hardswish_(input) if inplace else installed("hardswish")(input)


def hardsigmoid(input, inplace=False):
    """`F.hardsigmoid(input, inplace=False)`."""
    return A.hardsigmoid_(input) if inplace else installed("hardsigmoid")(input)


def _get_softmax_dim(name, ndim, stacklevel):
    # PyTorch's `_stacklevel` names the user's frame; torchshim finds it (its wrapper frames vary)
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=user_stacklevel())
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """`F.softmax(input, dim=None, _stacklevel=3, dtype=None)`: without dim, PyTorch's deprecation warning and
    its implicit choice (dim 0 for 0-, 1- and 3-d inputs, else 1)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return installed("softmax")(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """`F.softmin(input, dim=None, _stacklevel=3, dtype=None)`: softmax(-input)."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return installed("softmin")(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """`F.log_softmax(input, dim=None, _stacklevel=3, dtype=None)`."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return installed("log_softmax")(input, dim, dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """`F.gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1)`: softmax((logits + g) / tau) with
    g ~ Gumbel(0, 1) drawn from torchshim's generator (other numbers than PyTorch's); hard=True returns the
    one-hot of the argmax with the soft sample's gradient (straight-through)."""
    t = _torch()
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -t.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = t.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def sigmoid(input):
    """`F.sigmoid(input)`: `input.sigmoid()`."""
    return input.sigmoid()


def tanh(input):
    """`F.tanh(input)`: `input.tanh()`."""
    return input.tanh()
