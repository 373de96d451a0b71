"""`TORCHSHIM_LOGS=kernels`: one line on stderr for every XLA executable the process builds or loads.

    [torchshim] kernel add (float32[7,5], float32[7,5]): 12.3 ms, compiled (cache miss, written)
    [torchshim] kernel add (float32[7,5], float32[7,5]): 1.9 ms, read from the compilation cache

An eager op meets a new dtype/shape/static-argument signature, or a `torch.compile` program is (re)traced
(`TORCHSHIM_LOGS=recompiles` says which guard changed), and jax lowers and compiles it. The line gives the
kernel's name (the op's, for eager kernels; jax's primitive or function name otherwise), its argument shapes
and dtypes (static arguments are not shown), the milliseconds spent in XLA (compile, or read and load on a
hit) and where the executable came from: `compiled (cache miss, written)`, `compiled (not cached)` (the
persistent cache is on but the entry was not written), `read from the compilation cache`, or `compiled
(persistent cache off)`.

Read once, at `import torchshim` (`TORCHSHIM_LOGS` is comma-separated; `all` includes this log); when it is
not asked for, nothing is registered, so the log costs nothing. The shapes come from jax's own debug record of
each lowering (logger `jax._src.interpreters.pxla`), caught by a filter and not passed on to other handlers.
"""
import logging
import os
import sys
import threading

from jax import monitoring

__all__ = ["enabled", "install"]

_COMPILE = "/jax/core/compile/backend_compile_duration"
_HIT = "/jax/compilation_cache/cache_hits"
_WRITTEN = "/jax/compilation_cache/cache_misses"  # jax records it when it writes an entry
_LOGGER = "jax._src.interpreters.pxla"
_local = threading.local()
_installed = False
_keep_debug = False  # whether the logger showed DEBUG records before install() (then they still pass)


def enabled():
    """Whether `TORCHSHIM_LOGS` (comma-separated) names `kernels` or `all`."""
    names = {n.strip() for n in os.environ.get("TORCHSHIM_LOGS", "").split(",") if n.strip()}
    return "kernels" in names or "all" in names


class _Lowering(logging.Filter):
    """Keeps the argument types of jax's "Compiling <name> with global shapes and types ..." debug record for
    the compile that follows; drops the logger's DEBUG records unless they were shown before install()."""

    def filter(self, record):
        if record.levelno > logging.DEBUG:
            return True
        if record.msg.startswith("Compiling %s with global shapes") and len(record.args) >= 2:
            _local.types = ", ".join(a.str_short() if hasattr(a, "str_short") else str(a)
                                     for a in record.args[1])
        return _keep_debug


def _on_event(event, **kwargs):
    if event == _HIT:
        _local.source = "read from the compilation cache"
    elif event == _WRITTEN:
        _local.source = "compiled (cache miss, written)"


def _on_duration(event, secs, fun_name=None, **kwargs):
    if event != _COMPILE:
        return
    from jax._src import compilation_cache as cc  # noqa: PLC0415
    source = getattr(_local, "source", None)
    if source is None:
        source = "compiled (not cached)" if cc.is_persistent_cache_enabled() else \
            "compiled (persistent cache off)"
    types = getattr(_local, "types", "?")
    _local.source = _local.types = None
    name = fun_name or "?"
    if name.startswith("jit(") and name.endswith(")"):
        name = name[4:-1]
    print(f"[torchshim] kernel {name} ({types}): {secs * 1e3:.1f} ms, {source}", file=sys.stderr)


def install():
    """Register the log's listeners (once). `import torchshim` calls it when `enabled()`."""
    global _installed, _keep_debug
    if _installed:
        return
    _installed = True
    logger = logging.getLogger(_LOGGER)
    _keep_debug = logger.isEnabledFor(logging.DEBUG)
    if not _keep_debug:
        logger.setLevel(logging.DEBUG)
    logger.addFilter(_Lowering())
    monitoring.register_event_listener(_on_event)
    monitoring.register_event_duration_secs_listener(_on_duration)
