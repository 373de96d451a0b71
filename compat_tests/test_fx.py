"""torch.fx under torchshim vs real PyTorch: graph printouts, generated code, node names, forward results of
traced GraphModules, and the pytorch/examples fx demos (op replacement by graph editing, subgraph rewriting,
`wrap`, Interpreter/Transformer passes, shape propagation, conv-bn fusion by tracing, Proxy-built graphs)
run under both libraries with the same weights and inputs."""
import copy
import operator
import pickle

import numpy as np
import pytest
import torch

import torchshim
from harness import compare_values, to_numpy

LIBS = (torch, torchshim)


def _fill(model, lib, seed=0):
    """Deterministic parameters and floating buffers (the same values under both libraries)."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _, t in list(model.named_parameters()) + list(model.named_buffers()):
            if t.dtype.is_floating_point:
                arr = rng.uniform(0.5, 1.5, tuple(t.shape)).astype(np.float32)
                t.copy_(lib.tensor(arr))
    return model


def _input(lib, shape, seed=1):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _shim_close(a, b, tol=1e-5):
    """Two torchshim results (nested tuples of tensors) are close."""
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _shim_close(x, y, tol)
        return
    np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=tol, atol=tol)


def both(demo):
    """demo(lib) under torch and torchshim; returns (torch result, torchshim result)."""
    return demo(torch), demo(torchshim)


def _texts_equal(ref, got):
    for key in ref:
        assert ref[key] == got[key], f"{key} differs:\n--- torch:\n{ref[key]}\n--- torchshim:\n{got[key]}"


def _models(T):
    nn, F = T.nn, T.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(4, 8), nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4)
            self.pool, self.fc = nn.MaxPool2d(2), nn.Linear(4 * 3 * 3, 2)

        def forward(self, x):
            x = self.pool(F.relu(self.bn(self.conv(x))))
            return self.fc(T.flatten(x, 1))

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(T.ones(6))
            self.register_buffer("b", T.ones(3))

        def forward(self, x, y):
            z = T.cat([x, y], dim=1)
            n = z.size(0)
            z = T.relu(z).view(n, -1)
            z = z * 2 + 1
            a = x.shape[1]
            return z.sum(dim=1, keepdim=True) + self.w.sum() + self.b[0] - a, x.mean(), -z @ self.w

    class Block(nn.Module):  # not from torch.nn: traced through unless the tracer says it is a leaf
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return T.tanh(self.lin(x)) + x

    class WithBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU())

        def forward(self, x):
            return self.seq(self.block(x)).softmax(-1)

    class Ops(nn.Module):  # torch functions, Tensor methods of a constant on a Proxy, operators, indexing
        def forward(self, x):
            a = T.ones(3) + x
            b = T.ones(3).add(x)
            c = T.add(x, 1, alpha=2)
            return a, b, c, 2 - x, -x, x[0, 1:2], x.T, T.matmul(x, x) @ x, x.new_zeros(2)

    return {"ops": (Ops, [(3, 3)]), "mlp": (MLP, [(2, 4)]), "conv": (ConvNet, [(2, 1, 8, 8)]),
            "mixed": (Mixed, [(2, 3), (2, 3)]), "block": (WithBlock, [(3, 4)])}


@pytest.mark.parametrize("name", ["mlp", "conv", "mixed", "block", "ops"])
def test_symbolic_trace_text_and_values(name):
    def demo(T):
        cls, shapes = _models(T)[name]
        model = _fill(cls(), T).eval()
        gm = T.fx.symbolic_trace(model)
        inputs = [_input(T, s, i) for i, s in enumerate(shapes)]
        texts = {"code": gm.code, "graph": str(gm.graph), "module": str(gm),
                 "names": [n.name for n in gm.graph.nodes],
                 "users": [[u.name for u in n.users] for n in gm.graph.nodes],
                 "inputs": [[a.name for a in n.all_input_nodes] for n in gm.graph.nodes],
                 "state": list(gm.state_dict())}
        return texts, gm(*inputs), model(*inputs)
    (t_texts, t_out, t_ref), (s_texts, s_out, s_ref) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out, rtol=1e-5, atol=1e-5)
    _shim_close(s_ref, s_out)  # the traced module computes what the module does


def test_custom_leaf_module_tracer():
    def demo(T):
        cls, shapes = _models(T)["block"]

        class LeafTracer(T.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return type(m).__name__ == "Block" or super().is_leaf_module(m, qualname)
        model = _fill(cls(), T)
        graph = LeafTracer().trace(model)
        gm = T.fx.GraphModule(model, graph)
        x = _input(T, shapes[0])
        return {"code": gm.code, "graph": str(graph)}, gm(x)
    (t_texts, t_out), (s_texts, s_out) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out, rtol=1e-5, atol=1e-5)


def _wrapped_helper(a, b):
    return a + b * 2


torch.fx.wrap("_wrapped_helper")
torchshim.fx.wrap("_wrapped_helper")


def test_wrap_records_one_call():
    def demo(T):
        class M(T.nn.Module):
            def forward(self, x, y=None):
                return _wrapped_helper(x, 3.0).relu()
        gm = T.fx.symbolic_trace(M())
        return {"code": gm.code, "graph": str(gm.graph)}, gm(_input(T, (2, 3)))
    (t_texts, t_out), (s_texts, s_out) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out)


def test_replace_op_demo():
    """pytorch/examples fx/replace_op.py: every addition becomes bitwise_and by graph editing."""
    def demo(T):
        class M(T.nn.Module):
            def forward(self, x, y):
                return x + y, T.add(x, y), x.add(y)
        traced = T.fx.symbolic_trace(M())
        patterns = {operator.add, T.add, "add"}
        for n in traced.graph.nodes:
            if any(n.target == p for p in patterns):
                with traced.graph.inserting_after(n):
                    new_node = traced.graph.call_function(T.bitwise_and, n.args, n.kwargs)
                    n.replace_all_uses_with(new_node)
                traced.graph.erase_node(n)
        traced.recompile()
        x, y = T.tensor([5, 6, 7]), T.tensor([3, 3, 1])
        return {"code": traced.code, "graph": str(traced.graph)}, traced(x, y)
    (t_texts, t_out), (s_texts, s_out) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out)


def test_subgraph_rewriter_demo():
    """pytorch/examples fx/subgraph_rewriter_basic_use.py."""
    def demo(T):
        class M(T.nn.Module):
            def forward(self, x, w1, w2):
                val1 = T.neg(w1)
                m1 = T.cat([val1, w2]).sum()
                val2 = T.neg(w1)
                m2 = T.cat([val2, w2]).sum()
                return x + T.max(m1) + T.max(m2)

        def pattern(a1, a2):
            val1 = T.neg(a1)
            return T.cat([val1, a2]).sum()

        def replacement(w1, w2):
            return T.stack([w1, w2])
        traced = T.fx.symbolic_trace(M())
        matches = T.fx.replace_pattern(traced, pattern, replacement)
        args = [_input(T, (3,), i) for i in range(3)]
        return {"code": traced.code, "graph": str(traced.graph), "n": len(matches),
                "anchors": [m.anchor.name for m in matches]}, traced(*args)
    (t_texts, t_out), (s_texts, s_out) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out)


def test_interpreter_subclass_and_profiling_counts():
    """The Interpreter docs' NegSigmSwapInterpreter, and a per-node-kind call counter (the profiling demo's
    Interpreter structure)."""
    def demo(T):
        class NegSigmSwap(T.fx.Interpreter):
            def call_function(self, target, args, kwargs):
                if target == T.sigmoid:
                    return T.neg(*args, **kwargs)
                return super().call_function(target, args, kwargs)

            def call_method(self, target, args, kwargs):
                if target == "neg":
                    call_self, *args_tail = args
                    return call_self.sigmoid(*args_tail, **kwargs)
                return super().call_method(target, args, kwargs)

        class Counter(T.fx.Interpreter):
            def __init__(self, gm):
                super().__init__(gm)
                self.counts = {}

            def run_node(self, n):
                self.counts[n.op] = self.counts.get(n.op, 0) + 1
                return super().run_node(n)

        def fn(x):
            return T.sigmoid(x).neg()
        gm = T.fx.symbolic_trace(fn)
        x = _input(T, (5,))
        counter = Counter(gm)
        out2 = counter.run(x)
        return NegSigmSwap(gm).run(x), out2, counter.counts, T.sigmoid(x).neg(), T.neg(x).sigmoid()
    t, s = both(demo)
    compare_values(t[:3], s[:3])
    _shim_close(s[0], s[4])  # swapped: neg then sigmoid
    _shim_close(s[1], s[3])


def test_transformer_swaps_ops():
    def demo(T):
        class NegSigmSwapXformer(T.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target == T.sigmoid:
                    return T.neg(*args, **kwargs)
                return super().call_function(target, args, kwargs)

            def call_method(self, target, args, kwargs):
                if target == "neg":
                    call_self, *args_tail = args
                    return call_self.sigmoid(*args_tail, **kwargs)
                return super().call_method(target, args, kwargs)

        def fn(x):
            return T.sigmoid(x).neg()
        gm = T.fx.symbolic_trace(fn)
        new = NegSigmSwapXformer(gm).transform()
        x = _input(T, (5,))
        return {"code": new.code, "graph": str(new.graph)}, new(x)
    (t_texts, t_out), (s_texts, s_out) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out)


def test_shape_prop():
    def demo(T):
        from importlib import import_module
        shape_prop = import_module(T.__name__ + ".fx.passes.shape_prop")
        cls, shapes = _models(T)["conv"]
        gm = T.fx.symbolic_trace(_fill(cls(), T))
        shape_prop.ShapeProp(gm).propagate(_input(T, shapes[0]))
        return [(n.name, tuple(n.meta["tensor_meta"].shape), str(n.meta["tensor_meta"].dtype),
                 n.meta["tensor_meta"].requires_grad, tuple(n.meta["tensor_meta"].stride),
                 str(n.meta["tensor_meta"].memory_format)) for n in gm.graph.nodes if n.op != "output"]
    t, s = both(demo)
    assert t == s


def test_conv_bn_fusion_by_tracing():
    """The fx conv-bn fuser tutorial: trace, fold each BatchNorm into the conv before it, erase the node."""
    def demo(T):
        from importlib import import_module
        fusion = import_module(T.__name__ + ".nn.utils.fusion")
        cls, shapes = _models(T)["conv"]
        model = _fill(cls(), T).eval()
        fx_model = T.fx.symbolic_trace(model)
        modules = dict(fx_model.named_modules())
        for node in fx_model.graph.nodes:
            if node.op != "call_module" or not isinstance(modules[node.target], T.nn.BatchNorm2d):
                continue
            prev = node.args[0]
            if prev.op != "call_module" or not isinstance(modules[prev.target], T.nn.Conv2d):
                continue
            if len(prev.users) > 1:
                continue
            fused = fusion.fuse_conv_bn_eval(modules[prev.target], modules[node.target])
            setattr(fx_model, prev.target, fused)
            node.replace_all_uses_with(prev)
            fx_model.graph.erase_node(node)
        fx_model.graph.lint()
        fx_model.delete_all_unused_submodules()
        fx_model.recompile()
        x = _input(T, shapes[0])
        texts = {"code": fx_model.code, "mods": [n for n, _ in fx_model.named_modules()]}
        return texts, fx_model(x), model(x)
    (t_texts, t_out, _), (s_texts, s_out, s_ref) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out, rtol=1e-5, atol=1e-5)
    _shim_close(s_ref, s_out)


def test_proxy_based_graph_creation():
    """pytorch/examples fx/proxy_based_graph_creation.py: build a graph by calling torch functions on Proxies
    made from a Graph's placeholders, without tracing."""
    def demo(T):
        graph = T.fx.Graph()
        raw1, raw2 = graph.placeholder("x"), graph.placeholder("y")
        tracer = T.fx.proxy.GraphAppendingTracer(graph)
        y, z = T.fx.Proxy(raw1, tracer), T.fx.Proxy(raw2, tracer)
        a = T.cat([y, z])
        b = T.tanh(a)
        c = b.neg()
        graph.output(c.node)
        gm = T.fx.GraphModule(T.nn.Module(), graph)
        return {"code": gm.code, "graph": str(graph)}, gm(_input(T, (2, 3), 0), _input(T, (1, 3), 1))
    (t_texts, t_out), (s_texts, s_out) = both(demo)
    _texts_equal(t_texts, s_texts)
    compare_values(t_out, s_out)


