"""`torch.autograd.profiler_util`: the profiler's result types (`EventList`, `FunctionEvent`,
`FunctionEventAvg`, from torchshim's recorder in torchshim/profiler/_events.py), `Interval`, `Kernel`,
`DeviceType` and the memory-event names. PyTorch's table-formatting helpers (`StringTable`,
`MemRecordsAcc`, `FormattedTimesMixin`, `EventMetadata`) are not provided: torchshim records no memory
events and formats its tables itself. A user-layer module."""
from collections import namedtuple

from .._c_profiler import DeviceType  # noqa: F401
from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401

__all__ = ["EventList", "Interval", "Kernel", "FunctionEvent", "FunctionEventAvg"]

MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"


class Interval:
    """`Interval(start, end)`: a span in microseconds; `elapsed_us()` is its length."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """`end - start`."""
        return self.end - self.start


Kernel = namedtuple("Kernel", ["name", "device", "duration"])
Kernel.__doc__ = "`Kernel(name, device, duration)`: a device kernel under an event."
