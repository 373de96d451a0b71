"""Comparisons, logical and bitwise ops, and closeness tests.

The binary ops share one path (`_binary`): PyTorch's argument checks, promotion, broadcasting, then the
in-place/out= checks and the kernel's dtype support in PyTorch's order (shape, castability, kernel), and one
jitted kernel per op. Python numbers are converted on the host exactly as PyTorch converts a wrapped scalar to
the common dtype (ints beyond int64 are read as uint64 and wrap in integer math).

Floating comparisons and nonzero tests work on bit patterns (mapped to integers that order like the floats):
XLA's CPU backend treats subnormals as zero in floating compares, PyTorch does not.
"""
import numbers
import operator

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import can_cast, result_type_of, short_name
from .._tensor import Tensor, check_inplace_result
from ..autograd._node import record
from ..autograd.grad_mode import is_grad_enabled, no_grad
from .. import _backcompat
from . import _dispatch as P
from ._dispatch import ALWAYS_BOOL, DEFAULT
from .._methods import add_tensor_method
from ._registry import register, write_out
from .._fused import jit as _fjit

_TWO63, _TWO64 = 2 ** 63, 2 ** 64
_SINT = {1: jnp.int8, 2: jnp.int16, 4: jnp.int32, 8: jnp.int64}
_F32, _F64, _C128 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex128)
_LOW = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))
_VIA_F32 = _LOW + (np.dtype(D.float8_e4m3fn.np), np.dtype(D.float8_e5m2.np))  # doubles cast via float
_BAREBONES = (D.uint16, D.uint32, D.uint64)  # PyTorch's "barebones" unsigned types: few kernels
_FLOAT8 = (D.float8_e4m3fn, D.float8_e5m2)


# ---- operands ----------------------------------------------------------------------------------------------
def _tname(x):
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _number(x):
    """x as a Python number (numpy scalars unwrapped), or None when it is not a number."""
    if isinstance(x, Tensor) or not isinstance(x, numbers.Number):
        return None
    return x.item() if isinstance(x, np.generic) else x


def _check_int(x, other):
    """PyTorch's parsing of a Python int: beyond int64 it is read as uint64 (which does not promote with
    bool); beyond that it fails."""
    if isinstance(x, int) and not isinstance(x, bool):
        if x >= _TWO64:
            raise OverflowError("int too big to convert")
        if x < -_TWO63:
            raise OverflowError("can't convert negative int to unsigned")
        if x >= _TWO63 and isinstance(other, Tensor):
            result_type_of([other._dtype], [], [D.uint64])  # raises for bool, as PyTorch's promotion does


def _scalar(x, cdt):
    """A Python number as a 0-dim numpy array of compute dtype `cdt`, converted like PyTorch's scalar cast
    (on the host: exact, subnormals kept; half/bfloat16/float8 via float; integers wrap)."""
    npd = np.dtype(cdt.np)
    if isinstance(x, bool):
        return np.asarray(x).astype(npd)
    if isinstance(x, int):
        if x >= _TWO63:  # a uint64 scalar: its value for floating math, its int64 bits for integer math
            v = np.asarray(x, dtype=np.uint64)
            if cdt.is_floating_point or cdt.is_complex:
                return v.astype(npd)
            return v.astype(np.int64).astype(npd)
        return np.asarray(x, dtype=np.int64).astype(npd)
    v = np.asarray(x, dtype=np.complex128 if isinstance(x, complex) else np.float64)
    if npd in _VIA_F32:
        v = v.astype(np.float32)
    return v.astype(npd)


def _shape(x):
    return x._shape if isinstance(x, Tensor) else ()


# ---- exact float helpers (inside kernels) ------------------------------------------------------------------
def _widen_f32(x):
    """float32 -> float64 keeping subnormals (XLA's CPU conversion flushes them to zero)."""
    i = jax.lax.bitcast_convert_type(x, jnp.int32)
    mant = i & 0x7FFFFF
    sub = ((i & 0x7F800000) == 0) & (mant != 0)
    m = mant.astype(jnp.float64) * (2.0 ** -149)
    return jnp.where(sub, jnp.where(i < 0, -m, m), x.astype(jnp.float64))


