"""`_MultiProcessingDataLoaderIter`: the DataLoader iterator with `num_workers > 0` worker processes.

Protocol as PyTorch's: each worker has an index queue; tasks `(send_idx, indices)` go round robin to active
workers, at most `prefetch_factor * num_workers` outstanding; results come back on one shared queue and are
returned in task order (or as they arrive with `in_order=False`). Persistent workers get `_ResumeIteration`
at each new epoch; shutdown sends None to every worker, joins them and terminates stragglers.

Differences from PyTorch:
- start method 'spawn' unless `multiprocessing_context` says otherwise (see dataloader.py); with the default
  context each worker is forked from torchshim's zygote, a process that imported torchshim once
  (_zygote.py), rather than spawned (an interpreter start and a torchshim import per worker); the dataset,
  collate_fn and worker_init_fn are pickled once, here, so an unpicklable one fails before any worker starts.
  With the default context they are pickled by value with cloudpickle and the workers do not re-run the main
  script, as forked ones (PyTorch on Linux) do not: lambdas, classes defined in functions and scripts without
  a `__main__` guard work (_spawn.py).
- every worker start is bounded (_spawn.START_TIMEOUT): a worker that dies or hangs while starting raises
  PyTorch's "DataLoader worker (pid(s) X) exited unexpectedly" instead of blocking the main process.
- no SIGCHLD handler: while waiting for data the main process checks every `_POLL_INTERVAL` seconds whether a
  worker has died, and raises PyTorch's RuntimeError ("DataLoader worker (pid(s) X) exited unexpectedly",
  caused by "... is killed by signal: ..." or "... exited unexpectedly with exit code N ...").
- batches travel as pickled numpy arrays (Tensor.__reduce_ex__), not through shared memory.
- `timeout` starts counting once every worker has started (a spawned worker takes a second or more to
  import torchshim; PyTorch's forked workers start at once)."""
import contextlib
import itertools
import multiprocessing as python_multiprocessing
import os
import pickle
import queue
import signal
import time
import warnings

from . import _spawn, _utils
from ._iterators import _BaseDataLoaderIter
from ._utils.worker import _IterableDatasetStopIteration, _ResumeIteration, _worker_loop, _WorkerStarted
from .dataloader import DEFAULT_START_METHOD, _DatasetKind

__all__ = []

_POLL_INTERVAL = 0.1
"""Seconds between checks for dead workers while the main process waits for a batch."""

_PICKLE_ERROR_WARNING = (
    "Got pickle error when attempting to start a worker Process. This might be because the worker Process "
    "arguments are not picklable. torchshim starts workers with the 'spawn' method by default, which "
    "requires the dataset, collate_fn and worker_init_fn to be picklable (by cloudpickle, by value, with the "
    "default multiprocessing_context; by the standard pickle, so defined at module level, with an explicit "
    "'spawn' or 'forkserver' one).")


def _failure_cause(worker):
    """The exception PyTorch's SIGCHLD handler raises for a dead worker, or None for a clean exit."""
    return _exit_cause(worker.pid, worker.exitcode)


def _exit_cause(pid, code):
    if code is None or code == 0:
        return None
    if code < 0:
        try:
            name = signal.strsignal(-code)
        except ValueError:
            name = f"Unknown signal {-code}"
        msg = f"DataLoader worker (pid {pid}) is killed by signal: {name}. "
        if -code == signal.SIGBUS:
            msg += ("It is possible that dataloader's workers are out of shared memory. Please try to raise "
                    "your shared memory limit.")
        return RuntimeError(msg)
    return RuntimeError(f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {code}. "
                        "Details are lost due to multiprocessing. Rerunning with num_workers=0 may give "
                        "better error trace.")


def _start_cause(error):
    """The cause of the RuntimeError for a worker that failed while starting (_spawn.WorkerStartError)."""
    if error.timed_out:
        return RuntimeError(
            f"DataLoader worker (pid {error.pid}) did not read its start-up data within "
            f"{_spawn.START_TIMEOUT:g} seconds and was killed (set TORCHSHIM_WORKER_START_TIMEOUT to allow "
            "longer).")
    if error.exitcode is None or error.exitcode < 0:
        return _exit_cause(error.pid, error.exitcode) or RuntimeError(
            f"DataLoader worker (pid {error.pid}) exited unexpectedly while starting.")
    return RuntimeError(
        f"DataLoader worker (pid {error.pid}) exited unexpectedly while starting, with exit code "
        f"{error.exitcode} (its traceback, if any, is on stderr). A worker started with "
        "multiprocessing_context='spawn' re-runs the main script: put the code that iterates the DataLoader "
        "under `if __name__ == '__main__':`, or leave multiprocessing_context unset.")


