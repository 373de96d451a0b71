"""`torch.random`: the default CPU generator's seeding and state (`manual_seed`, `seed`, `initial_seed`,
`get_rng_state`, `set_rng_state`) and `fork_rng`, which restores the states on exit."""
import contextlib
import warnings

from ._api import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed  # noqa: F401
from ._api import set_rng_state
from ._device_module import current_accelerator_type, get_device_module

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator"]

_fork_rng_warned = [False]


def thread_safe_generator():
    """`torch.random.thread_safe_generator() -> Generator | None`: the generator a DataLoader worker thread
    should use; None in the main thread (the default generator), as in PyTorch without thread workers."""
    return None


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """`torch.random.fork_rng(devices=None, enabled=True, device_type=None)`: a context manager that saves the
    CPU generator's state (and that of each device in `devices` of `device_type`, by default the current
    accelerator's type or "cuda") and restores them on exit, also when the block raises.
    `enabled=False` forks nothing."""
    if device_type == "meta":
        yield
        return
    device_type = device_type or current_accelerator_type() or "cuda"
    device_mod = get_device_module(device_type)
    if not enabled:
        yield
        return
    if devices is None:
        count = device_mod.device_count()
        if count > 1 and not _fork_rng_warned[0]:
            up = device_type.upper()
            warnings.warn(f"{up} reports that you have {count} available devices, and you have used "
                          f"{_caller} "
                          f"without explicitly specifying which devices are being used. For safety, we "
                          f"initialize *every* {up} device by default, which can be quite slow if you have a "
                          f"lot of {up}s. If you know that you are only making use of a few {up} "
                          "devices, set "
                          f"the environment variable {up}_VISIBLE_DEVICES or the '{_devices_kw}' keyword "
                          f"argument of {_caller} with the set of devices you are actually using.",
                          stacklevel=3)
            _fork_rng_warned[0] = True
        devices = list(range(count))
    else:
        devices = list(devices)
    cpu_state = get_rng_state()
    device_states = [device_mod.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states):
            device_mod.set_rng_state(state, d)
