"""Differential harness for `nn.Module`s: build the same layer under real PyTorch and under torchshim, give
them the same weights and inputs, and compare everything a user can observe.

The API (for every layer test):

- `check_module(build, inputs, ...)`: the main check. `build(lib)` constructs the module with `lib` being
  `torch` or `torchshim` (e.g. `lambda T: T.nn.Linear(3, 4)`); it runs after `lib.manual_seed(seed)`. The
  torch module's parameters and buffers (persistent or not) are copied into the torchshim module
  (`copy_state`), so default initialisation does not matter (check it statistically, separately). Then, per
  mode in `modes` ('train', 'eval'):
    1. the inputs and keyword inputs (harness specs: `Arg`, `Idx`, `Mask`, or plain Python values, built
       identically for both libraries from `seed`; floating `Arg`s require grad when `input_grad`) go
       through `call(module, *inputs, **kwargs)` (default `module(*inputs, **kwargs)`);
    2. outputs are compared (structure, dtype, shape, values, requires_grad), or the errors (type and message)
       when both raise;
    3. the module state after the call is compared (every parameter and buffer: running statistics updated
       in training must match);
    4. with `grad` (default True): a random cotangent per floating output (same values in both libraries)
       is pulled back with `autograd.grad(..., allow_unused=True)` to the inputs and the parameters; the
       gradients (and which are None) are compared;
    5. with `second_order`: `sum_i (g_i * v_i).sum()` over the first-order gradients that require grad (v_i
       random) is differentiated again w.r.t. the same leaves (None read as zeros, as in grad_harness).
  An error in the call must happen in both libraries with the same type and message, and only passes with
  `expect_error=True`. Returns `ModuleResult` (both modules, outcomes per mode) for extra assertions.
- `check_traced(build, inputs, ...)`: the torchshim module's forward under `jax.jit` (parameters, buffers and
  inputs are tracers) gives the eager result, including buffers updated in place.
- `check_repr(build)`: `repr(module)`, `state_dict()` keys (in order), shapes and dtypes, named parameters,
  buffers and modules agree.
- `check_state_dict_roundtrip(build)`: torch state_dict -> torchshim `load_state_dict` -> torchshim
  `state_dict` -> torch `load_state_dict` gives back the same values.
- `copy_state(ref, module)`, `to_shim(t)`, `to_torch(t)`: the conversions used above.

Tolerances: `rtol`/`atol` as in `harness.compare_values` (None: per-dtype defaults of
`torch.testing.assert_close`); `grad_rtol`/`grad_atol` for gradients (default: the same as the forward).

Example:
    check_module(lambda T: T.nn.Linear(3, 4), [Arg((2, 3))], second_order=True)
    check_module(lambda T: T.nn.Linear(3, 4).double(), [Arg((5, 3), "float64")])
    check_module(lambda T: T.nn.Dropout(0.5), [Arg((4,))], modes=("eval",))
"""
import dataclasses
from typing import Any, Callable

import jax
import numpy as np
import torch

import torchshim
from harness import Arg, build, compare_errors, compare_values, to_numpy

__all__ = ["check_module", "check_traced", "check_repr", "check_state_dict_roundtrip", "copy_state",
           "to_shim", "to_torch", "build_pair", "ModuleResult"]

LIBS = {"torch": torch, "torchshim": torchshim}


# ---- conversions ------------------------------------------------------------------------------------------
def to_shim(t, requires_grad=None):
    """A torchshim tensor with the values and dtype of torch tensor `t` (requires_grad copied unless
    given)."""
    out = torchshim.tensor(to_numpy(t), dtype=getattr(torchshim, str(t.dtype).split(".")[-1]))
    rg = t.requires_grad if requires_grad is None else requires_grad
    return out.requires_grad_(True) if rg else out


def to_torch(t, requires_grad=None):
    """A torch tensor with the values and dtype of torchshim tensor `t`."""
    out = torch.tensor(to_numpy(t), dtype=getattr(torch, str(t.dtype).split(".")[-1]))
    rg = t.requires_grad if requires_grad is None else requires_grad
    return out.requires_grad_(True) if rg else out


