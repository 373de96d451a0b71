"""Gradient conformance: first and second order gradients of an op under real PyTorch and under torchshim.

A gradient case is a harness case (`fn(T, *inputs)` with input specs) whose floating and complex tensor inputs
(`Arg`s) require grad. Each library, independently:
1. calls the op (errors must match, as in `harness.check`);
2. records `grad_fn` names of the floating outputs (torch's class name vs torchshim's `grad_fn.name()`);
3. first order: the gradient of `sum_i (out_i * w_i).sum()`, `w_i` fixed random tensors, as the sum over i of
   `autograd.grad(out_i, leaves, grad_outputs=w_i, create_graph=True, allow_unused=True)`: one root per call
   and no extra op between the op and its backward (see ENGINE_NOTES below);
4. second order: `autograd.grad` of the real part of `sum_i (g_i * v_i).sum()` over the first-order gradients
   `g_i` that require grad, `v_i` fixed random, w.r.t. all leaves.

Compared: the forward result (values, dtypes, requires_grad), the names, first-order gradients exactly
(None where torch gives None), and second-order gradients with None read as zeros: PyTorch's first-order
gradient of a linear op does not require grad (its second derivative is "absent"), torchshim's may (its
pullback is recorded as a function of the saved inputs), and both mean a zero second derivative.

`Val(values, dtype)` is an `Arg` with explicit values, for kinks (relu at 0, ties, bounds).

ENGINE_NOTES: two engine differences are kept out of the per-op comparison on purpose and are tested once in
test_gradients.py (xfail): several roots produced by one node in one `autograd.grad` call lose their gradient,
and a create_graph backward node depends on every saved input of its op (PyTorch's only on what its formula
reads), so a zero cotangent meeting an infinite derivative (`(log(x) * w).sum()` at x = 0) gives NaN where
PyTorch has no such path.
"""
import ast
import dataclasses
import functools
import hashlib
import linecache
import re
import types
from typing import Any

import numpy as np
import torch

import torchshim
from harness import Arg, cases_of, compare_errors, compare_values, run_both

__all__ = ["Val", "grad_specs", "grad_fn_of", "check_grad", "record_grad_cases", "case_name", "GRAD_DTYPES"]

GRAD_DTYPES = ("float64", "float32", "complex128", "complex64")


@dataclasses.dataclass(frozen=True)
class Val(Arg):
    """A tensor input with explicit values (nested tuples/lists of numbers; nan/inf allowed)."""
    values: Any = None

    def array(self, rng):
        return np.asarray(self.values, dtype=complex if self.dtype.startswith("complex") else float)


def V(values, dtype="float64", requires_grad=True):
    """`Val` from plain values (shape inferred)."""
    return Val(np.shape(values), dtype, values=values, requires_grad=requires_grad)


def grad_specs(spec):
    """`spec` with every floating/complex `Arg` requiring grad (recursing through lists and tuples)."""
    if isinstance(spec, Arg):
        if spec.dtype.startswith(("float", "complex")) or spec.dtype == "bfloat16":
            return dataclasses.replace(spec, requires_grad=True)
        return spec
    if isinstance(spec, list):
        return [grad_specs(s) for s in spec]
    if isinstance(spec, tuple):
        return tuple(grad_specs(s) for s in spec)
    return spec


# ---- one library's run -----------------------------------------------------------------------------------
def _flat(x):
    if _is_tensor(x):
        return [x]
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _flat(v)]
    return []


def _is_tensor(x):
    return isinstance(x, (torch.Tensor, torchshim.Tensor))


