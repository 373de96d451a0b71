"""`torch.utils.checkpoint`: activation checkpointing (the forward's intermediate values are not kept;
backward runs the function again to get them).

Both of PyTorch's variants: `use_reentrant=True` (`CheckpointFunction`, a backward inside the backward; no
`torch.autograd.grad`, gradients only when an input requires grad) and `use_reentrant=False` (the graph is
kept without its saved values, which a recomputation supplies; works with `torch.autograd.grad`, closures and
double backward). The default generator's state is restored for the recomputation, so dropout draws the same
mask. Differences: selective checkpointing (`create_selective_checkpoint_contexts`) needs PyTorch's aten
operator overloads and raises NotImplementedError; the recomputation always runs the whole function (PyTorch
stops early once it has every saved tensor).
"""
import enum
import warnings

from ._checkpoint_recompute import (CheckpointError, run_checkpointed, set_checkpoint_debug_enabled,
                                    set_checkpoint_early_stop)
from ._checkpoint_reentrant import CheckpointFunction, check_backward_validity, detach_variable

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states", "set_device_states",
           "noop_context_fn", "set_checkpoint_early_stop", "DefaultDeviceType",
           "set_checkpoint_debug_enabled",
           "CheckpointPolicy", "SelectiveCheckpointContext", "create_selective_checkpoint_contexts",
           "SAC_IGNORED_OPS", "GraphExecGroup"]

_REENTRANT_WARNING = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
                      "exception. use_reentrant=False is recommended, but if you need to preserve the "
                      "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
                      "details on the differences between the two variants.")
_SEQUENTIAL_WARNING = ("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
                       "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
                       "passed. use_reentrant=False is recommended, but if you need to preserve the current "
                       "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
                       "the differences between the two variants.")

SAC_IGNORED_OPS = set()


class _NoopContexts:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def noop_context_fn():
    """`torch.utils.checkpoint.noop_context_fn()` -> two no-op context managers (forward, recomputation)."""
    return _NoopContexts(), _NoopContexts()


class DefaultDeviceType:
    """`torch.utils.checkpoint.DefaultDeviceType`: the device type whose RNG state checkpoint preserves
    besides the CPU's ('cuda' by default; torchshim has one generator, so this is only stored)."""

    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type


def get_device_states(*args):
    """`get_device_states(*args) -> (device ids, RNG states)` of the accelerator tensors in args: none on
    this CPU-only facade, so `([], [])`."""
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """`set_device_states(devices, states, *, device_type=None)`: restores accelerator RNG states (none
    exist here: a no-op for the empty lists `get_device_states` returns)."""
    if list(devices) or list(states):
        raise RuntimeError("torchshim has no accelerator generators to restore")


class CheckpointPolicy(enum.Enum):
    """`torch.utils.checkpoint.CheckpointPolicy`."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """`SelectiveCheckpointContext(*, is_recompute, op_output=None)`: what a selective policy receives."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class GraphExecGroup:
    """`torch.utils.checkpoint.GraphExecGroup`: a context grouping several backward calls into one
    recomputation in PyTorch. Here each backward recomputes what it reads, so it only marks the block."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """`create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False)`: PyTorch's
    selective checkpointing decides per aten operator overload (`torch.ops.aten.mm.default`) under
    `__torch_dispatch__`; torchshim has neither, so this raises NotImplementedError."""
    raise NotImplementedError("torch.utils.checkpoint.create_selective_checkpoint_contexts is not supported "
                              "by torchshim: selective checkpointing needs aten operator overloads "
                              "(torch.ops.aten) and __torch_dispatch__, which torchshim does not have. Use "
                              "checkpoint(..., use_reentrant=False) without context_fn (everything "
                              "recomputed).")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """`torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
    determinism_check='default', debug=False, early_stop=True, preserve_rng_state=True, **kwargs)`.

    `function(*args, **kwargs)` runs without keeping its intermediate values; backward recomputes them.
    use_reentrant not given: PyTorch's warning, then the reentrant variant (PyTorch 2.13's default)."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return run_checkpointed(function, args, kwargs, context_fn=context_fn,
                            determinism_check=determinism_check, debug=debug, early_stop=early_stop,
                            preserve_rng_state=preserve)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """`torch.utils.checkpoint.checkpoint_sequential(functions, segments, input, use_reentrant=None,
    preserve_rng_state=True)`: `functions` (a Sequential or a list of modules/functions) split into
    `segments` chunks; every chunk but the last is checkpointed."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn.modules.container import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
