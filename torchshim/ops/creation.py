"""Creation functions: tensor, as_tensor, from_numpy, zeros/ones/full/empty (+ _like, new_*), arange, range,
linspace, logspace, eye. Random creation lives in `random.py`."""
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import register
from .views import shape_arg

__all__ = ["place", "finish", "infer_dtype"]


def place(array, device):
    """Put a numpy/jax array on the jax device of canonical torch `device`."""
    return jax.device_put(array, Dev.to_jax(device))


def finish(array, dtype, device, requires_grad=False):
    """Wrap a freshly created jax array (already of `dtype`) as a Tensor on `device`."""
    t = P.fresh(array, dtype, device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_sizes(name, shape):
    for s in shape:
        if s < 0:
            raise RuntimeError(f"{name}: Dimension size must be non-negative.")
    return shape


def infer_dtype(data):
    """The dtype `torch.tensor(data)` gives: bool, int64, the default float or default complex."""
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, np.ndarray):
        return D.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return D.from_numpy_dtype(data.dtype)
    kinds = set()
    _collect_kinds(data, kinds)
    if "c" in kinds:
        return D.default_complex()
    if "f" in kinds:
        return D.get_default_dtype()
    if "i" in kinds:
        return D.int64
    if "b" in kinds:
        return D.bool_
    return D.get_default_dtype()  # empty lists


def _collect_kinds(x, kinds):
    if isinstance(x, bool | np.bool_):
        kinds.add("b")
    elif isinstance(x, numbers.Integral):
        kinds.add("i")
    elif isinstance(x, numbers.Real):
        kinds.add("f")
    elif isinstance(x, numbers.Complex):
        kinds.add("c")
    elif isinstance(x, Tensor):
        d = x._dtype
        kinds.add("c" if d.is_complex else "f" if d.is_floating_point else "b" if d is D.bool_ else "i")
    elif isinstance(x, np.ndarray):
        kinds.add(x.dtype.kind if x.dtype.kind in "bfc" else "i")
    elif isinstance(x, (list, tuple)):
        for v in x:
            _collect_kinds(v, kinds)
    else:
        raise TypeError(f"Could not infer dtype of {type(x).__name__}")


def _check_ragged(x, dim=0, expected=None):
    """Raise PyTorch's ValueError for nested sequences of unequal lengths."""
    if not isinstance(x, (list, tuple)):
        return None
    lengths = {len(v) if isinstance(v, (list, tuple)) else None for v in x}
    if len(lengths) > 1:
        first = len(x[0]) if isinstance(x[0], (list, tuple)) else None
        for v in x:
            n = len(v) if isinstance(v, (list, tuple)) else None
            if n != first:
                if n is None or first is None:
                    raise TypeError(f"not a sequence")
                raise ValueError(f"expected sequence of length {first} at dim {dim + 1} (got {n})")
    for v in x:
        _check_ragged(v, dim + 1)
    return None


def _to_numpy(data, dtype):
    if isinstance(data, Tensor):
        return np.asarray(data._value).astype(dtype.np)
    if isinstance(data, (list, tuple)):
        _check_ragged(data)
        data = _scalarise(data)
    if dtype is D.bfloat16 or dtype.name.startswith("float8"):
        return np.asarray(np.asarray(data, dtype=np.float64), dtype=dtype.np)
    return np.asarray(data, dtype=dtype.np)


def _scalarise(x):
    if isinstance(x, Tensor):
        if x.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return x.item()
    if isinstance(x, (list, tuple)):
        return [_scalarise(v) for v in x]
    return x


