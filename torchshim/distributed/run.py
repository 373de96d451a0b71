"""`python -m torchshim.distributed.run [OPTIONS] SCRIPT [ARGS...]`: torchrun's equivalent (PyTorch's
`torch.distributed.run`), with torchrun's flags and the environment it gives each worker.

One subprocess per local rank (`python -u SCRIPT ARGS`, in its own session), each with RANK, WORLD_SIZE,
LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
TORCHELASTIC_RUN_ID, TORCHELASTIC_ERROR_FILE, ... (`_launch_env.worker_env`). When a worker exits non-zero or
is killed by a signal, the others are sent SIGTERM (SIGKILL after --shutdown-timeout seconds), the launcher
prints torchrun's failure summary (the failing rank, its exit code, and its traceback when the worker wrote
one to its error file: `@record` from `torch.distributed.elastic.multiprocessing.errors`) and exits with
status 1. `python -m torchshim run --nproc_per_node N SCRIPT` does the same with each worker running the
script with `import torch` giving torchshim.

Rendezvous: static only. One node (the default): MASTER_ADDR/MASTER_PORT are --master-addr/--master-port,
or localhost and a free port when no port is given (torchrun's standalone mode). Several nodes (--nnodes M):
run the same command on every node with --node-rank R and the same --master-addr/--master-port (or
--rdzv-endpoint HOST:PORT with --rdzv-backend static): RANK = R * nproc_per_node + LOCAL_RANK; the workers
meet at MASTER_ADDR:MASTER_PORT (rank 0 hosts the coordinator there).

Differences from torchrun: no launcher-hosted store (TORCHELASTIC_USE_AGENT_STORE=False) and no rendezvous
between the nodes' launchers, so a dynamic rendezvous (--rdzv-backend c10d/etcd with --nnodes > 1, elastic
--nnodes MIN:MAX), --max-restarts with --nnodes > 1, --rdzv-conf, --logs-specs, --numa-binding,
--event-log-handler other than null and --duplicate-std*-filters raise ValueError; --run-path runs
runpy.run_path in a fresh interpreter per worker (start method spawn only); the launcher stops a worker's
whole process group (its children too).
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass

from ._launch_env import (DEFAULT_SIGNALS, parse_endpoint, parse_min_max_nnodes, parse_signals, parse_std,
                          worker_command)
from ._launch_group import WorkerGroup, log
from .elastic.multiprocessing.api import SignalException
from .elastic.multiprocessing.errors import ChildFailedError, record

__all__ = ["main", "run", "parse_args", "get_args_parser", "config_from_args", "determine_local_world_size",
           "LaunchPlan"]

_OMP_WARNING = ("\n*****************************************\n"
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid "
                "your system being overloaded, please further tune the variable for optimal performance in "
                "your application as needed. \n*****************************************")


class _Env(argparse.Action):
    """torchrun's `env` action: the default comes from PET_<DEST> when set."""

    def __init__(self, dest, default=None, required=False, **kwargs):
        default = os.environ.get(f"PET_{dest.upper()}", default)
        super().__init__(dest=dest, default=default, required=required and not default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class _CheckEnv(argparse.Action):
    """torchrun's `check_env` action (a flag): the default is PET_<DEST> (0/1) when set."""

    def __init__(self, dest, default=False, **kwargs):
        default = bool(int(os.environ.get(f"PET_{dest.upper()}", "1" if default else "0")))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, self.const)


def _names(name):
    dashed = "--" + name
    under = "--" + name.replace("-", "_")
    return [dashed] if dashed == under else [dashed, under]


