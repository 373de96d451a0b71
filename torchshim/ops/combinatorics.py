"""Index and combination builders: `tril_indices`/`triu_indices`, `combinations`, `unravel_index`, `vander`,
`hsplit`/`vsplit`/`dsplit`, and the window
functions (`hann_window`, `hamming_window`, `blackman_window`, `bartlett_window`, `kaiser_window`)."""
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .._promotion import c_name, short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import fresh
from ._registry import installed, register

__all__ = ["tril_indices", "triu_indices", "combinations", "unravel_index", "vander", "hsplit", "vsplit",
           "dsplit", "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _need(name, x, pos, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _place(array, dtype, device, requires_grad=False):
    from .creation import tensor  # creation imports many op modules
    t = tensor(np.asarray(array), dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


# ---- tril_indices / triu_indices -------------------------------------------------------------------------
def _tri_indices(name, upper, row, col, offset, dtype, device):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = D.int64 if dtype is None else dtype
    if dtype not in (D.int64, D.int32):
        raise RuntimeError(f"\"{name}\" not implemented for '{short_name(dtype)}'")
    r, c = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return _place(np.stack([r, c]).astype(np.int64).reshape(2, -1), dtype, device)


@register("tril_indices", method=False, kind="creation")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """`torch.tril_indices(row, col, offset=0, *, dtype=torch.long, device=None, layout=torch.strided)`: the
    (2, N) coordinates of the lower triangle of a row x col matrix, row by row."""
    return _tri_indices("tril_indices", False, row, col, offset, dtype, device)


@register("triu_indices", method=False, kind="creation")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """`torch.triu_indices(row, col, offset=0, *, dtype=torch.long, device=None, layout=torch.strided)`: the
    (2, N) coordinates of the upper triangle of a row x col matrix, row by row."""
    return _tri_indices("triu_indices", True, row, col, offset, dtype, device)


# ---- combinations / unravel_index / vander ---------------------------------------------------------------
@register("combinations", method=False, kind="composite")
def combinations(input, r=2, with_replacement=False):
    """`torch.combinations(input, r=2, with_replacement=False)`: the length-r combinations of a 1-d tensor's
    elements, one per row (as itertools.combinations / combinations_with_replacement)."""
    _need("combinations", input, 1, "input")
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return installed("empty")(0, dtype=input._dtype, device=input.device)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(input._shape[0]), r)), dtype=np.int64).reshape(-1, r)
    cols = [installed("index_select")(input, 0, _place(idx[:, k], D.int64, input.device)) for k in range(r)]
    return installed("stack")(cols, 1)


@register("unravel_index", method=False, kind="creation")
def unravel_index(indices, shape):
    """`torch.unravel_index(indices, shape)`: the coordinates (a tuple of int64 tensors) of flat indices into
    a tensor of `shape`."""
    _need("unravel_index", indices, 1, "indices")
    if indices._dtype.is_floating_point or indices._dtype.is_complex or indices._dtype is D.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    a = indices._value.astype(jnp.int64)  # jnp, not numpy: runs under jax tracing too
    out = []  # PyTorch wraps out-of-range and negative indices per dim (floor modulo), no error
    for s in reversed(shape):
        out.append(a % s if s else a)
        a = a // s if s else a
    dev = indices._storage.device
    return tuple(fresh(jnp.asarray(c, np.int64), D.int64, dev) for c in reversed(out))


@P.kernel(static=("n", "increasing", "rdt"))
def _vander_k(x, n, increasing, rdt):
    p = jnp.arange(n)
    if not increasing:
        p = p[::-1]
    return (x.astype(rdt)[:, None] ** p.astype(rdt)) if n else jnp.zeros((x.shape[0], 0), rdt)


def _vander_name(args, kwargs):
    inc = args[2] if len(args) > 2 else kwargs.get("increasing", False)
    return "CopySlices" if inc else "FlipBackward0"


@register("vander", method=False, kind="linalg", grad_name=_vander_name)
def vander(x, N=None, increasing=False):
    """`torch.vander(x, N=None, increasing=False)`: the Vandermonde matrix of a 1-d x (N columns, default
    len(x)); powers decrease along a row unless increasing. Bool input gives int64."""
    _need("vander", x, 1, "x")
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    rdt = D.int64 if x._dtype is D.bool_ or not (x._dtype.is_floating_point or x._dtype.is_complex) and \
        x._dtype is not D.int64 else x._dtype
    return fresh(_vander_k(x._value, n=n, increasing=bool(increasing), rdt=rdt.np), rdt, x._storage.device)


# ---- hsplit / vsplit / dsplit and the unsafe splits ------------------------------------------------------
def _split_dims(name, input, sections, dim, need):
    if input.ndim < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(sections, int):
        size = input._shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
    return tuple(installed("tensor_split")(input, sections, dim))


