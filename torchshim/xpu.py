"""`torch.xpu`: Intel's GPU backend, never available in torchshim. Answers as PyTorch's CPU build does:
`is_available()` False, `device_count()` 0, seeding and cache calls accepted, memory counters 0, and the
functions that need a device raise PyTorch's AssertionError ("Torch not compiled with XPU enabled")."""
import collections

__all__ = ["is_available", "device_count", "is_initialized", "init", "synchronize", "current_device",
           "set_device", "get_device_name", "get_device_properties", "get_device_capability",
           "current_stream",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "empty_cache", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "memory_stats", "mem_get_info", "is_bf16_supported", "is_tf32_supported",
           "get_arch_list", "get_gencode_flags", "set_per_process_memory_fraction", "Stream", "Event"]


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


def _none(*args, **kwargs):
    return None


def _zero(device=None):
    return 0


def is_available():
    """`torch.xpu.is_available() -> bool`: False."""
    return False


def device_count():
    """`torch.xpu.device_count() -> int`: 0."""
    return 0


def is_initialized():
    """`torch.xpu.is_initialized() -> bool`: False."""
    return False


# need a device: AssertionError, as PyTorch's CPU build
init = synchronize = current_device = set_device = get_device_name = get_device_properties = _not_compiled
get_device_capability = current_stream = initial_seed = get_rng_state = mem_get_info = _not_compiled
set_per_process_memory_fraction = _not_compiled
# accepted without a device, as in PyTorch (seeding is lazy; the cache is empty)
manual_seed = manual_seed_all = seed = seed_all = set_rng_state = empty_cache = _none
memory_allocated = max_memory_allocated = memory_reserved = _zero


def get_rng_state_all():
    """`torch.xpu.get_rng_state_all() -> list`: [] (no devices)."""
    return []


def memory_stats(device=None):
    """`torch.xpu.memory_stats(device=None)`: an empty OrderedDict (no devices)."""
    return collections.OrderedDict()


def is_bf16_supported(including_emulation=True):
    """`torch.xpu.is_bf16_supported() -> bool`: False."""
    return False


def is_tf32_supported():
    """`torch.xpu.is_tf32_supported() -> bool`: False."""
    return False


def get_arch_list():
    """`torch.xpu.get_arch_list() -> list[str]`: [] (not compiled with XPU)."""
    return []


def get_gencode_flags():
    """`torch.xpu.get_gencode_flags() -> str`: '' (not compiled with XPU)."""
    return ""


class Stream:
    """`torch.xpu.Stream`: PyTorch's CPU build binds a dummy class that cannot be instantiated."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Stream")


class Event:
    """`torch.xpu.Event`: PyTorch's CPU build binds a dummy class that cannot be instantiated."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")
