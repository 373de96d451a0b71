"""Broadcasting against real torch: the PyTorch 0.2 release notes' examples, random broadcastable and
non-broadcastable shape pairs for add/mul/eq and their in-place forms (result shape, or error type and
message), `torch.broadcast_tensors`, `torch.broadcast_shapes`, `torch.broadcast_to`."""
import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import torchshim
from harness import Arg, check, run_both
from test_views import check_warn

PROPS = settings(max_examples=60, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---- the release notes' examples ---------------------------------------------------------------------------
def test_release_notes_same_shapes():
    check(lambda T: T.FloatTensor(5, 7, 3).zero_() + T.FloatTensor(5, 7, 3).zero_())


def test_release_notes_trailing_dims():
    check(lambda T: (T.zeros(5, 3, 4, 1) + T.zeros(3, 1, 1)).size())


def test_release_notes_result_size():
    check(lambda T: (T.ones(5, 1, 4, 1) + T.ones(3, 1, 1)).size())


def test_release_notes_error_case():
    check(lambda T: (T.ones(5, 2, 4, 1) + T.ones(3, 1, 1)).size())


# ---- random shapes -----------------------------------------------------------------------------------------
@st.composite
def shape_pairs(draw):
    """Two shapes (0-4 dims, sizes 0-4): broadcastable by construction half of the time, else random."""
    a = draw(st.lists(st.integers(0, 4), max_size=4))
    if draw(st.booleans()):
        b = [draw(st.sampled_from([s, 1])) for s in a[len(a) - draw(st.integers(0, len(a))):]]
        b = [draw(st.integers(0, 4))] * draw(st.integers(0, 1)) + b if len(b) < 4 else b
        if draw(st.booleans()):
            a, b = b, a
    else:
        b = draw(st.lists(st.integers(0, 4), max_size=4))
    return tuple(a), tuple(b)


OPS = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "eq": lambda x, y: x == y}


def _compare(ref, got):
    if ref.error is not None or got.error is not None:
        assert ref.error is not None and got.error is not None, \
            f"torch {ref.error!r} vs torchshim {got.error!r}"
        assert (type(got.error).__name__ == type(ref.error).__name__
                or isinstance(got.error, type(ref.error).__base__))
        assert str(ref.error).split("\n")[0] == str(got.error).split("\n")[0], \
            f"\n torch:     {ref.error}\n torchshim: {got.error}"
        return
    assert ref.value == got.value, f"torch {ref.value} vs torchshim {got.value}"


@PROPS
@given(shape_pairs(), st.sampled_from(sorted(OPS)))
def test_random_binary_broadcast(shapes, op):
    a, b = shapes

    def f(T):
        r = OPS[op](T.ones(a), T.ones(b))
        return (tuple(r.shape), str(r.dtype),
                bool((r == (1 if op != "add" else 2)).all()) if r.numel() else None)
    _compare(*run_both(f))


@PROPS
@given(shape_pairs(), st.sampled_from(["add_", "mul_", "__iadd__"]))
def test_random_inplace_broadcast(shapes, op):
    a, b = shapes

    def f(T):
        x = T.ones(a)
        r = getattr(x, op)(T.ones(b))
        return tuple(r.shape), r is x, x._version
    _compare(*run_both(f))


@PROPS
@given(st.lists(st.lists(st.integers(0, 3), max_size=4).map(tuple), max_size=4))
def test_random_broadcast_shapes_and_tensors(shapes):
    def shapes_only(T):
        return tuple(T.broadcast_shapes(*shapes))

    def tensors(T):
        outs = T.broadcast_tensors(*[T.zeros(s) for s in shapes])
        return [(tuple(o.shape), o.stride()) for o in outs]
    _compare(*run_both(shapes_only))
    ref, got = run_both(tensors)
    if ref.error is not None:  # broadcast_tensors reports the C++ error, not broadcast_shapes' text
        assert got.error is not None and str(ref.error).split("\n")[0] == str(got.error).split("\n")[0], \
            f"torch {ref.error!r} vs torchshim {got.error!r}"
    else:
        assert ref.value == got.value, f"torch {ref.value} vs torchshim {got.value}"


# ---- broadcast_tensors / broadcast_shapes / broadcast_to by hand -------------------------------------------
BT = [
    ("two", lambda T: T.broadcast_tensors(T.arange(3.0).view(3, 1), T.arange(4.0))),
    ("three", lambda T: T.broadcast_tensors(T.zeros(3, 1), T.ones(4), T.full((2, 1, 1), 2.0))),
    ("zero_size", lambda T: T.broadcast_tensors(T.zeros(0, 1), T.zeros(3))),
    ("zero_dim", lambda T: T.broadcast_tensors(T.tensor(5), T.zeros(2, 3, dtype=T.int64))),
    ("none", lambda T: T.broadcast_tensors()),
    ("one", lambda T: T.broadcast_tensors(T.arange(2))),
    ("mixed_dtypes", lambda T: T.broadcast_tensors(T.tensor([True]), T.zeros(2, 1))),
    ("error", lambda T: T.broadcast_tensors(T.zeros(3, 2), T.zeros(4))),
    ("error_third", lambda T: T.broadcast_tensors(T.zeros(3, 1), T.zeros(4), T.zeros(5))),
    ("list_arg", lambda T: T.broadcast_tensors([T.zeros(2), T.zeros(3, 1)])),
    ("number_arg", lambda T: T.broadcast_tensors(T.zeros(2), 3)),
]


