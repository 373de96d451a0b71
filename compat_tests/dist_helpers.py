"""Shared pieces of the multi-process torch.distributed tests: a free TCP port and the ranks' jax
compilation cache."""
import importlib.util
import socket

import jax


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
