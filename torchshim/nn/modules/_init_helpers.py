"""The `torch.nn.init` functions the layers' default initialisation uses, under the names the layer modules
call (`init.calculate_fan_in_and_fan_out`, `init.kaiming_uniform_`, `init.uniform_`, `init.ones_`, ...). They
are `nn.init`'s own functions (torchshim/nn/init.py imports nothing from nn.modules, so there is no cycle)."""
from ..init import *  # noqa: F401,F403
from ..init import _calculate_correct_fan, _calculate_fan_in_and_fan_out  # noqa: F401

calculate_fan_in_and_fan_out = _calculate_fan_in_and_fan_out
