"""`torch._assert(condition, message)`: Python's `assert` that torch.fx can record (a Proxy condition goes to
its `__torch_function__`, ops/_override.py)."""
from ._override import overridable

__all__ = ["_assert"]


def _assert_impl(condition, message):
    """`torch._assert(condition, message)`: `assert condition, message`, symbolically traceable."""
    assert condition, message


_assert = overridable(_assert_impl)
_assert.__name__ = _assert.__qualname__ = "_assert"
