"""`torch._C`: the few names of PyTorch's extension module that Python code uses directly (the
`__torch_function__` switches); torchshim has no C extension."""
from .autograd.engine_flags import (  # noqa: F401
    is_grad_layout_enforcement_enabled as _is_grad_layout_enforcement_enabled)
from .ops._override import STATE as _STATE
from .ops._subclass import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F401
from .ops._subclass import disabled_torch_function_impl as _disabled_torch_function_impl  # noqa: F401
from .overrides import has_torch_function as _has_torch_function  # noqa: F401
from .overrides import has_torch_function_unary as _has_torch_function_unary  # noqa: F401
from .overrides import has_torch_function_variadic as _has_torch_function_variadic  # noqa: F401

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass"]


def _is_torch_function_enabled():
    """Whether arguments' `__torch_function__` are called (not inside DisableTorchFunction[Subclass])."""
    return not (_STATE.all_disabled or _STATE.subclass_disabled)


def _is_torch_function_all_disabled():
    return _STATE.all_disabled
