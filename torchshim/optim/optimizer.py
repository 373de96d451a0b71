"""`torch.optim.Optimizer`: the stateful shell every optimizer shares (PyTorch 2.13's optimizer.py, ported).

Param groups, per-parameter state (a defaultdict keyed by parameter), `zero_grad`, `state_dict` /
`load_state_dict` in PyTorch's layout (parameters by integer index, state tensors as torchshim tensors) and
the step / state_dict hooks all follow PyTorch. The update math of the built-in optimizers lives in
`_functional.py` (pure jax) and their shell in `_shell.py`.

Differences from PyTorch: no profiler `record_function` around `step`/`zero_grad`; no torch.compile/dynamo
hooks.
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

from .. import _fused
from .._tensor import Tensor
from ..autograd import grad_mode as _gm
from ..utils import hooks

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook", "required"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    """`torch.typename(obj)`: 'torch.FloatTensor' for tensors, else the qualified type name."""
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
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"


def _use_grad_for_differentiable(func):
    """Run `step` with grad mode set to the optimizer's `differentiable` default, as PyTorch does."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = _gm.is_grad_enabled()
        try:
            _gm._set(bool(self.defaults["differentiable"]))
            return func(self, *args, **kwargs)
        finally:
            _gm._set(prev)

    return _use_grad


def _get_value(x):
    """A Python number from a 0-dim tensor (PyTorch's `_get_value` outside compile)."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A 1-element tensor hyperparameter squeezed to 0-dim; anything else unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype(is_fused=None):
    """The dtype of scalar state such as 'step': float32, or float64 when that is the default dtype."""
    from .. import _dtype as D
    if is_fused:
        return D.float32
    return D.float64 if D.get_default_dtype() == D.float64 else D.float32


def register_optimizer_step_pre_hook(hook):
    """`torch.optim.optimizer.register_optimizer_step_pre_hook(hook)`: a pre hook for every optimizer,
    `hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`; returns a RemovableHandle."""
    handle = hooks.RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """`torch.optim.optimizer.register_optimizer_step_post_hook(hook)`: a post hook for every optimizer,
    `hook(optimizer, args, kwargs) -> None`; returns a RemovableHandle."""
    handle = hooks.RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


class Optimizer:
    """`torch.optim.Optimizer(params, defaults)`: base class of all optimizers.

    `params` is an iterable of tensors, of (name, tensor) pairs, or of dicts defining parameter groups;
    `defaults` holds the default hyperparameters of a group. Subclasses implement `step(closure=None)`.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            "dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        self._warned_capturable_if_run_uncaptured = True

    # ----- pickling -----------------------------------------------------------------------------------
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def _accelerator_graph_capture_health_check(self):
        """PyTorch checks CUDA-graph capture here; torchshim has no graph capture, so nothing to check."""

    def _optimizer_step_code(self):
        """Entry point for PyTorch's profiler; nothing here."""

    # ----- step hooks ---------------------------------------------------------------------------------
    @staticmethod
    def profile_hook_step(func):
        """Wrap a `step` function so that the global and per-optimizer step pre/post hooks run around it."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            pre_hooks = chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values())
            for pre_hook in pre_hooks:
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                            f"{result}.")
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            post_hooks = chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values())
            for post_hook in post_hooks:
                post_hook(self, args, kwargs)
            _fused.step_boundary("optimizer.step()")
            return out

        return wrapper

    def _patch_step_function(self):
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """`register_step_pre_hook(hook)`: `hook(optimizer, args, kwargs) -> None or (args, kwargs)` runs
        before `step`; returns a RemovableHandle."""
        handle = hooks.RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """`register_step_post_hook(hook)`: `hook(optimizer, args, kwargs)` runs after `step`."""
        handle = hooks.RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, table, hook, prepend):
        handle = hooks.RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """`register_state_dict_pre_hook(hook, prepend=False)`: `hook(optimizer)` before `state_dict()`."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """`register_state_dict_post_hook(hook, prepend=False)`: `hook(optimizer, state_dict) -> None or
        state_dict` after `state_dict()`."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """`register_load_state_dict_pre_hook(hook, prepend=False)`: `hook(optimizer, state_dict) -> None or
        state_dict` before `load_state_dict`."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """`register_load_state_dict_post_hook(hook, prepend=False)`: `hook(optimizer)` after
        `load_state_dict`."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ----- state dicts --------------------------------------------------------------------------------
    def state_dict(self):
        """`state_dict()`: {'state': {index: per-parameter state}, 'param_groups': [group with 'params' as
        indices]}, PyTorch's layout. The state values are the optimizer's own dicts and tensors (no copy)."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = False
        capturable = False
        if param_groups is None:
            raise AssertionError("Expected param_groups to be set")
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                from .. import _dtype as D
                return value.to(dtype=D.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        """`load_state_dict(state_dict)`: load a state dict in PyTorch's layout (tensors must be torchshim
        tensors); floating state is cast to its parameter's dtype, 'step' kept as is."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, param_groups, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, Iterable):
                return type(value)(_cast(param, v, param_id=param_id, param_groups=param_groups)
                                   for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ----- gradients and groups -----------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """`zero_grad(set_to_none=True)`: set every parameter's `.grad` to None, or zero it in place."""
        if not hasattr(self, "_zero_grad_profile_name"):
            self._patch_step_function()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        """`step(closure=None)`: perform one optimization step (implemented by subclasses)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """`add_param_group(param_group)`: add a dict {'params': ..., hyperparameters...} as a new group;
        missing hyperparameters come from `defaults`. PyTorch's errors for sets, non-tensors, non-leaves,
        mixed named/unnamed parameters and parameters already in another group."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list "
                            "instead.")
        else:
            param_group["params"] = list(params)
        extracted_param_tensors = []
        extracted_param_names = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                extracted_param_names.append(param[0])
                extracted_param_tensors.append(param[1])
            else:
                extracted_param_tensors.append(param)
        param_group["params"] = extracted_param_tensors
        if len(extracted_param_names) != 0:
            if len(extracted_param_names) == len(extracted_param_tensors):
                param_group["param_names"] = extracted_param_names
            else:
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing")
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this "
                          "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                          "information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current_group_txt} to the optimizer")
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
