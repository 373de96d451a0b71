"""`torch.Stream` and `torch.Event`, the device-generic stream and event. On CPU (and `meta`) they behave as
PyTorch's do: work is synchronous, so a stream is always complete, and CPU events cannot be recorded
("cpu backend doesn't support events."). On CUDA (jax's GPU backend) the stream is jax's single in-order
queue: `synchronize()` waits for pending work, an event records a host timestamp after that wait, so
`elapsed_time` measures the time between two synchronized points (PyTorch's measures on the device, without
blocking the host). Other device types raise PyTorch's "not linked with support" error."""
import time

from . import _device as Dev
from ._device_types import current_accelerator_type, device_type_index, no_accelerator

__all__ = ["Stream", "Event"]


def _resolve(device):
    """(type, index) for a Stream/Event's `device` argument, with PyTorch's errors."""
    if device is None:
        return current_accelerator_type() or "cpu", -1
    if isinstance(device, int) and not isinstance(device, bool):
        acc = current_accelerator_type()
        if acc is None:
            no_accelerator()
        return acc, device
    t, idx = device_type_index(device)
    if t not in ("cpu", "meta") and not (t == "cuda" and current_accelerator_type() == "cuda"):
        raise RuntimeError(f"PyTorch is not linked with support for {t} devices")
    if t in ("cpu", "meta"):
        idx = -1
    return t, (0 if idx is None else idx)


def _sync(device_type):
    if device_type == "cuda":
        import jax
        jax.effects_barrier()


class Stream:
    """`torch.Stream(device=None, *, priority=0)`: an in-order queue of work on a device (see the module
    docstring for what it does here)."""

    def __init__(self, *args, device=None, priority=0):
        if len(args) > 1:
            raise TypeError(f"Stream() takes from 0 to 1 positional arguments but {len(args)} were given")
        self.device_type, self.device_index = _resolve(args[0] if args else device)
        self.priority = priority
        self.stream_id = 0

    @property
    def device(self):
        return Dev.device(self.device_type) if self.device_index < 0 else Dev.device(self.device_type,
                                                                                       self.device_index)

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def query(self):
        """`Stream.query() -> bool`: whether all work submitted to the stream is complete (always True)."""
        return True

    def synchronize(self):
        """`Stream.synchronize()`: wait until the stream's work is complete."""
        _sync(self.device_type)

    def is_capturing(self):
        """`Stream.is_capturing() -> bool`: False (no graph capture)."""
        return False

    def record_event(self, event=None):
        """`Stream.record_event(event=None) -> Event`: record `event` (a new one if None) on this stream."""
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def wait_event(self, event):
        """`Stream.wait_event(event)`: make future work wait for `event` (work is in order: nothing to do)."""
        event.wait(self)

    def wait_stream(self, stream):
        """`Stream.wait_stream(stream)`: make future work wait for `stream`'s current work."""
        self.wait_event(stream.record_event())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return (isinstance(other, Stream) and (self.device_type, self.device_index, self.stream_id)
                == (other.device_type, other.device_index, other.stream_id))

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device_type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """`torch.Event(device=None, *, enable_timing=False, blocking=False, interprocess=False)`: marks a point
    in a stream (see the module docstring). `blocking` and `interprocess` are no-ops, as in PyTorch."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        self.device_type, self.device_index = _resolve(device)
        self.enable_timing = bool(enable_timing)
        self.event_id = 0
        self._time = None

    @property
    def device(self):
        return Dev.device(self.device_type) if self.device_index < 0 else Dev.device(self.device_type,
                                                                                       self.device_index)

    def record(self, stream=None):
        """`Event.record(stream=None)`: record the event on `stream` (the current one if None)."""
        if self.device_type != "cuda":
            raise RuntimeError(f"{self.device_type} backend doesn't support events.")
        _sync(self.device_type)
        self._time = time.perf_counter()
        self.event_id = 1

    def query(self):
        """`Event.query() -> bool`: whether the recorded work is complete (always True: it is waited for)."""
        return True

    def synchronize(self):
        """`Event.synchronize()`: wait for the recorded work."""

    def wait(self, stream=None):
        """`Event.wait(stream=None)`: make `stream`'s future work wait for this event (in order: no-op)."""

    def elapsed_time(self, end_event):
        """`Event.elapsed_time(end_event) -> float`: milliseconds between this event and `end_event`."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need "
                                  "this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need "
                                  "this!")

    def __repr__(self):
        return (f"torch.Event device_type={self.device_type}, device_index={self.device_index}, "
                f"event_flag={int(self.enable_timing)}, event_id={self.event_id}")
