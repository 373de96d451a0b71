"""What DistributedDataParallel's communication hooks see: `torch.distributed.GradBucket` (one bucket of
flattened gradients) and `torch.distributed.BuiltinCommHookType` (the hooks of
`DistributedDataParallel._register_builtin_comm_hook`)."""
import enum

__all__ = ["GradBucket", "BuiltinCommHookType"]


class GradBucket:
    """`torch.distributed.GradBucket`: what a DDP communication hook receives. `index()`, `buffer()` (the
    flattened gradients, NOT divided by the world size), `gradients()` (views of the buffer, one per
    parameter), `parameters()`, `is_last()`, `set_buffer(tensor)`.

    Made by the reducer only (PyTorch's class has no public constructor either)."""

    def __init__(self, index, buffer, params, offsets, is_last):
        self._index, self._buffer, self._params, self._offsets = index, buffer, params, offsets
        self._is_last = is_last

    def index(self):
        """`index() -> int`: the bucket's index (bucket 0 holds the last parameters, ready first)."""
        return self._index

    def buffer(self):
        """`buffer() -> Tensor`: the flattened 1-D gradients of the bucket."""
        return self._buffer

    def set_buffer(self, buffer):
        """`set_buffer(buffer)`: replace the bucket's tensor (the fp16/bf16 compress wrappers do)."""
        self._buffer = buffer

    def parameters(self):
        """`parameters() -> list[Tensor]`: the bucket's parameters, in the order of its gradients."""
        return list(self._params)

    def gradients(self):
        """`gradients() -> list[Tensor]`: one view of `buffer()` per parameter, in its shape."""
        return [self._buffer[o:o + p.numel()].view(p.shape) for p, o in zip(self._params, self._offsets)]

    def is_last(self):
        """`is_last() -> bool`: whether this is the last bucket of the iteration (the first parameters)."""
        return self._is_last


class BuiltinCommHookType(enum.Enum):
    """`torch.distributed.BuiltinCommHookType`: ALLREDUCE (= `default_hooks.allreduce_hook`) and
    FP16_COMPRESS (= `default_hooks.fp16_compress_hook`), the state being the DDP's process group."""

    ALLREDUCE = 1
    FP16_COMPRESS = 2

    def __int__(self):
        return self.value
