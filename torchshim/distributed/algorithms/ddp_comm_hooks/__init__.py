"""`torch.distributed.algorithms.ddp_comm_hooks`: DistributedDataParallel's communication hooks by name.

`DDPCommHookType.X.value(model=ddp, state=process_group)` or `register_ddp_comm_hook(DDPCommHookType.X, ddp,
state)` registers the hook X on a DDP model. Submodules: `default_hooks` (alias `default`: allreduce,
fp16/bf16 compression and wrappers) and `debugging_hooks` (alias `debugging`: `noop_hook`).

Difference from PyTorch: the quantization, PowerSGD and optimizer-overlap hooks are not provided (their
submodules `quantization_hooks`, `powerSGD_hook`, `optimizer_overlap_hooks`, `post_localSGD_hook`,
`mixed_precision_hooks` and `ddp_zero_hook` do not exist), so DDPCommHookType has only ALLREDUCE,
FP16_COMPRESS, BF16_COMPRESS and NOOP (PyTorch's also QUANTIZE_PER_TENSOR, QUANTIZE_PER_CHANNEL, POWER_SGD,
POWER_SGD_RANK2, BATCHED_POWER_SGD, BATCHED_POWER_SGD_RANK2).
"""
import enum
import functools

from . import debugging_hooks as debugging
from . import default_hooks as default

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


def _ddp_comm_hook_wrapper(comm_hook, model, state):
    model.register_comm_hook(state, comm_hook)


class DDPCommHookType(enum.Enum):
    """`DDPCommHookType`: each member's value registers its hook,
    `DDPCommHookType.ALLREDUCE.value(model=ddp, state=process_group)`."""

    ALLREDUCE = enum.member(functools.partial(_ddp_comm_hook_wrapper, comm_hook=default.allreduce_hook))
    FP16_COMPRESS = enum.member(functools.partial(_ddp_comm_hook_wrapper,
                                                  comm_hook=default.fp16_compress_hook))
    BF16_COMPRESS = enum.member(functools.partial(_ddp_comm_hook_wrapper,
                                                  comm_hook=default.bf16_compress_hook))
    NOOP = enum.member(functools.partial(_ddp_comm_hook_wrapper, comm_hook=debugging.noop_hook))


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    """`register_ddp_comm_hook(comm_hook_type: DDPCommHookType, model, state=None)`: register the hook of
    `comm_hook_type` on the DDP `model`, with `state` (a process group, or None for the default group)."""
    comm_hook_type.value(model=model, state=state)
