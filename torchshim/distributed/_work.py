"""`torch.distributed.Work` (what `async_op=True` returns) and the Future of `Work.get_future()`.

A Work holds a `finish()` callable: it waits for the collective's jax arrays (jax dispatch is asynchronous,
so the collective runs while Python goes on), writes the results into the caller's tensors, and returns the
future's value. `wait()` runs it once; errors surface from `wait()` as in PyTorch.
"""
import time

__all__ = ["Work", "completed"]


class _Future:
    """`torch.futures.Future`-like: `wait()`, `value()`, `done()`, `then(fn)`, `add_done_callback(fn)`."""

    def __init__(self, work):
        self._work = work

    def wait(self):
        self._work.wait()
        return self._work._value

    def value(self):
        return self.wait()

    def done(self):
        return self._work.is_completed()

    def then(self, callback):
        """A Future of `callback(self)`, run once, when the chained future is first waited on."""
        parent = self

        class _Then(_Future):
            _ran = False
            _result = None

            def wait(self):
                if not self._ran:
                    self._result = callback(parent)
                    self._ran = True
                return self._result

        return _Then(self._work)

    def add_done_callback(self, callback):
        self.wait()
        callback(self)


class Work:
    """`torch.distributed.Work`: `wait(timeout=None) -> True`, `is_completed()`, `is_success()`,
    `exception()`, `get_future()`, `result()`, `source_rank()` (irecv with src=None), `synchronize()`."""

    def __init__(self, finish, ready=None, source=None):
        self._finish = finish
        self._ready = ready  # () -> bool: whether wait() would not block
        self._done = False
        self._exc = None
        self._value = None
        self._source = source

    def wait(self, timeout=None):
        """Block until the operation has finished and its results are in the tensors; returns True."""
        if not self._done:
            try:
                self._value = self._finish()
            except BaseException as e:
                self._exc = e
                self._done = True
                raise
            self._done = True
        elif self._exc is not None:
            raise self._exc
        return True

    synchronize = wait

    def is_completed(self):
        """Whether the operation has finished (the results are written into the tensors when it has)."""
        if not self._done and self._ready is not None and self._ready():
            try:
                self.wait()
            except Exception:
                pass
        return self._done

    def is_success(self):
        return self._done and self._exc is None

    def exception(self):
        return self._exc

    def get_future(self):
        """A Future whose `wait()` returns the output tensors (a list), as PyTorch's."""
        return _Future(self)

    def result(self):
        self.wait()
        return self._value

    def source_rank(self):
        """The sender's rank of a completed irecv."""
        self.wait()
        if self._source is None:
            raise RuntimeError("source_rank() is only available for recv operations")
        return self._source() if callable(self._source) else self._source

    def block_current_stream(self):
        self.wait()

    def __repr__(self):
        return f"<torchshim.distributed.Work object at {hex(id(self))}>"


def completed(value=None):
    """A Work that has already finished."""
    w = Work(lambda: value)
    w.wait()
    return w


def _now():
    return time.monotonic()
