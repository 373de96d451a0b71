"""`torch.backends.opt_einsum`: contraction-order optimisation for `torch.einsum`. `is_available()` is True
when the `opt_einsum` package is installed (jax depends on it); `enabled` and `strategy` ('auto', 'greedy',
'optimal') are stored and read back as PyTorch does. torchshim's einsum always lets jax (which uses
opt_einsum) choose the contraction order, so the flags do not change the result or the path."""
import contextlib

from ._props import flag_module, flags_context

__all__ = ["is_available", "get_opt_einsum", "set_flags", "flags"]


def get_opt_einsum():
    """`torch.backends.opt_einsum.get_opt_einsum()`: the opt_einsum package, or None."""
    try:
        import opt_einsum
    except ImportError:
        return None
    return opt_einsum


def is_available():
    """`torch.backends.opt_einsum.is_available()`."""
    return get_opt_einsum() is not None


_state = {"enabled": is_available(), "strategy": "auto" if is_available() else None}


def _set_enabled(value):
    if not is_available() and value:
        raise ValueError("opt_einsum is not available, so setting `enabled` to True is not allowed. Please "
                         "install opt_einsum to enable torch.backends.opt_einsum.")
    _state["enabled"] = value


def _set_strategy(value):
    if not is_available():
        raise ValueError(f"opt_einsum is not available, so setting `strategy` to {value} is not allowed. "
                         "Please install opt_einsum to enable torch.backends.opt_einsum.")
    if value not in ("auto", "greedy", "optimal"):
        raise ValueError(f"`strategy` must be one of the following: [auto, greedy, optimal] but is {value}")
    if not _state["enabled"]:
        raise ValueError(f"opt_einsum is not enabled, so setting a `strategy` to {value} will not be "
                         "meaningful. torch.einsum will bypass path calculation and simply contract from "
                         "left "
                         "to right. Please set `enabled` to `True` as well or unset `strategy`.")
    _state["strategy"] = value


def set_flags(_enabled=None, _strategy=None):
    """`torch.backends.opt_einsum.set_flags(_enabled=None, _strategy=None)`: returns the previous
    (enabled, strategy)."""
    old = (_state["enabled"], _state["strategy"])
    if _enabled is not None:
        _set_enabled(_enabled)
    if _strategy is not None:
        _set_strategy(_strategy)
    return old


@contextlib.contextmanager
def flags(enabled=None, strategy=None):
    """`torch.backends.opt_einsum.flags(enabled=None, strategy=None)`: the flags for the block."""
    with flags_context(set_flags, (enabled, strategy)):
        yield


# plain assignment (`torch.backends.opt_einsum.strategy = ...`) is not validated in PyTorch 2.13; set_flags is
flag_module(__name__, {"enabled": (lambda: _state["enabled"], lambda v: _state.__setitem__("enabled", v)),
                       "strategy": (lambda: _state["strategy"], lambda v: _state.__setitem__("strategy", v))})
