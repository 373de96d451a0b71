"""`torch.backends.openmp`."""

__all__ = ["is_available"]


def is_available():
    """`torch.backends.openmp.is_available()`: True, as PyTorch's Linux build (built with OpenMP)."""
    return True