def _floating(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


def grad_fn_of(t):
    """The backward node's name as PyTorch's class name, or None."""
    fn = t.grad_fn
    if fn is None:
        return None
    return type(fn).__name__ if isinstance(t, torch.Tensor) else fn.name().rsplit("::", 1)[-1]


def _random_like(T, t, rng):
    shape = tuple(t.shape)
    vals = rng.uniform(-1.0, 1.0, size=shape)
    if t.dtype.is_complex:
        vals = vals + 1j * rng.uniform(-1.0, 1.0, size=shape)
    return T.tensor(vals, dtype=t.dtype)


@dataclasses.dataclass
class GradOutcome:
    value: Any = None  # the op's result
    names: list = dataclasses.field(default_factory=list)
    grad1: Any = None  # list (None per unused leaf) or an exception
    grad2: Any = None  # list, None (no first-order gradient requires grad) or an exception
    leaves: list = dataclasses.field(default_factory=list)


def _loss(pairs):
    """sum_i (t_i * w_i).sum(): one scalar root (complex when a term is complex)."""
    total = None
    for t, w in pairs:
        term = (t * w).sum()
        total = term if total is None else total + term
    return total


def _add(a, b):
    if a is None:
        return b
    return a if b is None else a + b


def _first_order(T, outs, ws, leaves):
    """sum_i of the vector-Jacobian products of out_i with w_i (one `autograd.grad` call per output, with
    grad_outputs; the gradient of sum_i (out_i * w_i).sum()), create_graph=True; or the exception."""
    total = [None] * len(leaves)
    try:
        for t, w in zip(outs, ws):
            gs = T.autograd.grad(t, leaves, w, create_graph=True, allow_unused=True)
            total = [_add(a, b) for a, b in zip(total, gs)]
    except Exception as e:  # the outcome, compared with torch's
        return e
    return total


def _second_order(T, pairs, leaves):
    """Gradient of the real part of sum_i (g_i * v_i).sum() w.r.t. leaves, or the exception."""
    loss = _loss(pairs)
    seed = T.ones((), dtype=loss.dtype) if loss.dtype.is_complex else None
    try:
        return list(T.autograd.grad(loss, leaves, seed, allow_unused=True))
    except Exception as e:
        return e


def grad_pipeline(seed=1, second_order=True):
    """`g(T, value, inputs) -> GradOutcome`: the gradient stages after the op returned `value` (the
    second-order stage only with `second_order`)."""
    def g(T, value, inputs):
        leaves = [t for t in _flat(inputs) if t.requires_grad and t.grad_fn is None]
        outs = [t for t in _flat(value) if _floating(t) and t.requires_grad]
        res = GradOutcome(value=value, names=[grad_fn_of(t) for t in _flat(value) if _floating(t)],
                          leaves=leaves)
        if not leaves or not outs:
            return res
        rng = np.random.default_rng(seed)
        ws = [_random_like(T, t, rng) for t in outs]
        res.grad1 = _first_order(T, outs, ws, leaves)
        if isinstance(res.grad1, Exception):
            return res
        firsts = [g1 for g1 in res.grad1 if g1 is not None]
        vs = [_random_like(T, g1, rng) for g1 in firsts]  # drawn for every gradient: same v in both libs
        pairs = [(g1, v) for g1, v in zip(firsts, vs) if g1.requires_grad]
        if pairs and second_order:
            res.grad2 = _second_order(T, pairs, leaves)
        return res
    return g


def run_grad(fn, specs, seed=0, second_order=True):
    """(torch outcome, torchshim outcome) of `fn` with the gradient stages; Outcome.value is a GradOutcome."""
    pipeline = grad_pipeline(second_order=second_order)
    specs = tuple(grad_specs(s) for s in specs)

    def case(T, *inputs):
        value = fn(T, *inputs)
        return pipeline(T, value, inputs)
    return run_both(case, specs, seed)


# ---- comparing -----------------------------------------------------------------------------------------
def _plain(x):
    """A detached copy; torch's ZeroTensor (sgn's gradient, ...) as ordinary zeros, a sparse gradient
    (gather(sparse_grad=True)) as dense: torchshim has dense gradients only (documented), values must
    agree."""
    if isinstance(x, torch.Tensor):
        if x._is_zerotensor():
            return torch.zeros(x.shape, dtype=x.dtype)
        if x.layout != torch.strided:
            return x.detach().to_dense()
    return x.detach()


def _detached(xs):
    return [_plain(x) if x is not None else None for x in xs]


def _materialized(grads, leaves):
    """Second-order gradients with None (and 'no gradient at all') read as zeros shaped like the leaf."""
    if grads is None:
        grads = [None] * len(leaves)
    return [_plain(g) if g is not None else (torch if isinstance(l, torch.Tensor) else torchshim).zeros_like(
        l.detach()) for g, l in zip(grads, leaves)]


def _compare_stage(name, ref, got, msg):
    """False when both raised (and the errors match); raises when only one did."""
    if isinstance(ref, Exception) or isinstance(got, Exception):
        if not isinstance(ref, Exception):
            raise AssertionError(f"{name}: torchshim raised {type(got).__name__}: {got}; torch computed it") \
                from got
        if not isinstance(got, Exception):
            raise AssertionError(f"{name}: torch raised {type(ref).__name__}: {ref}; torchshim computed it")
        compare_errors(ref, got, msg)
        return False
    return True


class ForwardMismatch(AssertionError):
    """The op call itself (with inputs requiring grad) differs: a different error, or a different result."""


def check_forward(ref, got, rtol=None, atol=None, msg="exact"):
    try:
        if ref.error is not None or got.error is not None:
            if ref.error is None:
                raise AssertionError(f"torchshim raised {type(got.error).__name__}: {got.error}; torch "
                                     f"returned {ref.value.value!r}") from got.error
            if got.error is None:
                raise AssertionError(f"torch raised {type(ref.error).__name__}: {ref.error}; torchshim "
                                     f"returned {got.value.value!r}")
            compare_errors(ref.error, got.error, msg)
            return False
        compare_values(ref.value.value, got.value.value, rtol, atol, path="forward")
    except AssertionError as e:
        raise ForwardMismatch(str(e)) from e
    return True


def check_grad(fn, specs=(), *, seed=0, rtol=None, atol=None, msg="exact", names=True, second_order=True):
    """Run `fn(T, *inputs)` with gradients in both libraries and assert everything matches (see module doc);
    `second_order=False` stops after the first-order gradients.

    Raises ForwardMismatch when the call itself differs (before any gradient is compared)."""
    ref, got = run_grad(fn, specs, seed, second_order)
    if not check_forward(ref, got, rtol, atol, msg):
        return ref, got
    r, g = ref.value, got.value
    if names:
        assert r.names == g.names, f"grad_fn names: torch {r.names} vs torchshim {g.names}"
    if r.grad1 is None and g.grad1 is None:
        return ref, got
    if not _compare_stage("first-order backward", r.grad1, g.grad1, msg):
        return ref, got
    assert [x is None for x in r.grad1] == [x is None for x in g.grad1], \
        f"first-order: unused inputs (None) differ: torch {[x is None for x in r.grad1]} vs torchshim " \
        f"{[x is None for x in g.grad1]}"
    compare_values(_detached(r.grad1), _detached(g.grad1), rtol, atol, path="first-order grad")
    if r.grad2 is None and g.grad2 is None:
        return ref, got
    if not _compare_stage("second-order backward", r.grad2, g.grad2, msg):
        return ref, got
    compare_values(_materialized(r.grad2, r.leaves), _materialized(g.grad2, g.leaves), rtol, atol,
                   path="second-order grad")
    return ref, got


# ---- record-driven cases ---------------------------------------------------------------------------------
def record_grad_cases(records):
    """Per record, a few gradient cases (not the dtype cross product): float64 (else float32) first and last
    sample, float32 last sample when float64 was tested, complex128 first sample where the op takes complex.
    The "first" cases also check second-order gradients; the "last" ones stop at first order
    (`Case.second_order`): the gradient of the gradient is the costliest stage (about 45% of a case, each a
    new set of compiled kernels), and one real and one complex sample per record check it.

    Case ids are stable names (`case_name`): the op, the dtype, a description of the sample and of the
    record's `call`, never a position, so adding records or samples doesn't rename other cases
    (test_gradients.py keys its known gaps by these names). Cases that nothing tells apart (identical records)
    get `#2`, `#3`."""
    out = []
    for rec in records:
        dts = set(rec.dtypes)
        plan = []
        if "float64" in dts:
            plan += [("float64", "first"), ("float64", "last")]
            if "float32" in dts:
                plan.append(("float32", "last"))
        elif "float32" in dts:
            plan += [("float32", "first"), ("float32", "last")]
        if dts & {"complex64", "complex128"}:
            plan.append(("complex128" if "complex128" in dts else "complex64", "first"))
        for dtype, which in plan:
            one = dataclasses.replace(rec, dtypes=(dtype,), method=False, inplace=False, out=False)
            cases = cases_of([one])
            if not cases:
                continue
            if which == "last" and len(cases) == 1:
                continue
            samples = list(one.samples(dtype))
            assert len(samples) == len(cases), f"{rec.name}: {len(cases)} cases for {len(samples)} samples"
            k = 0 if which == "first" else -1
            c = dataclasses.replace(cases[k], id=case_name(rec, dtype, *samples[k]),
                                    second_order=which == "first")
            out.append(c)
    seen = {}
    for c in out:
        seen[c.id] = seen.get(c.id, 0) + 1
        if seen[c.id] > 1:
            c.id = f"{c.id}#{seen[c.id]}"
    return out


# ---- stable case names -----------------------------------------------------------------------------------
_CALL_MAX = 60  # a longer call description is cut and completed by a digest of the whole


def case_name(rec, dtype, specs, kw):
    """`<op>-<dtype>-<inputs>[-<kwargs>][-{<call>}]`, e.g. `addmm-float32-2x4,2x3,3x4-{T.addmm(...)}`.

    inputs: per spec its shape (`0d` for a 0-dim tensor), `:dtype` where it isn't the case's dtype,
    `[low,high]` for a non-default range, `.nc` for a non-contiguous layout, `.<field>=<v>` for other
    non-default fields (`Val`: `=<values>`); `Idx(...)`, `Mask(...)` and other inputs by name and fields;
    lists, tuples and Python values as written. call: the source of the record's `call` (a lambda's body, a
    function's name) with the values it closes over, from the source text (not line numbers or bytecode), so
    it only changes when that call changes; one longer than _CALL_MAX is cut and ends in a digest."""
    name = f"{rec.name}-{dtype}-{','.join(_spec_name(s, dtype) for s in specs) or '()'}"
    if kw:
        name += "-" + ",".join(f"{k}={_value_name(v)}" for k, v in kw.items())
    if rec.call is not None:
        call = _fn_name(rec.call)
        if len(call) > _CALL_MAX:
            call = call[:_CALL_MAX - 8] + "~" + hashlib.sha1(call.encode()).hexdigest()[:7]
        name += "-{" + call + "}"
    return name


def _num(v):
    return repr(v) if not isinstance(v, float) or not v.is_integer() else str(int(v))


_ARG_FIELDS = ("shape", "dtype", "low", "high", "noncontig", "requires_grad", "values")


def _spec_name(spec, dtype):
    if isinstance(spec, list):
        return "[" + ",".join(_spec_name(s, dtype) for s in spec) + "]"
    if isinstance(spec, tuple):
        return "(" + ",".join(_spec_name(s, dtype) for s in spec) + ")"
    if not dataclasses.is_dataclass(spec) or isinstance(spec, type):
        return _value_name(spec)
    fields = {f.name: f for f in dataclasses.fields(spec)}

    def changed(k):
        f = fields[k]
        v = getattr(spec, k)
        return f.default is dataclasses.MISSING or type(v) is not type(f.default) or v != f.default
    shape = getattr(spec, "shape", None)
    shape_s = ("x".join(map(str, shape)) or "0d") if shape is not None else ""
    if isinstance(spec, Arg):
        if isinstance(spec, Val):
            out = "=" + str(np.asarray(spec.values).tolist()).replace(" ", "")
        else:
            out = shape_s
        if spec.dtype != dtype:
            out += ":" + spec.dtype
        if changed("low") or changed("high"):
            out += f"[{_num(spec.low)},{_num(spec.high)}]"
        if spec.noncontig:
            out += ".nc"
        for k in fields:
            if k not in _ARG_FIELDS and changed(k):
                v = getattr(spec, k)
                out += f".{k}" if v is True else f".{k}={_value_name(v)}"
        return out
    rest = [f"{k}={_value_name(getattr(spec, k))}" for k in fields if k != "shape" and changed(k)]
    return f"{type(spec).__name__}({','.join(([shape_s] if shape is not None else []) + rest)})"


def _value_name(v, depth=0):
    if isinstance(v, (types.FunctionType, functools.partial)):
        return _fn_name(v, depth)
    if isinstance(v, float):
        return _num(v)
    if isinstance(v, (str, int, complex, bool, type(None))):
        return repr(v)
    if isinstance(v, (tuple, list)):
        inner = ",".join(_value_name(x, depth) for x in v)
        return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_value_name(x, depth)}" for k, x in v.items()) + "}"
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return _spec_name(v, None)
    if isinstance(v, (torch.dtype, torchshim.dtype)):
        return str(v).rsplit(".", 1)[-1]
    return getattr(v, "__name__", type(v).__name__)


