"""`torch.signal`: signal-processing helpers; `torch.signal.windows` has the window functions."""
from . import windows  # noqa: F401

__all__ = ["windows"]
