"""`torch.multiprocessing`: the standard library's `multiprocessing` (everything of its `__all__`, bound to
the default context, as PyTorch re-exports it), plus `spawn` / `start_processes` / `ProcessContext` and the
sharing-strategy switches.

Differences from PyTorch (docs/differences.md): tensors sent to another process (Queue, Pipe, Process
arguments) are pickled by value (reductions.py): the receiver gets a copy. `Tensor.share_memory_()` marks a
tensor shared (`is_shared()` is True after it) but shares nothing: jax arrays are immutable, so in-place
updates made by one process (Hogwild training) are not seen by the others. The sharing strategy is stored
and read back only. A 'fork'ed child inherits a jax runtime that is not fork-safe once it has run
computations; prefer 'spawn' or 'forkserver'. Only the standard library and torchshim's own modules: cheap
in spawned children."""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           *multiprocessing.__all__]

if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """`set_sharing_strategy(new_strategy)`: select how CPU tensors are shared, one of
    `get_all_sharing_strategies()` (AssertionError otherwise). torchshim stores it only: tensors travel by
    value whatever the strategy."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """`get_sharing_strategy() -> str`: the current sharing strategy ('file_descriptor' on Linux)."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """`get_all_sharing_strategies() -> set`: the strategies of this system ({'file_descriptor',
    'file_system'} on Linux)."""
    return _all_sharing_strategies


init_reductions()
