"""Complex views and conjugation: real, imag, view_as_real, view_as_complex (views whose elements are the real
components of the storage's complex numbers, or complex pairs of a real storage), PyTorch's lazy conjugate and
negative bits (conj, is_conj, resolve_conj, is_neg, resolve_neg), conj_physical, angle and polar.

A component view is an ordinary strided view (its geometry is in units of its own dtype, as PyTorch's) that
carries a *lens* (see `torchshim/_view.py`): reading takes the components of the complex storage, writing
rebuilds the complex numbers and writes them back, and the conj/neg bits are applied on read and undone on
write. So `x.real[0] = 5`, `x.imag.mul_(2)` and `x.conj()[1] = v` change `x`; the views share `x`'s storage,
version counter and `_base`, and their gradients come from the table's `differentiable()` like any view op.
"""

from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import _view as V
from .._promotion import short_name
from .._tensor import Tensor
from ..autograd._node import rename
from ..autograd._ops import any_requires_grad, differentiable
from ..autograd.grad_mode import is_grad_enabled
from . import _dispatch as P
from . import _subgrad as S
from .._methods import add_tensor_method
from ._registry import installed, register
from .._fused import jit as _fjit

__all__ = ["conj"]


def _check_tensor(fname, x, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def _bits(x):
    """(conj, neg) bits of a tensor."""
    lens = x._lens
    return (lens[1], lens[2]) if lens is not None else (False, False)


def _view(x, shape, stride, offset, dtype, conj=False, neg=False):
    """A view of x's storage of another dtype or with other bits (geometry in `dtype`'s units)."""
    root = x._base if x._base is not None else x
    lens = V.lens_of(x._storage.array.dtype, dtype, conj, neg)
    return Tensor._make(x._storage, tuple(shape), tuple(stride), offset, dtype, x._vc, root, lens)


# ---- component views -------------------------------------------------------------------------------------
@register("real", method=False, kind="view", grad_name="SelectBackward0", saves="none")
def real(input):
    """`torch.real(input)` / `Tensor.real`: the real parts of a complex tensor as a view (writes change
    `input`); a real tensor is returned itself."""
    _check_tensor("real", input)
    if not input._dtype.is_complex:
        return input
    return _view(
        input,
        input._shape,
        [2 * s for s in input._stride],
        2 * input._offset,
        input._dtype.to_real(),
        neg=_bits(input)[1],
    )


@register("imag", method=False, kind="view", grad_name="SelectBackward0", saves="none")
def imag(input):
    """`torch.imag(input)` / `Tensor.imag`: the imaginary parts of a complex tensor as a view (of a lazily
    conjugated tensor: a view with the negative bit, as PyTorch's); an error for real tensors."""
    _check_tensor("imag", input)
    if not input._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    conj, neg = _bits(input)
    return _view(
        input,
        input._shape,
        [2 * s for s in input._stride],
        2 * input._offset + 1,
        input._dtype.to_real(),
        neg=neg != conj,
    )


@register("view_as_real", method=False, kind="view", saves="none")
def view_as_real(input):
    """`torch.view_as_real(input)`: a complex tensor as a real view with a trailing dim of size 2 (re, im)."""
    _check_tensor("view_as_real", input)
    conj, neg = _bits(input)
    if conj:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
            "tensor so you can view it as real, use self.resolve_conj(); however, be warned that "
            "the resulting tensor will NOT alias the original."
        )
    if not input._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _view(
        input,
        input._shape + (2,),
        [2 * s for s in input._stride] + [1],
        2 * input._offset,
        input._dtype.to_real(),
        neg=neg,
    )


