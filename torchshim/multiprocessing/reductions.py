"""`torch.multiprocessing.reductions`: how tensors are pickled by multiprocessing (Queue, Pipe, Process
arguments: `multiprocessing.reduction.ForkingPickler`). `init_reductions()` (run when torchshim is imported,
as PyTorch runs its own) registers `reduce_tensor` for Tensor and Parameter.

As in PyTorch: a non-leaf tensor that requires grad is refused (RuntimeError, PyTorch's message); the tensor
sent and the one received report `is_shared()` True. Difference: PyTorch moves the storage to shared memory
and sends a handle; torchshim sends the values (the receiver gets a copy, views arrive as compact tensors)."""
from multiprocessing.reduction import ForkingPickler

from .._api import Tensor
from ..nn.parameter import Parameter

__all__ = ["init_reductions", "reduce_tensor", "rebuild_tensor"]

_NON_LEAF_MESSAGE = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
    "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor before "
    "serializing (e.g., putting it on the queue).")


def rebuild_tensor(rebuild, args):
    """The receiving side of `reduce_tensor`: the tensor rebuilt by value, marked shared."""
    return rebuild(*args).share_memory_()


def reduce_tensor(tensor):
    """`reduce_tensor(tensor)`: the ForkingPickler reduction of a Tensor or Parameter; RuntimeError for a
    non-leaf tensor that requires grad. Marks `tensor` shared (PyTorch moves it to shared memory)."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(_NON_LEAF_MESSAGE)
    tensor.share_memory_()
    rebuild, args = tensor.__reduce_ex__(2)[:2]
    return rebuild_tensor, (rebuild, args)


def init_reductions():
    """`init_reductions()`: register `reduce_tensor` with multiprocessing's ForkingPickler for Tensor and
    Parameter (other subclasses pickle through their own `__reduce_ex__`)."""
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
