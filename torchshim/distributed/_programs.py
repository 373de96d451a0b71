"""The compiled programs of the collectives: one `jax.jit(jax.shard_map(...))` per (collective, shape, dtype,
group, static arguments), over the group's Mesh (axis "r"). Each rank gives its local array; the global input
is `(group size, *shape)` sharded over "r"; the result is this rank's shard of the output.

Kinds: psum / pmax / pmin; "gather" (all_gather: every rank gets `(n, *shape)`); "a2a" (all_to_all of the
leading axis, tiled); "psum_scatter"; and "reduce:<op>" / "reduce_scatter:<op>" for PRODUCT and the bitwise
ops (an all_gather / all_to_all and the reduction in the same program); "pick:<i>" (broadcast from group
rank i: an all_gather that keeps row i, exact for every dtype) and "a2a_pick:<i>" (scatter from rank i).
jax dispatch is asynchronous: the returned array is ready when `block_until_ready()` returns (Work.wait does
that).
"""
import functools

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from .. import _fused
from . import _runtime

__all__ = ["run", "to_global"]

_R = jax.lax


def _reduce_stack(op, g):
    """Reduce the stacked (n, ...) array `g` over axis 0 with a ReduceOp name."""
    if op == "PRODUCT":
        return jnp.prod(g, axis=0, dtype=g.dtype)
    if op in ("BAND", "MIN"):
        fn = jnp.bitwise_and if op == "BAND" else jnp.minimum
    elif op in ("BOR", "MAX"):
        fn = jnp.bitwise_or if op == "BOR" else jnp.maximum
    elif op == "BXOR":
        fn = jnp.bitwise_xor
    else:
        raise AssertionError(op)
    return functools.reduce(fn, [g[i] for i in range(g.shape[0])])


def _body(kind, n):
    """The per-rank function: x is this rank's block (its local array, at least 1-d)."""
    if kind == "psum":
        return lambda x: _R.psum(x, "r")
    if kind == "pmax":
        return lambda x: _R.pmax(x, "r")
    if kind == "pmin":
        return lambda x: _R.pmin(x, "r")
    if kind == "gather":
        return lambda x: _R.all_gather(x, "r")
    if kind == "a2a":
        return lambda x: _R.all_to_all(x, "r", 0, 0, tiled=True)
    if kind == "psum_scatter":
        return lambda x: _R.psum_scatter(x, "r", scatter_dimension=0, tiled=True)
    if kind.startswith("pick:"):  # broadcast: every rank gets rank i's array
        i = int(kind.split(":")[1])
        return lambda x: _R.all_gather(x, "r")[i]
    if kind.startswith("a2a_pick:"):  # scatter: rank j gets chunk j of rank i's array
        i = int(kind.split(":")[1])
        return lambda x: _R.all_to_all(x, "r", 0, 0, tiled=True)[i]
    if kind.startswith("reduce:"):
        op = kind.split(":")[1]
        return lambda x: _reduce_stack(op, _R.all_gather(x, "r"))
    if kind.startswith("reduce_scatter:"):
        op = kind.split(":")[1]

        def f(x):
            y = _R.all_to_all(x, "r", 0, 0, tiled=True)  # chunk i of every rank's input, stacked
            y = y.reshape((n, y.shape[0] // n) + y.shape[1:])
            return _reduce_stack(op, y)
        return f
    raise AssertionError(kind)


@functools.lru_cache(maxsize=None)
def _program(kind, mesh, shape, dtype):
    n = mesh.devices.size
    return jax.jit(jax.shard_map(_body(kind, n), mesh=mesh, in_specs=P("r"), out_specs=P("r")))


def clear():
    _program.cache_clear()


def to_global(pg, local):
    """The global array over `pg`'s mesh whose block on this rank is `local`: the ranks' arrays concatenated
    along dim 0, so that this rank's block is its array as it is (no copy); a 0-d array as shape (1,)."""
    _fused.step_boundary("a collective (torch.distributed)")  # fused eager mode: a collective ends a segment
    local = _fused.concrete(local)
    if local.ndim == 0:
        local = local.reshape(1)
    dev = _runtime.local_device()
    if local.devices() != {dev}:
        local = jax.device_put(local, dev)
    shape = tuple(local.shape)
    return jax.make_array_from_single_device_arrays((pg.size() * shape[0],) + shape[1:],
                                                    NamedSharding(pg.mesh, P("r")), [local])


def run(kind, pg, local):
    """Run collective `kind` over group `pg` with this rank's jax array `local`; this rank's result (not
    waited for). The global array is `to_global`'s."""
    scalar = local.ndim == 0
    g = to_global(pg, local)
    block = (g.shape[0] // pg.size(),) + g.shape[1:]
    out = _program(kind, pg.mesh, block, str(g.dtype))(g).addressable_shards[0].data
    return out.reshape(out.shape[:-1]) if scalar else out
