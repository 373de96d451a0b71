"""`torch.distributed.algorithms.join`: the generic join context manager for uneven inputs (`Join`), the
`Joinable` base class (DistributedDataParallel is one) and `JoinHook`.

Protocol (PyTorch 2.13's, for semantics): inside `with Join([...]):`, every iteration of a rank that still
has data starts with `Join.notify_join_context(joinable)` (DDP's forward calls it), an all-reduce of a 1 on
the first joinable's process group. A rank that leaves the loop body (ran out of data) enters `__exit__`,
which all-reduces a 0 in step with that notification: the sum is the number of ranks still training. While
it is not 0, the joined rank runs each joinable's `JoinHook.main_hook()`, which issues the collectives of one
iteration of the others (DDP: the buffer broadcast and the gradient buckets, with zeros); once it is 0, every
rank runs the `post_hook(is_last_joiner)`s (DDP: broadcast the model of the last rank to join).
`throw_on_early_termination=True` adds one all-reduce per iteration, through which the first rank to join
makes every rank raise a RuntimeError.

Every collective here goes through torchshim's agreement check, so a rank whose collectives do not line up
with the others' gets an error naming each rank's call instead of a hang.

Difference from PyTorch: the skew warning (more than 1000 shadowed iterations) is issued with the warnings
module's default filter; PyTorch's `__exit__` first sets the process-wide filter to "once"
(`warnings.simplefilter("once")`), which torchshim does not do.
"""
import abc
import typing
import warnings

from ... import _api as torch
from .. import _collectives, _groups

__all__ = ["JoinHook", "Joinable", "Join"]

_WARN_THRESHOLD = 1000


class JoinHook:
    """`JoinHook`: the two entry points a `Joinable` gives the join context manager. `main_hook()` runs
    once per iteration of the ranks still training (to shadow their collectives); `post_hook(is_last_joiner)`
    runs once when every rank has joined. Both do nothing here; subclasses override them."""

    def main_hook(self):
        """`main_hook() -> None`: shadow one training iteration's collectives of the non-joined ranks."""

    def post_hook(self, is_last_joiner):
        """`post_hook(is_last_joiner: bool) -> None`: run once all ranks have joined; `is_last_joiner` is
        True on the ranks that were among the last to join."""


class _JoinConfig(typing.NamedTuple):
    """What the join context manager tells each `Joinable` (PyTorch's `_JoinConfig`)."""

    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        """The configuration of a joinable outside any join context manager: join logic off."""
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(abc.ABC):
    """`Joinable`: the abstract base of classes usable with `Join`. A subclass must call
    `Joinable.__init__(self)` and implement `join_hook(**kwargs) -> JoinHook` and the properties
    `join_device` and `join_process_group` (where the context manager's own all-reduces run)."""

    @abc.abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abc.abstractmethod
    def join_hook(self, **kwargs):
        """`join_hook(**kwargs) -> JoinHook`: this joinable's hook; every joinable of one context manager
        gets the same `kwargs`."""

    @property
    @abc.abstractmethod
    def join_device(self):
        """The device of the context manager's all-reduces."""

    @property
    @abc.abstractmethod
    def join_process_group(self):
        """The process group of the context manager's all-reduces."""


class Join:
    """`Join(joinables, enable=True, throw_on_early_termination=False, **kwargs)`: the join context manager.

    `joinables` (a non-empty list of `Joinable`, all on one process group; the first one's device is used)
    get their hooks from `joinable.join_hook(**kwargs)`, in order. `enable=False` turns the protocol off
    (the inputs are known to be even). With `throw_on_early_termination=True`, as soon as one rank runs out of
    inputs every rank raises a RuntimeError (the joined one "Rank r exhausted all inputs.", the others
    "Detected at least one rank that exhausted inputs. Throwing across all ranks."). An exception raised in
    the body is propagated at once, without the protocol."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._set_joinable_configs()
        self._extract_dist_info()

    def _set_joinable_configs(self):
        for k, joinable in enumerate(self._joinables):
            joinable._join_config = _JoinConfig(enable=self._enable,
                                                throw_on_early_termination=self._throw_on_early_termination,
                                                is_first_joinable=k == 0)

    def _extract_dist_info(self):
        group, device, first = None, None, True
        for joinable in self._joinables:
            pg = joinable.join_process_group
            if first or group is None:
                group = pg
            elif group != pg:
                raise ValueError("Using join context manager with multiple process groups")
            if device is None:
                device = joinable.join_device
            first = False
        self._process_group = group
        self._rank = _groups.get_rank(group)
        self._device = device

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, tb):
        """Shadow the other ranks' iterations until every rank has joined, then run the post-hooks.
        RuntimeError with `throw_on_early_termination=True`."""
        if not self._enable or exc_type:
            return None
        is_last_joiner = True
        shadowed = 0
        while True:
            if shadowed > _WARN_THRESHOLD:
                warnings.warn(f"Detected uneven input skew of greater than {_WARN_THRESHOLD}. This means "
                              f"that rank {self._rank} has at least {_WARN_THRESHOLD} fewer inputs than "
                              "other currently-active ranks. This level of skew could lead to performance "
                              "degradation during training.", stacklevel=2)
            if self._get_num_nonjoined_procs() == 0:
                break
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            shadowed += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)
        return None

    def _get_num_nonjoined_procs(self):
        """The number of ranks still training: a 0 all-reduced in step with their notifications."""
        count = torch.zeros(1, device=self._device)
        _collectives.all_reduce(count, group=self._process_group)
        return count.item()

    def _notify_procs_to_terminate(self):
        ones = torch.ones(1, device=self._device)
        _collectives.all_reduce(ones, group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """`Join.notify_join_context(joinable) -> Work | None`: tell the context manager that this rank has
        not joined (an async all-reduce of 1, returned); with `throw_on_early_termination`, also learn
        whether a rank has joined and raise RuntimeError on this rank if so. Only the first joinable of a
        context manager communicates; for the others, and outside a context manager, it returns None."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` "
                                 "constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        device, group = joinable.join_device, joinable.join_process_group
        ones = torch.ones(1, device=device)
        work = _collectives.all_reduce(ones, group=group, async_op=True)
        if config.throw_on_early_termination:
            joined = torch.zeros(1, device=device)
            _collectives.all_reduce(joined, group=group)
            if joined.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all "
                                   "ranks.")
        return work
