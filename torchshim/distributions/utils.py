"""`torch.distributions.utils`: broadcasting and probability/logit helpers shared by the distributions."""
from functools import update_wrapper
from numbers import Number

from .. import _api as torch
from ..nn import functional as F
from ..overrides import is_tensor_like

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """`broadcast_all(*values) -> tuple[Tensor, ...]`: broadcast tensors together; Python numbers become
    tensors of the first tensor's dtype and device (of the default dtype when there is no tensor)."""
    if not all(is_tensor_like(v) or isinstance(v, Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(is_tensor_like(v) for v in values):
        options = dict(dtype=torch.get_default_dtype())
        for v in values:
            if isinstance(v, torch.Tensor):
                options = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if is_tensor_like(v) else torch.tensor(v, **options) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """Standard normal draws of `shape` from torchshim's default generator."""
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dimensions of `value`."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """`logits_to_probs(logits, is_binary=False)`: sigmoid (binary) or softmax over the last dimension."""
    if is_binary:
        return torch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """`clamp_probs(probs)`: clamp into `[eps, 1 - eps]`, eps the machine epsilon of `probs.dtype`."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """`probs_to_logits(probs, is_binary=False)`: log-odds (binary) or log-probabilities of clamped probs."""
    p = clamp_probs(probs)
    if is_binary:
        return torch.log(p) - torch.log1p(-p)
    return torch.log(p)


class lazy_property:
    """Decorator: a non-data descriptor computing the value on first access (with grad enabled) and then
    storing it on the instance under the method's name."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: both a lazy_property and a property."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    ar = torch.arange(n, device=device)
    return ar < ar.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """`tril_matrix_to_vec(mat, diag=0)`: the lower-triangular entries (below diagonal `diag`) of a
    (batched) square matrix, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = torch.tril_indices(n, n, offset=diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """`vec_to_tril_matrix(vec, diag=0)`: inverse of `tril_matrix_to_vec`: a (batched) `D x D` lower
    triangular matrix holding `vec`'s entries in row order."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    rows, cols = torch.tril_indices(n, n, offset=diag, device=vec.device)
    if vec.shape[-1] != rows.shape[0]:  # PyTorch's masked assignment fails the same way
        shape = list(vec.shape[:-1])
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(vec.shape)} cannot be broadcast to "
                           f"indexing result of shape {shape + [rows.shape[0]]}")
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((n, n)))
    return _scatter_tril(mat, rows, cols, vec)


def _scatter_tril(mat, rows, cols, vec):
    flat = rows * mat.shape[-1] + cols
    out = mat.reshape(mat.shape[:-2] + (-1,))
    idx = flat.expand(vec.shape[:-1] + flat.shape)
    out = out.scatter(-1, idx, vec)
    return out.reshape(mat.shape)
