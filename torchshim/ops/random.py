"""Random sampling: rand, randn, randint, randperm, normal, bernoulli, multinomial, poisson, the *_like
factories and the in-place samplers uniform_, normal_, random_, bernoulli_, exponential_, geometric_,
log_normal_, cauchy_.

Every draw takes one key from a Generator (`torchshim/_random.py`: the default generator or `generator=`) and
runs in a jitted kernel that builds the key itself (`make_key`), so seeding gives reproducible numbers
within torchshim. The elementwise samplers are `RandomKernel`s (`_random_blocks.py`): a new shape reuses a
kernel compiled per block size instead of compiling its own, with the same numbers. Differences from
PyTorch: the streams differ from PyTorch's (same distributions, other numbers); parameter and value checks
(e.g. multinomial's probabilities, bernoulli's p tensor) read values on the host and are skipped under jax
tracing.
"""
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .subscript import _check_expand
from .._promotion import c_name, short_name
from .._random import draw, make_key
from .._tensor import Size, Tensor
from . import _dispatch as P
from ._random_blocks import RandomKernel, random_kernel
from ._registry import register, write_out
from .indexing import _host, scalar_to
from .views import shape_arg

_HALF = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))
_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


# ---- helpers ---------------------------------------------------------------------------------------------
def _g(x):
    """A double as C++'s ostream prints it (%g), for PyTorch's messages."""
    return f"{float(x):g}"


def _nyi(kernel, d):
    return NotImplementedError(f'"{kernel}" not implemented for \'{short_name(d)}\'')


def _combo(name, *args, **kw):
    got = ", ".join(["Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args]
                    + [f"{k}={type(v).__name__}" for k, v in kw.items()])
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                     "of:")


def _size(size, name):
    if len(size) == 1 and isinstance(size[0], (Size, tuple, list)):
        size = size[0]
    shape = shape_arg(tuple(size), name)
    if any(s < 0 for s in shape):
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")
    return shape


def _dtype(dtype, out, default):
    if out is not None:
        if dtype is not None and dtype is not out._dtype:
            raise RuntimeError(f"dtype {short_name(dtype)} does not match dtype of out parameter "
                               f"({short_name(out._dtype)})")
        return out._dtype
    return default if dtype is None else dtype


def _run(dev, kern, gen, *args, **static):
    """Run `kern(raw_key, draw_number, *args, **static)` on torch device `dev` (a RandomKernel takes the jax
    device first)."""
    raw, n = draw(gen)
    if isinstance(kern, RandomKernel):
        return kern(Dev.to_jax(dev), raw, n, *args, **static)
    with jax.default_device(Dev.to_jax(dev)):
        return kern(raw, n, *args, **static)


