"""View ops against real torch: geometry (shape, stride, storage_offset, is_contiguous), aliasing (data_ptr
differences, untyped_storage identity, _base), write-through to the base and to other aliases, version
counters, and the errors for bad arguments. Every case builds the same base in both libraries and compares a
dict of plain-Python observations."""
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import _torch_message, check, run_both

LIBS = (torch, torchshim)


def base(T, shape, dtype="float32"):
    """A fresh (non-view) tensor with values 0..n-1."""
    n = int(np.prod(shape)) if shape else 1
    return T.tensor(np.arange(n).reshape(shape), dtype=getattr(T, dtype))


def geom(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous()


def _err(e):
    return type(e).__mro__[[c.__module__ for c in type(e).__mro__].index("builtins")].__name__, \
        str(e).split("\n")[0].split(" (Triggered internally")[0]


def observe(T, shape, make, write=None, dtype="float32"):
    """Plain observations of `make(T, x)` (a view or a tuple of views) and of writing through it."""
    x = base(T, shape, dtype)
    alias = x.view(-1) if x.dim() else x.view(())
    obs = {}
    try:
        out = make(T, x)
    except Exception as e:  # noqa: BLE001
        return {"make_error": _err(e)}
    views = out if isinstance(out, (tuple, list)) else (out,)
    obs["n"] = len(views)
    obs["geom"] = [geom(v) for v in views]
    st = x.untyped_storage().data_ptr()
    obs["shares"] = [v.untyped_storage().data_ptr() == st for v in views]
    # data_ptr relations: equal to base + offset * itemsize for views (0 for empty tensors in torch)
    obs["ptr"] = [(v.data_ptr() - x.data_ptr()) if s and v.numel() else None
                  for v, s in zip(views, obs["shares"])]
    obs["ptr_rule"] = [v.data_ptr() == x.data_ptr() + v.storage_offset() * v.element_size()
                       for v, s in zip(views, obs["shares"]) if s and v.numel()]
    obs["is_view"] = [v._is_view() for v in views]
    obs["values"] = [v.tolist() for v in views]
    obs["version_after_view"] = x._version
    if write is not None:
        errors = []
        for k, v in enumerate(views):
            try:
                write(T, v, k)
            except Exception as e:  # noqa: BLE001
                errors.append(_err(e))
        obs["write_errors"] = errors
        obs["x"] = x.tolist()
        obs["alias"] = alias.tolist()
        obs["views_after"] = [v.tolist() for v in views]
        obs["versions"] = (x._version, alias._version, [v._version for v in views])
    return obs


def compare(shape, make, write=None, dtype="float32", skip=()):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = observe(torch, shape, make, write, dtype)
        got = observe(torchshim, shape, make, write, dtype)
    for k in skip:
        ref.pop(k, None), got.pop(k, None)
    for k in ref:
        assert k in got, f"{k}: missing (torch {ref[k]!r}); torchshim {got}"
        assert ref[k] == got[k], f"{k}:\n torch:     {ref[k]!r}\n torchshim: {got[k]!r}"
    assert set(ref) == set(got), f"torch {ref}, torchshim {got}"


def check_warn(fn, specs=()):
    """`check` plus equal warning texts (PyTorch's '(Triggered internally ...)' suffix dropped)."""
    ref, got = run_both(fn, specs)
    check(fn, specs)
    strip = [_torch_message(w) for w in ref.warnings]
    assert strip == got.warnings, f"warnings differ:\n torch:     {strip}\n torchshim: {got.warnings}"


def w_add(T, v, k):
    v.add_(100 * (k + 1))


def w_mul(T, v, k):
    v.mul_(-2)


def w_fill(T, v, k):
    v.fill_(7 + k)


def w_zero(T, v, k):
    v.zero_()


def w_copy(T, v, k):
    v.copy_(T.arange(v.numel(), dtype=T.float32).reshape(v.shape) * -1 - 1)


def w_setitem(T, v, k):
    v[...] = -5 - k


def w_setitem_tensor(T, v, k):
    v[...] = T.full(v.shape[-1:], 3.5 + k)


WRITES = [w_add, w_mul, w_fill, w_zero, w_copy, w_setitem, w_setitem_tensor]

# (id, base shape, make)
VIEWS = [
    ("slice_step", (2, 3, 4), lambda T, x: x[:, 1:, ::2]),
    ("slice_neg_start", (2, 3, 4), lambda T, x: x[-1:, -2:, 1::3]),
    ("slice_empty", (2, 3, 4), lambda T, x: x[:, 5:]),
    ("slice_empty_mid", (2, 3, 4), lambda T, x: x[1:1]),
    ("int_index", (2, 3, 4), lambda T, x: x[1]),
    ("int_index_2", (2, 3, 4), lambda T, x: x[1, -1]),
    ("int_index_all", (2, 3, 4), lambda T, x: x[1, 2, 3]),
    ("none_ellipsis", (2, 3, 4), lambda T, x: x[None, ..., None, 1]),
    ("ellipsis_int", (2, 3, 4), lambda T, x: x[..., 2]),
    ("view", (2, 3, 4), lambda T, x: x.view(4, 6)),
    ("view_infer", (2, 3, 4), lambda T, x: x.view(-1, 2)),
    ("view_tuple", (2, 3, 4), lambda T, x: x.view((6, 4))),
    ("view_0d", (), lambda T, x: x.view(1, 1)),
    ("view_of_slice", (2, 3, 4), lambda T, x: x[:, 1:].view(2, 8)),
    ("view_as", (2, 3, 4), lambda T, x: x.view_as(T.zeros(3, 8))),
    ("reshape_view", (2, 3, 4), lambda T, x: x.reshape(3, 8)),
    ("reshape_copy", (2, 3, 4), lambda T, x: x.transpose(0, 2).reshape(-1)),
    ("reshape_fn", (2, 3, 4), lambda T, x: T.reshape(x, (4, -1))),
    ("reshape_as", (2, 3, 4), lambda T, x: x.reshape_as(T.zeros(6, 4))),
    ("reshape_as_copy", (2, 3, 4), lambda T, x: x.mT.reshape_as(T.zeros(24))),
    ("flatten", (2, 3, 4), lambda T, x: x.flatten()),
    ("flatten_range", (2, 3, 4), lambda T, x: x.flatten(1)),
    ("flatten_copy", (2, 3, 4), lambda T, x: x.mT.flatten(1)),
    ("flatten_same", (2, 3, 4), lambda T, x: x.flatten(1, 1)),
    ("flatten_0d", (), lambda T, x: x.flatten()),
    ("unflatten", (2, 3, 4), lambda T, x: x.unflatten(2, (2, 2))),
    ("unflatten_infer", (2, 3, 4), lambda T, x: T.unflatten(x, -1, (-1, 2))),
    ("t", (3, 4), lambda T, x: x.t()),
    ("t_1d", (4,), lambda T, x: x.t()),
    ("T", (3, 4), lambda T, x: x.T),
    ("T_3d", (2, 3, 4), lambda T, x: x.T),
    ("mT", (2, 3, 4), lambda T, x: x.mT),
    ("transpose", (2, 3, 4), lambda T, x: x.transpose(0, 2)),
    ("transpose_neg", (2, 3, 4), lambda T, x: T.transpose(x, -1, 0)),
    ("swapaxes", (2, 3, 4), lambda T, x: x.swapaxes(1, 2)),
    ("swapdims", (2, 3, 4), lambda T, x: T.swapdims(x, 0, 1)),
    ("permute", (2, 3, 4), lambda T, x: x.permute(2, 0, 1)),
    ("permute_tuple", (2, 3, 4), lambda T, x: T.permute(x, (1, -1, 0))),
    ("expand", (3, 1), lambda T, x: x.expand(2, 3, 4)),
    ("expand_keep", (3, 1), lambda T, x: x.expand(-1, 5)),
    ("expand_as", (1, 4), lambda T, x: x.expand_as(T.zeros(3, 4))),
    ("broadcast_to", (1, 4), lambda T, x: T.broadcast_to(x, (2, 3, 4))),
    ("expand_0d", (), lambda T, x: x.expand(3)),
    ("squeeze_all", (1, 3, 1, 2), lambda T, x: x.squeeze()),
    ("squeeze_dim", (1, 3, 1, 2), lambda T, x: x.squeeze(2)),
    ("squeeze_dim_noop", (1, 3, 1, 2), lambda T, x: x.squeeze(1)),
    ("squeeze_tuple", (1, 3, 1, 2), lambda T, x: T.squeeze(x, (0, -2))),
    ("unsqueeze", (2, 3, 4), lambda T, x: x.unsqueeze(1)),
    ("unsqueeze_last", (2, 3, 4), lambda T, x: x.unsqueeze(-1)),
    ("unsqueeze_0d", (), lambda T, x: x.unsqueeze(0)),
    ("narrow", (2, 3, 4), lambda T, x: x.narrow(2, 1, 2)),
    ("narrow_neg", (2, 3, 4), lambda T, x: T.narrow(x, 1, -2, 2)),
    ("narrow_tensor_start", (2, 3, 4), lambda T, x: x.narrow(0, T.tensor(1), 1)),
    ("narrow_empty_end", (2, 3, 4), lambda T, x: x.narrow(1, 3, 0)),
    ("select", (2, 3, 4), lambda T, x: x.select(1, 2)),
    ("select_neg", (2, 3, 4), lambda T, x: T.select(x, -1, -1)),
    ("unbind", (2, 3, 4), lambda T, x: x.unbind(1)),
    ("unbind_fn", (2, 3, 4), lambda T, x: T.unbind(x)),
    ("split", (5, 4), lambda T, x: x.split(2)),
    ("split_dim", (2, 3, 4), lambda T, x: T.split(x, 3, dim=2)),
    ("split_sizes", (5, 4), lambda T, x: x.split([1, 4])),
    ("split_with_sizes", (2, 3, 4), lambda T, x: x.split_with_sizes([1, 0, 2], 1)),
    ("chunk", (5, 4), lambda T, x: x.chunk(3)),
    ("chunk_more", (2, 3, 4), lambda T, x: T.chunk(x, 5, -1)),
    ("chunk_uneven", (6, 2), lambda T, x: x.chunk(4)),
    ("tensor_split_n", (7, 2), lambda T, x: x.tensor_split(3)),
    ("tensor_split_idx", (2, 3, 4), lambda T, x: T.tensor_split(x, [1, 3, 9], dim=2)),
    ("tensor_split_unordered", (2, 3, 4), lambda T, x: x.tensor_split([2, 1], 2)),
    ("tensor_split_tensor", (7, 2), lambda T, x: x.tensor_split(T.tensor([2, 5]))),
    ("tensor_split_tensor0d", (7, 2), lambda T, x: x.tensor_split(T.tensor(3))),
    ("diagonal", (4, 5), lambda T, x: x.diagonal()),
    ("diagonal_pos", (4, 5), lambda T, x: x.diagonal(2)),
    ("diagonal_neg", (4, 5), lambda T, x: T.diagonal(x, -1)),
    ("diagonal_out", (4, 5), lambda T, x: x.diagonal(7)),
    ("diagonal_dims", (2, 3, 4), lambda T, x: x.diagonal(1, 2, 0)),
    ("diagonal_kw", (2, 3, 4), lambda T, x: T.diagonal(x, offset=-1, dim1=-1, dim2=1)),
    ("unfold", (8,), lambda T, x: x.unfold(0, 3, 3)),
    ("unfold_gap", (3, 7), lambda T, x: x.unfold(1, 2, 3)),
    ("unfold_overlap", (8,), lambda T, x: x.unfold(0, 3, 2)),
    ("unfold_overlap_2d", (3, 6), lambda T, x: x.unfold(1, 2, 1)),
    ("unfold_neg_dim", (3, 6), lambda T, x: x.unfold(-2, 2, 1)),
    ("unfold_0d", (), lambda T, x: x.unfold(0, 1, 1)),
    ("movedim", (2, 3, 4), lambda T, x: x.movedim(0, -1)),
    ("movedim_seq", (2, 3, 4), lambda T, x: T.movedim(x, (0, 1), (2, 0))),
    ("moveaxis", (2, 3, 4), lambda T, x: T.moveaxis(x, 2, 0)),
    ("as_strided", (4, 5), lambda T, x: x.as_strided((2, 3), (5, 2), 1)),
    ("as_strided_fn", (4, 5), lambda T, x: T.as_strided(x, (3, 3), (1, 3))),
    ("as_strided_offset_kept", (4, 5), lambda T, x: x[1:].as_strided((2, 2), (2, 1))),
    ("as_strided_overlap", (4, 5), lambda T, x: x.as_strided((3, 3), (1, 1), 2)),
    ("as_strided_zero_stride", (4, 5), lambda T, x: x.as_strided((3, 2), (0, 1))),
    ("contiguous_self", (2, 3, 4), lambda T, x: x.contiguous()),
    ("contiguous_copy", (2, 3, 4), lambda T, x: x.mT.contiguous()),
    ("data", (2, 3, 4), lambda T, x: x.data),
    ("detach", (2, 3, 4), lambda T, x: x.detach()),
    ("adjoint", (2, 3, 4), lambda T, x: T.adjoint(x)),
]
VIEW_IDS = [c[0] for c in VIEWS]
# Overlapping layouts PyTorch does not detect (unfold with step < size, as_strided): in-place results depend
# on PyTorch's element order (a location is updated once per alias); torch documents this as undefined.
UNDEFINED_WRITES = {"unfold_overlap", "unfold_overlap_2d", "unfold_neg_dim", "as_strided_overlap"}
# torchshim's detach() result claims to be a view (_is_view()); see test_detach_and_data_are_not_views_of_x.
DETACH_CASES = {"detach", "detach_of_view_of_data"}


@pytest.mark.parametrize("name,shape,make", VIEWS, ids=VIEW_IDS)
def test_view_geometry(name, shape, make):
    compare(shape, make, skip=("is_view",) if name in DETACH_CASES else ())


WRITABLE = [c for c in VIEWS if c[0] not in UNDEFINED_WRITES]


@pytest.mark.parametrize("name,shape,make", WRITABLE, ids=[c[0] for c in WRITABLE])
def test_view_write_through_add(name, shape, make):
    compare(shape, make, w_add, skip=("is_view",) if name in DETACH_CASES else ())


WRITE_SUBSET = ["slice_step", "none_ellipsis", "reshape_copy", "T_3d", "expand", "squeeze_all", "split",
                "diagonal_dims", "unfold_gap", "as_strided", "contiguous_copy", "data", "detach",
                "slice_empty"]
WRITE_CASES = [(c, w) for c in VIEWS if c[0] in WRITE_SUBSET for w in WRITES[1:]
               if not (c[0] == "expand" and w in (w_fill, w_zero))]  # see test_fill_zero_on_expanded_allowed


@pytest.mark.parametrize("case,write", WRITE_CASES, ids=[f"{c[0]}-{w.__name__}" for c, w in WRITE_CASES])
def test_view_write_through(case, write):
    name, shape, make = case
    compare(shape, make, write, skip=("is_view",) if name in DETACH_CASES else ())


def test_write_through_int_dtype():
    compare((3, 4), lambda T, x: x[1:, ::2].t(), w_add, dtype="int64")
    compare((3, 4), lambda T, x: x.diagonal(), w_setitem, dtype="int32")
    compare((3, 4), lambda T, x: x[:, 1], lambda T, v, k: v.copy_(T.tensor([True, False, True])),
            dtype="bool")


# ---- chains of view ops ------------------------------------------------------------------------------------
CHAINS = [
    ("slice_t_select", (4, 6), lambda T, x: x[1:, ::2].t()[1]),
    ("view_permute_narrow", (2, 3, 4), lambda T, x: x.view(6, 4).t().narrow(1, 2, 3)),
    ("unsqueeze_expand_select", (3, 4), lambda T, x: x[:, 1].unsqueeze(0).expand(2, 3)[1]),
    ("transpose_diag_slice", (3, 4, 4), lambda T, x: x.transpose(0, 2).diagonal(0, 0, 1)[1:, ::2]),
    ("split_view_unbind", (4, 6), lambda T, x: x.split(3, 1)[1].reshape(2, 2, 3).unbind(2)),
    ("unfold_t_slice", (10,), lambda T, x: x[1:].unfold(0, 3, 3).t()[::2]),
    ("movedim_flatten_chunk", (2, 3, 4), lambda T, x: x.movedim(2, 0)[1:].flatten(1, 2)[:, ::3].chunk(2, 1)),
    ("as_strided_of_view", (4, 5), lambda T, x: x[1:, 1:].t().as_strided((2, 2), (2, 5), 3)[:, 1]),
    ("squeeze_unsqueeze_index", (1, 4, 1, 3), lambda T, x: x.squeeze(0).unsqueeze(-1)[2, 0, ::2]),
    ("detach_of_view_of_data", (3, 4), lambda T, x: x.data[1:].detach().t()[::2]),
]


@pytest.mark.parametrize("name,shape,make", CHAINS, ids=[c[0] for c in CHAINS])
@pytest.mark.parametrize("write", [w_add, w_setitem_tensor], ids=lambda w: w.__name__)
def test_view_chain_write(name, shape, make, write):
    compare(shape, make, write, skip=("is_view",) if name in DETACH_CASES else ())


def test_write_base_seen_by_views():
    def obs(T):
        x = base(T, (3, 4))
        views = [x[1], x.t(), x.diagonal(), x.view(12)[::5], x.unsqueeze(0).expand(2, 3, 4)]
        x.mul_(10)
        x[0, 0] = -1
        x[:, 3] = T.tensor([7.0, 8.0, 9.0])
        return [v.tolist() for v in views] + [[v._version for v in views]]
    assert obs(torch) == obs(torchshim)


# ---- versions, .data, detach, is_set_to --------------------------------------------------------------------
def _versions(T):
    x = base(T, (3, 4))
    v = x[1:]
    d = x.detach()
    dt = x.data
    out = [(x._version, v._version, d._version, dt._version)]
    for f in (lambda: v.add_(1), lambda: d.mul_(2), lambda: dt.sub_(1), lambda: x.__setitem__(0, 5),
              lambda: dt.__setitem__((0, 1), 3), lambda: v.t().zero_(), lambda: x.copy_(T.ones(4)),
              lambda: x.__setitem__(T.tensor([0, 2]), 1.0), lambda: x.fill_(2)):
        f()
        out.append((x._version, v._version, d._version, dt._version))
    return out


def test_version_counter_shared_by_views_and_detach_not_data():
    assert _versions(torch) == _versions(torchshim)


def test_version_not_bumped_by_views_or_reads():
    def obs(T):
        x = base(T, (3, 4))
        x.t(), x[1:], x.view(12), x.clone(), x + 1, x[T.tensor([0])]
        return x._version
    assert obs(torch) == obs(torchshim)


def test_is_set_to():
    def obs(T):
        x = base(T, (3, 4))
        y = base(T, (3, 4))
        return [x.is_set_to(x), x.is_set_to(x.detach()), x.is_set_to(x.data), x.is_set_to(x.view(3, 4)),
                x.is_set_to(x.view(12)), x.is_set_to(x.t()), x.is_set_to(x.t().t()), x.is_set_to(x.clone()),
                x.is_set_to(y), x[1:].is_set_to(x[1:]), x.is_set_to(x[:])]
    assert obs(torch) == obs(torchshim)


@pytest.mark.xfail(reason="_tensor.py Tensor.detach passes self._base, so x[1:].detach()._is_view() is True "
                          "(torch: False, detach() is not a view)", strict=True)
def test_detach_and_data_are_not_views_of_x():
    def obs(T):
        x = base(T, (3, 4))
        v = x[1:]
        return [x.detach()._is_view(), x.data._is_view(), v.detach()._is_view(), v.data._is_view(),
                v._is_view(), x._is_view()]
    assert obs(torch) == obs(torchshim)


def test_untyped_storage_equality_across_aliases():
    def obs(T):
        x = base(T, (3, 4))
        y = base(T, (3, 4))
        s = x.untyped_storage().data_ptr()
        return [a.untyped_storage().data_ptr() == s for a in (x[1:], x.t(), x.data, x.detach(), x.view(-1), y,
                                                               x.clone(), x.reshape(12), x.t().reshape(12))]
    assert obs(torch) == obs(torchshim)


def test_data_ptr_differences():
    def obs(T):
        x = base(T, (4, 5), "float64")
        p = x.data_ptr()
        return [v.data_ptr() - p for v in (x[1], x[1:, 2:], x.t()[3], x.diagonal(2), x.view(20)[7:], x[3, 4],
                                           x.narrow(1, 2, 2), x.unfold(1, 2, 2)[2])]
    assert obs(torch) == obs(torchshim)


@pytest.mark.xfail(reason="_tensor.py Tensor.data_ptr returns storage address + offset for empty tensors; "
                          "torch returns 0 when numel() == 0", strict=True)
def test_data_ptr_of_empty_tensors_is_zero():
    def obs(T):
        x = base(T, (4, 5))
        return [x[2:2].data_ptr(), T.empty(0).data_ptr(), x[:, 5:].data_ptr()]
    assert obs(torch) == obs(torchshim)


# ---- in-place ops on expanded tensors ----------------------------------------------------------------------
EXPANDED_WRITES = [
    ("add_", lambda T, e: e.add_(1)),
    ("mul_", lambda T, e: e.mul_(2)),
    ("copy_", lambda T, e: e.copy_(T.ones(3, 4))),
    ("setitem_all", lambda T, e: e.__setitem__(Ellipsis, 2)),
    ("setitem_int", lambda T, e: e.__setitem__(0, 2)),
    ("select_add_", lambda T, e: e[0].add_(1)),
    ("iadd", lambda T, e: e.__iadd__(1)),
]


@pytest.mark.parametrize("name,write", EXPANDED_WRITES, ids=[c[0] for c in EXPANDED_WRITES])
def test_inplace_on_expanded_raises(name, write):
    compare((3, 1), lambda T, x: x.expand(3, 4), lambda T, v, k: write(T, v))


@pytest.mark.xfail(reason="_tensor.py Tensor._write rejects every overlapping view; torch's fill_/zero_ "
                          "write expanded tensors fine", strict=True)
@pytest.mark.parametrize("write", [w_fill, w_zero], ids=lambda w: w.__name__)
def test_fill_zero_on_expanded_allowed(write):
    compare((3, 1), lambda T, x: x.expand(3, 4), write)


def test_advanced_setitem_on_expanded_writes_with_warning():
    def f(T):
        x = base(T, (3, 1))
        e = x.expand(3, 4)
        e[T.tensor([0, 2])] = 9.0
        e[1, [0]] = -1.0
        return x
    check_warn(f)


# ---- errors for bad view arguments -------------------------------------------------------------------------
ERRORS = [
    ("view_numel", lambda T, x: x.view(5, 5)),
    ("view_two_infer", lambda T, x: x.view(-1, -1)),
    ("view_noncontig", lambda T, x: x.transpose(0, 1).view(-1)),
    ("view_neg_dim", lambda T, x: x.view(-2, 12)),
    ("view_float_size", lambda T, x: x.view(2.0, 12)),
    ("reshape_numel", lambda T, x: x.reshape(7, -1)),
    ("reshape_infer_zero", lambda T, x: x.reshape(0, -1)),
    ("permute_len", lambda T, x: x.permute(0, 1)),
    ("permute_dup", lambda T, x: x.permute(0, 1, 1)),
    ("permute_range", lambda T, x: x.permute(0, 1, 5)),
    ("transpose_range", lambda T, x: x.transpose(0, 3)),
    ("t_3d", lambda T, x: x.t()),
    ("mT_1d", lambda T, x: x[0, 0].mT),
    ("expand_mismatch", lambda T, x: x.expand(3, 3, 4)),
    ("expand_fewer", lambda T, x: x.expand(3, 4)),
    ("expand_neg_lead", lambda T, x: x.expand(-1, 2, 3, 4)),
    ("squeeze_range", lambda T, x: x.squeeze(3)),
    ("unsqueeze_range", lambda T, x: x.unsqueeze(4)),
    ("narrow_exceeds", lambda T, x: x.narrow(0, 1, 2)),
    ("narrow_start", lambda T, x: x.narrow(0, 3, 0)),
    ("narrow_neg_start", lambda T, x: x.narrow(0, -3, 1)),
    ("narrow_neg_len", lambda T, x: x.narrow(0, 0, -1)),
    ("select_index", lambda T, x: x.select(1, 3)),
    ("select_dim", lambda T, x: x.select(3, 0)),
    ("select_0d", lambda T, x: x[0, 0, 0].select(0, 0)),
    ("split_neg", lambda T, x: x.split(-1)),
    ("split_zero", lambda T, x: x.split(0)),
    ("split_sizes_sum", lambda T, x: x.split([1, 1], 1)),
    ("split_with_sizes_neg", lambda T, x: x.split_with_sizes([1, -1, 3], 1)),
    ("chunk_zero", lambda T, x: x.chunk(0)),
    ("tensor_split_zero", lambda T, x: x.tensor_split(0)),
    ("tensor_split_2d", lambda T, x: x.tensor_split(T.tensor([[1]]))),
    ("diagonal_same", lambda T, x: x.diagonal(0, 1, 1)),
    ("unfold_size", lambda T, x: x.unfold(2, 5, 1)),
    ("unfold_step", lambda T, x: x.unfold(2, 2, 0)),
    ("unfold_neg_size", lambda T, x: x.unfold(2, -1, 1)),
    ("movedim_range", lambda T, x: x.movedim(0, 3)),
    ("movedim_repeat", lambda T, x: x.movedim((0, 1), (2, 2))),
    ("movedim_len", lambda T, x: x.movedim((0, 1), (2,))),
    ("as_strided_oob", lambda T, x: x.as_strided((5, 5), (5, 1))),
    ("as_strided_len", lambda T, x: x.as_strided((2, 2), (1,))),
    ("as_strided_neg", lambda T, x: x.as_strided((2, 2), (-1, 1))),
    ("unflatten_infer", lambda T, x: x.unflatten(2, (3, -1))),
    ("unflatten_prod", lambda T, x: x.unflatten(2, (2, 3))),
    ("flatten_order", lambda T, x: x.flatten(2, 0)),
    ("flatten_range", lambda T, x: x.flatten(0, 5)),
    ("view_as_bad", lambda T, x: x.view_as(T.zeros(5))),
    ("expand_as_bad", lambda T, x: x.expand_as(T.zeros(3, 4))),
    ("broadcast_to_bad", lambda T, x: T.broadcast_to(x, (3, 4))),
    ("as_strided_neg_size", lambda T, x: x.as_strided((2, -1), (1, 1))),
    ("unflatten_empty", lambda T, x: x.unflatten(2, ())),
    ("unflatten_two_infer", lambda T, x: x.unflatten(2, (-1, -1))),
    ("unflatten_neg", lambda T, x: x.unflatten(2, (2, -2))),
    ("squeeze_dup", lambda T, x: x.squeeze((0, 0))),
    ("diagonal_range", lambda T, x: x.diagonal(0, 0, 3)),
    ("movedim_int_tuple", lambda T, x: x.movedim(0, (1,))),
    ("tensor_split_float_tensor", lambda T, x: x.tensor_split(T.tensor([1.0]))),
    ("tensor_split_int32_tensor", lambda T, x: x.tensor_split(T.tensor([1], dtype=T.int32))),
    ("tensor_split_float", lambda T, x: x.tensor_split(2.0)),
    ("select_float", lambda T, x: x.select(0, 1.0)),
    ("chunk_neg", lambda T, x: x.chunk(-1)),
    ("narrow_float_tensor", lambda T, x: x.narrow(0, T.tensor(0.0), 1)),
    ("unfold_neg_step", lambda T, x: x.unfold(0, 1, -1)),
    ("unfold_check_order", lambda T, x: x.unfold(0, -1, 0)),
    ("view_dtype_0d", lambda T, x: x[0, 0, 0].view(T.int16)),
]


@pytest.mark.parametrize("name,make", ERRORS, ids=[c.id if hasattr(c, "marks") else c[0] for c in ERRORS])
def test_view_errors(name, make):
    ref, got = check(lambda T: make(T, base(T, (2, 3, 4))))
    assert ref.error is not None, f"torch did not raise for {name}"


T_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
             "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
             "or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")


