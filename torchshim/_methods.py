"""The Tensor's methods that are not ops of the table: `to`, `type`, `__repr__`, `__getitem__`, `backward`,
the legacy constructor, properties such as `T` and `grad_fn`.

A module that defines one registers it here with `@tensor_method(...)` (or `add_tensor_method`), beside its
code, at whatever layer it lives; `ops/_registry.install()` attaches them to `Tensor` together with the ops.
`_tensor.py` itself holds only the Tensor's data and its construction, and nothing else calls
`setattr(Tensor, ...)`. A name registered twice raises at import.
"""
__all__ = ["METHODS", "tensor_method", "add_tensor_method"]

METHODS = {}  # attribute name -> function, property or staticmethod, in registration order


def add_tensor_method(name, value):
    """Register `value` as `Tensor.<name>` (attached by `install()`)."""
    if name in METHODS:
        raise RuntimeError(f"torchshim Tensor methods: '{name}' is registered twice")
    METHODS[name] = value
    return value


def tensor_method(*names, prop=False):
    """Decorator: the function is `Tensor.<name>` for each of `names` (default: its own `__name__`); with
    `prop=True`, a read-only property whose docstring is the function's."""
    def deco(fn):
        value = property(fn, doc=fn.__doc__) if prop else fn
        for n in names or (fn.__name__,):
            add_tensor_method(n, value)
        return fn
    return deco
