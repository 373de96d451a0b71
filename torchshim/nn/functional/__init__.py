"""`torch.nn.functional`: the op table's entries registered with `functional=True` (the same objects as
`torchshim.<name>` where PyTorch has both), plus the Python-level wrappers of the modules in this package
(`F.dropout(input, p, training, inplace)`, `F.relu(input, inplace)`, ...), which win over a table entry of
the same name."""
from ..._autoload import gather
from ...ops._registry import FUNCTIONAL

globals().update(FUNCTIONAL)
__all__ = sorted(set(FUNCTIONAL) | set(gather(__name__, __path__, globals())))