def get_args_parser(torchshim_run=False):
    """torchrun's argument parser (every flag in both spellings, --nproc-per-node / --nproc_per_node, and
    PET_* environment defaults). `torchshim_run` (`python -m torchshim run`): also --seed N, passed to each
    worker's `torchshim run`."""
    p = argparse.ArgumentParser(description="Torch Distributed Elastic Training Launcher",
                                prog="python -m torchshim run" if torchshim_run else None)
    p.add_argument(*_names("nnodes"), action=_Env, type=str, default="1:1",
                   help="Number of nodes, or the range of nodes in form <minimum_nodes>:<maximum_nodes>.")
    p.add_argument(*_names("nproc-per-node"), action=_Env, type=str, default="1",
                   help="Number of workers per node; supported values: [auto, cpu, gpu, int].")
    p.add_argument(*_names("rdzv-backend"), action=_Env, type=str, default="static",
                   help="Rendezvous backend (static; c10d only with one node).")
    p.add_argument(*_names("rdzv-endpoint"), action=_Env, type=str, default="",
                   help="Rendezvous backend endpoint; usually in form <host>:<port>.")
    p.add_argument(*_names("rdzv-id"), action=_Env, type=str, default="none", help="User-defined group id.")
    p.add_argument(*_names("rdzv-conf"), action=_Env, type=str, default="",
                   help="Additional rendezvous configuration (<key1>=<value1>,...): not supported.")
    p.add_argument("--standalone", action=_CheckEnv,
                   help="Single node: localhost and a free port (--rdzv-backend, --rdzv-endpoint, --rdzv-id "
                        "are auto-assigned).")
    p.add_argument(*_names("max-restarts"), action=_Env, type=int, default=0,
                   help="Maximum number of worker group restarts before failing.")
    p.add_argument(*_names("monitor-interval"), action=_Env, type=float, default=0.1,
                   help="Interval, in seconds, to monitor the state of workers.")
    p.add_argument(*_names("start-method"), action=_Env, type=str, default="spawn",
                   choices=["spawn", "fork", "forkserver"],
                   help="Multiprocessing start method of --run-path workers (spawn only).")
    p.add_argument(*_names("event-log-handler"), action=_Env, type=str, default="null",
                   help="name of a registered event logging handler (null only).")
    p.add_argument("--role", action=_Env, type=str, default="default",
                   help="User-defined role for the workers.")
    p.add_argument("-m", "--module", action=_CheckEnv,
                   help="Change each process to interpret the launch script as a Python module, executing "
                        "with the same behavior as 'python -m'.")
    p.add_argument(*_names("no-python"), action=_CheckEnv,
                   help="Skip prepending the training script with 'python' - just execute it directly.")
    p.add_argument(*_names("run-path"), action=_CheckEnv,
                   help="Run the training script with runpy.run_path (a fresh interpreter per worker).")
    p.add_argument(*_names("log-dir"), action=_Env, type=str, default=None,
                   help="Base directory to use for log files.")
    p.add_argument("-r", "--redirects", action=_Env, type=str, default="0",
                   help="Redirect std streams into a log file in the log directory (e.g. [-r 3] redirects "
                        "both stdout+stderr for all workers, [-r 0:1,1:2] redirects stdout for local rank 0 "
                        "and stderr for local rank 1).")
    p.add_argument("-t", "--tee", action=_Env, type=str, default="0",
                   help="Tee std streams into a log file and also to console (see --redirects for format).")
    p.add_argument(*_names("local-ranks-filter"), action=_Env, type=str, default="",
                   help="Only show logs from specified ranks in console (e.g. [--local_ranks_filter=0,1,2]).")
    p.add_argument(*_names("duplicate-stdout-filters"), action=_Env, type=str, default=[],
                   help="Not supported.")
    p.add_argument(*_names("duplicate-stderr-filters"), action=_Env, type=str, default=[],
                   help="Not supported.")
    p.add_argument(*_names("node-rank"), type=int, action=_Env, default=0,
                   help="Rank of the node for multi-node distributed training (static rendezvous).")
    p.add_argument(*_names("master-addr"), default="127.0.0.1", type=str, action=_Env,
                   help="Address of the master node (rank 0), for static rendezvous.")
    p.add_argument(*_names("master-port"), default=None, type=int, action=_Env,
                   help="Port on the master node (rank 0), for static rendezvous. Defaults to 29500 (a free "
                        "port on a single node).")
    p.add_argument(*_names("local-addr"), default=None, type=str, action=_Env,
                   help="Address of the local node (MASTER_ADDR of a single-node run without --master-port).")
    p.add_argument(*_names("logs-specs"), default=None, type=str, help="Not supported.")
    p.add_argument(*_names("numa-binding"), type=str, default=None,
                   choices=["node", "socket", "exclusive", "core-complex"], help="Not supported.")
    p.add_argument(*_names("signals-to-handle"), action=_Env, type=str, default=DEFAULT_SIGNALS,
                   help="Comma-separated list of signals to handle and forward to subprocesses.")
    p.add_argument(*_names("shutdown-timeout"), action=_Env, type=int, default=None,
                   help="Seconds to wait for graceful shutdown of worker processes before sending SIGKILL "
                        "(default TORCH_ELASTIC_SHUTDOWN_TIMEOUT or 30).")
    p.add_argument(*_names("virtual-local-rank"), action=_CheckEnv,
                   help="LOCAL_RANK=0 for all workers, CUDA_VISIBLE_DEVICES = each worker's GPU.")
    if torchshim_run:
        p.add_argument("--seed", type=int, default=None,
                       help="seed Python's random, NumPy and torch.manual_seed in each worker")
    p.add_argument("training_script", type=str,
                   help="Full path to the (single GPU) training program/script to be launched in parallel, "
                        "followed by all the arguments for the training script.")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args=None, torchshim_run=False):
    """torchrun's `parse_args(args)` (sys.argv[1:] when None)."""
    return get_args_parser(torchshim_run).parse_args(args)


