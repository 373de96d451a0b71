"""`torch.profiler.profile`, `schedule`, `ProfilerAction`, `ProfilerActivity`, `tensorboard_trace_handler`.

Difference from PyTorch (docs/differences.md "torch.profiler"): torchshim records the spans of
`record_function` (and `ProfilerStep#N` under a schedule), timed by torchshim; it does not record each
aten op or kernel (XLA runs fused kernels; use `jax.profiler.trace(logdir)` for an XLA-level trace, where the
same `record_function` names appear as TraceAnnotations). Shapes, memory, stacks and FLOPs are not recorded.
The schedule's state machine, `step()`, `on_trace_ready`, `key_averages().table()` and
`export_chrome_trace` follow PyTorch.
"""
import enum
import os
import socket
import time
import warnings

from .._c_profiler import ProfilerActivity, kineto_available
from ._events import Recorder
from ._record import record_function
from ._step_tracker import KinetoStepTracker

__all__ = ["ProfilerAction", "ProfilerActivity", "schedule", "profile", "tensorboard_trace_handler",
           "supported_activities", "kineto_available"]


class ProfilerAction(enum.Enum):
    """`torch.profiler.ProfilerAction`: what a schedule says to do at a step."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """`torch.profiler.supported_activities()`: {CPU} (torchshim times CPU-side spans only)."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """`torch.profiler.schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0)`: step ->
    ProfilerAction. After `skip_first` steps, cycles of `wait` idle, `warmup` warming and `active` recording
    steps (the last one RECORD_AND_SAVE), `repeat` times (0 = forever); skip_first_wait=1 skips the first
    cycle's wait."""
    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, (
        f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
        f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


_PROFILER_STEP_NAME = "ProfilerStep"  # this profiler's requester in KinetoStepTracker
_warned = [False]  # PyTorch warns once per process


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """`torch.profiler.tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False)`: an
    on_trace_ready callback writing `<dir_name>/<worker_name>.<time_ns>.pt.trace.json[.gz]` (worker_name
    defaults to '<hostname>_<pid>'), the layout TensorBoard's profiler plugin reads."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class profile:
    """`torch.profiler.profile(*, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
    profile_memory=False, with_stack=False, with_flops=False, with_modules=False, ...)`: a context manager
    (or start()/stop()) recording record_function spans; `step()` advances the schedule. Activities other
    than CPU raise ValueError (none is supported here)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        acts = set(activities) if activities else supported_activities()
        if use_cuda:
            warnings.warn("The use_cuda parameter is deprecated. Please use the activities argument instead.",
                          FutureWarning, stacklevel=2)
            acts.add(ProfilerActivity.CUDA)
        unsupported = acts - supported_activities()
        if unsupported:
            raise ValueError(f"torchshim's profiler records CPU-side spans only; unsupported activities: "
                             f"{sorted(a.name for a in unsupported)}")
        self.activities = acts
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.on_trace_ready = on_trace_ready
        self.acc_events = acc_events
        self.schedule = schedule if schedule else _default_schedule_fn
        self.record_steps = bool(schedule)
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None
        self._recorder = None  # the recorder of the current (or last finished) active span
        self._last = None

    # -- the PyTorch state machine --
    def _prepare(self):
        if self._recorder is not None:
            if self.acc_events:
                return  # keep accumulating into the same recorder
            if not _warned[0]:
                _warned[0] = True
                warnings.warn("Warning: Profiler clears events at the end of each cycle. Only events from "
                              "the "
                              "current cycle will be reported. To keep events across cycles, set "
                              "acc_events=True.", stacklevel=4)
        self._recorder = Recorder()

    def _start(self):
        if self._recorder is None:
            self._prepare()
        self._recorder.activate()

    def _stop(self):
        if self._recorder is not None:
            self._recorder.deactivate()
            self._last = self._recorder

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit(self, prev, cur):
        A = ProfilerAction
        if prev is A.WARMUP and cur is A.NONE or prev is A.RECORD and cur in (A.NONE, A.WARMUP):
            warnings.warn(f"Incorrect schedule: {prev.name} followed by {cur.name}", stacklevel=3)
        if prev is A.NONE:
            if cur is not A.NONE:
                self._prepare()
            if cur in (A.RECORD, A.RECORD_AND_SAVE):
                self._start()
        elif prev is A.WARMUP:
            if cur in (A.RECORD, A.RECORD_AND_SAVE, A.NONE, None):
                self._start()
            if cur in (A.NONE, None):
                self._stop()
        elif prev is A.RECORD:
            if cur in (A.NONE, A.WARMUP, None):
                self._stop()
            if cur is None:
                self._trace_ready()
        elif prev is A.RECORD_AND_SAVE:
            self._stop()
            self._trace_ready()
            if cur not in (A.NONE, None):
                self._prepare()
            if cur in (A.RECORD, A.RECORD_AND_SAVE):
                self._start()

    def start(self):
        """Begin profiling (the context manager's enter)."""
        KinetoStepTracker.init_step_count(_PROFILER_STEP_NAME)
        self._transit(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """End profiling (the context manager's exit); calls on_trace_ready for a span still recording."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
        self._transit(self.current_action, None)
        KinetoStepTracker.erase_step_count(_PROFILER_STEP_NAME)

    def step(self):
        """Signal the end of a step: advance the schedule (closing/starting recording spans)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    # -- results --
    def _result(self):
        r = self._last if self._last is not None else self._recorder
        assert r is not None, "Profiler must be initialized before exporting chrome trace"
        return r.event_list()

    def events(self):
        """The recorded FunctionEvents of the last recording span (an EventList)."""
        return self._result()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """Per-name totals (`FunctionEventAvg`: count, cpu_time_total, self_cpu_time_total, cpu_time), with
        `.table()`."""
        return self._result().key_averages()

    def export_chrome_trace(self, path):
        """Write the last span's events as chrome trace JSON (`.gz`: gzip)."""
        return self._result().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Not recorded by torchshim (no stacks): RuntimeError as PyTorch without with_stack=True."""
        raise RuntimeError("export_stacks() requires with_stack=True, which torchshim's profiler does not "
                           "record")