@register("view_as_complex", method=False, kind="view", saves="none")
def view_as_complex(input):
    """`torch.view_as_complex(input)`: a float32/float64 tensor whose last dim is (re, im) as a complex view.

    Difference: float16 input (PyTorch's complex32) raises: torchshim has no complex32."""
    _check_tensor("view_as_complex", input)
    d = input._dtype
    if d not in (D.float32, D.float64, D.float16):
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {short_name(d)}"
        )
    shape, stride = input._shape, input._stride
    if not shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if d is D.float16:
        raise RuntimeError(
            "torchshim: view_as_complex of a float16 tensor would be complex32 (ComplexHalf), "
            "which torchshim does not have"
        )
    return _view(
        input,
        shape[:-1],
        [s // 2 for s in stride[:-1]],
        input._offset // 2,
        d.to_complex(),
        neg=_bits(input)[1],
    )


# ---- the conjugate and negative bits -----------------------------------------------------------------------
@register("conj", kind="view", saves="none")
def conj(input):
    """`torch.conj(input)`: a lazily conjugated view of a complex tensor (`is_conj()` is True; writes through
    it are conjugated back into `input`); a real tensor is returned itself."""
    _check_tensor("conj", input)
    if not input._dtype.is_complex:
        return input
    c, n = _bits(input)
    return _view(input, input._shape, input._stride, input._offset, input._dtype, conj=not c, neg=n)


@register("is_conj", kind="property")
def is_conj(input):
    """`torch.is_conj(input)`: True for a lazily conjugated view (from `conj()`)."""
    _check_tensor("is_conj", input)
    return _bits(input)[0]


@register("is_neg", kind="property")
def is_neg(input):
    """`torch.is_neg(input)`: True for a view with the negative bit (`x.conj().imag`)."""
    _check_tensor("is_neg", input)
    return _bits(input)[1]


def _resolved(input):
    from .copy import _with_layout_of

    return _with_layout_of(input, input._value, input._dtype, input._storage.device)


@register("resolve_conj", kind="copy", grad_name="CloneBackward0", saves="none")
def resolve_conj(input):
    """`torch.resolve_conj(input)`: a conjugated copy of a tensor with the conjugate bit, else `input`
    itself."""
    _check_tensor("resolve_conj", input)
    return _resolved(input) if _bits(input)[0] else input


@register("resolve_neg", kind="copy", grad_name="CloneBackward0", saves="none")
def resolve_neg(input):
    """`torch.resolve_neg(input)`: a negated copy of a tensor with the negative bit, else `input` itself."""
    _check_tensor("resolve_neg", input)
    return _resolved(input) if _bits(input)[1] else input


@_fjit
def _conj_array(a):
    return jnp.conj(a)


def _conj_physical_(self):
    """`Tensor.conj_physical_()` / `torch.conj_physical_(input)`: conjugate in place (a real tensor's values
    stay, its version is bumped as PyTorch's)."""
    if not self._dtype.is_complex:
        if is_grad_enabled() and self._requires_grad and self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        self._vc.value += 1
        return self
    value = _pub("conj_physical")(self)  # the recording op
    if value._grad_fn is not None:
        rename(value._grad_fn, "ConjPhysicalBackward1")  # PyTorch's node of the in-place variant
    return self._assign_from(value, "conj_physical_")


@register("conj_physical", inplace=_conj_physical_, inplace_function=True, out=True, kind="pointwise",
          saves="none")
def conj_physical(input):
    """`torch.conj_physical(input, *, out=None)`: the conjugate as a new tensor (no conjugate bit); a real
    tensor is returned itself."""
    _check_tensor("conj_physical", input)
    if not input._dtype.is_complex:
        return input
    from .copy import _with_layout_of

    return _with_layout_of(input, _conj_array(input._value), input._dtype, input._storage.device)


# ---- angle, polar ------------------------------------------------------------------------------------------
@jax.custom_jvp
def _angle(x):
    if jnp.iscomplexobj(x):
        return jnp.angle(x)
    return jnp.where(jnp.isnan(x), x, jnp.where(x < 0, jnp.pi, 0).astype(x.dtype))


def _angle_jvp(primals, tangents):
    """PyTorch's angle_backward as a JVP: Im(conj(x) t) / |x|^2, 0 at x == 0 and for real x."""
    (x,), (t,) = primals, tangents
    out = _angle(x)
    if not jnp.iscomplexobj(x) or not S._live(t):
        return out, jnp.zeros_like(out)
    u = jnp.where(x == 0, jnp.zeros_like(t), t)  # masked first, so the reverse pass masks last (see _subgrad)
    return out, (jnp.imag(jnp.conj(x) * u) / jnp.real(x * jnp.conj(x))).astype(out.dtype)


_angle.defjvp(_angle_jvp, symbolic_zeros=True)


@register("angle", out=True, kind="pointwise")
def angle(input):
    """`torch.angle(input, *, out=None)`: the argument of complex numbers; pi for negative reals, 0 for other
    reals (NaN stays NaN); integer and bool inputs give the default float dtype."""
    _check_tensor("angle", input)
    d = input._dtype
    rd = d.to_real() if d.is_complex else d if d.is_floating_point else D.get_default_dtype()
    x = input._value if d.is_complex or d.is_floating_point else input._value.astype(rd.np)
    return P.fresh(_angle_kernel(x), rd, input._storage.device)


_angle_kernel = _fjit(_angle)


@jax.custom_jvp
def _polar(r, theta):
    return jax.lax.complex(r * jnp.cos(theta), r * jnp.sin(theta))


def _polar_jvp(primals, tangents):
    """PyTorch's polar_backward as a JVP: t_abs * sgn(result) + t_angle * i * result."""
    (r, theta), (tr, tt) = primals, tangents
    out = _polar(r, theta)
    acc = jnp.zeros_like(out)
    if S._live(tr):
        acc = acc + tr * S.sgn(out)
    if S._live(tt):
        acc = acc + tt * (1j * out)
    return out, acc.astype(out.dtype)


_polar.defjvp(_polar_jvp, symbolic_zeros=True)


@register("polar", method=False, kind="composite")
def polar(abs, angle, *, out=None):  # noqa: A002  (PyTorch's argument names)
    """`torch.polar(abs, angle, *, out=None)`: abs * (cos(angle) + i sin(angle)), float32 -> complex64,
    float64 -> complex128, broadcast; laid out like PyTorch's TensorIterator output. float16 raises, as in
    PyTorch."""
    from ._registry import write_out
    from .creation import _broadcast

    _check_tensor("polar", abs, "abs", 1)
    _check_tensor("polar", angle, "angle", 2)
    floats = (D.float32, D.float64, D.float16)
    if abs._dtype not in floats or angle._dtype not in floats:
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got "
            f"{short_name(abs._dtype)} and {short_name(angle._dtype)}"
        )
    if abs._dtype is not angle._dtype:
        raise RuntimeError(
            f"Expected object of scalar type {short_name(abs._dtype)} but got scalar type "
            f"{short_name(angle._dtype)} for second argument"
        )
    _broadcast((abs._shape, angle._shape))
    if abs._dtype is D.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    d = abs._dtype.to_complex()
    if out is not None and is_grad_enabled() and any_requires_grad((abs, angle, out), None):
        raise RuntimeError(
            "polar(): functions with out=... arguments don't support automatic differentiation, but "
            "one of the arguments requires grad."
        )
    if isinstance(out, Tensor) and out._dtype is not d:
        raise RuntimeError(
            f"Expected object of scalar type {short_name(d)} but got scalar type "
            f"{short_name(out._dtype)} for argument 'out'"
        )
    t = _polar_recorded(abs, angle)
    return t if out is None else write_out(out, t)


