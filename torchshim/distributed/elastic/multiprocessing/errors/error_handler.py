"""`torch.distributed.elastic.multiprocessing.errors.error_handler.ErrorHandler`: writes a worker's uncaught
exception to the JSON error file named by TORCHELASTIC_ERROR_FILE (set by the launcher for each worker), in
PyTorch's format, so that the launcher's failure summary shows the traceback."""
import faulthandler
import json
import logging
import os
import time
import traceback
import warnings

__all__ = ["ErrorHandler"]

logger = logging.getLogger(__name__)


def error_data(exc, formatted_traceback):
    """The error file's JSON of exception `exc` (PyTorch's layout: message, extraInfo.py_callstack,
    extraInfo.timestamp in whole seconds)."""
    return {"message": {"message": f"{type(exc).__name__}: {exc}",
                        "extraInfo": {"py_callstack": formatted_traceback,
                                      "timestamp": str(int(time.time()))}}}


class ErrorHandler:
    """`ErrorHandler()`: `initialize()` enables faulthandler; `record_exception(e)` writes the error file
    (TORCHELASTIC_ERROR_FILE), or logs what it would have written when the variable is unset;
    `dump_error_file(child_error_file, error_code=0)` copies a child's error file to this process's own
    (nested launchers). Subclass and override `initialize`/`record_exception` to customise, as in PyTorch."""

    def _get_error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE", None)

    def initialize(self) -> None:
        try:
            faulthandler.enable(all_threads=True)
        except Exception as e:  # noqa: BLE001  as PyTorch: a warning, not a failure
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}", stacklevel=2)

    def _write_error_file(self, file_path, error_msg):
        try:
            with open(file_path, "w") as fp:
                fp.write(error_msg)
        except Exception as e:  # noqa: BLE001
            warnings.warn(f"Unable to write error to file. {type(e).__name__}: {e}", stacklevel=2)

    def record_exception(self, e: BaseException) -> None:
        file = self._get_error_file_path()
        data = error_data(e, traceback.format_exc())
        if file:
            with open(file, "w") as fp:
                json.dump(data, fp)
        else:
            logger.error("no error file defined for the current process; error: %s", json.dumps(data))

    def override_error_code_in_rootcause_data(self, rootcause_error_file, rootcause_error, error_code=0):
        """Set `errorCode` in a child's error data (the child cannot know it when a signal killed it)."""
        if "message" not in rootcause_error:
            logger.warning("child error file (%s) does not have field `message`. \ncannot override error "
                           "code: %s", rootcause_error_file, error_code)
        elif isinstance(rootcause_error["message"], str):
            logger.warning("child error file (%s) has a new message format. \nskipping error code override",
                           rootcause_error_file)
        else:
            rootcause_error["message"]["errorCode"] = error_code

    def dump_error_file(self, rootcause_error_file: str, error_code: int = 0):
        """Copy the child's error file (with `errorCode` set when given) to this process's error file."""
        with open(rootcause_error_file) as fp:
            rootcause_error = json.load(fp)
        if error_code:
            self.override_error_code_in_rootcause_data(rootcause_error_file, rootcause_error, error_code)
        my_error_file = self._get_error_file_path()
        if my_error_file:
            if os.path.isfile(my_error_file):
                os.remove(my_error_file)
            self._write_error_file(my_error_file, json.dumps(rootcause_error))
        else:
            logger.error("no error file defined for parent, to copy child error file (%s)",
                         rootcause_error_file)
