"""The autograd methods of Tensor: `grad_fn`, `backward`, `register_hook`, `retain_grad`, `retains_grad`,
`register_post_accumulate_grad_hook`, and `_assign_from` (every write into a tensor). Registered in
`_methods.METHODS`; `ops/_registry.install()` attaches them with the op table's methods."""
import sys
import weakref

from .._hooks import HookDict, RemovableHandle
from .._methods import tensor_method
from .._warnings import user_stacklevel, warn_once
from ._inplace import assign
from ._node import gradient_edge, shown_grad_fn
from .engine_api import backward as _backward
from .grad_mode import _state

__all__ = []

_TO_SCALAR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")

# callers that stand for PyTorch's C++ (an op reading a scalar argument): no warning, as in PyTorch
_INTERNAL = ("torchshim.ops", "torchshim.autograd", "torchshim._")


def _warn_to_scalar(self):
    if self._requires_grad and _state.enabled \
            and not sys._getframe(2).f_globals.get("__name__", "").startswith(_INTERNAL):
        warn_once(_TO_SCALAR_WARNING, UserWarning, stacklevel=user_stacklevel())


@tensor_method()
def __float__(self):
    """`float(t)`: the value of a one-element tensor; PyTorch's UserWarning (once) when `t` requires grad and
    grad mode is on (`int(t)` and `t.item()` do not warn)."""
    _warn_to_scalar(self)
    self._check_scalar("float")
    return float(self.item().real if self._dtype.is_complex else self.item())


@tensor_method()
def __complex__(self):
    """`complex(t)`: as `float(t)`, warning the same way."""
    _warn_to_scalar(self)
    self._check_scalar("complex")
    return complex(self.item())


@tensor_method(prop=True)
def grad_fn(self):
    """The node that created this tensor (None for leaves). Reading it changes nothing: a view whose base was
    modified in place shows its regenerated history (`AsStridedBackward0`), which it takes when next used."""
    return shown_grad_fn(self)


@tensor_method()
def _assign_from(self, result, opname):
    """Write `result` (a Tensor, jax array or number) into self as in-place op `opname` (an in-place op,
    `out=`, `copy_`, `x[i] = v`), with autograd's checks and history; returns self."""
    return assign(self, result, opname)


@tensor_method()
def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """`Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`: accumulate the
    gradient of this tensor w.r.t. graph leaves into their `.grad` (see `torch.autograd.backward`)."""
    _backward(self, gradient, retain_graph, create_graph, inputs=inputs)


@tensor_method()
def register_hook(self, hook):
    """`Tensor.register_hook(hook)`: `hook(grad) -> Tensor or None` runs when this tensor's gradient is
    computed; a returned tensor replaces the gradient. Returns a removable handle."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is None:
        if self._hooks is None:
            self._hooks = HookDict()
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = hook
        return h
    fn, nr = gradient_edge(self)  # a view whose base was modified in place takes its new history first
    return fn._register_tensor_hook(nr, hook)


@tensor_method()
def retain_grad(self):
    """`Tensor.retain_grad()`: populate `.grad` of this non-leaf tensor during backward."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self._retains_grad:
        return
    fn, nr = gradient_edge(self)  # a view whose base was modified in place takes its new history first
    if fn._retain_hooks is None:
        fn._retain_hooks = HookDict()
    fn._retain_hooks[nr] = weakref.ref(self)
    self._retains_grad = True


@tensor_method(prop=True)
def retains_grad(self):
    return self._retains_grad


@tensor_method()
def register_post_accumulate_grad_hook(self, hook):
    """`hook(tensor)` runs after a leaf's `.grad` has been accumulated."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    d = self.__dict__.setdefault("_post_acc_hooks", HookDict())
    h = RemovableHandle(d)
    d[h.id] = hook
    return h

