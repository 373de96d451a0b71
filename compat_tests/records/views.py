"""Records for view and copy ops (torchshim/ops/views.py, ops/copy.py, `complex` in ops/creation.py).

Every case here also compares strides (`check_stride`). Aliasing is compared through values: `_thru` writes
through each view an op returns and returns the base, `_into` writes into the base and returns the views, so a
copy where PyTorch returns a view (or the reverse) shows up as different values. Hand-written geometry tests
(storage_offset, data_ptr, _base, version counters) live in compat_tests/test_views.py."""
import dataclasses

import pytest

from harness import Arg, Idx, OpRecord, check

# `x[i]` is the table op "__getitem__"; compat_tests/test_indexing.py and test_views.py test it by hand
EXTRA_COVERED = ["__getitem__"]

F = ("float32",)
FI = ("float32", "int64")
VD = ("float32", "int64", "bool", "complex64")


class ViewRecord(OpRecord):
    """An OpRecord whose cases also compare strides. `gap(reason, ...)` marks records of a known torchshim
    gap."""

    def cases(self):
        for c in super().cases():
            c.check_stride = True
            if getattr(self, "gap", None):
                c.fn = _gap_fn(c.fn, c.specs, self.gap)
            yield c


def gap(reason, *records):
    """Records of a known torchshim gap in a file these records don't own: their cases xfail with `reason`
    while torchshim differs from PyTorch, and fail ("gap fixed") once it matches, like a strict xfail."""
    for r in records:
        r.gap = reason
    return list(records)


def _gap_fn(fn, specs, reason):
    def f(T, *xs):
        if T.__name__ != "torchshim":
            return fn(T, *xs)
        try:
            check(fn, specs, check_stride=True)
        except AssertionError:
            pytest.xfail(reason)
        raise AssertionError(f"known gap is fixed, remove its gap() marker: {reason}")
    return f


@dataclasses.dataclass(frozen=True)
class A(Arg):
    """`Arg`, but empty inputs are made with `empty(shape)` (PyTorch gives `tensor(<empty ndarray>)` strides
    of 0, a construction detail these records are not about)."""

    def make(self, lib, rng):
        if 0 in tuple(self.shape) and not self.noncontig:
            return lib.empty(tuple(self.shape), dtype=getattr(lib, self.dtype))
        return super().make(lib, rng)


def _s(*items):
    """Samples that don't depend on the dtype: each item is (specs, kwargs)."""
    return lambda d: list(items)


def _m(name):
    """Call the Tensor method `name` (for ops that are methods only)."""
    return lambda T, x, *a, **kw: getattr(x, name)(*a, **kw)


def _f(name):
    return lambda T, *a, **kw: getattr(T, name)(*a, **kw)


def _views(out):
    return out if isinstance(out, (tuple, list)) else (out,)


def own(T, x):
    """A copy of `x` with x's exact geometry (shape, strides, storage offset) over a new storage, so a case
    can write into it without touching its inputs (test_tracing reuses them after the eager call)."""
    if not isinstance(x, T.Tensor):
        return x
    extent = (x.storage_offset() + 1 + sum((n - 1) * st for n, st in zip(x.shape, x.stride()))
              if x.numel() else 0)
    y = T.zeros(max(extent, x.storage_offset()), dtype=x.dtype).as_strided(
        x.shape, x.stride(), x.storage_offset())
    return y.copy_(x)


def _owned(fn):
    """`fn` applied to an `own` copy of its first input."""
    return lambda T, x, *a, **kw: fn(T, own(T, x), *a, **kw)


def _mut(name):
    """Call the in-place method `name` on an `own` copy of the first input."""
    return lambda T, x, *a, **kw: getattr(own(T, x), name)(*a, **kw)


def _thru(call):
    """Write through every view `call` returns (view k gets + 10 * (k + 1)); return the base and the views."""
    def f(T, x, *a, **kw):
        x = own(T, x)
        out = call(T, x, *a, **kw)
        for k, v in enumerate(_views(out)):
            v.add_(10 * (k + 1))
        return x, out
    return f


def _into(call):
    """Take the views, then write into the base; return the views (they must see the write) and the base."""
    def f(T, x, *a, **kw):
        x = own(T, x)
        out = call(T, x, *a, **kw)
        x.mul_(-3)
        x.add_(1)
        return out, x
    return f


def aliased(reason, call):
    """`call`, then an xfail with `reason` where torchshim's result does not share the input's storage (a
    known gap: PyTorch returns an alias)."""
    def f(T, x, *a, **kw):
        out = call(T, x, *a, **kw)
        if any(v.untyped_storage() != x.untyped_storage() for v in _views(out)):
            pytest.xfail(reason)
        return out
    return f


def untraceable(call):
    """`call`, for cases whose tensor arguments set a view's geometry: under jax tracing torchshim raises a
    clear error ("... can't be read under jax tracing"), which is a known limit, so the case xfails there."""
    def f(T, *a, **kw):
        try:
            return call(T, *a, **kw)
        except RuntimeError as e:
            if "under jax tracing" in str(e):
                pytest.xfail(str(e))
            raise
    return f


def _alias(name, call, samples, dtypes=FI):
    """Both aliasing directions for `call` over the same samples."""
    return [ViewRecord(name, samples, dtypes, call=_thru(call)),
            ViewRecord(name, samples, dtypes, call=_into(call))]


X = A((2, 3, 4))  # the default base for error cases

# ---- view, view_as, reshape, reshape_as, flatten, unflatten ------------------------------------------------
_VIEW = lambda d: [  # noqa: E731
    ((A((2, 3, 4), d), 4, 6), {}), ((A((2, 3, 4), d), (6, 4)), {}), ((A((2, 3, 4), d), [-1, 2]), {}),
    ((A((2, 3, 4), d), -1), {}), ((A((2, 3, 4), d), 2, -1, 1, 2), {}), ((A((), d), ()), {}),
    ((A((), d), 1, 1), {}), ((A((), d), -1), {}), ((A((1,), d), ()), {}), ((A((0, 3), d), 3, 0), {}),
    ((A((0, 3), d), -1), {}), ((A((0, 3), d), 0, -1), {}), ((A((4, 6), d, noncontig=True), 2, 2, 6), {}),
    ((A((4, 6), d, noncontig=True), 4, 3, 2), {}), ((A((3, 1, 4), d, noncontig=True), 3, 4), {}),
    ((A((2, 3, 4), d, noncontig=True), 4, 3, 2), {}),
]
_VIEW_ERR = _s(((X, 5, 5), {}), ((X, -1, -1), {}), ((X, -1, 5), {}), ((X, -2, 12), {}), ((X, 0, -1), {}),
               ((A((0, 3)), -1, 0), {}), ((A((4, 6), noncontig=True), -1), {}),
               ((A((4, 6), noncontig=True), 6, 4), {}), ((A((2, 3, 4), noncontig=True), 2, 12), {}),
               ((X, 2.0, 12), {}), ((A(()), 2), {}))
