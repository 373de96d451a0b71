"""`torch.distributed.elastic.multiprocessing.errors`: `record`, `ChildFailedError`, `ProcessFailure`,
`ErrorHandler`, `get_error_handler`.

A worker's `main` decorated with `@record` writes its uncaught exception (with the traceback) to the JSON file
named by TORCHELASTIC_ERROR_FILE, which the launcher (`python -m torchshim.distributed.run`) sets for each
worker; when the worker fails the launcher reads the file and shows the traceback in its failure summary
(`ChildFailedError`), the first failure as root cause, as torchrun does. Without `@record` the summary says
how to enable it (PyTorch's text); under `python -m torchshim run --nproc_per_node N` (where torchshim runs
the script as `import torch`) the uncaught exception is written to the file even without `@record`.
"""
import json
import logging
import os
import signal
import socket
import time
from datetime import datetime
from functools import wraps

from .error_handler import ErrorHandler

__all__ = ["ProcessFailure", "ChildFailedError", "record", "ErrorHandler", "get_error_handler"]

logger = logging.getLogger(__name__)

_EMPTY_ERROR_DATA = {"message": "<NONE>"}
_NOT_AVAILABLE = "<N/A>"
_NO_TRACEBACK = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def get_error_handler():
    """`get_error_handler() -> ErrorHandler`: the handler `record` uses by default."""
    return ErrorHandler()


class ProcessFailure:
    """`ProcessFailure(local_rank, pid, exitcode, error_file)`: a failed worker. Reads `error_file` when it
    exists (then `message` is its JSON message and `timestamp` the time recorded there); otherwise
    `error_file` becomes "<N/A>", `timestamp` now, and `message` says which signal killed the process
    (exitcode < 0) or how to enable tracebacks."""

    def __init__(self, local_rank: int, pid: int, exitcode: int, error_file: str):
        self.local_rank, self.pid, self.exitcode, self.error_file = local_rank, pid, exitcode, error_file
        self.error_file_data = _EMPTY_ERROR_DATA
        self.message = ""
        if error_file and os.path.isfile(error_file):
            with open(error_file) as fp:
                self.error_file_data = json.load(fp)
            message = self.error_file_data["message"]
            if isinstance(message, str):
                self.message, self.timestamp = message, int(self.error_file_data.get("timestamp", 0))
            else:
                self.message, self.timestamp = message, int(message["extraInfo"]["timestamp"])
        else:
            self.error_file = _NOT_AVAILABLE
            self.timestamp = int(time.time())
        if not self.message:
            if self.exitcode < 0:
                self.message = f"Signal {-self.exitcode} ({self.signal_name()}) received by PID {self.pid}"
            else:
                self.error_file_data = dict(self.error_file_data, errorTraits={
                    "category": "system_terminated_error", "retryability": "False"})
                self.message = _NO_TRACEBACK

    def __repr__(self):
        return (f"ProcessFailure(local_rank={self.local_rank}, pid={self.pid}, exitcode={self.exitcode}, "
                f"error_file={self.error_file!r})")

    def signal_name(self) -> str:
        """The name of the signal that killed the process ("SIGTERM"), "<N/A>" for a normal exit."""
        if self.exitcode < 0:
            try:
                return signal.Signals(-self.exitcode).name
            except ValueError:
                return _NOT_AVAILABLE
        return _NOT_AVAILABLE

    def timestamp_isoformat(self):
        """The failure time as YYYY-MM-DD_HH:MM:SS."""
        return datetime.fromtimestamp(self.timestamp).isoformat(sep="_")


class ChildFailedError(Exception):
    """`ChildFailedError(name, failures)`: workers of `name` failed; `failures` = {global rank:
    ProcessFailure}. The message is torchrun's summary: the other failures, then the root cause (the failure
    with the smallest timestamp, the first one in `failures` on a tie) with its traceback."""

    def __init__(self, name: str, failures):
        self.name = name
        self.failures = failures
        if not self.failures:
            raise AssertionError
        super().__init__(self.format_msg())

    def get_first_failure(self):
        """(global rank, ProcessFailure) of the root cause."""
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others, width = "", [], len(title)
        for idx, (rank, failure) in enumerate(self.failures.items()):
            text = _format_failure(idx, rank, failure)
            width = max(width, *(len(line) for line in text.split("\n")))
            if rank == root_rank:
                root = text
            else:
                others.append(text)
        width = min(width, 60)
        return "\n".join(["", boarder_delim * width, title, section_delim * width, "Failures:",
                          "\n".join(others or ["  <NO_OTHER_FAILURES>"]), section_delim * width,
                          "Root Cause (first observed failure):", root, boarder_delim * width])


def _format_failure(idx, rank, failure):
    msg = failure.message
    if isinstance(msg, dict):
        msg = msg.get("extraInfo", {}).get("py_callstack", msg.get("message", _NOT_AVAILABLE))
        msg = msg.replace("\n", "\n  ")
    sig = failure.signal_name()
    sig = f" ({sig})" if sig != _NOT_AVAILABLE else ""
    return "\n".join([f"[{idx}]:", f"  time      : {failure.timestamp_isoformat()}",
                      f"  host      : {socket.getfqdn()}",
                      f"  rank      : {rank} (local_rank: {failure.local_rank})",
                      f"  exitcode  : {failure.exitcode} (pid: {failure.pid}) {sig}",
                      f"  error_file: {failure.error_file}", f"  traceback : {msg}"])


def record(fn, error_handler=None):
    """`record(fn, error_handler=None)`: decorator for a worker's (or launcher's) top-level function. An
    uncaught Exception is written by `error_handler.record_exception` (the TORCHELASTIC_ERROR_FILE file)
    and re-raised; a ChildFailedError (a nested launcher) copies the root cause's error file; SystemExit(0)
    returns None. `error_handler.initialize()` (faulthandler) runs first."""
    if not error_handler:
        error_handler = get_error_handler()

    @wraps(fn)
    def wrapper(*args, **kwargs):
        error_handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as se:
            if se.code == 0:
                return None
            raise
        except ChildFailedError as e:
            rank, failure = e.get_first_failure()
            if failure.error_file != _NOT_AVAILABLE:
                error_handler.dump_error_file(failure.error_file, failure.exitcode)
            else:
                logger.info("local_rank %s FAILED with no error file. Decorate your entrypoint fn with "
                            "@record for traceback info. See: https://pytorch.org/docs/stable/elastic/errors.html",
                            rank)
            raise
        except Exception as e:
            error_handler.record_exception(e)
            raise

    return wrapper
