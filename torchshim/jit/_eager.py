"""The rest of `torch.jit`: decorators (`ignore`, `unused`, `export`, `interface`, `script_if_tracing`: the
function unchanged, traced into programs like any Python code), `annotate`, `Final`, `Attribute`,
`fork`/`wait` (run at once: PyTorch's eager fork also runs the call), context managers (`optimized_execution`,
`fuser`), `save`/`load` (torchshim program archives, `_archive.py`), `freeze`/`optimize_for_inference`
(the program with its parameters as constants)."""
import contextlib
import copy
import functools
import typing
import warnings

from ..nn.modules.module import Module
from ._archive import load_program, save_program
from ._program import Program
from ._script import NOT_SUPPORTED, RecursiveScriptModule, ScriptFunction, ScriptModule, is_scripting

__all__ = ["ignore", "unused", "export", "interface", "script_if_tracing", "annotate", "Final", "Attribute",
           "is_scripting", "Future", "fork", "wait", "optimized_execution", "fuser", "save", "load", "freeze",
           "optimize_for_inference", "enable_onednn_fusion", "onednn_fusion_enabled", "set_fusion_strategy",
           "isinstance", "CompilationUnit", "Error"]

Final = typing.Final
_builtin_isinstance = isinstance


class Error(RuntimeError):
    """`torch.jit.Error` (TorchScript's runtime error type)."""


def ignore(drop=False, **kwargs):
    """`@torch.jit.ignore` / `@torch.jit.ignore(drop=False)`: marks a function to be left to Python; in eager
    code (all code here) the function is unchanged."""
    if callable(drop):
        drop._torchscript_modifier = "ignore"
        return drop

    def decorator(fn):
        fn._torchscript_modifier = "unused" if drop else "ignore"
        return fn
    return decorator


def unused(fn):
    """`@torch.jit.unused`: the function is unchanged in eager code."""
    if _builtin_isinstance(fn, property):
        return fn
    fn._torchscript_modifier = "unused"
    return fn


def export(fn):
    """`@torch.jit.export`: the method is unchanged in eager code."""
    fn._torchscript_modifier = "export"
    return fn


def interface(obj):
    """`@torch.jit.interface`: the class is returned unchanged (eager)."""
    if not _builtin_isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    return obj


def script_if_tracing(fn):
    """`@torch.jit.script_if_tracing`: the function unchanged (scripting happens only under a tracer)."""
    return fn


def annotate(the_type, the_value):
    """`torch.jit.annotate(the_type, the_value)`: returns the_value."""
    return the_value


def Attribute(value, type):  # noqa: A002,N802  (PyTorch's names)
    """`torch.jit.Attribute(value, type)`: returns value in eager code."""
    return value


def isinstance(obj, target_type):  # noqa: A001
    """`torch.jit.isinstance(obj, target_type)`: a container-aware isinstance (List[int], Dict[str, Tensor],
    Optional[...], Tuple[...])."""
    origin = typing.get_origin(target_type)
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union:
        return any(isinstance(obj, a) if a is not type(None) else obj is None for a in args)
    if not _builtin_isinstance(obj, origin):
        return False
    if origin in (list,) and args:
        return all(isinstance(x, args[0]) for x in obj)
    if origin is dict and args:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple and args:
        return len(obj) == len(args) and all(isinstance(x, a) for x, a in zip(obj, args))
    return True


class Future:
    """`torch.jit.Future` (`torch.futures.Future`): here always completed (fork runs its call at once)."""

    def __init__(self, *, devices=None):
        self._done, self._value, self._error, self._callbacks = False, None, None, []

    def done(self):
        return self._done

    def set_result(self, result):
        self._done, self._value = True, result
        for cb in self._callbacks:
            cb(self)

    def set_exception(self, result):
        self._done, self._error = True, result

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def then(self, callback):
        fut = Future()
        fut.set_result(callback(self))
        return fut

    def add_done_callback(self, callback):
        callback(self)


def fork(func, *args, **kwargs):
    """`torch.jit.fork(func, *args, **kwargs) -> Future`: runs func now (as eager PyTorch does)."""
    warnings.warn("`torch.jit.fork` is deprecated. Please use `torch.compile` instead.", DeprecationWarning,
                  stacklevel=2)
    fut = Future()
    try:
        fut.set_result(func(*args, **kwargs))
    except Exception as e:  # noqa: BLE001  (re-raised by wait, as PyTorch's future)
        fut.set_exception(e)
    return fut


