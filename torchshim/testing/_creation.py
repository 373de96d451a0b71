"""`torch.testing.make_tensor`: a random tensor in PyTorch's value range per dtype."""
import collections.abc
import math
import warnings

from .. import _api as torch

_FLOATS = {torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.float8_e4m3fn,
           torch.float8_e5m2}
_COMPLEX = {torch.complex64, torch.complex128}
_INTS = {torch.uint8, torch.uint16, torch.uint32, torch.uint64, torch.int8, torch.int16, torch.int32,
         torch.int64}
_SUPPORTED = _FLOATS | _COMPLEX | _INTS | {torch.bool}
for _name in ("float8_e4m3fnuz", "float8_e5m2fnuz"):
    if hasattr(torch, _name):
        _FLOATS.add(getattr(torch, _name))
        _SUPPORTED.add(getattr(torch, _name))


def _bounds(low, high, default_low, default_high, lowest, highest, dtype):
    """PyTorch's checks and clamping of `low`/`high` for `dtype`, whose values lie in [lowest, highest)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATS | _COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low > highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} "
                         f"only supports [{lowest}, {highest})")
    return min(max(low, lowest), highest), min(max(high, lowest), highest)


def _uniform(t, lo, hi, largest):
    """`t` filled uniformly in [lo, hi), also when hi - lo overflows the dtype (halves, then doubled)."""
    if hi - lo >= largest:
        return t.uniform_(lo / 2, hi / 2).mul_(2)
    return t.uniform_(lo, hi)


def _shape(shape):
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        return tuple(shape[0])
    return shape


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """`torch.testing.make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
    noncontiguous=False, exclude_zero=False, memory_format=None)`.

    Values uniform in PyTorch's ranges: bool {False, True}; uint8 [0, 10); other integers [-9, 10);
    floating and complex (real and imaginary parts) [-9, 9). `low`/`high` replace the bounds (integers: `ceil`
    of each, `high` exclusive), clamped to the dtype's range; `exclude_zero` replaces zeros by 1 (integers),
    True (bool) or the dtype's smallest normal (floating/complex); `noncontiguous` gives a view with stride 2
    in the last dimension (more than one element); `memory_format` a copy in that format. The values are
    torchshim's own draws (seeded by torch.manual_seed), not the numbers PyTorch draws with that seed."""
    if dtype not in _SUPPORTED:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To "
                        f"request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but "
                         f"got noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and dtype not in _FLOATS | _COMPLEX:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    shape = _shape(shape)
    if dtype == torch.bool:
        _bounds(low, high, 0, 2, 0, 2, dtype)
        result = torch.randint(0, 2, shape, device=device, dtype=dtype)
    elif dtype in _INTS:
        info = torch.iinfo(dtype)
        lo, hi = _bounds(low, high, 0 if dtype == torch.uint8 else -9, 10, info.min, info.max + 1, dtype)
        result = torch.randint(math.ceil(lo), math.ceil(hi), shape, device=device, dtype=dtype)
    else:
        info = torch.finfo(dtype)
        lo, hi = _bounds(low, high, -9, 9, info.min, info.max, dtype)
        # float8 values are drawn in float32 and rounded; complex ones as two real parts
        real = {torch.complex64: torch.float32, torch.complex128: torch.float64}.get(dtype, dtype)
        draw = real if real.itemsize > 1 else torch.float32
        parts = [_uniform(torch.empty(shape, device=device, dtype=draw), lo, hi, info.max).to(real)
                 for _ in range(2 if dtype in _COMPLEX else 1)]
        result = torch.complex(*parts) if dtype in _COMPLEX else parts[0]
    if noncontiguous and result.numel() > 1:
        result = torch.repeat_interleave(result, 2, dim=-1)[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        fill = (True if dtype == torch.bool else 1 if dtype in _INTS else torch.finfo(dtype).tiny)
        result[result == 0] = fill
    if dtype in _FLOATS | _COMPLEX:
        result.requires_grad = requires_grad
    return result
