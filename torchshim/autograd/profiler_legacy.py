"""`torch.autograd.profiler_legacy`: the pre-Kineto profiler `profile`. In torchshim it is the same recorder
as `torch.autograd.profiler.profile` (record_function spans; torch.profiler's docstring lists the
differences). A user-layer module."""
from .._c_profiler import DeviceType, ProfilerState  # noqa: F401
from ..profiler._events import EventList, FunctionEvent  # noqa: F401
from ..profiler._legacy import profile  # noqa: F401
from .profiler_util import MEMORY_EVENT_NAME  # noqa: F401

__all__ = ["profile"]
