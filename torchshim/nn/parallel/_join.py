"""DistributedDataParallel's hook for the join context manager (`torch.distributed.algorithms.Join`): what a
rank that ran out of inputs does in each iteration of the ranks still training, and once all have joined.

Per shadowed iteration (the order of a training rank's DDP forward and backward, collective for collective):
the buffer broadcast when the buffers are synchronised (an all-reduce MAX to pick the highest training rank,
then the broadcast), the all-reduce that says whether the backward synchronises, then, if it does, the
reducer's collectives with zero gradients (`Reducer.shadow_backward`: the used-parameter map under
`find_unused_parameters`, then one collective per bucket, through the registered comm hook if any). After
all ranks joined, the model of the highest rank among the last to join is broadcast to every rank.
"""
from ...distributed.algorithms.join import JoinHook

__all__ = ["_DDPJoinHook"]


class _DDPJoinHook(JoinHook):
    """PyTorch's `_DDPJoinHook(ddp, divide_by_initial_world_size)`."""

    def __init__(self, ddp, divide_by_initial_world_size):
        from .distributed import DistributedDataParallel
        if not isinstance(ddp, DistributedDataParallel):
            raise AssertionError("DDP join hook requires passing in a DistributedDataParallel instance as "
                                 f"the state, got {type(ddp).__name__}")
        self.ddp = ddp
        self.ddp._divide_by_initial_world_size = divide_by_initial_world_size
        super().__init__()

    def main_hook(self):
        """Shadow one iteration of the training ranks: buffers, the backward-sync flag, the buckets."""
        ddp = self.ddp
        ddp._check_and_sync_module_buffers()
        sync = ddp._check_global_requires_backward_grad_sync(is_joined_rank=True)
        ddp.require_forward_param_sync = sync
        if sync:
            ddp._match_all_reduce_for_bwd_pass()

    def post_hook(self, is_last_joiner):
        """Every rank joined: broadcast the final model from the last rank to join."""
        self.ddp._sync_final_model(is_last_joiner)
