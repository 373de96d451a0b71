"""torch.func.vmap / torch.vmap against real PyTorch: values and shapes over many functions, per-example
shapes inside, in_dims / out_dims forms, nested vmap, chunk_size, randomness modes, composition with grad /
jacrev / jacfwd / functional_call (per-sample gradients, model ensembling), autograd through vmap, and
PyTorch's errors."""
import pytest
import torch

import torchshim
from harness import Arg, Idx, check

X = Arg((4, 3))
Y = Arg((4, 3))
W = Arg((3, 5))
V = Arg((3,))

FUNCS = {
    "sin": (lambda T, x: T.vmap(T.sin)(x), [X]),
    "add_bcast": (lambda T, x, v: T.vmap(lambda a, b: a + b, in_dims=(0, None))(x, v), [X, V]),
    "mul_dims": (lambda T, x, y: T.vmap(T.mul, in_dims=(0, 1))(x, y.t()), [X, Y]),
    "dot": (lambda T, x, y: T.vmap(T.dot)(x, y), [X, Y]),
    "matmul": (lambda T, x, w: T.vmap(lambda a: a @ w)(x), [X, W]),
    "mv_in_dim1": (lambda T, x, w: T.vmap(T.mv, in_dims=(None, 1))(w.t(), x.t()), [X, W]),
    "sum": (lambda T, x: T.vmap(lambda a: a.sum())(x), [X]),
    "sum_dim_neg": (lambda T, x: T.vmap(lambda a: a.sum(-1, keepdim=True), in_dims=-1)(x), [X]),
    "mean_max": (lambda T, x: T.vmap(lambda a: (a.mean(), a.max(0).values))(x), [X]),
    "softmax": (lambda T, x: T.vmap(lambda a: T.nn.functional.softmax(a, 0))(x), [X]),
    "linear": (lambda T, x, w: T.vmap(lambda a: T.nn.functional.linear(a, w.t()))(x), [X, W]),
    "outer": (lambda T, x, y: T.vmap(T.outer)(x, y), [X, Y]),
    "index": (lambda T, x: T.vmap(lambda a: a[1:] * a[0])(x), [X]),
    "setitem_clone": (lambda T, x: T.vmap(lambda a: _setitem(a.clone()))(x), [X]),
    "inplace_arg": (lambda T, x: T.vmap(lambda a: a.mul_(2).add_(1))(x.clone()), [X]),
    "view_ops": (lambda T, x: T.vmap(lambda a: a.view(3, 1).expand(3, 2).t().reshape(-1))(x), [X]),
    "cat_stack": (lambda T, x, v: T.vmap(lambda a: T.cat([a, v, T.stack([a, a]).sum(0)]))(x), [X, V]),
    "where": (lambda T, x: T.vmap(lambda a: T.where(a > 0, a, -a))(x), [X]),
    "gather": (lambda T, x, i: T.vmap(lambda a, j: a.gather(0, j))(x, i), [X, Idx((4, 2), 3)]),
    "unbatched_out": (lambda T, x, v: T.vmap(lambda a: v * 2)(x), [X, V]),
    "conv1d": (lambda T, x, w: T.vmap(lambda a: T.nn.functional.conv1d(a[None, None],
                                                                       w[None, None, :2, 0]))(x),
               [X, W]),
    "cumsum_sort": (lambda T, x: T.vmap(lambda a: a.cumsum(0).sort().values)(x), [X]),
    "float64": (lambda T, x: T.vmap(lambda a: a.double().exp())(x), [X]),
    "int_input": (lambda T, i: T.vmap(lambda a: a * 2 + 1)(i), [Idx((4, 3), 5)]),
    "bool_out": (lambda T, x: T.vmap(lambda a: a > 0)(x), [X]),
    "kwargs_unmapped": (lambda T, x, v: T.vmap(lambda a, b=None: a * b)(x, b=v), [X, V]),
    "chunk": (lambda T, x: T.vmap(lambda a: a.softmax(0), chunk_size=3)(x), [X]),
    "chunk_big": (lambda T, x: T.vmap(lambda a: a.exp(), chunk_size=10)(x), [X]),
    "empty_batch": (lambda T: T.vmap(T.sin)(T.zeros(0, 3)), []),
}


