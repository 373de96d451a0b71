"""The optimizers' update math as pure, jitted jax functions over pytrees.

Every function has the form `name(params, grads, state, *, hyperparameters..., flags...) -> (params, state)`:
`params` and `grads` are lists of jax arrays (one entry per parameter with a gradient), `state` a dict of
lists (one array per parameter for each state entry, e.g. {'step': [...], 'exp_avg': [...]}). Numeric
hyperparameters (lr, betas, eps, weight_decay, ...) are traced float64 scalars, so a scheduler changing them
does not recompile; the booleans (maximize, amsgrad, nesterov, ...) and "is it zero" switches are static.
Nothing is mutated: the caller (`_shell.py`) writes the results back into the tensors. Each is written as the
update of one parameter, `name(p, g, s, *, ...) -> (p, s)`; `_kernel` adds the loop over the parameters (with
PyTorch's prelude: the gradient negated with `maximize`, 'step' incremented), the complex views and the jit.

The code follows PyTorch 2.13's `_single_tensor_*` functions op by op. PyTorch's scalar arithmetic
(bias corrections, step sizes) is Python float64; a scalar meeting a tensor is cast to the op's compute type
first (the tensor's dtype; float32 for float16/bfloat16, which PyTorch computes in float32 and rounds once per
op), then the op runs: `_s`, `_mul`, `_div`, `_adds` below. Compound kernels keep PyTorch's association and
fusion: `addcmul` is `self + (value * t1) * t2` with the last multiply-add fused, `addcdiv` is
`self + (value * t1) / t2`, `add(alpha)` and `lerp` are fused multiply-adds (`_fma` reproduces them exactly,
through float64, for float32). PyTorch's CPU sqrt is not correctly rounded (about 1 ulp off in 17% of float32
values), so float32 results agree to about an ulp per step, not bit for bit.

Complex parameters are updated through real views (`(..., 2)` float arrays), as PyTorch's `view_as_real`.

optax is not used: its updates differ from PyTorch's in operation order (e.g. optax's adam divides the
moments by the bias corrections before the square root, PyTorch folds them into the step size and the
denominator), its state layout differs (int32 counts), and float32 trajectories would drift apart.
"""
import functools

import jax
import jax.numpy as jnp

from ..ops._subgrad import correctly_rounded_divide
from ..ops.pointwise import fmadd
from .._fused import jit as _fjit

__all__ = ["sgd", "adam", "adamax", "nadam", "radam", "rmsprop", "adagrad", "adadelta", "asgd", "rprop"]

_F64 = jnp.float64


def _opmath(dtype):
    """PyTorch's `opmath_type`: float16/bfloat16 kernels compute in float32 and round once per op."""
    return jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else dtype


def _s(x, like):
    """Python-float scalar `x` (a float64 0-d array) as PyTorch's kernels take it next to tensor `like`: cast
    to the op's compute type (the tensor's dtype, float32 for half types)."""
    return jnp.asarray(x).astype(_opmath(like.dtype))


def _c(x, like):
    """Scalar `x` cast to `like`'s own dtype (index_put, clamp bounds, comparisons)."""
    return jnp.asarray(x).astype(like.dtype)


def _up(a):
    return a.astype(_opmath(a.dtype))


def _round(x, dtype):
    """Round an op's result to `dtype`. For float16/bfloat16 the optimization barrier keeps XLA from folding
    the rounding away (it drops f32 -> half -> f32 conversion pairs between fused ops), so each op rounds
    once, as in PyTorch."""
    if dtype in (jnp.float16, jnp.bfloat16):
        return jax.lax.optimization_barrier(x.astype(dtype))
    return x.astype(dtype)


def _sqrt(a):
    """`a.sqrt()`."""
    return _round(jnp.sqrt(_up(a)), a.dtype)


def _tt(fn, a, b):
    """A tensor-tensor op (`fn` = jnp.multiply, jnp.divide, jnp.subtract) rounded once to `a`'s dtype."""
    return _round(fn(_up(a), _up(b)), a.dtype)


