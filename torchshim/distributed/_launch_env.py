"""What the launcher (`python -m torchshim.distributed.run`, torchrun's equivalent) gives each worker: its
environment (torchrun's contract) and its command line. Pure functions of the launch plan, standard library
only (unit-tested without starting processes)."""
import os
import re
import string
import sys

DEFAULT_SIGNALS = "SIGTERM,SIGINT,SIGHUP,SIGQUIT"
_STD_VALUE = re.compile(r"^[0123]$")
_STD_MAPPING = re.compile(r"^(\d:[0123],)*(\d:[0123])$")
# The worker of --run-path: runpy.run_path(script) in a fresh interpreter, the uncaught exception written to
# TORCHELASTIC_ERROR_FILE as torchrun's `record`-wrapped entrypoint does (standard library only, so that a
# worker whose script does not use torch does not import torchshim).
_RUN_PATH_CODE = """\
import json, os, runpy, sys, time, traceback
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as e:
    if e.code not in (0, None):
        raise
except Exception as e:
    f = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if f:
        with open(f, "w") as fp:
            json.dump({"message": {"message": f"{type(e).__name__}: {e}", "extraInfo": {
                "py_callstack": traceback.format_exc(), "timestamp": str(int(time.time()))}}}, fp)
    raise
"""


def parse_min_max_nnodes(nnodes):
    """"N" or "MIN:MAX" -> (min_nodes, max_nodes), torchrun's parsing and RuntimeError."""
    parts = str(nnodes).split(":")
    if len(parts) == 1:
        return int(parts[0]), int(parts[0])
    if len(parts) == 2:
        return int(parts[0]), int(parts[1])
    raise RuntimeError(f'nnodes={nnodes} is not in "MIN:MAX" format')


def parse_std(value):
    """torchrun's -r/--redirects and -t/--tee value: "0".."3" (0 none, 1 stdout, 2 stderr, 3 both) for all
    local ranks, or "LOCAL_RANK:V,..." -> int or {local_rank: int}; ValueError otherwise (PyTorch's text)."""
    if _STD_VALUE.match(value):
        return int(value)
    if _STD_MAPPING.match(value):
        return {int(k): int(v) for k, v in (m.split(":") for m in value.split(","))}
    raise ValueError(f"{value} does not match: <{_STD_VALUE.pattern}> or <{_STD_MAPPING.pattern}>")


def std_for(value, local_rank):
    """The redirect/tee bits (1 stdout, 2 stderr) that `parse_std`'s result gives `local_rank`."""
    return value.get(local_rank, 0) if isinstance(value, dict) else value


def parse_endpoint(endpoint, default_port):
    """"host[:port]" (IPv6 in brackets) -> (host, port); ("localhost", default_port) for an empty one."""
    endpoint = (endpoint or "").strip()
    if not endpoint:
        return "localhost", default_port
    if endpoint[0] == "[" and endpoint[-1] == "]":
        host, rest = endpoint, []
    else:
        host, *rest = endpoint.rsplit(":", 1)
    if len(host) > 1 and host[0] == "[" and host[-1] == "]":
        host = host[1:-1]
    if not rest:
        return host, default_port
    try:
        port = int(rest[0])
    except ValueError:
        raise ValueError(f"The port number of the rendezvous endpoint '{endpoint}' must be an integer "
                         "between 0 and 65536.") from None
    if not 0 <= port < 2 ** 16:
        raise ValueError(f"The port number of the rendezvous endpoint '{endpoint}' must be an integer "
                         "between 0 and 65536.")
    return host, port


def parse_signals(value):
    """"SIGTERM,SIGINT,..." -> [signal.Signals]; ValueError naming an unknown one."""
    import signal

    out = []
    for name in (s.strip() for s in value.split(",")):
        if not name:
            continue
        try:
            out.append(signal.Signals[name])
        except KeyError:
            raise ValueError(f"--signals-to-handle: unknown signal {name!r}") from None
    return out