_RESHAPE = lambda d: [  # noqa: E731
    ((A((2, 3, 4), d), (4, 6)), {}), ((A((2, 3, 4), d), [-1]), {}), ((A((2, 3, 4), d), (3, -1, 2)), {}),
    ((A((), d), ()), {}), ((A((), d), (1, 1)), {}), ((A((0, 3), d), (3, -1, 0)), {}),
    ((A((0, 2), d), (0,)), {}), ((A((4, 6), d, noncontig=True), (-1,)), {}),
    ((A((4, 6), d, noncontig=True), (2, 2, 6)), {}), ((A((2, 3, 4), d, noncontig=True), (6, 4)), {}),
    ((A((5,), d, noncontig=True), (5, 1)), {}),
]
_RESHAPE_ERR = _s(((X, (7, -1)), {}), ((X, (0, -1)), {}), ((X, (-1, -1)), {}), ((X, (5,)), {}),
                  ((X, (-3, 8)), {}), ((A((0, 3)), (-1, 0)), {}))
_FLATTEN = lambda d: [  # noqa: E731
    ((A((2, 3, 4), d),), {}), ((A((2, 3, 4), d), 1), {}), ((A((2, 3, 4), d), 0, 1), {}),
    ((A((2, 3, 4), d), -2, -1), {}), ((A((2, 3, 4), d), 1, 1), {}), ((A((), d),), {}),
    ((A((), d), 0, -1), {}), ((A((0, 3), d),), {}), ((A((2, 3, 4), d, noncontig=True),), {}),
    ((A((2, 3, 4), d, noncontig=True), 0, 1), {}), ((A((2, 3, 4), d, noncontig=True),), {"start_dim": 2}),
    ((A((5,), d, noncontig=True),), {}),
]
_FLATTEN_ERR = _s(((X, 2, 0), {}), ((X, 0, 5), {}), ((X, -4), {}), ((A(()), 1), {}), ((A(()), 0, 2), {}))
_UNFLATTEN = lambda d: [  # noqa: E731
    ((A((2, 12), d), 1, (3, 4)), {}), ((A((2, 12), d), -1, [2, -1, 3]), {}), ((A((2, 12), d), 1, (-1,)), {}),
    ((A((6,), d), 0, (1, 6, 1)), {}), ((A((2, 0), d), 1, (0, 5)), {}), ((A((0, 3), d), 0, (2, 0)), {}),
    ((A((4, 6), d, noncontig=True), 0, (2, -1)), {}), ((A((4, 6), d, noncontig=True), 1, (3, 2)), {}),
]
_UNFLATTEN_ERR = _s(((X, 2, (3, -1)), {}), ((X, 2, (2, 3)), {}), ((X, 3, (2, 2)), {}), ((X, 2, ()), {}),
                    ((X, 2, (-1, -1)), {}), ((X, 2, (2, -2)), {}), ((A((2, 0)), 1, (-1, 0)), {}),
                    ((A(()), 0, (1,)), {}))

RECORDS = [
    ViewRecord("view", _VIEW, VD, call=_m("view")),
    ViewRecord("view", _VIEW_ERR, F, call=_m("view")),
    ViewRecord("view", _s(((X,), {})), F, call=lambda T, x: x.view(T.Size([4, 6]))),
    ViewRecord("view", _s(((X,), {})), F, call=lambda T, x: x.view(size=(4, 6))),
    ViewRecord("view", lambda d: [((A((2, 4), d),), {}), ((A((2, 4), d, noncontig=True),), {}),
                                  ((A((), d),), {}), ((A((0, 4), d),), {})], ("float32", "int32"),
               call=lambda T, x: x.view(T.int32 if x.dtype == T.float32 else T.float32)),
    ViewRecord("view", _s(((A((2, 4)),), {}), ((A((2, 3)),), {}), ((A(()),), {}),
                          ((A((2, 4), noncontig=True),), {})),
               F, call=lambda T, x: x.view(T.int16)),
    ViewRecord("view", _s(((A((2, 4)),), {}), ((A((2, 3)),), {}), ((A(()),), {}),
                          ((A((4, 2), noncontig=True),), {})),
               F, call=lambda T, x: x.view(dtype=T.float64)),
    ViewRecord("view", _s(((A((2, 4), "uint8"),), {}), ((A((3,), "int8"),), {})), F,
               call=lambda T, x: x.view(T.bool)),
    *_alias("view", _m("view"), _s(((A((2, 3, 4)), 4, 6), {}), ((A((4, 6), noncontig=True), 2, 2, 6), {}),
                                   ((A(()), 1), {}), ((A((0, 3)), -1), {}))),
    *_alias("view", aliased("view(dtype) reads a bit-cast copy of the storage, not an alias (needs dtype "
                            "views in _tensor.py)", lambda T, x, d: x.view(getattr(T, d))),
            _s(((A((2, 4)), "int32"), {}), ((A((2, 4)), "int16"), {}),
               ((A((2, 4), noncontig=True), "int32"), {}))),
    ViewRecord("view_as", lambda d: [((A((2, 3, 4), d), A((4, 6))), {}),
                                     ((A((2, 3, 4), d), A((24,), "int64")), {}),
                                     ((A((), d), A((1, 1, 1))), {}),
                                     ((A((4, 6), d, noncontig=True), A((2, 2, 6))), {}),
                                     ((A((0, 2), d), A((2, 0))), {})], VD, call=_m("view_as")),
    ViewRecord("view_as", _s(((X, A((5,))), {}), ((A((4, 6), noncontig=True), A((24,))), {})), F,
               call=_m("view_as")),
    *_alias("view_as", _m("view_as"), _s(((A((2, 3, 4)), A((4, 6))), {}))),
    ViewRecord("reshape", _RESHAPE, VD),
    ViewRecord("reshape", _RESHAPE_ERR, F),
    ViewRecord("reshape", _s(((X, 4, 6), {}), ((X, -1), {}), ((A(()),), {}), ((X, 2, -1, 2), {})), F,
               call=_m("reshape")),
    ViewRecord("reshape", _s(((X,), {})), F, call=lambda T, x: T.reshape(x, shape=(4, 6))),
    ViewRecord("reshape", _s(((X,), {})), F, call=lambda T, x: T.reshape(x, T.Size([24]))),
    *_alias("reshape", _f("reshape"), _s(((A((2, 3, 4)), (4, 6)), {}),
                                         ((A((4, 6), noncontig=True), (2, 2, 6)), {}),
                                         ((A((4, 6), noncontig=True), (-1,)), {}),
                                         ((A((2, 3, 4), noncontig=True), (6, 4)), {}), ((A(()), (1,)), {}))),
    ViewRecord("reshape_as", lambda d: [((A((2, 3, 4), d), A((4, 6))), {}),
                                        ((A((4, 6), d, noncontig=True), A((24,))), {}),
                                        ((A((), d), A((1,))), {}), ((A((0, 3), d), A((3, 0))), {})], VD,
               call=_m("reshape_as")),
    ViewRecord("reshape_as", _s(((X, A((5,))), {})), F, call=_m("reshape_as")),
    *_alias("reshape_as", _m("reshape_as"), _s(((A((2, 3, 4)), A((4, 6))), {}),
                                               ((A((4, 6), noncontig=True), A((24,))), {}))),
    ViewRecord("flatten", _FLATTEN, VD),
    ViewRecord("flatten", _FLATTEN_ERR, F),
    *_alias("flatten", _f("flatten"), _s(((A((2, 3, 4)),), {}), ((A((2, 3, 4)), 1, 1), {}),
                                         ((A((2, 3, 4), noncontig=True),), {}),
                                         ((A((2, 3, 4), noncontig=True), 0, 1), {}), ((A(()),), {}))),
    ViewRecord("unflatten", _UNFLATTEN, VD),
    ViewRecord("unflatten", _UNFLATTEN_ERR, F),
    ViewRecord("unflatten", _s(((A((2, 12)),), {})), F, call=lambda T, x: T.unflatten(x, 1, T.Size([3, 4]))),
    ViewRecord("unflatten", _s(((A((2, 12)),), {})), F, call=lambda T, x: x.unflatten(dim=-1, sizes=(4, -1))),
    *_alias("unflatten", _f("unflatten"), _s(((A((2, 12)), 1, (3, -1)), {}),
                                             ((A((4, 6), noncontig=True), 0, (2, 2)), {}))),
]

