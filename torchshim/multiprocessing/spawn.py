"""`torch.multiprocessing.spawn`: start `nprocs` processes running `fn(i, *args)` and wait for them, with the
first failure re-raised in the parent (`ProcessRaisedException` with the child's traceback,
`ProcessExitedException` for an exit code or a signal), as PyTorch does. Standard library only."""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "SpawnContext", "start_processes"]

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"
"""Set to "1" to start the processes of `start_processes(..., start_method="forkserver")` in parallel."""

_PR_SET_PDEATHSIG = 1


class ProcessException(Exception):
    """`ProcessException(msg, error_index, error_pid)`: a process of a ProcessContext failed."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed because its function raised; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """`ProcessExitedException(msg, error_index, error_pid, exit_code, signal_name=None)`: a process exited
    with a non-zero code or was killed by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _set_parent_death_signal(sig):
    """Linux: deliver `sig` to this process when its parent dies (prctl PR_SET_PDEATHSIG), as PyTorch's
    children get SIGINT."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _wrap(fn, i, args, error_file):
    """The body of process `i`: `fn(i, *args)`; an exception's traceback goes to `error_file` (pickled) and
    the process exits with status 1; KeyboardInterrupt (the parent's SIGINT) ends it quietly."""
    _set_parent_death_signal(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        import traceback
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


def _signal_name(signum):
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"<Unknown signal {signum}>"


def _exited(index, pid, code):
    """PyTorch's ProcessExitedException for process `index` that ended with exit code `code`."""
    if code < 0:
        name = _signal_name(-code)
        return ProcessExitedException(f"process {index:d} terminated with signal {name}", error_index=index,
                                      error_pid=pid, exit_code=code, signal_name=name)
    return ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", error_index=index,
                                  error_pid=pid, exit_code=code)


class ProcessContext:
    """`ProcessContext(processes, error_files)`: the processes `start_processes` started (`processes`,
    `pids()`), joined with `join(timeout=None, grace_period=None)`."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The pids of the processes, in index order."""
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        deadline = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """`join(timeout=None, grace_period=None) -> bool`: wait up to `timeout` seconds (None: until one
        process ends) for processes to end. True when all have ended successfully, False when some still run.
        When one has failed, the others get `grace_period` seconds, then SIGTERM (and SIGKILL after another
        grace period, 30 s by default), and the failure is raised: `ProcessRaisedException` (the child's
        traceback) or `ProcessExitedException` (exit code or signal)."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels

        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()

        process = self.processes[failed]
        error_file = self.error_files[failed]
        if not os.access(error_file, os.R_OK):
            raise _exited(failed, process.pid, process.exitcode)
        with open(error_file, "rb") as f:
            trace = pickle.load(f)
        msg = f"\n\n-- Process {failed:d} terminated with the following error:\n{trace}"
        raise ProcessRaisedException(msg, failed, process.pid)


class SpawnContext(ProcessContext):
    """Deprecated name of ProcessContext (warns)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _error_file():
    f = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle", delete=False)
    f.close()
    os.unlink(f.name)  # the child creates it only if fn raises
    return f.name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """`start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn')`: start `nprocs`
    processes of `start_method` running `fn(i, *args)` for i in range(nprocs). `join=True`: wait for all and
    raise the first failure (see ProcessContext.join), return None; `join=False`: return the
    ProcessContext. With 'forkserver' and TORCH_MP_PARALLEL_START=1 the processes start in parallel.

    torchshim: a 'fork'ed child inherits the parent's jax runtime, which is not fork-safe once it has run
    computations (docs/differences.md); 'spawn' (the default) and 'forkserver' are safe. A 'spawn'ed process
    that dies before it has read its start-up data (e.g. while re-running an unguarded main script) raises
    ProcessExitedException at once (the others are terminated), where multiprocessing can block for good on
    large `args`."""
    from ..utils.data import _spawn

    ctx = multiprocessing.get_context(start_method)
    # 'spawn': never blocks on a child that died while starting (multiprocessing's own start can)
    process_class = _spawn.process_class(ctx, run_main=True, limit=False)
    started = {}

    def start(i):
        error_file = _error_file()
        p = process_class(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        try:
            p.start()
        except _spawn.WorkerStartError as e:
            if e.exitcode is None:
                raise RuntimeError(f"process {i:d} (pid {e.pid}) exited while starting") from None
            raise _exited(i, e.pid, e.exitcode) from None
        started[i] = p, error_file

    try:
        if start_method == "forkserver" and os.environ.get(ENV_VAR_PARALLEL_START, "0") == "1":
            with ThreadPoolExecutor(max_workers=nprocs) as pool:
                list(pool.map(start, range(nprocs)))
        else:
            for i in range(nprocs):
                start(i)
    except BaseException:
        for p, _ in started.values():  # a process failed to start: end the others, as join() would
            p.terminate()
            p.join(30)
        raise
    context = ProcessContext([started[i][0] for i in range(nprocs)], [started[i][1] for i in range(nprocs)])
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """`spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn')`: `start_processes` with
    the 'spawn' start method (another `start_method` warns, FutureWarning, and is ignored, as in PyTorch).
    `fn` must be picklable (defined at module level); it is called as `fn(i, *args)`."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                      FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
