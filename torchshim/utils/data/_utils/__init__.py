"""`torch.utils.data._utils`: the pieces the DataLoader and its worker processes share (collate, fetch,
worker loop, exception wrapper) and the status-check interval."""
import atexit

from ._exception import ExceptionWrapper, KeyErrorMessage  # noqa: F401

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds a worker waits on its index queue before checking that the main process is still alive, and that
the main process waits on shutdown for each worker to exit before terminating it."""

python_exit_status = False
"""True once the interpreter is shutting down (set by an atexit hook, as in PyTorch): workers are then left
to the daemon cleanup instead of being joined from `__del__`."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)

from . import collate, fetch, worker  # noqa: E402,F401
