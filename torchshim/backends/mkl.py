"""`torch.backends.mkl`."""

__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]

VERBOSE_OFF, VERBOSE_ON = 0, 1


def is_available():
    """`torch.backends.mkl.is_available()`: True, as PyTorch's x86-64 build (built with MKL)."""
    return True


class verbose:
    """`torch.backends.mkl.verbose(enable)`: MKL's verbose logging; a context manager that logs nothing here
    (no MKL routine runs)."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
