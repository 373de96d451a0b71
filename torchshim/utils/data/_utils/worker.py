"""`torch.utils.data._utils.worker`: the loop each DataLoader worker process runs, `get_worker_info()` and
`WorkerInfo`, and PyTorch's per-worker numpy seed (`_generate_state`).

A worker receives `(task index, sampler index)` pairs on its index queue and answers `(task index, data)` on
the shared result queue; data is the collated batch (tensors pickle as numpy arrays and are rebuilt as
torchshim tensors by the main process), an `ExceptionWrapper`, or `_IterableDatasetStopIteration`.
`None` on the index queue ends the worker; `_ResumeIteration` restarts it for a new epoch (persistent
workers). Seeding as PyTorch: `seed = base_seed + worker_id` for `random` and torchshim's default generator,
`_generate_state(base_seed, worker_id)` for numpy's global RNG.

Differences from PyTorch: the worker's jax runs on the CPU only (a worker never grabs an accelerator); the
dataset, collate_fn and worker_init_fn arrive pickled (`payload`) and are unpickled in the worker after jax is
configured; an unpickling error is reported like an error in `worker_init_fn`."""
from __future__ import annotations

import faulthandler
import os
import pickle
import queue
import random
from dataclasses import dataclass
from typing import Any

from . import MP_STATUS_CHECK_INTERVAL
from ._exception import ExceptionWrapper

__all__ = ["WorkerInfo", "get_worker_info"]


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive: its parent pid is unchanged, and
    multiprocessing's parent sentinel (a pipe the main process holds) is open; a worker forked from the
    zygote (_zygote.py) has the zygote for OS parent, so only the sentinel tells."""

    def __init__(self):
        import multiprocessing
        self.manager_pid = os.getppid()
        self.manager_dead = False
        self.parent = multiprocessing.parent_process()

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid or (
                self.parent is not None and not self.parent.is_alive())
        return not self.manager_dead


_worker_info: WorkerInfo | None = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process: `id` (0 .. num_workers - 1), `num_workers`,
    `seed` (base_seed + id), `dataset` (this process's copy), `rng` (None), `worker_method`
    ('multiprocessing')."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


def get_worker_info():
    """`torch.utils.data.get_worker_info()`: the `WorkerInfo` of this worker process, None in the main
    process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _WorkerStarted:
    """Sent once by each worker when it has started (torchshim only): the DataLoader's `timeout` counts from
    the moment every worker has started, so the seconds a spawned worker needs to import torchshim are not
    part of it (PyTorch's forked workers start at once)."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of each new epoch; echoed back as an acknowledgement."""

    seed: int | None = None


def _generate_state(base_seed, worker_id):
    """PyTorch's numpy seed for a worker: four 32-bit words hashed from (worker_id, base_seed), the scheme of
    numpy's SeedSequence (so different workers and epochs get unrelated streams)."""
    INIT_A, MULT_A = 0x43B0D7E5, 0x931E8875
    INIT_B, MULT_B = 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
    XSHIFT = 4 * 8 // 2
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value):
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        result = (((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)) & MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(len(pool)):
        pool[i] = hash(entropy[i])
    for i_src in range(len(pool)):
        for i_dst in range(len(pool)):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))

    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = pool[i_dst]
        data_val = (data_val ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        state.append((data_val ^ (data_val >> XSHIFT)) & MASK32)
    return state


def _use_cpu_only():
    """Keep this process's jax on the CPU (a no-op when jax's backends already exist, e.g. after a fork)."""
    import jax
    try:
        from jax._src import xla_bridge
        if not getattr(xla_bridge, "_backends", None):
            jax.config.update("jax_platforms", "cpu")
    except Exception:  # jax internals moved: keep jax's own default
        pass


def _seed_worker(seed, base_seed, worker_id):
    import numpy as np

    from .... import _api as torchshim
    random.seed(seed)
    torchshim.manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))


def _worker_loop(dataset_kind, payload, index_queue, data_queue, done_event, auto_collation, drop_last,
                 base_seed, worker_id, num_workers, persistent_workers, shared_seed):
    """The body of worker process `worker_id`. `payload`: the pickled (dataset, collate_fn,
    worker_init_fn), or the tuple itself under the 'fork' start method."""
    global _worker_info
    try:
        faulthandler.enable()  # a crash (SIGSEGV, SIGBUS...) prints the worker's Python stack to stderr
        _use_cpu_only()
        init_exception = None
        dataset = collate_fn = init_fn = fetcher = None
        try:
            objects = pickle.loads(payload) if isinstance(payload, bytes) else payload  # bytes unless forked
            dataset, collate_fn, init_fn = objects
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        seed = base_seed + worker_id
        _seed_worker(seed, base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        data_queue.put((_WorkerStarted(worker_id), None))

        from ..dataloader import _DatasetKind
        if init_exception is None:
            try:
                if init_fn is not None:
                    init_fn(worker_id)
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                                      drop_last)
            except Exception:
                init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))  # acknowledge
                iteration_end = False
                if init_exception is None:
                    fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                                          drop_last)
                continue
            if r is None:  # the main process asks this worker to exit
                break
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or this worker's iterable is exhausted: drop the task
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True  # later tasks of this epoch are dropped
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass  # the main process handles the interrupt and shuts the workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
    _exit_now(data_queue, done_event)


def _exit_now(data_queue, done_event):
    """End the worker without the interpreter's teardown (a second or more with jax loaded), as a forked
    worker of PyTorch ends (`os._exit` after multiprocessing's own exit hooks)."""
    import multiprocessing.util
    import sys
    if not done_event.is_set():
        data_queue.close()
        data_queue.join_thread()  # deliver what is still buffered
    try:
        multiprocessing.util._exit_function()
    except Exception:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)
