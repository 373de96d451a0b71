"""The autograd Functions behind DataParallel (PyTorch's torch/nn/parallel/_functions.py): `Broadcast` copies
tensors to several devices (backward: sum the gradients back on the source device), `Scatter` splits a tensor
along `dim` over devices (backward: Gather), `Gather` concatenates per-device tensors on one device
(backward: Scatter). Copies to the tensor's own device are real copies (clones), so every output is a fresh
tensor carrying this Function's history."""
import warnings

from ... import _device as Dev
from ...autograd.function import Function

__all__ = ["Broadcast", "Gather", "Scatter", "as_device"]


def as_device(d):
    """A device argument of the parallel API as a torch device: an int is a cuda index, -1 the cpu."""
    if isinstance(d, int) and not isinstance(d, bool):
        return Dev.CPU if d == -1 else Dev.canonical(Dev.device("cuda", d))
    return Dev.canonical(d)


def _copy_to(t, device):
    return t.clone() if t.device == device else t.to(device)


class Broadcast(Function):
    """`Broadcast.apply(target_devices, *inputs)`: every input copied to every device, flattened device-major
    (`len(devices) * len(inputs)` outputs)."""

    @staticmethod
    def forward(ctx, target_gpus, *inputs):
        ctx.target_gpus = [as_device(d) for d in target_gpus]
        if len(inputs) == 0:
            return ()
        ctx.num_inputs = len(inputs)
        ctx.input_devices = [i.device for i in inputs]
        outputs = [_copy_to(t, d) for d in ctx.target_gpus for t in inputs]
        non_differentiables = [out for k, out in enumerate(outputs)
                               if not ctx.needs_input_grad[1 + k % len(inputs)]]
        ctx.mark_non_differentiable(*non_differentiables)
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        n = ctx.num_inputs
        grads = []
        for i in range(n):
            total = None
            for k in range(len(ctx.target_gpus)):
                g = grad_outputs[k * n + i]
                if g is None:
                    continue
                g = g.to(ctx.input_devices[i])
                total = g if total is None else total + g
            grads.append(total)
        return (None,) + tuple(grads)


class Gather(Function):
    """`Gather.apply(target_device, dim, *inputs)`: `cat(inputs moved to target_device, dim)`; 0-dim inputs
    gathered along dim 0 become a vector (with PyTorch's warning)."""

    @staticmethod
    def forward(ctx, target_device, dim, *inputs):
        from ..._api import cat
        target = as_device(target_device)
        ctx.target_device = target
        ctx.dim = dim
        ctx.input_gpus = tuple(i.device for i in inputs)
        if all(t.dim() == 0 for t in inputs) and dim == 0:
            inputs = tuple(t.view(1) for t in inputs)
            warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; will "
                          "instead unsqueeze and return a vector.", stacklevel=2)
            ctx.unsqueezed_scalar = True
        else:
            ctx.unsqueezed_scalar = False
        ctx.input_sizes = tuple(i.size(ctx.dim) for i in inputs)
        return cat([i.to(target) for i in inputs], dim)

    @staticmethod
    def backward(ctx, grad_output):
        scattered_grads = Scatter.apply(ctx.input_gpus, ctx.input_sizes, ctx.dim, grad_output)
        if ctx.unsqueezed_scalar:
            scattered_grads = tuple(g[0] for g in scattered_grads)
        return (None, None) + tuple(scattered_grads)


class Scatter(Function):
    """`Scatter.apply(target_devices, chunk_sizes, dim, input)`: `input` split along `dim` (in `chunk_sizes`,
    or `chunk(len(devices))`), each piece on its device."""

    @staticmethod
    def forward(ctx, target_gpus, chunk_sizes, dim, input):
        devices = [as_device(d) for d in target_gpus]
        ctx.dim = dim
        ctx.input_device = input.device
        chunks = input.split(list(chunk_sizes), dim) if chunk_sizes else input.chunk(len(devices), dim)
        return tuple(_copy_to(c, d) for c, d in zip(chunks, devices))

    @staticmethod
    def backward(ctx, *grad_output):
        return None, None, None, Gather.apply(ctx.input_device, ctx.dim, *grad_output)