def test_graph_editing_api():
    def demo(T):
        g = T.fx.Graph()
        x = g.placeholder("x")
        out = g.output(x)
        with g.inserting_after(x):
            a = g.call_function(T.relu, (x,))
        with g.inserting_after(a):
            b = g.call_function(T.neg, (a,))
        with g.inserting_after(x):  # inserted right after x: before relu
            g.call_function(T.sigmoid, (x,))
        with g.inserting_before(out):
            c = g.call_method("sum", (x,), {"dim": 0})
            d = g.call_method("add_", (x, 1))
            e = g.call_function(T.rand, (3,))
            s = g.call_function(operator.mul, (c, 2))
        out.args = (s,)
        text1 = str(g)
        changed = g.eliminate_dead_code()
        g2 = T.fx.Graph()
        x2 = g2.placeholder("inp")
        val = g2.graph_copy(g, {x: x2})
        g2.output(val)
        cp = g2.node_copy(s, lambda n: x2)
        errors = []
        try:
            g.erase_node(x)
        except RuntimeError as err:
            errors.append(str(err))
        del a, b, d, e
        return {"g1": text1, "after_dce": str(g), "changed": changed, "copy": str(g2), "cp": cp.name,
                "errors": errors, "users": [list(map(str, n.users)) for n in g.nodes]}
    t, s = both(demo)
    _texts_equal(t, s)