def wait(future):
    """`torch.jit.wait(future)`: the future's value."""
    warnings.warn("`torch.jit.wait` is deprecated. Please use `torch.compile` instead.", DeprecationWarning,
                  stacklevel=2)
    return future.wait()


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """`torch.jit.optimized_execution(bool)`: a context manager; nothing to switch here."""
    yield


@contextlib.contextmanager
def fuser(name):
    """`torch.jit.fuser(name)`: 'fuser0', 'fuser1', 'fuser2', 'fuser3' or 'none' (XLA always fuses)."""
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002  (PyTorch's type)
    yield


_onednn = [False]


def enable_onednn_fusion(enabled: bool):
    """`torch.jit.enable_onednn_fusion(enabled)`: stored."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    """`torch.jit.onednn_fusion_enabled()`."""
    return _onednn[0]


def set_fusion_strategy(strategy):
    """`torch.jit.set_fusion_strategy([("STATIC", n), ("DYNAMIC", m)])`: validated, returns the previous
    strategy (PyTorch's default [("STATIC", 2), ("DYNAMIC", 10)])."""
    for kind, _ in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise RuntimeError(f"Expected STATIC or DYNAMIC, got {kind}")
    old, _strategy[:] = list(_strategy), list(strategy)
    return old


_strategy = [("STATIC", 2), ("DYNAMIC", 10)]


def save(m, f, _extra_files=None):
    """`torch.jit.save(m, f, _extra_files=None)`: writes a traced or scripted module or function as a
    torchshim program archive (a `jax.export` artifact with the state_dict; `_archive.py`). Difference: real
    PyTorch cannot load it, and a scripted object must have been called once
    (its program is traced on first call)."""
    warnings.warn("`torch.jit.save` is deprecated. Please switch to `torch.export`.", DeprecationWarning,
                  stacklevel=2)
    if not _builtin_isinstance(m, (ScriptModule, ScriptFunction)):
        raise AttributeError(f"'{type(m).__name__}' object has no attribute 'save'")
    save_program(m, f, _extra_files)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """`torch.jit.load(f, map_location=None, _extra_files=None)`: a module saved by torchshim's
    `torch.jit.save` (a `RecursiveScriptModule` running the saved program, with its state_dict). A TorchScript
    archive written by real PyTorch raises RuntimeError (no TorchScript interpreter here)."""
    warnings.warn("`torch.jit.load` is deprecated. Please switch to `torch.export`.", DeprecationWarning,
                  stacklevel=2)
    return load_program(f, map_location, _extra_files)


def _frozen(mod):
    """A RecursiveScriptModule running `mod`'s program with its parameters and buffers baked in as constants
    (no parameters or buffers of its own, as PyTorch's frozen modules)."""
    prog = mod._jit_program
    if getattr(prog, "fn", None) is None:
        raise RuntimeError("torch.jit.freeze (torchshim): a module loaded by torch.jit.load is "
                           "already a fixed "
                           "program; freeze the module it was saved from")
    tmp = copy.copy(prog.module)
    tmp.__dict__.pop("_jit_program", None)
    copy_ = copy.deepcopy(tmp)
    out = RecursiveScriptModule()
    out.__dict__["original_name"] = mod.__dict__.get("original_name", prog.name)
    out.train(False)
    fn = functools.partial(Module.__call__, copy_)
    out.__dict__["_jit_program"] = Program(fn, None, prog.name, prog.mode, prog.host)
    return out


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """`torch.jit.freeze(mod, preserved_attrs=None, optimize_numerics=True)`: a ScriptModule in eval mode ->
    a RecursiveScriptModule whose program holds the parameters and buffers as constants (none of its own).
    Difference: `preserved_attrs` are not kept as attributes."""
    warnings.warn("`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.", DeprecationWarning,
                  stacklevel=2)
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call "
                           ".eval() on your module before freezing.")
    return _frozen(mod)


def optimize_for_inference(mod, other_methods=None):
    """`torch.jit.optimize_for_inference(mod, other_methods=None)`: the frozen module (`freeze`); XLA does the
    fusions PyTorch's passes do."""
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use "
                           "torch.jit.script "
                           "or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        mod = copy.copy(mod)
        mod.__dict__["training"] = False
    return _frozen(mod)


class CompilationUnit:
    """`torch.jit.CompilationUnit(src)`: compiles TorchScript source; NotImplementedError."""

    def __init__(self, lang=None, _frames_up=0):
        raise NotImplementedError(NOT_SUPPORTED.format(what="torch.jit.CompilationUnit"))
