"""`torch.autograd.graph`: `Node`, `saved_tensors_hooks`, `save_on_cpu` (a no-op mover here: tensors are on
the CPU already), `disable_saved_tensors_hooks`, `allow_mutation_on_saved_tensors`, `increment_version`,
`GradientEdge` / `get_gradient_edge`."""
from typing import NamedTuple

from ._node import Node, _saved_state, gradient_edge

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "increment_version", "GradientEdge", "get_gradient_edge"]


class saved_tensors_hooks:
    """`saved_tensors_hooks(pack_hook, unpack_hook)`: tensors saved for backward inside the context are stored
    as `pack_hook(tensor)` and restored with `unpack_hook(packed)` at backward."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        stack = getattr(_saved_state, "stack", None)
        if stack is None:
            stack = _saved_state.stack = []
        if getattr(_saved_state, "disabled", None):
            raise RuntimeError(_saved_state.disabled)
        stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _saved_state.stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """`save_on_cpu(pin_memory=False, device_type='cuda')`: saved tensors are moved to the CPU and back."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.device, t.cpu())

        def unpack(packed):
            device, t = packed
            return t.to(device)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """`disable_saved_tensors_hooks(error_message)`: entering saved_tensors_hooks inside raises
    error_message."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _saved_state.stack:
            raise RuntimeError(self.error_message)
        self.prev = getattr(_saved_state, "disabled", None)
        _saved_state.disabled = self.error_message

    def __exit__(self, *exc):
        _saved_state.disabled = self.prev
        return False


class allow_mutation_on_saved_tensors:
    """`allow_mutation_on_saved_tensors()`: inside, tensors saved for backward may be modified in place; the
    backward uses their values at save time (jax arrays are immutable: nothing is cloned). Backward of such a
    graph outside the context raises PyTorch's AssertionError."""

    closed = False

    def __enter__(self):
        if _saved_state.mutation is not None:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _saved_state.mutation = self
        return self

    def __exit__(self, *exc):
        _saved_state.mutation = None
        self.closed = True
        return False


def increment_version(tensor):
    """`increment_version(tensor)`: bump the version counter of `tensor` (or of each tensor of an iterable),
    as an in-place write would."""
    tensors = tensor if isinstance(tensor, (list, tuple)) else (tensor,)
    for t in tensors:
        t._vc.value += 1


class GradientEdge(NamedTuple):
    """`GradientEdge(node, output_nr)`: one input of `node`; usable as `inputs=` of autograd.grad/backward."""
    node: Node
    output_nr: int


def get_gradient_edge(tensor):
    """`get_gradient_edge(tensor)`: the edge gradients for `tensor` flow into (its grad_fn and output number,
    or its AccumulateGrad)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    e = gradient_edge(tensor)
    return GradientEdge(e[0], e[1])