def test_node_api():
    def demo(T):
        gm = T.fx.symbolic_trace(lambda x, y: T.relu(x + y) * y)
        nodes = list(gm.graph.nodes)
        x, y, add, relu, mul, out = nodes
        info = {"ops": [n.op for n in nodes], "targets": [str(n.target) if isinstance(n.target, str)
                                                         else n.target.__name__ for n in nodes],
                "prev": add.prev.name, "next": add.next.name, "fmt": mul.format_node()}
        mul.replace_input_with(y, x)
        relu.append(y) if False else None
        info["after_replace"] = str(gm.graph)
        add.prepend(y)  # moving a node already in place is a no-op in order
        info["order"] = [n.name for n in gm.graph.nodes]
        changed = add.replace_all_uses_with(x)
        info["changed"] = [n.name for n in changed]
        gm.graph.erase_node(add)
        gm.recompile()
        info["code"] = gm.code
        return info, gm(_input(T, (3,), 0), _input(T, (3,), 1))
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out)


def test_graphmodule_copy_pickle_state_dict():
    def demo(T):
        cls, shapes = _models(T)["mlp"]
        gm = T.fx.symbolic_trace(_fill(cls(), T))
        x = _input(T, shapes[0])
        dc = copy.deepcopy(gm)
        pk = pickle.loads(pickle.dumps(gm))
        return ({"state": list(gm.state_dict()), "params": [n for n, _ in gm.named_parameters()],
                 "dc_code": dc.code, "pk_code": pk.code, "dc_name": type(dc).__name__,
                 "pk_name": type(pk).__name__, "shared": dc.fc1.weight is gm.fc1.weight},
                (gm(x), dc(x), pk(x)))
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out, rtol=1e-5, atol=1e-5)


