"""`torch.functional`: the module where PyTorch defines some tensor functions in Python (`broadcast_shapes`,
`einsum`, `split`, `meshgrid`, `norm`, `unique`, ...); the same functions as `torch.*`.

Names of PyTorch's list that torchshim does not have yet (`chain_matmul`, `istft`, `lu`, `pca_lowrank`,
`stft`, `svd_lowrank`: linear-algebra and spectral ops) are bound here once `torch.*` has them.
"""
from . import _api

_PYTORCH_NAMES = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
                  "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
                  "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
                  "unique_consecutive", "unravel_index"]
__all__ = [n for n in _PYTORCH_NAMES if hasattr(_api, n)]
globals().update({n: getattr(_api, n) for n in __all__})
Tensor = _api.Tensor


def __getattr__(name):
    # the names the op table installs later (another op module may add them after this import)
    if name in _PYTORCH_NAMES and hasattr(_api, name):
        return getattr(_api, name)
    raise AttributeError(f"module 'torch.functional' has no attribute '{name}'")
