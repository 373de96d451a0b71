"""Differential harness: run one case under real PyTorch 2.13 and under torchshim, compare everything.

A case is `fn(T, *inputs)` where `T` is the library module (`torch` or `torchshim`) and `inputs` are built
identically for both from seeded numpy data (`Arg`, `Idx`, `Mask`, plain Python values). `compare` checks:
exception type and message, or result structure, dtype, shape and values (per-dtype tolerances of
`torch.testing.assert_close`), recursively through tuples, lists, namedtuples and Python scalars.

Records (`compat_tests/records/*.py`) describe ops as data; `test_ops.py` expands them into test cases.
"""
import collections
import dataclasses
import numbers
import os
import re
import warnings
from typing import Any, Callable

import numpy as np
import torch

import torchshim

LIBS = {"torch": torch, "torchshim": torchshim}

FLOATS = ("float32", "float64")
INTS = ("int64", "int32")
NUMERIC = ("float32", "float64", "int64", "int32", "uint8", "int16", "int8")
ALL = NUMERIC + ("bool", "float16", "bfloat16", "complex64", "complex128")
REAL = NUMERIC + ("bool", "float16", "bfloat16")
FLOATS_ALL = ("float32", "float64", "float16", "bfloat16")
COMMON = ("float32", "float64", "int64", "bool")  # a cheap default spread: two floats, an int, bool


# ---- inputs ----------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Arg:
    """A tensor input: shape, dtype name, value range, non-contiguous layout, requires_grad."""
    shape: tuple
    dtype: str = "float32"
    low: float = -3.0
    high: float = 3.0
    noncontig: bool = False
    requires_grad: bool = False

    def array(self, rng):
        shape, dt = tuple(self.shape), self.dtype
        if dt == "bool":
            return rng.random(shape) < 0.5
        if dt.startswith(("int", "uint")):
            lo = max(int(self.low), 0) if dt.startswith("uint") else int(self.low)
            return rng.integers(lo, max(int(self.high), lo + 1) + 1, size=shape).astype(dt)
        vals = rng.uniform(self.low, self.high, size=shape)
        if dt.startswith("complex"):
            vals = vals + 1j * rng.uniform(self.low, self.high, size=shape)
        return vals

    def make(self, lib, rng):
        arr = self.array(rng)
        dtype = getattr(lib, self.dtype)
        if self.noncontig and len(self.shape) >= 1:
            # the same values, laid out transposed (2+ dims) or strided (1 dim), so the input is a view
            if len(self.shape) >= 2:
                base = lib.tensor(np.ascontiguousarray(arr.transpose()), dtype=dtype)
                t = base.permute(*range(len(self.shape) - 1, -1, -1))
            else:
                wide = np.repeat(arr, 2)
                t = lib.tensor(wide, dtype=dtype)[::2]
        else:
            t = lib.tensor(arr, dtype=dtype)
        if self.requires_grad:
            t.requires_grad_(True)
        return t

    def with_dtype(self, dtype):
        return dataclasses.replace(self, dtype=dtype)


@dataclasses.dataclass(frozen=True)
class Idx:
    """An int64 index tensor with values in [low, high) (negative low allowed)."""
    shape: tuple
    high: int
    low: int = 0
    dtype: str = "int64"

    def make(self, lib, rng):
        return lib.tensor(rng.integers(self.low, self.high, size=self.shape), dtype=getattr(lib, self.dtype))


@dataclasses.dataclass(frozen=True)
class Mask:
    """A bool tensor of `shape`."""
    shape: tuple
    p: float = 0.5

    def make(self, lib, rng):
        return lib.tensor(rng.random(self.shape) < self.p)


def build(spec, lib, rng):
    if isinstance(spec, (Arg, Idx, Mask)):
        return spec.make(lib, rng)
    if isinstance(spec, list):
        return [build(s, lib, rng) for s in spec]
    if isinstance(spec, tuple):
        return tuple(build(s, lib, rng) for s in spec)
    return spec


# ---- running ------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    warnings: list = dataclasses.field(default_factory=list)


# "fused": torchshim runs each case's function in fused eager mode (test_ops_fused.py sets it for its cases)
EAGER_MODE = os.environ.get("TORCHSHIM_TEST_EAGER", "op")


def run(lib_name, fn, specs, seed=0):
    lib = LIBS[lib_name]
    rng = np.random.default_rng(seed)
    try:
        inputs = [build(s, lib, rng) for s in specs]
    except Exception as e:  # construction itself failing is a harness bug, not a case outcome
        raise AssertionError(f"{lib_name}: building inputs failed: {e!r}") from e
    fused = EAGER_MODE == "fused" and lib_name == "torchshim"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            if fused:
                lib.set_eager_mode("fused")
            value = fn(lib, *inputs)
            if fused:
                lib.fused.flush()  # errors found when the recorded ops run belong to the call
            return Outcome(value=value, warnings=[str(x.message) for x in w])
        except Exception as e:
            return Outcome(error=e, warnings=[str(x.message) for x in w])
        finally:
            if fused:
                try:
                    lib.set_eager_mode("op")  # always switches back
                except Exception:  # noqa: BLE001  ops recorded before the case's own error failed too:
                    pass  # that error (the outcome above) came first


