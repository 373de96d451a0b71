"""`torch.get_device_module(device=None)`: the module of a device type (the accelerator is CUDA when jax has
a GPU backend, else there is none)."""
from . import _device as Dev
from . import cpu, cuda, mps, mtia, xpu
from ._device_types import current_accelerator_type, device_type_index

__all__ = ["get_device_module"]

_MODULES = {"cpu": cpu, "cuda": cuda, "mps": mps, "mtia": mtia, "xpu": xpu}


def get_device_module(device=None):
    """`torch.get_device_module(device=None)`: the module of `device`'s type (`torch.cuda`, `torch.cpu`,
    `torch.mps`, `torch.xpu`, `torch.mtia`); with None, that of the current accelerator, or `torch.cpu`."""
    if device is None:
        t = current_accelerator_type() or "cpu"
    elif isinstance(device, (str, Dev.device)):
        t = device_type_index(device)[0]
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if t not in _MODULES:
        raise RuntimeError(f"Device '{t}' does not have a corresponding module registered as 'torch.{t}'.")
    return _MODULES[t]
