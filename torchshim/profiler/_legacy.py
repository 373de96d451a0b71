"""`torch.autograd.profiler.profile` (the legacy profiler): records record_function spans between enter
and exit; `key_averages()`, `table()`, `function_events`, `export_chrome_trace` as in PyTorch (the same
difference as torch.profiler: no per-op events)."""
from ._events import Recorder

__all__ = ["profile"]


class profile:
    """`torch.autograd.profiler.profile(enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
    with_flops=False, profile_memory=False, with_stack=False, with_modules=False, use_kineto=False,
    use_cpu=True, ...)`."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self._recorder = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._recorder = Recorder()
        self._recorder.activate()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.enabled and self._recorder is not None:
            self._recorder.deactivate()
        return False

    def _check_finish(self):
        if self._recorder is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self):
        return None if self._recorder is None else self._recorder.event_list()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages()

    def table(self, sort_by=None, row_limit=100, **kwargs):
        self._check_finish()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table() if self._recorder is not None else "<unfinished torch.autograd.profile>"