def run_both(fn, specs=(), seed=0):
    return run("torch", fn, specs, seed), run("torchshim", fn, specs, seed)


# ---- comparing ----------------------------------------------------------------------------------------
def _first_line(msg):
    msg = str(msg).strip()
    return msg.splitlines()[0].strip() if msg else ""


def _torch_message(e):
    msg = str(e)
    if isinstance(e, KeyError) and e.args:
        msg = str(e.args[0])
    return re.sub(r"\s*\(Triggered internally at .*", "", msg)


def compare_errors(ref, got, msg="exact"):
    """Same exception type (torch's own subclasses compare by their builtin base) and the same message.

    msg: 'exact' (first line equal), 'prefix' (torch's first line starts with ours), a substring both
    must contain, or None (type only)."""
    rtype = type(ref)
    base = next(c for c in rtype.__mro__ if c.__module__ == "builtins")
    assert isinstance(got, base), f"exception type: torch raised {rtype.__name__}({ref}), torchshim raised " \
                                  f"{type(got).__name__}({got})"
    r, g = _first_line(_torch_message(ref)), _first_line(_torch_message(got))
    if msg == "exact":
        assert r == g, f"message differs:\n torch:     {r}\n torchshim: {g}"
    elif msg == "prefix":
        assert r.startswith(g) and g, f"message differs:\n torch:     {r}\n torchshim: {g}"
    elif msg is not None:
        assert msg in r, f"record's message {msg!r} is not in torch's: {r}"
        assert msg in g, f"message differs:\n torch:     {r}\n torchshim: {g}"


