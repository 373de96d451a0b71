"""`torch.amp`: autocast (mixed precision by op lists, over ops/_autocast.py's hook) and GradScaler."""
from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]


def _install_cuda_amp():
    """`torch.cuda.amp` as a real submodule name (`import torch.cuda.amp` works though cuda.py is a
    module)."""
    import sys

    from .. import cuda
    from . import _cuda_namespace
    sys.modules[cuda.__name__ + ".amp"] = _cuda_namespace
    cuda.amp = _cuda_namespace
    if not hasattr(cuda, "__path__"):
        # lets the import system look up submodules of torch.cuda (the `import torch` alias maps
        # `torch.cuda.amp` to the sys.modules entry above); cuda.py has no files of its own to find
        cuda.__path__ = []


_install_cuda_amp()
