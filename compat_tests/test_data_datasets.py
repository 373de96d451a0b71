"""torch.utils.data datasets: TensorDataset, ConcatDataset, StackDataset, ChainDataset, Subset,
IterableDataset/Dataset operators and random_split, each run under torch and torchshim (harness.check
compares results, exception types and messages, and warnings where asked). random_split's permutation can't
match PyTorch's (different RNG streams), so its tests check split sizes against PyTorch exactly and the
permutation's properties: a partition of the dataset, reproducible for one seed, different for another."""
import warnings

import pytest
import torch

import torchshim
from harness import check

LIBS = (torch, torchshim)
DATAPIPE_NAMES = {"DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation",
                  "functional_datapipe", "guaranteed_datapipes_determinism", "non_deterministic",
                  "runtime_validation", "runtime_validation_disabled"}


def D(T):
    return T.utils.data


class Squares:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range")
        return i * i


def test_public_names():
    missing = [n for n in torch.utils.data.__all__
               if n not in DATAPIPE_NAMES and not hasattr(D(torchshim), n)]
    assert missing == []
    assert sorted(D(torchshim).__all__) == sorted(set(torch.utils.data.__all__) - DATAPIPE_NAMES)
    assert torchshim.utils.data.DistributedSampler is torchshim.utils.data.distributed.DistributedSampler


def test_dataset_base_getitem_raises():
    check(lambda T: D(T).Dataset()[0])


def test_dataset_generic_subscript():
    check(lambda T: [D(T).Dataset[int].__name__, D(T).IterableDataset[int].__name__])


@pytest.mark.parametrize("index", [0, 3, -1, slice(1, 3)])
def test_tensor_dataset(index):
    def fn(T):
        ds = D(T).TensorDataset(T.arange(12.0).reshape(4, 3), T.tensor([1, 2, 3, 4]))
        return len(ds), ds[index]
    check(fn)


def test_tensor_dataset_size_mismatch():
    check(lambda T: D(T).TensorDataset(T.zeros(3, 2), T.zeros(4)))


def test_tensor_dataset_index_error():
    check(lambda T: D(T).TensorDataset(T.zeros(3, 2))[5], msg=None)


def test_concat_dataset():
    def fn(T):
        ds = D(T).ConcatDataset([Squares(3), [10, 11], Squares(0), range(100, 104)])
        return len(ds), ds.cumulative_sizes, [ds[i] for i in range(len(ds))], ds[-1], ds[-9]
    check(fn)


@pytest.mark.parametrize("case", ["negative_out_of_range", "empty", "iterable", "past_end"])
def test_concat_dataset_errors(case):
    def fn(T):
        if case == "negative_out_of_range":
            return D(T).ConcatDataset([Squares(2), Squares(3)])[-6]
        if case == "empty":
            return D(T).ConcatDataset([])
        if case == "iterable":
            return D(T).ConcatDataset([Squares(2), D(T).ChainDataset([])])
        return D(T).ConcatDataset([Squares(2), Squares(3)])[5]
    check(fn, msg=None if case == "past_end" else "exact")


def test_concat_dataset_deprecated_alias_warns():
    def fn(T):
        ds = D(T).ConcatDataset([Squares(2), Squares(3)])
        with pytest.warns(FutureWarning, match="`cummulative_sizes` attribute is renamed to "):
            return ds.cummulative_sizes
    check(fn)


def test_dataset_add_makes_concat_and_chain():
    class Map(Squares):
        pass

    def fn(T):
        m = type("M", (Map, D(T).Dataset), {})(3) + type("M", (Map, D(T).Dataset), {})(2)
        it = type("I", (D(T).IterableDataset,), {"__iter__": lambda self: iter([1, 2])})
        c = it() + it()
        return type(m).__name__, [m[i] for i in range(len(m))], type(c).__name__, list(c)
    check(fn)


def _iterable(T, values):
    cls = type("It", (D(T).IterableDataset,), {"__iter__": lambda self: iter(values),
                                                "__len__": lambda self: len(values)})
    return cls()


def test_chain_dataset():
    def fn(T):
        ds = D(T).ChainDataset([_iterable(T, [1, 2]), _iterable(T, [3])])
        return list(ds), len(ds)
    check(fn)


@pytest.mark.parametrize("what", ["iter", "len"])
def test_chain_dataset_rejects_map_style(what):
    def fn(T):
        ds = D(T).ChainDataset([_iterable(T, [1]), Squares(2)])
        return list(ds) if what == "iter" else len(ds)
    check(fn)


def test_subset():
    def fn(T):
        base = D(T).TensorDataset(T.arange(10) * 3)
        sub = D(T).Subset(base, [7, 2, 5])
        items = sub.__getitems__([0, 2])
        return len(sub), sub[0], sub[-1], items, D(T).Subset(list(range(20, 30)), [4, 1])[1]
    check(fn)


