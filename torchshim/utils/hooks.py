"""`torch.utils.hooks.RemovableHandle`: what every `register_*hook` returns."""
import itertools
import weakref

__all__ = ["RemovableHandle", "HookDict"]

_ids = itertools.count()


class HookDict(dict):
    """A dict of hooks that a RemovableHandle can refer to weakly (plain dicts can't be weakly referenced)."""

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """A handle that removes one hook from its dict: `handle.remove()`, or use it as a context manager."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
