"""`torch.cuda`'s memory statistics over jax's device memory statistics (`jax.Device.memory_stats()`:
`bytes_in_use`, `peak_bytes_in_use`, `bytes_reserved`, `bytes_limit`, ...). Without a GPU, these behave as
PyTorch's CPU build does (zeros and an empty dict, `mem_get_info` raises).

Differences: jax's allocator keeps one pool per device; "allocated" is jax's bytes in use and "reserved" its
pool size (`bytes_reserved`, or the bytes in use when jax does not report it). `reset_peak_memory_stats`
cannot reset jax's own peak counter (kept since the process started): after a reset, `max_memory_allocated`
reports `max(bytes in use now, bytes in use at the reset)` until jax's peak exceeds its value at the reset."""
import collections

from .. import _device as Dev

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_stats", "memory_summary", "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_max_memory_cached", "mem_get_info", "memory_cached", "max_memory_cached",
           "set_per_process_memory_fraction", "get_per_process_memory_fraction"]

_peak_at_reset = {}  # device index -> (jax peak at the reset, bytes in use at the reset)
_fraction = {}


def _index(device):
    if device is None:
        return Dev.current_cuda_index()
    if isinstance(device, int):
        return device
    d = Dev.device(device) if not isinstance(device, Dev.device) else device
    return Dev.current_cuda_index() if d.index is None else d.index


def _raw(device):
    """jax's memory statistics of cuda device `device`, or None without a GPU."""
    gpus = Dev.gpu_devices()
    if not gpus:
        return None
    i = _index(device)
    if i >= len(gpus):
        raise RuntimeError("Invalid device argument : did you call init?")
    return gpus[i].memory_stats() or {}


def memory_stats(device=None):
    """`torch.cuda.memory_stats(device=None) -> OrderedDict`: PyTorch's keys that jax can fill
    (`allocated_bytes.all.current/peak`, `reserved_bytes.all.current/peak`, `num_alloc_retries`, ...)."""
    raw = _raw(device)
    if raw is None:
        return collections.OrderedDict()
    cur = raw.get("bytes_in_use", 0)
    peak = _peak(device, raw)
    res = raw.get("bytes_reserved", raw.get("pool_bytes", cur))
    out = collections.OrderedDict()
    for kind, c, p in (("allocated_bytes", cur, peak), ("reserved_bytes", res, max(res, peak)),
                       ("active_bytes", cur, peak), ("requested_bytes", cur, peak)):
        for pool in ("all", "large_pool", "small_pool"):
            out[f"{kind}.{pool}.current"] = c if pool == "all" else 0
            out[f"{kind}.{pool}.peak"] = p if pool == "all" else 0
    out["num_alloc_retries"] = 0
    out["num_ooms"] = raw.get("num_allocs_failed", 0) if isinstance(raw.get("num_allocs_failed"), int) else 0
    out["num_device_alloc"] = raw.get("num_allocs", 0)
    return out


def _peak(device, raw):
    i = _index(device)
    peak = raw.get("peak_bytes_in_use", raw.get("bytes_in_use", 0))
    r = _peak_at_reset.get(i)
    if r is not None:
        jax_peak_then, in_use_then = r
        if peak <= jax_peak_then:  # jax's peak has not moved since the reset
            return max(in_use_then, raw.get("bytes_in_use", 0))
    return peak


def memory_allocated(device=None):
    """`torch.cuda.memory_allocated(device=None) -> int`: bytes of device memory jax has in use."""
    raw = _raw(device)
    return 0 if raw is None else int(raw.get("bytes_in_use", 0))


def max_memory_allocated(device=None):
    """`torch.cuda.max_memory_allocated(device=None) -> int`: peak bytes in use (see the module docstring
    for what a reset does)."""
    raw = _raw(device)
    return 0 if raw is None else int(_peak(device, raw))


def memory_reserved(device=None):
    """`torch.cuda.memory_reserved(device=None) -> int`: bytes jax's allocator holds."""
    raw = _raw(device)
    if raw is None:
        return 0
    return int(raw.get("bytes_reserved", raw.get("pool_bytes", raw.get("bytes_in_use", 0))))


def max_memory_reserved(device=None):
    """`torch.cuda.max_memory_reserved(device=None) -> int`."""
    raw = _raw(device)
    if raw is None:
        return 0
    return int(max(memory_reserved(device), _peak(device, raw)))


memory_cached = memory_reserved
max_memory_cached = max_memory_reserved


def reset_peak_memory_stats(device=None):
    """`torch.cuda.reset_peak_memory_stats(device=None)`."""
    raw = _raw(device)
    if raw is None:
        raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")
    _peak_at_reset[_index(device)] = (raw.get("peak_bytes_in_use", 0), raw.get("bytes_in_use", 0))


def reset_max_memory_allocated(device=None):
    """`torch.cuda.reset_max_memory_allocated(device=None)`: reset_peak_memory_stats, with PyTorch's
    FutureWarning."""
    import warnings
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """`torch.cuda.reset_max_memory_cached(device=None)`: as reset_max_memory_allocated."""
    import warnings
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def mem_get_info(device=None):
    """`torch.cuda.mem_get_info(device=None) -> (free, total)` bytes, from jax's `bytes_limit`."""
    raw = _raw(device)
    if raw is None:
        Dev._no_cuda()
    total = int(raw.get("bytes_limit", 0))
    return total - int(raw.get("bytes_in_use", 0)), total


def memory_summary(device=None, abbreviated=False):
    """`torch.cuda.memory_summary(device=None, abbreviated=False) -> str`: a table of the statistics above."""
    stats = memory_stats(device)
    if not stats:
        raise KeyError("allocated_bytes.all.current")
    lines = ["|" + "=" * 75 + "|",
             "|                  PyTorch CUDA memory summary, device ID {:<24d}|".format(_index(device)),
             "|" + "-" * 75 + "|"]
    for name, key in (("Allocated memory", "allocated_bytes"), ("Active memory", "active_bytes"),
                      ("Requested memory", "requested_bytes"), ("GPU reserved memory", "reserved_bytes")):
        cur, peak = stats[f"{key}.all.current"], stats[f"{key}.all.peak"]
        lines.append(f"| {name:<25}| {_fmt(cur):>12} | {_fmt(peak):>12} |" + " " * 20 + "|")
    lines.append("|" + "=" * 75 + "|")
    return "\n".join(lines) + "\n"


def _fmt(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


def set_per_process_memory_fraction(fraction, device=None):
    """`torch.cuda.set_per_process_memory_fraction(fraction, device=None)`. Difference: jax's pool size is
    fixed when the backend starts (XLA_PYTHON_CLIENT_MEM_FRACTION); the fraction is recorded and checked."""
    if _raw(device) is None:
        Dev._no_cuda()
    if not isinstance(fraction, float) or not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _fraction[_index(device)] = fraction


def get_per_process_memory_fraction(device=None):
    """`torch.cuda.get_per_process_memory_fraction(device=None) -> float`."""
    if _raw(device) is None:
        Dev._no_cuda()
    return _fraction.get(_index(device), 1.0)
