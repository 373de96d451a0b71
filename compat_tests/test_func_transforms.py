"""torch.func.vjp, jvp, jacrev, jacfwd, hessian, linearize and functionalize against real PyTorch: values,
output structures, argnums / has_aux forms, autograd history of the results, and PyTorch's errors."""
import pytest
import torch

import torchshim
from harness import Arg, check

X = Arg((3,))
M = Arg((2, 3))
A = Arg((2, 3))

FUNCS = {
    "sin": lambda T: T.sin,
    "poly": lambda T: lambda x: x ** 3 - 2 * x,
    "softmax": lambda T: lambda x: T.nn.functional.softmax(x, 0),
    "norm_scaled": lambda T: lambda x: x / x.norm(),
    "cumprod": lambda T: lambda x: x.cumprod(0),
    "outer_sum": lambda T: lambda x: T.outer(x, x).sum(1),
    "sort_vals": lambda T: lambda x: x.sort().values * x,
    "logsumexp": lambda T: lambda x: x.logsumexp(0),
}
SCALAR = {
    "sumcube": lambda T: lambda x: (x ** 3).sum(),
    "logsumexp": lambda T: lambda x: x.logsumexp(0),
    "norm": lambda T: lambda x: x.norm() * x.sin().sum(),
    "softplus": lambda T: lambda x: T.nn.functional.softplus(x).prod(),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_vjp_jvp_jacobians(name):
    f = FUNCS[name]
    check(lambda T, x, v: T.func.vjp(f(T), x)[1](v), [X, X], atol=1e-5, rtol=1e-5)
    check(lambda T, x, v: T.func.jvp(f(T), (x,), (v,)), [X, X], atol=1e-5, rtol=1e-5)
    check(lambda T, x: T.func.jacrev(f(T))(x), [X], atol=1e-5, rtol=1e-5)
    check(lambda T, x: T.func.jacfwd(f(T))(x), [X], atol=1e-5, rtol=1e-5)
    check(lambda T, x, v: T.func.linearize(f(T), x)[1](v), [X, X], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_hessian(name):
    check(lambda T, x: T.func.hessian(SCALAR[name](T))(x), [X], atol=1e-4, rtol=1e-4)


@pytest.mark.slow
def test_matrix_functions():
    lin = lambda T, w: (lambda x: T.nn.functional.linear(x, w).tanh())  # noqa: E731
    check(lambda T, x, w: T.func.jacrev(lin(T, w))(x), [Arg((4, 3)), M], atol=1e-5, rtol=1e-5)
    check(lambda T, x, w: T.func.jacfwd(lin(T, w))(x), [Arg((4, 3)), M], atol=1e-5, rtol=1e-5)
    check(lambda T, x, w: T.func.jacrev(lambda a, b: a @ b, argnums=(0, 1))(x, w.t()), [Arg((4, 3)), M],
          atol=1e-5, rtol=1e-5)
    check(lambda T, x, w: T.func.jacfwd(lambda a, b: a @ b, argnums=1)(x, w.t()), [Arg((4, 3)), M],
          atol=1e-5, rtol=1e-5)
    check(lambda T, x, w: T.func.hessian(lambda a, b: (a @ b).sin().sum(), argnums=(0, 1))(x, w.t()),
          [Arg((2, 3)), M], atol=1e-4, rtol=1e-4)


def test_pytree_structures():
    def f(T):
        return lambda d, s: {"o": d["a"] * d["b"] + s, "p": (d["a"].sum(), s.exp())}
    args = [Arg((3,)), Arg((3,)), Arg((3,))]
    check(lambda T, a, b, s: T.func.jacrev(f(T), argnums=(0, 1))({"a": a, "b": b}, s), args, atol=1e-5,
          rtol=1e-5)
    check(lambda T, a, b, s: T.func.jacfwd(f(T))({"a": a, "b": b}, s), args, atol=1e-5, rtol=1e-5)
    check(lambda T, a, b, s: T.func.jvp(f(T), ({"a": a, "b": b}, s), ({"a": s, "b": a}, b)), args,
          atol=1e-5, rtol=1e-5)

    def vjp_case(T, a, b, s):
        out, fn = T.func.vjp(f(T), {"a": a, "b": b}, s)
        return out, fn({"o": s, "p": (s.sum(), a)})
    check(vjp_case, args, atol=1e-5, rtol=1e-5)


def test_has_aux():
    def g(T):
        return lambda x: ((x ** 2).sum(), {"aux": x.cos()})
    check(lambda T, x, v: T.func.vjp(lambda a: g(T)(a), x, has_aux=True)[2], [X, X])
    check(lambda T, x, v: T.func.jvp(g(T), (x,), (v,), has_aux=True), [X, X], atol=1e-5, rtol=1e-5)
    check(lambda T, x: T.func.jacrev(g(T), has_aux=True)(x), [X], atol=1e-5, rtol=1e-5)
    check(lambda T, x: T.func.jacfwd(g(T), has_aux=True)(x), [X], atol=1e-5, rtol=1e-5)


def test_chunked_jacrev():
    check(lambda T, x: T.func.jacrev(lambda a: a.exp().cumsum(0), chunk_size=2)(x), [Arg((5,))], atol=1e-5,
          rtol=1e-5)


def test_results_keep_history():
    def f(T, x, v):
        x = x.requires_grad_()
        out, tan = T.func.jvp(lambda a: a.sin() * a, (x,), (v,))
        o2, fn = T.func.vjp(lambda a: a.exp(), x)
        g = fn(v)[0]
        J = T.func.jacrev(lambda a: a.tanh())(x)
        Jf = T.func.jacfwd(lambda a: a.tanh())(x)
        total = tan.sum() + g.sum() + J.sum() + Jf.pow(2).sum() + out.sum() + o2.sum()
        (gx,) = T.autograd.grad(total, x)
        return gx, [t.requires_grad for t in (out, tan, o2, g, J, Jf)]
    check(f, [X, X], atol=1e-5, rtol=1e-5)


def test_jvp_of_module_with_captured_parameters():
    def f(T, x, v):
        lin = T.nn.Linear(3, 2)
        with T.no_grad():
            lin.weight.copy_(T.arange(6.0).reshape(2, 3) / 4)
            lin.bias.fill_(-0.3)
        out, tan = T.func.jvp(lambda a: lin(a).sigmoid(), (x,), (v,))
        tan.sum().backward()
        return out.detach(), tan.detach(), lin.weight.grad, lin.bias.grad
    check(f, [X, X], atol=1e-5, rtol=1e-5)


def test_hessian_of_loss_with_model_parameters():
    def f(T, x, y):
        lin = T.nn.Linear(3, 1)
        with T.no_grad():
            lin.weight.copy_(T.tensor([[0.5, -0.25, 1.0]]))
            lin.bias.fill_(0.1)
        return T.func.hessian(lambda a: T.nn.functional.mse_loss(lin(a).tanh(), y))(x)
    check(f, [Arg((4, 3)), Arg((4, 1))], atol=1e-4, rtol=1e-4)


def test_functionalize():
    def f(T, x):
        def g(a):
            b = a.clone()
            b.add_(1)
            v = b.view(-1)
            v.mul_(2)
            a.add_(b)  # a mutation of the input, copied back by functionalize
            return b
        y = x.clone()
        out = T.func.functionalize(g)(y)
        out2 = T.func.functionalize(g, remove="mutations_and_views")(y)
        return out, out2, y
    check(f, [A])


ERRORS = {
    "jvp_primals_not_tuple": lambda T, x: T.func.jvp(T.sin, x, x),
    "jvp_structure": lambda T, x: T.func.jvp(T.sin, (x,), (x, x)),
    "jvp_list_tangents": lambda T, x: T.func.jvp(T.sin, (x,), [x]),
    "jvp_shape": lambda T, x: T.func.jvp(T.sin, (x,), (x[:2],)),
    "jvp_returns_float": lambda T, x: T.func.jvp(lambda a: 3.0, (x,), (x,)),
    "jvp_returns_int": lambda T, x: T.func.jvp(lambda a: (a, 3), (x,), (x,)),
    "jvp_int_primal": lambda T, x: T.func.jvp(T.sin, (x.long(),), (x,)),
    "jvp_aux_not_tuple": lambda T, x: T.func.jvp(T.sin, (x,), (x,), has_aux=True),
    "vjp_shape": lambda T, x: T.func.vjp(T.sin, x)[1](x[:2]),
    "vjp_structure": lambda T, x: T.func.vjp(T.sin, x)[1]((x,)),
    "vjp_dict_structure": lambda T, x: T.func.vjp(lambda a: (a, {"z": a.sum()}), x)[1]((x, {"y": x.sum()})),
    "vjp_returns_float": lambda T, x: T.func.vjp(lambda a: 3.0, x),
    "vjp_non_tensor": lambda T, x: T.func.vjp(T.sin, 3.0),
    "vjp_aux_not_tuple": lambda T, x: T.func.vjp(T.sin, x, has_aux=True),
    "jacrev_argnum": lambda T, x: T.func.jacrev(T.sin, argnums=1)(x),
    "jacrev_returns_float": lambda T, x: T.func.jacrev(lambda a: 3.0)(x),
    "jacfwd_argnum": lambda T, x: T.func.jacfwd(T.sin, argnums=-2)(x),
    "jacfwd_random": lambda T, x: T.func.jacfwd(lambda a: T.rand(3) * a)(x),
    "functionalize_remove": lambda T, x: T.func.functionalize(T.sin, remove="foo"),
    "linearize_shape": lambda T, x: T.func.linearize(T.sin, x)[1](x[:2]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check(ERRORS[name], [X])


@pytest.mark.parametrize("T", [torch, torchshim], ids=["torch", "torchshim"])
def test_jacfwd_randomness_same(T):
    T.manual_seed(0)
    J = T.func.jacfwd(lambda a: T.rand(3) * a, randomness="same")(T.ones(3))
    assert J.shape == (3, 3)
    assert bool((J == T.diag(J.diagonal())).all())


def test_public_names():
    assert set(torch.func.__all__) >= set(torchshim.func.__all__)
    assert {"vmap", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize", "functionalize", "grad",
            "grad_and_value", "functional_call", "stack_module_state"} <= set(torchshim.func.__all__)




def test_grad_with_captured_parameters_keeps_history():
    def f(T, x):
        w = T.linspace(-1, 1, 3).requires_grad_()
        g = T.func.grad(lambda a: (a * w).sin().sum())(x)
        g.sum().backward()
        wg = w.grad
        w.grad = None
        ps = T.vmap(T.func.grad(lambda a: (a * w).sin().sum()))(x.expand(2, 3) * T.tensor([[1.0], [2.0]]))
        ps.sum().backward()
        with T.no_grad():
            nog = T.func.grad(lambda a: (a * w).sin().sum())(x)
        return g.detach(), wg, g.requires_grad, ps.requires_grad, w.grad, nog.requires_grad
    check(f, [X], atol=1e-5, rtol=1e-5)
