"""init_process_group / destroy_process_group and the availability queries.

`init_process_group` finds the coordinator (`_rendezvous`), joins JAX's multi-process runtime (`_runtime`),
and makes the default group. `destroy_process_group()` leaves the runtime; init_process_group may be called
again afterwards (a fresh runtime: JAX allows `jax.distributed.shutdown()` then `initialize()` again).

Tensors made before init_process_group (on the single-process CPU backend, which init replaces) keep their
values and mix with new ones; jitted programs are recompiled for the new backend once.
"""
import datetime

from .. import _device
from . import _collectives, _groups, _p2p, _programs, _rendezvous, _runtime
from ._groups import ProcessGroup
from ._types import Backend

__all__ = ["init_process_group", "destroy_process_group", "is_initialized", "is_available",
           "is_gloo_available", "is_nccl_available", "is_mpi_available", "is_ucc_available",
           "is_xccl_available",
           "is_backend_available"]

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)


def is_available():
    """`torch.distributed.is_available() -> bool`: True."""
    return True


def is_initialized():
    """`torch.distributed.is_initialized() -> bool`: whether the default process group exists."""
    return _groups._R.world is not None


def is_gloo_available():
    """`torch.distributed.is_gloo_available()`: True (CPU collectives are gloo's, through XLA)."""
    return True


def is_nccl_available():
    """`torch.distributed.is_nccl_available()`: whether jax has GPUs (XLA's GPU collectives are NCCL)."""
    return bool(_device.gpu_devices())


def is_mpi_available():
    """`torch.distributed.is_mpi_available()`: False."""
    return False


def is_ucc_available():
    """`torch.distributed.is_ucc_available()`: False."""
    return False


def is_xccl_available():
    """`torch.distributed.is_xccl_available()`: False."""
    return False


def is_backend_available(backend):
    """`torch.distributed.is_backend_available(backend) -> bool`."""
    b = Backend(backend)
    return {"gloo": True, "nccl": is_nccl_available()}.get(str(b), False)


def _backend(backend):
    if backend is None:
        return Backend("nccl" if is_nccl_available() else "gloo")
    b = str(backend).lower()
    if "," in b or ":" in b:  # "cpu:gloo,cuda:nccl"
        pairs = dict(p.split(":", 1) for p in b.split(","))
        b = pairs.get("cuda") if is_nccl_available() and "cuda" in pairs else pairs.get("cpu", b)
    if b == "gloo":
        return Backend(b)
    if b == "nccl":
        if not is_nccl_available():
            raise RuntimeError("Distributed package doesn't have NCCL built in")
        return Backend(b)
    if b in ("mpi", "ucc", "xccl"):
        raise RuntimeError(f"Distributed package doesn't have {b.upper()} built in")
    raise AssertionError(f"Unknown backend type {backend}")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """`torch.distributed.init_process_group(backend=None, init_method=None, timeout=None, world_size=-1,
    rank=-1, store=None, group_name='', pg_options=None, device_id=None)`.

    backend "gloo" (CPU) or "nccl" (GPUs; None picks nccl when jax has GPUs, else gloo); init_method
    "env://" (default: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), "tcp://host:port" or "file://path"
    (rank and world_size as arguments or in the URL's query); or `store=` with rank and world_size. Rank 0
    hosts JAX's coordination service at the rendezvous address. `timeout` (default 30 minutes) bounds the
    rendezvous and every collective wait. Differences: `pg_options` must be None; `device_id` must be None
    or a cpu device (one jax device per process); see `_store` for TCPStore."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if pg_options is not None:
        raise ValueError("torchshim.distributed.init_process_group: pg_options is not supported")
    if device_id is not None and getattr(device_id, "type", str(device_id)) != "cpu":
        raise ValueError("torchshim.distributed.init_process_group: device_id other than a cpu device is not "
                         "supported (each process uses its LOCAL_RANK's device)")
    if timeout is None:
        timeout = _DEFAULT_TIMEOUT
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    t = timeout.total_seconds()
    host, port, r, n, file_store = _rendezvous.resolve(init_method, store, rank, world_size, t)
    b = _backend(backend)
    if not 0 <= r < n:
        raise ValueError(f"Invalid rank {r} for world_size {n}: rank must be in [0, {n - 1}]")
    _runtime.start(host, port, n, r, t)
    if file_store is not None:
        file_store._release()
    pg = ProcessGroup(range(n), 0, b, t, r)
    pg.group_name = group_name or "0"
    _groups.set_world(pg)
    return None


def destroy_process_group(group=None):
    """`torch.distributed.destroy_process_group(group=None)`: None destroys every group and leaves the
    runtime (init_process_group can then be called again); a subgroup is only forgotten."""
    if not is_initialized():
        raise AssertionError("Process group cannot be None")
    if group is not None and group is not _groups._R.world:
        g = _groups.resolve(group)
        if isinstance(g, ProcessGroup):
            _groups._R.groups.pop(g._gid, None)
        return None
    _groups.clear()
    _programs.clear()
    _p2p._SEND_SEQ.clear()
    _p2p._RECV_SEQ.clear()
    _collectives._MB_COUNT.clear()
    _runtime.stop()
    return None
