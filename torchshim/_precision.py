"""The float32 matmul precision (`torch.set_float32_matmul_precision`,
`torch.backends.cuda.matmul.allow_tf32`) as torchshim's product kernels read it.

The setting is kept in jax's `jax_default_matmul_precision` ('highest' -> 'float32', 'high' ->
'tensorfloat32', 'medium' -> 'bfloat16'), a config value jax makes part of every jit cache key. A kernel asks
`for_dtype(dtype)` while it is traced, so a kernel traced under one setting is never reused under another
(jax retraces on a change and reuses the earlier compilation when the setting comes back). The setting only
reaches single-precision products (float32, complex64): float64 and the half types (accumulated in float32)
always run at `Precision.HIGHEST`, as in PyTorch, where the flag governs float32 GEMMs only.
"""
import jax
import numpy as np

__all__ = ["set_name", "name", "for_dtype", "NAMES"]

# PyTorch's name -> jax's config value
NAMES = {"highest": "float32", "high": "tensorfloat32", "medium": "bfloat16"}

_P = jax.lax.Precision
# jax's config value -> the precision of a float32 product (None: unset, PyTorch's default 'highest')
_FROM_JAX = {None: _P.HIGHEST, "float32": _P.HIGHEST, "highest": _P.HIGHEST,
             "tensorfloat32": _P.HIGH, "high": _P.HIGH, "bfloat16_3x": _P.HIGH,
             "bfloat16": _P.DEFAULT, "default": _P.DEFAULT, "fastest": _P.DEFAULT}
_SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))
_state = {"name": "highest"}


def set_name(precision):
    """Store PyTorch's float32 matmul precision name ('highest', 'high', 'medium'; already validated) and
    apply it to jax's `jax_default_matmul_precision`."""
    _state["name"] = precision
    jax.config.update("jax_default_matmul_precision", NAMES[precision])


def name():
    """The stored PyTorch name: 'highest' (the default), 'high' or 'medium'."""
    return _state["name"]


def for_dtype(dtype):
    """The `precision=` of a product of `dtype` operands, read while a kernel is traced: HIGHEST unless the
    operands are float32/complex64, then the current setting (HIGHEST, HIGH ~ TF32, DEFAULT ~ bfloat16). A jax
    value torchshim does not name (set with `jax.config.update` directly) gives None: jax applies it."""
    if np.dtype(dtype) not in _SINGLE:
        return _P.HIGHEST
    return _FROM_JAX.get(jax.config.jax_default_matmul_precision)