def copy_state(ref, module):
    """Copy every parameter and buffer (persistent or not) of torch module `ref` into the same-named tensors
    of torchshim module `module`, in place (values and dtype; the torchshim objects stay the same). The two
    modules must have the same names; a mismatch fails with both lists."""
    rp, mp = dict(ref.named_parameters()), dict(module.named_parameters())
    rb, mb = dict(ref.named_buffers()), dict(module.named_buffers())
    assert list(rp) == list(mp), f"parameter names differ: torch {list(rp)} vs torchshim {list(mp)}"
    assert list(rb) == list(mb), f"buffer names differ: torch {list(rb)} vs torchshim {list(mb)}"
    for src, dst in ((rp, mp), (rb, mb)):
        for name, t in src.items():
            new = to_shim(t.detach(), requires_grad=False)
            d = dst[name]
            if tuple(d.shape) != tuple(new.shape) or d.dtype != new.dtype:
                raise AssertionError(f"{name}: torch {tuple(t.shape)} {t.dtype} vs torchshim "
                                     f"{tuple(d.shape)} "
                                     f"{d.dtype}")
            d.data = new


# ---- running one library ----------------------------------------------------------------------------------
@dataclasses.dataclass
class Outcome:
    """One library's run of one mode: the output (or error), the state afterwards, the gradient stages."""
    output: Any = None
    error: BaseException | None = None
    state: dict = dataclasses.field(default_factory=dict)
    leaf_names: list = dataclasses.field(default_factory=list)
    grad1: Any = None  # list (None per unused leaf), an exception, or None when nothing requires grad
    grad2: Any = None
    leaves: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class ModuleResult:
    """What `check_module` compared: both modules and, per mode, (torch Outcome, torchshim Outcome)."""
    ref: Any
    module: Any
    outcomes: dict


def _flat(x):
    if isinstance(x, (torch.Tensor, torchshim.Tensor)):
        return [x]
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _flat(v)]
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in _flat(v)]
    return []


