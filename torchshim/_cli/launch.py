"""Run a script or module as `__main__` the way `python script.py ARGS` / `python -m mod ARGS` does.

Standard library only, and importing nothing from torchshim: `python -m torchshim check` also executes this
file, unimported, in the reference interpreter (the one with the real PyTorch), so that both runs of a script
start the same way. Which library `torch` is depends on the process: torchshim where `install_as_torch()` ran,
PyTorch in the reference interpreter.
"""
import builtins
import importlib.machinery
import io
import json
import os
import random
import runpy
import signal
import sys
import time
import traceback
import types
from pkgutil import get_importer

USAGE_TARGET = "[--seed N] (SCRIPT | -m MODULE) [ARGS...]"
NO_TORCH_MARK = "torchshim-check: no PyTorch in the reference interpreter:"
NO_TORCH_EXIT = 97
_TORCH = "torch"  # the library seeded before the script starts (torchshim under `run`, PyTorch in `check`)


class UsageError(Exception):
    """Bad command line for `run` (or the reference side of `check`)."""


def parse_target(argv):
    """[--seed N] (SCRIPT | -m MODULE) [ARGS...] -> (seed or None, is_module, target, args)."""
    seed, i = None, 0
    while i < len(argv) and argv[i] == "--seed":
        if i + 1 >= len(argv):
            raise UsageError("--seed needs a value")
        try:
            seed = int(argv[i + 1])
        except ValueError:
            raise UsageError(f"--seed: not an integer: {argv[i + 1]!r}") from None
        i += 2
    if i < len(argv) and argv[i] == "-m":
        if i + 1 >= len(argv):
            raise UsageError("-m needs a module name")
        return seed, True, argv[i + 1], list(argv[i + 2:])
    if i >= len(argv):
        raise UsageError("no script given")
    if argv[i].startswith("-"):
        raise UsageError(f"unknown option {argv[i]!r}")
    return seed, False, argv[i], list(argv[i + 1:])


def seed_all(seed):
    """Seed Python's `random`, NumPy's global generator (when NumPy is installed) and `torch.manual_seed`."""
    random.seed(seed)
    try:
        import numpy
    except ImportError:
        pass
    else:
        numpy.random.seed(seed)
    __import__(_TORCH).manual_seed(seed)


def _own_frame(code):
    """Frames of the launcher itself, left out of a script's traceback as `python script.py` shows none."""
    name = code.co_filename
    here = os.path.dirname(__file__)  # torchshim/_cli/; torchshim/__main__.py is one folder up
    ours = (__file__, os.path.join(here, "commands.py"), os.path.join(os.path.dirname(here), "__main__.py"),
            runpy.__file__)
    return name in ours or name.startswith("<frozen runpy") or name == "<string>"


def _record_error_file(exc):
    """Under a launcher (`python -m torchshim run --nproc_per_node N`): write the uncaught Exception to the
    file TORCHELASTIC_ERROR_FILE names, in the format of torch.distributed.elastic's `@record` (which the
    launcher's failure summary reads), unless `@record` already wrote it."""
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path or not isinstance(exc, Exception) or os.path.exists(path):
        return
    data = {"message": {"message": f"{type(exc).__name__}: {exc}", "extraInfo": {
        "py_callstack": "".join(traceback.format_exception(exc)), "timestamp": str(int(time.time()))}}}
    try:
        with open(path, "w") as f:
            json.dump(data, f)
    except OSError:
        pass


def _report_and_exit(exc):
    """Print `exc` like Python's top level does for an uncaught exception and exit the same way (writing
    it to the launcher's error file first, `_record_error_file`)."""
    tb = exc.__traceback__
    while tb is not None and _own_frame(tb.tb_frame.f_code):
        tb = tb.tb_next
    exc.__traceback__ = tb  # the hook prints the exception's own traceback
    _record_error_file(exc)
    sys.excepthook(type(exc), exc, tb)
    if isinstance(exc, KeyboardInterrupt):  # Python exits by SIGINT here, so the parent sees the signal
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    sys.exit(1)


