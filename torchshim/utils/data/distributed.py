"""`torch.utils.data.distributed.DistributedSampler`: each of `num_replicas` ranks reads a disjoint shard.

When `num_replicas` or `rank` is omitted, the sampler reads them from the default process group
(`torch.distributed.get_world_size()` / `get_rank()`: PyTorch's ValueError before init_process_group). The
shuffle is `randperm(n)` from a Generator seeded with `seed + epoch`:
reproducible and identical on every rank, but not PyTorch's order for the same seed (docs/rng.md)."""
import math

from ... import _api as torch
from ... import distributed as dist

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _dist_query(name):
    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return getattr(dist, name)()


class DistributedSampler(Sampler):
    """`DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False)`.

    Indices (shuffled with seed + epoch when `shuffle`) are padded by repeating the first ones to a multiple
    of `num_replicas` (or, with `drop_last`, the tail is cut off); rank r takes every num_replicas-th index
    from position r. Call `set_epoch(epoch)` before each epoch to reshuffle."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _dist_query("get_world_size")
        if rank is None:
            rank = _dist_query("get_rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # the nearest length that splits evenly, so every rank gets the same number of samples
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(
                f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")
        indices = indices[self.rank: self.total_size: self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch: with `shuffle`, the next iteration uses the order of seed + epoch."""
        self.epoch = epoch
