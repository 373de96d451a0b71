"""Starting DataLoader workers with 'spawn': bounded, and (by default) without re-running the main script.

PyTorch's workers are forked on Linux: they inherit the dataset, collate_fn and worker_init_fn (lambdas and
classes defined inside functions included) and never re-run the main script, so a script that iterates a
multi-worker DataLoader at module level, with no `if __name__ == "__main__":` guard, works. torchshim spawns
its workers (jax is not fork-safe); to behave like the fork, a worker started with the DataLoader's default
context
- gets the three objects pickled *by value* with `cloudpickle` (`dumps_by_value`), so that what the main
  script or a function defines needs no import in the worker, and
- does not re-run the main script: its start-up data names no main module (`_preparation_data`), except
  `torchshim._cli.spawn_main` when `torch` is torchshim in the parent (`python -m torchshim run`), which then
  only installs the alias (its TORCHSHIM_SPAWN_MAIN is empty) so that `import torch` in the worker is
  torchshim too.
With an explicit `multiprocessing_context='spawn'`, or when cloudpickle is not installed, the worker is
started as multiprocessing's spawn does (standard pickle, main re-run as `__mp_main__`), as PyTorch's
spawned workers are.

Either way the start is bounded (`BoundedSpawnPopen`): multiprocessing writes a worker's start-up data (the
pickled process object, which carries the dataset) to a pipe while it still holds the pipe's read end
itself, so when the worker dies before reading it all (e.g. it re-ran an unguarded script and failed) that
write blocks forever. Here the read end is closed first, the write is non-blocking, watches the worker's
sentinel and has a deadline (`START_TIMEOUT` seconds): a worker that dies or does not read in time is
killed, reaped and reported as `WorkerStartError`."""
import contextlib
import io
import os
import pickle
import select
import signal
import sys
import time
from multiprocessing import context as _context
from multiprocessing import reduction, spawn, util

__all__ = []

START_TIMEOUT = float(os.environ.get("TORCHSHIM_WORKER_START_TIMEOUT", "120"))
"""Seconds a spawned worker may take to read its start-up data, and then to report that it has started
(interpreter start, `import torchshim`, unpickling the dataset); environment variable
TORCHSHIM_WORKER_START_TIMEOUT. PyTorch's forked workers need no such bound."""

_ALIAS_MAIN = "torchshim._cli.spawn_main"  # installs torchshim as `torch`, runs TORCHSHIM_SPAWN_MAIN's main
_MAIN_ENV = "TORCHSHIM_SPAWN_MAIN"  # empty: run no main (torchshim/_cli/workers.py)
_CHUNK = 1 << 16


class WorkerStartError(Exception):
    """A worker died, or did not read its start-up data within START_TIMEOUT seconds (then it was killed).
    `pid`, `exitcode` (None: unknown), `timed_out`."""

    def __init__(self, pid, exitcode, timed_out):
        self.pid, self.exitcode, self.timed_out = pid, exitcode, timed_out
        super().__init__(pid, exitcode, timed_out)


def cloudpickle_or_none():
    try:
        import cloudpickle
    except ImportError:
        return None
    return cloudpickle


def dumps_by_value(obj, cloudpickle):
    """`obj` pickled with cloudpickle: functions and classes of `__main__`, of a function's body and lambdas
    by value, everything importable by reference (as `pickle` does)."""
    buf = io.BytesIO()
    cloudpickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


def _torch_is_torchshim():
    torch = sys.modules.get("torch")
    return torch is not None and torch is sys.modules.get("torchshim")


def _preparation_data(name, run_main):
    """multiprocessing's start-up data for a child (sys.path, cwd, argv, authkey, main module) and the
    environment variables to set while it starts; without `run_main` it names no main module to re-run."""
    data = spawn.get_preparation_data(name)  # wrapped under `python -m torchshim run` (_cli/workers.py)
    if run_main:
        return data, {}
    data.pop("init_main_from_path", None)
    data.pop("init_main_from_name", None)
    if not _torch_is_torchshim():
        return data, {}
    data["init_main_from_name"] = _ALIAS_MAIN
    return data, {_MAIN_ENV: ""}


@contextlib.contextmanager
def _environment(values):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _reap(pid, alive):
    """Kill `pid` if `alive`, wait for it (bounded: SIGKILL) and return its exit code (-signal if killed)."""
    if alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status)


