"""`torch.nn.utils.skip_init`, from PyTorch 2.13's torch/nn/utils/init.py."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """`skip_init(module_cls, *args, **kwargs)`: an instance of `module_cls` whose parameters and buffers are
    left uninitialized (as `torch.empty`). The class must accept a `device` argument.

    Difference from PyTorch: torchshim has no meta device, so the module is built (and initialized) directly
    on the requested device; its values are unspecified either way, only the time spent initializing
    differs."""
    from ..modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs)
