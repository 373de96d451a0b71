"""`torch.nn.Module`: the base class of every layer, ported from PyTorch 2.13's torch/nn/modules/module.py.

Attribute assignment registers Parameters, buffers and submodules; iteration orders, `state_dict` keys and
metadata, `load_state_dict` errors, `repr`, and the forward/backward hooks follow PyTorch. The state-dict
machinery lives in `_state_dict.py`, `apply`/`to`/dtype conversions in `_convert.py`, hook registration in
`_hooks.py`, running hooks around a call (and the backward-hook plumbing) in `_call.py`; their functions are
attached to `Module` here, so `Module`'s methods and MRO are PyTorch's.

Differences from PyTorch: no TorchScript, FX tracing or `torch.__future__` swap-tensors path (`_apply` always
replaces `param.data`); `Module.compile` needs `torchshim.compile`; `ipu`/`xpu`/`mtia` are not provided.
"""
import inspect
import warnings
from collections import OrderedDict

from ..._tensor import Tensor
from ..parameter import Buffer, Parameter
from . import _call as C
from . import _convert as X
from . import _hooks as H
from . import _state_dict as S
from ._call import BackwardHook  # noqa: F401
from ._hooks import (  # noqa: F401  (re-exported: torch.nn.modules.module.register_module_forward_hook, ...)
    _WrappedHook, _global_backward_hooks, _global_backward_pre_hooks, _global_buffer_registration_hooks,
    _global_forward_hooks, _global_forward_hooks_always_called, _global_forward_hooks_with_kwargs,
    _global_forward_pre_hooks, _global_module_registration_hooks, _global_parameter_registration_hooks,
    _has_any_global_hook, register_module_backward_hook, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook, register_module_full_backward_hook,
    register_module_full_backward_pre_hook, register_module_module_registration_hook,
    register_module_parameter_registration_hook)
from ._state_dict import _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys  # noqa: F401

# only `Module` is gathered into torch.nn / torch.nn.modules (PyTorch's module.__all__ also lists the global
# hook registration functions, reachable here as torchshim.nn.modules.module.<name>)
__all__ = ["Module"]


