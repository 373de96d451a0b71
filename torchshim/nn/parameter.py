"""`torch.nn.Parameter` and `torch.nn.Buffer` (placeholder: the Module-system work fills this in)."""
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


class Parameter(Tensor):
    pass


class Buffer(Tensor):
    pass


class UninitializedParameter(Parameter):
    pass


class UninitializedBuffer(Buffer):
    pass
