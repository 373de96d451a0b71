"""Reentrant activation checkpointing (`use_reentrant=True`): a custom autograd Function whose forward runs
the wrapped function under `no_grad` (nothing saved but the inputs) and whose backward runs it again with
grad enabled on detached inputs and calls `torch.autograd.backward` on that fresh graph (a backward pass
inside a backward pass, as PyTorch's `CheckpointFunction`)."""
import warnings

from .. import _api as torch
from ..autograd._engine import is_checkpoint_valid
from ..autograd.engine_api import backward as _autograd_backward
from ..autograd.function import Function

__all__ = ["CheckpointFunction", "check_backward_validity", "detach_variable", "rng_state_of",
           "with_rng_state"]

_GRAD_MSG = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
             "`inputs` parameter to .backward(). To resolve this error, you can either set "
             "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


def check_backward_validity(inputs):
    """`torch.utils.checkpoint.check_backward_validity(inputs)`: warns when no tensor in `inputs` requires
    grad."""
    if not any(isinstance(inp, torch.Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


def detach_variable(inputs):
    """`torch.utils.checkpoint.detach_variable(inputs: Tuple) -> Tuple`: each tensor detached, keeping its
    `requires_grad`; other values unchanged. A non-tuple raises PyTorch's RuntimeError."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           + type(inputs).__name__)
    out = []
    for inp in inputs:
        if not isinstance(inp, torch.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def rng_state_of(preserve):
    """The default generator's state to restore at recomputation, or None when not preserved."""
    return torch.get_rng_state() if preserve else None


class with_rng_state:
    """Context: runs its body with the default generator set to `state` (None: untouched), then puts the
    generator back where it was (PyTorch's `torch.random.fork_rng`)."""

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        if self.state is not None:
            self.saved = torch.get_rng_state()
            torch.set_rng_state(self.state)

    def __exit__(self, *exc):
        if self.state is not None:
            torch.set_rng_state(self.saved)
        return False


class CheckpointFunction(Function):
    """`torch.utils.checkpoint.CheckpointFunction`: `apply(run_function, preserve_rng_state, *args)`."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = rng_state_of(preserve_rng_state)
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, arg in enumerate(args):
            if isinstance(arg, torch.Tensor):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with torch.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not is_checkpoint_valid():
            raise RuntimeError(_GRAD_MSG)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with with_rng_state(ctx.rng_state), torch.enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        outs, gs = [], []
        for out, g in zip(outputs, grads):
            if isinstance(out, torch.Tensor) and out.requires_grad:
                outs.append(out)
                gs.append(g)
        if not outs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward(outs, gs)
        return (None, None) + tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached)
