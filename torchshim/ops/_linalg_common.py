"""Shared pieces of the `torch.linalg` decompositions and solvers (ops/linalg_decompositions.py,
ops/linalg_solvers.py, and the older spellings in linalg_matrix.py / linalg_legacy.py): PyTorch's input
checks, the LinAlgError raise from an `info` array (a host sync, as PyTorch's), small jax helpers."""

import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._errors import LinAlgError
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import write_out

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
    "check_backward",
    "node_outputs",
    "concrete",
    "write_plain_out",
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


# ---- checks PyTorch's backward functions make on the incoming gradients ---------------------------------
_CHECKED = {}
# Nodes whose backward already ran with create_graph=True: a later backward through them may carry a
# higher-order gradient. PyTorch's reaches the outputs (eigenvectors) through its backward formula's own
# graph too; torchshim's recorded pullback reads the saved inputs instead, so that part of the gradient
# reaches the inputs directly and the outputs' gradient alone is not the one PyTorch checks: not checked.
_HIGHER = weakref.WeakSet()


def _checked_class(base, check):
    """A subclass of node class `base`, named like it, whose backward first runs `check(node, grads)` (not
    after a create_graph backward through the node, see _HIGHER)."""
    key = (base, check)
    cls = _CHECKED.get(key)
    if cls is None:
        def apply(self, grads, create_graph):
            if self not in _HIGHER:
                check(self, grads)
            if create_graph:
                _HIGHER.add(self)
            return base.apply(self, grads, create_graph)

        name = base.__name__
        cls = _CHECKED[key] = type(name, (base,), {"__slots__": (), "__module__": base.__module__,
                                                   "__qualname__": name, "apply": apply})
    return cls


def check_backward(out, check):
    """Make the backward of the node that produced tensor `out` (if any) run `check(node, grads)` first:
    grads are the gradients (Tensors or None) of the node's differentiable outputs, in order; the node's
    outputs can be recomputed from its saved inputs with `node_outputs(node)`. The node keeps its name and
    its class's name."""
    node = out._grad_fn
    if node is not None and type(node) not in _CHECKED.values():
        node.__class__ = _checked_class(type(node), check)


def node_outputs(node):
    """The arrays of a recorded node's differentiable outputs, recomputed from its saved inputs (the same
    jitted kernels on the same values: the same arrays as the forward's)."""
    return node._forward(node.saved_arrays())


def concrete(*arrays):
    """numpy copies of jax arrays, or None when one is a tracer (under jax transforms checks read nothing)."""
    if not all(synced(a) for a in arrays):
        return None
    return [np.asarray(a) for a in arrays]


def write_plain_out(result, out):
    """`out=` of the ops whose out= PyTorch accepts with inputs requiring grad (eigvals, ldl_*): `result`
    (a tensor or a named tuple of them) written into `out` as the registry's out= does, without its
    autograd error."""
    if out is None:
        return result
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            write_out(o, r)
        return type(result)(out) if isinstance(result, tuple) and hasattr(result, "_fields") else tuple(out)
    return write_out(out, result)