@register("tensor", method=False, kind="creation")
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)`: always copies.

    dtype inference as PyTorch: bools -> bool, ints -> int64, floats -> default dtype, complex -> default
    complex; numpy arrays keep their dtype."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
                      "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    d = dtype if dtype is not None else infer_dtype(data)
    dev = Dev.canonical(device if device is not None or not isinstance(data, Tensor) else data.device)
    return finish(place(_to_numpy(data, d), dev), d, dev, requires_grad)


@register("as_tensor", method=False, kind="creation")
def as_tensor(data, dtype=None, device=None):
    """`torch.as_tensor(data, dtype=None, device=None)`: returns `data` itself when it is a Tensor of the right
    dtype and device. Difference: numpy arrays are copied (jax arrays are immutable)."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (device is not None or dtype is not None) else data
    d = dtype if dtype is not None else infer_dtype(data)
    dev = Dev.canonical(device)
    return finish(place(_to_numpy(data, d), dev), d, dev)


@register("asarray", method=False, kind="creation")
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """`torch.asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False)`."""
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy and t is obj:
        t = t.clone()
    if requires_grad:
        t.requires_grad_(True)
    return t


@register("from_numpy", method=False, kind="creation")
def from_numpy(ndarray):
    """`torch.from_numpy(ndarray)`. Difference: the tensor holds a copy; later writes to the numpy array are
    not seen (jax arrays are immutable)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    d = D.from_numpy_dtype(ndarray.dtype)
    return finish(place(np.array(ndarray), Dev.CPU), d, Dev.CPU)


@register("scalar_tensor", method=False, kind="creation")
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """`torch.scalar_tensor(s, *, dtype=None, device=None)`: a 0-dim tensor (default float dtype)."""
    d = dtype or D.get_default_dtype()
    dev = Dev.canonical(device)
    return finish(place(np.asarray(s, dtype=d.np), dev), d, dev, requires_grad)


def _filled(name, size, value, dtype, device, requires_grad):
    shape = _check_sizes(name, shape_arg(size, name))
    d = dtype or D.get_default_dtype()
    dev = Dev.canonical(device)
    with jax.default_device(Dev.to_jax(dev)):
        arr = jnp.full(shape, value, d.np)
    return finish(arr, d, dev, requires_grad)


def _factory(name, value):
    def f(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None, names=None):
        return _filled(name, size, value, dtype, device, requires_grad)
    f.__name__ = name
    f.__doc__ = (f"`torch.{name}(*size, *, out=None, dtype=None, layout=torch.strided, device=None, "
                 f"requires_grad=False)`; size as varargs or one sequence."
                 + (" Difference: memory is zero-filled, not uninitialised." if name == "empty" else ""))
    return f


zeros = register("zeros", method=False, out=True, kind="creation")(_factory("zeros", 0))
ones = register("ones", method=False, out=True, kind="creation")(_factory("ones", 1))
empty = register("empty", method=False, out=True, kind="creation")(_factory("empty", 0))


def _fill_dtype(fill_value):
    if isinstance(fill_value, Tensor):
        return fill_value._dtype
    if isinstance(fill_value, bool):
        return D.bool_
    if isinstance(fill_value, numbers.Integral):
        return D.int64
    if isinstance(fill_value, numbers.Real):
        return D.get_default_dtype()
    return D.default_complex()


@register("full", method=False, out=True, kind="creation")
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.full(size, fill_value, *, out=None, dtype=None, ...)`: dtype inferred from fill_value."""
    v = fill_value._value if isinstance(fill_value, Tensor) else fill_value
    return _filled("full", size, v, dtype or _fill_dtype(fill_value), device, requires_grad)


@register("empty_strided", method=False, kind="creation")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.empty_strided(size, stride, ...)`: zero-filled storage viewed with the given strides."""
    size, stride = tuple(size), tuple(stride)
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = _filled("empty_strided", (n,), 0, dtype, device, requires_grad)
    return base._as_view(size, stride, 0) if size != (n,) else base


def _like(name, value):
    def f(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
        return _filled(name, input._shape, value, dtype or input._dtype,
                       device if device is not None else input._storage.device, requires_grad)
    f.__name__ = name
    f.__doc__ = (f"`torch.{name}(input, *, dtype=None, layout=None, device=None, requires_grad=False, "
                 "memory_format=torch.preserve_format)`: shape, dtype and device of input.")
    return f


register("zeros_like", method=False, kind="creation")(_like("zeros_like", 0))
register("ones_like", method=False, kind="creation")(_like("ones_like", 1))
register("empty_like", method=False, kind="creation")(_like("empty_like", 0))


@register("full_like", method=False, kind="creation")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """`torch.full_like(input, fill_value, *, dtype=None, ...)`: shape, dtype and device of input."""
    return _filled("full_like", input._shape, fill_value, dtype or input._dtype,
                   device if device is not None else input._storage.device, requires_grad)


def _new(name, value):
    def f(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return _filled(name, size, value, dtype or self._dtype,
                       device if device is not None else self._storage.device, requires_grad)
    f.__name__ = name
    f.__doc__ = (f"`Tensor.{name}(size, *, dtype=None, device=None, requires_grad=False)`: dtype and device "
                 "default to self's.")
    return f


register("new_zeros", function=False, kind="creation")(_new("new_zeros", 0))
register("new_ones", function=False, kind="creation")(_new("new_ones", 1))
register("new_empty", function=False, kind="creation")(_new("new_empty", 0))


@register("new_full", function=False, kind="creation")
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    """`Tensor.new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False)`."""
    return _filled("new_full", size, fill_value, dtype or self._dtype,
                   device if device is not None else self._storage.device, requires_grad)


@register("new_tensor", function=False, kind="creation")
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """`Tensor.new_tensor(data, *, dtype=None, device=None, requires_grad=False)`: dtype/device of self."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
                      "sourceTensor.clone().detach().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    return tensor(data, dtype=dtype or self._dtype,
                  device=device if device is not None else self._storage.device, requires_grad=requires_grad)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _range_dtype(*vals):
    if any(isinstance(v, float) or (isinstance(v, Tensor) and v._dtype.is_floating_point) for v in vals):
        return D.get_default_dtype()
    return D.int64


