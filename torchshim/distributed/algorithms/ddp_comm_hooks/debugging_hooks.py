"""`torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks`: `noop_hook`, a DDP communication hook that
communicates nothing (for measuring how much the all-reduces cost)."""
from .... import _api as torch
from ....futures import Future
from ..._grad_bucket import GradBucket

__all__ = ["noop_hook"]


def noop_hook(_, bucket: GradBucket) -> Future[torch.Tensor]:
    """`noop_hook(state, bucket) -> Future[Tensor]`: a completed Future of the bucket as it is (each rank
    keeps its own, unaveraged gradients)."""
    fut = Future()
    fut.set_result(bucket.buffer())
    return fut
