"""Every op record also runs with jax tracers inside the tensors (the whole call under `jax.jit`), and gives
the same result as the eager call. This is what lets a later issue compile whole training steps.

Cases whose eager call raises, or returns Python values (`allclose`, `equal`: a host round-trip by
definition), are not applicable. Ops whose output shape depends on values can't be traced at all; they must
raise a clear error instead (DATA_DEPENDENT)."""
import jax
import numpy as np
import pytest

import torchshim
from harness import build, cases_of
from records import all_records
from torchshim._storage import Storage
from torchshim._tensor import Tensor

# ops whose output shape depends on input values: under tracing they must raise, not return garbage
# ("where" for its one-argument form, which is nonzero(as_tuple=True))
DATA_DEPENDENT = {"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "where"}

def _tracing_cases():
    """Per record: its first dtype, first and last sample (the last is usually the odd one: non-contiguous,
    scalar operand, error case). Each case compiles a whole new jit, so the full cross product is too slow."""
    out = []
    for rec in all_records():
        d = rec.dtypes[0]
        cases = [c for c in cases_of([rec]) if c.id.startswith(f"{rec.name}-{d}-")
                 and not c.id.endswith(("-out", "-inplace", "-method"))]
        out.extend(cases[:1] + cases[-1:] if len(cases) > 1 else cases)
    return out


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


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_runs_under_jit(case):
    rng = np.random.default_rng(0)
    inputs = [build(s, torchshim, rng) for s in case.specs]
    try:
        eager = case.fn(torchshim, *inputs)
    except Exception:
        pytest.skip("eager call raises (checked against torch in test_ops)")
    if not _tensors_only(eager):
        pytest.skip("returns Python values: a host round-trip by definition")
    tensor_pos = [i for i, x in enumerate(inputs) if isinstance(x, Tensor)]

    def traced(*arrays):
        xs = list(inputs)
        for i, a in zip(tensor_pos, arrays):
            xs[i] = _retarget(inputs[i], a)
        out = case.fn(torchshim, *xs)
        return [t._value for t in _leaves(out)]

    name = case.id.split("-")[0]
    arrays = [inputs[i]._storage.array for i in tensor_pos]
    try:
        got = jax.jit(traced)(*arrays)
    except RuntimeError as e:
        if name in DATA_DEPENDENT and "under jax tracing" in str(e):
            return  # the clear error we promise for value-dependent output shapes
        raise
    want = [t._value for t in _leaves(eager)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64) if g.dtype.kind not in "biuc" else np.asarray(g),
                                   np.asarray(w, dtype=np.float64) if w.dtype.kind not in "biuc" else np.asarray(w),
                                   rtol=1e-6, atol=1e-6, equal_nan=True)