def _narrow_f64(x):
    """float64 -> float32 keeping results that are float32 subnormals (XLA flushes them to zero)."""
    m = jnp.round(jnp.abs(x) * (2.0 ** 149))  # the subnormal's mantissa (2**23: smallest normal); half-even
    bits = m.astype(jnp.int32) | jnp.where(jnp.signbit(x), jnp.int32(-2 ** 31), jnp.int32(0))
    tiny = jax.lax.bitcast_convert_type(bits, jnp.float32)
    return jnp.where(jnp.abs(x) < 2.0 ** -126, tiny, x.astype(jnp.float32))


def _to(x, dt):
    """x cast to numpy dtype `dt` inside a kernel, keeping float32 subnormals (XLA's CPU casts flush them);
    float64 -> half/bfloat16 goes through float32 like PyTorch's casts."""
    dt = np.dtype(dt)
    if x.dtype == dt:
        return x
    if x.dtype == _F64 and dt in (_F32, *_LOW):
        return _narrow_f64(x).astype(dt)
    if x.dtype == _C128 and dt == np.complex64:
        return jax.lax.complex(_narrow_f64(jnp.real(x)), _narrow_f64(jnp.imag(x)))
    if x.dtype == np.dtype(D.bfloat16.np) and dt in (_F64, _C128):
        x = x.astype(jnp.float32)  # exact: bfloat16 is the top half of a float32
    if x.dtype == _F32 and dt in (_F64, _C128):
        return _widen_f32(x).astype(dt)
    if x.dtype == np.complex64 and dt == _C128:
        return jax.lax.complex(_widen_f32(jnp.real(x)), _widen_f32(jnp.imag(x)))
    return x.astype(dt)


def _ordered(x):
    """Float bits as signed integers that order like the floats (both zeros map to 0; nan is not handled)."""
    i = jax.lax.bitcast_convert_type(x, _SINT[x.dtype.itemsize])
    return jnp.where(i < 0, jnp.asarray(jnp.iinfo(i.dtype).min, i.dtype) - i, i)


def _compare(op, a, b):
    """Elementwise `op` (operator.eq/ne/lt/le/gt/ge) of two arrays of one dtype, exact for subnormals."""
    if jnp.issubdtype(a.dtype, jnp.complexfloating):  # only eq/ne reach here
        eq = _compare(operator.eq, jnp.real(a), jnp.real(b)) & _compare(operator.eq, jnp.imag(a), jnp.imag(b))
        return eq if op is operator.eq else ~eq
    if jnp.issubdtype(a.dtype, jnp.floating):
        r = op(_ordered(a), _ordered(b))
        nan = jnp.isnan(a) | jnp.isnan(b)
        return r | nan if op is operator.ne else r & ~nan
    return op(a, b)


def _nonzero(x):
    """x != 0, exact for subnormals; nan is nonzero; complex is nonzero when either part is."""
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return _nonzero(jnp.real(x)) | _nonzero(jnp.imag(x))
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jax.lax.shift_left(jax.lax.bitcast_convert_type(x, _SINT[x.dtype.itemsize]),
                                  jnp.asarray(1, _SINT[x.dtype.itemsize])) != 0
    if x.dtype == bool:
        return x
    return x != 0


def _kernel(body, static=()):
    """jit of `body(a, b, **static)` with both operands first cast to the static compute dtype `cdt`."""
    def k(a, b, *, cdt, **kw):
        return body(_to(jnp.asarray(a), cdt), _to(jnp.asarray(b), cdt), **kw)
    return _fjit(k, static_argnames=("cdt", *static))


