"""Worker processes under `python -m torchshim run`: `import torch` is torchshim in them too.

multiprocessing's 'spawn' and 'forkserver' start methods (the DataLoader's default is 'spawn') start a fresh
interpreter, which re-runs the main script as `__mp_main__` before it unpickles the process object; there
`import torch` would find the real PyTorch, or nothing. `install_spawn_hook()` (called by `run`) makes
multiprocessing re-run the main through `torchshim._cli.spawn_main` instead, which installs torchshim as
`torch` first and then runs the main script (or module) exactly as multiprocessing would have. The main to
re-run travels in the environment variable TORCHSHIM_SPAWN_MAIN ("path:FILE" or "name:MODULE"), set when a
process is started. 'fork' needs nothing: the child inherits the alias.
"""
import os
import runpy
import sys

_ENV = "TORCHSHIM_SPAWN_MAIN"
_CHILD_MAIN = "torchshim._cli.spawn_main"  # spawn_main.py: the module the child runs as `__mp_main__`
_PKG_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # torchshim/..


def install_spawn_hook():
    """Wrap `multiprocessing.spawn.get_preparation_data` (the data a spawned child prepares itself from) so
    the child re-runs the main through `torchshim._cli.spawn_main`, with torchshim's parent folder on its
    sys.path."""
    import multiprocessing.spawn as spawn

    original = spawn.get_preparation_data
    if getattr(original, "_torchshim_hook", False):
        return

    def get_preparation_data(name):
        data = original(name)
        if "init_main_from_name" in data:
            os.environ[_ENV] = "name:" + data.pop("init_main_from_name")
        elif "init_main_from_path" in data:
            os.environ[_ENV] = "path:" + data.pop("init_main_from_path")
        else:
            os.environ.pop(_ENV, None)
        data["init_main_from_name"] = _CHILD_MAIN
        if _PKG_PARENT not in data.get("sys_path", sys.path):
            data["sys_path"] = [*data["sys_path"], _PKG_PARENT]
        return data

    get_preparation_data._torchshim_hook = True
    spawn.get_preparation_data = get_preparation_data


def child_main_globals():
    """In a spawned child: install torchshim as `torch`, then run the parent's main as `__mp_main__` the way
    multiprocessing.spawn does (a `__main__` module of a package is not re-run) and return its globals."""
    from .install import install_as_torch

    install_as_torch()
    kind, _, target = os.environ.get(_ENV, "").partition(":")
    if kind == "path":
        return runpy.run_path(target, run_name="__mp_main__")
    if kind == "name" and target != "__main__" and not target.endswith(".__main__"):
        return runpy.run_module(target, run_name="__mp_main__", alter_sys=True)
    return {}
