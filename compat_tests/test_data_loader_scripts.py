"""Multi-worker DataLoaders the way scripts write them, compared with PyTorch (which forks its workers on
Linux; torchshim spawns them, docs/data.md):
- a dataset class defined inside a function, a lambda collate_fn and worker_init_fn (pickled by value);
- whole scripts that iterate a multi-worker DataLoader at module level with no `if __name__ == "__main__"`
  guard (d2l does this), with `import torchshim as torch` under `python` and with `import torch` under
  `python -m torchshim run`: same printed batches as the script under PyTorch;
- never a hang: a worker that dies while starting (explicit 'spawn' context in an unguarded script) or does
  not start in time (TORCHSHIM_WORKER_START_TIMEOUT) raises PyTorch's "DataLoader worker (pid(s) N) exited
  unexpectedly".
Every case starts worker processes (a torchshim import each): all are slow."""
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

import torchshim
from harness import check

pytestmark = pytest.mark.slow

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))
TIMEOUT = 420  # a hang fails the test (subprocess.TimeoutExpired) instead of blocking the suite


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONWARNINGS"] = "ignore"  # the 4-worker scripts warn about the CPU count (in both libraries)
    env.update(extra)
    return env


def _python(args, cwd, **env):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(**env), capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def _write(path, source):
    path.write_text(textwrap.dedent(source))
    return path


# ---- in this process ---------------------------------------------------------------------------------------
def _local_dataset(T, n):
    class Squares(T.utils.data.Dataset):  # defined inside a function: standard pickle cannot send it
        def __len__(self):
            return n

        def __getitem__(self, i):
            return T.tensor([i, i * i]), float(i) / 2

    return Squares()


def test_local_dataset_and_lambdas_with_workers():
    def fn(T):
        info = T.utils.data.get_worker_info
        loader = T.utils.data.DataLoader(
            _local_dataset(T, 11), batch_size=3, num_workers=2,
            collate_fn=lambda batch: (T.stack([b[0] for b in batch]), [b[1] for b in batch], info().id),
            worker_init_fn=lambda worker_id: T.manual_seed(100 + worker_id))
        return list(loader)
    check(fn)


def test_lambda_sampler_order_with_persistent_workers():
    """A shuffled order given as a list sampler, a lambda dataset transform, two epochs of persistent
    workers: the same batches as PyTorch's."""
    order = [7, 2, 9, 0, 4, 1, 8, 3, 6, 5]

    def fn(T):
        base = T.arange(40.0).reshape(10, 4)
        ds = T.utils.data.TensorDataset(base, T.arange(10))
        scale = 3.0
        loader = T.utils.data.DataLoader(ds, batch_size=4, sampler=order, num_workers=2,
                                         persistent_workers=True,
                                         collate_fn=lambda b: (T.stack([x for x, _ in b]) * scale,
                                                               T.stack([y for _, y in b])))
        return list(loader), list(loader)
    check(fn)


# ---- whole scripts without a __main__ guard ----------------------------------------------------------------
UNGUARDED = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    images = torch.arange(256 * 28 * 28, dtype=torch.float32).reshape(256, 28, 28)  # ~800 KB per worker
    dataset = TensorDataset(images, torch.arange(256))
    for x, y in DataLoader(dataset, batch_size=50, num_workers=4):
        print(tuple(x.shape), x.dtype, x[:, 0, 0].tolist(), y.sum().item(), x.is_shared())
    loader = DataLoader(dataset, batch_size=64, sampler=list(range(255, -1, -3)), num_workers=2,
                        drop_last=True)
    print([y.tolist()[:4] for _, y in loader], len(loader))
    print("done")