# ---- clone, contiguous, copy_, fill_, fill, zero_, type_as, complex ----------------------------------------
_DENSE = lambda d: [  # noqa: E731
    ((A((3, 4), d),), {}), ((A((), d),), {}), ((A((0, 3), d),), {}), ((A((2, 3, 4), d, noncontig=True),), {}),
    ((A((5,), d, noncontig=True),), {}), ((A((4, 6), d, noncontig=True),), {}),
]
_CONTIG = (None, "contiguous_format", "preserve_format")


def _clone_fmt(fmt, view=None):
    def f(T, x):
        if view is not None:
            x = view(x)
        return T.clone(x) if fmt is None else T.clone(x, memory_format=_fmt(T, fmt))
    return f


def _fmt(T, name):
    """torch.<name> memory format; an xfail while torchshim lacks it (it has no torch.memory_format
    objects)."""
    if not hasattr(T, name):
        pytest.xfail(f"torchshim has no torch.{name} (torch.memory_format objects are missing)")
    return getattr(T, name)


def _set_through(T, dst, src):
    """copy_ into a view of the base, return the base."""
    dst.copy_(src)
    return dst


RECORDS += [
    ViewRecord("clone", _DENSE, VD),
    *[ViewRecord("clone", _s(((A((3, 4)),), {}), ((A((2, 3, 4), noncontig=True),), {})), FI,
                 call=_clone_fmt(fmt, v))
      for fmt in _CONTIG for v in (None, lambda x: x[:, 1:], lambda x: x.transpose(0, 1)[1:],
                                   lambda x: x.unsqueeze(1).expand(-1, 2, *x.shape[1:]), lambda x: x[::2],
                                   lambda x: x[:, :1].transpose(0, 1), lambda x: x[:0].transpose(0, 1))],
    ViewRecord("clone", _s(((A((3, 4)),), {})), F,
               call=_owned(lambda T, x: (lambda c: (c.add_(1), x, c))(x.clone())[1:])),
    ViewRecord("clone", _s(((A((3, 4)),), {})), F,
               call=_owned(lambda T, x: (lambda c: (x.add_(1), x, c))(x.clone())[1:])),
    ViewRecord("contiguous", _DENSE, VD, call=_m("contiguous")),
    ViewRecord("contiguous", _s(((A((3, 4)),), {}), ((A((3, 4), noncontig=True),), {})), F,
               call=lambda T, x: x.contiguous(memory_format=_fmt(T, "contiguous_format"))),
    ViewRecord("contiguous", _s(((A((3, 4)),), {})), F, call=lambda T, x: x[:, ::2].contiguous()),
    ViewRecord("contiguous", _s(((A((3, 4)),), {})), F, call=lambda T, x: x[:, :1].expand(3, 2).contiguous()),
    *_alias("contiguous", _m("contiguous"), _s(((A((3, 4)),), {}), ((A((3, 4), noncontig=True),), {}))),
    ViewRecord("copy_", lambda d: [
        ((A((3, 4), d), A((3, 4), d)), {}), ((A((3, 4), d), A((4,), d)), {}), ((A((3, 4), d), A((), d)), {}),
        ((A((3, 4), d), A((3, 1), d)), {}), ((A((3, 4), d, noncontig=True), A((3, 4), d)), {}),
        ((A((3, 4), d), A((3, 4), d, noncontig=True)), {}), ((A((0, 3), d), A((3,), d)), {}),
        ((A((), d), A((), d)), {}), ((A((), d), A((1,), d)), {}), ((A((3, 4), d), A((1, 3, 4), d)), {}),
        ((A((3, 4), d), A((3, 4), "float64", -9, 9)), {}), ((A((3, 4), d), A((3, 4), "int64", -9, 9)), {}),
        ((A((3, 4), d), A((4,), "bool")), {}), ((A((3, 4), d), A((3, 4), "complex64")), {}),
        ((A((3, 4), d), A((3, 4), d)), {"non_blocking": True}),
    ], VD, call=_mut("copy_")),
    ViewRecord("copy_", _s(((A((3, 4)), A((2, 4))), {}), ((A((3, 4)), A((2, 3, 4))), {}),
                           ((A((3, 4)), A((0,))), {}), ((A((1, 4)), A((3, 4))), {}), ((A(()), A((2,))), {}),
                           ((A((3,)), A((3, 1))), {})), F,
               call=_mut("copy_")),
    ViewRecord("copy_", _s(((A((3, 4)), 1.5), {})), F, call=_mut("copy_")),
    ViewRecord("copy_", _s(((A((3, 1)), A((3, 4))), {})), F,
               call=_owned(lambda T, x, y: x.expand(3, 4).copy_(y))),
    ViewRecord("copy_", _s(((A((3, 3)),), {})), F, call=_owned(lambda T, x: x.copy_(x.t()))),
    ViewRecord("copy_", _s(((A((4, 3)),), {})), F, call=_owned(lambda T, x: x[1:].copy_(x[:3]))),
    ViewRecord("copy_", _s(((A((4, 3)),), {})), F, call=_owned(lambda T, x: x[2:].copy_(x[:2]))),
    ViewRecord("copy_", _s(((A((4, 3)),), {})), F, call=_owned(lambda T, x: (x.copy_(x), x)[1])),
    ViewRecord("copy_", _s(((A((4, 3)),), {})), F,
               call=_owned(lambda T, x: (x.view(12).copy_(x.view(12)), x)[1])),
    ViewRecord("copy_", _s(((A((4, 3)),), {})), F, call=_owned(lambda T, x: (x[:, 0].copy_(x[:, 1]), x)[1])),
    ViewRecord("copy_", _s(((A((3, 4)), A((4, 3))), {}), ((A((3, 4), noncontig=True), A((4,))), {}),
                           ((A((2, 3, 4)), A((3,))), {})), FI,
               call=_owned(lambda T, x, y: (x.transpose(-1, -2)[1:].copy_(y[1:] if y.dim() == 2 else y[:1]),
                                            x)[1])),
    ViewRecord("copy_", _s(((A((3, 4)), A((3,))), {})), FI,
               call=_owned(lambda T, x, y: (lambda v: (v.copy_(y), x.mul_(2), v))(x[:, 1])[1:])),
    ViewRecord("fill_", lambda d: [((A((3, 4), d), 2), {}), ((A((3, 4), d), 2.7), {}),
                                   ((A((3, 4), d), -1), {}), ((A((3, 4), d), True), {}), ((A((), d), 0), {}),
                                   ((A((0, 3), d), 5), {}), ((A((3, 4), d, noncontig=True), 3), {}),
                                   ((A((3, 4), d), A((), d)), {}), ((A((3, 4), d), A((), "float64")), {}),
                                   ((A((3, 4), d), A((), "int64", -9, 9)), {}),
                                   ((A((3, 4), d), A((1,), d)), {}), ((A((3, 4), d), A((2, 2), d)), {}),
                                   ((A((3, 4), d), 1 + 2j), {})], VD, call=_mut("fill_")),
    ViewRecord("fill_", _s(((A((3, 4)),), {})), FI, call=_owned(lambda T, x: (x[1:, ::2].fill_(9), x)[1])),
    ViewRecord("fill_", _s(((A((3, 4)),), {})), FI,
               call=_owned(lambda T, x: (x.t()[1].fill_(T.tensor(-4)), x)[1])),
    ViewRecord("fill_", _s(((A((3, 4), "int64"), 3.9), {}), ((A((3, 4), "uint8"), -1), {}),
                           ((A((3, 4), "bool"), 0.5), {}), ((A((3, 4), "int64"), float("nan")), {}),
                           ((A((3, 4), "float16"), 1e6), {})), F,
               call=_mut("fill_")),
    ViewRecord("fill", lambda d: [((A((3, 4), d), 2), {}), ((A((3, 4), d, noncontig=True), 2.5), {}),
                                  ((A((), d), 1), {}), ((A((0, 2), d), 1), {}),
                                  ((A((3, 4), d), A((), d)), {}), ((A((3, 4), d), A((2,), d)), {})],
               VD, method=False),
    ViewRecord("fill", _s(((A((3, 4)), 3), {})), FI, call=lambda T, x, v: (T.fill(x, v), x)),
    ViewRecord("zero_", lambda d: [((A((3, 4), d),), {}), ((A((), d),), {}), ((A((0, 3), d),), {}),
                                   ((A((3, 4), d, noncontig=True),), {})], VD, call=_mut("zero_")),
    ViewRecord("zero_", _s(((A((3, 4)),), {})), FI, call=_owned(lambda T, x: (x[:, 1:3].zero_(), x)[1])),
    ViewRecord("zero_", _s(((A((3, 4)),), {})), FI,
               call=_owned(lambda T, x: (lambda r: (r is x, x))(x.zero_())[1])),
    ViewRecord("type_as", lambda d: [((A((3, 4), d), A((2,), "int32")), {}),
                                     ((A((3, 4), d), A((), "float64")), {}), ((A((3, 4), d), A((2,), d)), {}),
                                     ((A((3, 4), d, noncontig=True), A((1,), "int64")), {}),
                                     ((A((3, 4), d, noncontig=True), A((1,), d)), {}),
                                     ((A((), d), A((1,), "bool")), {}),
                                     ((A((0, 3), d), A((1,), "float16")), {})],
               VD, call=_m("type_as")),
    *_alias("type_as", _m("type_as"), _s(((A((3, 4)), A((2,))), {}),
                                         ((A((3, 4), noncontig=True), A((2,))), {}),
                                         ((A((3, 4)), A((2,), "float64")), {}))),
    ViewRecord("complex", lambda d: [((A((3, 4), d), A((3, 4), d)), {}), ((A((3, 4), d), A((4,), d)), {}),
                                     ((A((0, 3), d), A((3,), d)), {}),
                                     ((A((2, 3), d), A((2, 3), d, noncontig=True)), {})],
               ("float32", "float64"), method=False, out=True),
    ViewRecord("complex", _s(((A(()), A((2, 3), noncontig=True)), {}),
                             ((A((3, 2), noncontig=True), A((2,))), {})),
               ("float32", "float64"), method=False),
    *gap("torchshim has no complex32 (ComplexHalf): complex(float16, float16) gives complex64",
         ViewRecord("complex", _s(((A((3,), "float16"), A((3,), "float16")), {})), F, method=False)),
    ViewRecord("complex", _s(((A((3,), "int64"), A((3,))), {}), ((A((3,)), A((3,), "int32")), {})), F,
               method=False),
    ViewRecord("complex", _s(((A((3,), "int64"), A((3,), "int64")), {}), ((A((3,)), A((3,), "float64")), {}),
                             ((A((3,), "bfloat16"), A((3,), "bfloat16")), {}),
                             ((A((3,), "bool"), A((3,), "bool")), {}),
                             ((A((3,), "complex64"), A((3,), "complex64")), {}), ((A((3,)), A((4,))), {}),
                             ((A((3,), "float64"), A((3,))), {})), F, method=False),
    ViewRecord("complex", _s(((A((3,)), A((3,))), {})), F, method=False,
               call=lambda T, a, b: T.complex(a, b, out=T.empty(0, dtype=T.complex128))),
    ViewRecord("complex", _s(((A((3,)), A((3,))), {})), F, method=False,
               call=lambda T, a, b: T.complex(a, b, out=T.empty(0, dtype=T.float32))),
]

