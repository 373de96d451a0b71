"""`torch.nn.utils.parametrizations`: `weight_norm` and `spectral_norm` on top of `parametrize`, ported from
PyTorch 2.13's torch/nn/utils/parametrizations.py (same parameter names and state_dict keys:
`parametrizations.weight.original0/1`, `parametrizations.weight.original`, `parametrizations.weight.0._u/_v`).

Difference from PyTorch: `orthogonal` is not available (it needs `matrix_exp`, `geqrf` and
`householder_product`, which torchshim does not have); it raises NotImplementedError. `spectral_norm`'s
initial power-iteration vectors come from torchshim's RNG (same distribution, other numbers).
"""
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _is_conv_transpose
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def _normalize(x, eps, out=None):
    from ..functional import normalize
    return normalize(x, dim=0, eps=eps, out=out)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """`orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True)`: not available in
    torchshim (raises NotImplementedError): it needs matrix_exp / geqrf / householder_product."""
    raise NotImplementedError("torch.nn.utils.parametrizations.orthogonal is not supported by torchshim: it "
                              "needs "
                              "torch.matrix_exp, torch.geqrf and torch.linalg.householder_product, which "
                              "torchshim "
                              "does not provide. Use torch.nn.init.orthogonal_ for an orthogonal initial "
                              "value.")


class _WeightNorm(Module):
    """The parametrization `weight = g * v / ||v||` over (g, v) = (original0, original1)."""

    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """`weight_norm(module, name='weight', dim=0)`: parametrize `module.<name>` as `g * v / ||v||` with
    `parametrizations.<name>.original0` = g (the norm over every dim but `dim`; `dim=None`: the whole tensor)
    and `original1` = v. Loads old `weight_norm` state dicts (`<name>_g` / `<name>_v` keys).

    >>> m = weight_norm(torchshim.nn.Linear(20, 40))
    >>> m.parametrizations.weight.original0.size()
    torch.Size([40, 1])
    """
    _weight_norm_mod = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm_mod, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """The parametrization `weight / sigma` (sigma estimated by power iteration, buffers `_u`, `_v`); a 1-D
    weight is just normalized."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                             f"got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", _normalize(u, self.eps))
            self.register_buffer("_v", _normalize(v, self.eps))
            # start from good estimates of the singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        """`n_power_iterations` steps of the power method, updating `_u` and `_v` in place (no history)."""
        torch = _torch()
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = _normalize(torch.mv(weight_mat, self._v), self.eps, out=self._u)
                self._v = _normalize(torch.mv(weight_mat.H, self._u), self.eps, out=self._v)

    def forward(self, weight):
        torch = _torch()
        if weight.ndim == 1:
            return _normalize(weight, self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = torch.vdot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """`spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None)`: parametrize
    `module.<name>` as `weight / sigma`, sigma its spectral norm estimated by power iteration (one more step
    on every access in training mode). `dim`: 0, or 1 for ConvTranspose modules.

    >>> snm = spectral_norm(torchshim.nn.Linear(20, 40))
    >>> snm.parametrizations.weight[0]._u.shape
    torch.Size([40])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
