"""Point-to-point: send, recv, isend, irecv, P2POp, batch_isend_irecv.

Messages go through the coordination service's key-value store: the sender writes the tensor's bytes (with
its dtype and shape) under (group, dst, tag, src, n-th message on that channel); the receiver waits for that
key, checks dtype and size as gloo does, writes the values into its tensor in place and deletes the key.
Why not an XLA ppermute: a program spanning two processes must be entered by both in the same order, which
isend/irecv batches and mixed orders (rank 0 sends then receives, rank 1 the reverse) cannot promise without
deadlock; the store never deadlocks (a send never waits for its receiver) and names a dead peer. Cost: the
store moves about 20 MB/s on this machine (1 MB in ~60 ms), fine for the control messages and small tensors
scripts send; use the collectives for bulk data.

Differences from PyTorch: send/isend return as soon as the message is stored (PyTorch's gloo send may wait
for the receiver); irecv receives when its Work is waited on (or polled with is_completed()).
"""
import json
import time

import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from . import _groups, _runtime
from ._collectives import not_traced
from ._exceptions import DistBackendError
from ._types import GroupMember
from ._work import Work, completed

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv"]

_SEND_SEQ = {}
_RECV_SEQ = {}


def _key(pg, dst, tag, src, seq):
    return f"torchshim/p/{pg._gid}/{dst}/{tag}/{src}/{seq}"


