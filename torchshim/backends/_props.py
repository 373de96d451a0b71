"""Backend modules whose flags are attributes (`torch.backends.cudnn.benchmark = True`), as PyTorch's
`PropModule`: the module's class is swapped for a ModuleType subclass carrying one property per flag."""
import contextlib
import sys
import types

__all__ = ["flag_module", "bool_setter", "flags_context"]


def bool_setter(state, key, fn_name):
    """A setter storing `state[key]` after PyTorch's check: a bool, else RuntimeError naming `fn_name`."""
    def set_(value):
        if not isinstance(value, bool):
            raise RuntimeError(f"{fn_name} expects a bool, but got {type(value).__name__}")
        state[key] = value
    return set_


def flag_module(module_name, props):
    """Turn module `module_name` into a flag module: props = {attribute: (getter(), setter(value) or
    None)}."""
    mod = sys.modules[module_name]
    body = {name: property(lambda self, g=g: g(), (lambda self, v, s=s: s(v)) if s else None)
            for name, (g, s) in props.items()}
    mod.__class__ = type(mod.__name__.rpartition(".")[2].capitalize() + "Module", (types.ModuleType,), body)
    return mod


@contextlib.contextmanager
def flags_context(set_flags, new):
    """Run the block with `set_flags(*new)` applied, restoring the previous flags (set_flags' return)
    after."""
    old = set_flags(*new)
    try:
        yield
    finally:
        set_flags(*old)
