"""`torch.distributed.elastic.multiprocessing.api`: `SignalException` only (what the launcher raises when it
is sent one of the signals it handles, after stopping its workers)."""
import signal

__all__ = ["SignalException"]


class SignalException(Exception):
    """`SignalException(msg, sigval)`: the launcher received `sigval` (one of --signals-to-handle)."""

    def __init__(self, msg: str, sigval: signal.Signals) -> None:
        super().__init__(msg)
        self.sigval = sigval
