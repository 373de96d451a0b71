"""Every op record also runs with jax tracers inside the tensors (the whole call under `jax.jit`), and gives
the same result as the eager call. This is what lets a later issue compile whole training steps.

Cases whose eager call raises, or returns Python values (`allclose`, `equal`: a host round-trip by
definition), are not applicable. Cases whose output shape depends on values can't be traced at all; they must
raise a clear error instead (DATA_DEPENDENT says which cases those are)."""

import jax
import numpy as np
import pytest

import torchshim
from harness import Arg, Idx, Mask, build, cases_of, unique_ids
from records import all_records
from torchshim._storage import Storage
from torchshim._tensor import Tensor


def _always(rec, kw, specs):
    return True


def _repeat_interleave_dd(rec, kw, specs):
    """A repeats *tensor* without output_size: `repeat_interleave(repeats)` or `(input, repeats_tensor)`.
    (The records using `call=` all pass output_size, or raise eagerly.)"""
    if rec.call is not None or kw.get("output_size") is not None:
        return False
    return len(specs) == 1 or isinstance(specs[1], (Arg, Idx, Mask))


# Ops with forms whose output shape depends on input values, and a predicate (record, sample kwargs, input
# specs) -> True for the cases that take such a form. Under tracing exactly those cases may (must) raise
# RuntimeError("... under jax tracing ..."); every other case of the same op must trace.
DATA_DEPENDENT = {
    "nonzero": _always, "argwhere": _always, "masked_select": _always, "unique": _always,
    "unique_consecutive": _always,
    "where": lambda rec, kw, specs: len(specs) == 1,  # where(cond) is nonzero(cond, as_tuple=True)
    "repeat_interleave": _repeat_interleave_dd,
    # dims given as a tensor: the records using `call=` pass `dims=T.tensor(1)`, built inside the traced
    # function, hence a tracer (jax stages every op under jit)
    "tensordot": lambda rec, kw, specs: rec.call is not None,
    "one_hot": lambda rec, kw, specs: kw.get("num_classes", -1) == -1,  # classes inferred from the values
    "bincount": _always,  # max(input) + 1 bins
}

# Known gaps: cases that should trace and don't yet (strict xfails: op -> (predicate, reason))
TRACE_GAPS = {
    "histogram": (lambda rec, kw, specs: kw.get("range") is None and isinstance(kw.get("bins", 100), int),
                  "histogram with integer bins and no range= reads min/max on the host (ops/binning.py); the "
                  "output shape is fixed, so it could trace"),
}


def _tracing_cases():
    """Per record: its first dtype, first and last sample (the last is usually the odd one: non-contiguous,
    scalar operand, error case). Each case compiles a whole new jit, so the full cross product is too slow.
    Returns pytest params (case, data_dependent)."""
    out, ids = [], []
    for rec in all_records():
        d = rec.dtypes[0]
        cases = [c for c in cases_of([rec]) if c.id.startswith(f"{rec.name}-{d}-")
                 and not c.id.endswith(("-out", "-inplace", "-method"))]
        samples = list(rec.samples(d))
        dd = DATA_DEPENDENT.get(rec.name)
        gap = TRACE_GAPS.get(rec.name)
        for c in (cases[:1] + cases[-1:] if len(cases) > 1 else cases):
            specs, kw = samples[int(c.id[len(f"{rec.name}-{d}-"):].split("-")[0])]
            marks = [pytest.mark.xfail(strict=True, reason=gap[1])] if gap and gap[0](rec, kw, specs) else []
            out.append(((c, bool(dd and dd(rec, kw, tuple(specs)))), marks))
            ids.append(c.id)
    return [pytest.param(*p, id=i, marks=m) for (p, m), i in zip(out, unique_ids(ids))]


CASES = _tracing_cases()


def _retarget(t, array):
    """A tensor with t's geometry over a new storage holding `array` (a tracer inside jit)."""
    out = Tensor._make(Storage(array, t.device), t._shape, t._stride, t._offset, t._dtype)
    out.__class__ = type(t)
    return out


def _leaves(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _leaves(v)]
    return []


def _tensors_only(x):
    if isinstance(x, Tensor):
        return True
    if isinstance(x, (tuple, list)):
        return all(_tensors_only(v) for v in x)
    return False


def _comparable(a):
    """numpy values to compare: floats widened to float64 (bfloat16/float16 included), others as they are."""
    return np.asarray(a) if a.dtype.kind in "biuc" else np.asarray(a, dtype=np.float64)


def _inputs(case):
    rng = np.random.default_rng(0)
    return [build(s, torchshim, rng) for s in case.specs]


@pytest.mark.parametrize("case,data_dependent", CASES)
def test_op_runs_under_jit(case, data_dependent):
    try:
        eager = case.fn(torchshim, *_inputs(case))
    except Exception:
        pytest.skip("eager call raises (checked against torch in test_ops)")
    if not _tensors_only(eager):
        pytest.skip("returns Python values: a host round-trip by definition")
    # fresh inputs with the same values: the eager call may have written into (even resized) its own
    inputs = _inputs(case)
    tensor_pos = [i for i, x in enumerate(inputs) if isinstance(x, Tensor)]

    def traced(*arrays):
        xs = list(inputs)
        for i, a in zip(tensor_pos, arrays):
            xs[i] = _retarget(inputs[i], a)
        out = case.fn(torchshim, *xs)
        return [t._value for t in _leaves(out)]

    arrays = [inputs[i]._storage.array for i in tensor_pos]
    try:
        got = jax.jit(traced)(*arrays)
    except RuntimeError as e:
        if data_dependent and "under jax tracing" in str(e):
            return  # the clear error we promise for value-dependent output shapes
        raise
    want = [t._value for t in _leaves(eager)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(_comparable(g), _comparable(w), rtol=1e-6, atol=1e-6, equal_nan=True)
