"""`torch.cuda.amp` (deprecated spellings), installed as `torchshim.cuda.amp` by `torchshim.amp`
(torchshim/cuda.py is a module, not a package): `autocast`, `GradScaler`, `custom_fwd`, `custom_bwd`, each
warning as PyTorch does; `common.amp_definitely_not_available()`."""
import types

from ..cuda import is_available as _cuda_available
from . import autocast_mode, grad_scaler  # noqa: F401
from ._device_amp import CudaAutocast as autocast, CudaGradScaler as GradScaler  # noqa: F401
from ._device_amp import cuda_custom_bwd as custom_bwd, cuda_custom_fwd as custom_fwd  # noqa: F401

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def amp_definitely_not_available():
    """`torch.cuda.amp.common.amp_definitely_not_available()`: True without a GPU."""
    return not _cuda_available()


common = types.SimpleNamespace(amp_definitely_not_available=amp_definitely_not_available)