@pytest.mark.parametrize("shape,warns", [((2, 3, 4), True), ((3,), True), ((3, 4), False)])
def test_T_warning(shape, warns):
    # PyTorch warns once per process (TORCH_WARN_ONCE), so torch can't be the oracle after the first time.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = base(torchshim, shape).T
    assert [str(x.message) for x in w] == ([T_WARNING] if warns else [])
    assert tuple(r.shape) == tuple(reversed(shape))


ZERO_D = [
    ("mT", lambda T, x: x.mT), ("mH", lambda T, x: x.mH), ("H", lambda T, x: x.H),
    ("adjoint", lambda T, x: T.adjoint(x)), ("t", lambda T, x: x.t()), ("T", lambda T, x: x.T),
    ("transpose", lambda T, x: x.transpose(0, -1)), ("squeeze0", lambda T, x: x.squeeze(0)),
    ("squeeze1", lambda T, x: x.squeeze(1)), ("movedim", lambda T, x: x.movedim(0, 0)),
    ("flatten00", lambda T, x: x.flatten(0, 0)), ("flatten01", lambda T, x: x.flatten(0, 1)),
    ("unbind", lambda T, x: x.unbind()), ("expand", lambda T, x: x.expand(())),
    ("select", lambda T, x: x.select(0, 0)),
    ("narrow", lambda T, x: x.narrow(0, 0, 0)), ("unfold_big", lambda T, x: x.unfold(0, 2, 1)),
    ("unfold_dim", lambda T, x: x.unfold(1, 1, 1)), ("unfold_neg", lambda T, x: x.unfold(-1, 1, 1)),
    ("diagonal", lambda T, x: x.diagonal()), ("unsqueeze", lambda T, x: x.unsqueeze(-1)),
    ("view", lambda T, x: x.view(-1)), ("reshape", lambda T, x: x.reshape(1, 1, 1)),
]


