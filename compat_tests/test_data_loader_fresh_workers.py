"""DataLoader workers are fresh processes at every epoch, under torch (forked) and torchshim (forked from its
zygote, torchshim/utils/data/_zygote.py): what a worker or its worker_init_fn changes is not seen by the
next epoch's workers, workers see the main process's current environment variables and write to its current
stdout, persistent workers stay the same processes, and workers exit when the main process dies."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch

import torchshim

LIBS = (torch, torchshim)
lib_ids = pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
ENV = "TORCHSHIM_TEST_FRESH_WORKER_ENV"


def _probe_loader(T, persistent=False):
    name = T.__name__

    class Probe(T.utils.data.Dataset):
        """Sample i: (i, the mark a worker_init_fn left on the library module before, the env var, pid)."""

        def __len__(self):
            return 4

        def __getitem__(self, i):
            import os
            import sys
            lib = sys.modules[name]
            print(f"worker says {i}", flush=True)
            return i, getattr(lib, "_fresh_worker_mark", None), os.environ.get(ENV), os.getpid()

    def init(worker_id):
        import sys
        lib = sys.modules[name]
        lib._probe_seen = getattr(lib, "_fresh_worker_mark", None)
        lib._fresh_worker_mark = f"set by worker {worker_id}"

    return T.utils.data.DataLoader(Probe(), batch_size=None, num_workers=2, worker_init_fn=init,
                                   persistent_workers=persistent)


def _epochs(T, persistent):
    loader = _probe_loader(T, persistent)
    old = os.environ.get(ENV)
    try:
        os.environ[ENV] = "first"
        one = list(loader)
        os.environ[ENV] = "second"  # changed between epochs: the new workers see it
        two = list(loader)
    finally:
        if old is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = old
    return one, two


@lib_ids
def test_workers_fresh_each_epoch(T, capfd):
    one, two = _epochs(T, persistent=False)
    # worker_init_fn sets the mark before the first sample; every epoch starts without it (tuples -> lists:
    # default_convert)
    assert [tuple(r[:3]) for r in one] == [(0, "set by worker 0", "first"), (1, "set by worker 1", "first"),
                                    (2, "set by worker 0", "first"), (3, "set by worker 1", "first")]
    assert [tuple(r[:3]) for r in two] == [(0, "set by worker 0", "second"), (1, "set by worker 1", "second"),
                                    (2, "set by worker 0", "second"), (3, "set by worker 1", "second")]
    assert not {r[3] for r in one} & {r[3] for r in two}  # new processes
    assert os.getpid() not in {r[3] for r in one + two}
    assert not hasattr(T, "_fresh_worker_mark")
    out = capfd.readouterr().out
    assert sorted(line for line in out.splitlines() if line.startswith("worker says")) == sorted(
        [f"worker says {i}" for i in range(4)] * 2)


@lib_ids
def test_persistent_workers_kept(T):
    one, two = _epochs(T, persistent=True)
    assert {r[3] for r in one} == {r[3] for r in two} and len({r[3] for r in one}) == 2
    # the same processes: the environment they started with
    assert [r[2] for r in two] == ["first"] * 4


@lib_ids
def test_worker_init_sees_clean_state(T):
    """worker_init_fn of the second epoch finds no mark of the first one (a fresh copy of main's state)."""
    class Seen(T.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            import sys
            return getattr(sys.modules[T_name], "_probe_seen", "unset")

    T_name = T.__name__

    def init(worker_id):
        import sys
        lib = sys.modules[T_name]
        lib._probe_seen = getattr(lib, "_fresh_worker_mark", None)
        lib._fresh_worker_mark = worker_id

    loader = T.utils.data.DataLoader(Seen(), batch_size=None, num_workers=1, worker_init_fn=init)
    assert list(loader) == [None, None]
    assert list(loader) == [None, None]


def test_torchshim_workers_forked_from_zygote(monkeypatch):
    from torchshim.utils.data import _zygote
    loader = torchshim.utils.data.DataLoader(range(4), batch_size=2, num_workers=2)
    it = iter(loader)
    assert all(type(w) is _zygote.ZygoteWorker for w in it._workers)
    assert [b.tolist() for b in it] == [[0, 1], [2, 3]]
    monkeypatch.setenv("TORCHSHIM_WORKER_ZYGOTE", "0")  # switched off: spawned
    it = iter(loader)
    assert not any(type(w) is _zygote.ZygoteWorker for w in it._workers)
    assert [b.tolist() for b in it] == [[0, 1], [2, 3]]


SCRIPT = """
import os, sys, time
T = __import__(sys.argv[1])

class Slow(T.utils.data.Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, i):
        time.sleep(0.2)
        return os.getpid()

if __name__ == "__main__":
    it = iter(T.utils.data.DataLoader(Slow(), batch_size=None, num_workers=2))
    pids = {next(it), next(it), next(it)}
    print(" ".join(map(str, sorted(pids))), flush=True)
    os.kill(os.getpid(), 9)
"""


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.slow
@pytest.mark.parametrize("name", ["torch", "torchshim"])
def test_workers_exit_when_main_dies(tmp_path, name):
    script = tmp_path / "main_dies.py"
    script.write_text(textwrap.dedent(SCRIPT))
    proc = subprocess.Popen([sys.executable, str(script), name], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == -signal.SIGKILL
        pids = [int(p) for p in out.split()]
        assert pids
        deadline = time.monotonic() + 30  # a worker checks its parent every 5 s (MP_STATUS_CHECK_INTERVAL)
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.2)
        assert not any(_alive(p) for p in pids)
        # torchshim: the zygote too (it lives while the main process or a worker does)
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("processes of the session still alive")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