def _setitem(a):
    a[0] = 7.0
    a[1:] += 1
    return a


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_values(name):
    fn, specs = FUNCS[name]
    check(fn, specs, atol=1e-5, rtol=1e-5)


def test_shapes_seen_inside():
    def f(T, x):
        seen = []

        def g(a, b):
            seen.append((tuple(a.shape), a.dim(), a.size(), a.size(-1), b.ndim, a.numel()))
            return a
        T.vmap(g, in_dims=(1, None))(x, x)
        T.vmap(T.vmap(g, in_dims=(0, None)), in_dims=(0, None))(x, x)
        return seen
    check(f, [Arg((4, 3, 2))])


IN_DIMS = {
    "dict": (lambda T, x, y: T.vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": 1},))(
        {"a": x, "b": y.t()}),
             [X, Y]),
    "dict_broadcast": (lambda T, x, y: T.vmap(lambda d, s: d["a"] * d["b"] + s, in_dims=(0, None))(
        {"a": x, "b": y}, 2.0), [X, Y]),
    "list_arg": (lambda T, x, y: T.vmap(lambda l: l[0] - l[1])([x, y]), [X, Y]),
    "nested_tuple": (lambda T, x, y, v: T.vmap(lambda p, q: p[0] * p[1] + q, in_dims=((0, 1), None))(
        (x, y.t()), v), [X, Y, V]),
    "none_arg": (lambda T, x: T.vmap(lambda a, b: a if b is None else b, in_dims=(0, None))(x, None), [X]),
    "negative": (lambda T, x: T.vmap(lambda a: a * 2, in_dims=-2)(x), [X]),
}


@pytest.mark.parametrize("name", sorted(IN_DIMS))
def test_in_dims_forms(name):
    fn, specs = IN_DIMS[name]
    check(fn, specs)


OUT_DIMS = {
    "one": lambda T, x: T.vmap(lambda a: a.exp(), out_dims=1)(x),
    "neg": lambda T, x: T.vmap(lambda a: a[:, None] * a, out_dims=-1)(x),
    "tuple": lambda T, x: T.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x),
    "dict": lambda T, x: T.vmap(lambda a: {"o": a, "p": (a * 2, a.sum())}, out_dims={"o": 1, "p": (0, 0)})(x),
    "none_unbatched": lambda T, x: T.vmap(lambda a: (a, x.sum()), out_dims=(0, None))(x),
    "none_python": lambda T, x: T.vmap(lambda a: (a, 3.0), out_dims=(0, None))(x),
}


@pytest.mark.parametrize("name", sorted(OUT_DIMS))
def test_out_dims_forms(name):
    check(OUT_DIMS[name], [X])


def test_nested():
    f = lambda T, x, y: T.vmap(T.vmap(lambda a, b: a * b + a.sum(), in_dims=(0, None)),  # noqa: E731
                               in_dims=(None, 0))(x[:, 0], y[:, 1])
    check(f, [X, Y])
    check(lambda T, x: T.vmap(T.vmap(T.vmap(lambda a: a.sin())))(x), [Arg((2, 3, 4))])
    check(lambda T, x, y: T.vmap(T.vmap(T.dot, in_dims=(0, None)), in_dims=(None, 0))(x, y), [X, Y])


