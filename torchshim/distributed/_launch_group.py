"""The launcher's worker group: start one subprocess per local rank (each in its own session), watch them,
and when one fails stop the others (SIGTERM to each worker's process group, SIGKILL after the shutdown
timeout) and collect every failure (`ProcessFailure`, with the error file a worker's `@record` wrote).
Standard library only besides the elastic errors module; used by `torchshim/distributed/run.py`."""
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime

from ._launch_env import std_for, worker_command, worker_env
from .elastic.multiprocessing.errors import ProcessFailure

_OUT, _ERR = 1, 2


def log(level, message):
    """One line on stderr in torchrun's log format (`W1127 11:46:01.371000 PID file] message`)."""
    now = datetime.now()
    sys.stderr.write(f"{level}{now:%m%d %H:%M:%S.%f} {os.getpid()} torchshim/distributed/run.py] {message}\n")
    sys.stderr.flush()


class _Tail(threading.Thread):
    """Copies the lines a worker writes to its log file to the console with torchrun's `[role<local
    rank>]:` prefix (--tee), until stopped; then copies what is left."""

    def __init__(self, path, prefix, stream):
        super().__init__(daemon=True)
        self._path, self._prefix, self._stream = path, prefix, stream
        self._stop_event = threading.Event()

    def run(self):
        with open(self._path, "rb") as f:
            pending = b""
            while True:
                stopping = self._stop_event.is_set()
                chunk = f.read()
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    self._write(line + b"\n")
                if stopping:
                    if pending:
                        self._write(pending + b"\n")
                    return
                if not chunk:
                    self._stop_event.wait(0.05)

    def _write(self, data):
        out = getattr(self._stream, "buffer", None)
        if out is not None:
            out.write(self._prefix.encode() + data)
        else:
            self._stream.write(self._prefix + data.decode(errors="replace"))
        self._stream.flush()

    def stop(self):
        self._stop_event.set()
        self.join(timeout=5)


class WorkerGroup:
    """The `plan`'s workers of this node for attempt `restart_count` (`plan` is run.py's `LaunchPlan`),
    listening on `master_port`. `start()`, then `poll()` until it returns "SUCCEEDED" or the list of
    failures (first observed first); `close(sig, timeout)` stops them all."""

    def __init__(self, plan, restart_count, master_port):
        self.plan, self.restart_count, self.master_port = plan, restart_count, master_port
        self.procs, self.error_files, self.exit_times = [], [], {}
        self._files, self._tails = [], []

    def _attempt_dir(self):
        d = os.path.join(self.plan.run_log_dir, f"attempt_{self.restart_count}")
        os.makedirs(d, exist_ok=True)
        return d

    def _streams(self, local_rank, rank_dir):
        """(stdout, stderr) for Popen: None (the console), a log file, or DEVNULL (--local-ranks-filter)."""
        plan = self.plan
        redirect = std_for(plan.redirects, local_rank) | std_for(plan.tee, local_rank)
        tee = std_for(plan.tee, local_rank)
        shown = plan.local_ranks_filter is None or local_rank in plan.local_ranks_filter
        out = []
        for bit, name, console in ((_OUT, "stdout", sys.stdout), (_ERR, "stderr", sys.stderr)):
            if redirect & bit:
                path = os.path.join(rank_dir, f"{name}.log")
                f = open(path, "wb")  # noqa: SIM115  closed in close()
                self._files.append(f)
                out.append(f)
                if tee & bit and shown:
                    self._tails.append(_Tail(path, f"[{plan.role}{local_rank}]:", console))
            else:
                out.append(None if shown else subprocess.DEVNULL)
        return out

    def start(self):
        plan = self.plan
        attempt = self._attempt_dir()
        for local_rank in range(plan.nproc_per_node):
            rank_dir = os.path.join(attempt, str(local_rank))
            os.makedirs(rank_dir, exist_ok=True)
            error_file = os.path.join(rank_dir, "error.json")
            env = worker_env(os.environ, local_rank=local_rank, nproc_per_node=plan.nproc_per_node,
                             node_rank=plan.node_rank, nnodes=plan.nnodes, master_addr=plan.master_addr,
                             master_port=self.master_port, run_id=plan.run_id, role=plan.role,
                             restart_count=self.restart_count, max_restarts=plan.max_restarts,
                             error_file=error_file, virtual_local_rank=plan.virtual_local_rank,
                             signals_to_handle=plan.signals_to_handle, set_omp=plan.set_omp)
            cmd = worker_command(plan.script, plan.script_args, local_rank=local_rank, module=plan.module,
                                 no_python=plan.no_python, run_path=plan.run_path, use_env=plan.use_env,
                                 torchshim_run=plan.torchshim_run, seed=plan.seed)
            stdout, stderr = self._streams(local_rank, rank_dir)
            self.error_files.append(error_file)
            self.procs.append(subprocess.Popen(cmd, env=env, stdout=stdout, stderr=stderr,
                                               start_new_session=True))
        for tail in self._tails:
            tail.start()

    def poll(self):
        """None while no worker failed and some still run; "SUCCEEDED" when all exited with status 0; else
        the failed local ranks, in the order their exits were observed."""
        now = time.time()
        for i, p in enumerate(self.procs):
            if i not in self.exit_times and p.poll() is not None:
                self.exit_times[i] = now
        failed = sorted((i for i in self.exit_times if self.procs[i].returncode != 0),
                        key=lambda i: (self.exit_times[i], i))
        if failed:
            return failed
        if len(self.exit_times) == len(self.procs):
            return "SUCCEEDED"
        return None

    def failures(self, first):
        """{global rank: ProcessFailure} of every worker that exited non-zero, `first` (the failed local
        ranks `poll` returned) first, then the others (stopped by `close`) by local rank."""
        plan = self.plan
        order = list(first) + [i for i in range(len(self.procs)) if i not in first]
        out = {}
        for i in order:
            code = self.procs[i].returncode
            if code is not None and code != 0:
                out[plan.node_rank * plan.nproc_per_node + i] = ProcessFailure(
                    local_rank=i, pid=self.procs[i].pid, exitcode=code, error_file=self.error_files[i])
        return out

    def close(self, sig=signal.SIGTERM, timeout=30.0):
        """Send `sig` to every worker's process group (its own children included), wait up to `timeout`
        seconds for all to exit, SIGKILL the ones left; then stop the --tee copies and close the logs."""
        for p in self.procs:
            alive = p.poll() is None
            if alive:
                log("W", f"Sending process {p.pid} closing signal {sig.name}")
            try:
                os.killpg(p.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        end = time.monotonic() + timeout
        for p in self.procs:
            try:
                p.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in self.procs:
            if p.poll() is None:
                log("W", f"Unable to shutdown process {p.pid} via {sig!r}, forcefully exiting via "
                         f"{signal.SIGKILL!r}")
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for p in self.procs:
            p.wait()
        for tail in self._tails:
            tail.stop()
        for f in self._files:
            f.close()