@register("hsplit", method=True, kind="composite")
def hsplit(input, indices_or_sections):
    """`torch.hsplit(input, indices_or_sections)`: `tensor_split` along dim 1 (dim 0 for a 1-d tensor); an
    int must divide the size."""
    _need("hsplit", input, 1, "input")
    if input.ndim == 0:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with "
                           "0 dimensions!")
    return _split_dims("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


@register("vsplit", method=True, kind="composite")
def vsplit(input, indices_or_sections):
    """`torch.vsplit(input, indices_or_sections)`: `tensor_split` along dim 0 of a tensor of 2+ dims."""
    _need("vsplit", input, 1, "input")
    return _split_dims("vsplit", input, indices_or_sections, 0, 2)


@register("dsplit", method=True, kind="composite")
def dsplit(input, indices_or_sections):
    """`torch.dsplit(input, indices_or_sections)`: `tensor_split` along dim 2 of a tensor of 3+ dims."""
    _need("dsplit", input, 1, "input")
    return _split_dims("dsplit", input, indices_or_sections, 2, 3)


# ---- windows ---------------------------------------------------------------------------------------------
def _window(name, n, periodic, dtype, device, requires_grad, fn):
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    dtype = D.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={c_name(dtype)}, "
                           "device=cpu, layout=Strided (default), requires_grad=false (default), "
                           "pinned_memory=false, memory_format=(nullopt))")
    if n == 0:
        vals = jnp.zeros(0, dtype.np)
    elif n == 1:
        vals = jnp.ones(1, dtype.np)
    else:
        m = n + 1 if periodic else n
        vals = fn(_Steps(dtype.np), m)[:n]
    dev = Dev.canonical(device)
    t = fresh(jax.device_put(jnp.asarray(vals, dtype.np), Dev.to_jax(dev)), dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


class _Steps:
    """PyTorch's window arithmetic in the window's dtype: each step computed in float32 (float64 for double)
    and rounded to the dtype, as its half/bfloat16 CPU kernels do."""

    def __init__(self, dt):
        self.dt = dt
        self.ct = jnp.float64 if dt == jnp.float64 else jnp.float32

    def r(self, x):
        return jnp.asarray(x, self.ct).astype(self.dt)

    def arange(self, m):
        return jnp.arange(m).astype(self.dt)

    def mul(self, x, c):
        return self.r(x.astype(self.ct) * c)

    def add(self, x, c):  # add's Python scalar is read in the tensor's dtype first
        return self.r(x.astype(self.ct) + self.r(c).astype(self.ct))

    def cos(self, x):
        return self.r(jnp.cos(x.astype(self.ct)))

    def sub(self, x, y):
        return self.r(x.astype(self.ct) - y.astype(self.ct))


def _hamming(alpha, beta):
    def fn(s, m):
        return s.add(s.mul(s.cos(s.mul(s.arange(m), math.pi * 2.0 / (m - 1))), -beta), alpha)
    return fn


def _blackman(s, m):
    w = s.mul(s.arange(m), math.pi / (m - 1))
    return s.add(s.sub(s.mul(s.cos(s.mul(w, 4)), 0.08), s.mul(s.cos(s.mul(w, 2)), 0.5)), 0.42)


def _bartlett(s, m):
    w = s.mul(s.arange(m), 2.0 / (m - 1))
    half = ((m - 1) >> 1) + 1
    return jnp.concatenate([w[:half], s.add(s.mul(w[half:], -1), 2)])


def _kaiser(beta):
    def fn(s, m):
        k = np.arange(m, dtype=np.float64)
        alpha = (m - 1) / 2
        w = np.i0(beta * np.sqrt(np.clip(1 - ((k - alpha) / alpha) ** 2, 0, None))) / np.i0(beta)
        return s.r(w.astype(np.float32) if s.ct == jnp.float32 else w)
    return fn


@register("hann_window", method=False, kind="creation")
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`torch.hann_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, device=None,
    requires_grad=False)`: 0.5 - 0.5 cos(2 pi k / (N - 1)) (N = window_length + 1 when periodic, last point
    dropped)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _hamming(0.5, 0.5))


@register("hamming_window", method=False, kind="creation")
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, requires_grad=False):
    """`torch.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, ...)`:
    alpha - beta cos(2 pi k / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _hamming(alpha, beta))


@register("blackman_window", method=False, kind="creation")
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """`torch.blackman_window(window_length, periodic=True, *, dtype=None, ...)`."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman)


@register("bartlett_window", method=False, kind="creation")
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """`torch.bartlett_window(window_length, periodic=True, *, dtype=None, ...)`: the triangular window."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett)


@register("kaiser_window", method=False, kind="creation")
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """`torch.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, ...)`: I0(beta sqrt(1 -
    ((k - a) / a)^2)) / I0(beta), a = (N - 1) / 2."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, _kaiser(beta))
