"""`torch.profiler`: record_function spans timed by torchshim (also jax TraceAnnotations), PyTorch's
schedule/step state machine, key_averages().table(), chrome traces, tensorboard_trace_handler."""
from . import itt, profiler  # noqa: F401
from . import _ops  # noqa: F401  (torch.ops.profiler._record_function_enter / _exit)
from .._c_profiler import DeviceType, RecordScope  # noqa: F401
from ._events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401
from ._record import record_function  # noqa: F401
from ._step_tracker import KinetoStepTracker  # noqa: F401
from .profiler import (  # noqa: F401
    ProfilerAction, ProfilerActivity, kineto_available, profile, schedule, supported_activities,
    tensorboard_trace_handler)

__all__ = ["ProfilerAction", "ProfilerActivity", "kineto_available", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler", "DeviceType"]
