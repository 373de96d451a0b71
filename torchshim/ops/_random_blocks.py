"""Random draws without one compiled kernel per shape.

A random kernel is jitted per static signature, so every new shape used to compile its own XLA program
(threefry plus the distribution's transform: 0.3-3 s each on a small CPU). Building a model draws each
parameter once, in as many shapes as it has layers, and paid that compile for nearly every draw.

jax's threefry (with `jax_threefry_partitionable`, the default since jax 0.5) gives element i of a draw of any
shape the bits threefry2x32(key, (i >> 32, i & 0xFFFFFFFF)): the flat row-major index is the counter. The
samplers torchshim uses (uniform, normal, exponential, ...) transform each element's bits on their own. So a
draw of n elements equals the first n elements of the same draw over any longer flat vector, and also the
concatenation of blocks that start their counters where the previous one ended: `RandomKernel` covers a
draw with blocks of three fixed sizes (`TIERS`: as many large ones as fit, then medium, then small ones
rounded up, so at most 1023 counters are wasted), ONE kernel per block size (a third key word carries the
block's first counter; `_offset_bits` is jax's partitionable threefry with that offset), then cuts and
reshapes on the host, which compiles nothing.
The numbers are bit-for-bit those of the per-shape kernel (compat_tests/test_random_compile.py checks many
shapes, dtypes and distributions), so the stream is unchanged.

The block path is taken when it pays and is exact: the target is a CPU device, the draw is concrete (not
inside a jax trace: torch.compile, vmap with randomness='different'), its parameters are Python or numpy
scalars (an array parameter has the draw's shape), its size is 2 to `MAX_BLOCKED` counters (past that the
work outweighs a compile; a one-element draw is compiled as a scalar program whose `x * std + mean` XLA rounds
differently, by an ulp, from the same elements of a longer vector), and the same signature has been drawn
fewer than `REPEAT` times (a training loop that draws one shape every step gets the per-shape kernel, which
is faster per call, from its `REPEAT`-th draw on).
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend.random import define_prng_impl, threefry2x32_p

from .._random import make_key
from .. import _fused
from .._fused import jit as _fjit

__all__ = ["RandomKernel", "random_kernel"]

TIERS = (1 << 18, 1 << 14, 1 << 10)  # block sizes in counters, largest first: one kernel each
MAX_BLOCKED = 1 << 22  # draws with more counters than this compile a kernel of their own shape
REPEAT = 64  # draws of one signature before it gets its own per-shape kernel (more than a deep model's
# identical layers, so building one stays on the blocks)
_MAX_SEEN = 4096  # signatures remembered for REPEAT (forgotten all at once past this)


def _offset_bits(key_data, bit_width, shape):
    """jax's partitionable threefry bits with the flat counters starting at key_data[2] (uint32[3]: key words,
    first counter). Counters stay below 2**32 (MAX_BLOCKED), so the high counter word is 0, as in jax."""
    lo = (lax.iota(np.uint32, math.prod(shape)) + key_data[2]).reshape(shape)
    b1, b2 = threefry2x32_p.bind(key_data[0], key_data[1], jnp.zeros(shape, np.uint32), lo)
    if bit_width == 64:
        return lax.shift_left(b1.astype(np.uint64), np.uint64(32)) | b2.astype(np.uint64)
    if bit_width == 32:
        return b1 ^ b2
    return (b1 ^ b2).astype(np.dtype(f"uint{bit_width}"))


def _unsupported(*args):
    raise NotImplementedError("torchshim's block keys only generate bits")


_OFFSET_IMPL = define_prng_impl(key_shape=(3,), seed=_unsupported, split=_unsupported,
                                random_bits=_offset_bits, fold_in=_unsupported,
                                name="torchshim_threefry_block", tag="tsblk")


def _block_key(raw, n, first):
    """The key of one block: draw n's threefry key with its counters starting at `first`."""
    words = jax.random.key_data(make_key(raw, n))
    return jax.random.wrap_key_data(jnp.concatenate([words, jnp.asarray(first, np.uint32)[None]]),
                                    impl=_OFFSET_IMPL)


