"""torch.Generator over a jax PRNG key. Each draw splits the key, so the same seed gives the same numbers
within torchshim; the streams differ from PyTorch's (documented in docs/rng.md)."""
import time

import jax
import numpy as np

from . import _device as Dev
from . import _dtype as D
from ._tensor import fresh

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "draw", "make_key", "key_for"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val

# Set by torch.compile while it traces a program (compiler/_capture.py): `trace_draw(generator)` returns the
# draw's (raw key, draw number) as values of the program's inputs, so a compiled program draws from the
# generator's state at each call, as the eager code would.
trace_draw = None


class Generator:
    """`torch.Generator(device='cpu')`: `manual_seed`, `seed`, `initial_seed`, `get_state`, `set_state`.

    State is a uint8 tensor holding the seed and the number of draws (16 bytes)."""

    def __init__(self, device="cpu"):
        self.device = Dev.device(device)
        self._seed = _DEFAULT_SEED
        self._key = None
        self._count = 0

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > 0xFFFF_FFFF_FFFF_FFFF:
            raise ValueError("Overflow when unpacking long long")  # as PyTorch (a Python-side check)
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF
        self._key = None
        self._count = 0
        return self

    def seed(self):
        s = int(time.time_ns()) & 0xFFFF_FFFF_FFFF_FFFF
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def draw(self):
        """(raw key data, draw number) for one draw; the generator's state advances by one. Both are numpy
        values, so a jitted kernel takes them as ordinary arguments and builds its key with `make_key` (no
        eager jax op, no recompilation per draw)."""
        if trace_draw is not None:
            return trace_draw(self)
        self._count += 1
        return self.raw_key(), np.uint32(self._count & 0xFFFF_FFFF)

    def raw_key(self):
        """The threefry key data of the seed (uint32[2], numpy): [high word, low word], the key
        jax.random.key(seed) builds, for all 64-bit seeds."""
        if self._key is None:
            s = self._seed & 0xFFFF_FFFF_FFFF_FFFF
            self._key = np.array([s >> 32, s & 0xFFFF_FFFF], dtype=np.uint32)
        return self._key

    def next_key(self):
        """A fresh jax key for one draw (the generator's state advances by one)."""
        return make_key(*self.draw())

    def get_state(self):
        raw = np.array([self._seed, self._count], dtype=np.uint64).view(np.uint8)
        return fresh(jax.device_put(raw, Dev.to_jax(Dev.CPU)), D.uint8, Dev.CPU)

    def set_state(self, new_state):
        raw = np.asarray(new_state._value, dtype=np.uint8)
        if raw.size != 16:
            raise RuntimeError("Expected a torchshim generator state of 16 bytes (seed, draw count); got "
                               f"{raw.size} bytes")
        s, c = raw.view(np.uint64).tolist()
        self.manual_seed(s)
        self._count = c
        return self

    def graphsafe_get_state(self):
        return self.get_state()

    def __reduce__(self):
        raise TypeError("cannot pickle 'torch._C.Generator' object")


default_generator = Generator()


def manual_seed(seed):
    """`torch.manual_seed(seed)` -> the default Generator, reseeded."""
    return default_generator.manual_seed(seed)


def seed():
    """`torch.seed()`: reseed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """`torch.initial_seed()`."""
    return default_generator.initial_seed()


def get_rng_state():
    """`torch.get_rng_state()` -> uint8 tensor of the default generator's state."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """`torch.set_rng_state(new_state)`."""
    default_generator.set_state(new_state)


def make_key(raw, n):
    """The jax key of one draw from `draw()`'s (raw key data, draw number); usable inside jitted kernels."""
    return jax.random.fold_in(jax.random.wrap_key_data(raw, impl="threefry2x32"), n)


# Functions applied to every draw's (raw key data, draw number), innermost last: torch.func.vmap's randomness
# modes (raise in 'error' mode, fold the example index into the key in 'different' mode).
draw_hooks = []


def draw(generator=None):
    """`generator.draw()` (the default generator when None): the arguments of `make_key`."""
    r = (generator or default_generator).draw()
    if draw_hooks:
        for h in reversed(draw_hooks):
            r = h(r)
    return r


def key_for(generator):
    """The next key of `generator` (the default generator when None)."""
    return (generator or default_generator).next_key()

