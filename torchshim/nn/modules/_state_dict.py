"""`Module.state_dict` / `load_state_dict` and their hooks, ported from PyTorch 2.13 (module.py). The
functions here are attached to `Module` as methods in module.py (so `Module`'s own attributes are PyTorch's).

Keys are ordered as PyTorch's: a module's own parameters, then its persistent buffers, then `_extra_state`,
then each child's keys (depth first). The returned OrderedDict carries `_metadata`
(`{prefix: {'version': v}}`).
Difference from PyTorch: no `torch.__future__` swap-tensors path (loading copies into the existing tensors, or
assigns them with `assign=True`).
"""
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, is_lazy
from ._hooks import _WrappedHook

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: `(missing_keys, unexpected_keys)`."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _module_base():
    from .module import Module
    return Module


# ----- hooks ---------------------------------------------------------------------------------------------
def _register_state_dict_hook(self, hook):
    """The private post-hook API: `hook(module, state_dict, prefix, local_metadata)` may return a new dict."""
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                           "previously "
                           "registered via register_state_dict_post_hook")
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def register_state_dict_post_hook(self, hook):
    """`hook(module, state_dict, prefix, local_metadata) -> None`, run after `state_dict` filled its keys
    (it may edit `state_dict` in place)."""
    hook._from_public_api = True
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def register_state_dict_pre_hook(self, hook):
    """`hook(module, prefix, keep_vars) -> None`, run before `state_dict`."""
    handle = RemovableHandle(self._state_dict_pre_hooks)
    self._state_dict_pre_hooks[handle.id] = hook
    return handle


def _register_load_state_dict_pre_hook(self, hook, with_module=False):
    handle = RemovableHandle(self._load_state_dict_pre_hooks)
    self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
    return handle


def register_load_state_dict_pre_hook(self, hook):
    """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`,
    run before this module loads its part of a state dict (it may edit `state_dict`)."""
    return self._register_load_state_dict_pre_hook(hook, with_module=True)


def register_load_state_dict_post_hook(self, hook):
    """`hook(module, incompatible_keys) -> None`, run after `load_state_dict` (it may edit the key lists)."""
    handle = RemovableHandle(self._load_state_dict_post_hooks)
    self._load_state_dict_post_hooks[handle.id] = hook
    return handle


# ----- saving ----------------------------------------------------------------------------------------------
def _save_to_state_dict(self, destination, prefix, keep_vars):
    """Put this module's own state (not its children's) into `destination`; override for custom state."""
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    Module = _module_base()
    if getattr(self.__class__, "get_extra_state", Module.get_extra_state) is not Module.get_extra_state:
        destination[extra_state_key] = self.get_extra_state()


def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    """`state_dict(*, destination=None, prefix='', keep_vars=False)`: an OrderedDict of parameters and
    persistent buffers by dotted name (detached unless `keep_vars`), with `_metadata`."""
    if len(args) > 0:
        warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                      "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                      "#torch.nn.Module.state_dict for "
                      "details.", FutureWarning, stacklevel=2)
        if destination is None:
            destination = args[0]
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = dict(version=self._version)
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in self._state_dict_pre_hooks.values():
        hook(self, prefix, keep_vars)
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    for hook in self._state_dict_hooks.values():
        hook_result = hook(self, destination, prefix, local_metadata)
        if not getattr(hook, "_from_public_api", False):
            if hook_result is not None:
                destination = hook_result
        elif hook_result is not None:
            raise RuntimeError("state_dict post-hook must return None")
    return destination


# ----- loading ---------------------------------------------------------------------------------------------
def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                          error_msgs):
    """Load this module's own state (not its children's) from `state_dict`, appending to the key and error
    lists; override for custom state or version upgrades."""
    for hook in self._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
    local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
    local_state = {k: v for k, v in local_name_params if v is not None}
    assign_to_params_buffers = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  "Tensor-like object from checkpoint but received "
                                  f"{_torch_type(input_param)}")
                continue
            is_param_lazy = is_lazy(param)
            # backward compatibility: loading 1-dim tensor from 0.3.* to version 0.4+
            if not is_param_lazy and len(param.shape) == 0 and len(input_param.shape) == 1 \
                    and input_param.shape[0] == 1:
                input_param = input_param[0]
            if not is_param_lazy and input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                                  "from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign_to_params_buffers:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the '
                                  'model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        elif strict:
            missing_keys.append(key)

    extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    Module = _module_base()
    if getattr(self.__class__, "set_extra_state", Module.set_extra_state) is not Module.set_extra_state:
        if extra_state_key in state_dict:
            self.set_extra_state(state_dict[extra_state_key])
        elif strict:
            missing_keys.append(extra_state_key)
    elif strict and extra_state_key in state_dict:
        unexpected_keys.append(extra_state_key)

    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_state_key:
                input_name = key[len(prefix):].split(".", 1)
                # a key of a submodule that is not in this module, or a parameter/buffer this module lacks
                if len(input_name) > 1:
                    if input_name[0] not in self._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)


def _torch_type(obj):
    """`type(obj)` as PyTorch prints it (torchshim classes under their torch names)."""
    t = type(obj)
    mod = t.__module__
    if mod.startswith("torchshim"):
        return f"<class '{'torch' + mod[len('torchshim'):]}.{t.__qualname__}'>"
    return str(t)


def load_state_dict(self, state_dict, strict=True, assign=False):
    """`load_state_dict(state_dict, strict=True, assign=False)`: copy parameters and buffers from
    `state_dict` (or, with `assign=True`, take its tensors, keeping each parameter's requires_grad). Returns
    `_IncompatibleKeys(missing_keys, unexpected_keys)`; with `strict` (the default) raises RuntimeError
    listing missing/unexpected keys and size mismatches."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                load(child, child_state_dict, child_prefix)
        incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            out = hook(module, incompatible_keys)
            if out is not None:
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                     "expected "
                                     "to return new values, if incompatible_keys need to be modified, it "
                                     "should be "
                                     "done inplace.")

    load(self, state_dict)

    if strict:
        if len(unexpected_keys) > 0:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if len(missing_keys) > 0:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if len(error_msgs) > 0:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            self.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)