def _polar_op(abs, angle):  # noqa: A002
    """The recorded forward of `polar` (checked arguments): PolarBackward0."""
    from .creation import _broadcast, _iter_strides, finish

    shape = _broadcast((abs._shape, angle._shape))
    arr = _polar_kernel(abs._value, angle._value, shape)
    return finish(
        arr, abs._dtype.to_complex(), P.check_devices((abs, angle)), stride=_iter_strides(shape, (abs, angle))
    )


_polar_recorded = differentiable("polar", _polar_op)


@partial(_fjit, static_argnums=2)
def _polar_kernel(r, theta, shape):
    return _polar(jnp.broadcast_to(r, shape), jnp.broadcast_to(theta, shape))


# ---- Tensor.real / Tensor.imag: properties with setters, as in PyTorch -------------------------------------
_pub = installed  # the public op, with autograd recording


def _real_get(self):
    return _pub("real")(self)


def _real_set(self, value):
    _pub("real")(self).copy_(value)


def _imag_get(self):
    return _pub("imag")(self)


def _imag_set(self, value):
    _pub("imag")(self).copy_(value)


add_tensor_method("real", property(
    _real_get, _real_set, doc="`x.real`: the real parts (a view); assigning copies into it."))
add_tensor_method("imag", property(
    _imag_get, _imag_set,
    doc="`x.imag`: the imaginary parts (a view); assigning copies into it. Complex tensors only."))
