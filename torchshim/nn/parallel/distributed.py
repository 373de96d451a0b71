"""`torch.nn.parallel.DistributedDataParallel`: torchshim has no `torch.distributed` process groups yet, so
constructing one raises PyTorch's error for a missing default process group."""
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """`DistributedDataParallel(module, ...)`: needs `torch.distributed.init_process_group`, which torchshim
    does not provide; raises ValueError like PyTorch without a process group."""

    def __init__(self, module, *args, **kwargs):
        super().__init__()
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
