"""`torch.func.debug_unwrap`: the tensor underneath vmap's and jvp's wrappers, for debugging.

Inside `vmap` a torchshim Tensor holds jax's batch tracer, whose value is the whole batch with its batch
dimension where the tracer keeps it (as PyTorch's BatchedTensor: `in_dims=1` leaves it at 1); inside
`jvp`/`jacfwd` it holds jax's JVP tracer, whose primal is the value. Difference from PyTorch: `grad`, `vjp`
and `jacrev` run on torchshim's eager tape, not on wrapper tensors, so a tensor inside them comes back as it
is (it keeps `requires_grad=True`; PyTorch's unwrapped tensor does not require grad).
"""
from jax._src.interpreters import ad, batching  # the tracer classes (not exported publicly)

from .._api import Tensor
from .._tensor import fresh

__all__ = ["debug_unwrap"]


def _unwrap_once(arr):
    if isinstance(arr, batching.BatchTracer):
        return arr.val
    if isinstance(arr, ad.JVPTracer):
        return arr.primal
    return None


def debug_unwrap(tensor, *, recurse=True):
    """`torch.func.debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor`: unwrap a tensor seen
    inside `vmap` (the batched value, batch dimension included) or `jvp` (the primal) to the underlying
    tensor; with recurse=False only the innermost transform's wrapper is removed. Any other tensor is
    returned as is. Use it only to look at values (printing, a debugger): computing with the result inside
    the transformed function is undefined, as in PyTorch."""
    if not isinstance(tensor, Tensor):
        raise TypeError("is_functorch_wrapped_tensor(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. (arg0: torch.Tensor) -> bool\n\nInvoked with: "
                        f"{tensor!r}")
    arr = _unwrap_once(tensor._value)
    if arr is None:
        return tensor
    while recurse:
        inner = _unwrap_once(arr)
        if inner is None:
            break
        arr = inner
    return fresh(arr, tensor.dtype, tensor.device)
