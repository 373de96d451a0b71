"""The multi-process runtime under torch.distributed: JAX's coordination service and its CPU (gloo) / GPU
(NCCL) collectives.

`start(host, port, world_size, rank, timeout)` joins the job: rank 0 hosts the coordination service at
host:port, every rank connects a client. It runs in two phases: a probe (a service and client with an error
callback, so that a missing rank or a wrong world_size is a Python exception within the timeout instead of
JAX's fatal abort) that also checks that every rank was given the same world_size, then the real
`jax.distributed` state the CPU backend's gloo collectives are built on (`_coordination.connect`): its
service runs in a process of its own started by rank 0, which outlives rank 0 (a client whose service
vanishes aborts its process), so that rank 0 dying raises DistBackendError naming it on the other ranks like
any dead peer. `stop()` leaves the job: every rank marks itself exited and disconnects; the service's
process leaves once every rank has. The same runs at interpreter exit.

`client()` is the coordination key-value store; `wait_key(key, peer, ...)` blocks on a key in one-second
slices, asking the service between slices whether the peer is still alive, so that a dead peer is named at
once and a late one after the timeout.
"""
import atexit
import threading
import time

import jax

from .. import _device
from . import _coordination
from ._exceptions import DistBackendError, DistNetworkError, DistStoreError

__all__ = ["start", "stop", "is_running", "client", "rank", "world_size", "timeout", "wait_key",
           "live_ranks", "local_device", "coordinator", "peer_state",
           "gone", "find_gone"]


class _State:
    running = False
    rank = 0
    world_size = 1
    timeout = 1800.0
    coordinator = None


_S = _State()
_atexit_registered = [False]


def _jax_dist():
    from jax._src import distributed
    return distributed


def _lib():
    from jax._src.lib import _jax
    return _jax


def is_running():
    return _S.running


def rank():
    return _S.rank


def world_size():
    return _S.world_size


def coordinator():
    """"host:port" of the coordination service (None when not running)."""
    return _S.coordinator if _S.running else None


def timeout():
    """The default process group's timeout in seconds."""
    return _S.timeout


def client():
    """The coordination service's client (its key-value store)."""
    return _jax_dist().global_state.client


def local_device():
    """This process's jax device (the one torchshim's 'cpu' tensors live on)."""
    return jax.local_devices()[0]


def _heartbeat(timeout_s):
    return int(min(100, max(10, timeout_s)))


def _ignore_error(*args):
    """The probe client's error callback: the error surfaces as the exception of `connect()`."""


def _graceful_shutdown(cl, service, my_rank, n, deadline, wait_for=None):
    """Disconnect `cl`. On the service's host, first wait until the other ranks have left (`wait_for()` true),
    then until their clients are disconnected (get_live_nodes returns once every live task listed calls it or
    disconnects; it runs in a thread so that a hung peer cannot hold this process)."""
    if service is not None and n > 1:
        while wait_for is not None and time.monotonic() < deadline and not wait_for():
            time.sleep(0.01)
        t = threading.Thread(target=_quietly, args=(cl.get_live_nodes, list(range(n))), daemon=True)
        t.start()
        t.join(max(0.0, min(5.0, deadline - time.monotonic())))
    _quietly(cl.shutdown)
    if service is not None:
        _quietly(service.shutdown)


def _quietly(fn, *args):
    try:
        fn(*args)
    except Exception:
        pass


