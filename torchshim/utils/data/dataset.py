"""`torch.utils.data.dataset`: Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset,
ChainDataset, Subset and `random_split` (lengths or fractions), as PyTorch 2.13 defines them.

`random_split` draws its permutation with `torchshim.randperm(n, generator=...)`: the split is reproducible
for a seeded generator, but it is not the split PyTorch makes for the same seed (docs/rng.md)."""
import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

from ... import _api as torchshim
from torchshim._random import Generator, default_generator  # noqa: F401  (PyTorch's module exposes them too)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]

_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """`torch.utils.data.Dataset`: a map from keys to samples. Subclasses define `__getitem__` (and usually
    `__len__`; optionally `__getitems__(indices)` for batched fetching). `a + b` is a ConcatDataset."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """`torch.utils.data.IterableDataset`: a stream of samples; subclasses define `__iter__`. With
    `num_workers > 0` each worker iterates its own copy (use `get_worker_info()` to split the work).
    `a + b` is a ChainDataset."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """`TensorDataset(*tensors)`: sample i is `tuple(t[i] for t in tensors)`; all tensors need the same
    size of dimension 0 (AssertionError 'Size mismatch between tensors' otherwise)."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """`StackDataset(*args, **kwargs)`: sample i is `tuple(d[i] for d in args)` or `{k: d[i]}` for kwargs;
    all datasets need the same length. Uses the parts' `__getitems__` for batches when they have one."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                                 "like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    @staticmethod
    def _items(dataset, indices):
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got "
                                 f"{len(items)}")
            return items
        return [dataset[idx] for idx in indices]

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            dict_batch = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for data, d_sample in zip(self._items(dataset, indices), dict_batch):
                    d_sample[k] = data
            return dict_batch
        list_batch = [[] for _ in indices]
        for dataset in self.datasets:
            for data, t_sample in zip(self._items(dataset, indices), list_batch):
                t_sample.append(data)
        return [tuple(sample) for sample in list_batch]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """`ConcatDataset(datasets)`: the datasets one after another (map-style only; negative indices count
    from the end). `cumulative_sizes` holds the running lengths."""

    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            n = len(e)
            r.append(n + s)
            s += n
        return r

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]

    @property
    def cummulative_sizes(self):
        """Deprecated spelling of `cumulative_sizes` (FutureWarning)."""
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning,
                      stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """`ChainDataset(datasets)`: iterable datasets chained on the fly (AssertionError for a map-style one,
    when it is reached)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """`Subset(dataset, indices)`: `dataset[indices[i]]`; `__getitems__` batches through the parent's
    `__getitems__` when it has one. A subclass overriding `__getitem__` must override `__getitems__` too
    (NotImplementedError otherwise, as in PyTorch)."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When subclassing Subset "
                "and overriding __getitem__, you must also override __getitems__ to ensure DataLoader works "
                "correctly with your custom logic. A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def _fraction_lengths(n, lengths):
    subset_lengths = []
    for i, frac in enumerate(lengths):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        subset_lengths.append(math.floor(n * frac))
    remainder = n - sum(subset_lengths)
    for i in range(remainder):  # one more to each split, round robin, until nothing is left over
        subset_lengths[i % len(subset_lengths)] += 1
    for i, length in enumerate(subset_lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return subset_lengths


def random_split(dataset, lengths, generator=default_generator):
    """`random_split(dataset, lengths, generator=default_generator)` -> list of Subsets.

    `lengths` are sizes summing to `len(dataset)`, or fractions summing to 1 (each split gets
    floor(frac * n), the remainder is handed out one by one round robin; a split of length 0 warns). The
    indices are one `randperm(n, generator=generator)`: reproducible with a seeded generator, not equal to
    PyTorch's split for the same seed."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = torchshim.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length: offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