# ---- transpose, t, adjoint, permute, movedim ---------------------------------------------------------------
RECORDS += [
    ViewRecord("transpose", lambda d: [
        ((A((2, 3, 4), d), 0, 2), {}), ((A((2, 3, 4), d), -1, 0), {}), ((A((2, 3, 4), d), 1, 1), {}),
        ((A((), d), 0, -1), {}), ((A((3,), d), 0, -1), {}), ((A((0, 3), d), 0, 1), {}),
        ((A((2, 3, 4), d, noncontig=True), 1, 2), {}), ((A((5,), d, noncontig=True), 0, 0), {}),
    ], VD, inplace=True, covers=("swapaxes", "swapdims")),
    ViewRecord("transpose", _s(((X, 0, 3), {}), ((X, -4, 0), {}), ((A(()), 0, 1), {}), ((X, 0.0, 1), {})), F),
    ViewRecord("transpose", _s(((X, 0, 2), {}), ((A((3, 4), noncontig=True), -1, -2), {})), FI,
               call=lambda T, x, a, b: (T.swapaxes(x, a, b), x.swapdims(a, b), x.transpose(dim0=a, dim1=b))),
    *_alias("transpose", _f("transpose"), _s(((A((2, 3, 4)), 0, 2), {}),
                                             ((A((2, 3, 4), noncontig=True), -1, 1), {}))),
    *_alias("transpose", _m("transpose_"), _s(((A((2, 3, 4)), 0, 2), {}))),
    ViewRecord("t", lambda d: [((A((3, 4), d),), {}), ((A((3,), d),), {}), ((A((), d),), {}),
                               ((A((0, 3), d),), {}), ((A((3, 4), d, noncontig=True),), {}),
                               ((A((5,), d, noncontig=True),), {})], VD,
               inplace=True),
    ViewRecord("t", _s(((X,), {}), ((A((1, 1, 1)),), {})), F),
    *_alias("t", _f("t"), _s(((A((3, 4)),), {}), ((A((3, 4), noncontig=True),), {}), ((A((3,)),), {}))),
    *_alias("t", _m("t_"), _s(((A((3, 4)),), {}))),
    ViewRecord("adjoint", lambda d: [((A((3, 4), d),), {}), ((A((2, 3, 4), d, noncontig=True),), {}),
                                     ((A((0, 3), d),), {}), ((A((1, 1), d),), {})], VD + ("complex128",)),
    ViewRecord("adjoint", _s(((A((3,)),), {}), ((A((3,), "complex64"),), {})), F),
    *_alias("adjoint", _f("adjoint"), _s(((A((3, 4)),), {}), ((A((2, 3, 4), noncontig=True),), {}))),
    *_alias("adjoint", aliased("complex adjoint is a conjugated copy: torchshim has no lazy conj views",
                               _f("adjoint")), _s(((A((3, 4), "complex64"),), {})), ("complex64",)),
    ViewRecord("permute", lambda d: [
        ((A((2, 3, 4), d), 2, 0, 1), {}), ((A((2, 3, 4), d), (1, -1, 0)), {}),
        ((A((2, 3, 4), d), [0, 1, 2]), {}), ((A((), d), ()), {}), ((A((3,), d), -1), {}),
        ((A((0, 2, 3), d), (2, 0, 1)), {}), ((A((2, 3, 4), d, noncontig=True), (2, 1, 0)), {}),
        ((A((2, 3, 4), d), -3, -1, -2), {}),
    ], VD),
    ViewRecord("permute", _s(((X, (0, 1)), {}), ((X, (0, 1, 1)), {}), ((X, (0, 1, 5)), {}),
                             ((X, (0, -4, 1)), {}), ((X, (0, 1, 2, 3)), {}), ((A(()), (0,)), {}),
                             ((X, (0, 1.0, 2)), {})), F),
    ViewRecord("permute", _s(((X,), {})), F, call=lambda T, x: x.permute(dims=(2, 0, 1))),
    ViewRecord("permute", _s(((X,), {})), F, call=lambda T, x: x.permute(2, 0, 1)),
    *_alias("permute", _f("permute"), _s(((A((2, 3, 4)), (2, 0, 1)), {}),
                                         ((A((2, 3, 4), noncontig=True), (1, 2, 0)), {}))),
    ViewRecord("movedim", lambda d: [
        ((A((2, 3, 4), d), 0, -1), {}), ((A((2, 3, 4), d), (0, 1), (2, 0)), {}),
        ((A((2, 3, 4), d), [2], [0]), {}), ((A((2, 3, 4), d), -1, 1), {}), ((A((2, 3, 4), d), (), ()), {}),
        ((A((), d), 0, -1), {}), ((A((2, 3, 4), d, noncontig=True), (0, 2), (-1, 0)), {}),
        ((A((0, 3), d), 1, 0), {}),
    ], VD, covers=("moveaxis",)),
    ViewRecord("movedim", _s(((X, 0, 3), {}), ((X, (0, 1), (2, 2)), {}), ((X, (0, 0), (1, 2)), {}),
                             ((X, (0, 1), (2,)), {}), ((X, 0, (1,)), {}), ((X, -4, 0), {})), F),
    ViewRecord("movedim", _s(((X, 2, 0), {}), ((X, (0, 1), (-1, -2)), {})), F,
               call=lambda T, x, a, b: (T.moveaxis(x, a, b), x.moveaxis(a, b),
                                        x.movedim(source=a, destination=b))),
    *_alias("movedim", _f("movedim"), _s(((A((2, 3, 4)), 0, -1), {}),
                                         ((A((2, 3, 4), noncontig=True), (0, 1), (1, 2)), {}))),
]