def _run(kernel, x, y, cdt, rdt, **kw):
    """Run a `_kernel` on two operands (Tensors or Python numbers) and wrap the result."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        dev = x._storage.device
        if y._storage.device is not dev:
            dev = P.check_devices((x, y))
    else:
        dev = (x if isinstance(x, Tensor) else y)._storage.device
    a = x._value if isinstance(x, Tensor) else _scalar(x, cdt)
    b = y._value if isinstance(y, Tensor) else _scalar(y, cdt)
    if _backcompat.broadcast_warning.enabled:
        P._warn_broadcast(jnp.shape(a), jnp.shape(b))
    return P.fresh(kernel(a, b, cdt=np.dtype(cdt.np), **kw), rdt, dev)


def _cast_error(rdt, odt):
    return RuntimeError(f"result type {short_name(rdt)} can't be cast to the desired output type "
                        f"{short_name(odt)}")


def _not_implemented(kname, d):
    return NotImplementedError(f'"{kname}_cpu" not implemented for \'{short_name(d)}\'')


def _invalid(name, args, sigs):
    got = ", ".join(_tname(a) for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                     "of:\n" + "".join(f" * {s}\n" for s in sigs))


# ---- autograd of the writes --------------------------------------------------------------------------------
# PyTorch: comparisons' in-place forms are differentiable (zero gradient, node `<Op>Backward0` for a number
# other, `<Op>Backward1` for a tensor); bitwise in-place forms check for leaves but have no gradient; logical
# in-place forms and the out= forms of comparisons and logical ops bypass autograd (no leaf check, history
# kept).
def _check_leaf(self):
    """PyTorch's autograd check before a differentiable in-place op runs (before the kernel's own checks)."""
    if not is_grad_enabled():
        return
    base = self._base if self._diff_view else None
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if base is None and self._requires_grad and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _needs_grad(self, other):
    if not is_grad_enabled():
        return False
    view_of_grad = self._diff_view and self._base is not None and self._base._requires_grad
    return self._requires_grad or (isinstance(other, Tensor) and other._requires_grad) or view_of_grad


def _zero_grad_value(name, self, other, result):
    """`result` in self's dtype with a `<Op>Backward{0,1}` node whose gradients are zero."""
    value = P.convert(result, self._dtype, self._storage.device)
    inputs = [self, other] if isinstance(other, Tensor) else [self]
    metas = tuple((t._shape, t._dtype.np) for t in inputs)
    arr = value._value

    def forward(arrays):  # the written values do not depend on the inputs' values through a gradient
        return (jax.lax.stop_gradient(arr),)

    def rule(saved, cotangents, mask):
        return [jnp.zeros(shape, dt) for (shape, dt), m in zip(metas, mask) if m]
    record(f"{name.capitalize()}Backward{len(inputs) - 1}", inputs, [value], forward, None, saves="none",
           rule=rule)
    return value


def _write(target, result, opname, grad, other=None):
    """Write `result` into `target` (an in-place op or out=) with PyTorch's autograd behaviour `grad`:
    'zero' (comparison in-place), 'plain' (regular assignment), 'bypass' (no autograd at all)."""
    if grad == "bypass":
        with no_grad():
            return target._assign_from(result, opname)
    if grad == "zero" and _needs_grad(target, other):
        result = _zero_grad_value(opname[:-1], target, other, result)
    return target._assign_from(result, opname)


_SIG_T = "(Tensor input, Tensor other, *, Tensor out = None)"
_SIG_N = "(Tensor input, Number other, *, Tensor out = None)"
_SIG_M = ("(Tensor other)", "(Number other)")


def _binary(name, body, kind, *, parse, check=None, grad="plain"):
    """Function (with out=), method and in-place forms of an elementwise binary op.

    parse(name, x, y, method) raises PyTorch's TypeError for invalid operands and returns them (numbers
    unwrapped); check(compute dtype) raises the kernel's dtype error; grad: the in-place form's autograd
    ('zero': differentiable with zero gradient, 'plain': leaf checks only, 'bypass': none), see `_write`."""
    kernel = _kernel(body)
    out_grad = "plain" if grad == "plain" else "bypass"

    def core(x, y, out=None, self_=None):
        _check_int(x, y)
        _check_int(y, x)
        if self_ is not None and grad != "bypass":
            _check_leaf(self_)
        cdt, rdt = P.promote(kind, (x, y))
        shape = P.broadcast_error((_shape(x), _shape(y)))
        if self_ is not None:
            check_inplace_result(self_, rdt, shape)
        elif isinstance(out, Tensor) and not can_cast(rdt, out._dtype):
            raise _cast_error(rdt, out._dtype)
        if check is not None:
            check(cdt)
        result = _run(kernel, x, y, cdt, rdt)
        if self_ is not None:
            return _write(self_, result, name + "_", grad, y)
        if out is None:
            return result
        if out_grad == "bypass":
            with no_grad():
                return write_out(out, result)
        return write_out(out, result)

    def function(input, other, *, out=None):
        x, y = parse(name, input, other, False)
        return core(x, y, out)

    def method(self, other):
        x, y = parse(name, self, other, True)
        return core(x, y)

    def inplace(self, other):
        x, y = parse(name + "_", self, other, True)
        return core(x, y, self_=self)

    def dunder(self, other):
        y = _number(other) if not isinstance(other, Tensor) else other
        return NotImplemented if y is None else core(self, y)

    def rdunder(self, other):
        y = _number(other)
        return NotImplemented if y is None else core(y, self)

    def idunder(self, other):
        y = _number(other) if not isinstance(other, Tensor) else other
        return NotImplemented if y is None else core(self, y, self_=self)

    function.__name__, method.__name__, inplace.__name__ = name, name, name + "_"
    return function, method, inplace, dunder, rdunder, idunder