def _param(v):
    """A distribution parameter as the kernels take it: integers exact in a double and numpy reals become
    Python floats (the same value after the kernel's cast to the compute dtype), so `normal_(0, std)` and
    `normal_(0.0, std)` share one compiled kernel."""
    if isinstance(v, (int, np.integer)) and -2**53 <= v <= 2**53:
        return float(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _finish(arr, dtype, dev, requires_grad=False, out=None):
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t = P.fresh(arr, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t if out is None else write_out(out, t)


# ---- kernels
# ------------------------------------------------------------------------------------------------
@random_kernel(static=("dt", "dist"), counters=lambda dt, dist: 2 if np.dtype(dt).kind == "c" else 1)
def _sample_k(key, shape, a, b, *, dt, dist):
    """Continuous (and geometric) samples of `shape` and numpy dtype `dt`; a, b are the distribution's
    parameters (numbers or arrays broadcastable to shape). Complex uniform/normal draw real and imaginary
    parts separately (PyTorch samples the view_as_real)."""
    dt = np.dtype(dt)
    a, b = jnp.asarray(a), jnp.asarray(b)
    if dt.kind == "c":  # parameters per (real, imag) part: a complex mean splits, real ones apply to both
        rdt = np.float32 if dt == np.complex64 else np.float64
        parts = [jnp.stack([x.real, x.imag], -1) if jnp.iscomplexobj(x) else x[..., None] for x in (a, b)]
        if dist == "normal":
            parts[1] = parts[1] / np.sqrt(2)
        s = _sample(key, *parts, shape + (2,), rdt, dist)
        return jax.lax.complex(s[..., 0], s[..., 1])
    cdt = np.float32 if dt in _HALF or dt.kind != "f" else dt
    return _sample(key, a, b, shape, cdt, dist).astype(dt)


def _sample(key, a, b, shape, cdt, dist):
    a, b = a.astype(cdt), b.astype(cdt)
    if dist == "uniform":
        return jax.random.uniform(key, shape, cdt) * (b - a) + a
    if dist == "normal":
        return jax.random.normal(key, shape, cdt) * b + a
    if dist == "log_normal":
        return jnp.exp(jax.random.normal(key, shape, cdt) * b + a)
    if dist == "exponential":
        return jax.random.exponential(key, shape, cdt) / a
    if dist == "cauchy":
        return jax.random.cauchy(key, shape, cdt) * b + a
    if dist == "geometric":
        return jax.random.geometric(key, a, shape, jnp.int64).astype(cdt)
    raise ValueError(dist)


@random_kernel(static=("dt", "full"))
def _int_k(key, shape, lo, rng, *, dt, full):
    """Integers lo + (bits % rng) in uint64 two's complement arithmetic (rng = 2**64 when full), as PyTorch's
    random_from_to; then cast to `dt`."""
    bits = jax.random.bits(key, shape, jnp.uint64)
    v = jax.lax.bitcast_convert_type(lo + (bits if full else bits % rng), jnp.int64)
    return v.astype(dt)


@random_kernel(static=("dt",))
def _bernoulli_k(key, shape, p, *, dt):
    p = jnp.asarray(p)
    cdt = jnp.float64 if p.dtype == jnp.float64 else jnp.float32
    return (jax.random.uniform(key, shape, cdt) < p.astype(cdt)).astype(dt)


@P.kernel(static=("count", "dt"))
def _perm_k(raw, n, count, dt):
    return jax.random.permutation(make_key(raw, n), jnp.arange(count, dtype=jnp.int64)).astype(dt)


@P.kernel(static=("k", "replacement"))
def _multinomial_k(raw, n, p, k, replacement):
    key = make_key(raw, n)
    logits = jnp.log(p.astype(jnp.float64 if p.dtype == jnp.float64 else jnp.float32))
    if replacement:
        s = jax.random.categorical(key, logits, axis=-1, shape=(k,) + p.shape[:-1])
        return jnp.moveaxis(s, 0, -1).astype(jnp.int64)
    return jax.lax.top_k(logits + jax.random.gumbel(key, p.shape, logits.dtype), k)[1].astype(jnp.int64)


@P.kernel(static=("dt",))
def _poisson_k(raw, n, lam, dt):
    cdt = np.float32 if np.dtype(dt) in _HALF else dt
    return jax.random.poisson(make_key(raw, n), lam.astype(cdt), lam.shape, jnp.int64).astype(dt)


# ---- in-place samplers
# -----------------------------------------------------------------------------------------
def _fill(self, dist, a, b, generator):
    arr = _run(self._storage.device, _sample_k, generator, _param(a), _param(b), shape=self._shape,
               dt=self._dtype.np, dist=dist)
    self._assign_from(arr, dist + "_")
    return self


def _uniform_bounds(d, lo, hi):
    if not (d.is_floating_point or d.is_complex):
        raise _nyi("check_uniform_bounds", d)
    rd = d.to_real()
    mx = float(ml_dtypes.finfo(rd.np).max)
    for name, v in (("from", lo), ("to", hi)):
        if not -mx <= v <= mx:
            raise RuntimeError(f"{name} is out of bounds for {c_name(rd)}")
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(lo)} > "
                           f"to={_g(hi)}")
    if hi - lo > mx:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{short_name(rd)}>::max(), but "
                           f"found to={_g(hi)} and from={_g(lo)} which result in to-from to exceed the limit")


@register("uniform_", function=False, kind="random")
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    """`Tensor.uniform_(from=0, to=1, *, generator=None)`: fill with U[from, to) (floating/complex only;
    complex fills real and imaginary parts independently)."""
    from_ = kw.pop("from", from_)
    _uniform_bounds(self._dtype, from_, to)
    return _fill(self, "uniform", from_, to, generator)


def _check_std(std):
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


