"""What the DataLoader's zygote (_zygote.py) imports before it forks workers: torchshim, the worker loop and
cloudpickle, with jax kept on the CPU. Importing starts no jax backend (no threads), so the forks are safe."""
import os

os.environ["JAX_PLATFORMS"] = "cpu"
os.environ["TORCHSHIM_SPAWN_MAIN"] = ""  # the `torch` alias, if any, runs no main in a worker

from ... import _api  # noqa: E402,F401  (torchshim itself)
from ._utils import worker  # noqa: E402,F401

try:
    import cloudpickle  # noqa: F401
except ImportError:
    pass
