"""The collectives of torch.distributed on facade tensors, in place as PyTorch's: all_reduce, broadcast,
reduce, all_gather, all_gather_into_tensor, gather, scatter, reduce_scatter, reduce_scatter_tensor,
all_to_all, all_to_all_single, barrier, monitored_barrier.

Each call: checks as PyTorch's (argument types, list lengths, shapes, the dtypes and ops gloo allows, with
its messages), the ranks' agreement (`_agree`: a mismatch between ranks raises a clear error naming each
rank's call; a dead or late rank is named), then one compiled program per (collective, shape, dtype, group)
(`_programs`), whose result is written into the given tensors through the facade's write path (views and
non-contiguous tensors included). `async_op=True` returns a Work at once (the program runs asynchronously);
otherwise the call returns when the result is in place.

Differences from PyTorch: dtypes as gloo's on CPU (int16/uint16/uint32/uint64 raise "Invalid scalar type",
complex tensors only SUM/AVG and no gather, AVG only on floating/complex); broadcast, gather and scatter move
n times the data of PyTorch's tree algorithms (one all_gather / all_to_all program); reduce computes the
reduction on every rank and writes it on dst only (the other ranks' tensors are left as they were);
all_to_all with unequal splits pads every chunk to the largest one.
"""
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _api as torch
from .._promotion import short_name
from .._tensor import Tensor
from ..compiler import _capture
from . import _agree, _groups, _programs, _runtime, _traced
from ._types import GroupMember, ReduceOp
from ._work import Work, completed

__all__ = ["all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "gather", "scatter",
           "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "barrier",
           "monitored_barrier", "group_for", "finish"]

_GLOO_UNSUPPORTED = ("int16", "uint16", "uint32", "uint64")
_RED = ReduceOp.RedOpType


# ----- shared checks ---------------------------------------------------------------------------------------
def group_for(what, group):
    """The ProcessGroup of a `group=` argument, or None (with PyTorch's warning) when this rank is not in
    it."""
    pg = _groups.resolve(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {what} on global rank {_runtime.rank()} which does not belong to the given "
                      f"group.", stacklevel=3)
        return None
    return pg


def _tensor_arg(t, param="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def _list_arg(ts, param):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type "
                        "List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")


def not_traced(what, *tensors):
    """A collective that is not traced into the program (see `_traced`) inside torch.compile's trace is a
    graph break (the compiled call runs eagerly): the compiler treats a RuntimeError mentioning jax tracing
    as one."""
    if _capture.active() is not None:
        raise RuntimeError(f"torch.distributed.{what} cannot run inside jax tracing (torch.compile): only "
                           "all_reduce, broadcast, all_gather and all_gather_into_tensor on the default "
                           "group are traced into the program, so this call of the compiled function runs "
                           "eagerly")
    for t in tensors:
        if isinstance(t, Tensor) and isinstance(t._storage.array, jax.core.Tracer):
            raise RuntimeError(f"torch.distributed.{what} cannot run inside jax tracing (torch.compile): "
                               f"torchshim runs collectives eagerly, so this call of the compiled function "
                               f"runs eagerly")


def _gloo_dtype(t):
    if t._dtype.name in _GLOO_UNSUPPORTED:
        raise RuntimeError("Invalid scalar type")


def _same_dtypes(ts):
    d = ts[0]._dtype
    for t in ts[1:]:
        if t._dtype is not d:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {d} and  {t._dtype}")


def _op(op):
    if isinstance(op, _RED):
        return op
    v = getattr(op, "op", op)
    try:
        return _RED(int(v)) if not isinstance(v, _RED) else v
    except (TypeError, ValueError):
        raise TypeError(f"op must be a torch.distributed.ReduceOp, got {op!r}") from None


def _check_op(what, op, t):
    op = _op(op)
    if op is _RED.PREMUL_SUM:
        raise RuntimeError(f"{what}: ReduceOp.PREMUL_SUM is not supported by the gloo backend")
    if t.is_complex() and op not in (_RED.SUM, _RED.AVG):
        raise ValueError(f"{what} does not support {op} on complex tensors")
    if op in (_RED.BAND, _RED.BOR, _RED.BXOR) and (t.is_floating_point() or t.is_complex()):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is _RED.AVG and not (t.is_floating_point() or t.is_complex()):
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{short_name(t._dtype)}")
    return op


