"""Collectives inside a torch.compile trace: all_reduce, broadcast, all_gather and all_gather_into_tensor on
the default (world) group become part of the compiled program instead of a graph break.

How (see also compiler/_capture.py and compiler/_program.py): in the discovery trace a collective records
its signature in the capture (`cap.collectives`) and writes a stand-in of the result's shape and dtype; the
compiler then traces the whole user function inside `jax.shard_map` over the world group's Mesh (axis "r"),
every input and output being this rank's local array (the global array is the ranks' arrays concatenated
along dim 0, 0-d arrays as (1,)), and the collective emits `jax.lax.psum`/`pmax`/`pmin`/`all_gather` on that
axis (`_programs._body`, the same bodies as the eager programs). Each call of such a program first agrees
with the other ranks on its signature (`_agree`), so ranks running different programs get a clear error.

On a world of one process the collective is its identity and no mesh is needed. Subgroups, a process group
that is not initialized, the other collectives, p2p and the `*_object` calls stay graph breaks (the compiled
call runs eagerly and raises PyTorch's errors there).
"""
import jax.numpy as jnp

from ..compiler import _capture
from . import _agree, _groups, _programs

__all__ = ["capture_for", "reduce_value", "gather_value", "pick_value"]


def _break(what, why):
    # "jax tracing" makes the compiler treat the error as a graph break (the call then runs eagerly)
    return RuntimeError(f"torch.distributed.{what} cannot run inside jax tracing (torch.compile): {why}, so "
                        "this call of the compiled function runs eagerly")


def capture_for(what, group):
    """(capture, process group) when a torch.compile trace is in progress and `what` on `group` can be traced
    into its program; None outside a trace (the eager collective runs). RuntimeError (a graph break) for a
    collective that cannot be traced."""
    cap = _capture.active()
    if cap is None:
        return None
    if _groups._R.world is None:
        raise _break(what, "the default process group is not initialized")
    try:
        pg = _groups.resolve(group)
    except ValueError:
        raise _break(what, "its group is not a valid process group") from None
    if pg is not _groups._R.world:
        raise _break(what, "only collectives on the default (world) group are traced into the program")
    return cap, pg


def _local(cap, pg, sig, x, stand_in, body):
    """The traced result for this rank's array `x` (at least 1-d): `stand_in(x)` in the discovery trace,
    `body(x)` (lax collectives on the program's axis) in the final one, `stand_in(x)` on one process."""
    if pg.size() == 1:
        return stand_in(x)
    cap.collectives.append(sig)
    if cap.axis is None:
        return stand_in(x)
    return body(x)


def _at_least_1d(arr, fn):
    if arr.ndim == 0:
        return fn(arr.reshape(1)).reshape(())
    return fn(arr)


def reduce_value(cap, pg, sig, arr, kind):
    """The all-reduce of `arr` (a wire array) with `_programs` kind `kind` (psum, pmax, pmin, reduce:<op>)."""
    body = _programs._body(kind, pg.size())
    return _at_least_1d(arr, lambda x: _local(cap, pg, sig, x, lambda y: y, body))


def gather_value(cap, pg, sig, arr):
    """(n, *arr.shape): every rank's `arr`."""
    n = pg.size()
    body = _programs._body("gather", n)
    x = arr.reshape(1) if arr.ndim == 0 else arr
    out = _local(cap, pg, sig, x, lambda y: jnp.broadcast_to(y[None], (n,) + y.shape), body)
    return out.reshape((n,)) if arr.ndim == 0 else out


def pick_value(cap, pg, sig, arr, gr):
    """Group rank `gr`'s `arr` (broadcast)."""
    body = _programs._body(f"pick:{gr}", pg.size())
    return _at_least_1d(arr, lambda x: _local(cap, pg, sig, x, lambda y: y, body))


class _Runtime:
    """What the compiler needs to run a program that contains collectives (`_capture.collective_runtime`)."""

    def mesh(self):
        pg = _groups._R.world
        return pg.mesh if pg is not None and pg.size() > 1 else None

    def to_global(self, local):
        """The global array over the world mesh whose block on this rank is `local` (_programs.to_global)."""
        return _programs.to_global(_groups.default_group(), jnp.asarray(local))

    def to_local(self, arr, ndim):
        out = arr.addressable_shards[0].data
        return out.reshape(()) if ndim == 0 else out

    def agree(self, signature):
        """Every rank of the world group calls the same compiled program (RuntimeError naming each rank's
        program otherwise; DistBackendError for a dead or late rank)."""
        _agree.agree(_groups.default_group(), signature, "torch.compile program with collectives")


_capture.collective_runtime = _Runtime()