def _new_main(**attrs):
    """A fresh `__main__` module, as Python makes at startup, put in sys.modules (and kept there, as Python
    does: the launcher's own `__main__` is not restored)."""
    main = types.ModuleType("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins, **attrs)
    sys.modules["__main__"] = main
    return main


def _run_source_file(path):
    """Execute a .py file as `__main__` the way `python path` does (`__file__` absolute, sys.argv[0] as
    given, Python's message and status 2 for a file that cannot be opened)."""
    path = os.path.abspath(path)
    try:
        with io.open_code(path) as f:
            source = f.read()
    except OSError as e:
        prog = (getattr(sys, "orig_argv", None) or [sys.executable])[0]
        print(f"{prog}: can't open file {path!r}: [Errno {e.errno}] {e.strerror}", file=sys.stderr)
        sys.exit(2)
    code = compile(source, path, "exec", dont_inherit=True)
    main = _new_main(__cached__=None, __file__=path, __package__=None, __spec__=None,
                     __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    exec(code, main.__dict__)


class _NoModule(Exception):
    pass


def _run_module(name):
    """Execute a module (a package's __main__) as `__main__` the way `python -m name` does; name None: the
    `__main__` module of sys.path[0] (a folder or zip), as `python folder` does."""
    try:  # what Python's own `python -m` / `python folder` use
        if name is None:
            _, spec, code = runpy._get_main_module_details(_NoModule)
        else:
            _, spec, code = runpy._get_module_details(name, _NoModule)
    except _NoModule as e:
        sys.exit(f"{sys.executable}: {e}")
    if name is not None:
        sys.argv[0] = spec.origin
    main = _new_main(__cached__=spec.cached if spec.has_location else None, __file__=spec.origin,
                     __loader__=spec.loader, __package__=spec.parent, __spec__=spec)
    exec(code, main.__dict__)


def run_target(target, args, is_module=False, seed=None, before=None):
    """Run `target` (a script path, or a module name when is_module) as `__main__` with sys.argv =
    [target, *args] and sys.path[0] as Python sets it: the script's folder (the path itself for a folder or
    zip with a __main__.py), the working directory for -m. `before()` runs after that, before the script;
    then, when `seed` is given, `seed_all(seed)`. SystemExit passes through; another exception prints its
    traceback without the launcher's frames and exits with status 1."""
    sys.argv = [target, *args]
    folder = not is_module and get_importer(target) is not None  # a folder or zip with a __main__.py
    if is_module:
        sys.path[0] = os.getcwd()
    elif folder:
        sys.path[0] = os.path.abspath(target)
    else:
        sys.path[0] = os.path.dirname(os.path.realpath(target))
    try:
        if before is not None:
            before()
        if seed is not None:
            seed_all(seed)
        if is_module or folder:
            _run_module(target if is_module else None)
        elif target.endswith((".pyc", ".pyo")):
            runpy.run_path(target, run_name="__main__")
        else:
            _run_source_file(target)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001  reported like Python's own top level
        _report_and_exit(exc)


def reference_main(argv):
    """The reference side of `check`: run the target under the real PyTorch ([--seed N] then the target).
    Exits with NO_TORCH_EXIT and a NO_TORCH_MARK line on stderr when PyTorch cannot be imported."""
    try:
        seed, is_module, target, args = parse_target(argv)
    except UsageError as e:
        print(f"torchshim check (reference side): {e}", file=sys.stderr)
        sys.exit(2)

    def import_reference():
        try:
            lib = __import__(_TORCH)
        except ImportError as e:
            print(f"{NO_TORCH_MARK} {type(e).__name__}: {e}", file=sys.stderr)
            sys.exit(NO_TORCH_EXIT)
        if "torchshim" in str(getattr(lib, "__version__", "")):
            print(f"{NO_TORCH_MARK} 'import torch' gives torchshim here", file=sys.stderr)
            sys.exit(NO_TORCH_EXIT)

    run_target(target, args, is_module=is_module, seed=seed, before=import_reference)
