"""`torch.nn.attention`: `SDPBackend` and `sdpa_kernel`, which choose the kernels
`F.scaled_dot_product_attention` may use by switching `torch.backends.cuda`'s sdp flags for the duration of a
`with` block. Difference: torchshim computes attention one way (the math kernel, in jax) and
`F.scaled_dot_product_attention` does not read the flags, so a choice that leaves neither the math nor the
flash kernel does not raise there as PyTorch's "No viable backend" does on a CPU. Flash-attention
implementations (FA3/FA4) are CUDA libraries: listed, but activating one raises, as PyTorch does without
CUDA."""
import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS", "register_flash_attention_impl",
           "activate_flash_attention_impl", "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """`torch.nn.attention.SDPBackend` (`int(b)` gives its value; not equal to ints, as PyTorch's)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self):
        return f"SDPBackend.{self.name}"

    def __int__(self):
        return self.value

    __index__ = __int__


_FLAGS = {SDPBackend.MATH: (_cuda.math_sdp_enabled, _cuda.enable_math_sdp),
          SDPBackend.FLASH_ATTENTION: (_cuda.flash_sdp_enabled, _cuda.enable_flash_sdp),
          SDPBackend.EFFICIENT_ATTENTION: (_cuda.mem_efficient_sdp_enabled, _cuda.enable_mem_efficient_sdp),
          SDPBackend.CUDNN_ATTENTION: (_cuda.cudnn_sdp_enabled, _cuda.enable_cudnn_sdp)}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """`sdpa_kernel(backends, set_priority=False)`: inside the block only the listed backends are enabled
    (torch.backends.cuda's `*_sdp_enabled()` read them back); the previous flags come back after it.
    `set_priority` (the order to try them) has no effect: there is one kernel here."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    previous = {b: get() for b, (get, _) in _FLAGS.items()}
    try:
        for b, (_, set_) in _FLAGS.items():
            set_(b in chosen)
        yield {}
    finally:
        for b, (_, set_) in _FLAGS.items():
            set_(previous[b])


_IMPLS = ["FA3", "FA4"]
_MODULES = {"FA3": "flash_attn_interface", "FA4": "flash_attn"}
_registered = {}
_current = [None]


def list_flash_attention_impls():
    """`list_flash_attention_impls()` -> the flash-attention implementation names PyTorch knows."""
    return list(_IMPLS)


def current_flash_attention_impl():
    """`current_flash_attention_impl()` -> the activated implementation's name, or None."""
    return _current[0]


def register_flash_attention_impl(impl, *, register_fn):
    """`register_flash_attention_impl(impl, *, register_fn)`: records `register_fn` for `impl`."""
    if impl not in _IMPLS:
        _IMPLS.append(impl)
    _registered[impl] = register_fn


def activate_flash_attention_impl(impl):
    """`activate_flash_attention_impl(impl)`: an unknown name raises PyTorch's ValueError; FA3/FA4 need their
    CUDA packages (ModuleNotFoundError without them, as PyTorch), and torchshim cannot run them anyway
    (RuntimeError)."""
    if impl not in _IMPLS:
        raise ValueError(f"Unknown flash attention impl {impl!r}. Available implementations: {_IMPLS}")
    if impl in _MODULES:
        import importlib
        importlib.import_module(_MODULES[impl])
    raise RuntimeError(f"Flash attention implementation {impl!r} needs CUDA flash-attention kernels, which "
                       "torchshim does not have")


def restore_flash_attention_impl(_raise_warn=True):
    """`restore_flash_attention_impl()`: back to the default implementation (nothing is activated here)."""
    _current[0] = None