# ---- expand, expand_as, broadcast_to, broadcast_tensors, broadcast_shapes ----------------------------------
RECORDS += [
    ViewRecord("expand", lambda d: [
        ((A((3, 1), d), 3, 4), {}), ((A((3, 1), d), (2, 3, 4)), {}), ((A((3, 1), d), [-1, 5]), {}),
        ((A((3, 1), d), 2, -1, -1), {}), ((A((), d), 3), {}), ((A((), d), ()), {}), ((A((), d), (2, 0)), {}),
        ((A((1, 3), d), 0, 3), {}), ((A((0, 1), d), 0, 4), {}), ((A((3, 4), d), 3, 4), {}),
        ((A((4, 1), d, noncontig=True), 2, 4, 3), {}), ((A((5,), d, noncontig=True), 2, 5), {}),
        ((A((1,), d), 1, 1, 1), {}),
    ], VD, call=_m("expand")),
    ViewRecord("expand", _s(((A((3, 1)), 2.0, 3, 4), {}), ((A((3, 1)), 3, 3, 4), {}), ((A((3, 1)), 4), {}),
                            ((A((3, 1)), -1, 3, 4), {}), ((A((3, 2)), 3, 4), {}), ((A((3, 1)), 3, -2), {}),
                            ((A((3, 1)), 3, 1.5), {}), ((A((3, 1)), 2, 3, 4, 5), {})), F, call=_m("expand")),
    ViewRecord("expand", _s(((A((3, 1)),), {})), F, call=lambda T, x: x.expand(size=(3, 4))),
    ViewRecord("expand", _s(((A((3, 1)),), {})), F, call=lambda T, x: x.expand(T.Size([2, 3, 4]))),
    ViewRecord("expand", _s(((A((3, 1)),), {})), F, call=lambda T, x: x.expand(3, 4, implicit=True)),
    *_alias("expand", _m("expand"), _s(((A((3, 1)), 2, 3, 4), {}), ((A((4, 1), noncontig=True), 4, 3), {}),
                                       ((A((3, 4)), 3, 4), {}), ((A((3, 4)), 1, 3, 4), {}))),
    ViewRecord("expand_as", lambda d: [((A((3, 1), d), A((3, 4))), {}), ((A((), d), A((2, 3), "int64")), {}),
                                       ((A((1, 4), d, noncontig=True), A((2, 3, 4))), {}),
                                       ((A((1,), d), A((0,))), {})],
               VD, call=_m("expand_as")),
    ViewRecord("expand_as", _s(((A((3, 2)), A((3, 4))), {}), ((A((2, 3, 4)), A((3, 4))), {})), F,
               call=_m("expand_as")),
    *_alias("expand_as", _m("expand_as"), _s(((A((3, 1)), A((2, 3, 4))), {}), ((A((3, 4)), A((3, 4))), {}))),
    ViewRecord("broadcast_to", lambda d: [((A((3, 1), d), (3, 4)), {}), ((A((3, 1), d), [2, -1, 4]), {}),
                                          ((A((), d), (2, 3)), {}), ((A((), d), ()), {}),
                                          ((A((1, 3), d), (0, 3)), {}),
                                          ((A((4, 1), d, noncontig=True), (2, 4, 3)), {})], VD),
    ViewRecord("broadcast_to", _s(((A((3, 2)), (3, 4)), {}), ((A((2, 3, 4)), (3, 4)), {}),
                                  ((A((3, 1)), (-1, 3, 4)), {}), ((A((3, 1)), 3), {})), F),
    ViewRecord("broadcast_to", _s(((A((3, 1)),), {})), F,
               call=lambda T, x: T.broadcast_to(x, size=T.Size([3, 4]))),
    *_alias("broadcast_to", _f("broadcast_to"), _s(((A((3, 1)), (2, 3, 4)), {}), ((A((3, 4)), (3, 4)), {}))),
    ViewRecord("broadcast_tensors", lambda d: [
        ((A((3, 1), d), A((4,), d)), {}), ((A((), d), A((2, 3), "int64"), A((3,), d, noncontig=True)), {}),
        ((A((3, 4), d),), {}), ((), {}), ((A((0, 1), d), A((3,), d)), {}),
        ((A((2, 1, 4), d), A((3, 1), d)), {}), ((A((4, 1), d, noncontig=True), A((4, 3), d)), {}),
    ], VD, method=False),
    ViewRecord("broadcast_tensors", _s(((A((3,)), A((4,))), {}), ((A((2, 3)), A((3, 2))), {})), F,
               method=False),
    ViewRecord("broadcast_tensors", _s(((A((3, 1)), A((4,))), {})), F,
               call=lambda T, a, b: T.broadcast_tensors([a, b]) if False else T.broadcast_tensors(*[a, b])),
    *_alias("broadcast_tensors", lambda T, x, y: T.broadcast_tensors(x, y)[0],
            _s(((A((3, 1)), A((3, 4))), {}), ((A((3, 4)), A((4,))), {}),
               ((A((3, 4), noncontig=True), A((1,))), {}))),
    ViewRecord("broadcast_shapes", _s(
        (((3, 1), (4,)), {}), ((2, (3, 1)), {}), (((), (2, 3)), {}), (([1, 3], (2, 1, 1)), {}), ((), {}),
        (((0, 1), (3,)), {}), ((5,), {}), (((2, 3),), {}), ((1, 1), {}), (((3,), (4,)), {}), ((3, 4), {}),
        (((2, 3), (3, 2)), {}), (((-1, 3),), {}), (((2, -1), (1,)), {}), (((1, 3), (-1, 3)), {}),
        ((1.5,), {}), (((2.0, 3),), {}), (((2, 3), None), {}),
    ), F, method=False),
    ViewRecord("broadcast_shapes", _s(((), {})), F, method=False,
               call=lambda T: T.broadcast_shapes(T.Size([3, 1]), T.Size([4]))),
]

