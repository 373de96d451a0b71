"""`torch.cpu.amp` (deprecated spellings): `autocast` = `torch.amp.autocast('cpu', ...)`, `GradScaler` =
`torch.amp.GradScaler('cpu', ...)`, each with PyTorch's FutureWarning."""
from ...amp import autocast_mode, grad_scaler  # noqa: F401
from ...amp._device_amp import CpuAutocast as autocast, CpuGradScaler as GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler"]