def _floating(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


def _random_like(T, t, rng):
    vals = rng.uniform(-1.0, 1.0, size=tuple(t.shape))
    if t.dtype.is_complex:
        vals = vals + 1j * rng.uniform(-1.0, 1.0, size=tuple(t.shape))
    return T.tensor(vals, dtype=t.dtype)


def _input_specs(inputs, input_grad):
    def spec(s):
        floating = isinstance(s, Arg) and (s.dtype.startswith(("float", "complex", "bfloat16")))
        if floating and input_grad:
            return dataclasses.replace(s, requires_grad=True)
        if isinstance(s, list):
            return [spec(v) for v in s]
        if isinstance(s, tuple):
            return tuple(spec(v) for v in s)
        return s
    return [spec(s) for s in inputs]


def _state(T, module):
    """name -> detached copy of every parameter and buffer (to compare after the call)."""
    out = {}
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        out[name] = t.detach().clone()
    return out


def _run(T, module, specs, kwarg_specs, call, seed, grad, second_order):
    rng = np.random.default_rng(seed)
    inputs = [build(s, T, rng) for s in specs]
    kwargs = {k: build(v, T, rng) for k, v in kwarg_specs.items()}  # after the positional inputs
    res = Outcome()
    try:
        res.output = call(module, *inputs, **kwargs)
    except Exception as e:  # the outcome, compared with the other library's
        res.error = e
        return res
    res.state = _state(T, module)
    if not grad:
        return res
    named = [(f"input{i}", t) for i, t in enumerate(_flat(inputs)) if t.requires_grad and t.grad_fn is None]
    named += [(f"kwarg:{k}", t) for k, v in kwargs.items() for t in _flat(v)
              if t.requires_grad and t.grad_fn is None]
    named += [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    res.leaf_names = [n for n, _ in named]
    res.leaves = [t for _, t in named]
    outs = [t for t in _flat(res.output) if _floating(t) and t.requires_grad]
    if not res.leaves or not outs:
        return res
    crng = np.random.default_rng(seed + 1)
    cots = [_random_like(T, t, crng) for t in outs]
    try:
        res.grad1 = list(T.autograd.grad(outs, res.leaves, cots, create_graph=second_order,
                                         allow_unused=True))
    except Exception as e:
        res.grad1 = e
        return res
    if not second_order:
        return res
    firsts = [g for g in res.grad1 if g is not None]
    vs = [_random_like(T, g, crng) for g in firsts]
    pairs = [(g, v) for g, v in zip(firsts, vs) if g.requires_grad]
    if not pairs:
        return res
    loss = sum((g * v).sum() for g, v in pairs)
    try:
        res.grad2 = list(T.autograd.grad(loss, res.leaves, allow_unused=True))
    except Exception as e:
        res.grad2 = e
    return res


def _both_raised(stage, r, g, msg):
    """False when neither raised; True when both did (errors compared); AssertionError when only one did."""
    if isinstance(r, Exception) or isinstance(g, Exception):
        if not isinstance(g, Exception):
            raise AssertionError(f"{stage}: torch raised {type(r).__name__}: {r}; torchshim did not")
        if not isinstance(r, Exception):
            raise AssertionError(f"{stage}: torchshim raised {type(g).__name__}: {g}; torch did not") from g
        compare_errors(r, g, msg)
        return True
    return False


def _plain(x):
    """A detached copy; torch's ZeroTensor (the gradient of sgn, abs's derivative, ...) as ordinary zeros."""
    if isinstance(x, torch.Tensor) and x._is_zerotensor():
        return torch.zeros(x.shape, dtype=x.dtype)
    return x.detach()


def _detached(xs):
    return [_plain(x) if x is not None else None for x in xs]


def _zeros_for_none(grads, leaves, T):
    grads = grads if grads is not None else [None] * len(leaves)
    return [_plain(g) if g is not None else T.zeros_like(l.detach()) for g, l in zip(grads, leaves)]


def _compare_outcomes(mode, r, g, rtol, atol, grad_rtol, grad_atol, msg, expect_error):
    where = f"[{mode}]"
    if r.error is not None or g.error is not None:
        _both_raised(f"{where} forward", r.error, g.error, msg)
        if not expect_error:
            raise AssertionError(f"{where} forward raised in both libraries (pass expect_error=True if that "
                                 "is the "
                                 f"point): {type(r.error).__name__}: {r.error}") from g.error
        return
    assert not expect_error, f"{where} expect_error=True but the call succeeded in both libraries"
    compare_values(r.output, g.output, rtol, atol, path=f"{where} output")
    compare_values(r.state, g.state, rtol, atol, path=f"{where} state after forward")
    assert r.leaf_names == g.leaf_names, f"{where} gradient leaves: torch {r.leaf_names} vs {g.leaf_names}"
    if r.grad1 is None and g.grad1 is None:
        return
    if _both_raised(f"{where} first-order backward", r.grad1, g.grad1, msg):
        return
    if (r.grad1 is None) != (g.grad1 is None):
        raise AssertionError(f"{where} first-order: torch {r.grad1} vs torchshim {g.grad1}")
    rn, gn = [x is None for x in r.grad1], [x is None for x in g.grad1]
    assert rn == gn, f"{where} first-order: None gradients differ: torch {rn} vs torchshim {gn} " \
                     f"({r.leaf_names})"
    compare_values(dict(zip(r.leaf_names, _detached(r.grad1))), dict(zip(g.leaf_names, _detached(g.grad1))),
                   grad_rtol, grad_atol, path=f"{where} grad")
    if r.grad2 is None and g.grad2 is None:
        return
    if _both_raised(f"{where} second-order backward", r.grad2, g.grad2, msg):
        return
    compare_values(dict(zip(r.leaf_names, _zeros_for_none(r.grad2, r.leaves, torch))),
                   dict(zip(g.leaf_names, _zeros_for_none(g.grad2, g.leaves, torchshim))),
                   grad_rtol, grad_atol, path=f"{where} second-order grad")


def _default_call(module, *inputs, **kwargs):
    return module(*inputs, **kwargs)


def build_pair(build_fn, seed=0, copy=True):
    """(torch module, torchshim module) from `build_fn(lib)`, each built after `lib.manual_seed(seed)`; with
    `copy`, the torch module's parameters and buffers are copied into the torchshim one."""
    torch.manual_seed(seed)
    ref = build_fn(torch)
    torchshim.manual_seed(seed)
    mod = build_fn(torchshim)
    if copy:
        copy_state(ref, mod)
    return ref, mod


def check_module(build_fn, inputs=(), *, kwargs=None, call: Callable = _default_call, seed=0,
                 modes=("train", "eval"), grad=True, second_order=False, input_grad=True, rtol=None,
                 atol=None, grad_rtol=None, grad_atol=None, msg="exact", expect_error=False):
    """Compare a module built by `build_fn(lib)` under torch and torchshim (see the module docstring).

    inputs: harness specs for the positional inputs; kwargs: keyword arguments, each a harness spec (built
    after the positional inputs; floating `Arg`s require grad too) or a plain value. call: `call(module,
    *inputs, **kwargs)` (default: the module's `__call__`). modes: the training modes to run, in order, on
    the same module pair (state carries over, as in real use). expect_error: the call must raise in both
    libraries (same type and message; `msg` says how messages are compared, see
    `harness.compare_errors`); without it, an error in both is a failure."""
    ref, mod = build_pair(build_fn, seed)
    specs = _input_specs(inputs, input_grad)
    kwargs = dict(zip(kwargs or {}, _input_specs((kwargs or {}).values(), input_grad)))
    grad_rtol = rtol if grad_rtol is None else grad_rtol
    grad_atol = atol if grad_atol is None else grad_atol
    outcomes = {}
    for mode in modes:
        assert mode in ("train", "eval"), f"mode must be 'train' or 'eval', got {mode!r}"
        ref.train(mode == "train")
        mod.train(mode == "train")
        r = _run(torch, ref, specs, kwargs, call, seed, grad, second_order)
        g = _run(torchshim, mod, specs, kwargs, call, seed, grad, second_order)
        outcomes[mode] = (r, g)
        _compare_outcomes(mode, r, g, rtol, atol, grad_rtol, grad_atol, msg, expect_error)
    return ModuleResult(ref, mod, outcomes)


# ---- tracing ---------------------------------------------------------------------------------------------
def check_traced(build_fn, inputs=(), *, kwargs=None, call: Callable = _default_call, seed=0,
                 modes=("train", "eval"), rtol=1e-6, atol=1e-6):
    """The torchshim module's call under `jax.jit` (parameters, buffers and tensor inputs as tracers) gives
    the eager outputs and the eager in-place buffer updates. Torch is not involved."""
    kwargs = kwargs or {}
    for mode in modes:
        _check_traced_mode(build_fn, inputs, kwargs, call, seed, mode, rtol, atol)


def _check_traced_mode(build_fn, inputs, kwargs, call, seed, mode, rtol, atol):
    from torchshim._storage import Storage
    torchshim.manual_seed(seed)
    eager_mod = build_fn(torchshim).train(mode == "train")
    torchshim.manual_seed(seed)
    mod = build_fn(torchshim).train(mode == "train")
    for (_, a), (_, b) in zip(eager_mod.named_parameters(), mod.named_parameters()):
        b.data = a.detach().clone()
    rng = np.random.default_rng(seed)
    eager_in = [build(s, torchshim, rng) for s in inputs]
    eager_out = call(eager_mod, *eager_in, **{k: build(v, torchshim, rng) for k, v in kwargs.items()})
    eager_state = [t._value for _, t in eager_mod.named_buffers()]
    rng = np.random.default_rng(seed)
    inputs_ = [build(s, torchshim, rng) for s in inputs]
    kwargs_ = {k: build(v, torchshim, rng) for k, v in kwargs.items()}
    tensors = [t for _, t in mod.named_parameters()] + [t for _, t in mod.named_buffers()]
    tensors += _flat(inputs_) + _flat(kwargs_)
    n_buf = len(list(mod.named_buffers()))
    saved = [(t._storage, t._natural, t._cache) for t in tensors]

    def traced(*arrays):
        try:
            for t, a in zip(tensors, arrays):
                t._storage, t._cache = Storage(a, t._storage.device), None
            out = call(mod, *inputs_, **kwargs_)
            bufs = [t._value for _, t in mod.named_buffers()]
            return [t._value for t in _flat(out)], bufs
        finally:
            for t, (st, nat, cache) in zip(tensors, saved):
                t._storage, t._natural, t._cache = st, nat, cache

    got_out, got_bufs = jax.jit(traced)(*[t._storage.array for t in tensors])
    want = [t._value for t in _flat(eager_out)]
    assert len(got_out) == len(want), f"[{mode}] traced outputs {len(got_out)} vs eager {len(want)}"
    assert len(got_bufs) == n_buf
    for i, (gv, wv) in enumerate(list(zip(got_out, want)) + list(zip(got_bufs, eager_state))):
        assert gv.shape == wv.shape and gv.dtype == wv.dtype, \
            f"[{mode}] value {i}: {gv.shape} {gv.dtype} vs {wv.shape} {wv.dtype}"
        kind = np.complex128 if np.iscomplexobj(wv) else np.float64
        np.testing.assert_allclose(np.asarray(gv, dtype=kind), np.asarray(wv, dtype=kind), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=f"[{mode}] value {i}")


# ---- structure ---------------------------------------------------------------------------------------------
def check_repr(build_fn, seed=0):
    """`repr`, `state_dict()` keys (ordered) with shapes/dtypes, and the names of parameters (with
    requires_grad), buffers and modules agree between torch and torchshim. Returns (torch,
                                                                                    torchshim) modules."""
    ref, mod = build_pair(build_fn, seed, copy=False)
    assert repr(ref) == repr(mod), f"repr differs:\n--- torch:\n{ref!r}\n--- torchshim:\n{mod!r}"

    def sd(m):
        lazy = (torch if isinstance(m, torch.nn.Module) else torchshim).nn.parameter.is_lazy
        return [(k, repr(v)) if lazy(v) or not hasattr(v, "dtype") else (k, tuple(v.shape), str(v.dtype))
                for k, v in m.state_dict().items()]
    assert sd(ref) == sd(mod), f"state_dict differs:\n torch:     {sd(ref)}\n torchshim: {sd(mod)}"
    for what in ("named_parameters", "named_buffers"):
        rn = [(n, t.requires_grad) for n, t in getattr(ref, what)()]
        gn = [(n, t.requires_grad) for n, t in getattr(mod, what)()]
        assert rn == gn, f"{what}: torch {rn} vs torchshim {gn}"
    rm = [(n, type(m).__name__) for n, m in ref.named_modules()]
    gm = [(n, type(m).__name__) for n, m in mod.named_modules()]
    assert rm == gm, f"named_modules: torch {rm} vs torchshim {gm}"
    return ref, mod


def check_state_dict_roundtrip(build_fn, seed=0):
    """torch state_dict -> torchshim.load_state_dict -> torchshim state_dict -> a fresh torch module's
    load_state_dict: values, dtypes and keys survive, and both load calls report all keys matched."""
    ref, mod = build_pair(build_fn, seed, copy=False)
    sd = ref.state_dict()
    r = mod.load_state_dict({k: to_shim(v) if isinstance(v, torch.Tensor) else v for k, v in sd.items()})
    assert not r.missing_keys and not r.unexpected_keys, r
    back = mod.state_dict()
    assert list(back) == list(sd), f"keys: torch {list(sd)} vs torchshim {list(back)}"
    torch.manual_seed(seed + 1)
    ref2 = build_fn(torch)
    r2 = ref2.load_state_dict({k: to_torch(v) if isinstance(v, torchshim.Tensor) else v for k,
                               v in back.items()})
    assert not r2.missing_keys and not r2.unexpected_keys, r2
    compare_values(dict(ref2.state_dict()), dict(mod.state_dict()), path="state_dict after round trip")
    compare_values(dict(ref.state_dict()), dict(mod.state_dict()), path="state_dict")
    return ref2, mod