def to_numpy(t):
    """A numpy copy of a torch or torchshim tensor (bfloat16/float8 widened to float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach().cpu().resolve_conj().resolve_neg()
        if t.dtype == torch.bfloat16 or "float8" in str(t.dtype):
            t = t.float()
        return t.numpy()
    t = t.detach().resolve_conj().resolve_neg()
    if t.dtype in (torchshim.bfloat16, torchshim.float8_e4m3fn, torchshim.float8_e5m2):
        t = t.float()
    return t.numpy()


# torch.testing.assert_close's default tolerances for the dtypes we widen before comparing
_LOW_PRECISION_TOL = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
                      torch.float8_e4m3fn: (0.125, 1e-5), torch.float8_e5m2: (0.25, 1e-5)}


def _is_tensor(x):
    return isinstance(x, (torch.Tensor, torchshim.Tensor))


def compare_values(ref, got, rtol=None, atol=None, path="result", check_stride=False):
    """Recursive comparison of a torch result with a torchshim result."""
    if isinstance(ref, torch.Tensor):
        assert isinstance(got, torchshim.Tensor), f"{path}: expected a Tensor, got {type(got).__name__}"
        assert str(ref.dtype) == str(got.dtype), f"{path}: dtype torch {ref.dtype} vs torchshim {got.dtype}"
        assert tuple(ref.shape) == tuple(got.shape), f"{path}: shape torch {tuple(ref.shape)} vs torchshim " \
                                                     f"{tuple(got.shape)}"
        assert ref.requires_grad == got.requires_grad, f"{path}: requires_grad {ref.requires_grad} vs " \
                                                       f"{got.requires_grad}"
        if check_stride:
            assert ref.stride() == got.stride(), f"{path}: stride {ref.stride()} vs {got.stride()}"
        r, g = to_numpy(ref), to_numpy(got)
        if ref.dtype in (torch.bool,) or not (ref.dtype.is_floating_point or ref.dtype.is_complex):
            np.testing.assert_array_equal(g, r, err_msg=f"{path}: values differ")
        else:
            if rtol is None and atol is None and ref.dtype in _LOW_PRECISION_TOL:
                rtol, atol = _LOW_PRECISION_TOL[ref.dtype]  # values are widened to float32 to compare
            torch.testing.assert_close(torch.from_numpy(np.asarray(g)), torch.from_numpy(np.asarray(r)),
                                       rtol=rtol, atol=atol, equal_nan=True, check_dtype=False,
                                       msg=lambda m: f"{path}: {m}")
        return
    if isinstance(ref, torch.Size):
        assert isinstance(got, torchshim.Size) and tuple(ref) == tuple(got), f"{path}: Size {ref} vs {got}"
        return
    if isinstance(ref, torch.dtype):
        assert str(ref) == str(got), f"{path}: {ref} vs {got}"
        return
    if isinstance(ref, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{path}: expected a sequence, got {type(got).__name__}"
        assert len(ref) == len(got), f"{path}: length {len(ref)} vs {len(got)}"
        if hasattr(ref, "_fields"):
            assert getattr(got, "_fields",
                           None) == ref._fields, f"{path}: namedtuple fields {ref._fields} vs " \
                                                                 f"{getattr(got, '_fields', None)}"
        for i, (a, b) in enumerate(zip(ref, got)):
            compare_values(a, b, rtol, atol, f"{path}[{i}]", check_stride)
        return
    if isinstance(ref, dict):
        assert set(ref) == set(got), f"{path}: keys {set(ref)} vs {set(got)}"
        for k in ref:
            compare_values(ref[k], got[k], rtol, atol, f"{path}[{k!r}]", check_stride)
        return
    if isinstance(ref, bool) or ref is None or isinstance(ref, str):
        assert ref == got and type(ref) is type(got), f"{path}: {ref!r} vs {got!r}"
        return
    if isinstance(ref, numbers.Number):
        assert isinstance(got, numbers.Number) and not _is_tensor(got), f"{path}: {ref!r} vs {got!r}"
        assert type(ref) is type(got), f"{path}: type {type(ref).__name__} vs {type(got).__name__}"
        if isinstance(ref, float) and np.isnan(ref):
            assert np.isnan(got), f"{path}: {ref} vs {got}"
        else:
            # an explicit 0 stays 0 (exact): only None means the default
            np.testing.assert_allclose(got, ref, rtol=1.3e-6 if rtol is None else rtol,
                                       atol=1e-5 if atol is None else atol, err_msg=path)
        return
    raise AssertionError(f"{path}: don't know how to compare {type(ref).__name__}")


def check(fn, specs=(), *, seed=0, rtol=None, atol=None, msg="exact", check_stride=False, warn=False):
    """Run `fn(T, *inputs)` under both libraries and assert the outcomes match. Returns both outcomes."""
    ref, got = run_both(fn, specs, seed)
    if ref.error is not None or got.error is not None:
        if ref.error is None:
            raise AssertionError(f"torchshim raised {type(got.error).__name__}: {got.error}; torch returned "
                                 f"{ref.value!r}") from got.error
        if got.error is None:
            raise AssertionError(f"torch raised {type(ref.error).__name__}: {ref.error}; torchshim returned "
                                 f"{got.value!r}")
        compare_errors(ref.error, got.error, msg)
        return ref, got
    compare_values(ref.value, got.value, rtol, atol, check_stride=check_stride)
    if warn:
        assert [_first_line(w) for w in ref.warnings] == [_first_line(w) for w in got.warnings], \
            f"warnings differ:\n torch:     {ref.warnings}\n torchshim: {got.warnings}"
    return ref, got


# ---- op records -------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Case:
    """One concrete call: `fn(T, *inputs)` with input specs; `id` names it in pytest."""
    id: str
    fn: Callable
    specs: tuple
    rtol: float | None = None
    atol: float | None = None
    msg: Any = "exact"
    check_stride: bool = False
    second_order: bool = True  # test_gradients: also the gradient of the gradient (grad_harness)


# A record's first FULL_DTYPES dtypes run every sample; each further dtype runs its first two samples and
# its last (usually the odd one: non-contiguous, scalar operand, error case). The middle samples mostly vary
# shapes and keywords, which dtype does not change, and each case compiles its own kernels: running all of
# them for every dtype cost ~8.5k of test_ops' 34k cases, a sixth of the default suite's time (2 full dtypes:
# 25.7k cases; 1: 22.6k). The Tensor-method variant runs for the first dtype only (the method is the same
# generated wrapper for every dtype); the in-place and out= variants run for every dtype (their dtype rules:
# "result type Float can't be cast to the desired output type Long").
FULL_DTYPES = 1


@dataclasses.dataclass
class OpRecord:
    """One op and its samples. `samples(dtype)` yields (specs, kwargs) pairs; `call(T, *xs, **kw)` defaults to
    `T.<name>`. Variants are checked for the first sample of each dtype: Tensor method, in-place (`name_`),
    `out=`."""
    name: str
    samples: Callable
    dtypes: tuple = COMMON
    call: Callable | None = None
    method: bool = True
    inplace: bool = False
    out: bool = False
    rtol: float | None = None
    atol: float | None = None
    covers: tuple = ()  # other table names (aliases) this record also exercises
    msg: Any = "exact"

    def cases(self):
        for d, dtype in enumerate(self.dtypes):
            samples = list(self.samples(dtype))
            for k, (specs, kw) in enumerate(samples):
                if d >= FULL_DTYPES and 1 < k < len(samples) - 1:
                    continue  # see FULL_DTYPES
                sid = f"{self.name}-{dtype}-{k}" + (f"-{_kwid(kw)}" if kw else "")
                yield Case(sid, _function(self, kw), tuple(specs), self.rtol, self.atol, self.msg)
                if k == 0 and d == 0 and self.method and self.call is None:
                    yield Case(sid + "-method", _method(self.name, kw), tuple(specs), self.rtol, self.atol,
                               self.msg)
                if k == 0 and self.inplace:
                    yield Case(sid + "-inplace", _inplace(self.name, kw), tuple(specs), self.rtol, self.atol,
                               self.msg)
                if k == 0 and self.out:
                    yield Case(sid + "-out", _out(self, kw), tuple(specs), self.rtol, self.atol, self.msg)


def fused_slice(rec):
    """The cases of `rec` that test_ops_fused.py runs in fused eager mode: its first dtype's first and last
    samples (the last is usually the odd one: non-contiguous, a scalar operand, an error case), with the
    method, in-place and out= variants of the first."""
    first = f"{rec.name}-{rec.dtypes[0]}-"
    last = f"{first}{len(list(rec.samples(rec.dtypes[0]))) - 1}"
    for case in rec.cases():
        if case.id.startswith(first) and case.id[len(first):].split("-")[0] in ("0", last[len(first):]):
            yield case


def _kwid(kw):
    return ",".join(f"{k}={v}" for k, v in kw.items())


def _function(rec, kw):
    if rec.call is not None:
        return lambda T, *xs: rec.call(T, *xs, **kw)
    return lambda T, *xs: getattr(T, rec.name)(*xs, **kw)


def _method(name, kw):
    return lambda T, x, *xs: getattr(x, name)(*xs, **kw)


def _inplace(name, kw):
    def f(T, x, *xs):
        y = x.clone()
        r = getattr(y, name + "_")(*xs, **kw)
        assert r is y, "in-place op must return self"
        return y
    return f


def _out(rec, kw):
    def f(T, *xs):
        ref = _function(rec, kw)(T, *xs)
        outs = tuple(T.empty(0, dtype=r.dtype) for r in ref) if isinstance(ref, tuple) else \
            T.empty(0, dtype=ref.dtype)
        r = getattr(T, rec.name)(*xs, **kw, out=outs)
        if isinstance(outs, tuple):
            assert all(a is b for a, b in zip(r, outs)), "out= must return the out tensors"
        else:
            assert r is outs, "out= must return the out tensor"
        return outs
    return f


# ---- standard samples
# ---------------------------------------------------------------------------------------
def unary_samples(low=-3.0, high=3.0):
    """0-dim, empty, 1-d, 2-d, 3-d non-contiguous."""
    def samples(dtype):
        for shape, nc in (((3, 4), False), ((), False), ((0,), False), ((5,), False), ((2, 3, 4), True)):
            yield (Arg(shape, dtype, low, high, noncontig=nc),), {}
    return samples


def binary_samples(low=-3.0, high=3.0, rhs_low=None, rhs_high=None, scalars=(2,)):
    """Same shapes, broadcasting, 0-dim with n-dim, empty, non-contiguous, and Python scalar right
    operands."""
    rlo = low if rhs_low is None else rhs_low
    rhi = high if rhs_high is None else rhs_high

    def samples(dtype):
        pairs = (((3, 4), (3, 4), False), ((3, 4), (4,), False), ((), (3,), False),
                 ((2, 1, 4), (3, 1), False),
                 ((0, 3), (3,), False), ((4, 3), (4, 3), True))
        for a, b, nc in pairs:
            yield (Arg(a, dtype, low, high, noncontig=nc), Arg(b, dtype, rlo, rhi, noncontig=nc)), {}
        for s in scalars:
            yield (Arg((3, 4), dtype, low, high), s), {}
    return samples


def unique_ids(ids):
    """The test ids pytest makes of duplicate parametrize ids (`a-0`, `a-0` -> `a-0_0`, `a-0_1`), exactly, in
    linear time: pytest's own de-duplication (`IdMaker.make_unique_parameterset_ids`) rebuilds a set of all
    ids per duplicate, quadratic (seconds for the ~20k op-record cases)."""
    ids = list(ids)
    count = collections.Counter(ids)  # the ids now in the list: what pytest's `set(resolved_ids)` holds
    dups = {i for i, n in count.items() if n > 1}
    nxt = collections.defaultdict(int)
    for k, i in enumerate(ids):
        if i in dups:
            sep = "_" if i and i[-1].isdigit() else ""
            new = f"{i}{sep}{nxt[i]}"
            while count[new]:
                nxt[i] += 1
                new = f"{i}{sep}{nxt[i]}"
            count[i] -= 1
            count[new] += 1
            ids[k] = new
            nxt[i] += 1
    return ids


def cases_of(records):
    out = []
    for rec in records:
        out.extend(rec.cases())
    return out