@register("arange", method=False, out=True, kind="creation")
def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`torch.arange(start=0, end, step=1, *, out=None, dtype=None, device=None, requires_grad=False)`.

    int64 when start, end and step are integers, else the default float dtype; values start + i * step."""
    if end is None:
        start, end = 0, start
    d = dtype or _range_dtype(start, end, step)
    start, end, step = _num(start), _num(end), _num(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    for v in (start, end):
        if isinstance(v, float) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if d.is_floating_point or d.is_complex:
        n = int(math.ceil((end - start) / step))
        vals = start + np.arange(n, dtype=np.float64) * step
    else:
        n = int(math.ceil((end - start) / step)) if isinstance(start + end + step, float) else \
            -(-(end - start) // step)
        vals = start + np.arange(n, dtype=np.int64) * int(step) if not isinstance(step, float) else \
            np.floor(start + np.arange(n) * step)
    dev = Dev.canonical(device)
    return finish(place(vals.astype(d.np), dev), d, dev, requires_grad)


@register("range", method=False, out=True, kind="creation")
def range_(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`torch.range(start=0, end, step=1, ...)`: deprecated; includes `end`; default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    d = dtype or D.get_default_dtype()
    start, end, step = _num(start), _num(end), _num(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    vals = start + np.arange(n, dtype=np.float64) * step
    dev = Dev.canonical(device)
    return finish(place(vals.astype(d.np), dev), d, dev, requires_grad)


def _linspace_values(start, end, steps, np_dtype):
    if steps == 1:
        return np.asarray([start], dtype=np_dtype)
    acc = np.float64 if np.dtype(np_dtype).kind in "iub" else np_dtype
    step = (np.asarray(end, acc) - np.asarray(start, acc)) / np.asarray(steps - 1, acc)
    idx = np.arange(steps)
    half = steps // 2
    lo = np.asarray(start, acc) + step * idx.astype(acc)
    hi = np.asarray(end, acc) - step * (steps - idx - 1).astype(acc)
    return np.where(idx < half, lo, hi)


@register("linspace", method=False, out=True, kind="creation")
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`torch.linspace(start, end, steps, *, out=None, dtype=None, ...)`: PyTorch's symmetric formula."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or (D.default_complex() if isinstance(_num(start), complex) or isinstance(_num(end), complex)
                  else D.get_default_dtype())
    vals = _linspace_values(_num(start), _num(end), steps, d.np if d.is_floating_point or d.is_complex
                            else np.float64) if steps else np.zeros((0,))
    if not (d.is_floating_point or d.is_complex):
        vals = np.trunc(vals)
    dev = Dev.canonical(device)
    return finish(place(np.asarray(vals).astype(d.np), dev), d, dev, requires_grad)


@register("logspace", method=False, out=True, kind="creation")
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`torch.logspace(start, end, steps, base=10.0, *, out=None, dtype=None, ...)` -> base ** linspace."""
    d = dtype or D.get_default_dtype()
    acc = d.np if d.is_floating_point else np.float64
    exps = _linspace_values(_num(start), _num(end), steps, acc) if steps else np.zeros((0,), acc)
    vals = np.power(np.asarray(base, acc), exps)
    dev = Dev.canonical(device)
    return finish(place(vals.astype(d.np), dev), d, dev, requires_grad)


@register("eye", method=False, out=True, kind="creation")
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.eye(n, m=None, *, out=None, dtype=None, device=None, requires_grad=False)`."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else m
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = dtype or D.get_default_dtype()
    dev = Dev.canonical(device)
    return finish(place(np.eye(n, m, dtype=d.np), dev), d, dev, requires_grad)


@register("complex", method=False, out=True, kind="creation")
def complex_(real, imag):
    """`torch.complex(real, imag, *, out=None)`: float32 -> complex64, float64 -> complex128."""
    if real._dtype is not imag._dtype:
        raise RuntimeError(f"Expected object of scalar type {real._dtype} but got scalar type {imag._dtype} for "
                           "second argument")
    if real._dtype not in (D.float32, D.float64, D.float16):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real._dtype} and {imag._dtype}")
    d = D.complex128 if real._dtype is D.float64 else D.complex64
    out = jax.lax.complex(real._value.astype(d.to_real().np), imag._value.astype(d.to_real().np))
    return P.fresh(out, d, P.check_devices((real, imag)))