def plan(total):
    """[(first counter, counters)] of the blocks that cover `total` counters."""
    out, start = [], 0
    for i, size in enumerate(TIERS):
        k = (total - start) // size if i < len(TIERS) - 1 else -(-(total - start) // size)
        out += [(start + j * size, size) for j in range(k)]
        start += k * size
    return out


def _is_scalar(v):
    return v is None or isinstance(v, (bool, int, float, complex, np.generic))


class RandomKernel:
    """`fn(key, shape, *args, **static)` -> an array (or a pytree of arrays) of `shape` whose element i
    depends only on `key`, the args, and counters [i * c, (i + 1) * c) with c = `counters(**static)`.

    `k(device, raw, n, *args, shape=..., **static)` runs draw (raw, n) on jax `device` (None: the default);
    `k.shaped` is the per-shape kernel, `k.block` the per-block-size one."""

    def __init__(self, fn, static, counters=None):
        self.fn = fn
        self.counters = counters or (lambda **static: 1)
        self.seen = {}

        def shaped(raw, n, *args, shape, **st):
            return fn(make_key(raw, n), shape, *args, **st)

        def block(raw, n, first, *args, size, **st):
            return fn(_block_key(raw, n, first), (size,), *args, **st)

        shaped.__name__ = block.__name__ = fn.__name__
        self.shaped = _fjit(shaped, static_argnames=("shape",) + tuple(static))
        self.block = _fjit(block, static_argnames=("size",) + tuple(static))

    def __call__(self, device, raw, n, *args, shape, **static):
        shape = tuple(shape)
        if self._blockable(device, raw, n, args, shape, static):
            out = self._blocks(device, raw, n, args, shape, static)
            if out is not None:
                return out
        if device is None:
            return self.shaped(raw, n, *args, shape=shape, **static)
        with jax.default_device(device):
            return self.shaped(raw, n, *args, shape=shape, **static)

    def _blockable(self, device, raw, n, args, shape, static):
        if _fused.STATE.fused:  # fused eager mode: the draw joins the segment's program (nothing to compile)
            return False
        numel = math.prod(shape)
        if not 2 <= numel <= MAX_BLOCKED // self.counters(**static):
            return False
        if not isinstance(raw, np.ndarray) or not isinstance(n, np.integer):
            return False
        if not all(_is_scalar(a) for a in args):
            return False
        if (device or jax.devices()[0]).platform != "cpu":
            return False
        sig = (shape,) + tuple(sorted(static.items())) + tuple(type(a) for a in args)
        count = self.seen.get(sig, 0) + 1
        if len(self.seen) >= _MAX_SEEN:
            self.seen.clear()
        self.seen[sig] = count
        return count < REPEAT

    def _blocks(self, device, raw, n, args, shape, static):
        """The draw assembled from blocks on the host; None inside a jax trace (the per-shape kernel then)."""
        c = self.counters(**static)
        numel = math.prod(shape)
        parts = [self.block(raw, n, np.uint32(start), *args, size=size // c, **static)
                 for start, size in plan(numel * c)]
        leaves0, tree = jax.tree.flatten(parts[0])
        if any(isinstance(x, jax.core.Tracer) for x in leaves0):
            return None
        leaves = [jax.tree.leaves(p) for p in parts]
        out = []
        for j in range(len(leaves0)):
            host = [np.asarray(ls[j]) for ls in leaves]
            flat = host[0] if len(host) == 1 else np.concatenate(host)
            out.append(jax.device_put(flat[:numel].reshape(shape), device))
        return jax.tree.unflatten(tree, out)


def random_kernel(static=(), counters=None):
    """Decorator: `fn(key, shape, *args, **static)` as a `RandomKernel` with the given static keywords."""
    return lambda fn: RandomKernel(fn, static, counters)
