"""DataLoader under torch and torchshim: single-process loading (batches, samplers, collate, IterableDataset,
lengths, argument errors, shuffling with a generator) and worker processes (num_workers > 0: results,
get_worker_info and per-worker seeding, worker_init_fn, errors and killed workers, timeout, persistent
workers, IterableDataset sharding).

torchshim's workers start with 'spawn' (torch's with 'fork'), so each worker test costs a second or two of
interpreter start-up; the datasets live in data_helpers.py, which a worker imports without torch."""
import functools
import os
import random
import re
import warnings

import numpy as np
import pytest
import torch

import data_helpers as H
import torchshim
from harness import check, compare_errors, compare_values

LIBS = (torch, torchshim)
lib_ids = pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)


def D(T):
    return T.utils.data


class Squares:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": i * i, "v": [i, float(i)]}


def _iterable(T, values, with_len=True):
    attrs = {"__iter__": lambda self: iter(values)}
    if with_len:
        attrs["__len__"] = lambda self: len(values)
    return type("Stream", (D(T).IterableDataset,), attrs)()


# ---- single process ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                dict(batch_size=None), dict(batch_size=10),
                                dict(batch_size=4, shuffle=False)], ids=str)
def test_map_dataset_batches(kw):
    check(lambda T: (list(D(T).DataLoader(D(T).TensorDataset(T.arange(7.0), T.arange(7) * 2), **kw)),
                     len(D(T).DataLoader(range(7), **kw))))


def test_batch_size_none_converts_numpy():
    data = [{"a": np.arange(2) + i, "b": (np.float32(i), "s")} for i in range(3)]
    check(lambda T: list(D(T).DataLoader(data, batch_size=None)))


def test_custom_sampler_batch_sampler_collate_fn():
    def fn(T):
        ds = Squares(10)
        a = list(D(T).DataLoader(ds, sampler=[9, 0, 4], batch_size=2))
        b = list(D(T).DataLoader(ds, batch_sampler=[[1, 2], [5], [3, 3, 3]]))
        c = list(D(T).DataLoader(ds, batch_size=4, collate_fn=lambda batch: [s["x"] for s in batch]))
        d = list(D(T).DataLoader(ds, batch_sampler=D(T).BatchSampler(D(T).SequentialSampler(ds), 3, True)))
        return a, b, c, d
    check(fn)


def test_dataset_getitems_used_for_batches():
    class Batched:
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return ("single", i)

        def __getitems__(self, idxs):
            return [("batched", i) for i in idxs]

    check(lambda T: (list(D(T).DataLoader(Batched(), batch_size=2)), list(D(T).DataLoader(Batched(),
                                                                                           batch_size=None))))


@pytest.mark.parametrize("kw", [dict(), dict(batch_size=2), dict(batch_size=2, drop_last=True),
                                dict(batch_size=None), dict(batch_size=5)], ids=str)
def test_iterable_dataset(kw):
    check(lambda T: (list(D(T).DataLoader(_iterable(T, [1, 2, 3, 4, 5]), **kw)),
                     len(D(T).DataLoader(_iterable(T, [1, 2, 3, 4, 5]), **kw))))


def test_iterable_dataset_len_warning():
    def fn(T):
        class Liar(D(T).IterableDataset):
            def __iter__(self):
                return iter(range(4))

            def __len__(self):
                return 2

            def __repr__(self):
                return "Liar()"

        loader = D(T).DataLoader(Liar(), batch_size=None)
        len(loader)
        return list(loader)
    check(fn, warn=True)


def test_iterable_dataset_without_len():
    check(lambda T: len(D(T).DataLoader(_iterable(T, [1], with_len=False))), msg=None)


@pytest.mark.parametrize("kw", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(num_workers=1, prefetch_factor=-1),
    dict(persistent_workers=True), dict(sampler=[0, 1], shuffle=True),
    dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], sampler=[0]),
    dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
    dict(multiprocessing_context="spawn"), dict(num_workers=1, multiprocessing_context="nope"),
    dict(num_workers=1, multiprocessing_context=42), dict(batch_size=0), dict(drop_last=1)], ids=str)