@contextlib.contextmanager
def _cpu_only_environment():
    """JAX_PLATFORMS=cpu while workers start: a spawned worker's jax then never initialises an accelerator,
    even if the main module it re-imports creates tensors at import time."""
    old = os.environ.get("JAX_PLATFORMS")
    os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("JAX_PLATFORMS", None)
        else:
            os.environ["JAX_PLATFORMS"] = old


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        self._shutdown = True  # nothing to shut down until the workers exist
        self._workers = []
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for MultiProcessingDataLoaderIter")
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context
        # the default context: objects by value, no main re-run (like PyTorch's fork); explicit: as PyTorch's
        cloudpickle = _spawn.cloudpickle_or_none() if ctx is None else None
        if ctx is None:
            ctx = python_multiprocessing.get_context(DEFAULT_START_METHOD)
        self._worker_init_fn = loader.worker_init_fn
        objects = (self._dataset, self._collate_fn, self._worker_init_fn)
        if ctx.get_start_method() == "fork":
            payload = objects  # inherited by the child, as in PyTorch (lambdas work)
        else:
            try:
                if cloudpickle is not None:
                    payload = _spawn.dumps_by_value(objects, cloudpickle)
                else:
                    payload = bytes(python_multiprocessing.reduction.ForkingPickler.dumps(objects))
            except (TypeError, AttributeError, pickle.PicklingError):
                warnings.warn(_PICKLE_ERROR_WARNING, stacklevel=3)
                raise
        self._process_class = _spawn.process_class(ctx, run_main=cloudpickle is None)

        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        self._index_queues = []
        self._started = set()  # ids of the workers that have reported _WorkerStarted
        self._shutdown = False
        try:
            with _cpu_only_environment():
                self._start_workers(ctx, payload)
        except _spawn.WorkerStartError as e:
            self._shutdown_workers()
            raise RuntimeError(f"DataLoader worker (pid(s) {e.pid}) exited unexpectedly") from _start_cause(e)
        except BaseException:
            self._shutdown_workers()
            raise
        self._start_deadline = time.monotonic() + _spawn.START_TIMEOUT
        self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _start_workers(self, ctx, payload):
        for i in range(self._num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            w = self._process_class(target=_worker_loop, args=(
                self._dataset_kind, payload, index_queue, self._worker_result_queue, self._workers_done_event,
                self._auto_collation, self._drop_last, self._base_seed, i, self._num_workers,
                self._persistent_workers, self._shared_seed))
            w.daemon = True
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)

    def _check_started_in_time(self):
        """RuntimeError (PyTorch's dead-worker message) when a worker has not reported its start within
        START_TIMEOUT seconds of being started; such workers are terminated first."""
        if len(self._started) == self._num_workers or time.monotonic() < self._start_deadline:
            return
        late = [(i, w) for i, w in enumerate(self._workers) if i not in self._started]
        for i, w in late:
            self._mark_worker_as_unavailable(i)
            w.kill()
            w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
        pids = ", ".join(str(w.pid) for _, w in late)
        raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from RuntimeError(
            f"DataLoader worker (pid(s) {pids}) did not start within {_spawn.START_TIMEOUT:g} seconds and "
            "was killed (torchshim spawns its workers: each starts a Python interpreter and imports "
            "torchshim; set TORCHSHIM_WORKER_START_TIMEOUT to allow longer).")

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # index of the next task to send to a worker
        self._rcvd_idx = 0  # index of the next task to return from __next__
        self._task_info = {}  # task -> (worker id,) while outstanding, (worker id, data) when it came early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: restart each, and drop what is left of the last epoch
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_ResumeIteration(self._shared_seed))
            resume_iteration_cnt = self._num_workers
            while resume_iteration_cnt > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, _ResumeIteration):
                    resume_iteration_cnt -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        """(True, data) from the result queue within `timeout` seconds, or (False, None); raises PyTorch's
        RuntimeError as soon as an active worker has died."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                wait = min(_POLL_INTERVAL, max(0.0, deadline - time.monotonic()))
                return True, self._data_queue.get(timeout=wait)
            except Exception as e:
                failed = [(i, w) for i, w in enumerate(self._workers)
                          if self._workers_status[i] and not w.is_alive()]
                if failed:
                    for worker_id, _ in failed:
                        self._mark_worker_as_unavailable(worker_id)
                    pids_str = ", ".join(str(w.pid) for _, w in failed)
                    cause = next((c for c in (_failure_cause(w) for _, w in failed) if c is not None), e)
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids_str}) exited unexpectedly") from cause
                if not isinstance(e, queue.Empty):
                    raise
                if time.monotonic() >= deadline:
                    return False, None

    def _get_data(self):
        while True:
            if self._timeout > 0 and len(self._started) == self._num_workers:
                success, data = self._try_get_data(self._timeout)
                if not success:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            else:  # no timeout, or workers still starting (their start-up is not part of the timeout)
                success, data = self._try_get_data(min(_utils.MP_STATUS_CHECK_INTERVAL, _spawn.START_TIMEOUT))
                if not success:
                    self._check_started_in_time()
                    continue
            if isinstance(data[0], _WorkerStarted):
                self._started.add(data[0].worker_id)
                continue
            return data

    def _next_data(self):
        while True:
            # skip tasks of workers that ended (IterableDataset) and never answered
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx, None)
                if info:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:  # has data or is still active
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived earlier, out of order
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks when fetching "
                                     "next data")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            ended = isinstance(data, _IterableDatasetStopIteration)
            if ended and self._dataset_kind == _DatasetKind.Iterable:
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)  # keep it until its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_idx):
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, _utils.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        """Tell worker `worker_id` to exit (None on its index queue) and stop sending it tasks."""
        self._index_queues[worker_id].put(None)
        if hasattr(self, "_workers_status"):
            self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if _utils is None or _utils.python_exit_status is True or _utils.python_exit_status is None:
            return  # interpreter shutdown: daemonic workers are cleaned up by multiprocessing
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            status = getattr(self, "_workers_status", None) or [True] * len(self._workers)  # None: mid-start
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        self._shutdown_workers()