"""


def test_unguarded_script_under_python(tmp_path):
    """`import torchshim as torch` in a plain `python script.py`, iterated at module level, 4 workers and a
    dataset of ~800 KB (this hung for good before): the output of the same script under PyTorch."""
    _write(tmp_path / "ref.py", UNGUARDED)
    _write(tmp_path / "shim.py", UNGUARDED.replace("import torch\n", "import torchshim as torch\n").replace(
        "from torch.utils", "from torchshim.utils"))
    ref = _python(["ref.py"], tmp_path)
    assert ref.returncode == 0, ref.stderr
    got = _python(["shim.py"], tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout == ref.stdout
    assert got.stdout.endswith("done\n")


LOCAL_AND_LAMBDAS = """\
    import torch
    from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info

    VERSION = torch.__version__


    def make_dataset(n):
        class Squares(Dataset):  # a class defined inside a function
            def __len__(self):
                return n

            def __getitem__(self, i):
                import torch as T  # the worker's own `import torch`: the parent's library
                return T.tensor([i, i * i]), T.__version__ == VERSION

        return Squares()


    seen = []
    loader = DataLoader(make_dataset(10), batch_size=3, num_workers=2,
                        collate_fn=lambda b: (torch.stack([x for x, _ in b]), all(s for _, s in b),
                                              get_worker_info().id),
                        worker_init_fn=lambda worker_id: seen.append(worker_id))
    for xs, same_torch, worker in loader:
        print(xs.tolist(), same_torch, worker)
    print(len(loader), "batches; the parent's list is untouched:", seen)
    images = TensorDataset(torch.ones(256, 28, 28) * 0.5)
    print(sum(x.sum().item() for (x,) in DataLoader(images, batch_size=64, num_workers=4)))
"""


def test_unguarded_script_under_torchshim_run(tmp_path):
    """`import torch` at module level, a dataset class defined in a function, lambda collate_fn and
    worker_init_fn, no guard: `python -m torchshim run` prints what `python` prints with PyTorch."""
    _write(tmp_path / "script.py", LOCAL_AND_LAMBDAS)
    ref = _python(["script.py"], tmp_path)
    assert ref.returncode == 0, ref.stderr
    got = _python(["-m", "torchshim", "run", "script.py"], tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout == ref.stdout
    assert "[[0, 0], [1, 1], [2, 4]] True 0\n[[3, 9], [4, 16], [5, 25]] True 1\n" in got.stdout


# ---- failures are bounded ----------------------------------------------------------------------------------
SPAWN_UNGUARDED = """\
    import torchshim as torch
    from torchshim.utils.data import DataLoader, TensorDataset

    dataset = TensorDataset(torch.zeros(256, 28, 28))
    for (x,) in DataLoader(dataset, batch_size=64, num_workers=2, multiprocessing_context="spawn"):
        pass
    print("done")
"""


def test_explicit_spawn_in_unguarded_script_fails_fast(tmp_path):
    """With multiprocessing_context='spawn' the worker re-runs the script (as PyTorch's spawned workers do)
    and dies at its DataLoader; the parent raises at once instead of blocking on the ~800 KB it writes."""
    _write(tmp_path / "script.py", SPAWN_UNGUARDED)
    start = time.monotonic()
    got = _python(["script.py"], tmp_path)
    elapsed = time.monotonic() - start
    assert got.returncode == 1 and "done" not in got.stdout
    assert re.search(r"RuntimeError: DataLoader worker \(pid\(s\) \d+\) exited unexpectedly\n", got.stderr)
    assert "exited unexpectedly while starting, with exit code 1" in got.stderr
    assert "bootstrapping phase" in got.stderr  # the worker's own traceback
    assert elapsed < TIMEOUT / 2


STUCK_WORKER = """\
    import sys
    import time

    import torchshim as torch
    from torchshim.utils.data import DataLoader, TensorDataset

    if __name__ == "__mp_main__":  # the spawned worker re-running this script: never starts
        time.sleep(600)

    if __name__ == "__main__":
        dataset = TensorDataset(torch.zeros(int(sys.argv[1]), 28, 28))
        try:
            list(DataLoader(dataset, batch_size=2, num_workers=1, multiprocessing_context="spawn"))
        except RuntimeError as e:
            print(type(e).__name__, e)
            print("cause:", e.__cause__)
"""


@pytest.mark.parametrize("n, phase", [(256, "did not read its start-up data"), (1, "did not start")])
def test_stuck_worker_start_is_bounded(tmp_path, n, phase):
    """A worker that never starts: its ~800 KB start-up data (n=256) is never read, or it never reports
    (n=1, the data fits in the pipe): RuntimeError after TORCHSHIM_WORKER_START_TIMEOUT seconds."""
    _write(tmp_path / "script.py", STUCK_WORKER)
    start = time.monotonic()
    got = _python(["script.py", str(n)], tmp_path, TORCHSHIM_WORKER_START_TIMEOUT="8")
    elapsed = time.monotonic() - start
    assert got.returncode == 0, got.stderr
    assert re.match(r"RuntimeError DataLoader worker \(pid\(s\) \d+\) exited unexpectedly\n", got.stdout)
    assert f"{phase} within 8 seconds" in got.stdout and "TORCHSHIM_WORKER_START_TIMEOUT" in got.stdout
    assert elapsed < 200