def _parse_tensor_number(name, x, y, method):
    """input: Tensor; other: Tensor or number (comparisons, bitwise ops' method forms)."""
    yn = y if isinstance(y, Tensor) else _number(y)
    if isinstance(x, Tensor) and yn is not None:
        return x, yn
    raise _invalid(name, (y,) if method else (x, y), _SIG_M if method else (_SIG_T, _SIG_N))


def _parse_bitwise(name, x, y, method):
    """Also (Number self, Tensor other) for the function form."""
    if not method and not isinstance(x, Tensor) and isinstance(y, Tensor):
        xn = _number(x)
        if xn is not None:
            return xn, y
        raise _invalid(name, (x, y), (_SIG_T, "(Number self, Tensor other)", _SIG_N))
    if not method and not (isinstance(x, Tensor) and (isinstance(y, Tensor) or _number(y) is not None)):
        raise _invalid(name, (x, y), (_SIG_T, "(Number self, Tensor other)", _SIG_N))
    return _parse_tensor_number(name, x, y, method)


def _must_be_tensor(name, x, argname, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not {_tname(x)}")


def _parse_tensors(name, x, y, method):
    """Both operands must be tensors (logical ops, isclose, equal)."""
    if not method:
        _must_be_tensor(name, x, "input", 1)
    _must_be_tensor(name, y, "other", 1 if method else 2)
    return x, y


def _install(name, forms, aliases=(), dunders=None, doc=""):
    function, method, inplace, dunder, rdunder, idunder = forms
    function.__doc__ = doc
    register(name, method=False, inplace=inplace, aliases=aliases, kind="pointwise")(function)
    for n in (name, *aliases):
        add_tensor_method(n, method)
    if dunders:
        for d, f in zip(dunders, (dunder, rdunder, idunder)):
            add_tensor_method(d, f)
    return function


# ---- comparisons -------------------------------------------------------------------------------------------
_CMP = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
        "ge": operator.ge}
_CMP_ALIASES = {"ne": ("not_equal",), "lt": ("less",), "le": ("less_equal",), "gt": ("greater",),
                "ge": ("greater_equal",)}


def _ordered_check(name):
    def check(cdt):
        if cdt.is_complex or cdt in _BAREBONES or cdt in _FLOAT8:
            raise _not_implemented(name, cdt)
    return check


def _logical_check(name):
    def check(cdt):
        if cdt in _BAREBONES or cdt in _FLOAT8:
            raise _not_implemented(name, cdt)
    return check


for _name, _op in _CMP.items():
    _forms = _binary(_name, lambda a, b, op=_op: _compare(op, a, b), ALWAYS_BOOL, parse=_parse_tensor_number,
                     check=None if _name in ("eq", "ne") else _ordered_check(_name), grad="zero")
    _install(_name, _forms, _CMP_ALIASES.get(_name, ()), doc=(
        f"`torch.{_name}(input, other, *, out=None)` -> bool tensor, elementwise `input {_op.__name__} "
        "other`; "
        "other may be a number. Complex inputs only for eq/ne, as in PyTorch."))
    add_tensor_method(f"__{_name}__", _forms[3])  # (Tensor.__hash__ stays id-based: see _tensor.py)


# ---- logical: any dtype in, bool out -----------------------------------------------------------------------
_LOGICAL = {"logical_and": jnp.logical_and, "logical_or": jnp.logical_or, "logical_xor": jnp.logical_xor}
for _name, _fn in _LOGICAL.items():
    _install(_name, _binary(_name, lambda a, b, f=_fn: f(_nonzero(a), _nonzero(b)), ALWAYS_BOOL,
                            parse=_parse_tensors, check=_logical_check(_name), grad="bypass"),
             doc=f"`torch.{_name}(input, other, *, out=None)` -> bool tensor: elementwise, nonzero is True "
                 "(both operands must be tensors).")