def _fn_name(fn, depth=0):
    """A function's source (a lambda's body, else its qualified name) and the values it closes over."""
    if isinstance(fn, functools.partial):
        args = [_value_name(a, depth + 1) for a in fn.args] + \
            [f"{k}={_value_name(a, depth + 1)}" for k, a in fn.keywords.items()]
        return f"partial({_fn_name(fn.func, depth + 1)},{','.join(args)})"
    if not isinstance(fn, types.FunctionType):
        return getattr(fn, "__name__", type(fn).__name__)
    code = fn.__code__
    text = _lambda_source(code) if fn.__name__ == "<lambda>" else None
    text = text or fn.__qualname__.replace(".<locals>", "")
    if depth > 4:
        return text
    binds = {}
    if fn.__defaults__:
        params = code.co_varnames[:code.co_argcount]
        binds.update(zip(params[len(params) - len(fn.__defaults__):], fn.__defaults__))
    binds.update(fn.__kwdefaults__ or {})
    for var, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            binds[var] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    if binds:
        text += "{" + ";".join(f"{k}={_value_name(v, depth + 1)}" for k, v in binds.items()) + "}"
    return text


_SOURCES = {}


def _lambda_source(code):
    """The source text of a lambda's body (whitespace squeezed), found by the columns its bytecode covers;
    None where the source isn't available."""
    fname = code.co_filename
    if fname not in _SOURCES:
        text = "".join(linecache.getlines(fname))
        try:
            tree = ast.parse(text) if text else None
        except SyntaxError:
            tree = None
        lambdas = {}
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, ast.Lambda):
                lambdas.setdefault(n.lineno, []).append(n)
        _SOURCES[fname] = ([ln.encode() for ln in text.splitlines(keepends=True)], lambdas)
    lines, lambdas = _SOURCES[fname]
    pos = [p for p in code.co_positions() if None not in p and (p[0], p[2]) != (p[1], p[3])]
    if not pos:
        return None
    start, end = min((p[0], p[2]) for p in pos), max((p[1], p[3]) for p in pos)
    found = [b for b in (n.body for n in lambdas.get(code.co_firstlineno, ()))
             if (b.lineno, b.col_offset) <= start and end <= (b.end_lineno, b.end_col_offset)]
    if not found:
        return None
    body = min(found, key=lambda b: (b.end_lineno - b.lineno, b.end_col_offset - b.col_offset))
    first, last = body.lineno - 1, body.end_lineno - 1  # ast columns are utf-8 byte offsets
    seg = lines[first:last + 1]
    seg = [seg[0][body.col_offset:]] if first == last else [seg[0][body.col_offset:], *seg[1:-1], seg[-1]]
    seg[-1] = seg[-1][:body.end_col_offset - (body.col_offset if first == last else 0)]
    src = " ".join(b"".join(seg).decode().split())
    return re.sub(r" ?([,:=()\[\]{}]) ?", r"\1", src)
