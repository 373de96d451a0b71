"""Shared test setup: the harness on sys.path, torch (the oracle) imported up front, warn-once warnings made
always (in both libraries), and jax's persistent compilation cache.

Most of the suite's time is XLA compiling small kernels (each op, per dtype/shape/static arguments, and one
whole-function jit per case in test_tracing.py). The persistent cache stores every compiled executable on
disk, keyed by the exact program, jax/jaxlib version and compile options, so
- a re-run (a developer's, or CI's on the same machine) loads kernels instead of compiling them, and
- pytest-xdist workers (`nox -s tests` runs `-n auto`) reuse each other's kernels within one run.
It changes no result: a hit loads the executable XLA would have built for the same program.

TORCHSHIM_JAX_CACHE_DIR: the cache folder (default `$XDG_CACHE_HOME/torchshim/jax-compilation-cache`, i.e.
`~/.cache/...`); `0`, `off` or empty turns it off. A JAX_COMPILATION_CACHE_DIR set by the user wins, with the
user's own jax settings. The folder is trimmed (oldest entries first) when it grows past
TORCHSHIM_JAX_CACHE_MAX_MB (default 2048).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import jax  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402,F401  the reference oracle: the suite fails (never skips) without it

_OFF = ("", "0", "off", "false", "no")


def _cache_dir():
    """The folder to use, or None when caching is off or already configured by the user."""
    if os.environ.get("JAX_COMPILATION_CACHE_DIR") or jax.config.jax_compilation_cache_dir:
        return None
    path = os.environ.get("TORCHSHIM_JAX_CACHE_DIR")
    if path is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "torchshim", "jax-compilation-cache")
    return None if path.strip().lower() in _OFF else path


def _trim(path, max_bytes):
    """Once the folder exceeds max_bytes, delete its oldest entries until it holds at most half of that."""
    try:
        entries = [e for e in os.scandir(path) if e.is_file(follow_symlinks=False)]
    except OSError:
        return
    stats = []
    for e in entries:
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:  # removed meanwhile (another process's temporary file, a concurrent trim)
            continue
        stats.append((st.st_mtime, st.st_size, e.path))
    total = sum(s for _, s, _ in stats)
    if total <= max_bytes:
        return
    for _, size, p in sorted(stats):
        if total <= max_bytes // 2:
            break
        try:
            os.remove(p)
            total -= size
        except OSError:
            pass


def _atomic_cache_writes():
    """jax's file cache writes an entry in place (`Path.write_bytes`) and a reader checks `exists()` first, so
    a second xdist worker can read a half-written executable, which segfaults when deserialised (seen here).
    Write each entry to a temporary file and rename it into place, so readers see no file or the whole file.
    This patches jax's (private) LRUCache.put in the test process only; skipped if that class looks
    different."""
    try:
        from jax._src import lru_cache
    except ImportError:
        return
    cls = getattr(lru_cache, "LRUCache", None)
    if cls is None or not hasattr(cls, "put") or getattr(cls.put, "_torchshim_atomic", False):
        return
    original = cls.put

    def put(self, key, value):
        if getattr(self, "eviction_enabled", True):  # locked by jax itself
            return original(self, key, value)
        final = self.path / f"{key}{getattr(lru_cache, '_CACHE_SUFFIX', '-cache')}"
        if final.exists():
            return
        tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        tmp.write_bytes(value)
        os.replace(tmp, final)
    put._torchshim_atomic = True
    cls.put = put


def _enable_compilation_cache():
    path = _cache_dir()
    if path is None:
        return
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return  # an unwritable home: run without the cache
    if "PYTEST_XDIST_WORKER" not in os.environ:  # trim once, in the controller, before workers start
        _trim(path, int(float(os.environ.get("TORCHSHIM_JAX_CACHE_MAX_MB", "2048")) * 2**20))
    _atomic_cache_writes()
    jax.config.update("jax_compilation_cache_dir", path)
    # torchshim's kernels compile in milliseconds and are small: cache them all (jax's defaults skip those)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


_enable_compilation_cache()  # before anything compiles (importing torchshim below, in the tests, may)


def _fast_cpu_codegen():
    """XLA:CPU compiles fusions with its MLIR "fusion emitters" by default; its older elemental emitter
    compiles the suite's thousands of tiny kernels about a third faster (measured: 0.65 -> 0.43 s of CPU per
    test_gradients case, 72 -> 55 ms per test_ops case). Both are XLA's own supported code paths for the
    same HLO; the comparisons with PyTorch keep their tolerances. Set in os.environ (read when jax creates
    its CPU backend) so the suite's subprocesses get it too. A user's XLA_FLAGS naming the flag wins;
    TORCHSHIM_TEST_XLA_DEFAULTS=1 keeps XLA's defaults (to run the suite exactly as users' processes)."""
    if os.environ.get("TORCHSHIM_TEST_XLA_DEFAULTS", "").strip().lower() not in _OFF:
        return
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_cpu_use_fusion_emitters" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_use_fusion_emitters=false").strip()


_fast_cpu_codegen()  # before jax creates its CPU backend (nothing above has run a computation)

# PyTorch's warn-once warnings (TORCH_WARN_ONCE) appear on every call in both libraries, so a test's warnings
# do not depend on which test triggered them first in this process (torchshim-only tests such as
# test_tracing.py would otherwise use up torchshim's once). test_warn_once.py checks the default, once-only
# behaviour in fresh interpreters.
torch.set_warn_always(True)
import torchshim  # noqa: E402

torchshim.set_warn_always(True)


@pytest.fixture(autouse=True)
def _pytorch_distribution_validation_on():
    """PyTorch's default: distributions validate their arguments. torch._dynamo's first use in a process
    (torch.compile, torch.library.opcheck, ...) switches that default off for the whole process
    (`TorchPatcher.patch` calls `Distribution.set_default_validate_args(False)`), which made the reference
    depend on which tests ran earlier in the worker. Each test starts from the default."""
    torch.distributions.Distribution.set_default_validate_args(True)
