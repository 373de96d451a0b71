"""Complex views (real, imag, view_as_real, view_as_complex) and the conjugate/negative bits against real
torch: geometry (strides, storage offsets, data_ptr, `_base`), aliasing both ways, version counters, the bits
through other view ops, writes through every kind of indexing, autograd through writes into the views, and
jax tracing.
Each test builds the same tensors in both libraries and compares plain-Python observations."""

import copy
import warnings

import jax
import numpy as np
import pytest
import torch

import torchshim
from torchshim._storage import Storage

LIBS = (torch, torchshim)


def _err(e):
    base = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
    return base.__name__, str(e).split("\n")[0].split(" (Triggered internally")[0]


def outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return _err(e)


def same(fn):
    """fn(T) gives the same plain-data outcome in both libraries."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, got = outcome(lambda: fn(torch)), outcome(lambda: fn(torchshim))
    assert ref == got, f"\n torch:     {ref!r}\n torchshim: {got!r}"


def cx(T, shape=(2, 3), dtype="complex64"):
    """A complex tensor with values k + (k + 10)j, k = 0..n-1 (k - n/2 for some negatives)."""
    n = int(np.prod(shape)) if shape else 1
    k = np.arange(n) - n // 2
    return T.tensor((k + 1j * (k + 10)).reshape(shape), dtype=getattr(T, dtype))


def vals(t):
    """Values as plain Python (complex pairs as (re, im) so they compare exactly)."""
    a = t.detach().resolve_conj().resolve_neg()
    if a.dtype.is_complex:
        return a.real.tolist(), a.imag.tolist()
    return a.tolist()


def geom(T, base, v):
    shares = (
        v.untyped_storage() == base.untyped_storage()
        if T is torchshim
        else v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    )
    return (
        tuple(v.shape),
        v.stride(),
        v.storage_offset(),
        str(v.dtype),
        v.is_contiguous(),
        v._base is base,
        v._is_view(),
        shares,
        v.data_ptr() - base.data_ptr() if v.numel() and shares else None,
        v.is_conj(),
        v.is_neg(),
        vals(v),
    )


# ---- geometry ----------------------------------------------------------------------------------------------
_VIEWS = {
    "real": lambda T, x: x.real,
    "imag": lambda T, x: x.imag,
    "var": lambda T, x: T.view_as_real(x),
    "conj": lambda T, x: x.conj(),
    "conj_imag": lambda T, x: x.conj().imag,
    "conj_real": lambda T, x: x.conj().real,
    "real_t": lambda T, x: x.t().real if x.dim() == 2 else x.real,
    "imag_row": lambda T, x: x[1:].imag,
    "var_slice": lambda T, x: T.view_as_real(x[..., ::2]),
    "var_sel": lambda T, x: T.view_as_real(x)[..., 1],
    "vac_var": lambda T, x: T.view_as_complex(T.view_as_real(x)),
    "real_view": lambda T, x: x.real.reshape(-1),
    "var_flat": lambda T, x: T.view_as_real(x).view(-1),
    "conj_t": lambda T, x: x.conj().mT if x.dim() >= 2 else x.conj(),
    "imag_asstrided": lambda T, x: x.imag.as_strided((2,), (3,), 1),
    "var_asstrided": lambda T, x: T.view_as_real(x).as_strided((3,), (3,), 2),
}


@pytest.mark.parametrize("shape", [(2, 3), (), (4,), (0, 3), (2, 1, 3)])
@pytest.mark.parametrize("name", list(_VIEWS))
def test_view_geometry(name, shape):
    same(lambda T: (lambda x: geom(T, x, _VIEWS[name](T, x)))(cx(T, shape)))


@pytest.mark.parametrize("name", list(_VIEWS))
def test_view_geometry_of_a_noncontiguous_base(name):
    same(lambda T: (lambda x: geom(T, x._base, _VIEWS[name](T, x)))(cx(T, (3, 4)).t()[1:]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_real_of_a_real_tensor_is_itself(dtype):
    same(
        lambda T: (
            lambda x: (
                x.real is x,
                T.real(x) is x,
                x.conj() is x,
                T.conj_physical(x) is x,
                x.resolve_conj() is x,
                x.resolve_neg() is x,
                x.is_conj(),
                outcome(lambda: x.imag),
            )
        )(T.tensor([1, 0, 2], dtype=getattr(T, dtype)))
    )


def test_view_as_complex_of_a_real_base():
    def obs(T):
        r = T.arange(12.0).reshape(3, 2, 2)
        c = T.view_as_complex(r)
        return [
            geom(T, r, v)
            for v in (
                c,
                c.real,
                c.imag,
                c[1],
                c.conj(),
                T.view_as_real(c),
                c.t(),
                T.view_as_complex(r[:, 1]),
                c.imag.as_strided((2,), (4,), 1),
            )
        ]

    same(obs)


# ---- aliasing and versions ---------------------------------------------------------------------------------
_WRITES = {
    "real_setitem": lambda T, x: x.real.__setitem__(0, 5),
    "imag_mul": lambda T, x: x.imag.mul_(2),
    "real_fill": lambda T, x: x.real.fill_(-1),
    "imag_zero_row": lambda T, x: x.imag[1].zero_(),
    "real_copy_imag": lambda T, x: x.real.copy_(x.imag),
    "imag_copy_real_t": lambda T, x: x.imag.copy_(x.real.flip(0)),
    "var_neg": lambda T, x: T.view_as_real(x).neg_(),
    "var_col": lambda T, x: T.view_as_real(x)[..., 0].add_(100),
    "var_flat": lambda T, x: T.view_as_real(x).view(-1)[::3].fill_(7),
    "conj_setitem": lambda T, x: x.conj().__setitem__((0, 1), 2 + 3j),
    "conj_mul_i": lambda T, x: x.conj().mul_(1j),
    "conj_imag_add": lambda T, x: x.conj().imag.add_(5),
    "conj_t_copy": lambda T, x: x.conj().t().copy_(T.ones(3, 2, dtype=x.dtype) * (1 + 1j)),
    "conj_physical_": lambda T, x: x.conj_physical_(),
    "conj_conj_physical_": lambda T, x: x.conj().conj_physical_(),
    "real_index_put": lambda T, x: x.real.__setitem__((T.tensor([0, 1]), T.tensor([2, 0])), 9.0),
    "imag_mask": lambda T, x: x.imag.__setitem__(x.real > 0, -4.0),
    "real_index_add": lambda T, x: x.real.index_add_(1, T.tensor([0, 2]), T.ones(2, 2)),
    "real_attr": lambda T, x: setattr(x, "real", T.tensor([1.0, 2.0, 3.0])),
    "imag_attr": lambda T, x: setattr(x, "imag", 0.5),
    "vac_of_var": lambda T, x: T.view_as_complex(T.view_as_real(x))[1].mul_(2),
    "base_write": lambda T, x: x.mul_(1 + 1j),
    "base_setitem": lambda T, x: x.__setitem__(1, 0),
    "copy_real_into_base": lambda T, x: x.copy_(x.real),
    "copy_conj_into_base": lambda T, x: x.copy_(x.conj()),
    "real_as_strided": lambda T, x: x.real.as_strided((2,), (5,), 1).fill_(-9),
}


@pytest.mark.parametrize("name", list(_WRITES))
def test_writes_are_seen_by_every_alias(name):
    def obs(T):
        x = cx(T)
        views = (x.real, x.imag, T.view_as_real(x), x.conj(), x.conj().imag, x[1], x.t())
        before = [v._version for v in views]
        r = outcome(lambda: _WRITES[name](T, x))
        return (
            r if isinstance(r, tuple) else None,
            vals(x),
            [vals(v) for v in views],
            x._version,
            [v._version - b for v, b in zip(views, before)],
        )

    same(obs)


def test_zero_dim_views_write_through():
    def obs(T):
        x = cx(T, ())
        x.real.fill_(3)
        x.imag.sub_(1)
        T.view_as_real(x)[1] = 8
        r, i, c = x.real, x.imag, x.conj()
        c.fill_(1 - 2j)
        return vals(x), vals(r), vals(i), x._version, x.real.is_set_to(x)

    same(obs)


def test_data_and_detach_keep_the_bits():
    same(
        lambda T: (
            lambda c: (
                c.detach().is_conj(),
                c.data.is_conj(),
                vals(c.detach()),
                vals(c.data),
                c.imag.data.is_neg(),
                vals(c.imag.detach()),
            )
        )(cx(T).conj())
    )


def test_conj_bit_through_view_ops():
    def obs(T):
        c = cx(T, (2, 3, 4)).conj()
        views = (
            c[0],
            c.t() if c.dim() == 2 else c.transpose(0, 2),
            c.view(6, 4),
            c.reshape(-1),
            c.expand(2, 2, 3, 4),
            c.unsqueeze(0),
            c.permute(2, 0, 1),
            c.narrow(1, 1, 2),
            c.diagonal(),
            c.unbind(1)[1],
            c.mT,
            c.mH,
            c.flatten(),
            c.select(2, 1),
            c.as_strided((2, 2), (1, 4)),
            c.unfold(2, 2, 1),
            c.squeeze(),
        )
        return [(v.is_conj(), vals(v), v.stride()) for v in views]

    same(obs)


def test_ops_on_conj_views_read_conjugated_values():
    def obs(T):
        x = cx(T)
        c = x.conj()
        return [
            vals(v)
            for v in (
                c + 1,
                c * x,
                c.sum(),
                c.clone(),
                c.contiguous(),
                c @ x.mT,
                T.cat([c, x]),
                c.to(T.complex128),
                c.exp(),
                c.flip(0),
                c.reshape(3, 2).t().contiguous(),
                T.where(x.real > 0, c, x),
            )
        ] + [c.clone().is_conj(), (c + 0).is_conj(), c.to(T.complex128).is_conj()]

    same(obs)


def test_conversions_of_bit_views():
    def obs(T):
        c = cx(T).conj()
        n = c.imag
        return (
            c.tolist(),
            n.tolist(),
            c[0, 0].item(),
            n[0, 0].item(),
            outcome(lambda: c.numpy()),
            outcome(lambda: n.numpy()),
            c.resolve_conj().numpy().tolist(),
            n.resolve_neg().numpy().tolist(),
            outcome(lambda: c.view(T.float32)),
            vals(cx(T).real.view(T.int32)),
            vals(T.view_as_real(cx(T)).view(T.float64)),
            str(c),
            repr(n),
            complex(c[1, 2]),
            float(n[1, 2]),
        )

    same(obs)


def test_deepcopy_and_pickle_of_complex_views():
    same(
        lambda T: (
            lambda c: (
                vals(copy.deepcopy(c)),
                vals(copy.deepcopy(c.real)),
                vals(copy.deepcopy(c.conj())),
                vals(copy.deepcopy(T.view_as_real(c))),
            )
        )(cx(T))
    )


# ---- errors ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda T: T.view_as_real(cx(T).conj()),
        lambda T: T.view_as_real(T.ones(3)),
        lambda T: T.imag(T.ones(3)),
        lambda T: T.view_as_complex(T.ones(3, 3)[:, :2]),
        lambda T: T.view_as_complex(T.ones(9)[1:].view(4, 2)),
        lambda T: T.view_as_complex(T.ones(2, 4)[:, 1:3]),
        lambda T: T.view_as_complex(T.ones(3, 2).t().t()[:, None]),
        lambda T: T.view_as_complex(T.ones(2, 2, 2).transpose(0, 2)),
        lambda T: T.view_as_complex(cx(T).real),
        lambda T: T.view_as_complex(T.view_as_real(cx(T)).view(-1)[1:].view(-1, 2)),
        lambda T: T.view_as_complex(T.ones(3, 2, dtype=T.int64)),
        lambda T: T.view_as_complex(T.ones(())),
        lambda T: T.view_as_real([1j]),
        lambda T: T.conj(1j),
        lambda T: cx(T).real.as_strided((13,), (1,)),
        lambda T: cx(T).real.as_strided((12,), (1,)).tolist(),
        lambda T: T.view_as_complex(cx(T).imag),
        lambda T: setattr(T.ones(3), "imag", T.zeros(3)),
        lambda T: cx(T).imag.as_strided((6,), (2,), 1).tolist(),
        lambda T: T.view_as_complex(T.ones(4, 2)).as_strided((5,), (1,)),
    ],
)
def test_errors(call):
    same(lambda T: (lambda r: vals(r) if isinstance(r, (torch.Tensor, torchshim.Tensor)) else r)(call(T)))


# ---- autograd ----------------------------------------------------------------------------------------------
def _leaf(T):
    return cx(T, (2, 3), "complex128").requires_grad_()


@pytest.mark.parametrize(
    "write",
    [
        lambda T, x: x.real.mul_(3),
        lambda T, x: x.imag.copy_(x.real.detach() ** 2),
        lambda T, x: T.view_as_real(x)[1:, 0].pow_(2),
        lambda T, x: x.conj().mul_(1j),
        lambda T, x: x.conj().imag.add_(1),
        lambda T, x: x.conj()[0].copy_(x[1].detach()),
        lambda T, x: x.real.__setitem__(T.tensor([0, 1]), T.ones(3, dtype=T.float64, requires_grad=True) * 2),
        lambda T, x: T.view_as_complex(T.view_as_real(x))[1].mul_(2),
        lambda T, x: x.conj_physical_(),
    ],
)
def test_gradients_through_writes_into_views(write):
    def obs(T):
        xl = _leaf(T)
        x = xl * 1
        views = (x.real, x.conj(), T.view_as_real(x))
        write(T, x)
        names = [v.grad_fn.name() if T is torchshim else type(v.grad_fn).__name__ for v in (x,) + views]
        w = T.tensor(np.linspace(-1, 1, 6).reshape(2, 3) * (1 + 0.5j), dtype=T.complex128)
        loss = (x * w).sum() + (views[0] * w.real).sum() + (views[1] * w).sum() + T.view_as_real(x).sum()
        (g,) = T.autograd.grad(loss.real, xl, create_graph=True)
        # second order: torch's first-order gradient of linear ops doesn't require grad (a zero second
        # derivative), torchshim's may; both read as zeros
        h = T.autograd.grad((g * w).sum().real, xl, allow_unused=True)[0] if g.requires_grad else None
        h = np.zeros((2, 3)) if h is None else np.asarray(h.detach().tolist())
        return names, np.round(np.asarray(g.detach().tolist()), 10).tolist(), np.round(h, 10).tolist()

    same(obs)


@pytest.mark.parametrize(
    "write",
    [
        lambda T, x: x.real.add_(1),
        lambda T, x: x.conj().mul_(2),
        lambda T, x: T.view_as_real(x).zero_(),
        lambda T, x: x.imag.__setitem__(0, 1.0),
        lambda T, x: setattr(x, "real", T.zeros(2, 3, dtype=T.float64)),
    ],
)
def test_writing_a_view_of_a_leaf_raises(write):
    same(lambda T: write(T, _leaf(T)))


def test_views_of_modified_base_regenerate_history():
    """After the base is written in place, the views' grad_fn is regenerated with PyTorch's names (conj and
    view_as_real/complex keep their node, other views become AsStridedBackward0)."""

    def obs(T):
        xl, rl = _leaf(T), T.arange(12.0, dtype=T.float64).reshape(2, 3, 2).requires_grad_()
        x, r = xl * 1, rl * 1
        views = (
            x.real,
            x.imag,
            x.conj(),
            x.conj()[0],
            T.view_as_real(x),
            T.view_as_real(x[0]),
            T.view_as_complex(r),
            T.view_as_complex(r)[1],
            x.t().conj(),
            x.conj().t(),
        )
        x.mul_(2)
        r.mul_(2)
        names = [v.grad_fn.name() if T is torchshim else type(v.grad_fn).__name__ for v in views]
        loss = sum((v.real if v.is_complex() else v).sum() * (k + 1) for k, v in enumerate(views))
        gx, gr = T.autograd.grad(loss, (xl, rl))
        return names, vals(gx), vals(gr)

    same(obs)


def test_version_check_through_component_views():
    """A tensor saved for backward and modified through a component view raises PyTorch's error."""

    def obs(T):
        xl = _leaf(T)
        x = xl * 1
        r = x.real
        y = r * r  # saves r
        x.imag.add_(1)  # bumps the shared version counter
        return outcome(lambda: T.autograd.grad(y.sum(), xl))

    same(obs)


# ---- under jax tracing -------------------------------------------------------------------------------------
def test_views_and_writes_under_jax_jit():
    def fn(T, x):
        x.real[0] = 5
        x.imag.mul_(2)
        T.view_as_real(x)[1, 1, 0] = -1
        x.conj()[1, 2] = 3 + 4j
        c = x.conj()
        return (
            x + c.imag + T.view_as_complex(T.view_as_real(x) * 2) + T.angle(x) + T.polar(x.real.abs(), x.imag)
        )

    ref = fn(torch, cx(torch))
    a = cx(torchshim)

    def traced(arr):
        x = torchshim.Tensor._make(
            Storage(arr, torchshim.device("cpu")), (2, 3), (3, 1), 0, torchshim.complex64
        )
        return fn(torchshim, x)._value

    got = jax.jit(traced)(a._value)
    np.testing.assert_allclose(np.asarray(got), ref.numpy(), rtol=1e-6)