def test_submodule_add_delete():
    def demo(T):
        cls, shapes = _models(T)["mlp"]
        gm = T.fx.symbolic_trace(_fill(cls(), T))
        ok = gm.add_submodule("extra.act", T.nn.Tanh())
        out_node = gm.graph.output_node()
        with gm.graph.inserting_before(out_node):
            t = gm.graph.call_module("extra.act", (out_node.args[0],))
        out_node.args = (t,)
        gm.recompile()
        x = _input(T, shapes[0])
        res = gm(x)
        gone = gm.delete_submodule("nothing.here")
        return {"ok": ok, "gone": gone, "code": gm.code, "repr": str(gm)}, res
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out, rtol=1e-5, atol=1e-5)


def test_print_readable():
    def demo(T):
        cls, _ = _models(T)["mixed"]
        return T.fx.symbolic_trace(cls()).print_readable(print_output=False)
    t, s = both(demo)
    assert t == s


def test_concrete_args():
    def demo(T):
        def f(x, flag, opt=None):
            return x.relu() if flag else x.neg()
        gm = T.fx.symbolic_trace(f, concrete_args={"flag": True, "opt": None})
        x = _input(T, (4,))
        try:
            gm(x, False, None)
            err = None
        except AssertionError as e:
            err = str(e)
        try:
            T.fx.symbolic_trace(f, concrete_args={"flag": T.fx.PH})
            ph = None
        except Exception as e:  # noqa: BLE001 - the type is compared
            ph = (type(e).__name__, str(e))
        return {"code": gm.code, "graph": str(gm.graph), "err": err, "ph": ph}, gm(x, True, None)
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out)