# ---- squeeze, unsqueeze, narrow, select, unbind ------------------------------------------------------------
S = A((1, 3, 1, 2))
RECORDS += [
    ViewRecord("squeeze", lambda d: [
        ((A((1, 3, 1, 2), d),), {}), ((A((1, 3, 1, 2), d), 2), {}), ((A((1, 3, 1, 2), d), 1), {}),
        ((A((1, 3, 1, 2), d), -2), {}), ((A((1, 3, 1, 2), d), (0, -2)), {}),
        ((A((1, 3, 1, 2), d), [1, 2]), {}), ((A((1, 3, 1, 2), d), ()), {}), ((A((), d),), {}),
        ((A((), d), 0), {}), ((A((), d), -1), {}), ((A((), d), (0,)), {}), ((A((1, 0, 1), d),), {}),
        ((A((1, 0, 1), d), 1), {}), ((A((1,), d),), {}), ((A((3, 1, 2), d, noncontig=True),), {}),
        ((A((3, 1, 2), d, noncontig=True), (1, 2)), {}),
    ], VD, inplace=True),
    ViewRecord("squeeze", _s(((S, 4), {}), ((S, -5), {}), ((S, (0, 0)), {}), ((S, (0, -4)), {}),
                             ((S, (0, 4)), {}), ((A(()), 1), {}), ((A(()), (0, 0)), {}), ((S, 1.0), {})), F),
    ViewRecord("squeeze", _s(((S,), {})), F, call=lambda T, x: (T.squeeze(x, dim=2), x.squeeze(dim=(0, 2)))),
    *_alias("squeeze", _f("squeeze"), _s(((S,), {}), ((S, 2), {}), ((A((3, 1, 2), noncontig=True),), {}))),
    *_alias("squeeze", _m("squeeze_"), _s(((S,), {}), ((S, (0, 2)), {}))),
    ViewRecord("unsqueeze", lambda d: [
        ((A((2, 3, 4), d), 1), {}), ((A((2, 3, 4), d), 0), {}), ((A((2, 3, 4), d), 3), {}),
        ((A((2, 3, 4), d), -1), {}), ((A((2, 3, 4), d), -4), {}), ((A((), d), 0), {}), ((A((), d), -1), {}),
        ((A((0, 3), d), 1), {}), ((A((3, 4), d, noncontig=True), 1), {}),
        ((A((3, 4), d, noncontig=True), 0), {}), ((A((3, 4), d, noncontig=True), 2), {}),
        ((A((5,), d, noncontig=True), -1), {}),
    ], VD, inplace=True),
    ViewRecord("unsqueeze", _s(((X, 4), {}), ((X, -5), {}), ((A(()), 1), {}), ((A(()), -2), {}),
                               ((X, 1.0), {})), F),
    ViewRecord("unsqueeze", _s(((X,), {})), F, call=lambda T, x: x.unsqueeze(dim=-2)),
    *_alias("unsqueeze", _f("unsqueeze"), _s(((X, 1), {}), ((A((3, 4), noncontig=True), 2), {}),
                                             ((A(()), 0), {}))),
    *_alias("unsqueeze", _m("unsqueeze_"), _s(((X, -1), {}))),
    ViewRecord("narrow", lambda d: [
        ((A((2, 3, 4), d), 2, 1, 2), {}), ((A((2, 3, 4), d), 1, -2, 2), {}),
        ((A((2, 3, 4), d), -1, 0, 4), {}), ((A((2, 3, 4), d), 1, 3, 0), {}),
        ((A((2, 3, 4), d), 0, -2, 0), {}), ((A((0, 3), d), 0, 0, 0), {}),
        ((A((4, 6), d, noncontig=True), 1, 2, 3), {}), ((A((4, 6), d, noncontig=True), 0, 1, 2), {}),
        ((A((5,), d, noncontig=True), 0, 1, 3), {}),
    ], VD),
    ViewRecord("narrow", _s(((X, 0, 1, 2), {}), ((X, 0, 3, 0), {}), ((X, 0, -3, 1), {}), ((X, 0, 0, -1), {}),
                            ((X, 3, 0, 1), {}), ((X, -4, 0, 1), {}), ((A(()), 0, 0, 1), {}),
                            ((X, 2, 2, 3), {}), ((X, 1, -4, 1), {}), ((X, 0, 1.0, 1), {}),
                            ((X, 0, Idx((), 1)), {})), F),
    ViewRecord("narrow", _s(((X,), {})), F, call=untraceable(lambda T, x: x.narrow(1, T.tensor(1), 2))),
    ViewRecord("narrow", _s(((X,), {})), F,
               call=untraceable(lambda T, x: T.narrow(x, dim=2, start=T.tensor(-2), length=2))),
    ViewRecord("narrow", _s(((X,), {})), F, call=lambda T, x: x.narrow(0, T.tensor(0.0), 1)),
    ViewRecord("narrow", _s(((X,), {})), F, call=lambda T, x: x.narrow(0, T.tensor([0]), 1)),
    *_alias("narrow", _f("narrow"), _s(((X, 2, 1, 2), {}), ((A((4, 6), noncontig=True), 1, 2, 3), {}),
                                       ((X, 1, 3, 0), {}))),
    ViewRecord("select", lambda d: [
        ((A((2, 3, 4), d), 1, 2), {}), ((A((2, 3, 4), d), -1, -1), {}), ((A((2, 3, 4), d), 0, -2), {}),
        ((A((3,), d), 0, 1), {}), ((A((2, 0), d), 0, 1), {}), ((A((4, 6), d, noncontig=True), 1, 3), {}),
        ((A((4, 6), d, noncontig=True), 0, -1), {}), ((A((5,), d, noncontig=True), 0, 4), {}),
    ], VD),
    ViewRecord("select", _s(((X, 1, 3), {}), ((X, 1, -4), {}), ((X, 3, 0), {}), ((X, -4, 0), {}),
                            ((A(()), 0, 0), {}), ((A((0, 2)), 0, 0), {}), ((X, 0, 1.0), {})), F),
    ViewRecord("select", _s(((X,), {})), F, call=untraceable(lambda T, x: (x.select(1, T.tensor(2)),
                                                                           T.select(x, dim=-1, index=0)))),
    *_alias("select", _f("select"), _s(((X, 1, 2), {}), ((A((4, 6), noncontig=True), 1, -1), {}),
                                       ((A((3,)), 0, 1), {}))),
    ViewRecord("unbind", lambda d: [((A((2, 3, 4), d),), {}), ((A((2, 3, 4), d), 1), {}),
                                    ((A((2, 3, 4), d), -1), {}), ((A((3,), d),), {}), ((A((0, 3), d),), {}),
                                    ((A((0, 3), d), 1), {}), ((A((4, 6), d, noncontig=True), 1), {})], VD),
    ViewRecord("unbind", _s(((X, 3), {}), ((X, -4), {}), ((A(()),), {}), ((A(()), 0), {})), F),
    ViewRecord("unbind", _s(((X,), {})), F, call=lambda T, x: x.unbind(dim=2)),
    *_alias("unbind", _f("unbind"), _s(((X, 1), {}), ((A((4, 6), noncontig=True),), {}))),
]

