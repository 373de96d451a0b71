"""PyTorch's legacy tensor types, still accepted by PyTorch 2.13: `torch.FloatTensor(5, 7, 3)`,
`torch.LongTensor([0, 2, 4])`, `torch.Tensor(2, 3)`, `x.type()`, `x.type(torch.DoubleTensor)`,
`isinstance(x, torch.FloatTensor)`; `Tensor.__new__` (`torch.Tensor(2, 3)`) is attached from here."""
from .. import _device as Dev
from .. import _dtype as D
from .._dtype import legacy_type_name
from .._methods import add_tensor_method
from .._tensor import Size, Tensor
from .creation import empty, tensor

_LEGACY = [d for d in D.ALL if d._legacy_name]
__all__ = [d._legacy_name for d in _LEGACY]


def legacy_new(cls, dtype, args, kwargs, device_type="cpu"):
    """The legacy constructor `cls(*sizes)`, `cls(sequence)`, `cls(tensor)`, `cls()`; zero-filled memory."""
    device = kwargs.pop("device", None)
    if device is None:
        device = device_type
    elif Dev.device(device).type != device_type and cls is not Tensor:
        raise RuntimeError(f"legacy constructor expects device type: {device_type} but device type: "
                           f"{Dev.device(device).type} was passed")
    if "size" in kwargs:
        args = (tuple(kwargs.pop("size")),)
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got unexpected keyword "
                        f"{next(iter(kwargs))}")
    if not args:
        return empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src._dtype is not dtype:
            raise TypeError(f"expected {legacy_type_name(dtype, Dev.CPU)} (got {src.type()})")
        return src.detach()
    if len(args) == 1 and isinstance(args[0], Size):
        return empty(args[0], dtype=dtype, device=device)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return empty(*args, dtype=dtype, device=device)
    if len(args) == 1:
        return tensor(args[0], dtype=dtype, device=device)
    raise TypeError(f"new() received an invalid combination of arguments - got "
                    f"({', '.join(type(a).__name__ for a in args)})")


def _tensor_new(cls, *args, **kwargs):
    """`torch.Tensor(*sizes)`, `torch.Tensor(sequence)`, ...: the legacy constructor in the default dtype."""
    return legacy_new(cls, D.get_default_dtype(), args, kwargs)


add_tensor_method("__new__", _tensor_new)


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == cls._device_type

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls, cls.dtype, args, dict(kwargs), cls._device_type)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make_legacy(dtype, device_type, module):
    return _LegacyMeta(dtype._legacy_name, (), {"dtype": dtype, "_device_type": device_type,
                                                 "is_cuda": device_type == "cuda", "__module__": module})


for _d in _LEGACY:
    globals()[_d._legacy_name] = _make_legacy(_d, "cpu", "torch")
CUDA_TYPES = {d._legacy_name: _make_legacy(d, "cuda", "torch.cuda") for d in _LEGACY}


def resolve_legacy_type(t):
    """(dtype, device_type or None) for x.type(t): a dtype, a legacy class, or its name as a string."""
    if isinstance(t, D.dtype):
        return t, None
    if isinstance(t, _LegacyMeta):
        return t.dtype, t._device_type
    if isinstance(t, str):
        cuda = t.startswith("torch.cuda.")
        name = t.rsplit(".", 1)[-1]
        for d in _LEGACY:
            if d._legacy_name == name:
                return d, "cuda" if cuda else "cpu"
        raise ValueError(f"invalid type: '{t}'")
    raise ValueError(f"invalid type: '{t}'")
