"""`torch.autograd.profiler`: the legacy profiler (`profile`) and `record_function`, sharing torch.profiler's
recorder (torchshim/profiler). A user-layer module (it imports torch.profiler), imported by the package
root."""
from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401
from ..profiler._legacy import profile  # noqa: F401
from ..profiler._record import record_function  # noqa: F401
from ..profiler._step_tracker import KinetoStepTracker  # noqa: F401
from . import profiler_legacy, profiler_util  # noqa: F401  (torch.autograd.profiler_legacy, ...)

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]
