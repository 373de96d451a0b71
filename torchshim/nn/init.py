"""`torch.nn.init`: parameter initializers, ported from PyTorch 2.13's torch/nn/init.py.

Every initializer writes in place under `no_grad` (so it works on Parameters that require grad) and returns
the tensor. Random ones accept `generator=`; draws come from torchshim's RNG: the same distributions as
PyTorch, not the same numbers (docs/rng.md).

Differences from PyTorch:
- `trunc_normal_` samples by the inverse CDF (in float64, then rounded to the tensor's dtype) instead of
  PyTorch's rejection loops: the same truncated normal, every value within [a, b], no host round trip, so it
  also runs under `jax.jit`.
- `sparse_` picks each column's zeroed rows with one `argsort` of uniform draws (a uniformly random subset per
  column, as PyTorch's per-column `randperm`) and, like PyTorch, does not use `generator` for that choice.
- `orthogonal_` computes the QR factorization with `jnp.linalg.qr`.
- No `__torch_function__` overrides, no meta tensors.

>>> w = torchshim.empty(3, 5)
>>> _ = kaiming_uniform_(w, mode="fan_in", nonlinearity="relu")
"""
import math
import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ..ops._dispatch import fresh
from ..ops.random import _nyi

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
    "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
    "sparse_",
    # deprecated aliases
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
    "kaiming_normal", "orthogonal", "sparse",
]


def _ts():
    from .. import _api as torchshim
    return torchshim


# ---- in-place fills without history ------------------------------------------------------------------------
def _no_grad_uniform_(tensor, a, b, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with no_grad():
        return tensor.zero_()


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
                      "values may "
                      "be incorrect.", stacklevel=3)
    torch = _ts()
    if not tensor.dtype.is_floating_point:  # PyTorch's first draw names its kernel
        p = (math.erf((b - mean) / std / math.sqrt(2.0)) - math.erf((a - mean) / std / math.sqrt(2.0))) / 2.0
        raise _nyi("normal_kernel_cpu" if p > 0.3 else "check_uniform_bounds", tensor.dtype)
    with no_grad():
        # standardized bounds; sample the tail nearer to -inf so the CDF keeps its precision far out
        lo, hi = (a - mean) / std, (b - mean) / std
        flip = lo > 0
        if flip:
            lo, hi = -hi, -lo
        cdf_lo = (1.0 + math.erf(lo / math.sqrt(2.0))) / 2.0
        cdf_hi = (1.0 + math.erf(hi / math.sqrt(2.0))) / 2.0
        u = torch.empty(tuple(tensor.shape), dtype=D.float64).uniform_(cdf_lo, cdf_hi, generator=generator)
        z = (u * 2 - 1).clamp_(-1.0, 1.0).erfinv_().mul_(math.sqrt(2.0)).clamp_(lo, hi)
        if flip:
            z = z.neg_()
        tensor.copy_(z.mul_(std).add_(mean).clamp_(a, b))
    return tensor


# ---- gains and fans ----------------------------------------------------------------------------------------
def calculate_gain(nonlinearity, param=None):
    """`calculate_gain(nonlinearity, param=None)`: the recommended gain for a nonlinearity ('linear',
    'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d/2d/3d', 'sigmoid': 1; 'tanh': 5/3; 'relu': sqrt(2);
    'leaky_relu': sqrt(2 / (1 + negative_slope^2)), negative_slope = `param` (default 0.01); 'selu': 3/4).

    >>> calculate_gain("leaky_relu", 0.2)
    1.3867504905630728
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param  # True/False are ints: excluded above
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == "selu":
        return 3.0 / 4  # found empirically (pytorch/pytorch#50664)
    else:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight of 2+ dims: size(1) and size(0) times the receptive field size."""
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    """fan_in or fan_out of `tensor` as `mode` ('fan_in' / 'fan_out', any case) says."""
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---- simple distributions ---------------------------------------------------------------------------------
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """`uniform_(tensor, a=0.0, b=1.0, generator=None)`: fill with U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """`normal_(tensor, mean=0.0, std=1.0, generator=None)`: fill with N(mean, std^2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """`trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None)`: fill with N(mean, std^2)
    truncated to [a, b]. Sampled by the inverse CDF (PyTorch uses rejection sampling): same distribution."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val):
    """`constant_(tensor, val)`: fill with `val`."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    """`ones_(tensor)`: fill with 1."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    """`zeros_(tensor)`: fill with 0."""
    return _no_grad_zero_(tensor)


def eye_(tensor):
    """`eye_(tensor)`: fill a 2-D tensor with the identity matrix (ones on the main diagonal)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_ts().eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """`dirac_(tensor, groups=1)`: fill a 3-, 4- or 5-D conv weight with the Dirac delta (identity of as many
    input channels as possible, per group)."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    pattern = np.zeros(tuple(sizes), dtype=np.float32)
    for g in range(groups):
        for d in range(min_dim):
            pattern[(g * out_chans_per_grp + d, d) + centre] = 1
    with no_grad():
        tensor.copy_(_ts().tensor(pattern, dtype=tensor.dtype))
    return tensor


# ---- fan-scaled distributions ------------------------------------------------------------------------------
def xavier_uniform_(tensor, gain=1.0, generator=None):
    """`xavier_uniform_(tensor, gain=1.0, generator=None)`: U(-a, a), a = gain * sqrt(6 / (fan_in +
    fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """`xavier_normal_(tensor, gain=1.0, generator=None)`: N(0, std^2), std = gain * sqrt(2 / (fan_in +
    fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """`kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None)`:
    U(-bound, bound), bound = gain * sqrt(3 / fan_mode), gain = calculate_gain(nonlinearity, a). A tensor with
    no elements is left as it is (with PyTorch's warning)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """`kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None)`: N(0, std^2),
    std = gain / sqrt(fan_mode)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    """`orthogonal_(tensor, gain=1, generator=None)`: a (semi-)orthogonal matrix times `gain` (trailing dims
    flattened): the Q of the QR factorization of a standard normal matrix, columns signed so diag(R) > 0."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    if tensor.dtype in (D.float16, D.bfloat16):
        raise _nyi("geqrf_cpu", tensor.dtype)
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    a = flattened._value
    if rows < cols:
        a = a.T
    q, r = jnp.linalg.qr(a)
    q = q * jnp.sign(jnp.diagonal(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view(rows, cols).copy_(fresh(q, flattened.dtype, flattened.device))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """`sparse_(tensor, sparsity, std=0.01, generator=None)`: a 2-D tensor with N(0, std^2) values and
    ceil(sparsity * rows) zeros in each column (rows chosen at random with the default generator, as
    PyTorch)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    torch = _ts()
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if cols > 0:  # PyTorch draws a permutation per column even when nothing is zeroed
            zero_rows = torch.rand(rows, cols).argsort(dim=0)[:num_zeros]
            tensor.scatter_(0, zero_rows, 0.0)
    return tensor


# ---- deprecated aliases ----------------------------------------------------------------------------------
def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"`{old_name}(...)`: deprecated alias of `{new_name}` (FutureWarning)."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
