"""The exception classes PyTorch binds at `torch.*`: `torch.OutOfMemoryError` (also
`torch.cuda.OutOfMemoryError`), `torch.AcceleratorError`, `torch.FatalError`, with PyTorch's bases."""

__all__ = ["OutOfMemoryError", "AcceleratorError", "FatalError"]


class OutOfMemoryError(RuntimeError):
    """`torch.OutOfMemoryError(RuntimeError)`: raised by PyTorch when a device allocation fails. torchshim
    never raises it itself (JAX reports out-of-memory as its own error); scripts catch it."""


class AcceleratorError(RuntimeError):
    """`torch.AcceleratorError(RuntimeError)`: an error reported by an accelerator runtime (CUDA, ...)."""


class FatalError(Exception):
    """`torch.FatalError(Exception)`: an unrecoverable error of PyTorch's runtime."""