def _root(what, pg, src, group_src, name):
    """The group rank of a rooted collective's global `src` (or `group_src`), with PyTorch's errors."""
    if group_src is not None:
        if src is not None:
            raise ValueError(f"Can not specify both {name} and group_{name}")
        gr = int(group_src)
        if not 0 <= gr < pg.size():
            raise RuntimeError(f"ProcessGroupGloo::{what}: invalid root rank: {gr}")
        return gr
    if src is None:
        raise ValueError(f"Must specify {name} or group_{name}")
    src = int(src)
    if pg is _groups.default_group():
        if not 0 <= src < pg.size():
            raise RuntimeError(f"ProcessGroupGloo::{what}: invalid root rank: {src}")
        return src
    if src not in pg._ranks:
        raise ValueError(f"Global rank {src} is not part of group {pg}")
    return pg._ranks.index(src)


def _rooted_group(what, group, src, group_src, name):
    pg = _groups.resolve(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return pg, _root(what, pg, src, group_src, name)


def _gloo_shape(t, shape):
    """A shape as gloo's messages print it: "(2, 3)"; complex tensors as their real view (a trailing 2)."""
    shape = tuple(shape) + ((2,) if t.is_complex() else ())
    return "(" + ", ".join(map(str, shape)) + ")"


def _sig(what, *parts):
    return what + "(" + ", ".join(str(p) for p in parts) + ")"


def _shape(t):
    return list(t._shape)


# ----- transport helpers -----------------------------------------------------------------------------------
def _to_wire(arr):
    """bool travels as uint8."""
    return arr.astype(jnp.uint8) if arr.dtype == jnp.bool_ else arr


def _from_wire(arr, dtype):
    return arr.astype(dtype.np) if arr.dtype != dtype.np else arr


def finish(outs, writes, async_op, value):
    """Write the (asynchronous) results into their tensors; then block (sync) or return a Work (async)."""
    for t, a in writes:
        t._write(a)

    def done():
        for a in outs:
            a.block_until_ready()
        return value

    def checked():
        try:
            return done()
        except Exception as e:
            raise _backend_error(e) from None

    if async_op:
        return Work(checked, ready=lambda: all(a.is_ready() for a in outs))
    checked()
    return None


def _traced_finish(writes, async_op, value):
    """`finish` inside a torch.compile trace: the results are traced values; a Work is already complete."""
    for t, a in writes:
        t._write(a)
    return completed(value) if async_op else None


def _backend_error(e, pg=None):
    """The DistBackendError of a failed collective program, naming the rank that left or died."""
    from ._exceptions import DistBackendError
    ranks = pg._ranks if pg is not None else range(_runtime.world_size())
    found = _runtime.find_gone(ranks)
    if found:
        who = "; ".join(_runtime.gone(r, st) for r, st in found)
        return DistBackendError(f"a collective failed on rank {_runtime.rank()} because {who}. ({e})")
    return DistBackendError(str(e))


def _reduction_kind(op, dtype, scatter=False):
    name = op.name
    if dtype.name == "bool":
        name = {"SUM": "MAX", "AVG": "MAX", "PRODUCT": "MIN", "BAND": "MIN", "BOR": "MAX"}.get(name, name)
    if scatter:
        return "psum_scatter" if name in ("SUM", "AVG") else "reduce_scatter:" + name
    return {"SUM": "psum", "AVG": "psum", "MAX": "pmax", "MIN": "pmin"}.get(name, "reduce:" + name)


def _avg(arr, op, n, dtype):
    if op is _RED.AVG:
        return (arr / n).astype(dtype.np)
    return arr


def _run(kind, pg, arr):
    try:
        return _programs.run(kind, pg, arr)
    except Exception as e:
        raise _backend_error(e, pg) from None


# ----- the collectives -------------------------------------------------------------------------------------
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """`torch.distributed.all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False)`: every rank's
    `tensor` becomes the reduction over the group (SUM, PRODUCT, MIN, MAX, AVG; BAND/BOR/BXOR on integers
    and bool)."""
    _tensor_arg(tensor)
    traced = _traced.capture_for("all_reduce", group)
    if traced is None:
        not_traced("all_reduce", tensor)
    pg = group_for("all_reduce", group)
    if pg is None:
        return None
    _gloo_dtype(tensor)
    op = _check_op("all_reduce", op, tensor)
    sig = _sig("all_reduce", f"shape={_shape(tensor)}", tensor._dtype, op)
    if traced is not None:
        out = _traced.reduce_value(traced[0], pg, sig, _to_wire(tensor._value),
                                   _reduction_kind(op, tensor._dtype))
        out = _avg(_from_wire(out, tensor._dtype), op, pg.size(), tensor._dtype)
        return _traced_finish([(tensor, out)], async_op, [tensor])
    _agree.agree(pg, sig, "all_reduce")
    out = _run(_reduction_kind(op, tensor._dtype), pg, _to_wire(tensor._value))
    out = _avg(_from_wire(out, tensor._dtype), op, pg.size(), tensor._dtype)
    return finish([out], [(tensor, out)], async_op, [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """`torch.distributed.broadcast(tensor, src=None, group=None, async_op=False, group_src=None)`: every
    rank's `tensor` becomes rank src's."""
    _tensor_arg(tensor)
    traced = _traced.capture_for("broadcast", group)
    if traced is None:
        not_traced("broadcast", tensor)
    pg, gr = _rooted_group("broadcast", group, src, group_src, "src")
    _gloo_dtype(tensor)
    sig = _sig("broadcast", f"shape={_shape(tensor)}", tensor._dtype, f"src={pg._ranks[gr]}")
    if traced is not None:
        out = _from_wire(_traced.pick_value(traced[0], pg, sig, _to_wire(tensor._value), gr), tensor._dtype)
        return _traced_finish([(tensor, out)], async_op, [tensor])
    _agree.agree(pg, sig, "broadcast")
    out = _from_wire(_run(f"pick:{gr}", pg, _to_wire(tensor._value)), tensor._dtype)
    return finish([out], [(tensor, out)], async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """`torch.distributed.reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False,
    group_dst=None)`: rank dst's `tensor` becomes the reduction; the others' are left unchanged."""
    _tensor_arg(tensor)
    not_traced("reduce", tensor)
    pg, gr = _rooted_group("reduce", group, dst, group_dst, "dst")
    _gloo_dtype(tensor)
    op = _check_op("reduce", op, tensor)
    _agree.agree(pg, _sig("reduce", f"shape={_shape(tensor)}", tensor._dtype, op, f"dst={pg._ranks[gr]}"),
                 "reduce")
    out = _run(_reduction_kind(op, tensor._dtype), pg, _to_wire(tensor._value))
    out = _avg(_from_wire(out, tensor._dtype), op, pg.size(), tensor._dtype)
    return finish([out], [(tensor, out)] if pg.rank() == gr else [], async_op, [tensor])


def _gather_all(what, pg, tensor, traced=None):
    """(n, *shape) of every rank's `tensor`, after the agreement (traced into the program inside a
    torch.compile trace)."""
    sig = _sig(what, f"shape={_shape(tensor)}", tensor._dtype)
    if traced is not None:
        return _from_wire(_traced.gather_value(traced[0], pg, sig, _to_wire(tensor._value)), tensor._dtype)
    _agree.agree(pg, sig, what)
    return _from_wire(_run("gather", pg, _to_wire(tensor._value)), tensor._dtype)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """`torch.distributed.all_gather(tensor_list, tensor, group=None, async_op=False)`: tensor_list[i] becomes
    rank i's `tensor`."""
    _list_arg(tensor_list, "tensor_list")
    _tensor_arg(tensor)
    traced = _traced.capture_for("all_gather", group)
    if traced is None:
        not_traced("all_gather", tensor, *tensor_list)
    pg = group_for("all_gather", group)
    if pg is None:
        return None
    _same_dtypes(list(tensor_list) + [tensor])
    _gloo_dtype(tensor)
    n = pg.size()
    if len(tensor_list) != n:
        raise RuntimeError("ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected "
                           "length "
                           f"{n}, got {len(tensor_list)})")
    for i, t in enumerate(tensor_list):
        if t._shape != tensor._shape:
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index {i} (expected "
                               f"{_gloo_shape(tensor, tensor._shape)}, got {_gloo_shape(tensor, t._shape)})")
    out = _gather_all("all_gather", pg, tensor, traced)
    if traced is not None:
        return _traced_finish([(t, out[i]) for i, t in enumerate(tensor_list)], async_op, [list(tensor_list)])
    return finish([out], [(t, out[i]) for i, t in enumerate(tensor_list)], async_op, [list(tensor_list)])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """`torch.distributed.all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False)`:
    output (shape (n*d0, ...)) is every rank's input concatenated along dim 0. The stacked form (n, d0, ...)
    raises as with PyTorch's gloo."""
    _tensor_arg(output_tensor, "output_tensor")
    _tensor_arg(input_tensor, "input_tensor")
    traced = _traced.capture_for("all_gather_into_tensor", group)
    if traced is None:
        not_traced("all_gather_into_tensor", output_tensor, input_tensor)
    pg = group_for("all_gather_into_tensor", group)
    if pg is None:
        return None
    _same_dtypes([output_tensor, input_tensor])
    _gloo_dtype(input_tensor)
    n = pg.size()
    ins, outs = tuple(input_tensor._shape), tuple(output_tensor._shape)
    if not outs or not ins or outs[1:] != ins[1:] or outs[0] != n * ins[0]:
        chunk = ((-(-outs[0] // n),) + outs[1:]) if outs else ()
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected "
                           f"{_gloo_shape(input_tensor, ins)}, got {_gloo_shape(input_tensor, chunk)})")
    out = _gather_all("all_gather_into_tensor", pg, input_tensor, traced).reshape(output_tensor._shape)
    if traced is not None:
        return _traced_finish([(output_tensor, out)], async_op, [output_tensor])
    return finish([out], [(output_tensor, out)], async_op, [output_tensor])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """`torch.distributed.gather(tensor, gather_list=None, dst=None, group=None, async_op=False,
    group_dst=None)`: on dst, gather_list[i] becomes rank i's tensor (dst defaults to 0)."""
    _tensor_arg(tensor)
    if dst is None and group_dst is None:
        dst = 0
    not_traced("gather", tensor, *(gather_list or []))
    pg, gr = _rooted_group("gather", group, dst, group_dst, "dst")
    mine = pg.rank() == gr
    if mine:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _list_arg(gather_list, "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    _gloo_dtype(tensor)
    if tensor.is_complex():
        raise RuntimeError("Invalid scalar type")
    if mine:
        _same_dtypes(list(gather_list) + [tensor])
        if len(gather_list) != pg.size():
            raise RuntimeError(f"ProcessGroupGloo::gather: Incorrect output list size {len(gather_list)}. "
                               "Output "
                               f"list size should be {pg.size()}, same as size of the process group.")
        for i, t in enumerate(gather_list):
            if t._shape != tensor._shape:
                raise RuntimeError(f"ProcessGroupGloo::gather: invalid tensor size at index {i} (expected "
                                   f"{list(tensor._shape)}, got {list(t._shape)})")
    _agree.agree(pg, _sig("gather", f"shape={_shape(tensor)}", tensor._dtype, f"dst={pg._ranks[gr]}"),
                 "gather")
    out = _from_wire(_run("gather", pg, _to_wire(tensor._value)), tensor._dtype)
    writes = [(t, out[i]) for i, t in enumerate(gather_list)] if mine else []
    return finish([out], writes, async_op, [list(gather_list or [])])


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """`torch.distributed.scatter(tensor, scatter_list=None, src=None, group=None, async_op=False,
    group_src=None)`: rank i's tensor becomes scatter_list[i] of rank src (src defaults to 0)."""
    _tensor_arg(tensor)
    if src is None and group_src is None:
        src = 0
    not_traced("scatter", tensor, *(scatter_list or []))
    pg, gr = _rooted_group("scatter", group, src, group_src, "src")
    mine = pg.rank() == gr
    if mine:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _list_arg(scatter_list, "scatter_list")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _gloo_dtype(tensor)
    n = pg.size()
    if mine:
        _same_dtypes(list(scatter_list) + [tensor])
        if len(scatter_list) != n:
            raise RuntimeError(f"ProcessGroupGloo::scatter: Incorrect input list size {len(scatter_list)}. "
                               "Input "
                               f"list size should be {n}, same as size of the process group.")
        for i, t in enumerate(scatter_list):
            if t._shape != tensor._shape:
                raise RuntimeError(f"ProcessGroupGloo::scatter: invalid tensor size at index {i} (expected "
                                   f"{list(tensor._shape)}, got {list(t._shape)})")
        local = jnp.stack([_to_wire(t._value) for t in scatter_list])
    else:
        local = jnp.zeros((n,) + tuple(tensor._shape), _to_wire(tensor._value).dtype)
    _agree.agree(pg, _sig("scatter", f"shape={_shape(tensor)}", tensor._dtype, f"src={pg._ranks[gr]}"),
                 "scatter")
    out = _from_wire(_run(f"a2a_pick:{gr}", pg, local), tensor._dtype)
    return finish([out], [(tensor, out)], async_op, [tensor])


def _reduce_scatter(what, output, stacked, op, pg, async_op):
    """`stacked`: (n, *output.shape) of this rank's inputs."""
    _gloo_dtype(output)
    op = _check_op(what, op, output)
    _agree.agree(pg, _sig(what, f"shape={_shape(output)}", output._dtype, op), what)
    out = _run(_reduction_kind(op, output._dtype, scatter=True), pg, _to_wire(stacked))
    out = _avg(_from_wire(out, output._dtype).reshape(output._shape), op, pg.size(), output._dtype)
    return finish([out], [(output, out)], async_op, [output])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """`torch.distributed.reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False)`:
    rank i's output becomes the reduction over ranks of their input_list[i]."""
    _tensor_arg(output, "output")
    _list_arg(input_list, "input_list")
    not_traced("reduce_scatter", output, *input_list)
    pg = group_for("reduce_scatter", group)
    if pg is None:
        return None
    _same_dtypes(list(input_list) + [output])
    if len(input_list) != pg.size():
        raise ValueError(f"reduce_scatter: input_list must have {pg.size()} tensors (the group size), got "
                         f"{len(input_list)}")
    for i, t in enumerate(input_list):
        if t._shape != output._shape:
            raise ValueError(f"reduce_scatter: input_list[{i}] has shape {list(t._shape)}, the output "
                             f"{list(output._shape)}")
    stacked = jnp.stack([t._value for t in input_list])
    return _reduce_scatter("reduce_scatter", output, stacked, op, pg, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """`torch.distributed.reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False)`:
    input is n chunks along dim 0 (shape (n*d0, ...)); rank i's output is the reduction of chunk i."""
    _tensor_arg(output, "output")
    _tensor_arg(input, "input")
    not_traced("reduce_scatter_tensor", output, input)
    pg = group_for("reduce_scatter_tensor", group)
    if pg is None:
        return None
    _same_dtypes([output, input])
    n = pg.size()
    ins, outs = tuple(input._shape), tuple(output._shape)
    if not outs or not ins or outs[1:] != ins[1:] or ins[0] != n * outs[0]:
        raise RuntimeError(f"reduce_scatter_tensor: the input's dim 0 must be world_size ({n}) times the "
                           f"output's, the other dims equal (input {list(ins)}, output {list(outs)}); "
                           f"PyTorch's gloo aborts the process here")
    stacked = input._value.reshape((n,) + tuple(output._shape))
    return _reduce_scatter("reduce_scatter_tensor", output, stacked, op, pg, async_op)


def _splits(what, t, splits, n, name):
    d0 = t._shape[0] if t._shape else 1
    if splits is None or len(splits) == 0:
        if d0 % n:
            raise ValueError(f"{what}: the size {d0} of dim 0 of the {name} is not divisible by the group "
                             "size "
                             f"{n}; give {name}_split_sizes")
        return [d0 // n] * n
    splits = [int(s) for s in splits]
    if len(splits) != n:
        raise ValueError(f"{what}: {name}_split_sizes has {len(splits)} entries, the group {n}")
    if sum(splits) != d0:
        raise ValueError(f"{what}: {name}_split_sizes {splits} do not add up to dim 0 of the {name} ({d0})")
    return splits


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """`torch.distributed.all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
    group=None, async_op=False)`: input's chunk j (along dim 0) goes to rank j; output is the chunks received,
    in rank order. Unequal splits are padded to the largest chunk on the wire."""
    _tensor_arg(output, "output")
    _tensor_arg(input, "input")
    not_traced("all_to_all_single", output, input)
    pg = group_for("all_to_all_single", group)
    if pg is None:
        return None
    _same_dtypes([output, input])
    _gloo_dtype(input)
    n = pg.size()
    if output._shape[1:] != input._shape[1:]:
        raise ValueError(f"all_to_all_single: output {list(output._shape)} and input {list(input._shape)} "
                         "differ "
                         f"beyond dim 0")
    isp = _splits("all_to_all_single", input, input_split_sizes, n, "input")
    osp = _splits("all_to_all_single", output, output_split_sizes, n, "output")
    extras = _agree.agree(pg, _sig("all_to_all_single", f"shape[1:]={_shape(input)[1:]}", input._dtype),
                          "all_to_all_single", extra=",".join(map(str, isp)))
    every = [[int(v) for v in e.split(",")] for e in extras]  # every[i][j]: rank i sends to j
    me = pg.rank()
    got = [every[i][me] for i in range(n)]
    if got != osp:
        raise RuntimeError(f"all_to_all_single: rank {pg._ranks[me]} expects chunks of sizes {osp} (output "
                           "split "
                           f"sizes) but the ranks send it {got}")
    rest = tuple(input._shape[1:])
    x = _to_wire(input._value)
    if len(set(isp)) == 1 and all(len(set(r)) == 1 for r in every) and len({r[0] for r in every}) == 1:
        out = _run("a2a", pg, x.reshape((n, isp[0]) + rest))
        out = out.reshape(output._shape)
    else:
        m = max(max(r) for r in every)
        offs = np.cumsum([0] + isp)
        padded = jnp.stack([jnp.pad(x[offs[j]:offs[j + 1]], [(0, m - isp[j])] + [(0, 0)] * len(rest))
                            for j in range(n)])
        out = _run("a2a", pg, padded)
        out = jnp.concatenate([out[i, :got[i]] for i in range(n)]).reshape(output._shape)
    out = _from_wire(out, output._dtype)
    return finish([out], [(output, out)], async_op, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """`torch.distributed.all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False)`:
    input_tensor_list[j] goes to rank j, output_tensor_list[i] comes from rank i (sizes may differ per
    pair)."""
    _list_arg(output_tensor_list, "output_tensor_list")
    _list_arg(input_tensor_list, "input_tensor_list")
    not_traced("all_to_all", *output_tensor_list, *input_tensor_list)
    pg = group_for("all_to_all", group)
    if pg is None:
        return None
    n = pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: the tensor lists must have {n} tensors (the group size), got "
                         f"{len(output_tensor_list)} outputs and {len(input_tensor_list)} inputs")
    _same_dtypes(list(output_tensor_list) + list(input_tensor_list))
    dt = input_tensor_list[0]._dtype
    flat_in = torch.cat([t.reshape(-1) for t in input_tensor_list])
    flat_out = torch.empty(sum(t.numel() for t in output_tensor_list), dtype=dt)
    w = all_to_all_single(flat_out, flat_in, [t.numel() for t in output_tensor_list],
                          [t.numel() for t in input_tensor_list], group=pg, async_op=True)
    w.wait()
    offs = np.cumsum([0] + [t.numel() for t in output_tensor_list])
    v = flat_out._value
    outs = [v[offs[i]:offs[i + 1]].reshape(t._shape) for i, t in enumerate(output_tensor_list)]
    return finish(outs, list(zip(output_tensor_list, outs)), async_op, [list(output_tensor_list)])


def barrier(group=None, async_op=False, device_ids=None):
    """`torch.distributed.barrier(group=None, async_op=False, device_ids=None)`: returns when every rank of
    the group has called it (the agreement of `_agree` is the barrier); a dead or late rank is named."""
    not_traced("barrier")
    pg = group_for("barrier", group)
    if pg is None:
        return None
    _agree.agree(pg, "barrier()", "barrier")
    return finish([], [], async_op, None)


_MB_COUNT = {}


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """`torch.distributed.monitored_barrier(group=None, timeout=None, wait_all_ranks=False)`: rank 0 of the
    group waits for every other rank up to `timeout` (the group's by default) and raises RuntimeError naming
    the first rank that did not arrive (all of them with wait_all_ranks); the others wait for rank 0's
    release."""
    not_traced("monitored_barrier")
    pg = group_for("monitored_barrier", group)
    if pg is None:
        return None
    t = pg._timeout if timeout is None else timeout.total_seconds()
    k = _MB_COUNT.get(pg._gid, 0)
    _MB_COUNT[pg._gid] = k + 1
    base = f"torchshim/mb/{pg._gid}/{k}/"
    cl = _runtime.client()
    deadline = time.monotonic() + t
    me = pg.rank()
    from ._exceptions import DistBackendError
    if me != 0:
        cl.key_value_set(base + f"in/{me}", "1")
        _runtime.wait_key(base + f"out/{me}", pg._ranks[0], deadline, "monitored_barrier", t)
        return None
    failed = []
    for gr in range(1, pg.size()):
        try:
            _runtime.wait_key(base + f"in/{gr}", pg._ranks[gr], deadline, "monitored_barrier", t)
        except DistBackendError:
            failed.append(pg._ranks[gr])
            if not wait_all_ranks:
                break
    ms = int(t * 1000)
    if failed:
        if wait_all_ranks:
            raise RuntimeError(f"Ranks {', '.join(map(str, failed))} failed to pass monitoredBarrier in "
                               f"{ms} ms")
        raise RuntimeError(f"Rank {failed[0]} failed to pass monitoredBarrier in {ms} ms")
    for gr in range(1, pg.size()):
        cl.key_value_set(base + f"out/{gr}", "1")
    return None
