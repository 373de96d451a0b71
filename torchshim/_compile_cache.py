"""JAX's persistent compilation cache, on by default: a second run of the same script reads its kernels.

torchshim compiles one XLA kernel per op, dtype, shape and static arguments (and one program per
`torch.compile` guard set); on a cold start that is most of the time to the first result. jax can store every
compiled executable on disk, keyed by the exact program, the jax/jaxlib versions and the compile options, and
read it back in a later process instead of compiling (a hit changes no result: it is the executable XLA built
for the same program). `configure()`, called once when torchshim is imported, turns it on:

- folder: `$TORCHSHIM_CACHE_DIR`, else `$XDG_CACHE_HOME/torchshim/xla` (`~/.cache/torchshim/xla`);
- off switch: `TORCHSHIM_COMPILE_CACHE=0` (or `off`, `false`, `no`);
- size bound: `TORCHSHIM_COMPILE_CACHE_MAX_MB` (default 1024). At import, at most once per `TRIM_EVERY`
  seconds, the oldest entries (by last read, which the file system's access time tracks to within a day, or
  last write) are deleted until the folder holds at most 80% of the bound;
- every executable is cached, however quick its compile (`jax_persistent_cache_min_compile_time_secs` 0,
  `jax_persistent_cache_min_entry_size_bytes` 0): reading a kernel back costs about 5% of compiling it
  (docs/performance.md, "Compilation cache").

The user's own jax settings win: when `jax_compilation_cache_dir` (or `JAX_COMPILATION_CACHE_DIR`) is
already set, or `jax_enable_compilation_cache` is off, nothing is changed; the thresholds are set only where
they still hold jax's defaults and no `JAX_PERSISTENT_CACHE_*` variable is set.

Several processes may share the folder (pytest-xdist and DataLoader workers, two scripts): jax's own file
cache writes an entry in place, so a reader could load a half-written executable. Here each entry is written
to a temporary file and renamed into place (readers see no file or the whole file), and an entry deleted
between a reader's check and its read counts as a miss. jax's `jax_compilation_cache_max_size` bound is not
used: with it, every write lists and reads the whole folder under a lock (about 0.1 s per write at 1000
entries, 1 s at 5000).

A folder that cannot be created or written leaves the cache off: silently by default, with one warning when
the folder or the switch was set explicitly. `status()` says what was decided and why.
"""
import os
import threading
import time
import types
import warnings

import jax

__all__ = ["configure", "status", "default_dir", "trim"]

ENV_SWITCH = "TORCHSHIM_COMPILE_CACHE"
ENV_DIR = "TORCHSHIM_CACHE_DIR"
ENV_MAX_MB = "TORCHSHIM_COMPILE_CACHE_MAX_MB"
DEFAULT_MAX_MB = 1024
TRIM_EVERY = 3600  # seconds between two size checks of the folder
TRIM_TO = 0.8  # a trim deletes down to this fraction of the bound
_OFF = ("0", "off", "false", "no")
_ON = ("1", "on", "true", "yes")
_STAMP = ".torchshim-trim"
_SUFFIX = "-cache"

_status = {"enabled": False, "dir": None, "reason": "not configured"}


def status():
    """{'enabled': bool, 'dir': folder or None, 'reason': why} of the decision `configure()` took."""
    return dict(_status)


def default_dir():
    """`$TORCHSHIM_CACHE_DIR`, else `$XDG_CACHE_HOME/torchshim/xla` (`~/.cache/torchshim/xla`)."""
    path = os.environ.get(ENV_DIR, "").strip()
    if path:
        return os.path.expanduser(path)
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torchshim", "xla")


def _decide(reason, enabled=False, path=None, warn=False):
    _status.update(enabled=enabled, dir=path, reason=reason)
    if warn and not enabled:
        warnings.warn(f"torchshim: compilation cache off: {reason}", RuntimeWarning, stacklevel=3)
    return enabled