# ---- split, split_with_sizes, chunk, tensor_split ----------------------------------------------------------
P = A((5, 4))
RECORDS += [
    ViewRecord("split", lambda d: [
        ((A((5, 4), d), 2), {}), ((A((5, 4), d), 5), {}), ((A((5, 4), d), 7), {}), ((A((5, 4), d), 1, 1), {}),
        ((A((5, 4), d), 3, -1), {}), ((A((5, 4), d), [1, 4]), {}), ((A((5, 4), d), (2, 0, 2), 1), {}),
        ((A((5, 4), d), [5]), {}), ((A((0, 4), d), 2), {}), ((A((0, 4), d), 0), {}),
        ((A((0, 4), d), [0, 0]), {}), ((A((4, 6), d, noncontig=True), 4, 1), {}),
        ((A((4, 6), d, noncontig=True), [1, 3]), {}), ((A((5,), d, noncontig=True), 2), {}),
    ], VD),
    ViewRecord("split", _s(((P, -1), {}), ((P, 0), {}), ((P, [1, 1]), {}), ((P, [6, -1]), {}),
                           ((P, 2, 2), {}), ((A(()), 1), {}), ((P, [1.0, 4]), {}), ((P, 2.0), {})), F),
    ViewRecord("split", _s(((P,), {})), F,
               call=lambda T, x: (T.split(x, split_size_or_sections=2, dim=1), x.split(split_size=3),
                                  x.split([2, 3]))),
    *_alias("split", _f("split"), _s(((P, 2), {}), ((A((4, 6), noncontig=True), [1, 3], 1), {}),
                                     ((P, [0, 5]), {}))),
    ViewRecord("split_with_sizes", lambda d: [
        ((A((2, 3, 4), d), [1, 0, 2], 1), {}), ((A((2, 3, 4), d), (1, 3), -1), {}), ((A((5, 4), d), [5]), {}),
        ((A((0, 4), d), [0]), {}), ((A((4, 6), d, noncontig=True), [4, 2], 1), {}),
    ], VD),
    ViewRecord("split_with_sizes", _s(((P, [1, 1]), {}), ((P, [1, -1, 5]), {}), ((P, [5], 2), {}),
                                      ((P, 5), {}), ((P, [1.0, 4]), {}), ((A(()), [1]), {})), F),
    ViewRecord("split_with_sizes", _s(((P,), {})), F,
               call=lambda T, x: T.split_with_sizes(x, split_sizes=[2, 3], dim=0)),
    *_alias("split_with_sizes", _f("split_with_sizes"),
            _s(((P, [2, 3]), {}), ((A((4, 6), noncontig=True), [1, 5], 1), {}))),
    ViewRecord("chunk", lambda d: [
        ((A((5, 4), d), 3), {}), ((A((5, 4), d), 1), {}), ((A((5, 4), d), 5), {}), ((A((5, 4), d), 7), {}),
        ((A((6, 2), d), 4), {}), ((A((2, 3, 4), d), 5, -1), {}), ((A((0, 4), d), 3), {}),
        ((A((0, 4), d), 2, 1), {}), ((A((4, 6), d, noncontig=True), 4, 1), {}),
        ((A((5,), d, noncontig=True), 2), {}),
    ], VD),
    ViewRecord("chunk", _s(((P, 0), {}), ((P, -1), {}), ((P, 2, 2), {}), ((A(()), 1), {}),
                           ((P, 2.0), {})), F),
    ViewRecord("chunk", _s(((P,), {})), F, call=lambda T, x: (T.chunk(x, chunks=2, dim=1),
                                                              x.chunk(3, dim=-2))),
    *_alias("chunk", _f("chunk"), _s(((P, 3), {}), ((A((4, 6), noncontig=True), 4, 1), {}))),
    ViewRecord("tensor_split", lambda d: [
        ((A((7, 2), d), 3), {}), ((A((7, 2), d), 1), {}), ((A((7, 2), d), 9), {}),
        ((A((2, 3, 4), d), [1, 3, 9], 2), {}), ((A((2, 3, 4), d), (2, 1), -1), {}),
        ((A((7,), d), [-2, 5]), {}), ((A((7,), d), [5, -2, 9]), {}), ((A((7,), d), [-9, 2]), {}),
        ((A((7,), d), []), {}), ((A((7,), d), Idx((2,), 7)), {}), ((A((7,), d), Idx((), 4, 1)), {}),
        ((A((0, 3), d), 2), {}), ((A((0, 3), d), [1]), {}), ((A((4, 6), d, noncontig=True), 4, 1), {}),
        ((A((4, 6), d, noncontig=True), [1, 3]), {}),
    ], VD),
    ViewRecord("tensor_split", _s(((P, 0), {}), ((P, -1), {}), ((P, 2, 2), {}), ((A(()), 2), {}),
                                  ((P, Idx((1, 1), 3)), {}), ((P, Arg((1,))), {}),
                                  ((P, Idx((1,), 3, dtype="int32")), {}), ((P, 2.0), {}),
                                  ((P, Idx((), 1, 0)), {})), F),
    ViewRecord("tensor_split", _s(((P,), {})), F, call=lambda T, x: (T.tensor_split(x, sections=2, dim=1),
                                                                      x.tensor_split(indices=[1, 2]))),
    ViewRecord("tensor_split", _s(((P,), {})), F,
               call=untraceable(lambda T, x: x.tensor_split(tensor_indices_or_sections=T.tensor(3)))),
    *_alias("tensor_split", _f("tensor_split"), _s(((P, 3), {}),
                                                   ((A((4, 6), noncontig=True), [1, 3], 1), {}))),
]

