"""`Module.apply` and the conversions, ported from PyTorch 2.13's module.py and attached to `Module` in
module.py: `_apply` (parameters updated in place through `param.data`, gradients too; buffers replaced),
`to` (PyTorch's overloads, floating/complex tensors only change dtype), `cuda`, `cpu`, `type`, `float`,
`double`, `half`, `bfloat16`, `to_empty`, `share_memory`."""
import warnings

from ... import _device as Dev
from ... import _dtype as D
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad


def _parse_to(*args, **kwargs):
    """`torch._C._nn._parse_to`: (device, dtype, non_blocking, memory_format) from `to(...)`'s overloads
    `to(device=None, dtype=None, non_blocking=False)`, `to(dtype, non_blocking=False)`,
    `to(tensor, non_blocking=False)`."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError("to() received an invalid combination of arguments - got an unexpected keyword "
                        f"argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], D.dtype):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, Dev.device, int))) \
            and not isinstance(rest[0], bool):
        device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], D.dtype)):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        rest.pop(0)  # copy
    if rest:
        raise TypeError("to() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)})")
    if device is not None:
        device = Dev.device(device)
    return device, dtype, non_blocking, memory_format


def _apply(self, fn, recurse=True):
    """Apply `fn` to every parameter (in place, through `.data`, keeping the Parameter objects), its
    gradient, and every buffer (replaced), recursively."""
    if recurse:
        for module in self.children():
            module._apply(fn)
    for param in self._parameters.values():
        if param is None:
            continue
        with no_grad():
            param_applied = fn(param)
        param_grad = param._grad
        param.data = param_applied
        if param_grad is not None:
            with no_grad():
                grad_applied = fn(param_grad)
            param._grad.data = grad_applied
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self

def apply(self, fn):
    """`apply(fn)`: call `fn(module)` on every submodule (children first) and self; returns self."""
    for module in self.children():
        module.apply(fn)
    fn(self)
    return self

def cuda(self, device=None):
    """Move parameters and buffers to a cuda device (a jax GPU)."""
    return self._apply(lambda t: t.cuda(device))

def cpu(self):
    """Move parameters and buffers to the CPU."""
    return self._apply(lambda t: t.cpu())

def type(self, dst_type):
    """Cast all parameters and buffers to `dst_type` (a dtype or legacy type name)."""
    return self._apply(lambda t: t.type(dst_type))

def float(self):
    """Cast floating-point parameters and buffers to float32."""
    return self._apply(lambda t: t.float() if t.is_floating_point() else t)

def double(self):
    """Cast floating-point parameters and buffers to float64."""
    return self._apply(lambda t: t.double() if t.is_floating_point() else t)

def half(self):
    """Cast floating-point parameters and buffers to float16."""
    return self._apply(lambda t: t.half() if t.is_floating_point() else t)

def bfloat16(self):
    """Cast floating-point parameters and buffers to bfloat16."""
    return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

def to_empty(self, *, device, recurse=True):
    """Move parameters and buffers to `device` without copying their values (uninitialised: zeros
    here)."""
    from ..._api import empty_like
    return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

def to(self, *args, **kwargs):
    """`to(device=None, dtype=None, non_blocking=False)`, `to(dtype, non_blocking=False)`,
    `to(tensor, non_blocking=False)`: move/cast parameters and buffers in place (only floating and complex
    tensors change dtype); returns self. `non_blocking` and `memory_format` are accepted and ignored."""
    device, dtype, non_blocking, convert_to_format = _parse_to(*args, **kwargs)
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            "desired "
                            f"dtype={dtype}")
        if dtype.is_complex:
            warnings.warn(
                "Complex modules are a new feature under active development whose design may change, "
                "and some "
                "modules might not work as expected when using complex tensors as parameters or "
                "buffers. Please "
                "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                "if a "
                "complex module does not work as expected.", stacklevel=2)

    def convert(t):
        return t.to(device=device, dtype=dtype if t.is_floating_point() or t.is_complex() else None,
                    non_blocking=non_blocking)
    return self._apply(convert)

def share_memory(self):
    """`share_memory()`: a no-op apart from the checks (jax arrays are not process-shared)."""
    return self._apply(lambda t: t.share_memory_())
