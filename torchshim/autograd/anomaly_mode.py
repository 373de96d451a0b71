"""`torch.autograd.detect_anomaly` / `set_detect_anomaly`: remember each node's forward traceback and raise
when a backward function returns NaN, naming the op (`Function 'LogBackward0' returned nan values in its 0th
output.`) with the forward traceback as a warning."""
import warnings

from ._node import _anomaly, anomaly_enabled

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


def is_anomaly_enabled():
    return anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """`torch.is_anomaly_check_nan_enabled() -> bool`: the check_nan flag of anomaly mode (True by default,
    also while anomaly mode is off, as in PyTorch)."""
    return getattr(_anomaly, "check_nan", True)


def set_anomaly_enabled(enabled, check_nan=True):
    """`torch.set_anomaly_enabled(enabled: bool, check_nan: bool = True)`: switch anomaly mode (what
    `torch.autograd.set_detect_anomaly` does), with PyTorch's TypeError for non-bool arguments."""
    for pos, (name, v) in enumerate((("enabled", enabled), ("check_nan", check_nan)), 1):
        if not isinstance(v, bool):
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {pos}) must be bool, not "
                            f"{type(v).__name__}")
    _anomaly.enabled, _anomaly.check_nan = enabled, check_nan


class detect_anomaly:
    """`torch.autograd.detect_anomaly(check_nan=True)`: context manager (and decorator) enabling anomaly
    mode."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = anomaly_enabled()
        self.prev_nan = getattr(_anomaly, "check_nan", True)
        _anomaly.enabled, _anomaly.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        _anomaly.enabled, _anomaly.check_nan = self.prev, self.prev_nan
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """`torch.autograd.set_detect_anomaly(mode, check_nan=True)`: sets anomaly mode now; also a context
    manager restoring the previous mode."""

    def __init__(self, mode, check_nan=True):
        self.prev = anomaly_enabled()
        self.prev_nan = getattr(_anomaly, "check_nan", True)
        _anomaly.enabled, _anomaly.check_nan = bool(mode), check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _anomaly.enabled, _anomaly.check_nan = self.prev, self.prev_nan
        return False