def _write_start_data(fd, data, sentinel, pid, timeout, reap=_reap):
    """Write `data` to the pipe `fd` of child `pid` within `timeout` seconds (None: no limit);
    WorkerStartError when the child dies first (its `sentinel` becomes readable, or the pipe breaks) or the
    time runs out. `reap(pid, alive)`: kills (if alive) and waits for the child, returns its exit code."""
    deadline = None if timeout is None else time.monotonic() + timeout
    view = memoryview(data).cast("B")
    os.set_blocking(fd, False)
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    poller.register(sentinel, select.POLLIN)
    while view.nbytes:
        left = 3600.0 if timeout is None else deadline - time.monotonic()
        if left <= 0:
            raise WorkerStartError(pid, reap(pid, alive=True), timed_out=True)
        events = dict(poller.poll(min(left, 0.1) * 1000))
        if sentinel in events:  # the child exited (nothing else ever makes its sentinel readable)
            raise WorkerStartError(pid, reap(pid, alive=False), timed_out=False)
        if fd not in events:
            continue
        try:
            n = os.write(fd, view[:_CHUNK])
        except BlockingIOError:
            continue
        except BrokenPipeError:
            raise WorkerStartError(pid, reap(pid, alive=False), timed_out=False) from None
        view = view[n:]


def _launch(popen, process_obj):
    """multiprocessing's spawn start, reordered so that it cannot block forever (see the module docstring)."""
    from multiprocessing import resource_tracker

    tracker_fd = resource_tracker.getfd()
    popen._fds.append(tracker_fd)
    prep_data, env = _preparation_data(process_obj._name, getattr(process_obj, "_torchshim_run_main", True))
    fp = io.BytesIO()
    _context.set_spawning_popen(popen)
    try:
        reduction.dump(prep_data, fp)
        reduction.dump(process_obj, fp)
    finally:
        _context.set_spawning_popen(None)
    parent_r = child_w = child_r = parent_w = None
    try:
        parent_r, child_w = os.pipe()
        child_r, parent_w = os.pipe()
        cmd = spawn.get_command_line(tracker_fd=tracker_fd, pipe_handle=child_r)
        popen._fds.extend([child_r, child_w])
        with _environment(env):
            popen.pid = util.spawnv_passfds(spawn.get_executable(), cmd, popen._fds)
        popen.sentinel = parent_r
        for fd in (child_r, child_w):  # now only the child holds them: its death breaks the pipe
            os.close(fd)
        child_r = child_w = None
        timeout = getattr(process_obj, "_torchshim_start_timeout", START_TIMEOUT)
        _write_start_data(parent_w, fp.getbuffer(), parent_r, popen.pid, timeout)
    finally:
        popen.finalizer = util.Finalize(popen, util.close_fds, [fd for fd in (parent_r, parent_w)
                                                                if fd is not None])
        for fd in (child_r, child_w):
            if fd is not None:
                os.close(fd)


if sys.platform != "win32":
    from multiprocessing import popen_spawn_posix

    class BoundedSpawnPopen(popen_spawn_posix.Popen):
        """multiprocessing's spawn Popen with `_launch` above: names the main module only when the process
        asks for it (`_torchshim_run_main`), closes the child's pipe ends before writing, and writes with
        `_write_start_data`."""

        def _launch(self, process_obj):
            _launch(self, process_obj)

    class _SpawnWorker(_context.SpawnProcess):
        """A spawned worker that does not re-run the main module."""

        _torchshim_run_main = False

        @staticmethod
        def _Popen(process_obj):
            return BoundedSpawnPopen(process_obj)

    class _SpawnWorkerWithMain(_SpawnWorker):
        """A spawned worker that re-runs the main module as `__mp_main__`, as multiprocessing's spawn does."""

        _torchshim_run_main = True

    class _SpawnProcess(_SpawnWorkerWithMain):
        """A spawned process as multiprocessing's (main re-run, no time limit on its start) that still
        cannot block its parent for good when it dies while starting (torch.multiprocessing.spawn)."""

        _torchshim_start_timeout = None


def process_class(ctx, run_main, limit=True):
    """The Process class for a worker of context `ctx`: for 'spawn' on POSIX, one forked from the zygote
    (_zygote.py) when the main module need not be re-run and the zygote is available, else one started by
    BoundedSpawnPopen (re-running the main module only when `run_main`; reading its start-up data within
    START_TIMEOUT seconds unless `limit` is False); otherwise `ctx.Process`."""
    if ctx.get_start_method() != "spawn" or sys.platform == "win32":
        return ctx.Process
    if not limit:
        if not run_main:
            raise ValueError("a spawned process without main re-run is a DataLoader worker: limit=True")
        return _SpawnProcess
    if not run_main:
        from . import _zygote
        if _zygote.available():
            return _zygote.ZygoteWorker
    return _SpawnWorkerWithMain if run_main else _SpawnWorker
