"""The process that hosts a job's coordination service (run as a script by rank 0: it imports jaxlib only).

    python _service_host.py HOST PORT WORLD_SIZE HEARTBEAT_S INIT_TIMEOUT_S DEAD_S JOB

(JOB: the job's rendezvous address MASTER_ADDR:MASTER_PORT, which only names the process in `ps`.)

Why a process of its own: a JAX client whose coordination service vanishes aborts its process with a fatal
C++ log (jaxlib cannot call a Python callback instead: the callback's absl::Status argument has no Python
conversion, and the call terminates the process). Hosted here, the service outlives rank 0, so that rank 0
dying is seen by the other ranks like any rank dying: their collectives and waits raise DistBackendError
naming it.

It serves WORLD_SIZE + 1 tasks: the ranks are tasks 0..WORLD_SIZE-1, this process is the last one (its
client reads the key-value store). It prints "ready" once the service listens, then stays until every rank
has left the job: it set "torchshim/exited/<rank>" (destroy_process_group or interpreter exit), or its
heartbeat key "torchshim/hb/<rank>" (torchshim.distributed._runtime) has not moved for DEAD_S seconds
(killed, crashed, or never connected).
"""
import sys
import time


def _quiet_service(address, tasks, heartbeat_s):
    """The recoverable service, without jaxlib's "Using experimental recoverable task feature" warning (the
    C++ log threshold raised to ERROR while it is made)."""
    import jaxlib._jax as lib
    import jaxlib.utils as utils
    utils.absl_set_min_log_level(2)
    try:
        return lib.get_distributed_runtime_service(address, tasks, heartbeat_timeout=heartbeat_s,
                                                   shutdown_timeout=5, recoverable=True)
    finally:
        utils.absl_set_min_log_level(1)


def _gone(cl, n, seen, dead_s):
    """True when every rank left the job (see the module docstring)."""
    now = time.monotonic()
    for r in range(n):
        try:
            if cl.key_value_try_get(f"torchshim/exited/{r}") is not None:
                continue
        except Exception:
            pass
        try:
            v = cl.key_value_try_get(f"torchshim/hb/{r}")
        except Exception:
            v = None
        last = seen.get(r)
        if last is None or last[0] != v:
            seen[r] = (v, now)
            return False
        if now - last[1] <= dead_s:
            return False
    return True


def main(argv):
    host, port, n, heartbeat_s, init_timeout_s, dead_s, _job = argv
    port, n, heartbeat_s, init_timeout_s, dead_s = int(port), int(n), int(heartbeat_s), int(init_timeout_s), \
        float(dead_s)
    import jaxlib._jax as lib
    try:
        service = _quiet_service(f"[::]:{port}", n + 1, heartbeat_s)
    except Exception as e:
        print(f"error {e}", flush=True)
        return 1
    print("ready", flush=True)
    cl = lib.get_distributed_runtime_client(f"{host}:{port}", n, init_timeout=init_timeout_s,
                                            heartbeat_timeout=heartbeat_s, use_compression=True)
    try:
        cl.connect()
    except Exception:
        service.shutdown()
        return 1
    seen = {}
    while not _gone(cl, n, seen, dead_s):
        time.sleep(0.5)
    try:
        cl.shutdown()
    except Exception:
        pass
    service.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
