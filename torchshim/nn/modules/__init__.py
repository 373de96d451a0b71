"""`torch.nn.modules`: every layer class, gathered from the `__all__` of the modules in this package
(module.py, container.py, linear.py, conv.py, ...)."""
from ..._autoload import gather

__all__ = gather(__name__, __path__, globals())
