"""Datasets and functions for the DataLoader worker tests (test_data_loader.py).

torchshim starts DataLoader workers with 'spawn': a worker re-imports the module that defines its dataset.
This module imports neither torch nor torchshim at the top, so a worker only imports the library under test
(`lib` names it: 'torch' or 'torchshim'), not the reference too."""
import importlib
import math
import os
import random
import signal
import time

import numpy as np


def lib(name):
    return importlib.import_module(name)


def data_module(name):
    return importlib.import_module(f"{name}.utils.data")


class Samples:
    """Map-style: sample i is a dict of a numpy array, a float32/bool/int64 tensor, an int, a float, a str."""

    def __init__(self, name, n=10):
        self.name, self.n = name, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        T = lib(self.name)
        return {"np": np.arange(3, dtype=np.float32) + i, "f": T.tensor([i, -i], dtype=T.float32),
                "b": T.tensor(i % 2 == 0), "i": i, "x": i / 4, "s": f"s{i}",
                "l": T.tensor([i, i + 1], dtype=T.int64)}


class WorkerProbe:
    """Sample i reports what the worker that loaded it sees: its WorkerInfo, the seeds, and the first draw of
    each RNG (`random`, numpy's global RNG, the library's default generator)."""

    def __init__(self, name, n=4):
        self.name, self.n = name, n
        self.tag = "original"

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        T = lib(self.name)
        info = data_module(self.name).get_worker_info()
        if not hasattr(self, "_draws"):  # the first draws of this worker's RNGs, before anything else
            self._draws = (random.random(), int(np.random.randint(0, 2**31)), T.rand(3).tolist())
        return {"i": i, "id": info.id, "num_workers": info.num_workers, "seed": info.seed,
                "initial_seed": T.initial_seed(), "same_dataset": info.dataset is self, "tag": self.tag,
                "random": self._draws[0], "np": self._draws[1], "lib_rand": self._draws[2],
                "pid": os.getpid()}


def tag_worker(name, worker_id):
    """worker_init_fn (as `functools.partial(tag_worker, name)`): marks this worker's copy of the dataset."""
    info = data_module(name).get_worker_info()
    info.dataset.tag = f"worker{worker_id}"


class RangeIterable:
    """PyTorch's documented IterableDataset example: range(start, end), split over workers in `__iter__`
    when `split` is set, or configured by `split_worker_init_fn`."""

    def __init__(self, name, start, end, split=False):
        self.name, self.start, self.end, self.split = name, start, end, split

    def __iter__(self):
        info = data_module(self.name).get_worker_info()
        if info is None or not self.split:
            return iter(range(self.start, self.end))
        per_worker = int(math.ceil((self.end - self.start) / float(info.num_workers)))
        lo = self.start + info.id * per_worker
        return iter(range(lo, min(lo + per_worker, self.end)))

    def __len__(self):
        return self.end - self.start

    def __repr__(self):
        return f"RangeIterable({self.start}, {self.end})"

    def __reduce__(self):  # rebuilt through make_range_iterable: the class is made at run time
        return (make_range_iterable, (self.name, self.start, self.end, self.split))


def make_range_iterable(name, start, end, split=False):
    """A RangeIterable that is an IterableDataset of library `name` (subclassed per library, at call time)."""
    base = data_module(name).IterableDataset
    cls = _ITERABLE_CLASSES.get(name)
    if cls is None:
        cls = _ITERABLE_CLASSES[name] = type(f"RangeIterable_{name}", (RangeIterable, base), {})
    return cls(name, start, end, split)


_ITERABLE_CLASSES = {}


def split_worker_init_fn(name, worker_id):
    """PyTorch's documented worker_init_fn (as `functools.partial(split_worker_init_fn, name)`): give each
    worker's copy its share of [start, end)."""
    info = data_module(name).get_worker_info()
    dataset = info.dataset
    overall_start, overall_end = dataset.start, dataset.end
    per_worker = int(math.ceil((overall_end - overall_start) / float(info.num_workers)))
    dataset.start = overall_start + worker_id * per_worker
    dataset.end = min(dataset.start + per_worker, overall_end)


class TwoArgError(Exception):
    """An exception that can't be rebuilt from one message string."""

    def __init__(self, a, b):
        super().__init__(a, b)


class Failing:
    """Sample i is i, except: 1 raises ValueError, 3 raises KeyError, 5 raises TwoArgError, `kill` sends this
    worker SIGKILL, `exit` calls os._exit(3), `sleep` sleeps 2.5 s."""

    def __init__(self, n=7, kill=None, exit=None, sleep=None):
        self.n, self.kill, self.exit, self.sleep = n, kill, exit, sleep

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.kill:
            os.kill(os.getpid(), signal.SIGKILL)
        if i == self.exit:
            os._exit(3)
        if i == self.sleep:
            time.sleep(2.5)
        if self.kill is None and self.exit is None and self.sleep is None:
            if i == 1:
                raise ValueError(f"bad sample {i}")
            if i == 3:
                raise KeyError(f"missing {i}")
            if i == 5:
                raise TwoArgError("a", i)
        return i


class Pids:
    """Sample i is (i, pid of the process that loaded it)."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return i, os.getpid()
