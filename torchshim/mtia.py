"""`torch.mtia`: Meta's training/inference accelerator backend, never available in torchshim. Answers as
PyTorch does without it: `is_available()` False, `device_count()` 0, seeding accepted, memory counters 0,
and the functions that need a device raise PyTorch's errors. `Stream()`/`Event()` make CPU
`torch.Stream`/`torch.Event` objects, as PyTorch's do without MTIA."""
from ._streams import Event, Stream  # noqa: F401

__all__ = ["is_available", "device_count", "is_initialized", "init", "synchronize", "current_device",
           "set_device", "get_device_properties", "get_device_capability", "current_stream", "default_stream",
           "stream", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "empty_cache", "memory_allocated", "max_memory_allocated",
           "memory_stats", "reset_peak_memory_stats", "is_bf16_supported", "Stream", "Event"]

_NOT_COMPILED = ("Torch not compiled with MTIA enabled. Ensure you have `import "
                 "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
                 "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


def _backend(what):
    def fn(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MTIA backend.")
    fn.__doc__ = f"RuntimeError: MTIA's {what}() needs the backend."
    return fn


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def _none(*args, **kwargs):
    return None


def _zero(device=None):
    return 0


def is_available():
    """`torch.mtia.is_available() -> bool`: False."""
    return False


def device_count():
    """`torch.mtia.device_count() -> int`: 0."""
    return 0


def is_initialized():
    """`torch.mtia.is_initialized() -> bool`: False."""
    return False


synchronize = current_device = set_rng_state = get_device_properties = _backend("getCurrentDevice")
get_device_capability = current_stream = default_stream = stream = _backend("getCurrentDevice")
set_device = _backend("setCurrentDevice")
empty_cache = _backend("emptyCache")
init = initial_seed = get_rng_state = _not_compiled
manual_seed = manual_seed_all = seed = seed_all = reset_peak_memory_stats = _none
memory_allocated = max_memory_allocated = _zero


def get_rng_state_all():
    """`torch.mtia.get_rng_state_all() -> list`: [] (no devices)."""
    return []


def memory_stats(device=None):
    """`torch.mtia.memory_stats(device=None) -> dict`: {} (no devices)."""
    return {}


def is_bf16_supported(including_emulation=True):
    """`torch.mtia.is_bf16_supported() -> bool`: True, as PyTorch answers without the backend."""
    return True
