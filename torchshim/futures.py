"""`torch.futures`: `Future` (a result that arrives later: `wait`, `value`, `done`, `then`,
`add_done_callback`, `set_result`, `set_exception`), `collect_all` and `wait_all`.

A pure-Python Future, thread-safe (callbacks run in the thread that completes it, or at once when it is
already complete), with PyTorch's errors. Difference: `devices=` accepts only CPU devices (there are no CUDA
streams to synchronize).
"""
import threading
import traceback
import types

from ._api import device as _device

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """`torch.futures.Future(*, devices=None)`; `Future[T]` is a generic alias, as PyTorch's (DDP comm hooks
    are annotated `-> torch.futures.Future[torch.Tensor]`)."""

    __class_getitem__ = classmethod(types.GenericAlias)

    def __init__(self, *, devices=None):
        for d in devices or []:
            dev = _device(d)
            if dev.index is None:
                raise ValueError(f"Expected devices to have indices, got {dev}")
            if dev.type != "cpu":
                raise ValueError(f"Expected devices to be CUDA devices, got {dev}")
        self._cond = threading.Condition()
        self._done = False
        self._result = None
        self._error = None
        self._callbacks = []

    def done(self):
        """`Future.done() -> bool`: whether a result or an exception is set."""
        return self._done

    def wait(self):
        """`Future.wait()`: block until complete; return the result or raise the exception."""
        with self._cond:
            self._cond.wait_for(lambda: self._done)
        if self._error is not None:
            raise self._error
        return self._result

    def value(self):
        """`Future.value()`: the result of a completed Future (raises its exception, if it has one)."""
        if not self._done:
            raise RuntimeError("Future hasn't completed yet")  # PyTorch asserts this in C++
        if self._error is not None:
            raise self._error
        return self._result

    def _complete(self, result, error):
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that "
                                   "a Future "
                                   "can only be marked completed once.")
            self._result, self._error, self._done = result, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def set_result(self, result):
        """`Future.set_result(result)`: complete with `result`; runs the callbacks."""
        self._complete(result, None)

    def set_exception(self, result):
        """`Future.set_exception(result)`: complete with an exception that `wait()`/`value()` raise."""
        assert isinstance(result, Exception), f"{result} is of type {type(result)}, not an Exception."
        self._complete(None, result)

    def add_done_callback(self, callback):
        """`Future.add_done_callback(callback)`: call `callback(fut)` on completion (now, if complete).
        Exceptions it raises are logged and ignored, as in PyTorch."""
        def safe(fut):
            try:
                callback(fut)
            except Exception:  # noqa: BLE001  PyTorch logs and swallows callback errors here
                traceback.print_exc()
        self._add(safe)

    def _add(self, fn):
        with self._cond:
            if not self._done:
                self._callbacks.append(fn)
                return
        fn(self)

    def then(self, callback):
        """`Future.then(callback) -> Future`: a new Future completed with `callback(self)`'s return value
        (or with a RuntimeError wrapping the exception it raised)."""
        out = Future()

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001  carried to the chained Future
                out.set_exception(RuntimeError(f"Got the following error when running the callback: "
                                               f"{type(e).__name__}: {e}"))
                return
            out.set_result(result)
        self._add(run)
        return out


def collect_all(futures):
    """`torch.futures.collect_all(futures) -> Future[list[Future]]`: completes with the list of `futures`
    when all of them are complete."""
    futures = list(futures)
    out = Future()
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])
        return out

    def one(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)
    for f in futures:
        f._add(one)
    return out


def wait_all(futures):
    """`torch.futures.wait_all(futures) -> list`: the results of all `futures` (raises the first error)."""
    return [f.wait() for f in collect_all(futures).wait()]
