"""Weight normalization (https://arxiv.org/abs/1602.07868), the hook-based API of PyTorch 2.13's
torch/nn/utils/weight_norm.py: `weight_norm(module)` replaces `weight` by the parameters `weight_g`
(magnitude) and `weight_v` (direction) and recomputes `weight = g * v / ||v||` in a forward pre-hook.
Deprecated in PyTorch (FutureWarning) in favour of `torch.nn.utils.parametrizations.weight_norm`.

`norm_except_dim` and `_weight_norm` are `torch.norm_except_dim` / `torch._weight_norm`, written with
torchshim ops; where PyTorch uses its fused kernel (dim 0 or the last dim) a custom Function reproduces its
gradients, including its second derivatives (which treat the norms as constants). Its node is named
`WeightNormInterfaceBackward` (PyTorch: `WeightNormInterfaceBackward0`).
"""
import warnings

from ... import _dtype as D
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """`torch.norm_except_dim(v, pow=2, dim=0)`: the `pow`-norm over every dim but `dim`, kept as size-1 dims
    (`dim=-1`: the norm of the whole tensor, 0-dim)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        output_size = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(output_size)
    if dim == v.dim() - 1:
        output_size = (1,) * (v.dim() - 1) + (v.size(v.dim() - 1),)
        return v.contiguous().view(-1, v.size(v.dim() - 1)).norm(pow, 0).view(output_size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


class _WeightNormInterface(Function):
    """PyTorch's fused `_weight_norm_interface` (used when `dim` is the first or last dim): forward
    `v * (g / ||v||)`; backward PyTorch's `_weight_norm_differentiable_backward`, in which the saved norms are
    constants. So, as in PyTorch, first derivatives are exact but second derivatives miss the terms through
    `||v||` (PyTorch's fused weight norm fails gradgradcheck; the composite path, other dims, does not)."""

    @staticmethod
    def forward(ctx, v, g, dim):
        # like PyTorch's kernel, float16/bfloat16 are computed in float32 and rounded once
        low = v.dtype in (D.float16, D.bfloat16)
        vf, gf = (v.float(), g.float()) if low else (v, g)
        norms = norm_except_dim(vf, 2, dim)
        ctx.save_for_backward(v, g, norms)
        ctx.dim = dim
        return (vf * (gf / norms)).to(v.dtype)

    @staticmethod
    def backward(ctx, grad_w):
        v, g, norms = ctx.saved_tensors
        if not is_grad_enabled() and v.dtype in (D.float16, D.bfloat16):  # PyTorch's fused backward kernel
            grad_v, grad_g = _weight_norm_backward(grad_w.float(), v.float(), g.float(), norms, ctx.dim)
            return grad_v.to(v.dtype), grad_g.to(g.dtype), None
        grad_v, grad_g = _weight_norm_backward(grad_w, v, g, norms.to(g.dtype), ctx.dim)
        return grad_v, grad_g, None


def _weight_norm_backward(grad_w, v, g, norms, dim):
    """PyTorch's `_weight_norm_differentiable_backward`: (grad_v, grad_g) with the norms held constant."""
    bcast_size = [1] * v.dim()
    if dim == 0:
        bcast_size[0] = v.size(0)
        per_dim_sums = (grad_w * v).reshape(v.size(0), -1).sum(1).view(bcast_size)
    else:
        last = v.dim() - 1
        bcast_size[last] = v.size(last)
        per_dim_sums = (grad_w * v).reshape(-1, v.size(last)).sum(0).view(bcast_size)
    grad_v = (g / norms) * (grad_w - v * (per_dim_sums / (norms * norms)))
    grad_g = per_dim_sums / norms
    return grad_v, grad_g


def _weight_norm(v, g, dim=0):
    """`torch._weight_norm(v, g, dim=0)`: `v * (g / norm_except_dim(v, 2, dim))`; for `dim` 0 or the last dim
    through PyTorch's fused node (its gradients, see `_WeightNormInterface`)."""
    if dim == 0 or dim == v.dim() - 1:
        return _WeightNormInterface.apply(v.contiguous(), g.contiguous(), dim)
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook object `weight_norm` registers (`name`, `dim`; `dim=None` is stored as -1)."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """`g * v / ||v||` from the module's `<name>_g` and `<name>_v`."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Reparametrize `module.<name>` (FutureWarning: deprecated in PyTorch); returns the hook."""
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make "
                             "sure to run "
                             "the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Put back `<name>` as a Parameter holding the current normalized weight."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """`weight_norm(module, name='weight', dim=0)`: replace `module.<name>` by `<name>_g` (its norm over every
    dim but `dim`; `dim=None`: over the whole tensor) and `<name>_v` (the weight), recomputed as
    `g * v / ||v||` before every forward. Deprecated (FutureWarning), as in PyTorch.

    >>> m = weight_norm(torchshim.nn.Linear(20, 40))
    >>> m.weight_g.size(), m.weight_v.size()
    (torch.Size([40, 1]), torch.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """`remove_weight_norm(module, name='weight')`: undo `weight_norm` (the weight keeps its current
    value)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