def _probe(host, port, n, my_rank, timeout_s):
    """Phase 1: every rank reaches the service within the timeout, with the same world_size. Returns the
    port (free on rank 0, picked by it) of phase 2's service: reusing the rendezvous port would let a fast
    rank reach the probe's service while rank 0 is still shutting it down."""
    lib = _lib()
    service = None
    if my_rank == 0:
        try:
            service = _coordination.service(f"[::]:{port}", n, _heartbeat(timeout_s), 5)
        except Exception as e:
            raise DistNetworkError(f"The server socket has failed to listen on any local network address. "
                                   f"port: {port}, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                                   f"address already in use ({e})") from None
    cl = lib.get_distributed_runtime_client(f"{host}:{port}", my_rank, init_timeout=max(1, int(timeout_s)),
                                            heartbeat_timeout=_heartbeat(timeout_s), shutdown_timeout=5,
                                            missed_heartbeat_callback=_ignore_error, use_compression=False)
    try:
        cl.connect()
    except Exception:
        try:
            cl.shutdown()
        except Exception:
            pass
        if service is not None:
            service.shutdown()
        raise DistStoreError(
            f"Timed out after {timeout_s:g} seconds waiting for the {n} processes of world_size={n} to join "
            f"the rendezvous at {host}:{port} (this is rank {my_rank}). Check that WORLD_SIZE processes were "
            "started, each with its own RANK in 0..WORLD_SIZE-1, and the same "
            "MASTER_ADDR/MASTER_PORT.") from None
    deadline = time.monotonic() + timeout_s
    ms = int(timeout_s * 1000)
    try:
        # every rank publishes its world_size; rank 0 compares them and publishes the verdict (and the port)
        cl.key_value_set(f"torchshim/probe/ws/{my_rank}", str(n))
        if my_rank == 0:
            sizes = {r: int(cl.blocking_key_value_get(f"torchshim/probe/ws/{r}", ms)) for r in range(1, n)}
            bad = {r: v for r, v in sizes.items() if v != n}
            if bad:
                detail = ", ".join(f"rank {r} was given world_size={v}" for r, v in sorted(bad.items()))
                verdict = (f"init_process_group: the ranks disagree on world_size: rank 0 was given "
                           f"world_size={n}, {detail}; every rank must use the same world_size.")
            else:
                from ._rendezvous import free_port
                verdict = f"port={free_port()}"
            cl.key_value_set("torchshim/probe/verdict", verdict)
        else:
            verdict = cl.blocking_key_value_get("torchshim/probe/verdict", ms)
    except Exception as e:
        _quietly(cl.key_value_set, f"torchshim/probe/left/{my_rank}", "1")
        _graceful_shutdown(cl, service, my_rank, n, deadline, _probe_left(cl, n))
        raise DistStoreError(f"init_process_group: rendezvous at {host}:{port} failed: {e}") from None
    if my_rank != 0:
        _quietly(cl.key_value_set, f"torchshim/probe/left/{my_rank}", "1")
    _graceful_shutdown(cl, service, my_rank, n, deadline, _probe_left(cl, n))
    if not verdict.startswith("port="):
        raise ValueError(verdict)
    return int(verdict[5:])


def _probe_left(cl, n):
    def done():
        try:
            return len(cl.key_value_dir_get("torchshim/probe/left/")) >= n - 1
        except Exception:
            return True
    return done


def _configure_jax():
    """Select gloo CPU collectives and recoverability; drop a CPU backend made before the runtime existed."""
    from jax._src import xla_bridge
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.config.update("jax_enable_recoverability", True)
    if xla_bridge.backends_are_initialized():
        from jax.extend.backend import clear_backends
        clear_backends()
    _device.cpu_jax_device.cache_clear()
    _device.gpu_devices.cache_clear()


def _migrate():
    """Move every live torchshim tensor storage (and generator key) onto the current backend's device: arrays
    of a backend that was cleared read fine but cannot meet new ones in a jitted computation."""
    import gc

    import numpy as np

    from .._random import Generator
    from .._storage import Storage
    dev = local_device()

    def moved(a):
        if not isinstance(a, jax.Array) or isinstance(a, jax.core.Tracer):
            return a
        try:
            if a.devices() == {dev}:
                return a
        except Exception:
            return a
        if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
            impl = jax.random.key_impl(a)
            data = jax.device_put(np.asarray(jax.random.key_data(a)), dev)
            return jax.random.wrap_key_data(data, impl=impl)
        return jax.device_put(np.asarray(a), dev)

    for obj in gc.get_objects():
        if isinstance(obj, Storage):
            obj._array = moved(obj._array)
        elif isinstance(obj, Generator) and obj._key is not None:
            obj._key = moved(obj._key)


def start(host, port, n, my_rank, timeout_s):
    """Join the job of `n` processes as `my_rank`, rank 0 hosting the coordinator at host:port."""
    if _S.running:
        raise RuntimeError("torchshim.distributed: the runtime is already running")
    port2 = _probe(host, port, n, my_rank, timeout_s)
    _configure_jax()
    try:
        _coordination.connect(host, port2, n, my_rank, timeout_s, _heartbeat(timeout_s), f"{host}:{port}")
    except Exception as e:
        _coordination.disconnect()
        raise DistStoreError(f"init_process_group: connecting to the coordination service failed: "
                             f"{e}") from None
    _S.running, _S.rank, _S.world_size, _S.timeout = True, my_rank, n, float(timeout_s)
    _S.coordinator = f"{host}:{port}"
    # check that the backend sees one device per process (builds the CPU client with its collectives)
    if len(jax.devices()) != n:
        stop()
        raise RuntimeError(f"init_process_group: expected {n} devices (one per process), jax has "
                           f"{len(jax.devices())}")
    _migrate()
    _SEEN.clear()
    _HB.start(client(), my_rank)
    if not _atexit_registered[0]:
        atexit.register(_at_exit)
        _atexit_registered[0] = True


def stop():
    """Leave the job: mark this rank as exited (its peers then name it as having left), disconnect from the
    coordination service (its host process leaves once every rank has) and drop the distributed backend."""
    if not _S.running:
        return
    gs = _jax_dist().global_state
    _HB.stop()
    cl = gs.client
    _quietly(cl.key_value_set, f"torchshim/exited/{_S.rank}", "1")
    gs.client = gs.service = None
    _S.running = False
    _quietly(cl.shutdown)
    _coordination.reap()
    from jax.extend.backend import clear_backends
    clear_backends()
    _device.cpu_jax_device.cache_clear()
    _device.gpu_devices.cache_clear()
    _migrate()


class _Heartbeat:
    """A daemon thread that bumps this rank's key every HEARTBEAT_S seconds: a peer whose key stops moving
    for STALE_S seconds is dead (killed, or hung without releasing the GIL)."""
    HEARTBEAT_S = 0.5
    STALE_S = 10.0

    def __init__(self):
        self._stop = threading.Event()
        self._thread = None

    def start(self, cl, my_rank):
        self._stop = threading.Event()
        stop_event = self._stop

        def beat():
            k = 0
            while not stop_event.is_set():
                try:
                    cl.key_value_set(f"torchshim/hb/{my_rank}", str(k), allow_overwrite=True)
                except Exception:
                    return
                k += 1
                stop_event.wait(self.HEARTBEAT_S)

        self._thread = threading.Thread(target=beat, name="torchshim-dist-heartbeat", daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None


_HB = _Heartbeat()


def _stale_s():
    """Seconds without a heartbeat after which a peer is dead: STALE_S, or a third of a shorter timeout (at
    least 2 s), so that a dead peer is named before the timeout passes."""
    return max(2.0, min(_Heartbeat.STALE_S, _S.timeout / 3))
_SEEN = {}  # peer -> (last heartbeat value, monotonic time it was first seen)


def _peer_state(cl, peer):
    """"exited" (it left: destroy_process_group or its interpreter exited), "dead" (its heartbeat stopped)
    or "alive"."""
    try:
        if cl.key_value_try_get(f"torchshim/exited/{peer}") is not None:
            return "exited"
    except Exception:
        pass
    try:
        v = cl.key_value_try_get(f"torchshim/hb/{peer}")
    except Exception:
        v = None
    now = time.monotonic()
    last = _SEEN.get(peer)
    if last is None or last[0] != v:
        _SEEN[peer] = (v, now)
        return "alive"
    return "dead" if now - last[1] > _stale_s() else "alive"


def peer_state(peer):
    """The state of global rank `peer`: "alive", "exited" or "dead"."""
    return _peer_state(client(), peer)


def _at_exit():
    if _S.running:
        _quietly(stop)


def live_ranks(ranks):
    """The subset of `ranks` (global) whose processes are alive (see `peer_state`)."""
    return {r for r in ranks if r == _S.rank or peer_state(r) == "alive"}


def find_gone(ranks, wait_s=None):
    """[(rank, state)] of the ranks among `ranks` that left or died, polling up to `wait_s` seconds (default:
    the heartbeat staleness limit, long enough to tell a killed peer) until one is found."""
    cl = client()
    if cl is None:
        return []
    deadline = time.monotonic() + (_stale_s() + 1.0 if wait_s is None else wait_s)
    while True:
        found = [(r, st) for r in ranks if r != _S.rank and (st := _peer_state(cl, r)) != "alive"]
        if found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def gone(peer, state):
    if state == "exited":
        return f"rank {peer} has left the job (it called destroy_process_group or its process exited)"
    return (f"rank {peer} is no longer running (no heartbeat for {_stale_s():.1f} s: "
            f"killed or crashed)")


def wait_key(key, peer, deadline, what, timeout_s=None):
    """The bytes under `key`, set by global rank `peer`: DistBackendError naming the peer when it died or
    when `deadline` (time.monotonic) passes first."""
    cl = client()
    if cl is None:
        raise DistBackendError(f"{what}: the process group was destroyed")
    while True:
        left = deadline - time.monotonic()
        try:
            return cl.blocking_key_value_get_bytes(key, max(1, int(min(left, 1.0) * 1000)))
        except Exception as e:
            if "DEADLINE_EXCEEDED" not in str(e):
                raise DistBackendError(f"{what}: the coordination service failed while waiting for rank "
                                       f"{peer}: "
                                       f"{e}") from None
        state = peer_state(peer)
        if state != "alive":
            raise DistBackendError(f"{what}: {gone(peer, state)}; this rank ({_S.rank}) was waiting for it.")
        if time.monotonic() >= deadline:
            t = _S.timeout if timeout_s is None else timeout_s
            raise DistBackendError(f"{what}: timed out after {t:g} seconds waiting for rank {peer} (alive, "
                                   "but "
                                   f"it did not reach this call); this is rank {_S.rank}.")