# ---- diagonal, unfold, as_strided --------------------------------------------------------------------------
RECORDS += [
    ViewRecord("diagonal", lambda d: [
        ((A((4, 5), d),), {}), ((A((4, 5), d), 2), {}), ((A((4, 5), d), -1), {}), ((A((4, 5), d), 7), {}),
        ((A((4, 5), d), -4), {}), ((A((2, 3, 4), d), 1, 2, 0), {}), ((A((2, 3, 4), d), -1, -1, 1), {}),
        ((A((0, 3), d),), {}), ((A((3, 0), d), 1), {}), ((A((4, 5), d, noncontig=True), 1), {}),
        ((A((2, 3, 4), d, noncontig=True), 0, 0, 2), {}),
    ], VD),
    ViewRecord("diagonal", _s(((X, 0, 1, 1), {}), ((X, 0, 0, 3), {}), ((X, 0, -4, 0), {}), ((A((3,)),), {}),
                              ((A(()),), {}), ((X, 1.0), {})), F),
    ViewRecord("diagonal", _s(((X,), {})), F, call=lambda T, x: (T.diagonal(x, offset=-1, dim1=-1, dim2=1),
                                                                  x.diagonal(dim1=2, dim2=1))),
    *_alias("diagonal", _f("diagonal"), _s(((A((4, 5)), 1), {}),
                                           ((A((2, 3, 4), noncontig=True), -1, 2, 1), {}),
                                           ((A((4, 5)), 9), {}))),
    ViewRecord("unfold", lambda d: [
        ((A((8,), d), 0, 3, 3), {}), ((A((3, 7), d), 1, 2, 3), {}), ((A((8,), d), 0, 3, 2), {}),
        ((A((3, 6), d), -2, 2, 1), {}), ((A((3, 6), d), 1, 6, 1), {}), ((A((3, 6), d), 1, 0, 2), {}),
        ((A((), d), 0, 1, 1), {}), ((A((), d), -1, 0, 1), {}), ((A((0, 3), d), 1, 2, 1), {}),
        ((A((4, 6), d, noncontig=True), 1, 2, 2), {}), ((A((5,), d, noncontig=True), 0, 2, 1), {}),
    ], VD, call=_m("unfold")),
    ViewRecord("unfold", _s(((X, 2, 5, 1), {}), ((X, 2, 2, 0), {}), ((X, 2, -1, 1), {}), ((X, 3, 1, 1), {}),
                            ((A(()), 0, 2, 1), {}), ((A(()), 1, 1, 1), {}), ((X, 0, 1, -1), {}),
                            ((X, 0, -1, 0), {}), ((X, 0, 1.0, 1), {})), F, call=_m("unfold")),
    ViewRecord("unfold", _s(((X,), {})), F, call=lambda T, x: x.unfold(dimension=1, size=2, step=1)),
    *_alias("unfold", _m("unfold"), _s(((A((3, 7)), 1, 2, 3), {}),
                                       ((A((4, 6), noncontig=True), 0, 2, 2), {}))),
    ViewRecord("as_strided", lambda d: [
        ((A((4, 5), d), (2, 3), (5, 2), 1), {}), ((A((4, 5), d), (3, 3), (1, 3)), {}),
        ((A((4, 5), d), [20], [1], 0), {}), ((A((4, 5), d), (3, 3), (1, 1), 2), {}),
        ((A((4, 5), d), (3, 2), (0, 1)), {}), ((A((4, 5), d), (), (), 7), {}),
        ((A((4, 5), d), (0, 3), (1, 1), 19), {}), ((A((4, 5), d), (2, 2), (2, 1)), {"storage_offset": 3}),
        ((A((4, 6), d, noncontig=True), (2, 3), (1, 4)), {}),
        ((A((4, 6), d, noncontig=True), (3,), (5,), 2), {}),
    ], VD),
    ViewRecord("as_strided", _s(((A((4, 5)), (5, 5), (5, 1)), {}), ((A((4, 5)), (2, 2), (1,)), {}),
                                ((A((4, 5)), (2, 2), (-1, 1)), {}), ((A((4, 5)), (2, -1), (1, 1)), {}),
                                ((A((4, 5)), (2, 2), (1, 1), 19), {}), ((A((4, 5)), (2, 2.0), (1, 1)), {}),
                                ((A((4, 5)), (2, 2), (1, 1), -1), {})), F),
    ViewRecord("as_strided", _s(((A((4, 5)),), {})), F,
               call=lambda T, x: x[1:, 1:].as_strided((2, 2), (2, 1))),
    ViewRecord("as_strided", _s(((A((4, 5)),), {})), F,
               call=lambda T, x: x[1:].t().as_strided((2, 2), (1, 5), 0)),
    ViewRecord("as_strided", _s(((A((4, 5)),), {})), F,
               call=lambda T, x: T.as_strided(x, size=(3,), stride=(2,), storage_offset=1)),
    ViewRecord("as_strided", _s(((A((4, 5)), (2, 3), (5, 2), 1), {}), ((A((4, 5)), (4,), (1,)), {})), F,
               inplace=True),
    *_alias("as_strided", _f("as_strided"), _s(((A((4, 5)), (2, 3), (5, 2), 1), {}),
                                               ((A((4, 5)), (3, 3), (1, 3)), {}))),
    # writing through a self-overlapping view is order-dependent in PyTorch (undefined); reading one is not
    ViewRecord("as_strided", _s(((A((4, 5)), (3, 3), (1, 1), 2), {}), ((A((4, 5)), (3, 2), (0, 1)), {})), FI,
               call=_into(_f("as_strided"))),
    *_alias("as_strided", _m("as_strided_"), _s(((A((4, 5)), (2, 3), (5, 2), 1), {}))),
]

# ---- the method forms' argument errors (positions counted without self, no Tensor in the listed types) -----
_METHOD_TYPE_ERRORS = {
    "transpose": lambda T, x: x.transpose(0.0, 1),
    "movedim": lambda T, x: x.moveaxis(0, (1,)),
    "squeeze": lambda T, x: x.squeeze(1.0), "unsqueeze": lambda T, x: x.unsqueeze(1.0),
    "narrow": lambda T, x: x.narrow(0, 1.0, 1), "select": lambda T, x: x.select(0, 1.0),
    "unbind": lambda T, x: x.unbind(1.0), "split_with_sizes": lambda T, x: x.split_with_sizes(5),
    "chunk": lambda T, x: x.chunk(2.0), "tensor_split": lambda T, x: x.tensor_split(2.0),
    "diagonal": lambda T, x: x.diagonal(1.0), "permute": lambda T, x: x.permute(2.0, 0, 1),
}
RECORDS += [ViewRecord(_n, _s(((X,), {})), F, call=_fn) for _n, _fn in _METHOD_TYPE_ERRORS.items()]
RECORDS += [ViewRecord("transpose", _s(((X,), {})), F, call=lambda T, x: x.swapaxes(0, 1.0)),
            ViewRecord("transpose", _s(((X,), {})), F, call=lambda T, x: x.swapdims(0.0, 1)),
            ViewRecord("movedim", _s(((X,), {})), F, call=lambda T, x: x.movedim(0.0, 1))]
RECORDS += [ViewRecord("broadcast_tensors", _s(((A((4, 1)), A((4, 3))), {}), ((A((3,)),), {})), F,
                       method=False,
                       call=lambda T, *xs: [r is x for r, x in zip(T.broadcast_tensors(*xs), xs)])]
