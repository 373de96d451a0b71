"""`torch.functional`: the module where PyTorch defines some tensor functions in Python (`broadcast_shapes`,
`einsum`, `split`, `meshgrid`, `norm`, `unique`, ...); the same functions as `torch.*`.

`svd_lowrank`/`pca_lowrank` are Python over the public API (`_lowrank.py`), the others table ops.
"""
from . import _api, _lowrank

_PYTORCH_NAMES = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
                  "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
                  "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
                  "unique_consecutive", "unravel_index"]
_LOWRANK = {"pca_lowrank": _lowrank.pca_lowrank, "svd_lowrank": _lowrank.svd_lowrank}
__all__ = [n for n in _PYTORCH_NAMES if hasattr(_api, n) or n in _LOWRANK]
globals().update({n: _LOWRANK[n] if n in _LOWRANK else getattr(_api, n) for n in __all__})
Tensor = _api.Tensor


def __getattr__(name):
    # the names the op table installs later (another op module may add them after this import)
    if name in _PYTORCH_NAMES and hasattr(_api, name):
        return getattr(_api, name)
    raise AttributeError(f"module 'torch.functional' has no attribute '{name}'")
