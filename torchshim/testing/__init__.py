"""`torch.testing`: `assert_close` (PyTorch's pairing, default tolerances per dtype and mismatch report),
the deprecated `assert_allclose`, `make_tensor` (PyTorch's value ranges per dtype) and `FileCheck` (which
needs TorchScript IR: NotImplementedError).

- `_pairs.py` walks sequences/mappings and pairs the leaves (structure and type errors);
- `_comparison.py` compares each pair and writes the report; `_creation.py` is make_tensor.
"""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor
from ._filecheck import FileCheck

__all__ = ["FileCheck", "assert_allclose", "assert_close", "make_tensor"]