def worker_env(base, *, local_rank, nproc_per_node, node_rank, nnodes, master_addr, master_port, run_id,
               role="default", restart_count=0, max_restarts=0, error_file="", virtual_local_rank=False,
               signals_to_handle=DEFAULT_SIGNALS, set_omp=False):
    """The environment of worker `local_rank` of node `node_rank`: `base` (the launcher's) plus torchrun's
    contract (static rendezvous: RANK = node_rank * nproc_per_node + local_rank, one role):
    RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_NAME, ROLE_RANK,
    ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS,
    TORCHELASTIC_RUN_ID, TORCHELASTIC_USE_AGENT_STORE, TORCHELASTIC_ERROR_FILE,
    TORCHELASTIC_SIGNALS_TO_HANDLE,
    TORCH_NCCL_ASYNC_ERROR_HANDLING (kept when set), OMP_NUM_THREADS=1 when `set_omp` (nproc_per_node > 1 and
    unset). `virtual_local_rank`: LOCAL_RANK=0 and CUDA_VISIBLE_DEVICES = this rank's GPU (mapped through the
    launcher's CUDA_VISIBLE_DEVICES), as torchrun's --virtual-local-rank.

    Difference from torchrun: TORCHELASTIC_USE_AGENT_STORE is "False": no launcher-hosted store listens on
    MASTER_PORT; rank 0's process hosts the coordinator there (torchshim.distributed's init)."""
    rank = node_rank * nproc_per_node + local_rank
    world = nnodes * nproc_per_node
    env = dict(base)
    env.update(RANK=str(rank), GROUP_RANK=str(node_rank), ROLE_RANK=str(rank), ROLE_NAME=role,
               LOCAL_WORLD_SIZE=str(nproc_per_node), WORLD_SIZE=str(world), GROUP_WORLD_SIZE=str(nnodes),
               ROLE_WORLD_SIZE=str(world), MASTER_ADDR=str(master_addr), MASTER_PORT=str(master_port),
               TORCHELASTIC_RESTART_COUNT=str(restart_count), TORCHELASTIC_MAX_RESTARTS=str(max_restarts),
               TORCHELASTIC_RUN_ID=str(run_id), TORCHELASTIC_USE_AGENT_STORE="False",
               TORCHELASTIC_ERROR_FILE=error_file, TORCHELASTIC_SIGNALS_TO_HANDLE=signals_to_handle,
               TORCH_NCCL_ASYNC_ERROR_HANDLING=base.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"))
    if set_omp:
        env["OMP_NUM_THREADS"] = "1"
    if virtual_local_rank:
        env["LOCAL_RANK"] = "0"
        visible = base.get("CUDA_VISIBLE_DEVICES")
        if visible is not None:
            gpus = visible.split(",")
            if local_rank >= len(gpus):
                raise ValueError(f"local_rank {local_rank} exceeds available GPUs in "
                                 f"CUDA_VISIBLE_DEVICES={visible}")
            env["CUDA_VISIBLE_DEVICES"] = gpus[local_rank].strip()
        else:
            env["CUDA_VISIBLE_DEVICES"] = str(local_rank)
    else:
        env["LOCAL_RANK"] = str(local_rank)
    return env


def worker_command(script, script_args, *, local_rank, module=False, no_python=False, run_path=False,
                   use_env=True, torchshim_run=False, seed=None, python=None):
    """The command line of worker `local_rank`, as torchrun builds it: `python -u SCRIPT ARGS` (`-m`:
    `python -u -m MODULE ARGS`; `no_python`: `SCRIPT ARGS`; `run_path`: runpy.run_path(SCRIPT) in a fresh
    interpreter, the exception recorded to the error file). "${local_rank}" in the arguments becomes the
    local rank; `use_env=False` (torch.distributed.launch without --use-env) appends `--local-rank=N`.
    `torchshim_run`: `python -u -m torchshim run [--seed N] (SCRIPT | -m MODULE) ARGS`, the script
    running with `import torch` giving torchshim. `python`: PYTHON_EXEC from the environment, else this
    interpreter."""
    python = python or os.environ.get("PYTHON_EXEC", sys.executable)
    args = [string.Template(a).safe_substitute(local_rank=str(local_rank)) for a in script_args]
    if not use_env:
        args = [f"--local-rank={local_rank}", *args]
    if torchshim_run:
        if no_python:
            raise ValueError("--no-python cannot be used with `python -m torchshim run`: the workers run the "
                             "script under Python with `import torch` giving torchshim")
        seeded = [] if seed is None else ["--seed", str(seed)]
        target = ["-m", script] if module else [script]
        return [python, "-u", "-m", "torchshim", "run", *seeded, *target, *args]
    if run_path:
        return [python, "-c", _RUN_PATH_CODE, script, *args]
    if no_python:
        if module:
            raise ValueError("Don't use both the '--no-python' flag"
                             " and the '--module' flag at the same time.")
        return [script, *args]
    return [python, "-u", *(["-m"] if module else []), script, *args]
