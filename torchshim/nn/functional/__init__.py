"""`torch.nn.functional`: the op table's entries registered with `functional=True` (the same objects as
`torchshim.<name>` where PyTorch has both), plus the Python-level wrappers of the modules in this package
(`F.dropout(input, p, training, inplace)`, `F.relu(input, inplace)`, ...) for the functions whose Python
signature does more than call the op (argument parsing, deprecation warnings). Each name has one definition:
an op wrapped here is registered without `functional=True`."""
from ..._autoload import gather
from ...ops._registry import FUNCTIONAL

globals().update(FUNCTIONAL)
_wrappers = set(gather(__name__, __path__, globals()))
if _wrappers & set(FUNCTIONAL):
    raise RuntimeError("torch.nn.functional: defined both by the op table (functional=True) and by a "
                       f"wrapper: {sorted(_wrappers & set(FUNCTIONAL))}")
__all__ = sorted(set(FUNCTIONAL) | _wrappers)
