"""DataLoader workers forked from a zygote: an interpreter that has imported torchshim once.

A spawned worker starts a Python interpreter and imports jax and torchshim (seconds of CPU), and a
DataLoader without `persistent_workers` starts `num_workers` of them for every iterator, i.e. every epoch.
PyTorch forks its workers, which costs milliseconds. jax cannot be forked once its backend has started (its
threads do not survive a fork), but `import torchshim` starts no backend: so the first multi-worker iterator
with the default context starts one zygote process (multiprocessing's fork server, `main` of
multiprocessing.forkserver, preloading `_zygote_preload`, which imports torchshim with jax kept on the CPU),
and every worker is then forked from it. Each worker is a fresh process, as a spawned or a PyTorch-forked
one is: its dataset copy, collate_fn and worker_init_fn are unpickled anew from the iterator's payload, it is
seeded, gets its own WorkerInfo, and it ends when its iterator shuts it down (persistent workers keep
theirs); nothing that one worker does is seen by the next. The zygote runs no user code and lives until the
main process and its workers have exited.

What a fork from the zygote would not get from the main process at the time of the start, it is given:
the main process's current environment variables (`os.environ`, with the DataLoader's JAX_PLATFORMS=cpu),
its current stdout and stderr (fds 1 and 2, sent with the other descriptors), and multiprocessing's usual
start-up data (sys.path, working directory, the `torch` alias under `python -m torchshim run`). Start-up is
bounded like a spawned worker's (`_spawn.START_TIMEOUT`: the zygote's own start is part of the first
worker's). Workers started this way watch the main process through multiprocessing's parent sentinel (their
OS parent is the zygote). What jax and torchshim read from the environment at import (JAX_* variables,
torchshim's own settings) is what the environment held when the zygote started, i.e. at the first
multi-worker iterator, not at each worker's start as for a spawned worker.

Only where the fork server exists (POSIX with fd passing), and TORCHSHIM_WORKER_ZYGOTE is not "0"; otherwise
the workers are spawned (_spawn.py)."""
import io
import os
import threading
import time
from multiprocessing import connection, context as _context, forkserver, reduction, util

from . import _spawn

try:
    from multiprocessing.popen_forkserver import Popen as _ForkServerPopen
except ImportError:  # no fd passing on this platform: `available()` is False
    _ForkServerPopen = object

__all__ = ["available", "ZygoteWorker"]

_PRELOAD = "torchshim.utils.data._zygote_preload"
_ENABLE_ENV = "TORCHSHIM_WORKER_ZYGOTE"


def available():
    """Whether workers can be forked from a zygote here (POSIX fd passing, not switched off)."""
    return (_ForkServerPopen is not object and os.name == "posix"
            and os.environ.get(_ENABLE_ENV, "1") != "0")


class _Zygote(forkserver.ForkServer):
    """A fork server of our own (not multiprocessing's global one, which user code may configure and use)
    that preloads torchshim."""

    def __init__(self):
        super().__init__()
        self._preload_modules = [_PRELOAD]
        self._pid_owner = os.getpid()

    def connect(self, fds):
        if self._pid_owner != os.getpid():  # a forked copy of this object: start a zygote of our own
            self.__init__()
        return self.connect_to_new_process(fds)


_zygote = None
_zygote_lock = threading.Lock()


def _server():
    global _zygote
    with _zygote_lock:
        if _zygote is None:
            _zygote = _Zygote()
        return _zygote


def _is_open(fd):
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _read_signed_within(fd, deadline, pid):
    """An int the zygote writes to status pipe `fd` (a pid, then an exit code), by `deadline`; a
    WorkerStartError when the time runs out or the zygote is gone."""
    left = deadline - time.monotonic()
    if left <= 0 or not connection.wait([fd], left):
        raise _spawn.WorkerStartError(pid, None, timed_out=True)
    try:
        return forkserver.read_signed(fd)
    except (OSError, EOFError):
        raise _spawn.WorkerStartError(pid, None, timed_out=False) from None


class ZygotePopen(_ForkServerPopen):
    """multiprocessing's forkserver Popen, with our zygote, the parent's environment and stdio, and a
    bounded start: the pid is read and the start-up data written within START_TIMEOUT seconds."""

    def _launch(self, process_obj):
        prep_data, env = _spawn._preparation_data(process_obj._name, run_main=False)
        environ = dict(os.environ)
        environ.update(env)
        process_obj._torchshim_environ = environ
        process_obj._torchshim_stdio = tuple(self.duplicate_for_child(fd) if _is_open(fd) else None
                                             for fd in (1, 2))
        buf = io.BytesIO()
        _context.set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            _context.set_spawning_popen(None)
        deadline = time.monotonic() + _spawn.START_TIMEOUT
        self.sentinel, w = _server().connect(self._fds)
        _parent_w = os.dup(w)  # held while the process object lives: the child's parent sentinel
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))
        try:
            self.pid = _read_signed_within(self.sentinel, deadline, None)
            _spawn._write_start_data(w, buf.getbuffer(), self.sentinel, self.pid,
                                     max(deadline - time.monotonic(), 0.001), reap=self._reap)
        finally:
            os.close(w)

    def _reap(self, pid, alive):
        """Kill the child if `alive`, then its exit code from the zygote (None if it does not come)."""
        if alive:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        try:
            self.returncode = _read_signed_within(self.sentinel, time.monotonic() + 5.0, pid)
        except _spawn.WorkerStartError:
            self.returncode = 255
        return self.returncode


class ZygoteWorker(_context.ForkServerProcess):
    """A DataLoader worker forked from the zygote; it takes on the parent's environment and stdio before
    running its target, and does not re-run the main module (its objects come pickled by value)."""

    _torchshim_run_main = False

    @staticmethod
    def _Popen(process_obj):
        return ZygotePopen(process_obj)

    def run(self):
        environ = getattr(self, "_torchshim_environ", None)
        if environ is not None:
            os.environ.clear()
            os.environ.update(environ)
        stdio = getattr(self, "_torchshim_stdio", None)
        if stdio is not None:
            fds = forkserver.get_inherited_fds()
            for target, index in zip((1, 2), stdio):
                if index is None:
                    continue
                os.dup2(fds[index], target)
                os.close(fds[index])
        super().run()
