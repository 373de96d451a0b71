"""`torch.utils.backcompat`: the 0.2-era warning switches (defined in `torchshim/_backcompat.py`, which the
ops read)."""
from ..._backcompat import Warning, broadcast_warning, keepdim_warning  # noqa: F401
