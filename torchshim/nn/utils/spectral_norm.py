"""Spectral normalization (https://arxiv.org/abs/1802.05957), the hook-based API of PyTorch 2.13's
torch/nn/utils/spectral_norm.py: `spectral_norm(module)` moves `weight` to the parameter `weight_orig`, adds
the buffers `weight_u` / `weight_v` (the power-iteration vectors), and sets `weight = weight_orig / sigma` in
a forward pre-hook, running `n_power_iterations` power-iteration steps (in place on the buffers) in training.

Difference from PyTorch: the initial `u`, `v` are drawn from torchshim's RNG (same distribution, other
numbers).
"""
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def _normalize(x, eps, out=None):
    from ..functional import normalize
    return normalize(x, dim=0, eps=eps, out=out)


class SpectralNorm:
    """The forward pre-hook `spectral_norm` registers. Invariant after each training forward:
    `u = normalize(W @ v)`. Version 1 (PyTorch's): `W` is not a buffer, `v` is, and eval mode computes
    `W = W_orig / (u @ W_orig @ v)`."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """`weight` with `dim` moved first and the rest flattened: (size(dim), -1)."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module, do_power_iteration):
        """`weight_orig / sigma`, sigma = u @ W @ v; with `do_power_iteration`, first update the `u`/`v`
        buffers in place (then use clones of them, so two forwards can be backpropagated together)."""
        torch = _torch()
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = _normalize(torch.mv(weight_mat.t(), u), self.eps, out=v)
                    u = _normalize(torch.mv(weight_mat, v), self.eps, out=u)
                if self.n_power_iterations > 0:
                    u = u.clone()
                    v = v.clone()
        sigma = torch.dot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        """Put back `<name>` as a Parameter holding the current normalized weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """A `v` with `u = normalize(W @ v)` and `u @ W @ v = target_sigma` (pinverse, for old state
        dicts)."""
        torch = _torch()
        v = weight_mat.t().mm(weight_mat).pinverse().mm(weight_mat.t()).mm(u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / torch.dot(u, torch.mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Reparametrize `module.<name>`; returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
                             "sure to "
                             "run the dummy forward before applying spectral normalization")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = _normalize(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalize(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # `weight` stays reachable as a plain attribute (code may expect it), not as a Parameter
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads state dicts saved before version 1 (with `weight`, without `weight_v`): solves for `v`."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")) \
                    and weight_key not in state_dict:
                return  # a current state dict without metadata
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key)
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[weight_key + "_u"]
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v


class SpectralNormStateDictHook:
    """Records `spectral_norm: {'<name>.version': 1}` in the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def _is_conv_transpose(module):
    from .. import modules
    classes = tuple(getattr(modules, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                    if hasattr(modules, n))
    return bool(classes) and isinstance(module, classes)


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """`spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None)`: rescale
    `module.<name>` by its spectral norm, estimated by power iteration before every forward (the vectors are
    updated only in training). `dim` (the output dim): 0, or 1 for ConvTranspose modules.

    >>> m = spectral_norm(torchshim.nn.Linear(20, 40))
    >>> m.weight_u.size()
    torch.Size([40])
    """
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """`remove_spectral_norm(module, name='weight')`: undo `spectral_norm` (the weight keeps its current
    normalized value; no power iteration). As in PyTorch 2.13, the load_state_dict pre-hook is left in
    place."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    for k, hook in module._load_state_dict_pre_hooks.items():
        # as in PyTorch, this never matches (the hook is stored wrapped in a _WrappedHook), so the load
        # pre-hook stays: a strict load_state_dict after remove_spectral_norm reports weight_orig/weight_u
        # missing
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module

