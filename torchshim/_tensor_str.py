"""Tensor printing (placeholder; PyTorch's exact format arrives below)."""
import numpy as np

_opts = {}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    _opts.update(precision=precision)


def tensor_repr(t):
    return f"tensor({np.asarray(t._value)!r})"
