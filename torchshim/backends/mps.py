"""`torch.backends.mps`: Apple's Metal backend, absent here (and in PyTorch's Linux build)."""

__all__ = ["is_available", "is_built", "is_macos_or_newer", "is_macos13_or_newer"]


def is_available():
    """`torch.backends.mps.is_available()`: False."""
    return False


def is_built():
    """`torch.backends.mps.is_built()`: False (not built with MPS)."""
    return False


def is_macos_or_newer(major, minor):
    """`torch.backends.mps.is_macos_or_newer(major, minor)`: False off macOS."""
    return False


def is_macos13_or_newer(minor=0):
    """`torch.backends.mps.is_macos13_or_newer(minor=0)`: False off macOS."""
    return False