def _mul(a, x):
    """`a * x` (`a.mul(x)`) with a Python-float scalar."""
    return _round(_up(a) * _s(x, a), a.dtype)


def _div(a, x):
    """`a / x` with a Python-float scalar, a true division as in PyTorch (ops/_subgrad.py
    `correctly_rounded_divide` keeps XLA from multiplying by the reciprocal)."""
    return _round(correctly_rounded_divide(_up(a), _s(x, a)), a.dtype)


def _adds(a, x):
    """`a + x` (`a.add(x)`) with a Python-float scalar (PyTorch's add casts it to the tensor's dtype)."""
    return _round(_up(a) + _up(_c(x, a)), a.dtype)


def _fma(a, b, c, dtype):
    """`a * b + c` in the compute type, rounded once (ops.pointwise.fmadd), then to `dtype`."""
    return _round(fmadd(a, b, c), dtype)


def _add(a, b, alpha):
    """`a.add(b, alpha=alpha)`: PyTorch's kernel is `fmadd(b, alpha, a)`, alpha cast to the tensor's dtype."""
    return _fma(_up(b), _up(_c(alpha, a)), _up(a), a.dtype)


def _lerp(a, b, w):
    """`a.lerp(b, w)` with a scalar weight: PyTorch's vectorised kernel, `fmadd(w, b - a, a)` for |w| < 0.5
    and `fmadd(w - 1, b - a, b)` otherwise."""
    w = _s(w, a)
    a32, b32 = _up(a), _up(b)
    small = jnp.abs(w) < 0.5
    coeff = jnp.where(small, w, w - jnp.ones((), w.dtype))
    base = jnp.where(small, a32, b32)
    return _fma(coeff, b32 - a32, base, a.dtype)


def _addcmul(a, t1, t2, value):
    """`a.addcmul(t1, t2, value=value)`: `a + (value * t1) * t2`, the last multiply-add fused."""
    return _fma(_s(value, a) * _up(t1), _up(t2), _up(a), a.dtype)


def _addcdiv(a, t1, t2, value):
    """`a.addcdiv(t1, t2, value=value)`: `a + (value * t1) / t2`."""
    return _round(_up(a) + _s(value, a) * _up(t1) / _up(t2), a.dtype)


def _rdiv(x, t):
    """`python_float / tensor`: PyTorch's `Tensor.__rtruediv__` is `t.reciprocal() * x`."""
    up = _up(t)
    return _mul(_round(jnp.ones((), up.dtype) / up, t.dtype), x)


def _incr(step):
    """`step += 1` on a 0-dim scalar-state tensor."""
    return step + jnp.ones((), step.dtype)


def _as_real(x):
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


def _as_complex(x, dtype):
    return jax.lax.complex(x[..., 0], x[..., 1]).astype(dtype)


def _with_real_views(impl):
    """Run `impl` on real views of complex parameters, gradients and per-parameter state, then convert back
    (scalar state such as 'step' stays as is)."""

    @functools.wraps(impl)
    def wrapped(params, grads, state, **kw):
        cplx = [jnp.iscomplexobj(p) for p in params]
        if not any(cplx):
            return impl(params, grads, state, **kw)
        real = lambda x: _as_real(x) if x is not None and jnp.iscomplexobj(x) else x
        new_p, new_s = impl([real(p) for p in params], [real(g) for g in grads],
                            {k: [real(x) for x in v] for k, v in state.items()}, **kw)
        back = lambda x, i: (_as_complex(x, params[i].dtype)
                             if cplx[i] and x is not None and x.ndim == params[i].ndim + 1 else x)
        return ([back(p, i) for i, p in enumerate(new_p)],
                {k: [back(x, i) for i, x in enumerate(v)] for k, v in new_s.items()})

    return wrapped


