"""`torch.mps`: Apple's Metal backend, never available in torchshim (JAX has no MPS device here). Answers as
PyTorch does on a machine without MPS: `is_available()` False, `device_count()` 0, seeding accepted, and the
functions that need the backend raise PyTorch's RuntimeError."""

__all__ = ["is_available", "device_count", "synchronize", "manual_seed", "seed", "get_rng_state",
           "set_rng_state", "empty_cache", "current_allocated_memory", "driver_allocated_memory",
           "recommended_max_memory", "set_per_process_memory_fraction", "Event"]


def _no_mps(what):
    raise RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available():
    """`torch.mps.is_available() -> bool`: False."""
    return False


def device_count():
    """`torch.mps.device_count() -> int`: 0."""
    return 0


def synchronize():
    """`torch.mps.synchronize()`: RuntimeError (no MPS backend)."""
    _no_mps("deviceSynchronize")


def manual_seed(seed):
    """`torch.mps.manual_seed(seed)`: ignored without MPS, as in PyTorch."""
    int(seed)


def seed():
    """`torch.mps.seed()`: RuntimeError (no MPS backend)."""
    _no_mps("getDefaultGenerator")


def get_rng_state(device="mps"):
    """`torch.mps.get_rng_state()`: RuntimeError (no MPS backend)."""
    _no_mps("getDefaultGenerator")


def set_rng_state(new_state, device="mps"):
    """`torch.mps.set_rng_state(new_state)`: RuntimeError (no MPS backend)."""
    _no_mps("getDefaultGenerator")


def empty_cache():
    """`torch.mps.empty_cache()`: RuntimeError (no MPS backend)."""
    _no_mps("emptyCache")


def current_allocated_memory():
    """`torch.mps.current_allocated_memory()`: RuntimeError (no MPS backend)."""
    _no_mps("getCurrentAllocatedMemory")


def driver_allocated_memory():
    """`torch.mps.driver_allocated_memory()`: RuntimeError (no MPS backend)."""
    _no_mps("getDriverAllocatedMemory")


def recommended_max_memory():
    """`torch.mps.recommended_max_memory()`: RuntimeError (no MPS backend)."""
    _no_mps("getRecommendedMaxMemory")


def set_per_process_memory_fraction(fraction):
    """`torch.mps.set_per_process_memory_fraction(fraction)`: RuntimeError (no MPS backend)."""
    _no_mps("setMemoryFraction")


class Event:
    """`torch.mps.Event(enable_timing=False)`: RuntimeError (no MPS backend)."""

    def __init__(self, enable_timing=False):
        _no_mps("acquireEvent")
