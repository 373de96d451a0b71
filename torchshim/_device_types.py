"""Device-type helpers of torch.accelerator, torch.Stream/Event and torch.get_device_module: PyTorch's
list of device types, and the current accelerator (CUDA when jax has a GPU backend, else none)."""
from . import _device as Dev
from . import cuda

# every device type torch.device parses (PyTorch's list, in its order)
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def device_type_index(d):
    """(type, index or None) of a torch.device or a device string, with torch.device's parse error."""
    if isinstance(d, Dev.device):
        return d.type, d.index
    if isinstance(d, str):
        t, sep, idx = d.partition(":")
        if t not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                               f"string: {d}")
        if sep and not idx.isdigit():
            raise RuntimeError(f"Invalid device string: '{d}'")
        return t, int(idx) if sep else None
    raise TypeError(f"expected a torch.device or a device string, got {type(d).__name__}")


def current_accelerator_type():
    """'cuda' when jax has a GPU backend, else None (this build knows no other accelerator)."""
    return "cuda" if cuda.is_available() else None


def no_accelerator():
    raise RuntimeError("Cannot access accelerator device when none is available.")
