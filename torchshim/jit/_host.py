"""Tensor-to-Python conversions while torch.jit builds a program.

PyTorch's tracer cannot record the data flow of Python values: `bool(t)`, `int(t)`, `t.item()`, `t.tolist()`,
`t.numpy()` inside a traced function are evaluated once, on the example inputs, and frozen into the trace
(with a `TracerWarning`). torchshim does the same in two steps: the trace run on the example inputs is eager
and *records* every conversion (`recording()`); the program is then traced under `jax.jit` with the
conversions *replayed* in order (`replaying(values)`), so Python control flow follows the example inputs.
`torch.jit.script` has no example inputs: its conversions of traced values raise `HostRead`
(`forbidding()`), and that input signature runs eagerly instead.

The conversion methods of `Tensor` are wrapped only while one of these context managers is active.
"""
import contextlib
import warnings

import jax
import numpy as np

from .._tensor import Tensor

__all__ = ["recording", "replaying", "forbidding", "HostRead", "TracerWarning"]


class TracerWarning(Warning):
    """`torch.jit.TracerWarning`."""


class HostRead(Exception):
    """A traced value was converted to a Python value while `torch.jit.script` traced a program."""


_KIND = {"__bool__": "Python boolean", "__int__": "Python integer", "__float__": "Python float",
         "__complex__": "Python complex", "item": "Python number", "__index__": "Python index",
         "tolist": "Python list", "numpy": "NumPy array", "__array__": "NumPy array"}
_MSG = ("Converting a tensor to a {kind} might cause the trace to be incorrect. We can't record the data "
        "flow of Python values, so this value will be treated as a constant in the future. This means that "
        "the trace might not generalize to other inputs!")

_mode = []  # the active Recorder / Replayer / Forbidder (innermost last)
_depth = [0]
_originals = {}


def _traced(t):
    return isinstance(t._storage._array, jax.core.Tracer)


def _wrapper(name):
    orig = _originals[name]

    def method(self, *args, **kwargs):
        if not _mode or _depth[0]:
            return orig(self, *args, **kwargs)
        _depth[0] += 1
        try:
            return _mode[-1].convert(self, name, lambda: orig(self, *args, **kwargs))
        finally:
            _depth[0] -= 1
    method.__name__ = name
    method.__wrapped__ = orig
    return method


@contextlib.contextmanager
def _installed(mode):
    outer = not _mode
    if outer:
        for name in _KIND:
            _originals[name] = Tensor.__dict__[name]
            setattr(Tensor, name, _wrapper(name))
    _mode.append(mode)
    try:
        yield mode
    finally:
        _mode.pop()
        if outer:
            for name in _KIND:
                setattr(Tensor, name, _originals[name])


class _Recorder:
    def __init__(self):
        self.values = []

    def convert(self, t, name, call):
        v = call()
        self.values.append((name, tuple(t.shape), np.copy(v) if isinstance(v, np.ndarray) else v))
        return v


class _Replayer:
    def __init__(self, values, warn):
        self.values = values
        self.warn = warn
        self.i = 0

    def convert(self, t, name, call):
        if self.i >= len(self.values) or self.values[self.i][:2] != (name, tuple(t.shape)):
            raise RuntimeError(
                "torch.jit.trace: the traced code converts tensors to Python values in a different order "
                f"than it did on the example inputs (Tensor.{name} on a tensor of shape {tuple(t.shape)}); "
                "Python control flow is frozen on the example inputs, so these inputs need their own trace.")
        v = self.values[self.i][2]
        self.i += 1
        if self.warn and _traced(t):
            warnings.warn(_MSG.format(kind=_KIND[name]), TracerWarning, stacklevel=3)
        return np.copy(v) if isinstance(v, np.ndarray) else v


class _Forbidder:
    def convert(self, t, name, call):
        if _traced(t):
            raise HostRead(f"Tensor.{name}() needs the tensor's value on the host")
        return call()


def recording():
    """Context manager: conversions run and are recorded (`.values`: (method, shape, value) in order)."""
    return _installed(_Recorder())


def replaying(values, warn=False):
    """Context manager: conversions return the recorded `values` in order (a TracerWarning each if `warn`
    and the tensor is traced)."""
    return _installed(_Replayer(values, warn))


def forbidding():
    """Context manager: converting a traced tensor raises `HostRead`."""
    return _installed(_Forbidder())