@pytest.mark.parametrize("name,make", ZERO_D, ids=[c[0] for c in ZERO_D])
def test_zero_dim_views(name, make):
    check_warn(lambda T: make(T, base(T, ())))


ONE_D = [("mT", lambda T, x: x.mT), ("mH", lambda T, x: x.mH), ("H", lambda T, x: x.H),
         ("adjoint", lambda T, x: T.adjoint(x)), ("H_3d", lambda T, x: x.view(1, 1, 3).H),
         ("mH_2d", lambda T, x: x.view(1, 3).mH), ("H_2d", lambda T, x: x.view(3, 1).H)]


@pytest.mark.parametrize("name,make", ONE_D, ids=[c[0] for c in ONE_D])
def test_matrix_transposes(name, make):
    check(lambda T: make(T, base(T, (3,))))


# ---- copy ops (clone, copy_, fill_, zero_, fill, type_as) --------------------------------------------------
COPY_CASES = [
    ("clone_is_new", lambda T, x: (lambda c: (c.add_(1), x)[1])(x.clone())),
    ("clone_view", lambda T, x: x.t().clone()),
    ("clone_version", lambda T, x: x.clone()._version),
    ("copy_broadcast", lambda T, x: x.copy_(T.tensor([1.0, 2.0, 3.0, 4.0]))),
    ("copy_cast_int", lambda T, x: x.copy_(T.tensor([[1.7, -2.5, 3.2, 0.5]] * 3))),
    ("copy_from_bool", lambda T, x: x.copy_(T.tensor([True, False, True, False]))),
    ("copy_bad_shape", lambda T, x: x.copy_(T.ones(2, 4))),
    ("copy_too_many_dims", lambda T, x: x.copy_(T.ones(2, 3, 4))),
    ("copy_returns_self", lambda T, x: x.copy_(T.ones(3, 4)) is x),
    ("fill_float_into_int", lambda T, x: x.long().fill_(2.7)),
    ("fill_tensor", lambda T, x: x.fill_(T.tensor(5.0))),
    ("fill_tensor_1d", lambda T, x: x.fill_(T.tensor([5.0]))),
    ("fill_bool", lambda T, x: x.bool().fill_(0)),
    ("zero_", lambda T, x: x[1:].zero_() is not None and x),
    ("fill_fn", lambda T, x: T.fill(x, 3)),
    ("fill_fn_keeps_input", lambda T, x: (T.fill(x, 3), x)[1]),
    ("type_as", lambda T, x: x.type_as(T.tensor([1], dtype=T.int32))),
    ("type_as_same", lambda T, x: x.type_as(T.zeros(1)) is x),
]


@pytest.mark.parametrize("name,fn", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_copy_ops(name, fn):
    check(lambda T: fn(T, base(T, (3, 4))))
