"""JAX's coordination service and client, made here instead of by `jax.distributed.initialize`.

`connect(...)` sets the fields of `jax._src.distributed.global_state` that `jax.distributed.initialize` sets
(client, process id and count, coordinator address), so that jax's CPU backend builds its gloo collectives
on them, with two differences:

- the service is not hosted inside rank 0's process but by a process of its own that rank 0 starts
  (`_service_host.py`, which explains why): a client whose service vanishes aborts its process with JAX's
  fatal log, and jaxlib offers no working way to replace that abort (its missed-heartbeat callback cannot
  be a Python function: calling it terminates the process). With the service outliving rank 0, rank 0
  dying is, for the other ranks, one more dead peer: their collectives and waits raise DistBackendError
  naming rank 0;
- no preemption sync manager (nothing in torch.distributed uses jax's preemption sync points; its polling
  thread only logs errors).

`service(...)` makes a service in this process (the init probe's) without jaxlib's "Using experimental
recoverable task feature" warning, by raising the C++ log threshold to ERROR while the service is made
(jax's own switch, the one behind the `jax_logging_level` option), then restoring it.
"""
import os
import subprocess
import sys
import threading
import time

_HOST = [None]  # the service host process this rank started (rank 0 only)
DEAD_S = 60.0  # the service host leaves once every rank exited or has had no heartbeat for DEAD_S seconds


def _jax():
    from jax._src.lib import _jax
    return _jax


def _restore_log_level():
    """Put back the C++ log threshold jax set up: `jax_logging_level` when given, else TF_CPP_MIN_LOG_LEVEL
    (jax's import sets it to 1, warnings and above, when unset)."""
    import jax
    from jax._src import logging_config
    from jax._src.lib import utils
    name = jax.config.jax_logging_level
    if name not in (None, "NOTSET") and name in logging_config._tf_cpp_map:
        utils.absl_set_min_log_level(logging_config._tf_cpp_map[name])
        return
    try:
        level = int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "1"))
    except ValueError:
        level = 1
    utils.absl_set_min_log_level(min(max(level, 0), 3))


def service(address, n, heartbeat_s, shutdown_s):
    """A recoverable coordination service for `n` processes bound at `address`, made quietly (see above)."""
    from jax._src.lib import utils
    utils.absl_set_min_log_level(2)
    try:
        return _jax().get_distributed_runtime_service(address, n, heartbeat_timeout=heartbeat_s,
                                                      shutdown_timeout=shutdown_s, recoverable=True)
    finally:
        _restore_log_level()


def _start_host(host, port, n, heartbeat_s, timeout_s, job):
    """Start the service host process for `n` ranks at host:port (`job`: the rendezvous address, naming it
    in `ps`); returns once its service listens."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_service_host.py")
    proc = subprocess.Popen([sys.executable, script, host, str(port), str(n), str(heartbeat_s),
                             str(max(1, int(timeout_s))), str(DEAD_S), job],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True, text=True)
    line = [""]
    reader = threading.Thread(target=lambda: line.__setitem__(0, proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(max(10.0, min(60.0, timeout_s)))
    if line[0].strip() != "ready":
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        why = line[0].strip()[6:] if line[0].startswith("error ") else "it did not start"
        raise RuntimeError(f"the coordination service could not be started at port {port}: {why}")
    proc.stdout.close()
    _HOST[0] = proc


def connect(host, port, n, my_rank, timeout_s, heartbeat_s, job):
    """What `jax.distributed.initialize(f"{host}:{port}", n, my_rank, ...)` does, with the service in a
    process of its own (started here on rank 0; `job`: the rendezvous address). Raises what starting it or
    the client's `connect()` raises (the caller cleans up with `disconnect`)."""
    from jax._src import distributed
    gs = distributed.global_state
    if gs.client is not None or gs.service is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    address = f"{host}:{port}"
    if my_rank == 0:
        _start_host(host, port, n, heartbeat_s, timeout_s, job)
    gs.coordinator_address = address
    gs.process_id = my_rank
    gs.num_processes = n
    gs.partition_index = None
    gs.client = _jax().get_distributed_runtime_client(address, my_rank, init_timeout=max(1, int(timeout_s)),
                                                      heartbeat_timeout=heartbeat_s, use_compression=True)
    gs.client.connect()


def disconnect():
    """Drop jax's global state after a failed `connect` (quietly)."""
    from jax._src import distributed
    gs = distributed.global_state
    if gs.client is not None:
        try:
            gs.client.shutdown()
        except Exception:
            pass
    gs.client = None
    proc = _HOST[0]
    if proc is not None and proc.poll() is None:
        proc.kill()
    reap()


def reap(wait_s=0.0):
    """Forget the service host process once it has exited (waiting up to `wait_s` seconds for it)."""
    proc = _HOST[0]
    if proc is None:
        return
    deadline = time.monotonic() + wait_s
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if proc.poll() is not None:
        _HOST[0] = None
