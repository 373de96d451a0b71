"""`torch.distributed.algorithms.ddp_comm_hooks.default_hooks`: DistributedDataParallel communication hooks
that average each gradient bucket (`allreduce_hook`), optionally through a float16 or bfloat16 copy
(`fp16_compress_hook`, `bf16_compress_hook`), and the wrappers that run any hook on a float16/bfloat16 copy
of the bucket (`fp16_compress_wrapper`, `bf16_compress_wrapper`).

Register with `ddp.register_comm_hook(process_group_or_None, hook)`. The collectives are
`torch.distributed.all_reduce(..., async_op=True)`, so the hooks also run inside a `torch.compile`d step
(where torchshim traces that all-reduce into the program).

As in PyTorch, `DistributedDataParallel.register_comm_hook` refuses the bf16 hooks unless the build has
CUDA with NCCL 2.10+ (or XPU with XCCL): on torchshim that is never the case on CPU, so they raise
PyTorch's TypeError there (PyTorch's CPU builds do too).
"""
from .... import _api as torch
from .... import distributed as dist
from ....futures import Future
from ..._grad_bucket import GradBucket

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook", "fp16_compress_wrapper",
           "bf16_compress_wrapper"]


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def _allreduce_fut(process_group, tensor):
    """`tensor` divided by the group's size in place, all-reduced; a Future of the averaged tensor."""
    group = _group(process_group)
    tensor.div_(group.size())  # before the sum, so that float16 does not overflow
    return dist.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group: dist.ProcessGroup, bucket: GradBucket) -> Future[torch.Tensor]:
    """`allreduce_hook(process_group, bucket) -> Future[Tensor]`: the bucket averaged over the group
    (`process_group` None: the default group), what DDP does without a hook."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    group = _group(process_group)
    buffer = bucket[0] if isinstance(bucket, tuple) else bucket.buffer()
    compressed = buffer.to(dtype).div_(group.size())

    def decompress(fut):
        value = fut if isinstance(fut, torch.Tensor) else fut.value()[0]
        buffer.copy_(value)  # back into the bucket's own tensor, in its dtype
        return buffer

    return dist.all_reduce(compressed, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group: dist.ProcessGroup, bucket: GradBucket) -> Future[torch.Tensor]:
    """`fp16_compress_hook(process_group, bucket) -> Future[Tensor]`: the bucket cast to float16, divided
    by the group's size, all-reduced, and copied back into the bucket (its dtype)."""
    return _compress_hook(torch.float16, process_group, bucket)


def bf16_compress_hook(process_group: dist.ProcessGroup, bucket: GradBucket) -> Future[torch.Tensor]:
    """`bf16_compress_hook(process_group, bucket) -> Future[Tensor]`: as `fp16_compress_hook` with
    bfloat16. `register_comm_hook` refuses it without CUDA+NCCL 2.10 or XPU+XCCL (PyTorch's TypeError)."""
    return _compress_hook(torch.bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook, outer):
    def wrapped(hook_state, bucket: GradBucket) -> Future[torch.Tensor]:
        bucket.set_buffer(bucket.buffer().to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut):
            out = bucket.buffer()
            out.copy_(fut.value())
            return out

        return fut.then(decompress)

    wrapped.__name__ = f"{outer}_hook"
    wrapped.__qualname__ = f"{outer}.<locals>.{outer}_hook"
    return wrapped


def fp16_compress_wrapper(hook):
    """`fp16_compress_wrapper(hook) -> hook`: a hook that runs `hook` on a float16 copy of the bucket; the
    result is copied back into the gradients in their dtype (`fp16_compress_wrapper(allreduce_hook)` is
    `fp16_compress_hook`)."""
    return _compress_wrapper(torch.float16, hook, "fp16_compress_wrapper")


def bf16_compress_wrapper(hook):
    """`bf16_compress_wrapper(hook) -> hook`: as `fp16_compress_wrapper` with bfloat16 (refused by
    `register_comm_hook` like `bf16_compress_hook`)."""
    return _compress_wrapper(torch.bfloat16, hook, "bf16_compress_wrapper")
