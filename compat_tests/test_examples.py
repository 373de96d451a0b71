"""The examples (examples/*.py) train to the same numbers under torchshim as under real PyTorch.

Each example is a plain PyTorch script. `python -m torchshim check EXAMPLE --short --check` runs it under
PyTorch and then under `python -m torchshim run`, and compares every printed line (losses, perplexities,
accuracies, gradcheck verdicts, ...) with check's default tolerances (torch.testing's float32 ones plus one
unit in the last printed digit): `--short` is the examples' CI mode, `--check` takes their randomness from
numpy so that both libraries start from the same weights and see the same data. mnist_like's checkpoints are
also resumed across libraries: a checkpoint written by one continues in the other to the same numbers as an
uninterrupted run.

The subprocesses run with OMP_NUM_THREADS=1 (PyTorch's threads fight for the two cores of a CI machine) and,
unless the suite's compile cache is off, with a jax compilation cache of their own (next to the suite's: the
example runs compile a few hundred kernels, which takes most of their time). That cache has a size limit, so
jax locks it for every read and write: the examples' DataLoader workers share it safely (the suite's own
cache is not locked, see conftest.py). Without the `filelock` package jax cannot lock, and the examples
run without a cache.
"""
import importlib.util
import os
import re
import subprocess
import sys

import jax
import pytest

import torchshim
from torchshim._cli import compare as _compare
from torchshim._cli.check import DEFAULT_ATOL, DEFAULT_RTOL

# whole scripts in subprocesses: `nox -s tests_slow`
pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))
TIMEOUT = 900  # seconds per subprocess (check: two runs of at most CHECK_TIMEOUT each)
CHECK_TIMEOUT = 420  # a cold compile cache on a loaded 2-core machine needs a minute or two per run


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
    env["OMP_NUM_THREADS"] = "1"
    env.pop("TORCHSHIM_CHECK_RUN", None)
    suite_cache = jax.config.jax_compilation_cache_dir  # set by conftest.py unless the cache is off
    if suite_cache and importlib.util.find_spec("filelock"):  # jax's lock (torch depends on filelock)
        env["JAX_COMPILATION_CACHE_DIR"] = suite_cache.rstrip("/\\") + "-examples"
        env["JAX_COMPILATION_CACHE_MAX_SIZE"] = str(1 << 30)  # a limit: jax then locks each read and write
        env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
        env["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"
    return env


def _python(args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def _explain(proc):
    return (f"exit status {proc.returncode}\n--- stdout ---\n{proc.stdout}\n"
            f"--- stderr ---\n{proc.stderr[-6000:]}")


def _example(name):
    return os.path.join(EXAMPLES, name)


@pytest.mark.parametrize("name", ["mnist_like.py", "custom_function.py", "higher_order.py", "wgan_gp.py",
                                  "word_language_model.py", "vae_flows.py"])
def test_example_matches_pytorch(name, tmp_path):
    proc = _python(["-m", "torchshim", "check", "--timeout", str(CHECK_TIMEOUT), _example(name), "--short",
                    "--check"], cwd=tmp_path)
    assert proc.returncode == 0, _explain(proc)
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"torch: +exit status 0, (\d+) lines of output, .*", lines[0]), _explain(proc)
    assert re.fullmatch(r"torchshim: exit status 0, (\d+) lines of output, .*", lines[1]), _explain(proc)
    n = int(re.search(r"(\d+) lines of output", lines[0]).group(1))
    assert n >= 5 and lines[-1].startswith(f"{n} lines match, same exit status 0"), _explain(proc)


def _run(library, args, cwd):
    """Run mnist_like.py (short, check mode) under `library` ('torch' or 'torchshim'); -> its stdout lines."""
    launcher = ["-m", "torchshim", "run"] if library == "torchshim" else []
    proc = _python([*launcher, _example("mnist_like.py"), "--short", "--check", *args], cwd=cwd)
    assert proc.returncode == 0, _explain(proc)
    return proc.stdout.splitlines()


def _epoch_lines(lines, epoch):
    return [line for line in lines if line.startswith(f"epoch {epoch} ")]


def _assert_close(ref, got, what):
    diff = _compare.first_difference(ref, got, DEFAULT_RTOL, DEFAULT_ATOL)  # check's own comparison
    assert diff is None, f"{what}: line {diff[0]} differs ({diff[3]}):\n  torch:     {diff[1]!r}\n" \
                         f"  torchshim: {diff[2]!r}"


def test_mnist_like_resumes_across_libraries(tmp_path):
    # an uninterrupted 2-epoch run under PyTorch, and one epoch under torchshim, each saving per epoch
    reference = _run("torch", ["--checkpoint", "torch-{epoch}.pt"], tmp_path)
    first = _run("torchshim", ["--epochs", "1", "--checkpoint", "shim-{epoch}.pt"], tmp_path)
    assert (tmp_path / "torch-1.pt").exists() and (tmp_path / "shim-1.pt").exists()
    assert not (tmp_path / "shim-2.pt").exists() and _epoch_lines(first, 2) == []
    _assert_close(_epoch_lines(reference, 1), first, "torchshim's first epoch")

    # torchshim resumes from PyTorch's checkpoint, PyTorch from torchshim's: epoch 2 as if never stopped
    resumed = {"torchshim": _run("torchshim", ["--resume", "torch-1.pt", "--checkpoint", "a-{epoch}.pt"],
                                 tmp_path),
               "torch": _run("torch", ["--resume", "shim-1.pt", "--checkpoint", "b-{epoch}.pt"], tmp_path)}
    for library, (checkpoint, lines) in zip(resumed, (("torch-1.pt", resumed["torchshim"]),
                                                      ("shim-1.pt", resumed["torch"]))):
        assert lines[0] == f"resumed from {checkpoint} after epoch 1", (library, lines)
        assert _epoch_lines(lines, 1) == [] and len(_epoch_lines(lines, 2)) >= 2, (library, lines)
        _assert_close(_epoch_lines(reference, 2), lines[1:], f"epoch 2 under {library}, resumed")
    assert (tmp_path / "a-2.pt").exists() and (tmp_path / "b-2.pt").exists()