def test_subset_list_index_and_parent_getitems():
    class Batched:
        def __getitem__(self, idx):
            return ("single", idx)

        def __getitems__(self, idxs):
            return [("batched", i) for i in idxs]

    def fn(T):
        sub = D(T).Subset(Batched(), [5, 6, 7])
        return sub[[0, 2]], sub.__getitems__([2, 1]), sub[1]
    check(fn)


def test_subset_subclass_must_override_getitems():
    def fn(T):
        cls = type("MySubset", (D(T).Subset,), {"__getitem__": lambda self, i: i})
        return cls([1, 2], [0])
    check(fn)


def test_stack_dataset_tuple_and_dict():
    def fn(T):
        a, b = D(T).TensorDataset(T.arange(4.0)), list("wxyz")
        t, d = D(T).StackDataset(a, b), D(T).StackDataset(num=a, ch=b)
        return len(t), t[1], d[2], t.__getitems__([3, 0]), d.__getitems__([1, 2])
    check(fn)


def test_stack_dataset_uses_parts_getitems():
    class Batched:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return ("single", i)

        def __getitems__(self, idxs):
            return [("batched", i) for i in idxs]

    def fn(T):
        return (D(T).StackDataset(Batched(), [7, 8, 9]).__getitems__([2, 0]),
                D(T).StackDataset(a=Batched(), b=[7, 8, 9]).__getitems__([1]))
    check(fn)


@pytest.mark.parametrize("case", ["both", "none", "size_args", "size_kwargs", "nested_size"])
def test_stack_dataset_errors(case):
    class Short:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i

        def __getitems__(self, idxs):
            return [0]

    def fn(T):
        S = D(T).StackDataset
        if case == "both":
            return S([1], b=[2])
        if case == "none":
            return S()
        if case == "size_args":
            return S([1, 2], [1])
        if case == "size_kwargs":
            return S(a=[1, 2], b=[1])
        return S(Short(), [1, 2, 3]).__getitems__([0, 1])
    check(fn)


# ---- random_split ------------------------------------------------------------------------------------------
SPLITS = [[3, 7], [0.3, 0.7], [0.3, 0.3, 0.4], [0.5, 0.5], [1 / 3] * 3, [0.25, 0.25, 0.25, 0.25],
          [10], [1.0], [0, 10], [0.0, 1.0]]


@pytest.mark.parametrize("lengths", SPLITS, ids=str)
@pytest.mark.parametrize("n", [10, 7, 1])
def test_random_split_lengths(n, lengths):
    def fn(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parts = D(T).random_split(range(n), lengths, generator=T.Generator().manual_seed(0))
        return [len(p) for p in parts]
    check(fn)


@pytest.mark.parametrize("lengths", [[0.3, 0.7], [0.5, 0.5], [0.0, 1.0], [1 / 3] * 3], ids=str)
def test_random_split_zero_length_warning(lengths):
    check(lambda T: [len(p) for p in D(T).random_split(range(1), lengths, generator=T.Generator())],
          warn=True)


@pytest.mark.parametrize("lengths", [[3, 3], [0.5, 0.6], [1.2, -0.2], [11], [0.5, 0.4]], ids=str)
def test_random_split_errors(lengths):
    check(lambda T: D(T).random_split(range(10), lengths, generator=T.Generator()))


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_random_split_is_a_seeded_partition(T):
    def split(seed, lengths=(0.3, 0.3, 0.4)):
        parts = D(T).random_split(range(100, 130), list(lengths), generator=T.Generator().manual_seed(seed))
        assert all(isinstance(p, D(T).Subset) for p in parts)
        return [list(p) for p in parts]

    a = split(1)
    assert sorted(sum(a, [])) == list(range(100, 130))
    assert a == split(1)
    assert a != split(2)
    assert [len(p) for p in split(1, (9, 21))] == [9, 21]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_random_split_default_generator(T):
    T.manual_seed(5)
    a = [p.indices for p in D(T).random_split(range(20), [5, 15])]
    b = [p.indices for p in D(T).random_split(range(20), [5, 15])]
    T.manual_seed(5)
    assert [p.indices for p in D(T).random_split(range(20), [5, 15])] == a
    assert a != b
    assert sorted(a[0] + a[1]) == list(range(20))


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_random_split_draws_one_randperm(T):
    g, g2 = T.Generator().manual_seed(3), T.Generator().manual_seed(3)
    parts = D(T).random_split(range(8), [3, 5], generator=g)
    perm = T.randperm(8, generator=g2).tolist()
    assert [p.indices for p in parts] == [perm[:3], perm[3:]]