_logical_not_k = _fjit(lambda a: ~_nonzero(a))


def _logical_not(input, out=None, self_=None, name="logical_not"):
    _must_be_tensor(name, input, "input", 1)
    _logical_check("logical_not")(input._dtype)
    result = P.fresh(_logical_not_k(input._value), D.bool_, input._storage.device)
    if self_ is not None:
        return _write(self_, result, "logical_not_", "bypass")
    if out is None:
        return result
    with no_grad():
        return write_out(out, result)


@register("logical_not", inplace=lambda self: _logical_not(self, self_=self), kind="pointwise")
def logical_not(input, *, out=None):
    """`torch.logical_not(input, *, out=None)` -> bool tensor: True where input is zero (out= may have any
    dtype)."""
    return _logical_not(input, out)


# ---- bitwise: integer and bool only ------------------------------------------------------------------------
def _integral_check(kname, allow_bool=True, barebones=True):
    def check(cdt):
        if (cdt.is_floating_point or cdt.is_complex or (not allow_bool and cdt is D.bool_)
                or (not barebones and cdt in _BAREBONES)):
            raise _not_implemented(kname, cdt)
    return check


def _lshift(a, b):
    bits = a.dtype.itemsize * 8
    r = jnp.left_shift(a, jnp.clip(b, 0, bits - 1))
    return jnp.where((b < 0) | (b >= bits), jnp.zeros_like(r), r)  # 0 for negative or too-wide shifts


def _rshift(a, b):
    bits = a.dtype.itemsize * 8
    if jnp.issubdtype(a.dtype, jnp.signedinteger):  # negative or too-wide shifts fill with the sign bit
        return jnp.right_shift(a, jnp.where((b < 0) | (b >= bits - 1), bits - 1, b).astype(a.dtype))
    r = jnp.right_shift(a, jnp.clip(b, 0, bits - 1))
    return jnp.where(b >= bits, jnp.zeros_like(r), r)


_BITWISE = {
    "bitwise_and": ("bitwise_and", jnp.bitwise_and, ("__and__", "__rand__", "__iand__")),
    "bitwise_or": ("bitwise_or", jnp.bitwise_or, ("__or__", "__ror__", "__ior__")),
    "bitwise_xor": ("bitwise_xor", jnp.bitwise_xor, ("__xor__", "__rxor__", "__ixor__")),
    "bitwise_left_shift": ("lshift", _lshift, ("__lshift__", "__rlshift__", "__ilshift__")),
    "bitwise_right_shift": ("rshift", _rshift, ("__rshift__", "__rrshift__", "__irshift__")),
}
for _name, (_kname, _fn, _ops) in _BITWISE.items():
    _install(_name, _binary(_name, lambda a, b, f=_fn: f(a, b), DEFAULT, parse=_parse_bitwise,
                            check=_integral_check(_kname, "shift" not in _name, "shift" not in _name)),
             dunders=_ops, doc=f"`torch.{_name}(input, other, *, out=None)`: integer tensors"
                               f"{'' if 'shift' in _name else ' and bool'} only; either operand may be a "
                               "number.")

_bitwise_not_k = _fjit(lambda a: jnp.logical_not(a) if a.dtype == bool else jnp.invert(a))


def _bitwise_not(input, out=None, self_=None):
    _must_be_tensor("bitwise_not", input, "input", 1)
    if self_ is not None:
        _check_leaf(self_)
    if isinstance(out, Tensor) and out._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {short_name(out._dtype)} but expected {short_name(input._dtype)}")
    _integral_check("bitwise_not", barebones=False)(input._dtype)
    result = P.fresh(_bitwise_not_k(input._value), input._dtype, input._storage.device)
    if self_ is not None:
        return self_._assign_from(result, "bitwise_not_")
    return result if out is None else write_out(out, result)


@register("bitwise_not", inplace=lambda self: _bitwise_not(self, self_=self), kind="pointwise")
def bitwise_not(input, *, out=None):
    """`torch.bitwise_not(input, *, out=None)` (`~x`): integer and bool tensors only; out= must have input's
    dtype, as in PyTorch."""
    return _bitwise_not(input, out)