@register("normal_", function=False, kind="random")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """`Tensor.normal_(mean=0, std=1, *, generator=None)`: fill with N(mean, std^2); complex tensors get
    real and imaginary parts N(mean, std^2 / 2), as PyTorch."""
    _check_std(std)
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise _nyi("normal_kernel_cpu", self._dtype)
    return _fill(self, "normal", mean, std, generator)


def _continuous_only(name, d, cname=False):
    if not d.is_floating_point:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {c_name(d) if cname else short_name(d)}")


@register("exponential_", function=False, kind="random")
def exponential_(self, lambd=1.0, *, generator=None):
    """`Tensor.exponential_(lambd=1, *, generator=None)`: fill with Exp(lambd) samples (floating dtypes)."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    _continuous_only("Exponential", self._dtype)
    return _fill(self, "exponential", lambd, 0.0, generator)


@register("geometric_", function=False, kind="random")
def geometric_(self, p=None, *, generator=None):
    """`Tensor.geometric_(p, *, generator=None)`: fill with the number of Bernoulli(p) trials up to the first
    success (values >= 1); integer and floating dtypes."""
    if p is None:
        raise TypeError('geometric_() missing 1 required positional arguments: "p"')
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    if self._dtype is D.bool_ or self._dtype.is_complex:
        raise _nyi("geometric_cpu", self._dtype)
    return _fill(self, "geometric", p, 0.0, generator)


@register("log_normal_", function=False, kind="random")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """`Tensor.log_normal_(mean=1, std=2, *, generator=None)`: fill with exp(N(mean, std^2))."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    if not self._dtype.is_floating_point:
        raise _nyi("log_normal_cpu", self._dtype)
    return _fill(self, "log_normal", mean, std, generator)


@register("cauchy_", function=False, kind="random")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """`Tensor.cauchy_(median=0, sigma=1, *, generator=None)`: fill with Cauchy(median, sigma) samples."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    _continuous_only("Cauchy", self._dtype, cname=True)
    return _fill(self, "cauchy", median, sigma, generator)


# ---- integers: random_, randint
# ---------------------------------------------------------------------------------
def _check_random_bounds(lo, to_inc, d):
    """PyTorch's check_from_to_in_range: errors outside the dtype, warnings outside floats' exact integers."""
    if d.is_floating_point:
        info = ml_dtypes.finfo(d.np)
        mn, mx = float(info.min), float(info.max)
    elif d is D.bool_:
        mn, mx = 0, 1
    elif not d.is_complex:
        info = np.iinfo(d.np)
        mn, mx = int(info.min), int(info.max)
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    for name, v in (("from", lo), ("to - 1", to_inc)):
        if not mn <= v <= mx:
            raise RuntimeError(f"{name} is out of bounds for {c_name(d)}")
    if d.is_floating_point:
        digits = _DIGITS[d.name]
        for name, v in (("from", lo), ("to - 1", to_inc)):
            if v < -(1 << digits) or v > (1 << digits):
                warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                              f"limitations {c_name(d)} can support discrete uniform distribution only "
                              "within this range. This warning will become an error in version 1.7 release, "
                              "please fix the code in advance",
                              UserWarning, stacklevel=4)


def _int_range(d, lo, to, plain=False):
    """(lo, range, full) of random_(from=lo, to) on dtype d, with PyTorch's checks."""
    if d.is_complex and plain:
        raise _nyi("random_kernel_cpu", d)
    if to is not None:
        if not lo < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={to}")
        _check_random_bounds(lo, to - 1, d)
        return lo, to - lo, False
    if lo == -(1 << 63):
        return lo, 0, True
    if d.is_floating_point:
        to_inc = 1 << _DIGITS[d.name]
        if abs(lo) > float(ml_dtypes.finfo(d.np).max):
            raise RuntimeError(f"from is out of bounds for {c_name(d)}")
        if not lo < to_inc:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                               f"casted to dtype, but got from={lo} > to_inc={to_inc}")
    elif d.is_complex:
        raise RuntimeError("random_from_to_impl handles only integral, floating-point and boolean types")
    else:
        to_inc = 1 if d is D.bool_ else int(np.iinfo(d.np).max)
    _check_random_bounds(lo, to_inc, d)
    return lo, to_inc - lo + 1, to_inc - lo + 1 == 1 << 64


