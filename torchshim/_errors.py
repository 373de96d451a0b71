"""The exception classes PyTorch binds at `torch.*`: `torch.OutOfMemoryError` (also
`torch.cuda.OutOfMemoryError`), `torch.AcceleratorError`, `torch.FatalError`, and `torch.linalg.LinAlgError`
(`torch._C._LinAlgError`), with PyTorch's bases."""

__all__ = ["OutOfMemoryError", "AcceleratorError", "FatalError", "LinAlgError"]


class OutOfMemoryError(RuntimeError):
    """`torch.OutOfMemoryError(RuntimeError)`: raised by PyTorch when a device allocation fails. torchshim
    never raises it itself (JAX reports out-of-memory as its own error); scripts catch it."""


class AcceleratorError(RuntimeError):
    """`torch.AcceleratorError(RuntimeError)`: an error reported by an accelerator runtime (CUDA, ...)."""


class FatalError(Exception):
    """`torch.FatalError(Exception)`: an unrecoverable error of PyTorch's runtime."""


class LinAlgError(RuntimeError):
    """`torch.linalg.LinAlgError` (PyTorch's `torch._C._LinAlgError`, a RuntimeError): raised by the
    decompositions and solvers of `torch.linalg` for singular or non-positive-definite inputs (a host sync,
    as in PyTorch; the `*_ex` forms return `info` instead)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