def _check_tensor(t, what="send"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `tensor` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")
    not_traced(what, t)


def _peer(what, group, peer, group_peer, name):
    """(pg, group rank of the peer) with PyTorch's checks."""
    pg = _groups.resolve(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None, None
    if group_peer is not None:
        if peer is not None:
            raise ValueError(f"Can not specify both {name} and group_{name}")
        gp = int(group_peer)
    elif peer is None:
        return pg, None
    else:
        peer = int(peer)
        if peer not in pg._ranks:
            if pg is _groups.default_group():
                raise ValueError(f"Invalid {'destination' if name == 'dst' else 'source'} rank {peer}: the "
                                 "world "
                                 f"has ranks 0..{pg.size() - 1}")
            raise ValueError(f"Global rank {peer} is not part of group {pg}")
        gp = pg._ranks.index(peer)
    if not 0 <= gp < pg.size():
        raise ValueError(f"Invalid group rank {gp} for a group of size {pg.size()}")
    if gp == pg.rank():
        if name == "dst":
            raise ValueError("Invalid destination rank: destination rank should not be the same as the rank "
                             "of "
                             "the current process.")
        raise ValueError("Invalid source rank: source rank should not be the same as the rank of the current "
                         "process.")
    return pg, gp


def _payload(t):
    arr = np.asarray(t._value)
    head = json.dumps({"dtype": t._dtype.name, "shape": list(t._shape)}).encode()
    return len(head).to_bytes(4, "little") + head + np.ascontiguousarray(arr).tobytes()


def _unpack(raw):
    n = int.from_bytes(raw[:4], "little")
    head = json.loads(raw[4:4 + n])
    return head, raw[4 + n:]


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """`torch.distributed.send(tensor, dst=None, group=None, tag=0, group_dst=None)`: sends tensor to rank dst
    (stored at once; see the module docstring)."""
    _check_tensor(tensor)
    pg, gd = _peer("send", group, dst, group_dst, "dst")
    if pg is None:
        return None
    if gd is None:
        raise ValueError("Must specify dst or group_dst")
    k = (pg._gid, gd, tag)
    seq = _SEND_SEQ.get(k, 0)
    _SEND_SEQ[k] = seq + 1
    _runtime.client().key_value_set_bytes(_key(pg, gd, tag, pg.rank(), seq), _payload(tensor))
    return None


def _deliver(pg, tensor, raw, src_gr):
    head, data = _unpack(raw)
    if head["dtype"] != tensor._dtype.name or int(np.prod(head["shape"])) != tensor.numel():
        raise RuntimeError(f"recv: rank {pg._ranks[src_gr]} sent a tensor of shape {head['shape']} and dtype "
                           f"torch.{head['dtype']}, the receiving tensor has shape {list(tensor._shape)} "
                           "and dtype "
                           f"{tensor._dtype}")
    arr = np.frombuffer(data, dtype=tensor._dtype.np).reshape(tensor._shape)
    tensor._write(jnp.asarray(arr))


def _recv_from(pg, tensor, gs, tag, seq, deadline):
    key = _key(pg, pg.rank(), tag, gs, seq)
    raw = _runtime.wait_key(key, pg._ranks[gs], deadline, f"recv from rank {pg._ranks[gs]}", pg._timeout)
    _runtime.client().key_value_delete(key)
    _deliver(pg, tensor, raw, gs)
    return pg._ranks[gs]


def _take_seq(pg, gs, tag):
    k = (pg._gid, gs, tag)
    seq = _RECV_SEQ.get(k, 0)
    _RECV_SEQ[k] = seq + 1
    return seq


def _try_any(pg, tensor, tag):
    """Receive from whichever rank has a message ready; None when none has."""
    cl = _runtime.client()
    for gs in range(pg.size()):
        if gs == pg.rank():
            continue
        seq = _RECV_SEQ.get((pg._gid, gs, tag), 0)
        key = _key(pg, pg.rank(), tag, gs, seq)
        try:
            raw = cl.key_value_try_get_bytes(key)
        except Exception:
            continue
        _take_seq(pg, gs, tag)
        cl.key_value_delete(key)
        _deliver(pg, tensor, raw, gs)
        return pg._ranks[gs]
    return None


def _recv_any(pg, tensor, tag, deadline):
    delay = 0.001
    while True:
        got = _try_any(pg, tensor, tag)
        if got is not None:
            return got
        if time.monotonic() >= deadline:
            raise DistBackendError(f"recv: timed out after {pg._timeout:g} seconds waiting for a message "
                                   "from any "
                                   f"rank (this is rank {_runtime.rank()})")
        others = [r for r in pg._ranks if r != _runtime.rank()]
        if not _runtime.live_ranks(others):
            raise DistBackendError(f"recv: every other rank ({others}) has left or is no longer running")
        time.sleep(delay)
        delay = min(2 * delay, 0.02)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """`torch.distributed.recv(tensor, src=None, group=None, tag=0, group_src=None) -> int`: receives into
    tensor in place from rank src (any rank when None); returns the sender's rank (-1 when this rank is not
    in the group)."""
    _check_tensor(tensor, "recv")
    pg, gs = _peer("recv", group, src, group_src, "src")
    if pg is None:
        return -1
    deadline = time.monotonic() + pg._timeout
    if gs is None:
        return _recv_any(pg, tensor, tag, deadline)
    return _recv_from(pg, tensor, gs, tag, _take_seq(pg, gs, tag), deadline)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """`torch.distributed.isend(tensor, dst=None, group=None, tag=0, group_dst=None) -> Work`: the message is
    stored before it returns (the Work is already complete)."""
    send(tensor, dst, group, tag, group_dst)
    return completed([tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """`torch.distributed.irecv(tensor, src=None, group=None, tag=0, group_src=None) -> Work`: receives when
    the Work is waited on; `Work.source_rank()` is the sender."""
    _check_tensor(tensor, "irecv")
    pg, gs = _peer("irecv", group, src, group_src, "src")
    if pg is None:
        return None
    source = []
    if gs is None:
        def finish():
            if not source:
                source.append(_recv_any(pg, tensor, tag, time.monotonic() + pg._timeout))
            return [tensor]

        def ready():
            got = _try_any(pg, tensor, tag)
            if got is not None:
                source.append(got)
                return True
            return False
    else:
        seq = _take_seq(pg, gs, tag)

        def finish():
            if not source:
                source.append(_recv_from(pg, tensor, gs, tag, seq, time.monotonic() + pg._timeout))
            return [tensor]

        def ready():
            key = _key(pg, pg.rank(), tag, gs, seq)
            try:
                _runtime.client().key_value_try_get_bytes(key)
            except Exception:
                return False
            return True
    return Work(finish, ready=ready, source=lambda: source[0])


class P2POp:
    """`torch.distributed.P2POp(op, tensor, peer=None, group=None, tag=0, group_peer=None)`: op is
    `torch.distributed.isend` or `irecv`."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        _check_tensor(tensor)
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer


def batch_isend_irecv(p2p_op_list):
    """`torch.distributed.batch_isend_irecv(p2p_op_list) -> list[Work]`: the sends are stored first, then the
    receives are posted (no ordering deadlock); one Work per op, in order."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = [None] * len(p2p_op_list)
    for i, p in enumerate(p2p_op_list):
        if p.op is isend:
            works[i] = isend(p.tensor, p.peer, p.group, p.tag, p.group_peer)
    for i, p in enumerate(p2p_op_list):
        if p.op is irecv:
            works[i] = irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer)
    return works
