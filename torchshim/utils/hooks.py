"""`torch.utils.hooks`: the handles every `register_*hook` returns (defined in `torchshim/_hooks.py`, below
the tape that hands them out)."""
from .._hooks import HookDict, RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle", "HookDict"]
