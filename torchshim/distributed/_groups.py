"""Process groups: the default group (WORLD) made by init_process_group, `new_group(ranks)`, and the rank
queries (`get_rank`, `get_world_size`, `get_backend`, `get_process_group_ranks`, `get_global_rank`,
`get_group_rank`).

A ProcessGroup is an ordered list of global ranks with an id that every rank computes the same way (groups are
numbered in creation order: PyTorch, too, requires every rank to call new_group in the same order) and, once
used, a jax Mesh of those ranks' devices (axis "r", in group-rank order) on which its collectives run.
Non-members get `GroupMember.NON_GROUP_MEMBER` from new_group, as PyTorch.
"""
import jax
import numpy as np

from ._types import Backend, GroupMember, group

__all__ = ["ProcessGroup", "new_group", "get_rank", "get_world_size", "get_backend",
           "get_process_group_ranks",
           "get_global_rank", "get_group_rank", "default_group", "resolve", "set_world", "clear",
           "NO_PG"]

NO_PG = "Default process group has not been initialized, please make sure to call init_process_group."


class ProcessGroup:
    """`torch.distributed.ProcessGroup`: `rank()`, `size()`, `name()` (the backend), `group_name`."""

    def __init__(self, ranks, gid, backend, timeout_s, my_rank):
        self._ranks = list(ranks)
        self._gid = gid
        self._backend = Backend(backend)
        self._timeout = timeout_s
        self._rank = self._ranks.index(my_rank)
        self._mesh = None
        self.group_name = str(gid)
        self.seq = 0  # collectives issued on this group (the key of their agreement)

    def rank(self):
        """This process's rank in the group."""
        return self._rank

    def size(self):
        """The number of ranks in the group."""
        return len(self._ranks)

    def name(self):
        """The backend name ("gloo" or "nccl")."""
        return str(self._backend)

    @property
    def mesh(self):
        """The jax Mesh of the group's devices (one per rank, in group-rank order)."""
        if self._mesh is None:
            by_process = {d.process_index: d for d in jax.devices()}
            self._mesh = jax.sharding.Mesh(np.array([by_process[r] for r in self._ranks]), ("r",))
        return self._mesh


class _Registry:
    world = None
    count = 0
    groups = {}
    non_member_ranks = None


_R = _Registry()


def set_world(pg):
    _R.world = pg
    _R.count = 1
    _R.groups = {pg._gid: pg}
    GroupMember.WORLD = pg
    group.WORLD = pg


def clear():
    _R.world = None
    _R.groups = {}
    _R.non_member_ranks = None
    GroupMember.WORLD = None
    group.WORLD = None


def default_group():
    """The default group; ValueError (PyTorch's) before init_process_group."""
    if _R.world is None:
        raise ValueError(NO_PG)
    return _R.world


def resolve(g):
    """The ProcessGroup a `group=` argument means (None: the default group), or NON_GROUP_MEMBER."""
    w = default_group()
    if g is None or g is GroupMember.WORLD:
        return w
    if g == GroupMember.NON_GROUP_MEMBER:
        return GroupMember.NON_GROUP_MEMBER
    if not isinstance(g, ProcessGroup) or _R.groups.get(g._gid) is not g:
        raise ValueError("Invalid process group specified")
    return g


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """`torch.distributed.new_group(ranks=None, timeout=None, backend=None, pg_options=None,
    use_local_synchronization=False, group_desc=None, device_id=None)`: a group of the given global ranks
    (all of them when None). Every rank must call it, in the same order (as PyTorch); a rank outside `ranks`
    gets GroupMember.NON_GROUP_MEMBER. Differences: `pg_options` must be None and `backend` the default
    group's (one backend per job); `use_local_synchronization` is accepted (creating a group needs no
    communication here)."""
    w = default_group()
    if pg_options is not None:
        raise ValueError("torchshim.distributed.new_group: pg_options is not supported (one backend per job)")
    if backend is not None and Backend(backend) not in (w._backend, Backend.UNDEFINED):
        raise ValueError(f"torchshim.distributed.new_group: backend {backend!r} differs from the default "
                         f"group's {w.name()!r} (torchshim runs one backend per job)")
    n = w.size()
    ranks = list(range(n)) if ranks is None else sorted(int(r) for r in ranks)
    for r in ranks:
        if not 0 <= r < n:
            raise ValueError(f"Invalid rank {r}: ranks in new_group must be in [0, {n - 1}] (world size {n})")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    gid = _R.count
    _R.count += 1
    if w._rank not in ranks:
        _R.non_member_ranks = ranks
        return GroupMember.NON_GROUP_MEMBER
    t = w._timeout if timeout is None else timeout.total_seconds()
    pg = ProcessGroup(ranks, gid, w._backend, t, w._rank)
    _R.groups[gid] = pg
    return pg


def get_rank(group=None):
    """`torch.distributed.get_rank(group=None) -> int`: this process's rank in the group (-1 when it is not a
    member)."""
    g = resolve(group)
    return -1 if g == GroupMember.NON_GROUP_MEMBER else g.rank()


def get_world_size(group=None):
    """`torch.distributed.get_world_size(group=None) -> int`: the group's size (-1 when not a member)."""
    g = resolve(group)
    return -1 if g == GroupMember.NON_GROUP_MEMBER else g.size()


def get_backend(group=None):
    """`torch.distributed.get_backend(group=None) -> Backend`: "gloo" or "nccl"."""
    g = resolve(group)
    if g == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return g._backend


def _ranks_of(g):
    if g == GroupMember.NON_GROUP_MEMBER:
        return _R.non_member_ranks or []
    return g._ranks


def get_process_group_ranks(group):
    """`torch.distributed.get_process_group_ranks(group) -> list[int]`: the group's global ranks."""
    g = resolve(group)
    return list(_ranks_of(g))


def _check_registered(group):
    if group is None:
        raise ValueError("Group None is not registered, please create group with torch.distributed.new_group "
                         "API")
    return resolve(group)


def get_global_rank(group, group_rank):
    """`torch.distributed.get_global_rank(group, group_rank) -> int`."""
    g = _check_registered(group)
    ranks = _ranks_of(g)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """`torch.distributed.get_group_rank(group, global_rank) -> int`."""
    g = _check_registered(group)
    ranks = _ranks_of(g)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)
