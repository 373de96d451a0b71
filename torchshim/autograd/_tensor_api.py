"""The autograd methods of Tensor: `backward`, `register_hook`, `retain_grad`, `retains_grad`,
`register_post_accumulate_grad_hook` (attached to Tensor at import, like the op table's methods)."""
import weakref

from .._tensor import Tensor
from ..utils.hooks import HookDict, RemovableHandle
from . import _node as N

__all__ = []


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """`Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`: accumulate the
    gradient of this tensor w.r.t. graph leaves into their `.grad` (see `torch.autograd.backward`)."""
    from .engine_api import backward as _backward
    _backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self, hook):
    """`Tensor.register_hook(hook)`: `hook(grad) -> Tensor or None` runs when this tensor's gradient is
    computed; a returned tensor replaces the gradient. Returns a removable handle."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = self.grad_fn
    if fn is None:
        if self._hooks is None:
            self._hooks = HookDict()
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = hook
        return h
    return fn._register_tensor_hook(self._output_nr, hook)


def retain_grad(self):
    """`Tensor.retain_grad()`: populate `.grad` of this non-leaf tensor during backward."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self._retains_grad:
        return
    fn = self.grad_fn
    if fn._retain_hooks is None:
        fn._retain_hooks = HookDict()
    fn._retain_hooks[self._output_nr] = weakref.ref(self)
    self._retains_grad = True


def retains_grad(self):
    return self._retains_grad


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


Tensor.backward = backward
Tensor.register_hook = register_hook
Tensor.retain_grad = retain_grad
Tensor.retains_grad = property(retains_grad)
Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
_ = N
