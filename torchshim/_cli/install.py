"""`install_as_torch()`: make `import torch` and every `import torch.X.Y` give torchshim's own modules.

A meta path finder maps the name `torch` / `torch.X.Y` to `torchshim` / `torchshim.X.Y` by name, lazily, so it
covers every torchshim submodule, including ones added after this file was written or first imported after the
alias is installed. The module objects are torchshim's (`torch.nn is torchshim.nn`); their `__name__` stays
`torchshim...`. The classes PyTorch defines in `torch` itself (Tensor, Size, dtype, device, Generator, ...)
get PyTorch's `__module__`, so `type(t)` prints `<class 'torch.Tensor'>` as in PyTorch.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

_ALIAS = "torch"
_TARGET = "torchshim"
# The public classes PyTorch defines in module `torch` (Generator: `torch._C`), by their `__module__` there.
_PYTORCH_MODULE_OF = {"Tensor": "torch", "Size": "torch", "dtype": "torch", "device": "torch",
                      "layout": "torch", "memory_format": "torch", "finfo": "torch", "iinfo": "torch",
                      "Generator": "torch._C"}


def _is_alias_name(name):
    return name == _ALIAS or name.startswith(_ALIAS + ".")


def _target_name(name):
    return _TARGET + name[len(_ALIAS):]


def _is_torchshim_module(module):
    name = getattr(module, "__name__", None)
    return isinstance(name, str) and (name == _TARGET or name.startswith(_TARGET + "."))


class _AliasLoader(importlib.abc.Loader):
    """Loads `torch.X` by importing `torchshim.X` and putting that module into sys.modules under `torch.X`.

    The import system creates a placeholder module first; `exec_module` replaces it in sys.modules, and the
    import system returns what sys.modules holds after `exec_module` (the documented replacement case), so no
    attribute of torchshim's module is overwritten."""

    def __init__(self, target, module=None):
        self._target = target
        self._module = module  # set when the target is a module object that is not an importable name

    def create_module(self, spec):
        return None  # the default placeholder; replaced in exec_module

    def exec_module(self, module):
        real = self._module if self._module is not None else importlib.import_module(self._target)
        sys.modules[module.__name__] = real


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    """Finds `torch` and `torch.*` as the torchshim module of the same dotted name."""

    def find_spec(self, fullname, path=None, target=None):
        if not _is_alias_name(fullname):
            return None
        tname = _target_name(fullname)
        if tname in sys.modules:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(tname))
        try:
            found = importlib.util.find_spec(tname)
        except ModuleNotFoundError:
            found = None
        if found is not None:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(tname))
        parent, _, child = tname.rpartition(".")
        attr = getattr(sys.modules.get(parent), child, None)
        if isinstance(attr, types.ModuleType):  # a module object torchshim exposes as an attribute only
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(tname, attr))
        # Not found: the import system raises its own "No module named 'torch.X'" (and
        # importlib.util.find_spec("torch.X") returns None, as probes for optional modules expect).
        return None


def _real_torch_modules():
    return sorted(name for name, mod in list(sys.modules.items())
                  if _is_alias_name(name) and mod is not None and not _is_torchshim_module(mod))


def _name_classes_as_pytorch(torchshim):
    """Give the classes of _PYTORCH_MODULE_OF PyTorch's `__module__` (`type(t)` prints
    `<class 'torch.Tensor'>`, `torch.Generator` `<class 'torch._C.Generator'>`). Done only here: with
    `torch` being torchshim, pickle (which writes a class as `__module__` + `__qualname__` and checks that
    the name finds the same object) finds each class under its new name; without the alias those names
    would be PyTorch's or nothing, so a plain `import torchshim` keeps torchshim's module paths. Tensors,
    dtypes, devices, ... pickle through their `__reduce__` (torchshim's rebuild functions) either way."""
    for name, module in _PYTORCH_MODULE_OF.items():
        getattr(torchshim, name).__module__ = module
    if "torch._C" not in sys.modules:
        # torchshim has no `_C`; pickle imports `torch._C` (a sys.modules entry is enough) to find
        # `torch._C.Generator`. Only in sys.modules: `torch._C` stays no attribute of torch (hasattr probes).
        c = types.ModuleType(_TARGET + "._C", "What torchshim has of PyTorch's `torch._C`: the Generator "
                             "class, so that pickle finds `torch._C.Generator` by name.")
        c.Generator = torchshim.Generator
        sys.modules["torch._C"] = c


def install_as_torch():
    """torchshim.install_as_torch() -> module (torchshim itself)

    Makes `import torch`, `import torch.nn as nn`, `from torch.utils.data import DataLoader`, ... in this
    process resolve to torchshim's modules: `sys.modules["torch"]` becomes torchshim and a meta path finder
    maps every `torch.X.Y` to `torchshim.X.Y` (imported on first use). A name torchshim lacks raises
    ModuleNotFoundError naming the torch module. The classes PyTorch defines in `torch` are named as there
    (`type(t)` prints `<class 'torch.Tensor'>`). Calling it again does nothing.

    Not part of PyTorch. Raises RuntimeError, changing nothing, when the real PyTorch is already imported in
    the process (its modules cannot be swapped out from under the code that holds them). `python -m torchshim
    run script.py` calls this before running the script.

    Example::

        import torchshim
        torchshim.install_as_torch()
        import torch.nn as nn   # torchshim.nn
    """
    real = _real_torch_modules()
    if real:
        shown = ", ".join(repr(n) for n in real[:3]) + (", ..." if len(real) > 3 else "")
        raise RuntimeError(
            f"install_as_torch(): the real PyTorch is already imported in this process (sys.modules has "
            f"{shown}), so torchshim cannot stand in for it. Call torchshim.install_as_torch() before "
            f"anything imports torch, or run the script with `python -m torchshim run script.py`.")
    if not any(isinstance(f, _TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchAliasFinder())
    # The package itself, not imported here: this module is part of it (imported while torchshim/__init__.py
    # runs); by the time anyone calls install_as_torch the package is complete in sys.modules.
    torchshim = sys.modules[_TARGET]
    sys.modules[_ALIAS] = torchshim
    _name_classes_as_pytorch(torchshim)
    return torchshim
