"""`torch.distributed.algorithms`: the join context manager for uneven inputs (`join`) and DDP's
communication hooks (`ddp_comm_hooks`, imported on demand as in PyTorch)."""
from .join import Join, Joinable, JoinHook

__all__ = ["Join", "Joinable", "JoinHook"]
