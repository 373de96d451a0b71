"""`torch.serialization`: `save`/`load` in PyTorch's checkpoint formats, and the weights_only allowlist API.

Files written here load in real PyTorch and PyTorch's files load here (see docs/serialization.md). The zip
container is `_zip.py`, pickling `_save.py`, unpickling `_load.py` with `_rebuild.py` (what the pickles call)
and `_names.py` (torch names <-> torchshim objects); the restricted unpickler of
`torch.load(weights_only=True)` is `_weights_only_unpickler.py`.
"""
from . import _weights_only_unpickler
from ._load import default_restore_location, load
from ._rebuild import LoadedStorage, StorageType, _get_layout  # noqa: F401
from ._save import DEFAULT_PROTOCOL, save  # noqa: F401

__all__ = ["save", "load", "StorageType", "default_restore_location", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint", "LoadedStorage"]


def clear_safe_globals():
    """`torch.serialization.clear_safe_globals()`: forget every global added with `add_safe_globals`."""
    _weights_only_unpickler._clear_safe_globals()


def get_safe_globals():
    """`torch.serialization.get_safe_globals()`: the user-added globals that weights_only load accepts."""
    return _weights_only_unpickler._get_safe_globals()


def add_safe_globals(safe_globals):
    """`torch.serialization.add_safe_globals(safe_globals)`: let weights_only load use these classes/functions
    (each a callable, or `(callable, "full.path.name")`), named in a checkpoint `{__module__}.{__qualname__}`.
    A torchshim class is also accepted under its PyTorch name (`torch.nn.modules.linear.Linear`)."""
    _weights_only_unpickler._add_safe_globals(safe_globals)


class safe_globals(_weights_only_unpickler._safe_globals):
    """`torch.serialization.safe_globals(safe_globals)`: a context manager adding globals as safe for
    weights_only load for the duration of the block."""


def get_unsafe_globals_in_checkpoint(f):
    """`torch.serialization.get_unsafe_globals_in_checkpoint(f)`: the `module.name` globals in a checkpoint's
    pickle that weights_only load would refuse (found statically: nothing is loaded)."""
    import io
    from ._load import _is_zipfile
    from ._names import allowed_globals
    from ._zip import ZipReader
    safe = set(allowed_globals()) | set(_weights_only_unpickler._get_user_allowed_globals())

    def scan(opened):
        if not _is_zipfile(opened):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        zip_file = ZipReader(opened)
        if "constants.pkl" in zip_file.get_all_records():
            raise ValueError("Expected input to be a checkpoint returned by torch.save but got a torchscript "
                             "checkpoint")
        data_file = io.BytesIO(zip_file.get_record("data.pkl"))
        return list(_weights_only_unpickler.get_globals_in_pkl(data_file).difference(safe))

    import os
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as opened:
            return scan(opened)
    return scan(f)