ERRORS = {
    "in_dim_too_big": lambda T, x: T.vmap(T.sin, in_dims=2)(x),
    "in_dim_too_small": lambda T, x: T.vmap(T.sin, in_dims=-3)(x),
    "in_dims_structure": lambda T, x: T.vmap(T.sin, in_dims=(0, 0))(x),
    "in_dims_list": lambda T, x: T.vmap(T.sin, in_dims=[0])(x),
    "in_dims_none": lambda T, x: T.vmap(T.sin, in_dims=None)(x),
    "in_dims_str": lambda T, x: T.vmap(T.sin, in_dims="a")(x),
    "in_dims_float": lambda T, x: T.vmap(T.sin, in_dims=(0.5,))(x),
    "all_none": lambda T, x: T.vmap(T.sin, in_dims=(None,))(x),
    "sizes_differ": lambda T, x: T.vmap(T.add)(x, x.t()),
    "non_tensor": lambda T, x: T.vmap(T.sin)(3.0),
    "non_tensor_in_tuple": lambda T, x: T.vmap(lambda a, s: a * s, in_dims=(0, 0))(x, 2),
    "none_input_mapped": lambda T, x: T.vmap(lambda a, b: a)(x, None),
    "no_inputs": lambda T, x: T.vmap(T.sin)(),
    "dict_keys": lambda T, x: T.vmap(lambda d: d["a"], in_dims=({"a": 0},))({"a": x, "b": x}),
    "returns_float": lambda T, x: T.vmap(lambda a: 3.0)(x),
    "returns_none": lambda T, x: T.vmap(lambda a: (a, None))(x),
    "batched_out_none": lambda T, x: T.vmap(lambda a: a.sum(), out_dims=None)(x),
    "out_dims_structure": lambda T, x: T.vmap(T.sin, out_dims=(0, 1))(x),
    "out_dims_str": lambda T, x: T.vmap(T.sin, out_dims="x")(x),
    "out_dim_range": lambda T, x: T.vmap(T.sin, out_dims=2)(x),
    "item": lambda T, x: T.vmap(lambda a: a.sum().item())(x),
    "item_many": lambda T, x: T.vmap(lambda a: a.item())(x),
    "float": lambda T, x: T.vmap(lambda a: float(a.sum()))(x),
    "control_flow": lambda T, x: T.vmap(lambda a: a if a.sum() > 0 else -a)(x),
    "random_error": lambda T, x: T.vmap(lambda a: T.rand(2) + a[0])(x),
    "dropout_error": lambda T, x: T.vmap(lambda a: T.nn.functional.dropout(a, 0.5))(x),
    "randomness_name": lambda T, x: T.vmap(T.sin, randomness="foo")(x),
    "chunk_size_zero": lambda T, x: T.vmap(T.sin, chunk_size=0)(x),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check(ERRORS[name], [X])


@pytest.mark.xfail(strict=True, reason="an in-place write of a batched value into an unbatched tensor made "
                                       "inside the function is not detected (torchshim broadcasts it)")
def test_inplace_into_unbatched_error():
    check(lambda T, x: T.vmap(lambda a: T.zeros(3).add_(a))(x), [X])


def test_nonzero_raises_runtime_error():
    for T in (torch, torchshim):
        with pytest.raises(RuntimeError):
            T.vmap(lambda a: a.nonzero())(T.ones(2, 3))


@pytest.mark.parametrize("T", [torch, torchshim], ids=["torch", "torchshim"])
def test_randomness_modes(T):
    T.manual_seed(0)
    x = T.zeros(5, 3)
    same = T.vmap(lambda a: a + T.rand(3), randomness="same")(x)
    assert same.shape == (5, 3)
    assert all(bool((same[i] == same[0]).all()) for i in range(5))
    diff = T.vmap(lambda a: a + T.rand(3), randomness="different")(x)
    assert diff.shape == (5, 3)
    assert len({tuple(r.tolist()) for r in diff}) == 5
    drop = T.vmap(lambda a: T.nn.functional.dropout(a + 1, 0.5), randomness="same")(T.zeros(6, 40))
    assert all(bool((drop[i] == drop[0]).all()) for i in range(6))
    drop = T.vmap(lambda a: T.nn.functional.dropout(a + 1, 0.5), randomness="different")(T.zeros(6, 40))
    assert len({tuple(r.tolist()) for r in drop}) > 1
    nested = T.vmap(T.vmap(lambda a: a + T.rand(()), randomness="different"), randomness="different")(
        T.zeros(3, 4))
    assert len(set(nested.flatten().tolist())) == 12


# ---- composition with grad / jacrev / jacfwd / functional_call ---------------------------------------------
def _loss(T):
    def loss(params, x, y):
        pred = T.nn.functional.linear(x, params["w"], params["b"])
        return ((pred - y) ** 2).mean()
    return loss


def test_per_sample_gradients():
    def f(T, w, b, x, y):
        return T.func.vmap(T.func.grad(_loss(T)), in_dims=(None, 0, 0))({"w": w, "b": b}, x, y)
    check(f, [Arg((5, 3)), Arg((5,)), Arg((8, 3)), Arg((8, 5))], atol=1e-5, rtol=1e-5)


def test_per_sample_gradients_of_a_model():
    def f(T, x, y):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))
        with T.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(T.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            out = T.func.functional_call(model, p, (xi[None],))
            return T.nn.functional.cross_entropy(out, yi[None])
        return T.func.vmap(T.func.grad_and_value(loss), in_dims=(None, 0, 0))(params, x, y)
    check(f, [Arg((6, 3)), Idx((6,), 2)], atol=1e-5, rtol=1e-5)


def test_model_ensembling():
    def f(T, x):
        models = [T.nn.Linear(3, 2) for _ in range(4)]
        with T.no_grad():
            for i, m in enumerate(models):
                m.weight.copy_(T.arange(6.0).reshape(2, 3) * (i - 1.5))
                m.bias.fill_(i * 0.25)
        params, buffers = T.func.stack_module_state(models)

        def fmodel(p, b, xx):
            return T.func.functional_call(models[0], (p, b), (xx,))
        out = T.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
        out.pow(2).sum().backward()
        return out.detach(), params["weight"].grad, params["bias"].grad, out.grad_fn is not None
    check(f, [Arg((5, 3))], atol=1e-5, rtol=1e-5)


def test_batched_jacobians_and_hessians():
    f = lambda T, w: (lambda a: (w @ a).tanh())  # noqa: E731
    check(lambda T, x, w: T.vmap(T.func.jacrev(f(T, w)))(x), [X, Arg((2, 3))], atol=1e-5, rtol=1e-5)
    check(lambda T, x, w: T.vmap(T.func.jacfwd(f(T, w)))(x), [X, Arg((2, 3))], atol=1e-5, rtol=1e-5)
    check(lambda T, x: T.vmap(T.func.hessian(lambda a: a.sin().sum() * a.norm()))(x), [X], atol=1e-4,
          rtol=1e-4)


def test_autograd_through_vmap():
    def explicit(T, x, w):
        x = x.requires_grad_()
        out = T.vmap(lambda a: (a @ w).sin())(x)
        (out ** 2).sum().backward()
        return out.detach(), x.grad

    def captured(T, x, w):
        w = w.requires_grad_()
        out = T.vmap(lambda a: (w.t() @ a).tanh(), in_dims=1)(x.t())
        out.sum().backward()
        return out.detach(), w.grad, out.requires_grad

    def captured_module(T, x):
        lin = T.nn.Linear(3, 2)
        with T.no_grad():
            lin.weight.copy_(T.arange(6.0).reshape(2, 3) / 5)
            lin.bias.fill_(0.1)
        out = T.vmap(lin)(x)
        out.sum().backward()
        return out.detach(), lin.weight.grad, lin.bias.grad

    def inside_grad(T, x, w):
        return T.func.grad(lambda ww: T.vmap(lambda a: (a @ ww).exp())(x).sum())(w)

    check(explicit, [X, W], atol=1e-5, rtol=1e-5)
    check(captured, [X, W], atol=1e-5, rtol=1e-5)
    check(captured_module, [X], atol=1e-5, rtol=1e-5)
    check(inside_grad, [X, W], atol=1e-5, rtol=1e-5)


def test_aliases():
    assert torchshim.vmap is torchshim.func.vmap
    assert torchshim.vmap(torchshim.sin).__name__ == torch.vmap(torch.sin).__name__


def test_inplace_writes_reach_arguments():
    def f(T, x, v):
        xc, vc = x.clone(), v.clone()
        r = T.vmap(lambda a, b: a.mul_(2).add_(b), in_dims=(0, None))(xc, vc)
        xt = x.t().clone()
        T.vmap(lambda a: a.__setitem__(0, 5.0) or a, in_dims=1)(xt)
        T.vmap(lambda a, b: b.add_(1), in_dims=(0, None))(x, vc)
        return r, xc, xt, vc
    check(f, [X, V])
    check(lambda T, x, v: T.vmap(lambda a, b: b.add_(a), in_dims=(0, None))(x, v.clone()), [X, V])


def test_vmap_over_model_with_batch_norm():
    def f(T, x):
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.ReLU())
        with T.no_grad():
            model[0].weight.copy_(T.linspace(-1, 1, 12).reshape(4, 3))
            model[0].bias.fill_(0.2)
        T.func.replace_all_batch_norm_modules_(model)
        bn = model[1]
        out = T.vmap(model, in_dims=1)(x.reshape(2, 4, 3).transpose(0, 1))
        return out.detach(), bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.track_running_stats
    check(f, [Arg((8, 3))], atol=1e-5, rtol=1e-5)