def _per_param(update):
    """The loop every kernel shares (PyTorch's `_single_tensor_*` loop over the parameters): `update(p, g, s,
    **hyper) -> (p, s)` updates one parameter `p` given its gradient `g` (already negated with `maximize`)
    and `s`, a dict of its state entries with 'step' already incremented (PyTorch's `step_t += 1`, before any
    use of the step); the new parameters and entries are gathered back into lists."""

    def loop(params, grads, state, *, maximize, **hyper):
        new_p, out = [], {k: [] for k in state}
        for i, p in enumerate(params):
            s = {k: v[i] for k, v in state.items()}
            if "step" in s:
                s["step"] = _incr(s["step"])
            p, s = update(p, -grads[i] if maximize else grads[i], s, **hyper)
            new_p.append(p)
            for k, v in s.items():
                out[k].append(v)
        return new_p, out

    loop.__name__, loop.__qualname__, loop.__doc__ = update.__name__, update.__qualname__, update.__doc__
    return loop


def _kernel(*static):
    """Decorator on a one-parameter update (see `_per_param`): the loop over the parameters, real views for
    complex, then `jax.jit` with `maximize` and the named keyword arguments static."""
    static = ("maximize",) + static
    return lambda update: _fjit(_with_real_views(_per_param(update)), static_argnames=static)


def _l2(g, p, weight_decay, has_wd):
    """L2 weight decay as PyTorch: `g = g.add(p, alpha=weight_decay)` when weight_decay != 0."""
    return _add(g, p, weight_decay) if has_wd else g


def _decay(p, g, weight_decay, lr, has_wd, decoupled):
    """Weight decay as PyTorch: decoupled (`p *= 1 - lr * wd`) or L2 (`g = g + wd * p`)."""
    if has_wd and decoupled:
        return _mul(p, 1 - lr * weight_decay), g
    return p, _l2(g, p, weight_decay, has_wd)


# ----- SGD ---------------------------------------------------------------------------------------------
@_kernel("has_wd", "has_momentum", "nesterov")
def sgd(p, g, s, *, lr, momentum, dampening, weight_decay, has_wd, has_momentum, nesterov):
    """`torch.optim.SGD`'s update. state: {'momentum_buffer': [array or None]} when momentum != 0 (None:
    first step, the buffer starts as the gradient)."""
    g = _l2(g, p, weight_decay, has_wd)
    if has_momentum:
        buf = s["momentum_buffer"]
        buf = g if buf is None else _add(_mul(buf, momentum), g, 1 - dampening)
        s = {"momentum_buffer": buf}
        g = _add(g, buf, momentum) if nesterov else buf
    return _add(p, g, -lr), s


# ----- Adam / AdamW --------------------------------------------------------------------------------------
@_kernel("has_wd", "decoupled_weight_decay", "amsgrad")
def adam(p, g, s, *, lr, beta1, beta2, eps, weight_decay, has_wd, decoupled_weight_decay, amsgrad):
    """`torch.optim.Adam` / `AdamW`'s update. state: step, exp_avg, exp_avg_sq (+ max_exp_avg_sq)."""
    step = s["step"]
    p, g = _decay(p, g, weight_decay, lr, has_wd, decoupled_weight_decay)
    m = _lerp(s["exp_avg"], g, 1 - beta1)
    v = _addcmul(_mul(s["exp_avg_sq"], beta2), g, g, 1 - beta2)
    t = step.astype(_F64)
    bias_correction1 = 1 - beta1 ** t
    bias_correction2 = 1 - beta2 ** t
    step_size = lr / bias_correction1
    bias_correction2_sqrt = jnp.sqrt(bias_correction2)
    out = {"step": step, "exp_avg": m, "exp_avg_sq": v}
    if amsgrad:
        vmax = jnp.maximum(s["max_exp_avg_sq"], v)
        out["max_exp_avg_sq"] = vmax
        denom = _adds(_div(_sqrt(vmax), bias_correction2_sqrt), eps)
    else:
        denom = _adds(_div(_sqrt(v), bias_correction2_sqrt), eps)
    return _addcdiv(p, m, denom, -step_size), out


