"""`torch.autograd.graph`: `Node`, `saved_tensors_hooks`, `save_on_cpu` (a no-op mover here)."""
from ._node import Node, _saved_state

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


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
        self.prev = getattr(_saved_state, "disabled", None)
        _saved_state.disabled = self.error_message

    def __exit__(self, *exc):
        _saved_state.disabled = self.prev
        return False
