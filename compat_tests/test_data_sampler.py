"""torch.utils.data samplers and DistributedSampler under torch and torchshim.

Deterministic paths (SequentialSampler, BatchSampler, DistributedSampler without shuffling, lengths, the
weights tensor, argument errors) must equal PyTorch's exactly. Random orders can't (the RNG streams differ,
docs/rng.md), so each random sampler is checked for its properties under both libraries: the right support
and counts, a permutation where it promises one, reproducible for a seed, different after reseeding or a
new epoch."""
import collections
import math

import pytest
import torch

import torchshim
from harness import check

LIBS = (torch, torchshim)
lib_ids = pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)


def D(T):
    return T.utils.data


def test_sequential_sampler():
    check(lambda T: (list(D(T).SequentialSampler(range(5))), len(D(T).SequentialSampler([1, 2]))))


def test_sampler_base():
    check(lambda T: iter(D(T).Sampler()))
    check(lambda T: len(D(T).Sampler()), msg=None)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n,batch_size", [(10, 3), (9, 3), (2, 5), (0, 2), (7, 1)])
def test_batch_sampler(n, batch_size, drop_last):
    def fn(T):
        bs = D(T).BatchSampler(D(T).SequentialSampler(range(n)), batch_size, drop_last)
        return list(bs), len(bs), list(D(T).BatchSampler(iter(range(n)), batch_size, drop_last))
    check(fn)


@pytest.mark.parametrize("batch_size,drop_last", [(0, False), (-1, False), (2.0, False), (True, False),
                                                  (2, 1), (2, None)])
def test_batch_sampler_errors(batch_size, drop_last):
    check(lambda T: D(T).BatchSampler(range(4), batch_size, drop_last))


# ---- RandomSampler -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(replacement=1), dict(num_samples=0), dict(num_samples=-2),
                                dict(num_samples=3.0), dict(replacement=True, num_samples=0)], ids=str)
def test_random_sampler_errors(kw):
    check(lambda T: D(T).RandomSampler(range(4), **kw))


def test_random_sampler_empty_source_error():
    check(lambda T: D(T).RandomSampler([]))


@pytest.mark.parametrize("kw", [{}, dict(num_samples=7), dict(replacement=True), dict(replacement=True,
                                                                                    num_samples=70)], ids=str)
def test_random_sampler_len(kw):
    check(lambda T: (len(D(T).RandomSampler(range(5), **kw)), D(T).RandomSampler(range(5), **kw).num_samples))


@lib_ids
@pytest.mark.parametrize("num_samples", [None, 10, 3, 23])
def test_random_sampler_without_replacement_permutations(T, num_samples):
    n = 10
    out = list(D(T).RandomSampler(range(n), num_samples=num_samples, generator=T.Generator().manual_seed(0)))
    assert len(out) == (num_samples or n) and all(isinstance(i, int) for i in out)
    for start in range(0, len(out), n):  # each pass is a permutation (the last one cut short)
        block = out[start:start + n]
        assert len(set(block)) == len(block) and set(block) <= set(range(n))


@lib_ids
@pytest.mark.parametrize("num_samples", [5, 32, 75])
def test_random_sampler_with_replacement(T, num_samples):
    out = list(D(T).RandomSampler(range(4), replacement=True, num_samples=num_samples,
                                  generator=T.Generator().manual_seed(1)))
    assert len(out) == num_samples and set(out) <= set(range(4))
    if num_samples >= 32:
        assert len(set(out)) > 1


@lib_ids
@pytest.mark.parametrize("replacement", [False, True])
def test_random_sampler_generator_reproducible(T, replacement):
    def run(seed):
        g = T.Generator().manual_seed(seed)
        s = D(T).RandomSampler(range(50), replacement=replacement, generator=g)
        return list(s), list(s)

    first, second = run(7)
    assert run(7) == (first, second)
    assert first != second  # the generator advances: a new order each pass
    assert run(8)[0] != first


@lib_ids
def test_random_sampler_default_generator(T):
    s = D(T).RandomSampler(range(50))
    T.manual_seed(11)
    a, b = list(s), list(s)
    T.manual_seed(11)
    assert list(s) == a and a != b and sorted(a) == list(range(50))


@lib_ids
def test_random_sampler_tracks_source_length(T):
    data = list(range(3))
    s = D(T).RandomSampler(data, generator=T.Generator().manual_seed(0))
    data.extend([3, 4])
    assert len(s) == 5 and sorted(s) == list(range(5))


# ---- SubsetRandomSampler -----------------------------------------------------------------------------------
def test_subset_random_sampler_len():
    check(lambda T: len(D(T).SubsetRandomSampler([4, 9, 2])))


@lib_ids
def test_subset_random_sampler(T):
    idx = [40, 12, 7, 33, 21, 5]
    a = list(D(T).SubsetRandomSampler(idx, generator=T.Generator().manual_seed(2)))
    assert sorted(a) == sorted(idx)
    assert list(D(T).SubsetRandomSampler(idx, generator=T.Generator().manual_seed(2))) == a
    T.manual_seed(0)
    b = list(D(T).SubsetRandomSampler(list(range(40))))
    T.manual_seed(0)
    assert list(D(T).SubsetRandomSampler(list(range(40)))) == b and sorted(b) == list(range(40))