def _ints(shape, d, lo, to, gen, dev, plain=False):
    lo, rng, full = _int_range(d, lo, to, plain)
    return _run(dev, _int_k, gen, np.uint64(lo & (2**64 - 1)), np.uint64(rng & (2**64 - 1)), shape=shape,
                dt=d.np, full=full)


def _int_arg(name, args, v):
    if isinstance(v, Tensor) and v.numel() == 1 and not (v._dtype.is_floating_point or v._dtype.is_complex):
        return int(v.item())
    if not isinstance(v, int) or isinstance(v, bool):
        raise _combo(name, *args)
    return v


@register("random_", function=False, kind="random")
def random_(self, *args, generator=None, **kw):
    """`Tensor.random_(from=0, to=None, *, generator=None)` / `random_(to)` / `random_()`: integers uniform in
    [from, to); to=None means up to the dtype's largest value (2**mantissa_digits for floating dtypes)."""
    if len(args) > 2:
        raise _combo("random_", *args)
    from_, to = (None, args[0]) if len(args) == 1 else args if args else (None, None)
    from_, to = kw.pop("from", from_), kw.pop("to", to)
    plain = from_ is None and to is None and not args
    lo = 0 if from_ is None else _int_arg("random_", (from_, to), from_)
    to = None if to is None else _int_arg("random_", (from_, to), to)
    self._assign_from(_ints(self._shape, self._dtype, lo, to, generator, self._storage.device, plain),
                      "random_")
    return self


@register("randint", method=False, kind="random")
def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None, layout=None,
            device=None,
            requires_grad=False, pin_memory=False):
    """`torch.randint(low=0, high, size, *, generator=None, out=None, dtype=torch.int64, layout=torch.strided,
    device=None, requires_grad=False)`: integers uniform in [low, high), cast to dtype (default int64; out's
    dtype when out= is given)."""
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], (tuple, list)):
        size = pos.pop()
    if len(pos) == 2 and low is None and high is None:
        low, high = pos
    elif len(pos) == 1:
        if high is None:
            high = pos[0]
        else:
            low = pos[0]
    elif pos:
        raise _combo("randint", *args)
    if size is None or high is None:
        if len(args) == 2 and isinstance(args[1], int):
            raise TypeError("randint(): argument 'size' (position 2) must be tuple of ints, not int")
        raise _combo("randint", *args)
    low = _int_arg("randint", args, 0 if low is None else low)
    high = _int_arg("randint", args, high)
    shape = _size((size,), "randint")
    d = _dtype(dtype, out, D.int64)
    dev = Dev.canonical(device)
    return _finish(_ints(shape, d, low, high, generator, dev), d, dev, requires_grad, out)


