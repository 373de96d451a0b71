"""`torch.types`: the type aliases PyTorch's signatures use (`Number`, `Device`, `FileLike`, `Storage`,
...). Typing helpers only; there are no symbolic sizes in torchshim, so the `*LikeType` aliases are the plain
Python types."""
import os
from typing import IO, Union

from ._api import Size, Tensor, device  # noqa: F401

__all__ = ["Number", "Device", "FileLike", "Storage"]

Number = int | float | bool
Device = device | str | int | None
FileLike = Union[str, os.PathLike, IO[bytes]]
BoolLikeType = bool
FloatLikeType = float
IntLikeType = int
py_sym_types = ()
_TensorOrTensors = Union[Tensor, tuple]


class Storage:
    """`torch.types.Storage`: the protocol of a storage object (a typing helper; torchshim's storages are
    `torch.UntypedStorage`-like objects of `Tensor.untyped_storage()`)."""
    _cdata: int
    device: device
    dtype: object