@pytest.mark.parametrize("case", ["bool", "len", "iter"])
def test_trace_errors(case):
    def demo(T):
        def f(x):
            if case == "bool":
                if x.sum() > 0:
                    return x
            if case == "len":
                return x.__len__()  # len(x) itself is wrapped in this module (test below)
            for v in x:
                return v
            return x
        try:
            T.fx.symbolic_trace(f)
        except Exception as e:  # noqa: BLE001 - the type is compared
            return type(e).__name__, str(e).split("\n")[0]
        return None
    t, s = both(demo)
    assert t is not None and t == s


def test_graph_lint_detects_use_before_def():
    def demo(T):
        g = T.fx.Graph()
        x = g.placeholder("x")
        with g.inserting_before(x):
            g.call_function(T.relu, (x,))
        g.output(x)
        try:
            g.lint()
        except RuntimeError as e:
            return str(e).split("\n")[0]
        return None
    t, s = both(demo)
    assert t is not None and t == s


def test_hook_leaves_tensors_alone():
    x = torchshim.ones(3)
    assert torchshim.relu(x).tolist() == [1.0, 1.0, 1.0]
    assert torchshim.nn.functional.relu(-x).tolist() == [0.0, 0.0, 0.0]
    assert torchshim.ones(3).add(x).tolist() == [2.0, 2.0, 2.0]


def test_to_folder_loads_in_pytorch(tmp_path):
    """A folder written by torchshim's GraphModule.to_folder is the text PyTorch writes, and real PyTorch
    imports it and computes what the torchshim module computes."""
    import importlib.util

    def demo(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = T.nn.Linear(3, 2)
                self.w = T.nn.Parameter(T.ones(2))

            def forward(self, x):
                return T.relu(self.fc(x)) * self.w
        gm = T.fx.symbolic_trace(_fill(M(), T))
        folder = tmp_path / T.__name__
        gm.to_folder(str(folder), "Foo")
        text = (folder / "module.py").read_text().replace(str(folder), "<folder>")
        return text, gm(_input(T, (2, 3)))
    (t_text, t_out), (s_text, s_out) = both(demo)
    assert t_text == s_text
    spec = importlib.util.spec_from_file_location("fx_folder_from_shim", tmp_path / "torchshim" / "module.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # `import torch` there is real PyTorch
    ref = module.Foo()(torch.tensor(to_numpy(_input(torchshim, (2, 3)))))
    np.testing.assert_allclose(ref.detach().numpy(), to_numpy(s_out), rtol=1e-6, atol=1e-6)
    compare_values(t_out, s_out)


from math import sqrt  # noqa: E402  (autowrapped by the tracer: a math function in the traced globals)

torch.fx.wrap("len")
torchshim.fx.wrap("len")


def _len_sqrt(x):
    return x.view(len(x), -1) * sqrt(x.size(0))


def test_wrap_builtin_autowrap_math_and_pickle():
    def demo(T):
        gm = T.fx.symbolic_trace(_len_sqrt)
        pk = pickle.loads(pickle.dumps(gm))
        x = _input(T, (4, 2))
        return {"code": gm.code, "graph": str(gm.graph), "pk": pk.code}, (gm(x), pk(x))
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out)


def test_param_shapes_constant():
    def demo(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.ones(2, 3))

            def forward(self, x):
                return x.reshape(self.w.shape[0], -1) + self.w.size()[1] + self.w.dim()
        graph = T.fx.Tracer(param_shapes_constant=True).trace(M())
        plain = T.fx.Tracer().trace(M())
        return str(graph), str(plain)
    t, s = both(demo)
    assert t == s


def test_print_tabular_needs_tabulate(capsys):
    def demo(T):
        gm = T.fx.symbolic_trace(lambda x: x + 1)
        try:
            gm.graph.print_tabular()
        except ImportError as e:
            return type(e).__name__, str(e), capsys.readouterr().out
        return None
    t, s = both(demo)
    assert t == s


def test_inline_function_demo():
    """pytorch/examples fx/inline_function.py: a leaf module's call replaced by calling the module on
    Proxies of the node's arguments (outside any trace)."""
    def demo(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = T.nn.ReLU()

            def forward(self, x):
                return self.relu(x) + 1.0
        m = T.fx.symbolic_trace(M())
        for node in m.graph.nodes:
            if (node.op, node.target) == ("call_module", "relu"):
                with m.graph.inserting_before(node):
                    proxy_args = T.fx.node.map_arg(node.args, T.fx.Proxy)
                    proxy_kwargs = T.fx.node.map_arg(node.kwargs, T.fx.Proxy)
                    proxy_output = m.relu(*proxy_args, **proxy_kwargs)
                    node.replace_all_uses_with(proxy_output.node)
                    m.graph.erase_node(node)
        m.recompile()
        return {"code": m.code, "graph": str(m.graph)}, m(_input(T, (5,)))
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out)


def test_wrap_output_dynamically_demo():
    """pytorch/examples fx/wrap_output_dynamically.py: a traced activation module called on a Proxy of the
    graph's output value inlines itself into the graph."""
    def demo(T):
        class M(T.nn.Module):
            def forward(self, x, y):
                return T.cat([x, y])
        traced = T.fx.symbolic_trace(M())
        output_node = next(n for n in reversed(traced.graph.nodes) if n.op == "output")
        wrap_node = output_node.all_input_nodes[0]
        fn_impl_traced = T.fx.symbolic_trace(T.nn.LeakyReLU())
        with traced.graph.inserting_before(wrap_node):
            out = fn_impl_traced(T.fx.Proxy(wrap_node))
            output_node.args = (out.node,)
        text = str(traced.graph)  # PyTorch's demo leaves the graph unordered (the activation before cat)
        return {"graph": text, "names": [n.name for n in fn_impl_traced.graph.nodes]}
    t, s = both(demo)
    _texts_equal(t, s)


def _exp_tan(T):
    def f(x):
        return T.exp(T.tan(x))
    return f


def _invert(T, model, mapping):
    fx_model = T.fx.symbolic_trace(model)
    new_graph, env = T.fx.Graph(), {}
    for node in reversed(fx_model.graph.nodes):
        if node.op == "call_function":
            new_node = new_graph.call_function(mapping[node.target], (env[node.name],))
            env[node.args[0].name] = new_node
        elif node.op == "output":
            env[node.args[0].name] = new_graph.placeholder(node.name)
        elif node.op == "placeholder":
            new_graph.output(env[node.name])
    new_graph.lint()
    return T.fx.GraphModule(fx_model, new_graph)


def test_invert_demo_values():
    """pytorch/examples fx/invert.py: build the inverse function's graph by walking the graph backwards."""
    def demo(T):
        mapping = {}
        for a, b in [(T.sin, T.arcsin), (T.cos, T.arccos), (T.tan, T.arctan), (T.exp, T.log)]:
            mapping[a], mapping[b] = b, a
        f = _exp_tan(T)
        res = _invert(T, f, mapping)
        x = T.arange(5) + 1
        return res(x), f(res(x))
    t, s = both(demo)
    compare_values(t, s, rtol=1e-5, atol=1e-5)


def test_invert_demo_code_names_aliases():
    def demo(T):
        mapping = {T.tan: T.arctan, T.exp: T.log}
        return _invert(T, _exp_tan(T), mapping).code
    t, s = both(demo)
    assert t == s


def test_varargs_kwonly_and_annotations():
    def demo(T):
        def f(input, *args, scale=2, **kwargs):
            return input * scale

        class M(T.nn.Module):
            def forward(self, x: T.Tensor, n: int = 3) -> T.Tensor:
                return x.relu() + n
        g1 = T.fx.symbolic_trace(f)
        g2 = T.fx.symbolic_trace(M())
        texts = {"c1": g1.code, "g1": str(g1.graph), "c2": g2.code, "g2": str(g2.graph)}
        return texts, g2(_input(T, (3,)), 1)
    (t_info, t_out), (s_info, s_out) = both(demo)
    _texts_equal(t_info, s_info)
    compare_values(t_out, s_out)


def test_custom_tracers_demo():
    """pytorch/examples fx/custom_tracer.py and module_tracer.py: a tracer tracing through ReLU, one tagging
    every node at creation, one recording each node's originating module path."""
    def demo(T):
        class M1(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = T.nn.ReLU()

            def forward(self, x):
                return self.relu(x)

        class LowerReluTracer(T.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                if isinstance(m, T.nn.ReLU):
                    return False
                return super().is_leaf_module(m, qualname)

        class TaggingTracer(T.fx.Tracer):
            def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
                n = super().create_node(kind, target, args, kwargs, name)
                n.tag = "foo"
                return n

        class ModulePathTracer(T.fx.Tracer):
            current_module_qualified_name = ""

            def __init__(self):
                super().__init__()
                self.node_to_originating_module = {}

            def call_module(self, m, forward, args, kwargs):
                old = self.current_module_qualified_name
                try:
                    self.current_module_qualified_name = self.path_of_module(m)
                    return super().call_module(m, forward, args, kwargs)
                finally:
                    self.current_module_qualified_name = old

            def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
                proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
                self.node_to_originating_module[proxy.node] = self.current_module_qualified_name
                return proxy

        class Basic(T.nn.Module):  # a ResNet basic block
            def __init__(self):
                super().__init__()
                self.conv1, self.bn1 = T.nn.Conv2d(2, 2, 3, padding=1), T.nn.BatchNorm2d(2)
                self.relu = T.nn.ReLU(inplace=True)

            def forward(self, x):
                return self.relu(self.bn1(self.conv1(x)) + x)

        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer1 = T.nn.Sequential(Basic(), Basic())
                self.fc = T.nn.Linear(2, 3)

            def forward(self, x):
                return self.fc(T.flatten(self.layer1(x).mean((2, 3)), 1))

        lowered = LowerReluTracer().trace(M1())
        tagged = TaggingTracer().trace(M1())
        tracer = ModulePathTracer()
        g = tracer.trace(Net())
        return {"lowered": str(lowered), "tags": [getattr(n, "tag", None) for n in tagged.nodes],
                "paths": [(n.name, tracer.node_to_originating_module.get(n)) for n in g.nodes],
                "net": str(g)}
    t, s = both(demo)
    _texts_equal(t, s)