@pytest.mark.parametrize("name,fn", BT, ids=[c[0] for c in BT])
def test_broadcast_tensors(name, fn):
    check(fn, check_stride=True)


def test_broadcast_tensors_are_views():
    def f(T):
        x, y = T.arange(3.0).view(3, 1), T.arange(4.0)
        a, b = T.broadcast_tensors(x, y)
        p = x.untyped_storage().data_ptr()
        return [a._is_view(), b._is_view(), a.untyped_storage().data_ptr() == p, a.data_ptr() == x.data_ptr()]
    ref, got = run_both(f)
    assert ref.value == got.value


BS = [
    ("doc_example", lambda T: T.broadcast_shapes((2,), (3, 1), (1, 1, 1))),
    ("three", lambda T: T.broadcast_shapes((3, 1), (4,), (2, 1, 1))),
    ("int_arg", lambda T: T.broadcast_shapes(3, (2, 1))),
    ("size_and_list", lambda T: T.broadcast_shapes(T.Size([3, 1]), [4])),
    ("none_arg", lambda T: T.broadcast_shapes(None, (2,))),
    ("empty", lambda T: T.broadcast_shapes()),
    ("zero", lambda T: T.broadcast_shapes((0, 1), (1, 5))),
    ("error", lambda T: T.broadcast_shapes((3, 2), (4,))),
    ("error_list", lambda T: T.broadcast_shapes([3, 2], [4])),
    ("error_size", lambda T: T.broadcast_shapes(T.Size([3, 2]), T.Size([4]))),
    ("error_third", lambda T: T.broadcast_shapes((3, 1), (4,), (5,))),
    ("error_zero", lambda T: T.broadcast_shapes((0,), (2,))),
    ("negative_first", lambda T: T.broadcast_shapes((-1,), (4,))),
    ("negative_second", lambda T: T.broadcast_shapes((3,), (-2,))),
    ("float_size", lambda T: T.broadcast_shapes((2.0,), (2,))),
    ("tensor_arg", lambda T: T.broadcast_shapes(T.zeros(2))),
]


@pytest.mark.parametrize("name,fn", BS, ids=[c[0] for c in BS])
def test_broadcast_shapes(name, fn):
    check(fn)


BTO = [
    ("basic", lambda T: T.broadcast_to(T.arange(3.0), (2, 3))),
    ("keep", lambda T: T.broadcast_to(T.arange(3.0).view(3, 1), (-1, 4))),
    ("method", lambda T: T.arange(3.0).broadcast_to((2, 3))),
    ("error", lambda T: T.broadcast_to(T.arange(3.0), (2, 4))),
    ("fewer_dims", lambda T: T.broadcast_to(T.zeros(2, 3), (3,))),
]


@pytest.mark.parametrize("name,fn", BTO, ids=[c[0] for c in BTO])
def test_broadcast_to(name, fn):
    check(fn, check_stride=True)


# ---- in-place broadcasting errors and warnings -------------------------------------------------------------
INPLACE = [
    ("release_notes_message", lambda T: T.zeros(1).add_(T.zeros(7))),
    ("two_dims", lambda T: T.zeros(3, 1).mul_(T.zeros(3, 4))),
    ("more_dims", lambda T: T.zeros(3).add_(T.zeros(2, 3))),
    ("mismatch", lambda T: T.zeros(3).add_(T.zeros(4))),
    ("ok", lambda T: T.zeros(2, 3).add_(T.ones(3))),
    ("ok_scalar_tensor", lambda T: T.zeros(2, 3).sub_(T.tensor(2.0))),
    ("iadd", lambda T: T.zeros(1).__iadd__(T.zeros(7))),
    ("imul_ok", lambda T: T.ones(2, 3).__imul__(T.full((2, 1), 3.0))),
    ("eq_error", lambda T: T.zeros(2, 3) == T.zeros(4)),
    ("copy_broadcast", lambda T: T.zeros(2, 3).copy_(T.arange(3.0))),
    ("copy_error", lambda T: T.zeros(1).copy_(T.zeros(7))),
    ("copy_error_mismatch", lambda T: T.zeros(3).copy_(T.zeros(4))),
    ("copy_error_more_dims", lambda T: T.zeros(3).copy_(T.zeros(2, 3))),
]


@pytest.mark.parametrize("name,fn", INPLACE, ids=[c.id if hasattr(c, "marks") else c[0] for c in INPLACE])
def test_inplace_broadcasting(name, fn):
    check_warn(fn)


def test_broadcast_values_against_numpy():
    check(lambda T, a, b, c: (a + b) * c - (a == b).float(), [Arg((4, 1, 3)), Arg((5, 1)), Arg((3,))])


def test_backcompat_broadcast_warning_flag():
    # torch.utils.backcompat.broadcast_warning exists in both and is off by default
    assert (torch.utils.backcompat.broadcast_warning.enabled
            == torchshim.utils.backcompat.broadcast_warning.enabled)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torchshim.ones(3, 1) + torchshim.ones(3)