def test_argument_errors(kw):
    check(lambda T: D(T).DataLoader(range(4), **kw))


@pytest.mark.parametrize("kw", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])], ids=str)
def test_iterable_dataset_argument_errors(kw):
    def fn(T):
        return D(T).DataLoader(_iterable(T, [1]), **kw)
    ref, got = check(fn, msg=None)
    r, g = str(ref.error), str(got.error)
    assert r.split("=")[0] == g.split("=")[0]  # the option named, then its (library-specific) repr


def test_iterable_dataset_shuffle_false_allowed():
    check(lambda T: list(D(T).DataLoader(_iterable(T, [1, 2]), shuffle=False)))


@pytest.mark.parametrize("attr", ["batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                  "persistent_workers"])
def test_attributes_frozen_after_init(attr):
    def fn(T):
        loader = D(T).DataLoader(range(4))
        setattr(loader, attr, None)
    check(fn)


def test_other_attributes_settable_and_defaults():
    def fn(T):
        loader = D(T).DataLoader(range(4), batch_size=2)
        loader.collate_fn = lambda b: b
        return (list(loader), loader.num_workers, loader.prefetch_factor, loader.timeout, loader.pin_memory,
                loader.multiprocessing_context, loader.persistent_workers, loader.in_order,
                type(loader.sampler).__name__, type(loader.batch_sampler).__name__,
                D(T).DataLoader(range(4), num_workers=1).prefetch_factor)
    check(fn)


def test_multiprocessing_context_string_becomes_context():
    def fn(T):
        loader = D(T).DataLoader(range(4), num_workers=1, multiprocessing_context="spawn")
        ctx = loader.multiprocessing_context
        return type(ctx).__name__, ctx.get_start_method()
    check(fn)


def test_pin_memory_accepted_with_warning():
    check(lambda T: list(D(T).DataLoader(range(3), pin_memory=True, batch_size=2)), warn=True)
    check(lambda T: list(D(T).DataLoader(range(3), pin_memory=True, pin_memory_device="cuda")), warn=True)


def test_too_many_workers_warning():
    check(lambda T: D(T).DataLoader(range(4), num_workers=1000).num_workers, warn=True)


def test_timeout_needs_workers():
    check(lambda T: iter(D(T).DataLoader(range(4), timeout=1)))


def test_iterator_not_picklable():
    import pickle
    check(lambda T: pickle.dumps(iter(D(T).DataLoader(range(4)))))


@lib_ids
def test_shuffle_with_generator(T):
    def epochs(seed, n=2):
        loader = D(T).DataLoader(range(30), batch_size=7, shuffle=True,
                                 generator=T.Generator().manual_seed(seed))
        return [sum((b.tolist() for b in loader), []) for _ in range(n)]

    a = epochs(0)
    assert all(sorted(e) == list(range(30)) for e in a)
    assert a[0] != a[1]  # reshuffled every epoch
    assert epochs(0) == a and epochs(1) != a


@lib_ids
def test_shuffle_draw_order(T):
    """An epoch draws the workers' base seed from the generator first, then the sampler's permutation."""
    loader = D(T).DataLoader(range(12), batch_size=5, shuffle=True, generator=T.Generator().manual_seed(4))
    got = sum((b.tolist() for b in loader), [])
    g = T.Generator().manual_seed(4)
    T.empty((), dtype=T.int64).random_(generator=g)
    assert got == T.randperm(12, generator=g).tolist()


@lib_ids
def test_shuffle_default_generator(T):
    loader = D(T).DataLoader(range(20), batch_size=None, shuffle=True)
    T.manual_seed(9)
    a = [int(x) for x in loader]
    T.manual_seed(9)
    assert [int(x) for x in loader] == a and sorted(a) == list(range(20))


# ---- worker processes --------------------------------------------------------------------------------------
def _flat(batches):
    return sum((b.tolist() for b in batches), [])


def test_workers_map_dataset_equals_torch():
    """Batches of tensors, numpy arrays, numbers and strings collated in 2 workers equal PyTorch's; the
    workers have exited when the epoch ends."""
    iterators = {}

    def fn(T):
        it = iterators[T.__name__] = iter(D(T).DataLoader(H.Samples(T.__name__, n=10), batch_size=3,
                                                          num_workers=2, prefetch_factor=1))
        return list(it)
    ref, got = check(fn)
    assert type(got.value[0]["f"]) is torchshim.Tensor and got.value[0]["f"].device.type == "cpu"
    for it in iterators.values():
        assert len(it._workers) == 2 and not any(w.is_alive() for w in it._workers)


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_worker_info_and_seeding(T):
    name = T.__name__
    assert D(T).get_worker_info() is None
    loader = D(T).DataLoader(H.WorkerProbe(name), batch_size=None, num_workers=2,
                             generator=T.Generator().manual_seed(123),
                             worker_init_fn=functools.partial(H.tag_worker, name))
    out = list(loader)
    g = T.Generator().manual_seed(123)
    base_seed = T.empty((), dtype=T.int64).random_(generator=g).item()
    assert [s["i"] for s in out] == [0, 1, 2, 3]
    assert [s["id"] for s in out] == [0, 1, 0, 1]  # round robin
    for s in out:
        seed = base_seed + s["id"]
        assert s["num_workers"] == 2 and s["seed"] == seed and s["initial_seed"] == seed
        assert s["same_dataset"] and s["tag"] == f"worker{s['id']}" and s["pid"] != os.getpid()
        assert s["random"] == random.Random(seed).random()
        rs = np.random.RandomState(D(T)._utils.worker._generate_state(base_seed, s["id"]))
        assert s["np"] == rs.randint(0, 2**31)
        T.manual_seed(seed)
        assert s["lib_rand"] == T.rand(3).tolist()  # the library's RNG in the worker is seeded with seed
    assert out[0]["lib_rand"] != out[1]["lib_rand"]
    assert D(T).get_worker_info() is None


@pytest.mark.parametrize("base_seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 123456789012345])
@pytest.mark.parametrize("worker_id", [0, 1, 7])
def test_worker_numpy_seed_matches_pytorch(base_seed, worker_id):
    assert torchshim.utils.data._utils.worker._generate_state(base_seed, worker_id) == \
        torch.utils.data._utils.worker._generate_state(base_seed, worker_id)


def test_worker_info_is_frozen():
    def fn(T):
        info = D(T)._utils.worker.WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
        info.id = 1
    ref, got = check(fn, msg=None)
    assert type(ref.error).__name__ == type(got.error).__name__ == "FrozenInstanceError"


def _outcomes(it, n):
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            out.append("stop")
            break
        except Exception as e:
            out.append(e)
    return out


def test_worker_exceptions_reraised_with_traceback():
    def fn(T):
        return _outcomes(iter(D(T).DataLoader(H.Failing(), batch_size=None, num_workers=2)), 9)
    ref = fn(torch)
    got = fn(torchshim)
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        if isinstance(r, Exception):
            compare_errors(r, g)  # "Caught ValueError in DataLoader worker process 1." and the type
            assert "Original Traceback (most recent call last):" in str(g)
            raising_line = {ValueError: "raise ValueError", KeyError: "raise KeyError"}.get(
                type(r), "raise TwoArgError")
            assert raising_line in str(g) and 'data_helpers.py"' in str(g)
        else:
            compare_values(r, g)


def _pids_free(message):
    return re.sub(r"pid(\(s\))? \d+", r"pid\1 N", message)


@pytest.mark.parametrize("how", ["kill", "exit"])
def test_dead_worker_raises(how):
    def fn(T):
        kw = {how: 2}
        loader = D(T).DataLoader(H.Failing(n=6, **kw), batch_size=None, num_workers=1)
        with pytest.raises(RuntimeError) as info:
            list(loader)
        return info.value

    ref, got = fn(torch), fn(torchshim)
    assert _pids_free(str(got)) == _pids_free(str(ref))  # "DataLoader worker (pid(s) N) exited unexpectedly"
    assert type(got.__cause__) is type(ref.__cause__)
    # "DataLoader worker (pid N) is killed by signal: Killed. "
    assert _pids_free(str(got.__cause__)) == _pids_free(str(ref.__cause__))


def test_timeout():
    """A batch slower than `timeout` raises PyTorch's error; a worker's start-up (seconds, under spawn) does
    not count towards the timeout."""
    def fn(T):
        slow = D(T).DataLoader(H.Failing(n=2, sleep=0), batch_size=None, num_workers=1, timeout=1.0)
        fast = D(T).DataLoader(list(range(4)), batch_size=3, num_workers=1, timeout=2.0)
        return _outcomes(iter(slow), 1), list(fast)
    (ref_slow, ref_fast), (got_slow, got_fast) = fn(torch), fn(torchshim)
    compare_errors(ref_slow[0], got_slow[0])  # "DataLoader timed out after 1.0 seconds"
    compare_values(ref_fast, got_fast)


@lib_ids
def test_persistent_workers(T):
    loader = D(T).DataLoader(H.Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = list(loader)
    it = iter(loader)
    next(it)  # abandon the second epoch after one batch
    third = list(loader)
    assert [b[0].tolist() for b in first] == [b[0].tolist() for b in third] == [[0, 1], [2, 3], [4, 5]]
    pids = {p for b in first + third for p in b[1].tolist()}
    assert len(pids) == 2 and os.getpid() not in pids  # the same two workers served all three epochs
    assert all(w.is_alive() for w in loader._iterator._workers)


def test_iterable_dataset_workers():
    """PyTorch's two documented ways to shard an IterableDataset over workers: in `__iter__` with
    get_worker_info(), and in a worker_init_fn (here with persistent workers, two epochs)."""
    def fn(T):
        name = T.__name__
        split = list(D(T).DataLoader(H.make_range_iterable(name, 3, 7, split=True), num_workers=2))
        init = D(T).DataLoader(H.make_range_iterable(name, 3, 8), num_workers=2, batch_size=2,
                               persistent_workers=True,
                               worker_init_fn=functools.partial(H.split_worker_init_fn, name))
        return split, list(init), list(init)
    check(fn)


def test_in_order_false_returns_everything():
    for T in LIBS:
        out = _flat(D(T).DataLoader(range(12), batch_size=2, num_workers=2, in_order=False,
                                    prefetch_factor=3))
        assert sorted(out) == list(range(12))


def test_forkserver_context():
    def fn(T):
        return list(D(T).DataLoader(H.Pids(), batch_size=3, num_workers=1,
                                    multiprocessing_context="forkserver"))
    ref, got = fn(torch), fn(torchshim)
    compare_values([b[0] for b in ref], [b[0] for b in got])
    assert all(p != os.getpid() for b in got for p in b[1].tolist())


def test_unpicklable_worker_arguments():
    def fn(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                iter(D(T).DataLoader(range(4), num_workers=1, collate_fn=lambda b: b,
                                     multiprocessing_context="spawn"))
            except Exception as e:
                return e, [str(x.message) for x in w]
        raise AssertionError("no error")
    (r, rw), (g, gw) = fn(torch), fn(torchshim)
    assert type(r) is type(g)
    prefix = "Got pickle error when attempting to start a worker Process. This might be because the worker " \
             "Process arguments are not picklable."
    assert any(m.startswith(prefix) for m in rw) and any(m.startswith(prefix) for m in gw)


def test_lambda_dataset_works_with_fork_context():
    """'fork' inherits the objects (PyTorch's default on Linux): unpicklable collate_fns work. It is unsafe
    with jax (docs/data.md); this dataset never calls jax in the worker."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # jax warns that os.fork() is incompatible with its threads
        out = list(torchshim.utils.data.DataLoader(list(range(5)), batch_size=2, num_workers=1,
                                                   collate_fn=lambda b: [x * 10 for x in b],
                                                   multiprocessing_context="fork"))
    assert out == [[0, 10], [20, 30], [40]]
