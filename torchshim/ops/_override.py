"""The `__torch_function__` protocol at the entry of the public functions (`torchshim.X`, `Tensor.X`,
`torchshim.nn.functional.X`): an argument whose type defines `__torch_function__` takes the call over, as in
PyTorch. torch.fx's `Proxy` is the user: `torch.relu(proxy)` records a node instead of computing.

Cost for ordinary tensors: one global lookup while no overriding type has been activated (a type is activated
when its first instance is made: `activate(cls)`), then one type lookup per argument.

Types are activated by `activate` (fx's Proxy), by `Tensor.__init_subclass__` (every Tensor subclass whose
`__torch_function__` is not `torch._C._disabled_torch_function_impl`, ops/_subclass.py), and on first use for
other classes ("duck" types): a public function that fails with TypeError/AttributeError/RuntimeError looks
for an argument whose type has a `__torch_function__`, activates it and dispatches. `TorchFunctionMode`s
(torch.overrides) put `_MODE` into the set while any is active, so the fast path stays one check. The state
of `torch._C.DisableTorchFunctionSubclass` / `DisableTorchFunction` and the mode stack is `STATE`.

Difference from PyTorch: a duck type's first call reaches its `__torch_function__` only after the function
failed on it (side-effect-free argument checks in practice); Tensor properties (`shape`, `dtype`, ...) are not
dispatched.
"""
import functools
import inspect
import threading

from .._tensor import Tensor

__all__ = ["activate", "overridable", "overloaded_args", "handle_torch_function", "STATE", "NO_OVERRIDE",
           "dispatch", "torch_function_types", "push_mode", "pop_mode"]

_TYPES = set()  # the activated types with a __torch_function__


class _MODE:
    """In `_TYPES` while a TorchFunctionMode is active (no argument is of this type)."""


class _State(threading.local):
    subclass_disabled = False  # torch._C.DisableTorchFunctionSubclass
    all_disabled = False  # torch._C.DisableTorchFunction
    modes = None  # the TorchFunctionMode stack (innermost last)


STATE = _State()
NO_OVERRIDE = object()


def push_mode(mode):
    if STATE.modes is None:
        STATE.modes = []
    STATE.modes.append(mode)
    _TYPES.add(_MODE)


def pop_mode():
    mode = STATE.modes.pop()
    if not STATE.modes:
        _TYPES.discard(_MODE)
    return mode


def torch_function_types(x):
    """The type of `x` if it takes part in the protocol: it has a `__torch_function__` that is neither plain
    Tensor's (exactly `Tensor` skips it, as in PyTorch) nor the disabled implementation; else None."""
    t = type(x)
    tf = getattr(t, "__torch_function__", None)
    if tf is None or t is Tensor or getattr(tf, "_torchshim_disabled", False):
        return None
    return t


def _activate_duck(args, kwargs):
    """Activate the argument types that have a `__torch_function__` and are not active yet; True if any."""
    found = False
    for a in list(args) + list((kwargs or {}).values()):
        for b in (a if type(a) in (list, tuple) else (a,)):
            t = torch_function_types(b)
            if t is not None and t not in _TYPES:
                _TYPES.add(t)
                found = True
    return found


def activate(cls):
    """Make instances of `cls` (which defines `__torch_function__`) take over the public functions."""
    _TYPES.add(cls)


def _add(found, a):
    """PyTorch's order: one argument per type; a subclass goes before its base classes, else left to right."""
    t = type(a)
    for f in found:
        if type(f) is t:
            return
    for i, f in enumerate(found):
        if issubclass(t, type(f)):
            found.insert(i, a)
            return
    found.append(a)


def overloaded_args(args, kwargs):
    """The arguments (looking one level into lists and tuples) of an activated type, in PyTorch's order."""
    types = _TYPES
    found = []
    for a in (args, kwargs.values()) if kwargs else (args,):
        for x in a:
            t = type(x)
            if t in types:
                _add(found, x)
            elif t is list or t is tuple:
                for b in x:
                    if type(b) in types:
                        _add(found, b)
    return found


def handle_torch_function(public, overloaded, args, kwargs):
    """Call `__torch_function__(public, types, args, kwargs)` of each overloaded argument's type until one
    returns something other than NotImplemented (PyTorch's order: subclasses before their bases)."""
    kinds = tuple(type(a) for a in overloaded)
    for a in overloaded:  # looked up on the argument, as PyTorch: a plain method of a duck type is bound
        result = a.__torch_function__(public, kinds, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{public_name(public)}' on types that implement "
                    f"__torch_function__: {list(kinds)}")


def public_name(fn):
    """How PyTorch names a public function in its messages: 'torch.add', 'torch.Tensor.add', ..."""
    m = getattr(fn, "__torchshim_method__", None)
    if m is not None:
        return f"torch.Tensor.{m}"
    mod = getattr(fn, "__module__", "") or ""
    prefix = "torch.nn.functional" if "functional" in mod else "torch"
    return f"{prefix}.{getattr(fn, '__name__', fn)}"


def dispatch(public, args, kwargs, keywords=False, fn=None):
    """The override's result for a call of `public`, or NO_OVERRIDE: the innermost TorchFunctionMode first
    (run with itself popped), then the overloaded arguments' `__torch_function__`."""
    st = STATE
    if st.all_disabled:
        return NO_OVERRIDE
    over = [] if st.subclass_disabled else overloaded_args(args, kwargs)
    if not over and not st.modes:
        return NO_OVERRIDE
    # PyTorch passes kwargs=None to __torch_function__ when a native function got none; Python-level
    # functions (torch.nn.functional) pass every parameter after the first by keyword
    args, kwargs = _normalized(fn, args, kwargs) if keywords and fn is not None else (args, kwargs or None)
    if st.modes:
        mode = pop_mode()
        try:
            r = mode.__torch_function__(public, tuple(type(a) for a in over), args, kwargs)
        finally:
            push_mode(mode)
        if r is not NotImplemented:
            return r
    if not over:
        return NO_OVERRIDE
    return handle_torch_function(public, over, args, kwargs)


def _normalized(fn, args, kwargs):
    """(first argument,), {every other parameter: value, defaults included}: how PyTorch's Python-level
    functions (`F.relu`, `F.dropout`, ...) pass their arguments to `__torch_function__`."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs
    bound.apply_defaults()
    items = list(bound.arguments.items())
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    if not items or any(p.kind in kinds for p in bound.signature.parameters.values()):
        return args, kwargs
    return (items[0][1],), dict(items[1:])


def overridable(fn, keywords=False):
    """`fn` checking its arguments for activated `__torch_function__` types first. keywords=True: the
    override gets the arguments as PyTorch's Python functions pass them (first positional, the rest by
    keyword with defaults filled in)."""
    types = _TYPES

    @functools.wraps(fn)
    def public(*args, **kwargs):
        if types:
            r = dispatch(public, args, kwargs, keywords, fn)
            if r is not NO_OVERRIDE:
                return r
        try:
            return fn(*args, **kwargs)
        except (TypeError, AttributeError, RuntimeError):
            # an argument of a class with __torch_function__ not seen before (a "duck" type): activate it
            if STATE.all_disabled or not _activate_duck(args, kwargs):
                raise
        return public(*args, **kwargs)
    public.__torchshim_overridable__ = True
    return public
