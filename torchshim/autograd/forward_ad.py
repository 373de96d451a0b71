"""`torch.autograd.forward_ad`: forward-mode AD with dual tensors (`dual_level`, `make_dual`, `unpack_dual`,
`enter_dual_level`, `exit_dual_level`, `UnpackedDualTensor`).

Every op propagates tangents by `jax.jvp` of its forward (autograd/_forward.py); views of a dual tensor have
tangents that are the same views of its tangent, and in-place ops update the tangent in place.

Differences from PyTorch:
- A tangent carries no autograd history of its own (PyTorch records the tangent computation, so a tangent of
  an op on a tensor that requires grad can be differentiated again by reverse mode); here tangents are
  plain tensors.
- Tangents are computed in the primal's dtype (PyTorch keeps a tangent of another floating dtype, e.g. a
  float64 tangent on a float32 primal, as given; `unpack_dual` then returns that tangent itself here too).
- Writes that bypass the in-place machinery (parameter re-initialisation through `.data`, ...) leave the
  tangent as it was.
"""
import collections

from .._tensor import Tensor, fresh
from . import _forward
from ._node import record

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]

_STATE = _forward.STATE


class _Level:
    """The token of one open dual level (tangents made at it die when it closes)."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def enter_dual_level():
    """`torch.autograd.forward_ad.enter_dual_level()` -> int: open a dual level (0); only one level may be
    open at a time ('Nested forward mode AD is not supported at the moment')."""
    if _STATE.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _STATE.level = _Level(0)
    _STATE.index = 0
    return 0


def exit_dual_level(*, level=None):
    """`torch.autograd.forward_ad.exit_dual_level(*, level=None)`: close the open dual level (`level` must be
    it); every tangent made at it is dropped."""
    if level is None:
        level = _STATE.index
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if _STATE.level is None or level != _STATE.index:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    _STATE.level = None
    _STATE.index = -1


def make_dual(tensor, tangent, *, level=None):
    """`torch.autograd.forward_ad.make_dual(tensor, tangent, *, level=None)` -> a view of `tensor` whose
    tangent is `tangent` (the same tensor when its layout matches `tensor`'s, else a copy laid out like
    `tensor`)."""
    if level is None:
        level = _STATE.index
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if _STATE.level is None or level != _STATE.index:
        raise RuntimeError("Invalid level given to _make_dual")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_make_dual(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if not isinstance(tangent, Tensor):
        raise TypeError(f"_make_dual(): argument 'tangent' (position 2) must be Tensor, not "
                        f"{type(tangent).__name__}")
    if _forward.tangent_of(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient "
                           f"at the "
                           f"same level {level} is not supported.")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the "
                           f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
                           f"while the given forward gradient is of size {list(tangent.shape)}.")
    dual = _alias(tensor, "ViewBackward0")
    if tangent._dtype is not tensor._dtype:  # a differently typed tangent is converted (module docstring)
        tangent = fresh(tangent._value.astype(tensor._dtype.np), tensor._dtype, tensor.device)
    _forward.set_tangent(dual, _forward.parallel_tangent(tensor, tangent))
    return dual


def _alias(t, node_name):
    """A view of all of `t` (same geometry), with a node `node_name` when `t` requires grad."""
    a = t._as_view(t._shape, t._stride, t._offset)
    if t._requires_grad:
        record(node_name, [t], [a], _identity, ("fw_alias",), saves="none")
    return a


def _identity(arrays):
    return (arrays[0],)


UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = ("Namedtuple returned by :func:`unpack_dual` containing the primal and tangent "
                              "components of the dual tensor.")
UnpackedDualTensor.__module__ = __name__


def unpack_dual(tensor, *, level=None):
    """`torch.autograd.forward_ad.unpack_dual(tensor, *, level=None)` -> `UnpackedDualTensor(primal,
    tangent)`: a view of `tensor` without tangent and its tangent at `level` (None when it has none, or when
    no level is open)."""
    if level is None:
        level = _STATE.index
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    tangent = _forward.tangent_of(tensor) if _STATE.level is not None and level == _STATE.index else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_alias(tensor, "AliasBackward0"), tangent)


class dual_level:
    """`with torch.autograd.forward_ad.dual_level():` open a dual level for the block (`__enter__` returns
    its number); tangents made inside are dropped at the end. Also a decorator."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()