def _gpu_count():
    """How many GPUs jax sees, counted in a subprocess (the launcher must not create a GPU client: jax would
    preallocate the GPUs' memory here, before the workers)."""
    code = "import jax\nprint(sum(d.platform == 'gpu' for d in jax.devices()))"
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             timeout=120, check=True).stdout
        return int(out.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError):
        return 0


def determine_local_world_size(nproc_per_node):
    """--nproc-per-node: an int, "cpu" (this process's CPU count), "gpu" (jax's GPU count; ValueError "Cuda
    is not available." without one), "auto" (the GPUs, else the CPUs); "xpu" raises "Xpu is not available."
    and anything else "Unsupported nproc_per_node value: ..." (PyTorch's ValueErrors)."""
    try:
        return int(nproc_per_node)
    except ValueError as e:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if nproc_per_node == "cpu":
            return cpus
        if nproc_per_node == "gpu":
            n = _gpu_count()
            if not n:
                raise ValueError("Cuda is not available.") from e
            return n
        if nproc_per_node == "xpu":
            raise ValueError("Xpu is not available.") from e
        if nproc_per_node == "auto":
            return _gpu_count() or cpus
        raise ValueError(f"Unsupported nproc_per_node value: {nproc_per_node}") from e


@dataclass
class LaunchPlan:
    """What `run` launches on this node (built by `config_from_args`)."""
    nnodes: int
    nproc_per_node: int
    node_rank: int
    master_addr: str
    master_port: int  # 0: a free port, chosen for each attempt
    run_id: str
    script: str
    script_args: list
    role: str = "default"
    max_restarts: int = 0
    monitor_interval: float = 0.1
    shutdown_timeout: float = 30.0
    module: bool = False
    no_python: bool = False
    run_path: bool = False
    use_env: bool = True
    torchshim_run: bool = False
    seed: int = None
    redirects: object = 0
    tee: object = 0
    local_ranks_filter: set = None
    log_dir: str = None
    run_log_dir: str = ""
    virtual_local_rank: bool = False
    signals_to_handle: str = DEFAULT_SIGNALS
    set_omp: bool = False


def _unsupported(args):
    if args.rdzv_conf.strip():
        raise ValueError(f"--rdzv-conf {args.rdzv_conf!r}: torchshim's launcher has only the static "
                         "rendezvous and takes no rendezvous configuration")
    if args.logs_specs is not None:
        raise ValueError("--logs-specs: torchshim's launcher has no torchrun.logs_specs entry points")
    if args.numa_binding is not None:
        raise ValueError("--numa-binding: torchshim's launcher does not bind workers to NUMA nodes")
    if args.event_log_handler != "null":
        raise ValueError(f"--event-log-handler {args.event_log_handler!r}: torchshim's launcher logs no "
                         "events (only 'null')")
    if args.duplicate_stdout_filters or args.duplicate_stderr_filters:
        raise ValueError("--duplicate-stdout-filters/--duplicate-stderr-filters: not supported by "
                         "torchshim's launcher")
    if args.run_path and args.start_method != "spawn":
        raise ValueError(f"--start-method {args.start_method}: torchshim's launcher runs --run-path workers "
                         "as fresh interpreters (start method 'spawn' only)")