# ---- WeightedRandomSampler ---------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [([1.0, 2.0], 0), ([1.0, 2.0], 2.0), ([1.0, 2.0], True), ([1.0], -1),
                                  ([1.0, 2.0], 2, 1), ([[1.0, 2.0]], 2), (5.0, 1)], ids=str)
def test_weighted_random_sampler_errors(args):
    check(lambda T: D(T).WeightedRandomSampler(*args))


def test_weighted_random_sampler_attributes():
    def fn(T):
        s = D(T).WeightedRandomSampler([1, 2, 3], 4, replacement=False)
        return s.weights, s.num_samples, s.replacement, len(s)
    check(fn)


@pytest.mark.parametrize("weights,n,replacement", [([1.0, 2.0], 3, False), ([1.0, -2.0], 1, True),
                                                  ([0.0, 0.0], 1, True)], ids=str)
def test_weighted_random_sampler_draw_errors(weights, n, replacement):
    check(lambda T: list(D(T).WeightedRandomSampler(weights, n, replacement=replacement)))


@lib_ids
def test_weighted_random_sampler_without_replacement(T):
    w = [0.9, 0.4, 0.0, 0.2, 0.3, 0.1]
    out = list(D(T).WeightedRandomSampler(w, 5, replacement=False, generator=T.Generator().manual_seed(0)))
    assert sorted(out) == [0, 1, 3, 4, 5]  # every index with a positive weight, once; never index 2


@lib_ids
def test_weighted_random_sampler_frequencies(T):
    n = 20000
    w = [0.0, 1.0, 0.0, 3.0]
    out = list(D(T).WeightedRandomSampler(w, n, generator=T.Generator().manual_seed(0)))
    counts = collections.Counter(out)
    assert set(counts) == {1, 3}
    p = 0.75
    assert abs(counts[3] / n - p) < 6 * math.sqrt(p * (1 - p) / n)


@lib_ids
def test_weighted_random_sampler_reproducible(T):
    def run(seed):
        g = T.Generator().manual_seed(seed)
        return list(D(T).WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], 40, generator=g))
    assert run(3) == run(3) and run(3) != run(4)


# ---- DistributedSampler ------------------------------------------------------------------------------------
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n,replicas", [(10, 3), (9, 3), (2, 5), (1, 4), (11, 4), (7, 1)])
def test_distributed_sampler_without_shuffle(n, replicas, drop_last):
    def fn(T):
        out = []
        for rank in range(replicas):
            s = D(T).DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False,
                                        drop_last=drop_last)
            out.append((list(s), len(s), s.num_samples, s.total_size))
        return out
    check(fn)


@pytest.mark.parametrize("kw", [dict(num_replicas=2, rank=2), dict(num_replicas=2, rank=-1), dict(),
                                dict(num_replicas=2), dict(rank=0)], ids=str)
def test_distributed_sampler_errors(kw):
    check(lambda T: D(T).DistributedSampler(range(5), **kw))


def test_distributed_sampler_module_path():
    check(lambda T: T.utils.data.distributed.DistributedSampler.__name__)


def _shards(T, n, replicas, seed=0, epoch=0, drop_last=False):
    out = []
    for rank in range(replicas):
        s = D(T).DistributedSampler(range(n), num_replicas=replicas, rank=rank, seed=seed,
                                    drop_last=drop_last)
        s.set_epoch(epoch)
        out.append(list(s))
        assert len(out[-1]) == len(s)
    return out


@lib_ids
@pytest.mark.parametrize("n,replicas,drop_last", [(12, 3, False), (10, 3, False), (10, 3, True),
                                                  (2, 5, False)])
def test_distributed_sampler_shuffled_shards(T, n, replicas, drop_last):
    shards = _shards(T, n, replicas, drop_last=drop_last)
    total = len(shards[0]) * replicas
    interleaved = [shards[i % replicas][i // replicas] for i in range(total)]  # the padded permutation
    if drop_last:
        assert len(set(interleaved)) == total and set(interleaved) <= set(range(n))
        assert total == n - n % replicas
    else:
        perm = interleaved[:n]
        assert sorted(perm) == list(range(n))
        assert interleaved[n:] == (perm * math.ceil(total / n))[:total - n]  # padded with the first indices
    if n % replicas == 0 or drop_last:  # disjoint shards
        assert len(set(sum(shards, []))) == sum(len(s) for s in shards)


@lib_ids
def test_distributed_sampler_epochs_and_seeds(T):
    base = _shards(T, 20, 2)
    assert _shards(T, 20, 2) == base  # every rank builds the same permutation
    assert _shards(T, 20, 2, epoch=1) != base  # set_epoch reshuffles
    assert _shards(T, 20, 2, epoch=1) == _shards(T, 20, 2, epoch=1)
    assert _shards(T, 20, 2, seed=1) != base
    assert _shards(T, 20, 2, seed=1, epoch=0) == _shards(T, 20, 2, seed=0, epoch=1)  # seed + epoch
