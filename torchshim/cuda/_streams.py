"""`torch.cuda.Stream`, `Event`, `current_stream`, `stream(...)`: the device-generic
`torch.Stream`/`torch.Event` (torchshim/_streams.py) on the 'cuda' device. Mapping: jax gives one in-order
queue per device; every stream is that queue (work submitted "on" two streams runs in submission order), so
`wait_stream`/`wait_event` have nothing to order and `Event.elapsed_time` measures between two synchronized
points (the host waits at `record`). Without a GPU they raise what PyTorch's CPU build raises."""
from .. import _device as Dev
from .. import _streams

__all__ = ["Stream", "Event", "StreamContext", "current_stream", "default_stream", "set_stream", "stream"]


def _gpu():
    return bool(Dev.gpu_devices())


class Stream(_streams.Stream):
    """`torch.cuda.Stream(device=None, priority=0)`."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if not _gpu():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        return super().__new__(cls)

    def __init__(self, device=None, priority=0, **kwargs):
        super().__init__(device=Dev.canonical("cuda" if device is None else device), priority=priority)

    @property
    def cuda_stream(self):
        return 0


class Event(_streams.Event):
    """`torch.cuda.Event(enable_timing=False, blocking=False, interprocess=False)`."""

    def __new__(cls, *args, **kwargs):
        if not _gpu():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        return super().__new__(cls)

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        super().__init__(Dev.canonical("cuda"), enable_timing=enable_timing, blocking=blocking,
                         interprocess=interprocess)


_current = {}


def current_stream(device=None):
    """`torch.cuda.current_stream(device=None) -> Stream`."""
    if not _gpu():
        Dev._no_cuda()
    i = Dev.canonical("cuda" if device is None else device).index
    s = _current.get(i)
    return s if s is not None else default_stream(device)


def default_stream(device=None):
    """`torch.cuda.default_stream(device=None) -> Stream`."""
    if not _gpu():
        Dev._no_cuda()
    return Stream(device)


def set_stream(stream):
    """`torch.cuda.set_stream(stream)`: make `stream` current (None: nothing)."""
    if stream is None:
        return
    _current[stream.device_index] = stream


class StreamContext:
    """`torch.cuda.StreamContext(stream)`: makes `stream` current inside the block (None: no-op)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev = None

    def __enter__(self):
        if self.stream is None:
            return None
        self.prev = _current.get(self.stream.device_index)
        _current[self.stream.device_index] = self.stream
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _current[self.stream.device_index] = self.prev
        return None


def stream(stream):
    """`torch.cuda.stream(stream) -> StreamContext`."""
    return StreamContext(stream)
