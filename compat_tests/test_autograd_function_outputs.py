"""Custom `torch.autograd.Function` outputs against real PyTorch 2.13: one gradient per forward output (None
for a non-tensor one, `output_nr` = the output's position), materialized gradients (zeros of the output's
dtype, `set_materialize_grads(False)`), `mark_non_differentiable`, `mark_dirty` (version bump, unreturned
dirty inputs), `once_differentiable`, `needs_input_grad`, `saved_tensors` in forward and after backward,
inputs returned as is, and outputs that are views of an input (their history is the Function's node; writing
through them, or using them after their base changed in place, raises PyTorch's CreationMeta error). Each
case runs under both libraries and returns plain values or the exception, compared exactly."""

import importlib

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


def nontensor_out(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 3

        @staticmethod
        def backward(ctx, *gs):
            seen.append([None if g is None else g.tolist() for g in gs])
            return gs[0] * 2

    x = T.ones(2, requires_grad=True)
    a, b = F.apply(x)
    a.sum().backward()
    return seen, x.grad.tolist(), b


def nontensor_first(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return "s", x * 2, None, x * 3

        @staticmethod
        def backward(ctx, *gs):
            seen.append([None if g is None else g.tolist() for g in gs])
            return gs[1] + gs[3]

    x = T.ones(2, requires_grad=True)
    s, a, n, c = F.apply(x)
    (a.sum() + c.sum()).backward()
    return seen, x.grad.tolist(), s, n, a.grad_fn is c.grad_fn, a.grad_fn.next_functions[0][0] is not None


def nontensor_no_materialize(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, 3, x * 3

        @staticmethod
        def backward(ctx, *gs):
            seen.append([None if g is None else g.tolist() for g in gs])
            return gs[0] * 2

    x = T.ones(2, requires_grad=True)
    a, b, c = F.apply(x)
    a.sum().backward()
    return seen, x.grad.tolist()


def materialize_default(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append([None if g is None else g.tolist() for g in (g1, g2)])
            return g1 + g2

    x = T.ones(2, requires_grad=True)
    a, b = F.apply(x)
    a.sum().backward()
    return seen, x.grad.tolist()


def non_differentiable(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            y = x * 2
            v = x.clone()
            ctx.mark_non_differentiable(i, v)
            return y, i, v

        @staticmethod
        def backward(ctx, gy, gi, gv):
            seen.append([None if g is None else (g.tolist(), str(g.dtype)) for g in (gy, gi, gv)])
            return gy

    x = T.tensor([1.0, 3.0, 2.0], requires_grad=True)
    y, i, v = F.apply(x)
    r = [y.requires_grad, i.requires_grad, v.requires_grad, v.grad_fn is None, v.is_leaf]
    y.sum().backward()
    return r, seen, x.grad.tolist()


def non_differentiable_only(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            v = x.clone()
            ctx.mark_non_differentiable(v)
            return v

        @staticmethod
        def backward(ctx, g):
            return g

    x = T.tensor([1.0, 3.0], requires_grad=True)
    v = F.apply(x)
    r = [v.requires_grad, v.grad_fn is None]
    try:
        v.sum().backward()
    except RuntimeError as e:
        r.append(str(e))
    return r


def once_diff(T):
    od = importlib.import_module(T.__name__ + ".autograd.function").once_differentiable

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @od
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = T.tensor([1.0, 3.0], requires_grad=True)
    y = F.apply(x)
    (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
    r = [g.tolist(), g.requires_grad, type(g.grad_fn).__name__]
    try:
        g.sum().backward()
    except RuntimeError as e:
        r.append(str(e))
    y2 = F.apply(x)
    (g2,) = T.autograd.grad(y2.sum(), x)
    r.append((g2.requires_grad, g2.grad_fn))
    return r


def needs_input_grad(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b, c):
            seen.append(ctx.needs_input_grad)
            return a * k + b + c

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g, None, None, g

    a = T.ones(2, requires_grad=True)
    b = T.ones(2)
    c = T.ones(2, requires_grad=True)
    F.apply(a, 2, b, c).sum().backward()
    with T.no_grad():
        F.apply(a, 2, b, c)
    return seen


def saved_after_backward(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.ones(2, requires_grad=True)
    y = F.apply(x)
    y.sum().backward()
    return y.grad_fn.saved_tensors


def saved_after_backward_retain(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.ones(2, requires_grad=True)
    y = F.apply(x)
    y.sum().backward(retain_graph=True)
    return [t.tolist() for t in y.grad_fn.saved_tensors], y.grad_fn.saved_tensors[0] is x


def saved_output_after_backward(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    x = T.ones(2, requires_grad=True)
    y = F.apply(x)
    y.sum().backward()
    return x.grad.tolist(), y.grad_fn.saved_tensors


def saved_in_forward(T):
    out = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            try:
                out.append(len(ctx.saved_tensors))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    F.apply(T.ones(2, requires_grad=True))
    return out


def input_returned(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x, y * 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 3, gb * 2

    x = T.ones(2, requires_grad=True)
    y = T.ones(2, requires_grad=True)
    a, b = F.apply(x, y)
    r = [
        a is x,
        a.requires_grad,
        type(a.grad_fn).__name__,
        a._base is x,
        a._is_view(),
        a.data_ptr() == x.data_ptr(),
        a._version,
    ]
    (a.sum() + b.sum()).backward()
    r += [x.grad.tolist(), y.grad.tolist()]
    return r


def input_returned_nograd_input(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x, y * 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, gb

    x = T.ones(2)
    y = T.ones(2, requires_grad=True)
    a, b = F.apply(x, y)
    return [a is x, a.requires_grad, a.grad_fn is None]


def input_returned_no_recording(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = T.ones(2)
    return [F.apply(x) is x]


def view_of_input(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[0:2]

        @staticmethod
        def backward(ctx, g):
            return T.cat([g * 5, T.zeros(1)])

    x = T.ones(3, requires_grad=True)
    v = F.apply(x)
    r = [type(v.grad_fn).__name__, v._base is x, v._is_view(), v.requires_grad, v.is_leaf]
    v.sum().backward()
    r.append(x.grad.tolist())
    y = T.ones(3, requires_grad=True) * 1
    w = F.apply(y)
    try:
        w.mul_(2)
        r.append(type(w.grad_fn).__name__)
    except Exception as e:
        r.append((type(e).__name__, str(e)))
    return r


def view_of_input_inplace_base(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(2, 2)

        @staticmethod
        def backward(ctx, g):
            return g.reshape(4) * 5

    y = T.ones(4, requires_grad=True) * 1
    w = F.apply(y)
    y.add_(1)
    r = []
    try:
        r.append(type(w.grad_fn).__name__)
    except Exception as e:
        r.append((type(e).__name__, str(e)))
    return r


def mark_dirty_case(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.ones(2, requires_grad=True)
    y = x * 1
    z = F.apply(y)
    r = [z is y, type(z.grad_fn).__name__, y._version]
    z.sum().backward()
    return r + [x.grad.tolist()]


def wrong_grad_count(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g1

    x = T.ones(2, requires_grad=True)
    F.apply(x)[0].sum().backward()


def _identity(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    return F


def input_returned_under_no_grad(T):
    F = _identity(T)
    x = T.ones(2, requires_grad=True)
    with T.no_grad():
        a = F.apply(x)
        r = [a is x, a._base is None, a.requires_grad, a.data_ptr() == x.data_ptr()]
        a.add_(1)
    return r + [a._version, x._version, x.tolist()]


def input_returned_base_modified(T):
    x = T.ones(2, requires_grad=True)
    a = _identity(T).apply(x)
    with T.no_grad():
        x.add_(1)
    return type(a.grad_fn).__name__


def dirty_not_returned(T):
    class D(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.mul_(2)
            ctx.mark_dirty(x)
            return y * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    D.apply(T.ones(2, requires_grad=True) * 1, T.ones(2))


def dirty_not_recording(T):
    class D(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    y = T.ones(2)
    z = D.apply(y)
    return z is y, y._version, y.tolist()


def _two_outputs(T):
    class G(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x[1:]

        @staticmethod
        def backward(ctx, g, h):
            return g * 2 + T.cat([T.zeros(1), h])

    return G


def multi_output_view_written(T):
    p, v = _two_outputs(T).apply(T.ones(3, requires_grad=True) * 1)
    v.mul_(2)


def multi_output_view_used_after_base_write(T):
    y = T.ones(3, requires_grad=True) * 1
    p, v = _two_outputs(T).apply(y)
    y.add_(1)
    v.sum()


def multi_output_view_no_grad_write(T):
    x = T.ones(3, requires_grad=True)
    y = x * 1
    p, v = _two_outputs(T).apply(y)
    with T.no_grad():
        v.mul_(3)
    (p.sum() + v.sum()).backward()
    return y.tolist(), x.grad.tolist()


def _slice_view(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[1:], 3

        @staticmethod
        def backward(ctx, g, h):
            return T.cat([T.zeros(1), g * 4])

    return F


def view_with_nontensor_written(T):
    v, k = _slice_view(T).apply(T.ones(3, requires_grad=True) * 1)
    v.mul_(2)


def view_of_custom_view_written(T):
    v, _ = _slice_view(T).apply(T.ones(3, requires_grad=True) * 1)
    v[1:].mul_(2)


def view_of_custom_view_used_after_base_write(T):
    y = T.ones(3, requires_grad=True) * 1
    v, _ = _slice_view(T).apply(y)
    w = v[1:]
    y.add_(1)
    w.sum()


def view_of_custom_view_gradient(T):
    x = T.ones(3, requires_grad=True)
    v, _ = _slice_view(T).apply(x * 1)
    (v[1:] * 3).sum().backward()
    return type(v.grad_fn).__name__, x.grad.tolist()


CASES = [
    f
    for name, f in sorted(globals().items())
    if callable(f)
    and not name.startswith("_")
    and name not in ("outcome", "same")
    and getattr(f, "__module__", None) == __name__
    and not name.startswith("test")
]


@pytest.mark.parametrize("case", CASES, ids=[f.__name__ for f in CASES])
def test_function_outputs(case):
    same(case)
