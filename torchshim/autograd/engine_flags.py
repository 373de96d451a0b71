"""The autograd engine's switches: `set_multithreading_enabled` / `is_multithreading_enabled`,
`enforce_grad_layout_policy`, `is_view_replay_enabled`. Per thread, as PyTorch's.

What they change in torchshim:
- multithreading: PyTorch runs the backward of each accelerator on its own device thread when enabled;
  CPU work runs on the calling thread either way, which is what torchshim's engine always does. The flag is
  stored and read back.
- grad layout policy: PyTorch's gradient layout contract (accumulated `.grad` strides follow the parameter's)
  and, with `False`, stealing a stealable incoming gradient of another layout. Difference: torchshim's
  accumulated gradients are always contiguous (docs/differences.md), so the flag is stored and read back
  (`torch._C._is_grad_layout_enforcement_enabled`) and changes no result.
- view replay: off, PyTorch's default (in-place writes through views are recorded as `AsStridedBackward0`
  over `CopySlices`, as PyTorch records them); torchshim has no switch to turn it on.
"""
import functools
import threading

__all__ = ["set_multithreading_enabled", "is_multithreading_enabled", "enforce_grad_layout_policy",
           "is_view_replay_enabled", "is_grad_layout_enforcement_enabled"]


class _State(threading.local):
    multithreading = True
    layout_enforced = True


_state = _State()


def _check_bool(value, fn):
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument 'enabled' (position 1) must be bool, not {type(value).__name__}")


class _FlagContext:
    """Set the flag now; a context manager restoring the previous value on exit, and a decorator running
    the function with the flag set (PyTorch's `_DecoratorContextManager` subclasses of grad_mode)."""

    _attr = _fn = None

    def __init__(self, mode):
        _check_bool(mode, self._fn)
        self.prev = getattr(_state, self._attr)
        self.mode = mode
        setattr(_state, self._attr, mode)

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, traceback):
        setattr(_state, self._attr, self.prev)

    def clone(self):
        return self.__class__(self.mode)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


class set_multithreading_enabled(_FlagContext):
    """`torch.autograd.set_multithreading_enabled(mode: bool)`: multithreaded backward on or off, now and (as
    a context manager) until the block ends; thread-local. Non-bool: PyTorch's TypeError."""

    _attr, _fn = "multithreading", "set_multithreading_enabled"


class enforce_grad_layout_policy(_FlagContext):
    """`torch.autograd.enforce_grad_layout_policy(enable: bool = True)`: enforce the gradient layout
    contract (default) or relax it, now and (as a context manager) until the block ends; thread-local.
    Stored only: torchshim's gradients are contiguous (module docstring)."""

    _attr, _fn = "layout_enforced", "set_grad_layout_enforcement_enabled"

    def __init__(self, enable=True):
        super().__init__(enable)


def is_multithreading_enabled():
    """`torch.autograd.is_multithreading_enabled() -> bool`: True unless set_multithreading_enabled(False)."""
    return _state.multithreading


def is_grad_layout_enforcement_enabled():
    """`torch._C._is_grad_layout_enforcement_enabled() -> bool`."""
    return _state.layout_enforced


def is_view_replay_enabled():
    """`torch.autograd.is_view_replay_enabled() -> bool`: False (PyTorch's default; module docstring)."""
    return False