def _invert(self):
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _bitwise_not(self)


add_tensor_method("__invert__", _invert)


# ---- closeness and equality --------------------------------------------------------------------------------
def _isclose_body(a, b, *, rtol, atol, equal_nan, fdt):
    """PyTorch's isclose, step by step in the operands' dtype (half/bfloat16 steps in float32, rounded after
    each op, as PyTorch's kernels do); integer and bool operands are first cast to the default float dtype."""
    close = _compare(operator.eq, a, b)
    inexact = jnp.issubdtype(a.dtype, jnp.inexact)
    if equal_nan and inexact:
        close = close | (jnp.isnan(a) & jnp.isnan(b))
    if rtol == 0 and atol == 0:
        return close
    if not inexact:
        a, b = a.astype(fdt), b.astype(fdt)
    dt = a.dtype
    op_t = jnp.float32 if dt in _LOW else dt
    allowed = jnp.abs((b.astype(op_t) * rtol).astype(dt))
    real = allowed.dtype
    allowed = (allowed.astype(jnp.float32 if real in _LOW else real) + atol).astype(real)
    actual = jnp.abs((a.astype(op_t) - b.astype(op_t)).astype(dt))
    return close | (jnp.isfinite(actual) & _compare(operator.le, actual, allowed))


_isclose_k = _kernel(_isclose_body, static=("rtol", "atol", "equal_nan", "fdt"))


def _isclose(name, input, other, rtol, atol, equal_nan, method):
    _parse_tensors(name, input, other, method)
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{short_name(input._dtype)} did not match {short_name(other._dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    P.broadcast_error((input._shape, other._shape))
    if input._dtype in _FLOAT8 and (rtol != 0 or atol != 0):
        raise NotImplementedError(f'"mul_cpu_reduced_float" not implemented for '
                                  f'\'{short_name(input._dtype)}\'')
    return _run(_isclose_k, input, other, input._dtype, D.bool_, rtol=float(rtol), atol=float(atol),
                equal_nan=bool(equal_nan), fdt=np.dtype(D.get_default_dtype().np))


@register("isclose", method=False, kind="pointwise")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`torch.isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)` -> bool tensor:
    `input == other | |input - other| <= atol + rtol * |other|`; both tensors must have the same dtype."""
    return _isclose("isclose", input, other, rtol, atol, equal_nan, False)


def _isclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`Tensor.isclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)`; see `torch.isclose`."""
    return _isclose("isclose", self, other, rtol, atol, equal_nan, True)


_all_k = _fjit(jnp.all)


@register("allclose", method=False, kind="pointwise")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`torch.allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)` -> Python bool
    (`isclose(...).all()`; a host round-trip by definition)."""
    return bool(_all_k(_isclose("allclose", input, other, rtol, atol, equal_nan, False)._value))


def _allclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`Tensor.allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)`; see `torch.allclose`."""
    return bool(_all_k(_isclose("allclose", self, other, rtol, atol, equal_nan, True)._value))


_equal_k = _fjit(lambda a, b, cdt: jnp.all(_compare(operator.eq, _to(a, cdt), _to(b, cdt))),
                   static_argnames=("cdt",))


def _equal(input, other, method):
    _parse_tensors("equal", input, other, method)
    P.check_devices((input, other))
    if input._shape != other._shape:
        return False
    if (input._dtype in _FLOAT8 and input._dtype is other._dtype and input._storage is other._storage
            and input._offset == other._offset and input._stride == other._stride):
        raise _not_implemented("equal_notnan", input._dtype)  # PyTorch's fast path for a tensor and itself
    cdt = P.promote(DEFAULT, (input, other))[0]
    return bool(_equal_k(input._value, other._value, cdt=np.dtype(cdt.np)))


@register("equal", method=False, kind="pointwise")
def equal(input, other):
    """`torch.equal(input, other)` -> Python bool: same shape and equal values (dtypes are promoted; nan is
    never equal)."""
    return _equal(input, other, False)


def _equal_method(self, other):
    """`Tensor.equal(other)` -> Python bool; see `torch.equal`."""
    return _equal(self, other, True)


add_tensor_method("isclose", _isclose_method)
add_tensor_method("allclose", _allclose_method)
add_tensor_method("equal", _equal_method)
