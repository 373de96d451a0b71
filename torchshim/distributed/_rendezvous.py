"""Where the coordinator is and who this process is: init_process_group's `init_method` ("env://",
"tcp://host:port", "file://path") or `store=`, torchrun's environment contract (RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID), with PyTorch's errors for what is
missing."""
import os
import socket
import urllib.parse

from ._store import FileStore, Store, TCPStore

__all__ = ["resolve", "is_torchelastic_launched", "get_node_local_rank", "free_port"]


def _err(scheme, what):
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {what}")


def free_port():
    """A TCP port free on this machine now."""
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _env_int(scheme, name, given):
    if given is not None and given >= 0:
        return int(given)
    if name not in os.environ:
        raise _err(scheme, f"environment variable {name} expected, but not set")
    return int(os.environ[name])


def _from_env(rank, world_size):
    rank = _env_int("env", "RANK", rank)
    world_size = _env_int("env", "WORLD_SIZE", world_size)
    for name in ("MASTER_ADDR", "MASTER_PORT"):
        if name not in os.environ:
            raise _err("env", f"environment variable {name} expected, but not set")
    return os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), rank, world_size


def _query(url, scheme, rank, world_size):
    q = urllib.parse.parse_qs(url.query)
    if (rank is None or rank < 0) and "rank" in q:
        rank = int(q["rank"][0])
    if (world_size is None or world_size < 0) and "world_size" in q:
        world_size = int(q["world_size"][0])
    if rank is None or rank < 0:
        raise _err(scheme, "rank parameter missing")
    if world_size is None or world_size < 0:
        raise _err(scheme, "world size parameter missing")
    return rank, world_size


def _via_store(store, rank, world_size, timeout_s, generation):
    """Rank 0 picks a free port and publishes its address in `store`; the others read it."""
    key = f"torchshim/coordinator/{generation}"
    if rank == 0:
        host = socket.gethostname()
        try:
            socket.getaddrinfo(host, None)
        except OSError:
            host = "127.0.0.1"
        store.set(key, f"{host}:{free_port()}")
    import datetime
    old = store.timeout
    store.set_timeout(datetime.timedelta(seconds=timeout_s))
    try:
        addr = store.get(key).decode()
    finally:
        store.set_timeout(old)
    host, port = addr.rsplit(":", 1)
    return host, int(port)


def resolve(init_method, store, rank, world_size, timeout_s):
    """(host, port, rank, world_size, file_store_or_None) of the coordinator for init_process_group."""
    if store is not None:
        if init_method is not None:
            raise AssertionError("Cannot specify both init_method and store.")
        if world_size is None or world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank is None or rank < 0:
            raise AssertionError("rank must be non-negative if using store")
        if not isinstance(store, Store):
            raise TypeError(f"store must be a torch.distributed.Store, got {type(store).__name__}")
        if isinstance(store, TCPStore):
            if store.is_master != (rank == 0):
                raise ValueError("torchshim: the TCPStore with is_master=True must belong to rank 0 (it "
                                 "hosts "
                                 f"the coordinator); rank {rank} has is_master={store.is_master}")
            return store.host, store.port, rank, world_size, None
        gen = getattr(store, "_torchshim_generation", 0)
        store._torchshim_generation = gen + 1
        host, port = _via_store(store, rank, world_size, timeout_s, gen)
        return host, port, rank, world_size, None
    if init_method is None:
        init_method = "env://"
    url = urllib.parse.urlparse(init_method)
    if url.scheme == "env":
        host, port, rank, world_size = _from_env(rank, world_size)
        return host, port, rank, world_size, None
    if url.scheme == "tcp":
        if url.port is None:
            raise _err("tcp", "port number missing")
        rank, world_size = _query(url, "tcp", rank, world_size)
        return url.hostname, url.port, rank, world_size, None
    if url.scheme == "file":
        rank, world_size = _query(url, "file", rank, world_size)
        path = url.path if not url.netloc else url.netloc + url.path
        if not path:
            raise _err("file", "path missing")
        fs = FileStore(path, world_size)
        host, port = _via_store(fs, rank, world_size, timeout_s, 0)
        return host, port, rank, world_size, fs
    raise RuntimeError(f"No rendezvous handler for {url.scheme}://")


def is_torchelastic_launched():
    """`torch.distributed.is_torchelastic_launched() -> bool`: whether TORCHELASTIC_RUN_ID is set (torchrun
    and torchshim's launcher set it)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank=None):
    """`torch.distributed.get_node_local_rank(fallback_rank=None) -> int`: LOCAL_RANK from the environment,
    else fallback_rank, else RuntimeError (PyTorch's message)."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device "
                       "context "
                       "and want the code to run locally instead.")
