"""`torch._utils.ExceptionWrapper`: an exception and its traceback text, carried from a worker process to the
main process (it pickles: only the type and the formatted text travel) and re-raised there."""
import sys
import traceback

__all__ = ["ExceptionWrapper", "KeyErrorMessage"]


class KeyErrorMessage(str):
    """str subclass whose repr is itself, so a re-raised KeyError prints its multi-line message readably."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """`ExceptionWrapper(exc_info=None, where='in background')`: wraps the exception being handled (or
    `exc_info`) with its formatted traceback; `reraise()` raises `exc_type("Caught X {where}.\\nOriginal
    Traceback ...")`, or RuntimeError with that text when the type can't be built from one string."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Re-raise the wrapped exception in the current thread, PyTorch's message format."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception
