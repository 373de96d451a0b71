"""The backward pass: an iterative walk of the tape in reverse creation order (no recursion limit).

`run_backward(tensors, grad_tensors, ...)` serves both `Tensor.backward`/`torch.autograd.backward` (accumulate
into leaves' `.grad`) and `torch.autograd.grad` (capture gradients of `inputs`, touch no `.grad`).
"""
import heapq
import numbers
import threading
import warnings

import jax.numpy as jnp
import numpy as np

from .. import _view as V
from .._tensor import Tensor, filled, fresh, wrap
from . import _node as N
from .grad_mode import is_grad_enabled, set_grad_enabled

__all__ = ["run_backward", "is_checkpoint_valid"]


class _Tasks(threading.local):
    """Per-thread stack of running backward passes: True for each one that runs the whole graph."""
    stack = ()


_tasks = _Tasks()


def is_checkpoint_valid():
    """False inside a backward pass with `inputs` (autograd.grad, backward(inputs=)): PyTorch's
    `torch._C._autograd._is_checkpoint_valid`, which reentrant checkpointing checks."""
    return not _tasks.stack or _tasks.stack[-1]


def _shape_str(shape):
    return f"torch.Size({list(shape)})"


def _root_grads(tensors, grad_tensors, what):
    out = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not t._dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{t._dtype}")
            g = fresh(jnp.ones(t._shape, t._dtype.np), t._dtype, t._storage.device)
        elif not isinstance(g, Tensor):
            g = filled((), g, t._dtype, t._storage.device) if isinstance(g, numbers.Number) else \
                wrap(jnp.asarray(np.asarray(g), t._dtype.np), t._dtype, t._storage.device)
        if g._shape != t._shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {_shape_str(g._shape)} "
                               f"and output[{i}] has a shape of {_shape_str(t._shape)}.")
        if g._dtype.is_complex != t._dtype.is_complex:
            raise RuntimeError("For complex Tensors, both grad_output and output are required to have the "
                               f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g._dtype} "
                               f"and output[{i}] has a dtype of {t._dtype}.")
        out.append(g)
    return out


def _collect(roots):
    """Dependency counts of every node reachable from `roots` (iterative DFS)."""
    deps = {}
    seen = set()
    stack = list(dict.fromkeys(roots))  # two roots may share a node: walk it once
    for n in roots:
        seen.add(n)
    while stack:
        node = stack.pop()
        for e in node._edges:
            if e is None:
                continue
            nxt = e[0]
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, seen


def _needed(all_nodes, targets):
    """Nodes from which some target node is reachable (only they need to run)."""
    needed = set(targets)
    # process in increasing creation order: a node's inputs are always created before it
    for node in sorted(all_nodes, key=lambda n: n._seq):
        if node in needed:
            continue
        for e in node._edges:
            if e is not None and e[0] in needed:
                needed.add(node)
                break
    return needed


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _sum_to(g, shape):
    """`g` summed down to `shape` (a custom Function returned a broadcast gradient)."""
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i,
                                      s in enumerate(shape) if s == 1 and g._shape[lead + i] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g


def _validate(node, grads):
    """PyTorch's validate_outputs: gradients must have their input's shape (or be broadcast to it) and
    dtype."""
    out = []
    for i, (g, e) in enumerate(zip(grads, node._edges)):
        if g is None or e is None:
            out.append(g if e is not None else None)
            continue
        shape, dtype, _ = e[0].output_meta(e[1])
        if g._shape != tuple(shape):
            try:
                ok = V.numel(shape) and tuple(jnp.broadcast_shapes(tuple(shape), g._shape)) == g._shape
            except ValueError:
                ok = False
            if not ok:
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                                   f"{list(g._shape)} but expected shape compatible with {list(shape)}")
            g = _sum_to(g, tuple(shape))
        if g._dtype is not dtype:
            g = g.to(dtype)
        out.append(g)
    return out


def _call_tensor_hooks(hooks, g):
    for fn in list(hooks.values()):
        r = fn(g)
        if r is not None:
            g = r
    return g


def _check_nan(node, grads):
    for i, g in enumerate(grads):
        if g is not None and (g._dtype.is_floating_point or g._dtype.is_complex):
            import numpy as np
            if bool(np.isnan(np.asarray(g._value)).any()):
                if node._trace:
                    warnings.warn("Error detected in " + node.name() + ". Traceback of forward call that "
                                                                       "caused "
                                  "the error:\n" + "".join(node._trace), UserWarning, stacklevel=4)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


# How many backward passes have started (torch.compile tells a training step, which runs backward inside its
# program, from a forward whose outputs need a tape node).
runs = 0


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None, allow_unused=False,
                 accumulate=True, materialize=False):
    """The engine. Returns the captured gradients of `inputs` when `accumulate` is False (autograd.grad)."""
    global runs
    runs += 1
    if retain_graph is None:
        retain_graph = create_graph
    grads_in = _root_grads(tensors, grad_tensors, "backward")
    roots = []
    for i, t in enumerate(tensors):
        e = N.gradient_edge(t)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(e)

    # targets: the edges of `inputs` whose gradient is captured (grad) or the only leaves accumulated
    # (backward)
    targets = None
    capture = {}
    if inputs is not None:
        targets = []
        for t in inputs:
            e = (t[0], t[1]) if isinstance(t, tuple) else N.gradient_edge(t)  # graph.GradientEdge
            if e is None:
                if accumulate:
                    raise RuntimeError("One of the differentiated Tensors does not require grad")
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            targets.append(e)
        for e in targets:
            capture.setdefault(e, None)

    deps, nodes = _collect([e[0] for e in roots])
    needed = _needed(nodes, [e[0] for e in targets]) if targets is not None else None

    buffers = {}
    for (node, nr), g in zip(roots, grads_in):
        buf = buffers.setdefault(node, [None] * node.n_outputs)
        buf[nr] = _add(buf[nr], g)
    ready = []
    for node in {e[0] for e in roots}:
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._seq, id(node), node))

    target_nodes = {e[0] for e in targets} if targets is not None else None
    prev = is_grad_enabled()
    set_grad_enabled(create_graph)
    _tasks.stack = _tasks.stack + (inputs is None,)
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            grads = buffers.pop(node, None) or [None] * node.n_outputs
            if isinstance(node, N.AccumulateGrad):
                g = grads[0]
                var = node.variable
                if var._hooks:
                    g = _call_tensor_hooks(var._hooks, g) if g is not None else g
                if (node, 0) in capture:
                    capture[(node, 0)] = _add(capture[(node, 0)], g)
                if accumulate and g is not None and (target_nodes is None or node in target_nodes):
                    _accumulate(var, g, create_graph)
                continue
            # tensor hooks and retain_grad of this node's outputs
            if node._tensor_pre_hooks:
                for nr, hooks in node._tensor_pre_hooks.items():
                    if grads[nr] is not None and hooks:
                        grads[nr] = _call_tensor_hooks(hooks, grads[nr])
            if node._retain_hooks:
                for nr, ref in node._retain_hooks.items():
                    t = ref()
                    if t is not None and grads[nr] is not None:
                        _retain(t, grads[nr], create_graph)
            if node._pre_hooks:
                for fn in list(node._pre_hooks.values()):
                    r = fn(tuple(grads))
                    if r is not None:
                        grads = list(r)
            for nr in range(node.n_outputs):
                if (node, nr) in capture and grads[nr] is not None:
                    capture[(node, nr)] = _add(capture[(node, nr)], grads[nr])
            if needed is not None and node not in needed:
                continue
            if all(g is None for g in grads):
                outs = [None] * len(node._edges)
            else:
                outs = node.apply(grads, create_graph)
                outs = _validate(node, list(outs))
                if N.anomaly_enabled() and getattr(N._anomaly, "check_nan", True):
                    _check_nan(node, outs)
            if node._hooks:
                for fn in list(node._hooks.values()):
                    r = fn(tuple(outs), tuple(grads))
                    if r is not None:
                        outs = list(r)
            if not retain_graph:
                node._release()
            for e, g in zip(node._edges, outs):
                if e is None:
                    continue
                nxt, nr = e
                if g is not None:
                    buf = buffers.setdefault(nxt, [None] * nxt.n_outputs)
                    buf[nr] = _add(buf[nr], g)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._seq, id(nxt), nxt))
    finally:
        set_grad_enabled(prev)
        _tasks.stack = _tasks.stack[:-1]

    if accumulate:
        return None
    result = []
    for i, (t, e) in enumerate(zip(inputs, targets)):
        g = capture.get(e)
        if g is None:
            if materialize:
                g = filled(t._shape, 0, t._dtype, t._storage.device)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in "
                                   "the graph. Set allow_unused=True if this is the desired behavior.")
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _retain(t, g, create_graph):
    if not create_graph:
        g = fresh(g._value, g._dtype, g._storage.device)
    t._grad = g if t._grad is None else t._grad + g


def _accumulate(var, g, create_graph):
    """AccumulateGrad: `var.grad = g` (a fresh tensor) or `var.grad += g`; then post-accumulate hooks."""
    if g._dtype is not var._dtype:
        g = g.to(var._dtype)
    if var._grad is None:
        var._grad = g if create_graph else fresh(g._value, g._dtype, g._storage.device)
    elif create_graph or is_grad_enabled():
        var._grad = var._grad + g
    else:
        var._grad._write(var._grad._value + g._value)
    post = getattr(var, "_post_acc_hooks", None)
    if post:
        for fn in list(post.values()):
            fn(var)

