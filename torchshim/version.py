"""`torch.version`: the build's versions. torchshim is a CPU/JAX build: `cuda`, `hip`, `rocm` and `xpu` are
None as in PyTorch's CPU wheels; `git_version` names torchshim's version (no PyTorch commit built it)."""
from .torch_version import TorchVersion

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = TorchVersion("2.13.0+torchshim.0.1.0")
debug = False
cuda = None
git_version = "torchshim-0.1.0"
hip = None
rocm = None
xpu = None
