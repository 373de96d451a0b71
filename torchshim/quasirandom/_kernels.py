"""The integer kernels of `SobolEngine` (PyTorch's `_sobol_engine_draw`, `_sobol_engine_ff_`,
`_sobol_engine_scramble_`), on numpy int64 arrays: a point is a row of 30-bit integers; going from point k to
point k + 1 XORs in the direction numbers of bit `ctz(k + 1)` (Gray-code order, Antonov & Saleev)."""
import numpy as np

from .._promotion import short_name
from .._tensor import Tensor
from ._directions import MAXBIT

__all__ = ["as_int", "check_draw_dtype", "draw", "fast_forward", "matrix_rows", "scramble"]


def as_int(n, fn):
    """`n` as a Python int the way PyTorch's argument parser reads an `int n` (ints, NumPy integers,
    one-element integer tensors); anything else is PyTorch's TypeError."""
    if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)):
        return int(n)
    if isinstance(n, Tensor) and n.numel() == 1 and n.dtype.name.startswith(("int", "uint")):
        return int(n.item())
    name = "Tensor" if isinstance(n, Tensor) else type(n).__name__
    raise TypeError(f"{fn}(): argument 'n' (position 2) must be int, not {name}")


def check_draw_dtype(n, dimension, dtype):
    """PyTorch's checks of a draw of `n` points: the result's shape, then its dtype (float32 or float64)."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}, {dimension}]")
    if dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f"\"_sobol_engine_draw\" not implemented for '{short_name(dtype)}'")


def _bits(indices):
    """The direction number used by each step from point k to k + 1, for k in `indices`: ctz(k + 1)."""
    x = (indices + 1).astype(np.uint64)  # two's complement: a negative index (PyTorch allows them) works too
    low = x & (~x + np.uint64(1))
    if np.any(low == 0) or np.any(low >= np.uint64(1 << MAXBIT)):
        raise RuntimeError(f"SobolEngine: a Sobol' sequence has at most 2**{MAXBIT} points (MAXBIT = "
                           f"{MAXBIT}); this draw goes beyond them")
    return np.log2(low.astype(np.float64)).astype(np.int64)


def draw(quasi, n, state, start):
    """The next `n` points after point `start` (whose integers are `quasi`): ((n, d) int64, last point)."""
    if n == 0:
        return np.zeros((0, len(quasi)), dtype=np.int64), quasi
    steps = state[:, _bits(start + np.arange(n, dtype=np.int64))].T
    points = np.bitwise_xor.accumulate(steps, axis=0) ^ quasi
    return points, points[-1].copy()


def _gray_point(k, state):
    """The XOR of the direction numbers of the bits of gray(k) = k ^ (k >> 1): point k of the unscrambled,
    unshifted sequence (each row of `state` independently)."""
    g = k ^ (k >> 1)
    out = np.zeros(state.shape[0], dtype=np.int64)
    for j in range(MAXBIT):
        if (g >> j) & 1:
            out ^= state[:, j]
    return out


def fast_forward(quasi, n, state, start):
    """`quasi` (point `start`) moved on by `n` points (no move for n <= 0), in O(MAXBIT) steps: the XOR of the
    steps start..start+n-1 is gray-point(start + n) ^ gray-point(start)."""
    if n <= 0:
        return quasi
    _bits(np.array([start, start + n - 1], dtype=np.int64))  # the same range check as a draw
    return quasi ^ _gray_point(start + n, state) ^ _gray_point(start, state)


def matrix_rows(ltm):
    """The rows of binary matrices `ltm` (..., 30, 30) as 30-bit integers, column q at bit 29 - q."""
    weights = np.left_shift(np.int64(1), MAXBIT - 1 - np.arange(MAXBIT, dtype=np.int64))
    return (np.asarray(ltm, dtype=np.int64) * weights).sum(axis=-1)


def _parity(x):
    """The parity of each uint32 of `x` (x is overwritten)."""
    for s in (16, 8, 4, 2, 1):
        x ^= x >> np.uint32(s)
    return x & np.uint32(1)


def scramble(state, rows, chunk=512):
    """Matoušek's linear matrix scramble of the direction numbers: each dimension's 30-bit numbers (as bit
    vectors, most significant bit first) multiplied over GF(2) by a lower-triangular matrix with unit
    diagonal, as PyTorch's `_sobol_engine_scramble_`. `rows[d, p]` is row p of dimension d's matrix as a
    30-bit integer (`matrix_rows`); its bits above the diagonal are ignored, its diagonal bit taken as 1.
    Computed `chunk` dimensions at a time (the (chunk, 30, 30) intermediate stays small)."""
    p = np.arange(MAXBIT, dtype=np.int64)
    diagonal = np.left_shift(np.int64(1), MAXBIT - 1 - p)
    lower = np.left_shift(np.int64(1), p + 1) - 1 << (MAXBIT - 1 - p)  # columns 0..p of row p
    rows = ((np.asarray(rows, dtype=np.int64) & lower) | diagonal).astype(np.uint32)
    v = np.asarray(state, dtype=np.int64).astype(np.uint32)
    out = np.empty(v.shape, dtype=np.int64)
    for i in range(0, len(v), chunk):
        bits = _parity(rows[i:i + chunk, None, :] & v[i:i + chunk, :, None])  # (d, j, p): bit p of new v_j
        out[i:i + chunk] = (bits.astype(np.int64) * diagonal).sum(axis=-1)
    return out
