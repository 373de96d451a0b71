"""`NamedMemberAccessor`: get, set and swap a module tree's tensors and submodules by dotted name (with a
cache of submodule lookups), ported from PyTorch 2.13's torch/nn/utils/_named_member_accessor.py. Used by
`functional_call`."""
from ..._tensor import Tensor

_MISSING = object()


def _module_cls():
    from ..modules.module import Module
    return Module


def set_tensor(module, name, tensor):
    """Set `module.<name>` (a parameter, buffer or plain attribute; no dots) to `tensor`, bypassing checks."""
    if not isinstance(module, _module_cls()):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    if name in module._parameters:
        module._parameters[name] = tensor
    elif name in module._buffers:
        module._buffers[name] = tensor
    else:
        setattr(module, name, tensor)


def swap_tensor(module, name, tensor, allow_missing=False):
    """Set `module.<name>` to `tensor` (`_MISSING`: delete it) and return the previous value."""
    if not isinstance(module, _module_cls()):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    if name in module._parameters:
        orig_tensor = module._parameters[name]
        if tensor is not _MISSING:
            module._parameters[name] = tensor
        else:
            del module._parameters[name]
    elif name in module._buffers:
        orig_tensor = module._buffers[name]
        if tensor is not _MISSING:
            module._buffers[name] = tensor
        else:
            del module._buffers[name]
    else:
        if hasattr(module, name):
            orig_tensor = getattr(module, name)
        else:
            if not allow_missing:
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            orig_tensor = _MISSING
        if orig_tensor is not _MISSING and not isinstance(orig_tensor, Tensor) and orig_tensor is not None:
            raise TypeError(f"attribute `{name}`: {orig_tensor} is not an instance of torch.Tensor")
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig_tensor


class NamedMemberAccessor:
    """Access `module`'s submodules and tensors by dotted path ('layer1.conv1.weight'), caching submodules."""

    def __init__(self, module):
        self.module = module
        self.memo = {}

    def get_submodule(self, name):
        """The submodule at dotted path `name` ('' is the module itself)."""
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        module = self.get_submodule(prefix) if dot else self.module
        try:
            submodule = getattr(module, attr)
        except AttributeError as ex:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(submodule, _module_cls()):
            raise TypeError(f"submodule `{name}`: {submodule} is not an instance of torch.nn.Module")
        self.memo[name] = submodule
        return submodule

    def get_tensor(self, name):
        """The tensor at dotted path `name`."""
        prefix, _, attr = name.rpartition(".")
        submodule = self.get_submodule(prefix)
        try:
            tensor = getattr(submodule, attr)
        except AttributeError as ex:
            raise AttributeError(f"{submodule._get_name()} has no attribute `{name}`") from ex
        if not isinstance(tensor, Tensor) and tensor is not None:
            raise TypeError(f"{tensor} is not an instance of torch.Tensor")
        return tensor

    def set_tensor(self, name, value):
        """Set the tensor at dotted path `name`."""
        prefix, _, attr = name.rpartition(".")
        set_tensor(self.get_submodule(prefix), attr, value)

    def swap_tensor(self, name, value, allow_missing=False):
        """Swap the tensor at dotted path `name` for `value`; returns the previous one."""
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named_tensors, allow_missing=False):
        """Swap every `name: tensor`; returns (previous tensors by name, names that were missing). On an error
        (or missing names without `allow_missing`) everything swapped so far is put back."""
        orig_named_tensors = {}
        missing_keys = []
        try:
            for name, tensor in named_tensors.items():
                orig_tensor = self.swap_tensor(name, tensor, allow_missing=True)
                if orig_tensor is _MISSING:
                    missing_keys.append(name)
                orig_named_tensors[name] = orig_tensor
        except Exception:
            for name, orig_tensor in orig_named_tensors.items():
                self.swap_tensor(name, orig_tensor, allow_missing=True)
            raise
        if missing_keys and not allow_missing:
            for name, orig_tensor in orig_named_tensors.items():
                self.swap_tensor(name, orig_tensor, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        return orig_named_tensors, missing_keys

    def check_keys(self, keys):
        """(missing, unexpected) names of `keys` against the module's parameters and buffers, sorted."""
        keys = set(keys)
        valid_keys = {name for name, _ in self.named_tensors(remove_duplicate=False)}
        return sorted(valid_keys - keys), sorted(keys - valid_keys)

    def named_tensors(self, remove_duplicate=True):
        """The module's named parameters, then its named buffers."""
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)
