"""`torch.backends.kleidiai`: Arm's KleidiAI micro-kernels; not in PyTorch's x86-64 build."""

__all__ = ["is_available"]


def is_available():
    """`torch.backends.kleidiai.is_available()`: False (as PyTorch's x86-64 build, built without KleidiAI)."""
    return False