def configure():
    """Turn on jax's persistent compilation cache in torchshim's folder unless switched off or already set by
    the user. Returns whether torchshim's cache is on. Called once, by `import torchshim`."""
    switch = os.environ.get(ENV_SWITCH, "").strip().lower()
    if switch in _OFF:
        return _decide(f"{ENV_SWITCH}={switch}")
    explicit = switch in _ON or bool(os.environ.get(ENV_DIR, "").strip())
    cfg = jax.config
    if cfg.jax_compilation_cache_dir or os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return _decide("jax_compilation_cache_dir is set by the user: jax's own settings apply")
    if not cfg.jax_enable_compilation_cache:
        return _decide("jax_enable_compilation_cache is off")
    path = os.path.abspath(default_dir())
    problem = _writable(path)
    if problem:
        return _decide(f"cannot write {path}: {problem}", warn=explicit)
    try:
        from jax._src import compilation_cache as cc
        from jax._src.lru_cache import LRUCache
    except ImportError as e:  # jax moved its cache: better no cache than unsafe sharing
        return _decide(f"jax's cache module not found ({e})", warn=explicit)
    if cc._cache is not None:
        return _decide("jax's compilation cache is already initialised")
    _trim_now(path)
    cfg.update("jax_compilation_cache_dir", path)
    cfg.update("jax_compilation_cache_max_size", -1)
    if cfg.jax_persistent_cache_min_compile_time_secs == 1.0 and \
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        cfg.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if cfg.jax_persistent_cache_min_entry_size_bytes == 0 and \
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES" not in os.environ:
        cfg.update("jax_persistent_cache_min_entry_size_bytes", -1)  # -1: no minimum, and jax keeps it
    try:
        cc._initialize_cache()
        cache = cc._cache
        if type(cache) is not LRUCache or cache.eviction_enabled or not hasattr(cache, "path"):
            raise TypeError(f"unexpected cache object {type(cache).__name__}")
        cache.put = types.MethodType(_atomic_put, cache)
        cache.get = types.MethodType(_tolerant_get, cache)
    except Exception as e:  # noqa: BLE001  (any surprise inside jax: leave the cache off)
        cfg.update("jax_compilation_cache_dir", None)
        cc.reset_cache()
        return _decide(f"could not set up jax's cache ({type(e).__name__}: {e})", warn=explicit)
    return _decide("on", enabled=True, path=path)


def _writable(path):
    """None when `path` is (or can be made) a folder this process can write, else what went wrong."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)  # private: whoever can write the cache can run code here
        probe = os.path.join(path, f".probe.{os.getpid()}.{threading.get_ident()}")
        with open(probe, "wb"):
            pass
        os.remove(probe)
    except OSError as e:
        return e.strerror or type(e).__name__
    return None


def _atomic_put(self, key, value):
    """jax's `LRUCache.put` (no eviction), the entry written to a temporary file and renamed into place."""
    if not key:
        raise ValueError("key cannot be empty")
    final = os.path.join(str(self.path), f"{key}{_SUFFIX}")
    if os.path.exists(final):
        return
    tmp = os.path.join(str(self.path), f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(value)
        os.replace(tmp, final)
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def _tolerant_get(self, key):
    """jax's `LRUCache.get` (no eviction); an entry removed by another process's trim is a miss."""
    if not key:
        raise ValueError("key cannot be empty")
    try:
        with open(os.path.join(str(self.path), f"{key}{_SUFFIX}"), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _max_bytes():
    try:
        return int(float(os.environ.get(ENV_MAX_MB, DEFAULT_MAX_MB)) * 2**20)
    except ValueError:
        return DEFAULT_MAX_MB * 2**20


def _trim_now(path):
    """`trim(path)` unless the folder was checked less than TRIM_EVERY seconds ago."""
    stamp = os.path.join(path, _STAMP)
    try:
        if time.time() - os.stat(stamp).st_mtime < TRIM_EVERY:
            return
    except OSError:
        pass
    try:
        with open(stamp, "wb"):
            pass
    except OSError:
        return
    trim(path, _max_bytes())


def trim(path, max_bytes):
    """Delete the least recently used entries of cache folder `path` until it holds at most TRIM_TO *
    `max_bytes` (only when it holds more than `max_bytes`), and temporary files left by killed writers.
    Returns the number of bytes freed."""
    entries, total, now = [], 0, time.time()
    try:
        with os.scandir(path) as it:
            for e in it:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if e.name.endswith(".tmp") and now - st.st_mtime > TRIM_EVERY:
                    _remove(e.path)
                elif e.name.endswith(_SUFFIX) and e.is_file(follow_symlinks=False):
                    entries.append((max(st.st_atime, st.st_mtime), st.st_size, e.path))
                    total += st.st_size
    except OSError:
        return 0
    if total <= max_bytes:
        return 0
    freed = 0
    for _, size, p in sorted(entries):
        if total - freed <= TRIM_TO * max_bytes:
            break
        if _remove(p):
            freed += size
    return freed


def _remove(p):
    try:
        os.remove(p)
        return True
    except OSError:
        return False
