"""The padding layers (ported from PyTorch 2.13's torch/nn/modules/padding.py): Constant/Zero/Reflection/
Replication/Circular padding in 1/2/3 dims, each a call of `F.pad` with the padding stored as a tuple of 2, 4
or 6 ints (an int is repeated). CircularPad checks the input's number of dims first, as PyTorch.

Example:
    >>> nn.ReflectionPad2d((1, 1, 2, 0))(torch.arange(9.0).reshape(1, 1, 3, 3)).shape
    torch.Size([1, 1, 5, 5])
"""
from .. import functional as F
from ._utils import _ntuple, _pair, _quadruple
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_sextuple = _ntuple(6, "_sextuple")


class _CircularPadNd(Module):
    __constants__ = ["padding"]

    def _check_input_dim(self, input):
        lo, hi = self._dims
        if input.dim() != lo and input.dim() != hi:
            raise ValueError(f"expected {lo}D or {hi}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self):
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """`CircularPad1d(padding)`: padding int or (left, right); input (N, C, W) or (C, W)."""

    _dims = (2, 3)

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class CircularPad2d(_CircularPadNd):
    """`CircularPad2d(padding)`: padding int or (left, right, top, bottom); input 3D or 4D."""

    _dims = (3, 4)

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class CircularPad3d(_CircularPadNd):
    """`CircularPad3d(padding)`: padding int or (left, right, top, bottom, front, back); input 4D or 5D."""

    _dims = (4, 5)

    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """`ConstantPad1d(padding, value)`: pad the last dim with `value`."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """`ConstantPad2d(padding, value)`: pad the last 2 dims with `value`."""

    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    """`ConstantPad3d(padding, value)`: pad the last 3 dims with `value`."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _sextuple(padding)


class _ReflectionPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """`ReflectionPad1d(padding)`: mirror padding of the last dim (padding < that dim's size)."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    """`ReflectionPad2d(padding)`: mirror padding of the last 2 dims."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ReflectionPad3d(_ReflectionPadNd):
    """`ReflectionPad3d(padding)`: mirror padding of the last 3 dims."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)


class _ReplicationPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self):
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """`ReplicationPad1d(padding)`: repeat the edge values of the last dim."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    """`ReplicationPad2d(padding)`: repeat the edge values of the last 2 dims."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad3d(_ReplicationPadNd):
    """`ReplicationPad3d(padding)`: repeat the edge values of the last 3 dims."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)


class ZeroPad1d(ConstantPad1d):
    """`ZeroPad1d(padding)`: ConstantPad1d with value 0.0."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """`ZeroPad2d(padding)`: ConstantPad2d with value 0.0."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """`ZeroPad3d(padding)`: ConstantPad3d with value 0.0."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
