"""`torch.cpu`: the CPU device module (always available, one device, synchronous) and `torch.cpu.amp`."""
import contextlib
import os

from .. import _fused
from ..backends.cpu import get_cpu_capability as _capability

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device", "synchronize",
           "current_stream", "stream", "Stream", "StreamContext", "Event", "amp"]


def is_available():
    """`torch.cpu.is_available() -> bool`: True."""
    return True


def is_initialized():
    """`torch.cpu.is_initialized() -> bool`: True."""
    return True


def device_count():
    """`torch.cpu.device_count() -> int`: 1."""
    return 1


def current_device():
    """`torch.cpu.current_device() -> str`: 'cpu'."""
    return "cpu"


def set_device(device):
    """`torch.cpu.set_device(device)`: no effect, as in PyTorch (there is one CPU device)."""


def synchronize(device=None):
    """`torch.cpu.synchronize(device=None)`: CPU work is synchronous; returns None. (In fused eager mode it
    runs the pending segment.)"""
    _fused.step_boundary("torch.cpu.synchronize()")


class Stream:
    """`torch.cpu.Stream`: PyTorch's N.B. placeholder stream on CPU (work is synchronous)."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    """`torch.cpu.Event`: a no-op event (CPU work is synchronous)."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_cpu_stream = Stream()


def current_stream(device=None):
    """`torch.cpu.current_stream(device=None)`: the default CPU stream."""
    return _default_cpu_stream


class StreamContext(contextlib.AbstractContextManager):
    """`torch.cpu.StreamContext(stream)`: selects nothing (one synchronous stream)."""

    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *exc):
        return False


def stream(stream):
    """`torch.cpu.stream(stream)`: a StreamContext."""
    return StreamContext(stream)


def get_capabilities():
    """`torch.cpu.get_capabilities()`: a subset of PyTorch's dict (the x86 flags found in /proc/cpuinfo, the
    core count and the architecture)."""
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.partition(":")[2].split())
                    break
    except OSError:
        pass
    names = {"avx": "avx", "avx2": "avx2", "fma": "fma3", "sse": "sse", "sse2": "sse2", "pni": "sse3",
             "ssse3": "ssse3", "sse4_1": "sse4_1", "sse4_2": "sse4_2", "f16c": "f16c", "avx512f": "avx512_f",
             "avx512bw": "avx512_bw", "avx512_bf16": "avx512_bf16", "amx_tile": "amx_tile"}
    out = {v: k in flags for k, v in names.items()}
    out.update(num_logical_cores=os.cpu_count(), architecture=os.uname().machine,
               capability=_capability())
    return out


from . import amp  # noqa: E402
