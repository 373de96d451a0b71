"""`torch.autograd.profiler.KinetoStepTracker` (also `torch.profiler.KinetoStepTracker`): the global step
count, kept per requester ("ProfilerStep", optimizers...) so that a step counted by several requesters
counts once. PyTorch tells Kineto when the global count grows; torchshim has no Kineto, so the count is
bookkeeping only (read by `current_step()`)."""
import collections
import warnings

__all__ = ["KinetoStepTracker"]


class KinetoStepTracker:
    """Step counts per requester; the global step is their maximum."""

    _current_step = 0
    _step_dict = collections.defaultdict(int)

    @classmethod
    def init_step_count(cls, requester):
        """`init_step_count(requester: str)`: start `requester` at the current global step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester):
        """`erase_step_count(requester: str) -> bool`: forget `requester`; False when it was not known."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        """`increment_step(requester: str) -> int`: one more step for `requester`; returns the global step
        (warns when it jumped by more than one)."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            if new_step - cls._current_step > 1:
                warnings.warn(f"Profiler step count has increased more than 1 - current_step = "
                              f"{cls._current_step} step dict =  {cls._step_dict}", stacklevel=2)
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls):
        """`current_step() -> int`: the latest step of any requester."""
        return cls._current_step