# ----- Adamax ----------------------------------------------------------------------------------------------
@_kernel("has_wd")
def adamax(p, g, s, *, lr, beta1, beta2, eps, weight_decay, has_wd):
    """`torch.optim.Adamax`'s update. state: step, exp_avg, exp_inf."""
    g = _l2(g, p, weight_decay, has_wd)
    m = _lerp(s["exp_avg"], g, 1 - beta1)
    exp_inf = jnp.maximum(_mul(s["exp_inf"], beta2), _adds(jnp.abs(g), eps))
    clr = lr / (1 - beta1 ** s["step"].astype(_F64))
    return _addcdiv(p, m, exp_inf, -clr), {"step": s["step"], "exp_avg": m, "exp_inf": exp_inf}


# ----- NAdam -----------------------------------------------------------------------------------------------
@_kernel("has_wd", "decoupled_weight_decay")
def nadam(p, g, s, *, lr, beta1, beta2, eps, weight_decay, momentum_decay, has_wd, decoupled_weight_decay):
    """`torch.optim.NAdam`'s update. state: step, mu_product, exp_avg, exp_avg_sq."""
    t = s["step"].astype(_F64)
    bias_correction2 = 1 - beta2 ** t
    p, g = _decay(p, g, weight_decay, lr, has_wd, decoupled_weight_decay)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (t * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * momentum_decay)))
    mu_product = _mul(s["mu_product"], mu)
    m = _lerp(s["exp_avg"], g, 1 - beta1)
    v = _addcmul(_mul(s["exp_avg_sq"], beta2), g, g, 1 - beta2)
    denom = _sqrt(_div(v, bias_correction2))
    mu_prod64 = mu_product.astype(_F64)
    mu_product_next = mu_prod64 * mu_next
    denom = _adds(denom, eps)
    p = _addcdiv(p, g, denom, -lr * (1.0 - mu) / (1.0 - mu_prod64))
    p = _addcdiv(p, m, denom, (-lr * mu_next) / (1.0 - mu_product_next))
    return p, {"step": s["step"], "mu_product": mu_product, "exp_avg": m, "exp_avg_sq": v}


# ----- RAdam -----------------------------------------------------------------------------------------------
@_kernel("has_wd", "decoupled_weight_decay")
def radam(p, g, s, *, lr, beta1, beta2, eps, weight_decay, has_wd, decoupled_weight_decay):
    """`torch.optim.RAdam`'s update. state: step, exp_avg, exp_avg_sq. The rectification branch
    (rho_t > 5) is a `where` on the traced step."""
    t = s["step"].astype(_F64)
    p, g = _decay(p, g, weight_decay, lr, has_wd, decoupled_weight_decay)
    m = _lerp(s["exp_avg"], g, 1 - beta1)
    v = _addcmul(_mul(s["exp_avg_sq"], beta2), g, g, 1 - beta2)
    bias_correction1 = 1 - beta1 ** t
    bias_correction2 = 1 - beta2 ** t
    bias_corrected_exp_avg = _div(m, bias_correction1)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * t * (beta2 ** t) / bias_correction2
    rect = jnp.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    adaptive_lr = _rdiv(jnp.sqrt(bias_correction2), _adds(_sqrt(v), eps))
    plain = _mul(bias_corrected_exp_avg, lr)
    rectified = _mul(_tt(jnp.multiply, plain, adaptive_lr), rect)
    p = _add(p, jnp.where(rho_t > 5.0, rectified, plain), -1.0)
    return p, {"step": s["step"], "exp_avg": m, "exp_avg_sq": v}


# ----- RMSprop ---------------------------------------------------------------------------------------------
@_kernel("has_wd", "has_momentum", "centered")
def rmsprop(p, g, s, *, lr, alpha, eps, weight_decay, momentum, has_wd, has_momentum, centered):
    """`torch.optim.RMSprop`'s update. state: step, square_avg (+ momentum_buffer, grad_avg)."""
    g = _l2(g, p, weight_decay, has_wd)
    sq = _addcmul(_mul(s["square_avg"], alpha), g, g, 1 - alpha)
    out = {"step": s["step"], "square_avg": sq}
    if centered:
        ga = _lerp(s["grad_avg"], g, 1 - alpha)
        out["grad_avg"] = ga
        avg = _sqrt(_addcmul(sq, ga, ga, -1.0))
    else:
        avg = _sqrt(sq)
    avg = _adds(avg, eps)
    if has_momentum:
        buf = _addcdiv(_mul(s["momentum_buffer"], momentum), g, avg, 1.0)
        out["momentum_buffer"] = buf
        p = _add(p, buf, -lr)
    else:
        p = _addcdiv(p, g, avg, -lr)
    return p, out


