"""`torch.nn.parallel`: DataParallel and its pieces (replicate, scatter, parallel_apply, gather), and
DistributedDataParallel (on torchshim's `torch.distributed`)."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel"]
