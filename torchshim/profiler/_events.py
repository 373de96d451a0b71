"""What torchshim's profiler records: one `FunctionEvent` per `record_function` span (and per
`ProfilerStep#N`), timed by torchshim itself with `time.perf_counter_ns`, nested per thread; `EventList`
(`prof.events()`), `key_averages()` (one `FunctionEventAvg` per name) and its `table()` in PyTorch's layout,
and the chrome trace JSON (`export_chrome_trace`)."""
import gzip
import json
import os
import threading
import time

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList", "Recorder"]


def _fmt_us(us):
    """PyTorch's time format: s / ms / us with three decimals."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class FunctionEvent:
    """One recorded span: name, thread, start/end (microseconds), parent/children."""

    def __init__(self, id, name, thread, start_us, end_us=None, is_user_annotation=True):
        self.id, self.name, self.thread = id, name, thread
        self.start_us, self.end_us = start_us, end_us
        self.cpu_parent, self.cpu_children = None, []
        self.is_user_annotation = is_user_annotation
        self.count = 1
        self.device_type = "CPU"
        self.input_shapes, self.stack = [], []

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_fmt_us(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} thread={self.thread}>")


class FunctionEventAvg:
    """`key_averages()` row: totals over every event of one name."""

    def __init__(self, key):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.is_user_annotation = True
        self.device_type = "CPU"

    def add(self, other):
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_total_str(self):
        return _fmt_us(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _fmt_us(self.self_cpu_time_total)

    @property
    def cpu_time_str(self):
        return _fmt_us(self.cpu_time)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_fmt_us(self.self_cpu_time_total)} "
                f"cpu_time={_fmt_us(self.cpu_time)} count={self.count}>")


_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count")


class EventList(list):
    """`torch.autograd.profiler_util.EventList`: a list of events with `table()`, `key_averages()`,
    `total_average()`, `export_chrome_trace()`, `self_cpu_time_total`."""

    def __init__(self, *args, trace_start_ns=0, **kwargs):
        super().__init__(*args, **kwargs)
        self._trace_start_ns = trace_start_ns

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One FunctionEventAvg per event name, in order of first appearance."""
        rows = {}
        for e in self:
            key = "ProfilerStep*" if e.key.startswith("ProfilerStep#") else e.key  # PyTorch merges steps
            rows.setdefault(key, FunctionEventAvg(key)).add(e)
        return EventList(rows.values(), trace_start_ns=self._trace_start_ns)

    def total_average(self):
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """PyTorch's profiler table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        # of Calls, and the self CPU time total. sort_by: None (recorded order), 'cpu_time_total',
        'self_cpu_time_total', 'cpu_time', 'count' (descending)."""
        events = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            events.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if top_level_events_only:
            events = [e for e in events if getattr(e, "cpu_parent", None) is None]
        events = events[:row_limit] if row_limit is not None and row_limit > 0 else events
        total_self = sum(e.self_cpu_time_total for e in self) or 1.0
        name_w = max([len("Name")] + [min(len(e.key), max_name_column_width) for e in events]) + 4
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        line = "-" * name_w + "  " + "  ".join("-" * 12 for _ in cols) + "  "
        out = []
        if header is not None:
            out += ["=" * len(line), header]
        out += [line, "Name".rjust(name_w) + "  " + "  ".join(c.rjust(12) for c in cols) + "  ", line]
        for e in events:
            name = e.key if len(e.key) <= max_name_column_width else e.key[:max_name_column_width - 3] + "..."
            vals = [f"{100 * e.self_cpu_time_total / total_self:.2f}%", _fmt_us(e.self_cpu_time_total),
                    f"{100 * e.cpu_time_total / total_self:.2f}%", _fmt_us(e.cpu_time_total),
                    _fmt_us(e.cpu_time), str(e.count)]
            out.append(name.rjust(name_w) + "  " + "  ".join(v.rjust(12) for v in vals) + "  ")
        out += [line, f"Self CPU time total: {_fmt_us(sum(e.self_cpu_time_total for e in self))}", ""]
        return "\n".join(out)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a chrome trace (JSON object with `traceEvents` of complete 'X' events, times
        in microseconds); gzip-compressed when path ends with '.gz'."""
        pid = os.getpid()
        events = []
        for i, e in enumerate(self):
            if not isinstance(e, FunctionEvent):
                continue
            events.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                           "name": e.name, "pid": pid, "tid": e.thread, "ts": e.start_us,
                           "dur": e.cpu_time_total, "args": {"Ev Idx": i}})
        doc = {"schemaVersion": 1, "displayTimeUnit": "ms", "traceName": str(path),
               "baseTimeNanoseconds": self._trace_start_ns, "traceEvents": events}
        data = json.dumps(doc).encode()
        if str(path).endswith(".gz"):
            with gzip.open(path, "wb") as f:
                f.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)
        return path


class Recorder:
    """Collects the spans of the record_function calls made while it is active (all threads)."""

    _active = []  # recorders currently recording
    _lock = threading.Lock()

    def __init__(self):
        self.events = []
        self._stack = threading.local()
        self._next_id = 0
        self.start_ns = time.perf_counter_ns()

    def begin(self, name, user=True):
        with Recorder._lock:
            self._next_id += 1
            eid = self._next_id
        ev = FunctionEvent(eid, name, threading.get_ident(), (time.perf_counter_ns() - self.start_ns) / 1e3,
                           is_user_annotation=user)
        stack = self._stack.__dict__.setdefault("s", [])
        if stack:
            ev.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(ev)
        stack.append(ev)
        return ev

    def end(self, ev):
        ev.end_us = (time.perf_counter_ns() - self.start_ns) / 1e3
        stack = self._stack.__dict__.setdefault("s", [])
        if ev in stack:
            stack.remove(ev)
        self.events.append(ev)

    def activate(self):
        with Recorder._lock:
            if self not in Recorder._active:
                Recorder._active.append(self)

    def deactivate(self):
        with Recorder._lock:
            if self in Recorder._active:
                Recorder._active.remove(self)

    def event_list(self):
        return EventList(sorted(self.events, key=lambda e: (e.start_us, e.id)), trace_start_ns=self.start_ns)
