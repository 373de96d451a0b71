"""What a traced program touches: the storages it reads, writes and creates, and the generators it draws from.

While torch.compile traces a function (under `jax.jit`), `Capture` is installed as the storage hook
(`_storage.hook`) and the generator hook (`_random.trace_draw`):

- `lifted` storages hold the program's input tracers in place of their arrays for the length of the trace;
- a read of any other storage that existed before the trace and holds a concrete array is a *miss*: the
  trace baked that array in as a constant, so the program is traced again with the storage lifted;
- a write to a storage that existed before the trace makes its final array a program output (the original is
  put back when the trace ends, and the output is written after each call);
- storages created by the trace that are still alive when it ends (a `.grad`, optimizer state, a cache on a
  module) are program outputs too: their arrays are set from the program's results after each call;
- each generator's draws take the key data and the draw count from program inputs, so every call draws what
  the eager code would draw at that point of the stream (`k`-th draw of a call: count before the call + k).

Collectives (torch.distributed, which reads this module; the compiler does not import it): a collective on
the world group traced inside a capture appends its signature to `cap.collectives`. In the discovery trace
(`cap.axis` None) it stands in for the result with a value of the right shape and dtype; the compiler then
traces the final program inside `jax.shard_map` over `collective_runtime.mesh()` with `cap.axis` set to the
mesh's axis name, where the collective emits `jax.lax.psum`/... on that axis.
"""
import gc
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _fused, _random, _storage

__all__ = ["Capture", "active", "collective_runtime"]

_active = []

# torch.distributed's hooks for programs that contain collectives, set when it is imported: an object with
# `mesh()` (the world group's Mesh, axis "r"; None when no group of more than one process exists),
# `to_global(local)` / `to_local(global)` (this rank's array <-> the global array of the mesh) and
# `agree(signature)` (every rank runs the same program, or a clear error); None when it is not imported
collective_runtime = None


def active():
    """The capture of the trace in progress, or None."""
    return _active[-1] if _active else None


class Capture:
    """`with Capture(lifted, arrays, generators, rng) as cap:` trace the user code; then `cap.finish()`.

    lifted: storages whose arrays are replaced by `arrays` (tracers) during the trace.
    generators: generators whose (raw key, count) are the tracers `rng[i] = (raw, count)`."""

    def __init__(self, lifted, arrays, generators, rng):
        self.lifted = list(lifted)
        self.arrays = list(arrays)
        self.lifted_ids = {id(s): i for i, s in enumerate(self.lifted)}
        self.originals = [s._array for s in self.lifted]
        self.generators = list(generators)
        self.gen_ids = {id(g): i for i, g in enumerate(self.generators)}
        self.rng = list(rng)
        self.draws = [0] * len(self.generators)
        self.new_generators = []  # generators drawn from that were not lifted (a retrace lifts them)
        self.used = set()  # ids of lifted storages read
        self.misses = []  # storages read that were not lifted (concrete arrays baked in)
        self._miss_ids = set()
        self.written = {}  # id -> storage: lifted storages written, in order
        self.external = {}  # id -> (storage, original array): storages written that were not lifted
        self.created = []  # weakrefs of storages created by the trace
        self._created_ids = set()
        self.collectives = []  # signatures of the collectives traced (see the module docstring)
        self.axis = None  # the mesh axis name when the trace runs inside the collective program's shard_map

    # ----- hooks --------------------------------------------------------------------------------------------
    def read(self, st):
        i = id(st)
        if i in self.lifted_ids:
            self.used.add(i)
            return
        if i in self._created_ids or i in self._miss_ids or i in self.external:
            return
        if not isinstance(st._array, jax.core.Tracer):
            self._miss_ids.add(i)
            self.misses.append(st)

    def write(self, st):
        i = id(st)
        if i in self.lifted_ids:
            self.written.setdefault(i, st)
        elif i not in self._created_ids and i not in self.external:
            self.external[i] = (st, st._array)

    def new(self, st):
        self._created_ids.add(id(st))
        self.created.append(weakref.ref(st))

    def draw(self, gen):
        k = self.gen_ids.get(id(gen))
        if k is None:
            # not an input of this trace: draw concretely (the numbers are baked in) and lift it next time
            if all(g is not gen for g in self.new_generators):
                self.new_generators.append(gen)
            hook, _random.trace_draw = _random.trace_draw, None
            try:
                return gen.draw()
            finally:
                _random.trace_draw = hook
        self.draws[k] += 1
        raw, count = self.rng[k]
        return raw, count + jnp.uint32(self.draws[k])

    # ----- install / remove ---------------------------------------------------------------------------------
    def __enter__(self):
        if _storage.hook is not None:
            raise RuntimeError("torch.compile: a compiled function was called while another one is being "
                               "traced; call the inner function directly (it is traced into the outer "
                               "program)")
        _fused.step_boundary("torch.compile")  # fused eager mode: run what is pending; kernels run directly
        _fused.STATE.suspended += 1  # while the trace lasts
        for s, a in zip(self.lifted, self.arrays):
            s._array = a
        _storage.hook = self
        _random.trace_draw = self.draw
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _fused.STATE.suspended -= 1
        _active.pop()
        _storage.hook = None
        _random.trace_draw = None
        if exc[0] is not None:
            self.restore()
        return False

    def restore(self):
        """Put back every array the trace replaced (lifted inputs, written external storages)."""
        for s, a in zip(self.lifted, self.originals):
            s._array = a
        for s, a in self.external.values():
            s._array = a

    def survivors(self):
        """Storages created by the trace that are still alive (after a garbage collection): state the program
        leaves behind, e.g. `.grad` tensors and optimizer state.

        A collection of the young generations frees the trace's cyclic garbage that is still young; only when
        some storage survives it does a full collection run (one of them could be garbage promoted to the
        oldest generation during the trace), so the answer is the full collection's, without its cost (a
        second or more in a large process) for the traces that leave nothing behind."""
        gc.collect(1)
        if not self._alive():
            return []
        gc.collect()
        return self._alive()

    def _alive(self):
        out = []
        for r in self.created:
            s = r()
            if s is not None and isinstance(s._array, jax.core.Tracer):
                out.append(s)
        return out


def concrete(a):
    """Whether jax value `a` is a concrete array (not a tracer)."""
    return not isinstance(a, jax.core.Tracer)


def rng_inputs(generators):
    """The (raw key, count) numpy inputs of each generator for one call."""
    return [(g.raw_key(), np.uint32(g._count & 0xFFFF_FFFF)) for g in generators]
