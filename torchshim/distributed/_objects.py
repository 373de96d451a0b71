"""The `*_object` collectives: broadcast_object_list, all_gather_object, gather_object, scatter_object_list.

Objects are pickled (as PyTorch) and exchanged in the ranks' agreement step through the coordination
service's key-value store (the same synchronisation as the tensor collectives: a missing or dead rank is
named). Difference from PyTorch: no tensor round trip, so `device=` is accepted and unused (the objects never
go through a device), and tensors inside the objects are pickled with their values.
"""
import base64
import pickle

from . import _agree, _groups
from ._collectives import group_for
from ._types import GroupMember

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list"]


def _dump(obj):
    return base64.b64encode(pickle.dumps(obj)).decode("ascii")


def _load(text):
    return pickle.loads(base64.b64decode(text))


def _rooted(what, group, root, group_root, name):
    pg = _groups.resolve(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None, None
    if group_root is not None:
        if root is not None:
            raise ValueError(f"Can not specify both {name} and group_{name}")
        return pg, int(group_root)
    root = 0 if root is None else int(root)
    if root not in pg._ranks:
        raise ValueError(f"Global rank {root} is not part of group {pg}")
    return pg, pg._ranks.index(root)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """`torch.distributed.broadcast_object_list(object_list, src=None, group=None, device=None,
    group_src=None)`: every rank's object_list (of the same length) becomes src's, in place (src defaults
    to 0)."""
    pg, gr = _rooted("broadcast_object_list", group, src, group_src, "src")
    if pg is None:
        group_for("broadcast_object_list", group)
        return None
    mine = pg.rank() == gr
    extras = _agree.agree(pg, f"broadcast_object_list(len={len(object_list)}, src={pg._ranks[gr]})",
                          "broadcast_object_list", extra=_dump(list(object_list)) if mine else "")
    if not mine:
        object_list[:] = _load(extras[gr])
    return None


def all_gather_object(object_list, obj, group=None):
    """`torch.distributed.all_gather_object(object_list, obj, group=None)`: object_list[i] becomes rank i's
    obj (object_list must have the group's size)."""
    pg = group_for("all_gather_object", group)
    if pg is None:
        return None
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries, the group "
                         f"{pg.size()} "
                         f"ranks")
    extras = _agree.agree(pg, "all_gather_object()", "all_gather_object", extra=_dump(obj))
    for i, e in enumerate(extras):
        object_list[i] = _load(e)
    return None


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """`torch.distributed.gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None)`:
    on dst, object_gather_list[i] becomes rank i's obj (dst defaults to 0)."""
    pg, gr = _rooted("gather_object", group, dst, group_dst, "dst")
    if pg is None:
        group_for("gather_object", group)
        return None
    mine = pg.rank() == gr
    if mine:
        if object_gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        if len(object_gather_list) != pg.size():
            raise ValueError(f"gather_object: object_gather_list has {len(object_gather_list)} entries, the "
                             f"group {pg.size()} ranks")
    elif object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    extras = _agree.agree(pg, f"gather_object(dst={pg._ranks[gr]})", "gather_object", extra=_dump(obj))
    if mine:
        for i, e in enumerate(extras):
            object_gather_list[i] = _load(e)
    return None


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """`torch.distributed.scatter_object_list(scatter_object_output_list, scatter_object_input_list=None,
    src=None, group=None, group_src=None)`: rank i's scatter_object_output_list[0] becomes src's
    scatter_object_input_list[i] (src defaults to 0)."""
    pg, gr = _rooted("scatter_object_list", group, src, group_src, "src")
    if pg is None:
        group_for("scatter_object_list", group)
        return None
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    mine = pg.rank() == gr
    if mine and (scatter_object_input_list is None or len(scatter_object_input_list) != pg.size()):
        raise ValueError(f"scatter_object_list: scatter_object_input_list must have {pg.size()} entries on "
                         "the "
                         f"source rank")
    extras = _agree.agree(pg, f"scatter_object_list(src={pg._ranks[gr]})", "scatter_object_list",
                          extra=_dump(list(scatter_object_input_list)) if mine else "")
    scatter_object_output_list[0] = _load(extras[gr])[pg.rank()]
    return None