def _typename(obj):
    """`torch.typename(obj)`: 'torch.FloatTensor' for tensors, else the qualified class name (torchshim's
    own classes named as PyTorch's)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module.startswith("torchshim"):
        module = "torch" + module[len("torchshim"):]
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _addindent(s_, numSpaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """`torch.nn.Module`: subclass it, create Parameters/submodules in `__init__` (after
    `super().__init__()`), and define `forward`; call the module (not `forward`) to run hooks.

    >>> class Net(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = Parameter(torchshim.ones(2))
    ...     def forward(self, x):
    ...         return x * self.w
    """

    dump_patches = False
    _version = 1  # saved in state_dict()._metadata; _load_from_state_dict may compare it
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were "
                            "given")
        # object.__setattr__ avoids Module.__setattr__'s registration logic for the bookkeeping fields
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ----- registration ---------------------------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """`register_buffer(name, tensor, persistent=True)`: a tensor that is module state but not a parameter
        (in `state_dict` unless `persistent=False`); `tensor=None` registers a placeholder."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError("buffer name can't contain \".\"")
        elif name == "":
            raise KeyError("buffer name can't be empty string \"\"")
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        elif tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor "
                            "or None "
                            "required)")
        else:
            for hook in _global_buffer_registration_hooks.values():
                output = hook(self, name, tensor)
                if output is not None:
                    tensor = output
            self._buffers[name] = tensor
            if persistent:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """`register_parameter(name, param)`: add a Parameter (or None, as in
        `register_parameter('bias', None)`)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError("parameter name can't contain \".\"")
        elif name == "":
            raise KeyError("parameter name can't be empty string \"\"")
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter "
                            "or None required)")
        elif param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, "
                             "compute "
                             "the value in the forward() method.")
        else:
            for hook in _global_parameter_registration_hooks.values():
                output = hook(self, name, param)
                if output is not None:
                    param = output
            self._parameters[name] = param

    def add_module(self, name, module):
        """`add_module(name, module)`: register a child module (or None), reachable as `self.<name>`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        elif not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        elif "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        elif name == "":
            raise KeyError("module name can't be empty string \"\"")
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """`get_submodule('a.b')`: the submodule at a dotted path ('' is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """`set_submodule('a.b', module, strict=False)`: replace (or, unless strict, add) a submodule."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """`get_parameter('a.b.weight')`: the Parameter at a dotted path."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """`get_buffer('a.b.running_mean')`: the buffer at a dotted path."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Override to save extra (picklable) state under `<prefix>_extra_state` in `state_dict`."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. "
                           "Please file "
                           "an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def set_extra_state(self, state):
        """Override to restore what `get_extra_state` saved."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. "
                           "Please file "
                           "an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    # ----- apply and conversions (implemented in _convert.py) ----------------------------------------------
    _apply = X._apply
    apply = X.apply
    cuda = X.cuda
    cpu = X.cpu
    type = X.type
    float = X.float
    double = X.double
    half = X.half
    bfloat16 = X.bfloat16
    to_empty = X.to_empty
    to = X.to
    share_memory = X.share_memory

    # ----- hooks ----------------------------------------------------------------------------------------
    register_full_backward_pre_hook = H.register_full_backward_pre_hook
    register_backward_hook = H.register_backward_hook
    register_full_backward_hook = H.register_full_backward_hook
    _get_backward_hooks = H._get_backward_hooks
    _get_backward_pre_hooks = H._get_backward_pre_hooks
    _maybe_warn_non_full_backward_hook = C._maybe_warn_non_full_backward_hook
    register_forward_pre_hook = H.register_forward_pre_hook
    register_forward_hook = H.register_forward_hook

    def _wrapped_call_impl(self, *args, **kwargs):
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks or _global_backward_hooks
                or _global_forward_hooks or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        return C.call_with_hooks(self, forward_call, args, kwargs)

    __call__ = _wrapped_call_impl

    def compile(self, *args, **kwargs):
        """`compile(...)`: route `__call__` through `torchshim.compile(self._call_impl, ...)`."""
        from ...compiler import compile as _compile
        self._compiled_call_impl = _compile(self._call_impl, *args, **kwargs)

    # ----- pickling / attributes -----------------------------------------------------------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_state_dict_hooks", "_state_dict_pre_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_backward_pre_hooks"):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self._non_persistent_buffers_set = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            _parameters = d["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in d:
            _buffers = d["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None "
                                "expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or "
                                    "None expected)")
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, "
                                        "torch.Tensor or None expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    if getattr(self.register_buffer, "__func__", None) is Module.register_buffer:
                        self.register_buffer(name, value, persistent)
                    elif "persistent" in inspect.signature(self.register_buffer).parameters:
                        self.register_buffer(name, value, persistent)
                    else:
                        if not persistent:
                            raise RuntimeError("Registering a non-persistent buffer on a Module subclass "
                                               "that "
                                               "implements register_buffer() without the persistent "
                                               "argument is "
                                               "not allowed.")
                        self.register_buffer(name, value)
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    # ----- state dict (implemented in _state_dict.py) ------------------------------------------------------
    T_destination = dict
    _register_state_dict_hook = S._register_state_dict_hook
    register_state_dict_post_hook = S.register_state_dict_post_hook
    register_state_dict_pre_hook = S.register_state_dict_pre_hook
    _save_to_state_dict = S._save_to_state_dict
    state_dict = S.state_dict
    _register_load_state_dict_pre_hook = S._register_load_state_dict_pre_hook
    register_load_state_dict_pre_hook = S.register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = S.register_load_state_dict_post_hook
    _load_from_state_dict = S._load_from_state_dict
    load_state_dict = S.load_state_dict

    # ----- iteration -----------------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        """Iterator over the parameters (of submodules too unless `recurse=False`), each once."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over `(dotted name, parameter)` pairs in registration order, depth first."""
        yield from self._named_members(lambda module: module._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """Iterator over the buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over `(dotted name, buffer)` pairs."""
        yield from self._named_members(lambda module: module._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self):
        """Iterator over the immediate child modules."""
        for _name, module in self.named_children():
            yield module

    def named_children(self):
        """Iterator over `(name, child)` pairs (a module registered twice appears once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate=True):
        """Iterator over all modules of the tree, self first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterator over `(dotted name, module)` for the whole tree, self first with name `prefix`."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ----- modes and gradients -----------------------------------------------------------------------------
    def train(self, mode=True):
        """`train(mode=True)`: set `training` on self and every submodule; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """`eval()`: `train(False)`."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the parameters' gradients: to None (default) or zeros."""
        if getattr(self, "_is_replica", False):
            warnings.warn("Calling .zero_grad() from a module created with nn.DataParallel() has no effect. "
                          "The "
                          "parameters are copied (in a differentiable manner) from the original module. "
                          "This means "
                          "they are not leaf nodes in autograd and so don't accumulate gradients. If you "
                          "need "
                          "gradients in your forward method, consider using autograd.grad instead.",
                          stacklevel=2)
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ----- printing -------------------------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """Override to put layer settings inside `repr`'s parentheses."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        keys = module_attrs + attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(key for key in keys if not key[0].isdigit())

    def _replicate_for_data_parallel(self):
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica
