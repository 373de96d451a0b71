"""The stateful shell shared by the elementwise optimizers: gather a group's arrays, run its jitted pure
update (`_functional.py`) once per parameter group, write the results back.

A subclass sets `_update` (a `_functional` kernel), `_init_state(group, p, state)` (PyTorch's lazy state
initialisation, same entries in the same order), `_state_keys(group)` and `_hyper(group)` (the kernel's
keyword arguments: numeric hyperparameters as float64 scalars, flags as Python bools), and `_group_defaults`
(what PyTorch's `__setstate__` fills into old param groups). Constructor arguments are checked by
`_checks.validate`.

Writes go through `Tensor._write`: parameters and state tensors keep their identity (a reference held by the
user sees the update, as with PyTorch's in-place ops) and their version counters are bumped.
"""
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd import grad_mode as _gm
from ..ops._dispatch import fresh
from ._checks import check_fused_flags
from .optimizer import Optimizer, _get_scalar_dtype, _use_grad_for_differentiable

__all__ = ["ElementwiseOptimizer", "hyper", "scalar_state", "zeros_state", "check_fused_device_dtype",
           "CAPTURABLE_DEVICES"]

CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]


def hyper(x):
    """A hyperparameter as a float64 scalar for the kernel: Python numbers as numpy float64, tensors (lr or
    betas given as tensors) through their jax value (no host round trip, so it also works under tracing)."""
    if isinstance(x, Tensor):
        return x._value.reshape(()).astype(jnp.float64)
    return np.float64(x)


def scalar_state(value, p=None, is_fused=None):
    """A 0-dim scalar-state tensor (like 'step') in `_get_scalar_dtype(is_fused)`, on `p`'s device when `p` is
    given (capturable/fused state), as PyTorch's `torch.tensor(value, dtype=_get_scalar_dtype())` and
    `torch.zeros((), dtype=..., device=p.device)`."""
    from .. import _api as torchshim
    return torchshim.tensor(float(value), dtype=_get_scalar_dtype(is_fused=is_fused),
                            device=None if p is None else p.device)


def zeros_state(state, p, *keys):
    """`state[key] = torch.zeros_like(p, memory_format=torch.preserve_format)` for each of `keys`, in order
    (PyTorch's buffers such as 'exp_avg', created lazily at a parameter's first step)."""
    from .. import _api as torchshim
    for key in keys:
        state[key] = torchshim.zeros_like(p, memory_format=torchshim.preserve_format)


def check_fused_device_dtype(p):
    """PyTorch's `_device_dtype_check_for_fused`."""
    if not (p.device.type in FUSED_DEVICES and p.is_floating_point()):
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported "
                           f"devices: {FUSED_DEVICES} but {p.dtype} and {p.device.type}")


def _array(t):
    return None if t is None else t._value


class ElementwiseOptimizer(Optimizer):
    """Base of the built-in elementwise optimizers (everything but LBFGS and SparseAdam).

    Differences from PyTorch (all subclasses): `foreach=True` and `fused=True` are accepted and run the same
    (single-tensor) math, so results can differ from PyTorch's foreach/fused kernels by float rounding;
    `differentiable=True` is accepted but a step is not recorded by autograd (it raises NotImplementedError
    where PyTorch would record it); sparse gradients do not exist in torchshim.
    """

    _update = None
    _capturable_message = "params and state_steps"
    _capturable_devices = CAPTURABLE_DEVICES
    # PyTorch's `__setstate__` (old pickles and state_dicts): the (key, default) pairs it fills into each
    # param group, in its order, and the scalar-state entries it converts from Python numbers to tensors
    _group_defaults = ()
    _scalar_state_keys = ("step",)

    def _init_fused(self, fused, foreach, differentiable, device_check=False):
        """PyTorch's end of `__init__` for the optimizers with a fused implementation: the flag checks, then
        AMP grad scaling support (and a device/dtype check of the params at the first step with
        `device_check`)."""
        check_fused_flags(fused, foreach, differentiable)
        if fused:
            self._step_supports_amp_scaling = True
            if device_check:
                self._need_device_dtype_check_for_fused = True

    def __setstate__(self, state):
        """`__setstate__(state)` (unpickling, `load_state_dict`): `Optimizer.__setstate__`, then each group
        gets `_group_defaults` for missing keys and Python-number scalar state becomes tensors (PyTorch's)."""
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in self._group_defaults:
                group.setdefault(key, default)
            if self._scalar_state_keys:
                fused = group.get("fused")
                self._step_to_tensor(group, self._scalar_state_keys,
                                     fused if (group.get("capturable") or fused) else None)

    def _init_state(self, group, p, state):
        raise NotImplementedError

    def _state_keys(self, group):
        raise NotImplementedError

    def _hyper(self, group):
        raise NotImplementedError

    def _prepare(self, group, params):
        """Lazy state initialisation for the parameters that have a gradient."""
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                if group.get("fused"):
                    check_fused_device_dtype(p)
                self._init_state(group, p, state)

    def _check_group(self, group, params):
        if group.get("capturable"):
            for p in params:
                if p.device.type not in self._capturable_devices:
                    raise AssertionError(f"If capturable=True, {self._capturable_message} must be on "
                                         f"supported devices: {self._capturable_devices}.")
        if group.get("differentiable") and params:
            if _gm.is_grad_enabled() and any(p.requires_grad and p.is_leaf for p in params):
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation.")
            raise NotImplementedError(
                "torchshim: differentiable=True optimizer steps are not recorded by autograd")

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """`step(closure=None)`: one update of every parameter that has a `.grad`; returns the closure's
        loss."""
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with _gm.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._group_step(group)
        return loss

    def _group_step(self, group):
        params = [p for p in group["params"] if p.grad is not None]
        self._prepare(group, params)
        self._check_group(group, params)
        if not params:
            return
        keys = self._state_keys(group)
        state = {k: [_array(self.state[p].get(k)) for p in params] for k in keys}
        new_params, new_state = type(self)._update(
            [p._value for p in params], [p.grad._value for p in params], state, **self._hyper(group))
        for p, value in zip(params, new_params):
            p._write(value)
        for k, values in new_state.items():
            for p, value in zip(params, values):
                t = self.state[p].get(k)
                if t is None:
                    dtype = p._dtype if value.dtype == p._dtype.np else D.from_numpy_dtype(value.dtype)
                    self.state[p][k] = fresh(value, dtype, p.device)
                else:
                    t._write(value)

    def _step_to_tensor(self, group, keys=("step",), fused=None):
        """PyTorch's `__setstate__` conversion of Python-number 'step' (old checkpoints) to tensors."""
        for p in group["params"]:
            p_state = self.state.get(p, [])
            for key in keys:
                if len(p_state) != 0 and key in p_state and not isinstance(p_state[key], Tensor):
                    from .. import _api as torchshim
                    p_state[key] = torchshim.tensor(float(p_state[key]),
                                                    dtype=_get_scalar_dtype(is_fused=fused))
