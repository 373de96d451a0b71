"""`torch.utils.hooks.RemovableHandle`: what every `register_*hook` returns.

A base module (imports nothing of torchshim) so that the tape can hand out handles; `torchshim.utils.hooks`
re-exports it under PyTorch's module path."""
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "HookDict"]


class HookDict(dict):
    """A dict of hooks that a RemovableHandle can refer to weakly (plain dicts can't be weakly referenced)."""

    __module__ = "torchshim.utils.hooks"

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """A handle that removes one hook from its dict: `handle.remove()`, or use it as a context manager."""

    __module__ = "torchshim.utils.hooks"  # where PyTorch defines it (pickles name this path)

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = tuple(weakref.ref(d) for d in (
            extra_dict if isinstance(extra_dict, list) else [extra_dict] if extra_dict is not None else []))

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None:
            d.pop(self.id, None)
        for ref in self.extra_dict_ref:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = () if len(state) < 3 or state[2] is None else state[2]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
