"""`torch.nn`: Parameter, Module and the layers, `nn.functional`, `nn.init`, `nn.utils`, `nn.parallel`."""
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import functional, init, modules, parallel, parameter, utils  # noqa: F401,E402
from . import attention, common_types, grad  # noqa: F401,E402
from ._factory_kwargs import factory_kwargs  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
