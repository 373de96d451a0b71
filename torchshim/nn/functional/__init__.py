"""`torch.nn.functional`: the op table's entries registered with `functional=True` (the same objects as
`torchshim.<name>` where PyTorch has both), plus the Python-level wrappers of the modules in this package
(`F.dropout(input, p, training, inplace)`, `F.relu(input, inplace)`, ...) for the functions whose Python
signature does more than call the op (argument parsing, deprecation warnings). Each name has one definition:
an op wrapped here is registered without `functional=True`."""
from ..._autoload import gather
from types import FunctionType as _FunctionType

from ...ops._override import overridable as _overridable
from ...ops._registry import FUNCTIONAL

globals().update(FUNCTIONAL)
_wrappers = set(gather(__name__, __path__, globals()))
if _wrappers & set(FUNCTIONAL):
    raise RuntimeError("torch.nn.functional: defined both by the op table (functional=True) and by a "
                       f"wrapper: {sorted(_wrappers & set(FUNCTIONAL))}")
# the `__torch_function__` hook (ops/_override.py): `F.relu(proxy)` records one node under torch.fx
for _n in _wrappers:
    if isinstance(globals()[_n], _FunctionType):
        globals()[_n] = _overridable(globals()[_n], keywords=True)
__all__ = sorted(set(FUNCTIONAL) | _wrappers)
