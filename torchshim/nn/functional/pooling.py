"""torch.nn.functional pooling wrappers over the op table (torchshim/ops/nn_pooling.py): the `return_indices`
dispatch of max_pool*/adaptive_max_pool*, `stride=None`, max_unpool1d/2d/3d with PyTorch's output-size
checks, lp_pool1d/2d/3d (PyTorch's composition of avg_pool, sign, relu and pow) and fractional_max_pool2d/3d
(which draw their window offsets with torchshim's generator unless `_random_samples` is given)."""

from ...ops.nn_conv import int_list
from .conv import aten

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "fractional_max_pool2d",
    "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices",
]

_mp = {n: aten(f"max_pool{n}d") for n in (1, 2, 3)}
_mpi = {n: aten(f"max_pool{n}d_with_indices") for n in (1, 2, 3)}
_amp = {n: aten(f"adaptive_max_pool{n}d") for n in (1, 2, 3)}
_unpool = {2: aten("max_unpool2d"), 3: aten("max_unpool3d")}
_frac = {2: aten("fractional_max_pool2d"), 3: aten("fractional_max_pool3d")}


def _stride(stride):
    return () if stride is None else stride


def _max_pool(n):
    def with_indices(
        input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
    ):
        return _mpi[n](input, kernel_size, _stride(stride), padding, dilation, ceil_mode)

    def pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        if return_indices:
            return with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
        return _mp[n](input, kernel_size, _stride(stride), padding, dilation, ceil_mode)

    for f, name in ((pool, f"max_pool{n}d"), (with_indices, f"max_pool{n}d_with_indices")):
        f.__name__ = f.__qualname__ = name
        f.__doc__ = (
            f"`F.{name}(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, "
            "return_indices=False)`" + (" -> (output, indices)" if "with" in name else "")
        )
    return pool, with_indices


max_pool1d, max_pool1d_with_indices = _max_pool(1)
max_pool2d, max_pool2d_with_indices = _max_pool(2)
max_pool3d, max_pool3d_with_indices = _max_pool(3)


def _adaptive_max(n):
    def with_indices(input, output_size, return_indices=False):
        if n > 1 and isinstance(output_size, (list, tuple)):
            output_size = tuple(input.shape[-n + i] if v is None else v for i, v in enumerate(output_size))
        return _amp[n](input, output_size)

    def pool(input, output_size, return_indices=False):
        r = with_indices(input, output_size)
        return r if return_indices else r[0]

    for f, name in ((pool, f"adaptive_max_pool{n}d"), (with_indices, f"adaptive_max_pool{n}d_with_indices")):
        f.__name__ = f.__qualname__ = name
        f.__doc__ = f"`F.{name}(input, output_size, return_indices=False)`"
    return pool, with_indices


adaptive_max_pool1d, adaptive_max_pool1d_with_indices = _adaptive_max(1)
adaptive_max_pool2d, adaptive_max_pool2d_with_indices = _adaptive_max(2)
adaptive_max_pool3d, adaptive_max_pool3d_with_indices = _adaptive_max(3)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default
    else:
        output_size = list(output_size)
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(
                f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                f"length of '{len(output_size)}'"
            )
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(
                    f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})'
                )
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                f"output_size[{d}]={ret[d]}"
            )
    return ret


def _ntuple(x, n):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`F.max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None)`."""
    k = _ntuple(kernel_size, 1)
    s = _ntuple(stride, 1) if stride is not None else k
    p = _ntuple(padding, 1)
    size = list(_unpool_output_size(input, k, s, p, output_size)) + [1]
    return _unpool[2](input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`F.max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None)`: the partial
    inverse of max_pool2d (zeros except at `indices`)."""
    k = _ntuple(kernel_size, 2)
    s = _ntuple(stride, 2) if stride is not None else k
    p = _ntuple(padding, 2)
    return _unpool[2](input, indices, _unpool_output_size(input, k, s, p, output_size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`F.max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None)`."""
    k = _ntuple(kernel_size, 3)
    s = _ntuple(stride, 3) if stride is not None else k
    p = _ntuple(padding, 3)
    return _unpool[3](input, indices, _unpool_output_size(input, k, s, p, output_size), s, p)


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    from ... import _api as T
    from . import avg_pool1d, avg_pool2d, avg_pool3d

    avg = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[n]
    mp = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[n]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return mp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -mp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    k = 1
    for v in int_list(kernel_size, n) if n > 1 else (kernel_size,):
        k *= v
    relu = getattr(T, "relu", None) or (lambda t: t.clamp_min(0))
    return (T.sign(out) * relu(T.abs(out))).mul(k).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """`F.lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False)`: (sum x^p)^(1/p) per
    window."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """`F.lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False)`."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """`F.lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False)`."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def _fractional(n, input, kernel_size, output_size, output_ratio, _random_samples):
    from ... import _api as T

    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:  # PyTorch takes len() of it: a float raises TypeError
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _ntuple(output_ratio, n)
        output_size = [int(input.size(-n + i) * ratio[i]) for i in range(n)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = T.rand(n_batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    return _frac[n](input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """`F.fractional_max_pool2d_with_indices(...)` -> (output, indices). The window offsets are drawn with
    torchshim's generator (not PyTorch's stream) unless `_random_samples` is given."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """`F.fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)`."""
    r = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, False, _random_samples
    )
    return r if return_indices else r[0]


def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """`F.fractional_max_pool3d_with_indices(...)` -> (output, indices)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """`F.fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)`."""
    r = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, False, _random_samples
    )
    return r if return_indices else r[0]
