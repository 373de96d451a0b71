"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`; per thread, like PyTorch."""
import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]

class _GradState(threading.local):
    """Per-thread grad mode. The class attribute is every thread's starting value, so reading `enabled` never
    goes through a missing-attribute lookup (a getattr default costs microseconds on every op)."""
    enabled = True
    inference = False  # inside an inference_mode(True) block


_state = _GradState()


def is_grad_enabled():
    """`torch.is_grad_enabled()`: whether ops record history in this thread."""
    return _state.enabled


def _set(flag):
    _state.enabled = bool(flag)


class _GradModeBase:
    """Context manager and decorator that sets grad mode on entry and restores it on exit."""

    _mode = True

    def __enter__(self):
        self._prev = is_grad_enabled()
        _set(self._mode)
        return self

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeBase):
    """`torch.no_grad()`: disable gradient recording (context manager or decorator)."""

    _mode = False

    def __init__(self, orig_func=None):
        if orig_func is not None and callable(orig_func):
            self._wrapped = self.__call__(orig_func)


class enable_grad(_GradModeBase):
    """`torch.enable_grad()`: enable gradient recording (context manager or decorator)."""

    _mode = True


class set_grad_enabled(_GradModeBase):
    """`torch.set_grad_enabled(mode)`: sets grad mode immediately; also a context manager restoring it."""

    def __init__(self, mode):
        self._prev = is_grad_enabled()
        self._mode = bool(mode)
        _set(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def clone(self):
        return set_grad_enabled(self._mode)


def is_inference_mode_enabled():
    """`torch.is_inference_mode_enabled()`: whether an `inference_mode(True)` block is active in this
    thread."""
    return _state.inference


class inference_mode(_GradModeBase):
    """`torch.inference_mode(mode=True)`: like no_grad here (no inference-tensor restrictions)."""

    def __init__(self, mode=True):
        self._mode = not mode
        self._inference = bool(mode)

    def __enter__(self):
        self._prev_inference = _state.inference
        _state.inference = self._inference
        return super().__enter__()

    def __exit__(self, *exc):
        _state.inference = self._prev_inference
        return super().__exit__(*exc)
