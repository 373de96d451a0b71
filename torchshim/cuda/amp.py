"""`torch.cuda.amp` (deprecated spellings): `autocast`, `GradScaler`, `custom_fwd`, `custom_bwd`, each
warning as PyTorch does; `common.amp_definitely_not_available()`."""
import types

from . import is_available as _cuda_available
from ..amp import autocast_mode, grad_scaler  # noqa: F401
from ..amp._device_amp import CudaAutocast as autocast, CudaGradScaler as GradScaler  # noqa: F401
from ..amp._device_amp import cuda_custom_bwd as custom_bwd, cuda_custom_fwd as custom_fwd  # noqa: F401

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def amp_definitely_not_available():
    """`torch.cuda.amp.common.amp_definitely_not_available()`: True without a GPU."""
    return not _cuda_available()


common = types.SimpleNamespace(amp_definitely_not_available=amp_definitely_not_available)