@register("randint_like", method=False, kind="random")
def randint_like(input, *args, low=None, high=None, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    """`torch.randint_like(input, low=0, high, *, generator=None, dtype=None, layout=None, device=None,
    requires_grad=False, memory_format=torch.preserve_format)`: randint with input's shape, dtype and
    device."""
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    if high is None:
        raise _combo("randint_like", input, *args)
    low = _int_arg("randint_like", (input, *args), 0 if low is None else low)
    high = _int_arg("randint_like", (input, *args), high)
    d = dtype or input._dtype
    dev = Dev.canonical(device) if device is not None else input._storage.device
    return _finish(_ints(input._shape, d, low, high, generator, dev), d, dev, requires_grad)


@register("randperm", method=False, kind="random")
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """`torch.randperm(n, *, generator=None, out=None, dtype=torch.int64, ...)`: a random permutation of
    0..n-1, with PyTorch's limits for low-precision dtypes."""
    n = _int_arg("randperm", (n,), n)
    (n,) = _size((n,), "randperm")
    d = _dtype(dtype, out, D.int64)
    if d is D.bool_ or d.is_complex:
        raise _nyi("randperm", d)
    scalar_to(n - 1 if n > 0 else n, d)
    limits = {"float16": (2049, "2049", "Half"), "float32": (2**24 + 1, "2^24+1", "Float"),
              "float64": (2**53 + 1, "2^53+1", "Double")}
    if d.name in limits and n > limits[d.name][0]:
        _, txt, nm = limits[d.name]
        raise RuntimeError(f"n cannot be greater than {txt} for {nm} type.")
    dev = Dev.canonical(device)
    return _finish(_run(dev, _perm_k, generator, count=n, dt=d.np), d, dev, requires_grad, out)


# ---- float factories --------------------------------------------------------------------------------------
def _float_factory(name, dist, kernel_name):
    def f(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kw):
        if "size" in kw:
            size = (kw.pop("size"),)
        if kw:
            raise _combo(name, *size, **kw)
        if not size:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        for k, s in enumerate(size):
            if isinstance(s, float):
                raise TypeError(f"{name}(): argument 'size' (position {k + 1}) must be tuple of ints, not "
                                "float")
        shape = _size(size, name)
        d = _dtype(dtype, out, D.get_default_dtype())
        if not (d.is_floating_point or d.is_complex):
            raise _nyi(kernel_name, d)
        dev = Dev.canonical(device)
        a, b = (0.0, 1.0)
        arr = _run(dev, _sample_k, generator, a, b, shape=shape, dt=d.np, dist=dist)
        return _finish(arr, d, dev, requires_grad, out)
    f.__name__ = name
    f.__doc__ = (f"`torch.{name}(*size, *, generator=None, out=None, dtype=None, layout=torch.strided, "
                 "device=None, requires_grad=False, pin_memory=False)`: samples from "
                 + ("U[0, 1)" if dist == "uniform" else "N(0, 1) (complex: N(0, 1/2) per part)")
                 + "; floating and complex dtypes only.")
    return f


def _float_like(name, dist, kernel_name):
    def f(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None):
        d = dtype or input._dtype
        if not (d.is_floating_point or d.is_complex):
            raise _nyi(kernel_name, d)
        dev = Dev.canonical(device) if device is not None else input._storage.device
        arr = _run(dev, _sample_k, generator, 0.0, 1.0, shape=input._shape, dt=d.np, dist=dist)
        return _finish(arr, d, dev, requires_grad)
    f.__name__ = name
    f.__doc__ = (f"`torch.{name}(input, *, generator=None, dtype=None, layout=None, device=None, "
                 f"requires_grad=False, memory_format=torch.preserve_format)`: {name[:-5]} with input's "
                 "shape, dtype and device.")
    return f


rand = register("rand", method=False,
                kind="random")(_float_factory("rand", "uniform", "check_uniform_bounds"))
randn = register("randn", method=False, kind="random")(_float_factory("randn", "normal", "normal_kernel_cpu"))
register("rand_like", method=False,
         kind="random")(_float_like("rand_like", "uniform", "check_uniform_bounds"))
register("randn_like", method=False, kind="random")(_float_like("randn_like", "normal", "normal_kernel_cpu"))


@register("normal", method=False, kind="random")
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """`torch.normal(mean, std, *, generator=None, out=None)` with tensor and/or float mean/std (the result
    has the tensor's shape, broadcast when both are tensors, and mean's dtype for two tensors), or
    `torch.normal(mean: float, std: float, size, *, generator=None, out=None, dtype=None, device=None,
    requires_grad=False)`. A negative std raises like PyTorch (tensor std checked eagerly only)."""
    tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not tm and not ts:
        if size is None or not isinstance(size, (tuple, list)) or not isinstance(mean, (int, float)):
            raise _combo("normal", *[a for a in (mean, std, size) if a is not None])
        _check_std(std)
        shape = _size((size,), "normal")
        d = _dtype(dtype, out, D.get_default_dtype())
        dev = Dev.canonical(device)
    else:
        if size is not None or dtype is not None or device is not None or requires_grad:
            raise _combo("normal", mean, std, size)
        if ts:
            if std._dtype.is_complex:
                raise RuntimeError("normal expects standard deviation to be non-complex")
            s = _host(std._value)
            if s is not None and not (s.size == 0 or s.min() >= 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        else:
            _check_std(std)
        base = mean if tm else std
        d = out._dtype if out is not None else base._dtype
        dev = P.check_devices([t for t in (mean, std) if isinstance(t, Tensor)])
        shapes = [t._shape for t in (mean, std) if isinstance(t, Tensor)]
        try:
            shape = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            P.broadcast_error(shapes)
            raise
        if not (base._dtype.is_floating_point or base._dtype.is_complex):
            raise _nyi("normal_kernel_cpu", base._dtype)
    if not (d.is_floating_point or d.is_complex):
        raise _nyi("normal_kernel_cpu", d)
    a = mean._value if tm else _param(mean)
    b = std._value if ts else _param(std)
    arr = _run(dev, _sample_k, generator, a, b, shape=shape, dt=d.np, dist="normal")
    return _finish(arr, d, dev, requires_grad, out)


# ---- bernoulli, multinomial, poisson
# -------------------------------------------------------------------------
_P_IN = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved? "
         " If so, please report an enhancement request to PyTorch.)")


def _p_tensor(p):
    if p._dtype.is_complex:
        raise _nyi("bernoulli_tensor_cpu_self_", p._dtype)
    if not p._dtype.is_floating_point:
        raise _nyi("bernoulli_tensor_cpu_p_", p._dtype)
    a = _host(p._value)
    if a is not None and a.size and not ((a >= 0) & (a <= 1)).all():
        raise RuntimeError(_P_IN)


def _p_float(p, d):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if d.is_complex:
        raise _nyi("bernoulli_scalar_cpu_", d)


def _bernoulli_(self, p=0.5, *, generator=None):
    """`Tensor.bernoulli_(p=0.5, *, generator=None)`: fill with 0/1 draws of probability p (a number, or a
    floating tensor that expands to self's shape)."""
    if isinstance(p, Tensor):
        if self._dtype.is_complex:
            raise _nyi("bernoulli_tensor_cpu_self_", self._dtype)
        _p_tensor(p)
        _check_expand(p._shape, self._shape, p._dtype)
        pv = p._value
    else:
        _p_float(p, self._dtype)
        pv = p
    self._assign_from(_run(self._storage.device, _bernoulli_k, generator, pv, shape=self._shape,
                           dt=self._dtype.np), "bernoulli_")
    return self


@register("bernoulli", inplace=_bernoulli_, kind="random")
def bernoulli(input, p=None, *, generator=None, out=None):
    """`torch.bernoulli(input, p=None, *, generator=None, out=None)`: 0/1 draws with probabilities `input`
    (floating, each in [0, 1]; the result has input's dtype), or with the number p for every element of a
    tensor shaped like input (any real dtype)."""
    if isinstance(p, Tensor) and p.ndim == 0:
        p = p.item()
    if p is None:
        _p_tensor(input)
        pv = input._value
    else:
        _p_float(p, input._dtype)
        pv = p
    arr = _run(input._storage.device, _bernoulli_k, generator, pv, shape=input._shape, dt=input._dtype.np)
    return _finish(arr, input._dtype, input._storage.device, out=out)


@register("multinomial", kind="random")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """`torch.multinomial(input, num_samples, replacement=False, *, generator=None, out=None)`: int64 category
    indices drawn from the (unnormalised) probability rows of the 1-D/2-D input; without replacement each
    row's samples are distinct (Gumbel top-k). PyTorch's invalid-distribution errors are raised (eager
    only)."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{short_name(input._dtype)}")
    if out is not None and out._dtype is not D.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {short_name(out._dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    ncat = input._shape[-1]
    if not replacement and num_samples > ncat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if ncat > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    a = _host(input._value)
    if a is not None and a.size:
        a = a.astype(np.float64)
        if not replacement or num_samples == 1:
            if not (a.max() < np.inf and a.min() >= 0):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        else:
            if not (a >= 0).all():
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            if not np.isfinite(a).all():
                raise RuntimeError("invalid multinomial distribution (encountering probability entry = "
                                   "infinity or NaN)")
        if (a.sum(-1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    dev = input._storage.device
    if input.numel() == 0:
        return _finish(jnp.zeros(input._shape[:-1] + (num_samples,), jnp.int64), D.int64, dev, out=out)
    arr = _run(dev, _multinomial_k, generator, input._value, k=int(num_samples),
               replacement=bool(replacement))
    return _finish(arr, D.int64, dev, out=out)


@register("poisson", method=False, kind="random")
def poisson(input, generator=None):
    """`torch.poisson(input, generator=None)`: Poisson draws with rates `input` (floating, non-negative), in
    input's dtype."""
    if not input._dtype.is_floating_point:
        raise _nyi("poisson_cpu", input._dtype)
    a = _host(input._value)
    if a is not None and a.size and not (a.astype(np.float64) >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    dev = input._storage.device
    return _finish(_run(dev, _poisson_k, generator, input._value, dt=input._dtype.np), input._dtype, dev)