def _rendezvous(args, min_nodes, max_nodes):
    """(master_addr, master_port or 0 for a free one, run_id) of the static rendezvous."""
    if min_nodes != max_nodes:
        raise ValueError(f"--nnodes {args.nnodes}: torchshim's launcher has no elastic rendezvous; give a "
                         "fixed number of nodes")
    nnodes = max_nodes
    local = args.local_addr or "localhost"
    if args.standalone:
        return local, 0, str(uuid.uuid4())
    if args.rdzv_backend == "static":
        if not args.rdzv_endpoint and args.master_port is None and nnodes == 1:
            return local, 0, str(uuid.uuid4())  # torchrun: a one-node static run becomes standalone
        port = 29500 if args.master_port is None else args.master_port
        endpoint = args.rdzv_endpoint or f"{args.master_addr}:{port}"
        host, port = parse_endpoint(endpoint, -1)
        if port == -1:
            raise ValueError(f"Port is absent in endpoint: {endpoint}")
        return host, port, args.rdzv_id
    if nnodes > 1:
        raise ValueError(f"--rdzv-backend {args.rdzv_backend} with --nnodes {args.nnodes}: torchshim's "
                         "launcher has only the static rendezvous across nodes; run the same command on "
                         "every node with --rdzv-backend static (the default), --node-rank R, --master-addr "
                         "and --master-port")
    return local, 0, args.rdzv_id  # one node: nothing to meet; the workers use a free local port


