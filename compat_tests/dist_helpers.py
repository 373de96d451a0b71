"""Shared pieces of the multi-process torch.distributed tests: a free TCP port, the ranks' jax compilation
cache, and starting local ranks of a check script that writes its results as JSON."""
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time

import jax
import pytest

import torchshim

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))


def free_port():
    """A TCP port nothing listens on now (the OS picks it), for a rendezvous address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def compile_cache_env():
    """A jax compilation cache for the ranks, next to the suite's (conftest.py) unless that is off: each rank
    compiles the same few hundred kernels. A size limit makes jax lock each entry (several processes)."""
    suite_cache = jax.config.jax_compilation_cache_dir
    if not suite_cache or importlib.util.find_spec("filelock") is None:
        return {}
    return {"JAX_COMPILATION_CACHE_DIR": suite_cache.rstrip("/\\") + "-distributed",
            "JAX_COMPILATION_CACHE_MAX_SIZE": str(1 << 30), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def start_ranks(argv, out_dir, world):
    """Start `world` local ranks of `python *argv` with torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK,
    LOCAL_WORLD_SIZE, MASTER_ADDR/PORT on a free port, OMP_NUM_THREADS=1), torchshim's source folder on
    PYTHONPATH and the ranks' compile cache, each in its own session, logging to out_dir/log<rank>.txt.
    Returns [(process, log file)]."""
    port = free_port()
    started = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                   LOCAL_WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   OMP_NUM_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
        env.update(compile_cache_env())
        log = open(os.path.join(out_dir, f"log{rank}.txt"), "w+")
        started.append((subprocess.Popen([sys.executable, *argv], env=env, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True), log))
    return started


def finish_ranks(started, deadline, label):
    """Wait for the ranks of `start_ranks` until `deadline` (time.monotonic()), kill what still runs; returns
    None when every rank exited 0, else their exit codes and the end of each rank's output."""
    for p, _ in started:
        try:
            p.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    outputs = []
    for p, log in started:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        log.seek(0)
        outputs.append(log.read()[-5000:])
        log.close()
    codes = [p.returncode for p, _ in started]
    if not any(codes):
        return None
    return f"{label} ranks exited {codes} (-9: killed at the timeout):\n" + "\n".join(
        f"--- rank {r} ---\n{o}" for r, o in enumerate(outputs))


def run_ranks(argv, out_dir, world, timeout, label="the"):
    """`start_ranks` + `finish_ranks`: {rank: the JSON it wrote to out_dir/rank<r>.json}, or fail the test
    with the ranks' output."""
    failed = finish_ranks(start_ranks(argv, out_dir, world), time.monotonic() + timeout, label)
    if failed:
        pytest.fail(failed)
    return {r: json.load(open(os.path.join(out_dir, f"rank{r}.json"))) for r in range(world)}
