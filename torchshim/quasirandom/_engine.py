"""`torch.quasirandom.SobolEngine`: (scrambled) Sobol' sequences in up to 21201 dimensions."""
import numpy as np

from .. import _api as torch
from . import _kernels as K
from ._directions import MAXBIT, MAXDIM, table

__all__ = ["SobolEngine"]


class SobolEngine:
    """`torch.quasirandom.SobolEngine(dimension, scramble=False, seed=None)`: draws points of a Sobol'
    low-discrepancy sequence in [0, 1)^dimension, with Joe & Kuo's direction numbers (criterion D(6), up to
    21201 dimensions) as PyTorch: unscrambled draws equal PyTorch's exactly.

    scramble=True applies, as PyTorch, a random linear matrix scramble of the direction numbers (a random
    lower-triangular binary matrix per dimension) and a random digital shift, drawn with `torch.randint` from
    a `torch.Generator` seeded with `seed` (the default generator when seed is None). Difference from PyTorch:
    torchshim's random streams are not PyTorch's, so scrambled points differ from PyTorch's for the same seed;
    they are deterministic for a given seed and have the same distribution (docs/differences.md).

    Attributes as PyTorch: `sobolstate` ((dimension, 30) int64 direction numbers), `shift`, `quasi` (the
    current point as 30-bit integers), `num_generated`, `dimension`, `scramble`, `seed`, `MAXBIT`, `MAXDIM`.
    The points carry no gradient. A sequence has 2**30 points; going past them raises RuntimeError (PyTorch
    reads past its tables there).
    """

    MAXBIT = MAXBIT
    MAXDIM = MAXDIM

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        cpu = torch.device("cpu")
        self.sobolstate = torch.zeros(dimension, self.MAXBIT, device=cpu, dtype=torch.long)
        self.sobolstate.copy_(torch.from_numpy(table(int(dimension))))
        if self.scramble:
            self._scramble()
        else:
            self.shift = torch.zeros(self.dimension, device=cpu, dtype=torch.long)
        self.quasi = self.shift.clone(memory_format=torch.contiguous_format)
        # point 0 is the shift itself, in the default dtype of construction time (then cast), as PyTorch
        self._first_point = (self.quasi / 2 ** self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scramble(self):
        g = None
        if self.seed is not None:
            g = torch.Generator()
            g.manual_seed(self.seed)
        cpu = torch.device("cpu")
        shift_bits = torch.randint(2, (self.dimension, self.MAXBIT), device=cpu, generator=g)
        self.shift = torch.mv(shift_bits, torch.pow(2, torch.arange(0, self.MAXBIT, device=cpu)))
        # the random lower-triangular matrices, one row of each as the bits of one integer (PyTorch draws a
        # (dimension, 30, 30) tensor of bits and keeps its lower triangle: the same distribution)
        rows = torch.randint(0, 2 ** self.MAXBIT, (self.dimension, self.MAXBIT), device=cpu, generator=g)
        self.sobolstate.copy_(torch.from_numpy(K.scramble(self.sobolstate.numpy(), rows.numpy())))

    def _points(self, n, start, dtype):
        """The next `n` points after point `start` as a (n, dimension) tensor of `dtype`; `quasi` becomes the
        last one (a new tensor)."""
        n = K.as_int(n, "_sobol_engine_draw")
        K.check_draw_dtype(n, self.dimension, dtype)
        ints, last = K.draw(self.quasi.numpy(), n, self.sobolstate.numpy(), start)
        values = (ints.astype(np.float64) * 2.0 ** -self.MAXBIT).astype(np.dtype(dtype.name))
        self.quasi = torch.from_numpy(last.copy())
        return torch.from_numpy(values)

    def draw(self, n=1, out=None, dtype=None):
        """`draw(n=1, out=None, dtype=None)`: the next `n` points, a (n, dimension) tensor of `dtype`
        (default: the default dtype; float32 or float64 only, as PyTorch, except for the very first point
        alone). `out` is resized to the result and filled."""
        if dtype is None:
            dtype = torch.get_default_dtype()
        if self.num_generated == 0:
            if n == 1:
                result = self._first_point.to(dtype)
            else:
                rest = self._points(n - 1, 0, dtype)
                result = torch.cat((self._first_point.to(dtype), rest), dim=-2)
        else:
            result = self._points(n, self.num_generated - 1, dtype)
        self.num_generated += n
        if out is None:
            return result
        out.resize_as_(result).copy_(result)
        return out

    def draw_base2(self, m, out=None, dtype=None):
        """`draw_base2(m, out=None, dtype=None)`: the next 2**m points; ValueError unless the total drawn
        stays a power of 2 (the balance properties of Sobol' points)."""
        n = 2 ** m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError("The balance properties of Sobol' points require n to be a power of 2. "
                             f"{self.num_generated} points have been previously generated, then: "
                             f"n={self.num_generated}+2**{m}={total_n}. If you still want to do this, please "
                             "use 'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """`reset()`: back to the first point; returns self."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """`fast_forward(n)`: skip `n` points, as drawing them would; returns self."""
        first = self.num_generated == 0
        steps = K.as_int(n, "_sobol_engine_ff_") - (1 if first else 0)
        start = self.num_generated if first else self.num_generated - 1
        moved = K.fast_forward(self.quasi.numpy(), steps, self.sobolstate.numpy(), start)
        self.quasi.copy_(torch.from_numpy(moved))
        self.num_generated += n
        return self

    def __repr__(self):
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