# ----- Adagrad ---------------------------------------------------------------------------------------------
@_kernel("has_wd")
def adagrad(p, g, s, *, lr, lr_decay, eps, weight_decay, has_wd):
    """`torch.optim.Adagrad`'s update (dense gradients). state: step, sum."""
    g = _l2(g, p, weight_decay, has_wd)
    clr = lr / (1 + (s["step"].astype(_F64) - 1) * lr_decay)
    acc = _addcmul(s["sum"], g, g, 1.0)
    std = _adds(_sqrt(acc), eps)
    return _addcdiv(p, g, std, -clr), {"step": s["step"], "sum": acc}


# ----- Adadelta --------------------------------------------------------------------------------------------
@_kernel("has_wd")
def adadelta(p, g, s, *, lr, rho, eps, weight_decay, has_wd):
    """`torch.optim.Adadelta`'s update. state: step, square_avg, acc_delta."""
    g = _l2(g, p, weight_decay, has_wd)
    sq = _addcmul(_mul(s["square_avg"], rho), g, g, 1 - rho)
    std = _sqrt(_adds(sq, eps))
    acc = s["acc_delta"]
    delta = _tt(jnp.multiply, _tt(jnp.divide, _sqrt(_adds(acc, eps)), std), g)
    acc = _addcmul(_mul(acc, rho), delta, delta, 1 - rho)
    return _add(p, delta, -lr), {"step": s["step"], "square_avg": sq, "acc_delta": acc}


# ----- ASGD ------------------------------------------------------------------------------------------------
@_kernel("has_wd")
def asgd(p, g, s, *, lr, lambd, alpha, t0, weight_decay, has_wd):
    """`torch.optim.ASGD`'s update. state: step, eta, mu, ax (eta and mu scalar tensors)."""
    mu, ax, eta = s["mu"], s["ax"], s["eta"]
    g = _l2(g, p, weight_decay, has_wd)
    eta_value = eta.astype(_F64)
    p = _mul(p, 1 - lambd * eta_value)
    p = _add(p, g, -eta_value)
    avg = _round(_up(_tt(jnp.subtract, p, ax)) * mu.astype(_opmath(p.dtype)), p.dtype)
    ax = jnp.where(mu != 1, _tt(jnp.add, ax, avg), p)
    t = s["step"].astype(_F64)
    new_eta = (lr / ((1 + lambd * lr * t) ** alpha)).astype(eta.dtype)
    new_mu = (1 / jnp.maximum(1.0, t - t0)).astype(mu.dtype)
    return p, {"step": s["step"], "eta": new_eta, "mu": new_mu, "ax": ax}


# ----- Rprop -----------------------------------------------------------------------------------------------
@_kernel()
def rprop(p, g, s, *, etaminus, etaplus, step_size_min, step_size_max):
    """`torch.optim.Rprop`'s update. state: step, prev, step_size."""
    prev, step_size = s["prev"], s["step_size"]
    sign = jnp.sign(_tt(jnp.multiply, g, prev))
    sign = jnp.where(sign > 0, _c(etaplus, p), sign)
    sign = jnp.where(sign < 0, _c(etaminus, p), sign)
    sign = jnp.where(sign == 0, jnp.ones((), p.dtype), sign)
    step_size = _tt(jnp.multiply, step_size, sign)
    step_size = jnp.minimum(jnp.maximum(step_size, _c(step_size_min, p)), _c(step_size_max, p))
    g = jnp.where(sign == _c(etaminus, p), jnp.zeros((), p.dtype), g)
    p = _addcmul(p, jnp.sign(g), step_size, -1.0)
    return p, {"step": s["step"], "prev": g, "step_size": step_size}
