"""`nn.Conv1d/2d/3d`, `nn.ConvTranspose1d/2d/3d` and their `Lazy*` forms (ported from PyTorch 2.13's
torch/nn/modules/conv.py): same constructor signatures, attributes, parameter shapes, `extra_repr` and
argument errors. Default initialisation as PyTorch: weight `kaiming_uniform_(a=sqrt(5))`, i.e.
U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = weight.size(1) * prod(kernel_size), and bias from the same
range (draws from torchshim's RNG: same law as PyTorch, not the same numbers).

Example:
    >>> m = nn.Conv2d(3, 8, 3, padding="same", padding_mode="reflect")
    >>> m(torch.randn(2, 3, 10, 10)).shape
    torch.Size([2, 8, 10, 10])
"""
import math

from ..._api import empty
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from . import _init_helpers as init
from ._utils import _pair, _reverse_repeat_tuple, _single, _triple
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d"]



class _ConvNd(Module):
    """The shared constructor of the convolutions: argument checks, padding bookkeeping, weight/bias."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad order (last dim first); for 'same', the extra odd padding goes on the right like PyTorch
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(self.padding, 2)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw weight (kaiming_uniform_, a=sqrt(5)) and bias (U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init.calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _ConvForward:
    """forward of Conv{1,2,3}d: a non-'zeros' padding mode pads with F.pad first (then the conv pads 0)."""

    _ntuple = None
    _conv = None

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, self._conv)
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight,
                        bias, self.stride, type(self)._ntuple(0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_args(ntuple, kernel_size, stride, padding, dilation):
    return (ntuple(kernel_size), ntuple(stride), padding if isinstance(padding, str) else ntuple(padding),
            ntuple(dilation))


class Conv1d(_ConvForward, _ConvNd):
    """`Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device=None, dtype=None)`: input (N, C_in, L) or (C_in, L); padding may be 'same' or
    'valid'. weight (out_channels, in_channels // groups, kernel_size)."""

    _ntuple = staticmethod(_single)
    _conv = "conv1d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d = _conv_args(_single, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, False, _single(0), groups, bias, padding_mode,
                         device=device, dtype=dtype)


class Conv2d(_ConvForward, _ConvNd):
    """`Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device=None, dtype=None)`: input (N, C_in, H, W) or (C_in, H, W)."""

    _ntuple = staticmethod(_pair)
    _conv = "conv2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d = _conv_args(_pair, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, False, _pair(0), groups, bias, padding_mode,
                         device=device, dtype=dtype)


class Conv3d(_ConvForward, _ConvNd):
    """`Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device=None, dtype=None)`: input (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _ntuple = staticmethod(_triple)
    _conv = "conv3d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d = _conv_args(_triple, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, False, _triple(0), groups, bias, padding_mode,
                         device=device, dtype=dtype)


class _ConvTransposeNd(_ConvNd):
    """The transposed convolutions: only 'zeros' padding; `output_size` in forward picks the output
    padding."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims,
                        dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                             f"have {num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements "
                             f"(got {len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d]
                        + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for i in range(len(output_size)):
            size, min_size, max_size = output_size[i], min_sizes[i], max_sizes[i]
            if size < min_size or size > max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size=None):
        n = self._num_spatial
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for ConvTranspose{n}d")
        if not isinstance(self.padding, tuple):
            raise AssertionError("self.padding must be a tuple")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              n, self.dilation)
        return getattr(F, f"conv_transpose{n}d")(input, self.weight, self.bias, self.stride, self.padding,
                                                 output_padding, self.groups, self.dilation)


def _transpose_args(ntuple, kernel_size, stride, padding, dilation, output_padding):
    return ntuple(kernel_size), ntuple(stride), ntuple(padding), ntuple(dilation), ntuple(output_padding)


class ConvTranspose1d(_ConvTransposeNd):
    """`ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)`; `forward(input,
    output_size=None)`. weight (in_channels, out_channels // groups, kernel_size)."""

    _num_spatial = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d, op = _transpose_args(_single, kernel_size, stride, padding, dilation, output_padding)
        super().__init__(in_channels, out_channels, k, s, p, d, True, op, groups, bias, padding_mode,
                         device=device, dtype=dtype)


class ConvTranspose2d(_ConvTransposeNd):
    """`ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)`; `forward(input,
    output_size=None)`."""

    _num_spatial = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d, op = _transpose_args(_pair, kernel_size, stride, padding, dilation, output_padding)
        super().__init__(in_channels, out_channels, k, s, p, d, True, op, groups, bias, padding_mode,
                         device=device, dtype=dtype)


class ConvTranspose3d(_ConvTransposeNd):
    """`ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)`; `forward(input,
    output_size=None)`."""

    _num_spatial = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d, op = _transpose_args(_triple, kernel_size, stride, padding, dilation, output_padding)
        super().__init__(in_channels, out_channels, k, s, p, d, True, op, groups, bias, padding_mode,
                         device=device, dtype=dtype)


# ---- lazy forms --------------------------------------------------------------------------------------------
class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels from the first input's channel dim (dim 1 batched, dim 0 unbatched)."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if not isinstance(self.weight, UninitializedParameter):
                raise AssertionError("self.weight must be an UninitializedParameter")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                         *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                         *self.kernel_size))
            if self.bias is not None:
                if not isinstance(self.bias, UninitializedParameter):
                    raise AssertionError("self.bias must be an UninitializedParameter")
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        num_spatial_dims = self._get_num_spatial_dims()
        num_dims_no_batch = num_spatial_dims + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self):
        raise NotImplementedError

    def _lazy_init(self, out_channels, bias, factory_kwargs):
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """`LazyConv1d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device=None, dtype=None)`: a Conv1d whose in_channels comes from the first input."""

    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)

    def _get_num_spatial_dims(self):
        return 1


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """`LazyConv2d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device=None, dtype=None)`."""

    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)

    def _get_num_spatial_dims(self):
        return 2


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """`LazyConv3d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device=None, dtype=None)`."""

    cls_to_become = Conv3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)

    def _get_num_spatial_dims(self):
        return 3


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """`LazyConvTranspose1d(out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
    bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)`."""

    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                         padding_mode, **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)

    def _get_num_spatial_dims(self):
        return 1


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """`LazyConvTranspose2d(out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
    bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)`."""

    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                         padding_mode, **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)

    def _get_num_spatial_dims(self):
        return 2


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """`LazyConvTranspose3d(out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
    bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)`."""

    cls_to_become = ConvTranspose3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                         padding_mode, **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)

    def _get_num_spatial_dims(self):
        return 3
