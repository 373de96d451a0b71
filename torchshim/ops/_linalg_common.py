"""Shared pieces of the `torch.linalg` decompositions and solvers (ops/linalg_decompositions.py,
ops/linalg_solvers.py, and the older spellings in linalg_matrix.py / linalg_legacy.py): PyTorch's input
checks, the LinAlgError raise from an `info` array (a host sync, as PyTorch's), small jax helpers."""

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._errors import LinAlgError
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P

__all__ = [
    "LinAlgError",
    "check_tensor",
    "check_matrix",
    "check_square",
    "check_float",
    "check_low",
    "mh",
    "raise_info",
    "new",
    "synced",
]

LOW = (D.float16, D.bfloat16)


def new(array, dtype, like):
    return P.fresh(array, dtype, like._storage.device)


def check_tensor(fn, x, argname, pos):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fn}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def check_matrix(name, t, arg="A"):
    if t.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def check_square(name, t, arg="A"):
    check_matrix(name, t, arg)
    if t._shape[-1] != t._shape[-2]:
        raise RuntimeError(
            f"{name}: {arg} must be batches of square matrices, but they are {t._shape[-2]} by "
            f"{t._shape[-1]} matrices"
        )


def check_float(name, t):
    if not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {short_name(t._dtype)}"
        )


def check_low(kernel, t):
    """PyTorch's CPU kernels have no half-precision versions: NotImplementedError naming the kernel."""
    if t._dtype in LOW:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(t._dtype)}'")


def mh(a):
    return jnp.conj(jnp.swapaxes(a, -1, -2))


def synced(info):
    """Whether `info` (a jax array) can be read on the host: not a tracer (under jax.jit/grad PyTorch's
    data-dependent error checks are skipped, the only difference from PyTorch there)."""
    return not isinstance(info, jax.core.Tracer)


def raise_info(name, info, batched, message, exc=LinAlgError):
    """Raise `exc` with `message(code)` for the first non-zero entry of `info` (PyTorch's `(Batch element
    k): ` prefix for batched inputs). Reads `info` on the host: the sync PyTorch makes too."""
    if not synced(info) or info.size == 0:
        return
    flat = jnp.ravel(info)
    bad = flat != 0
    if not bool(jnp.any(bad)):
        return
    b = int(jnp.argmax(bad))
    where = f"(Batch element {b}): " if batched else ""
    raise exc(f"{name}: {where}{message(int(flat[b]))}")
