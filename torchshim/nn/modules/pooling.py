"""The pooling layers (ported from PyTorch 2.13's torch/nn/modules/pooling.py): MaxPool, MaxUnpool, AvgPool,
FractionalMaxPool, LPPool, AdaptiveMaxPool, AdaptiveAvgPool in 1/2/3 dims. Each stores its arguments as given
(PyTorch normalises some to tuples and not others; `extra_repr` shows them the same way) and calls the
matching `torch.nn.functional` pooling function. No parameters or buffers, except FractionalMaxPool's optional
`_random_samples` buffer.

Example:
    >>> nn.MaxPool2d(2, return_indices=True)(torch.randn(1, 1, 4, 4))[1].shape
    torch.Size([1, 1, 2, 2])
"""
from .. import functional as F
from ._utils import _pair, _single, _triple
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AvgPool1d",
           "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d",
           "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"]


# ---- max pooling -------------------------------------------------------------------------------------------
class _MaxPoolNd(Module):
    """`MaxPool{n}d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)`."""

    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """`MaxPool1d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)`:
    input (N, C, L) or (C, L)."""

    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    """`MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)`:
    input (N, C, H, W) or (C, H, W)."""

    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    """`MaxPool3d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)`:
    input (N, C, D, H, W) or (C, D, H, W)."""

    _fn = "max_pool3d"


class _MaxUnpoolNd(Module):
    """`MaxUnpool{n}d(kernel_size, stride=None, padding=0)`; `forward(input, indices, output_size=None)`."""

    _ntuple = None
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        ntuple = type(self)._ntuple
        self.kernel_size = ntuple(kernel_size)
        self.stride = ntuple(stride if stride is not None else kernel_size)
        self.padding = ntuple(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return getattr(F, self._fn)(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """`MaxUnpool1d(kernel_size, stride=None, padding=0)`: the partial inverse of MaxPool1d."""

    _ntuple = staticmethod(_single)
    _fn = "max_unpool1d"


class MaxUnpool2d(_MaxUnpoolNd):
    """`MaxUnpool2d(kernel_size, stride=None, padding=0)`: the partial inverse of MaxPool2d."""

    _ntuple = staticmethod(_pair)
    _fn = "max_unpool2d"


class MaxUnpool3d(_MaxUnpoolNd):
    """`MaxUnpool3d(kernel_size, stride=None, padding=0)`: the partial inverse of MaxPool3d."""

    _ntuple = staticmethod(_triple)
    _fn = "max_unpool3d"


# ---- average pooling ---------------------------------------------------------------------------------------
class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """`AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)` (arguments
    stored as 1-tuples, as PyTorch)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPool23(_AvgPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                    self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPool23):
    """`AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)`."""

    _fn = "avg_pool2d"


class AvgPool3d(_AvgPool23):
    """`AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)`."""

    _fn = "avg_pool3d"

    def __setstate__(self, d):
        super().__setstate__(d)
        self.__dict__.setdefault("padding", 0)
        self.__dict__.setdefault("ceil_mode", False)
        self.__dict__.setdefault("count_include_pad", True)


# ---- fractional max pooling --------------------------------------------------------------------------------
class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _n = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self._n
        ntuple = _pair if n == 2 else _triple
        if n == 3 and (isinstance(kernel_size, int) and kernel_size <= 0
                       or isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = ntuple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = ntuple(output_size) if output_size is not None else None
        self.output_ratio = ntuple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{n}d requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio[:n]):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return getattr(F, f"fractional_max_pool{self._n}d")(input, self.kernel_size, self.output_size,
                                                            self.output_ratio, self.return_indices,
                                                            _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """`FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)`: the pooling regions are drawn with torchshim's RNG (same law as PyTorch, not the
    same numbers) unless `_random_samples` (N, C, 2) is given."""

    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """`FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)`: as FractionalMaxPool2d, `_random_samples` (N, C, 3)."""

    _n = 3


# ---- power-average pooling ---------------------------------------------------------------------------------
class _LPPoolNd(Module):
    """`LPPool{n}d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size, self.stride,
                                    self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """`LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)`: (sum over the window of
    x^p)^(1/p)."""

    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    """`LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    """`LPPool3d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    _fn = "lp_pool3d"


# ---- adaptive pooling --------------------------------------------------------------------------------------
class _AdaptiveMaxPoolNd(Module):
    """`AdaptiveMaxPool{n}d(output_size, return_indices=False)` (None in output_size keeps that input
    size)."""

    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """`AdaptiveMaxPool1d(output_size, return_indices=False)`."""

    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """`AdaptiveMaxPool2d(output_size, return_indices=False)`."""

    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """`AdaptiveMaxPool3d(output_size, return_indices=False)`."""

    _fn = "adaptive_max_pool3d"


class _AdaptiveAvgPoolNd(Module):
    """`AdaptiveAvgPool{n}d(output_size)` (None in output_size keeps that input size)."""

    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """`AdaptiveAvgPool1d(output_size)`."""

    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """`AdaptiveAvgPool2d(output_size)`."""

    _fn = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """`AdaptiveAvgPool3d(output_size)`."""

    _fn = "adaptive_avg_pool3d"
