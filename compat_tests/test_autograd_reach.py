"""Autograd behaviour that PyTorch's own checks exercise (issue 10, item 5): saved-tensor hooks and their
context managers, graph helpers, PyTorch's errors for in-place writes through multi-output and no_grad views,
custom Function gradient counts, `nonzero(out=)`, `index_put_(accumulate=True)` with duplicates. Each case
runs under real PyTorch and torchshim and returns plain Python values or the exception, compared exactly."""
import numpy as np
import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def outcome(case, T):
    try:
        return ("ok", case(T))
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return ("raise", type(e).__name__, str(e))


def same(case):
    ref, got = (outcome(case, T) for T in LIBS)
    assert got == ref
    return ref


def vals(t):
    return np.round(np.asarray(t.detach().tolist(), dtype=float), 5).tolist()


def leaf(T, shape=(4, 3)):
    return T.arange(float(np.prod(shape))).reshape(shape).requires_grad_()


# ---- in-place writes through views ---------------------------------------------------------------
MULTI = [
    lambda T: (leaf(T) * 1).unbind(0)[0].mul_(2),
    lambda T: (leaf(T) * 1).split(2)[1].add_(1),
    lambda T: (leaf(T) * 1).split([1, 3])[0].zero_(),
    lambda T: (leaf(T) * 1).chunk(2)[0].copy_(T.ones(2, 3)),
    lambda T: leaf(T).unbind(0)[0].mul_(2),
    lambda T: (leaf(T) * 1).unbind(1)[2].fill_(1),
    lambda T: (leaf(T) * 1).unbind(0)[0].__setitem__(0, 1.0),
    lambda T: (leaf(T) * 1).unbind(0)[0].view(3).mul_(2),
    lambda T: T.randn(4, 3).unbind(0)[0].mul_(2) is not None,
]


@pytest.mark.parametrize("k", range(len(MULTI)))
def test_multi_output_view_inplace(k):
    same(MULTI[k])


def _nograd_then(T, write, make=lambda c: c[0]):
    c = leaf(T) * 1
    with T.no_grad():
        v = make(c)
    return write(v)


NO_GRAD = [
    lambda T: _nograd_then(T, lambda v: v.mul_(2)),
    lambda T: _nograd_then(T, lambda v: v.copy_(T.ones(3))),
    lambda T: _nograd_then(T, lambda v: v[1:].mul_(2)),
    lambda T: _nograd_then(T, lambda v: v.mul_(2), make=lambda c: c.unbind(0)[0]),
    lambda T: _nograd_then(T, lambda v: v.unbind(0)[0].mul_(2)),
    lambda T: _nograd_then(T, lambda v: vals(v * 2)),
]


@pytest.mark.parametrize("k", range(len(NO_GRAD)))
def test_no_grad_view_inplace(k):
    same(NO_GRAD[k])


def test_no_grad_leaf_view_inplace():
    def case(T):
        a = leaf(T)
        with T.no_grad():
            v = a[0]
        v.mul_(2)
    same(case)


def test_multi_output_view_used_after_base_modified():
    def case(T):
        c = leaf(T) * 1
        u = c.unbind(0)
        with T.no_grad():
            u[0].mul_(2)
        return (u[1] * 2).sum()
    same(case)


def test_multi_output_view_grad_fn_after_base_modified():
    def case(T):
        c = leaf(T) * 1
        u = c.unbind(0)
        c.mul_(2)
        return u[0].grad_fn
    same(case)


