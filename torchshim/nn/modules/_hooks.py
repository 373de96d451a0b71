"""Registering Module hooks: the global registries of `torch.nn.modules.module`
(`register_module_forward_hook`, ...), the per-module `register_*_hook` methods (attached to `Module` in
module.py), and `_WrappedHook` (a hook bound weakly to its module). Running them around a call is `_call.py`.
"""
import functools
import weakref
from collections import OrderedDict

from ...utils.hooks import RemovableHandle

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]

# hooks common to all modules, run right before a buffer/module/parameter is registered
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()

# hooks common to all modules, run before/after forward and backward (debugging/profiling)
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


def _has_any_global_hook():
    return (_global_backward_pre_hooks or _global_backward_hooks or _global_forward_pre_hooks
            or _global_forward_hooks or _global_forward_hooks_always_called
            or _global_forward_hooks_with_kwargs)


def register_module_buffer_registration_hook(hook):
    """`hook(module, name, buffer) -> None or new buffer`, run by every `register_buffer`."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook):
    """`hook(module, name, submodule) -> None or new submodule`, run by every submodule registration."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook):
    """`hook(module, name, param) -> None or new param`, run by every `register_parameter`."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook):
    """`hook(module, args) -> None or new args`, run before every module's forward (before its own hooks)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """`hook(module, args, output)` (or `(module, args, kwargs, output)` with `with_kwargs`), run after every
    module's forward; `always_call` also runs it when forward raises."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook):
    """Deprecated global non-full backward hook (see `Module.register_backward_hook`)."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global "
                           "Module "
                           "hook. Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook):
    """`hook(module, grad_output) -> None or new grad_output`, for every module."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """`hook(module, grad_input, grad_output) -> None or new grad_input`, for every module."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global "
                           "Module "
                           "hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


class _WrappedHook:
    """A hook called as `hook(module, *args)` with the module held weakly (load_state_dict pre-hooks)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# ----- per-module registration (Module methods) --------------------------------------------------------
def register_full_backward_pre_hook(self, hook, prepend=False):
    """`hook(module, grad_output) -> None or new grad_output`, before the gradients w.r.t. the module's
    inputs are computed."""
    handle = RemovableHandle(self._backward_pre_hooks)
    self._backward_pre_hooks[handle.id] = hook
    if prepend:
        self._backward_pre_hooks.move_to_end(handle.id, last=False)
    return handle

def register_backward_hook(self, hook):
    """Deprecated non-full backward hook on the last autograd node of the forward (prefer
    `register_full_backward_hook`)."""
    if self._is_full_backward_hook is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                           "Module. "
                           "Please use only one of them.")
    self._is_full_backward_hook = False
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    return handle

def register_full_backward_hook(self, hook, prepend=False):
    """`hook(module, grad_input, grad_output) -> None or new grad_input`, once the gradients w.r.t. the
    module's inputs are computed (grad_input/grad_output: tuples, None for non-tensor/no-grad entries)."""
    if self._is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                           "Module. "
                           "Please use only one of them.")
    self._is_full_backward_hook = True
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    if prepend:
        self._backward_hooks.move_to_end(handle.id, last=False)
    return handle

def _get_backward_hooks(self):
    full_backward_hooks, non_full_backward_hooks = [], []
    if _global_is_full_backward_hook is True:
        full_backward_hooks += _global_backward_hooks.values()
    if self._is_full_backward_hook is True:
        full_backward_hooks += self._backward_hooks.values()
    if _global_is_full_backward_hook is False:
        non_full_backward_hooks += _global_backward_hooks.values()
    if self._is_full_backward_hook is False:
        non_full_backward_hooks += self._backward_hooks.values()
    return full_backward_hooks, non_full_backward_hooks

def _get_backward_pre_hooks(self):
    return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
    """`hook(module, args) -> None or new args` (with_kwargs: `hook(module, args, kwargs) -> None or
    (args, kwargs)`), run before `forward`; `prepend` runs it before the existing ones."""
    handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
    self._forward_pre_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    if prepend:
        self._forward_pre_hooks.move_to_end(handle.id, last=False)
    return handle

def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    """`hook(module, args, output) -> None or new output` (with_kwargs: `hook(module, args, kwargs,
    output)`), run after `forward`; `always_call` also runs it when forward raises."""
    handle = RemovableHandle(self._forward_hooks,
                             extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle
