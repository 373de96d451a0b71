"""A bound on live compiled kernels, so a long-running process does not run out of memory mappings.

Every XLA CPU executable maps its code and data into the process (about three mappings each), and jax keeps
each executable for as long as its jitted function lives. torchshim compiles a kernel per op, dtype, shape and
static arguments, so a process that meets many shapes (a test suite, variable sequence lengths) accumulates
tens of thousands of them, and Linux refuses new mappings past `vm.max_map_count` (65530 by default): XLA then
crashes with a segmentation fault while loading the next executable.

jax reports every compilation (and every executable read from the persistent cache) to `jax.monitoring`;
every `CHECK_EVERY` of them this module counts the process's mappings and, past `FRACTION` of the limit, marks
the caches for clearing. The clearing (`jax.clear_caches()`) happens at the next safe point: when an eager op
wraps a concrete (not traced) result (`ops/_dispatch.fresh`). Kernels are then recompiled (or re-read from a
persistent cache) on next use; no result changes. Does nothing where /proc is missing (not Linux).
"""
import jax
from jax import monitoring

__all__ = ["pending", "relieve", "map_count", "max_map_count"]

CHECK_EVERY = 500
FRACTION = 0.6
_EVENTS = ("/jax/core/compile/backend_compile_duration", "/jax/compilation_cache/cache_hits")

pending = False  # read on every eager op result: a plain module global
_compiles = 0


def max_map_count():
    """`vm.max_map_count`, or None where it cannot be read."""
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def map_count():
    """The number of memory mappings of this process (lines of /proc/self/maps)."""
    with open("/proc/self/maps", "rb") as f:
        return f.read().count(b"\n")


_LIMIT = max_map_count()


def _seen_compile(event, *args, **kwargs):
    global _compiles, pending
    if event not in _EVENTS:
        return
    _compiles += 1
    if _compiles % CHECK_EVERY == 0 and map_count() > FRACTION * _LIMIT:
        pending = True


def relieve():
    """Drop jax's compiled-kernel caches now (call only outside any jax trace)."""
    global pending
    pending = False
    jax.clear_caches()


if _LIMIT is not None:
    monitoring.register_event_listener(_seen_compile)
    monitoring.register_event_duration_secs_listener(_seen_compile)
