"""`torch.profiler.itt`: Intel ITT (VTune) ranges. torchshim emits no ITT events, so this is the module of
a PyTorch build without ITT: `is_available()` is False and the range functions raise PyTorch's
RuntimeError. Difference from PyTorch's x86-64 wheel, which has ITT (`is_available()` True there); use
`torch.profiler.record_function` for named ranges (they also reach jax's profiler)."""
import contextlib

__all__ = ["is_available", "range_push", "range_pop", "mark", "range"]

_MISSING = "ITT functions not installed. Are you sure you have a ITT build?"


def is_available():
    """`torch.profiler.itt.is_available() -> bool`: False (no ITT in torchshim)."""
    return False


def range_push(msg):
    """`range_push(msg: str)`: RuntimeError (no ITT)."""
    raise RuntimeError(_MISSING)


def range_pop():
    """`range_pop()`: RuntimeError (no ITT)."""
    raise RuntimeError(_MISSING)


def mark(msg):
    """`mark(msg: str)`: RuntimeError (no ITT)."""
    raise RuntimeError(_MISSING)


@contextlib.contextmanager
def range(msg, *args, **kwargs):  # noqa: A001  (PyTorch's name)
    """`range(msg, *args, **kwargs)`: context manager pushing `msg.format(*args, **kwargs)`; RuntimeError
    (no ITT)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