def config_from_args(args, torchshim_run=False, use_env=True):
    """Parsed arguments -> LaunchPlan (torchrun's checks and errors; prints torchrun's OMP_NUM_THREADS warning
    when nproc_per_node > 1 and OMP_NUM_THREADS is unset)."""
    min_nodes, max_nodes = parse_min_max_nnodes(args.nnodes)
    if not 0 < min_nodes <= max_nodes:
        raise AssertionError(f"min_nodes must be > 0 and <= max_nodes, got min_nodes={min_nodes}, "
                             f"max_nodes={max_nodes}")
    if args.max_restarts < 0:
        raise AssertionError("max_restarts must be >= 0")
    _unsupported(args)
    if args.rdzv_backend != "static" and not args.rdzv_endpoint and not args.standalone:
        log("W", "master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified.")
    if args.node_rank != 0 and args.rdzv_backend != "static":
        log("W", f"node_rank is only used for static rdzv_backend. It will be ignored for "
                 f"rdzv_backend={args.rdzv_backend}.")
    master_addr, master_port, run_id = _rendezvous(args, min_nodes, max_nodes)
    nnodes = max_nodes
    if nnodes > 1 and args.max_restarts > 0:
        raise ValueError("--max-restarts with --nnodes > 1: torchshim's launcher has no rendezvous between "
                         "the nodes' launchers to restart all nodes together")
    node_rank = args.node_rank if args.rdzv_backend == "static" and not args.standalone else 0
    if not 0 <= node_rank < nnodes:
        raise ValueError(f"--node-rank {node_rank} must be in [0, {nnodes}) with --nnodes {nnodes}")
    nproc = determine_local_world_size(args.nproc_per_node)
    if nproc < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {nproc}")
    set_omp = "OMP_NUM_THREADS" not in os.environ and nproc > 1
    if set_omp:
        print(_OMP_WARNING, file=sys.stderr, flush=True)  # torchrun's warning, as it prints it
    filt = None
    if args.local_ranks_filter:
        try:
            filt = set(map(int, args.local_ranks_filter.split(",")))
        except ValueError as e:
            raise ValueError("--local_ranks_filter must be a comma-separated list of integers e.g. "
                             "--local_ranks_filter=0,1,2") from e
    parse_signals(args.signals_to_handle)
    shutdown = args.shutdown_timeout
    if shutdown is None:
        shutdown = float(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", 30))
    plan = LaunchPlan(
        nnodes=nnodes, nproc_per_node=nproc, node_rank=node_rank, master_addr=master_addr,
        master_port=master_port, run_id=run_id, script=args.training_script,
        script_args=list(args.training_script_args), role=args.role, max_restarts=args.max_restarts,
        monitor_interval=args.monitor_interval, shutdown_timeout=shutdown, module=args.module,
        no_python=args.no_python, run_path=args.run_path, use_env=use_env, torchshim_run=torchshim_run,
        seed=getattr(args, "seed", None), redirects=parse_std(args.redirects), tee=parse_std(args.tee),
        local_ranks_filter=filt, log_dir=args.log_dir, virtual_local_rank=args.virtual_local_rank,
        signals_to_handle=args.signals_to_handle, set_omp=set_omp)
    worker_command(plan.script, plan.script_args, local_rank=0, module=plan.module, no_python=plan.no_python,
                   run_path=plan.run_path, use_env=use_env, torchshim_run=torchshim_run)  # its errors now
    return plan


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _entrypoint_name(plan):
    if plan.run_path:
        return "run_script_path"
    return plan.script  # torchrun: the first argument of `python` that is no option (script or module)


def _install_signal_handlers(plan):
    def handler(signum, frame):
        raise SignalException(f"Process {os.getpid()} got signal: {signum}", sigval=signal.Signals(signum))

    previous = {}
    for sig in parse_signals(plan.signals_to_handle):
        try:
            previous[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread, or a signal that cannot be caught
            pass
    return previous


def launch(plan):
    """Run `plan`'s workers to the end: returns when all exited with status 0; raises ChildFailedError (the
    summary) when one failed and no restart is left, SignalException when the launcher got a handled signal
    (the workers are stopped first, with that signal)."""
    if not plan.run_log_dir:
        base = plan.log_dir or tempfile.mkdtemp(prefix="torchelastic_")
        os.makedirs(base, exist_ok=True)
        plan.run_log_dir = tempfile.mkdtemp(prefix=f"{plan.run_id}_", dir=base)
    previous = _install_signal_handlers(plan)
    try:
        restart_count = 0
        while True:
            port = plan.master_port or _free_port()
            group = WorkerGroup(plan, restart_count, port)
            try:
                group.start()
                result = group.poll()
                while result is None:
                    time.sleep(plan.monitor_interval)
                    result = group.poll()
            except SignalException as e:
                log("W", f"Received {int(e.sigval)} death signal, shutting down workers")
                group.close(e.sigval, plan.shutdown_timeout)
                raise
            except BaseException:
                group.close(signal.SIGTERM, plan.shutdown_timeout)
                raise
            if result == "SUCCEEDED":
                group.close(signal.SIGTERM, plan.shutdown_timeout)
                return
            for i in result:
                p = group.procs[i]
                log("E", f"failed (exitcode: {p.returncode}) local_rank: {i} (pid: {p.pid}) of binary: "
                         f"{group_binary(plan)}")
            group.close(signal.SIGTERM, plan.shutdown_timeout)
            failures = group.failures(result)
            if restart_count < plan.max_restarts:
                log("I", f"[{plan.role}] Worker group FAILED. {plan.max_restarts - restart_count}/"
                         f"{plan.max_restarts} attempts left; will restart worker group")
                restart_count += 1
                continue
            raise ChildFailedError(name=_entrypoint_name(plan), failures=failures)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def group_binary(plan):
    """The program torchrun names in its "failed ... of binary:" line."""
    if plan.run_path:
        return "<function run_script_path>"
    return plan.script if plan.no_python else os.environ.get("PYTHON_EXEC", sys.executable)


def run(args, torchshim_run=False, use_env=True):
    """torchrun's `run(args)`: build the plan from parsed `args` and launch it."""
    launch(config_from_args(args, torchshim_run=torchshim_run, use_env=use_env))


@record
def main(args=None, torchshim_run=False):
    """`python -m torchshim.distributed.run ...` (`args`: the argument list, sys.argv[1:] when None).
    `torchshim_run`: `python -m torchshim run --nproc_per_node N ...` (workers run the script with torchshim
    as `torch`; --seed N accepted)."""
    run(parse_args(args, torchshim_run=torchshim_run), torchshim_run=torchshim_run)


if __name__ == "__main__":
    main()