# ---- other errors --------------------------------------------------------------------------------
def test_function_wrong_gradient_count():
    def case(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g
        a = leaf(T)
        F.apply(a, a).sum().backward()
    same(case)


@pytest.mark.parametrize("dims", [[0, 0], [0, -2], [2]])
def test_flip_repeated_dims(dims):
    same(lambda T: T.flip(T.ones(2, 3), dims))


@pytest.mark.parametrize("how", ["function_tuple", "method_tuple", "method_out", "function_plain"])
def test_nonzero_out(how):
    def case(T):
        x, out = T.tensor([[0.0, 1.0], [2.0, 0.0]]), T.empty(0, dtype=T.long)
        if how == "function_tuple":
            return T.nonzero(x, as_tuple=True, out=out)
        if how == "method_tuple":
            return x.nonzero(as_tuple=True, out=out)
        if how == "method_out":
            return x.nonzero(out=out)
        T.nonzero(x, out=out)
        return out.tolist()
    same(case)


def test_backward_twice_through_freed_values():
    def case(T):
        y = leaf(T).exp().sum()
        y.backward()
        y.backward()
    same(case)


def test_post_accumulate_grad_hook():
    def case(T):
        a = leaf(T, (3,))
        seen = []
        a.register_post_accumulate_grad_hook(lambda t: seen.append(vals(t.grad)))
        (a * a).sum().backward()
        try:
            (a * 1).register_post_accumulate_grad_hook(lambda t: None)
        except RuntimeError as e:
            seen.append(str(e))
        return seen
    same(case)


# ---- saved tensors hooks -------------------------------------------------------------------------
def test_saved_tensors_hooks_pack_unpack_order():
    def case(T):
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return t

        def unpack(t):
            log.append(("unpack", tuple(t.shape)))
            return t
        x, y = leaf(T, (3,)), leaf(T, (3,)) + 0
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            parts = []
            for name, f in [("mul", lambda: x * y), ("exp", x.exp), ("add", lambda: x + y), ("sin", x.sin),
                            ("relu", lambda: T.relu(x)), ("sum", x.sum), ("dot", lambda: x @ y),
                            ("pow", lambda: x.pow(2))]:
                parts.append(f())
                log.append(name)
        sum(p.sum() for p in parts).backward()
        return log, vals(x.grad)
    same(case)


def test_saved_tensors_hooks_transform():
    def case(T):
        with T.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
            a = leaf(T, (3,))
            b = (a * a).sum()
        b.backward()
        return vals(a.grad)
    same(case)


def test_unpack_hook_must_return_tensor():
    def case(T):
        with T.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda p: 5):
            b = leaf(T, (3,)).exp()
        b.sum().backward()
    same(case)


@pytest.mark.parametrize("inner_first", [True, False])
def test_disable_saved_tensors_hooks(inner_first):
    def case(T):
        G = T.autograd.graph
        if inner_first:
            with G.disable_saved_tensors_hooks("no hooks here"):
                with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            with G.disable_saved_tensors_hooks("no hooks here"):
                pass
    same(case)


def test_save_on_cpu():
    def case(T):
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            a = leaf(T, (3,)) / 3
            a.retain_grad()
            (a.exp() * a).sum().backward()
        return vals(a.grad)
    same(case)


@pytest.mark.parametrize("inside", [True, False])
def test_allow_mutation_on_saved_tensors(inside):
    def case(T):
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            a = leaf(T, (3,))
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            if inside:
                out.backward()
                return vals(a.grad), vals(b)
        out.backward()
    same(case)


def test_increment_version_and_gradient_edge():
    def case(T):
        G = T.autograd.graph
        a = leaf(T, (3,))
        b = a * 2
        v0 = b._version
        G.increment_version(b)
        e = G.get_gradient_edge(b)
        g, = T.autograd.grad(b.sum(), e)
        return (b._version - v0, type(e).__name__, e.node is b.grad_fn, e.output_nr, vals(g),
                isinstance(b.grad_fn, G.Node))
    same(case)


# ---- index_put with accumulate -------------------------------------------------------------------
def test_index_put_accumulate_duplicates_values_and_grads():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 7, 300)
    src = rng.standard_normal((300, 2))

    def case(T):
        x = T.zeros(7, 2, dtype=T.float64, requires_grad=True)
        v = T.tensor(src, requires_grad=True)
        y = T.index_put(x * 1, (T.tensor(idx),), v, accumulate=True)
        (y * T.arange(14.0, dtype=T.float64).reshape(7, 2)).sum().backward()
        z = T.zeros(7, 2, dtype=T.float64)
        z.index_put_((T.tensor(idx),), T.tensor(src), accumulate=True)
        return vals(y), vals(x.grad), vals(v.grad), vals(z)
    same(case)


# ---- view(dtype) sharing storage -----------------------------------------------------------------
def test_view_dtype_shares_storage():
    def case(T):
        x = T.zeros(4, dtype=T.float32)
        v = x.view(T.int32)
        v[0] = 1065353216  # the bits of 1.0f
        x[1] = 2.0
        return x.tolist(), v.tolist()
    same(case)


def test_view_dtype_values_and_errors():
    def case(T):
        x = T.arange(6, dtype=T.float32).reshape(2, 3)
        out = [x.view(T.int32).tolist(), x.view(T.int16).shape, x.view(T.float64 if False else T.uint8).shape]
        for bad in (lambda: x.view(T.float64), lambda: x.t().view(T.int16)):
            try:
                bad()
            except RuntimeError as e:
                out.append(str(e))
        return out
    same(case)
