"""`torch.func.grad`, `grad_and_value`, `vjp` and `jacrev` on torchshim's eager autograd (the tape).

Differences from PyTorch:
- These are not functorch transforms with levels: they differentiate with `torchshim.autograd.grad`. The
  results keep autograd history (so an outer `grad`, `backward` or `autograd.grad` can differentiate them
  again) when an argument requires grad, when the function uses a captured tensor that requires grad (module
  parameters), or when called inside another `grad`/`vjp`; otherwise they are detached, as in PyTorch.
- `jacrev` maps `vjp`'s function over the standard basis with `vmap` (as PyTorch does); `chunk_size` is
  vmap's.
"""
import functools

from .._tensor import Tensor
from ..autograd.engine_api import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ._capture import Outer
from ._pytree import tree_flatten, tree_map, tree_unflatten, treespec_pprint

__all__ = ["grad", "grad_and_value", "vjp", "jacrev"]


# ---- grad --------------------------------------------------------------------------------------------------
_nesting = 0  # how many grad transforms are running (inside one, results must keep their history)


def _tree_flatten(tree):
    return tree_flatten(tree)


def _tree_map(fn, tree):
    return tree_map(fn, tree)


def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums):
    """(the differentiated arguments: one, or a tuple for a tuple `argnums`; the wrapped argnums)."""
    if not isinstance(argnums, int) and not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        argnums = _wrap_argnum(argnums, len(args))
        return args[argnums], argnums
    argnums = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums), argnums


def _differentiable(x):
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    # a view keeps the path to an outer graph; a fresh leaf otherwise
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_()


def _grad_and_value_impl(func, argnums, has_aux, args, kwargs):
    from .. import _api as torchshim
    global _nesting
    diff_args, argnums = _slice_argnums(args, argnums)
    grad_mode = is_grad_enabled()  # under no_grad the results never keep history
    outer = grad_mode and (_nesting > 0 or any(isinstance(t, Tensor) and t.requires_grad
                                               for t in _tree_flatten((args, kwargs))[0]))
    _nesting += 1
    try:
        with enable_grad():
            flat_diff, spec = _tree_flatten(diff_args)
            flat_inner = [_differentiable(x) for x in flat_diff]
            inner = tree_unflatten(flat_inner, spec)
            if isinstance(argnums, int):
                args = tuple(inner if i == argnums else a for i, a in enumerate(args))
            else:
                pos = dict(zip(argnums, inner))
                args = tuple(pos.get(i, a) for i, a in enumerate(args))
            with Outer(flat_inner) as captured:
                output = func(*args, **kwargs)
            outer = outer or (grad_mode and captured.found)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, "
                                       "aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                                   "got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   f"APIs "
                                   "instead?")
            for leaf in (_tree_flatten(aux)[0] if has_aux else ()):
                if not isinstance(leaf, Tensor):
                    raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
            if output.requires_grad:
                grads = _autograd_grad(output, flat_inner, create_graph=outer, allow_unused=True)
            else:
                grads = [None] * len(flat_inner)
            grads = [torchshim.zeros_like(x) if g is None else g for g, x in zip(grads, flat_inner)]
    finally:
        _nesting -= 1
    if not outer:
        def detach(t):
            return t.detach() if isinstance(t, Tensor) else t
        grads = [detach(g) for g in grads]
        output = detach(output)
        aux = _tree_map(detach, aux)
    grad_input = tree_unflatten(grads, spec)
    if has_aux:
        return grad_input, (output, aux)
    return grad_input, output


def grad_and_value(func, argnums=0, has_aux=False):
    """`torch.func.grad_and_value(func, argnums=0, has_aux=False)`: a function returning `(gradient, value)`
    of the scalar `func(*args)` w.r.t. the arguments `argnums` (int or tuple; each a Tensor or a pytree of
    them); with `has_aux`, `func` returns `(value, aux)` and the result is `(gradient, (value, aux))`."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value_impl(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """`torch.func.grad(func, argnums=0, has_aux=False)`: a function returning the gradient of the scalar
    `func(*args)` w.r.t. the arguments `argnums` (same structure as them); with `has_aux`, `(gradient, aux)`.
    Nested `grad(grad(f))` gives higher derivatives.

    >>> grad(lambda x: (x ** 3).sum())(torchshim.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return g, value[1]
        return g
    return wrapper


# ---- vjp, jacrev -------------------------------------------------------------------------------------------
def _detach(t):
    return t.detach() if isinstance(t, Tensor) else t


def vjp(func, *primals, has_aux=False):
    """`torch.func.vjp(func, *primals, has_aux=False)` -> `(output, vjp_fn)` (`(output, vjp_fn, aux)` with
    `has_aux`): `vjp_fn(cotangents, retain_graph=True, create_graph=None)` returns the tuple of
    vector-Jacobian products, one per primal (same pytree structure), for cotangents shaped like `output`.

    >>> out, fn = vjp(torchshim.sin, torchshim.zeros(2))
    >>> fn(torchshim.ones(2))
    (tensor([1., 1.]),)
    """
    global _nesting
    flat_p, pspec = tree_flatten(primals)
    grad_mode = is_grad_enabled()
    outer = grad_mode and (_nesting > 0 or any(isinstance(t, Tensor) and t.requires_grad for t in flat_p))
    flat_inner = [_differentiable(x) for x in flat_p]
    _nesting += 1
    try:
        with enable_grad(), Outer(flat_inner) as captured:
            output = func(*tree_unflatten(flat_inner, pspec))
    finally:
        _nesting -= 1
    outer = outer or (grad_mode and captured.found)
    aux = None
    if has_aux:
        if not (isinstance(output, tuple) and len(output) == 2):
            raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                               "has_aux is True")
        output, aux = output
    flat_out, ospec = tree_flatten(output)
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): expected f(*primals) to return only tensors, got "
                               f"unsupported "
                               f"type {type(o)}")
    if has_aux:
        for a in tree_flatten(aux)[0]:
            if not isinstance(a, Tensor):
                raise RuntimeError(f"vjp(f, *primals): expected f(*primals) to return only tensors as "
                                   f"auxiliary output, got unsupported type {type(a)}")

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        """The vector-Jacobian product of `cotangents` (shaped like the output) -> a tuple like the
        primals."""
        from .. import _api as torchshim
        flat_ct, cspec = tree_flatten(cotangents)
        if cspec != ospec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of "
                               f"outputs to the function. cotangents: {treespec_pprint(cspec)}, primal "
                               f"output: "
                               f"{treespec_pprint(ospec)}")
        for i, (c, o) in enumerate(zip(flat_ct, flat_out)):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"vjp_fn: expected cotangents to be tensors, got {type(c)}")
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and "
                                   f"output[{i}] has a shape of {o.shape}.")
        pairs = [(o, c if c.dtype is o.dtype else c.to(o.dtype)) for o, c in zip(flat_out, flat_ct)
                 if o.requires_grad]
        cg = outer if create_graph is None else create_graph
        if pairs:
            with enable_grad():
                grads = _autograd_grad([p[0] for p in pairs], flat_inner, grad_outputs=[p[1] for p in pairs],
                                       retain_graph=retain_graph, create_graph=cg, allow_unused=True)
        else:
            grads = [None] * len(flat_inner)
        grads = [torchshim.zeros_like(x) if g is None else g for g, x in zip(grads, flat_inner)]
        if not cg:
            grads = [_detach(g) for g in grads]
        return tree_unflatten(grads, pspec)

    if not outer:
        output = tree_map(_detach, output)
        aux = tree_map(_detach, aux)
    if has_aux:
        return output, vjp_fn, aux
    return output, vjp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """`torch.func.jacrev(func, argnums=0, *, has_aux=False, chunk_size=None)`: a function returning the
    Jacobian of `func` w.r.t. the arguments `argnums` by reverse mode: for each output (pytree leaf) a tensor
    of shape `output.shape + input.shape` (a pytree like the argument; a tuple over arguments for a tuple
    `argnums`); with `has_aux`, `(jacobian, aux)`.

    >>> jacrev(torchshim.sin)(torchshim.zeros(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    from ._vmap import vmap

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .. import _api as torchshim
        diff, argnums_w = _slice_argnums(args, argnums)
        diff_tuple = diff if isinstance(argnums_w, tuple) else (diff,)

        def f_diff(*dargs):
            pos = dict(zip(argnums_w if isinstance(argnums_w, tuple) else (argnums_w,), dargs))
            return func(*(pos.get(i, a) for i, a in enumerate(args)), **kwargs)
        res = vjp(f_diff, *diff_tuple, has_aux=has_aux)
        output, vjp_fn = res[0], res[1]
        flat_out, ospec = tree_flatten(output)
        numels = [o.numel() for o in flat_out]
        total = sum(numels)
        eye = torchshim.eye(total, dtype=flat_out[0].dtype if flat_out else None,
                            device=flat_out[0].device if flat_out else None)
        basis, start = [], 0
        for o, n in zip(flat_out, numels):
            basis.append(eye[:, start:start + n].reshape((total,) + tuple(o.shape)).to(o.dtype))
            start += n
        if any(o.requires_grad for o in flat_out):
            # results keep autograd history (an argument requires grad, or inside grad/vjp): one backward per
            # basis row on the tape, stacked (vmap's node would re-run the tape's backward under jax)
            per_row = [tree_flatten(vjp_fn(tree_unflatten([b[r] for b in basis], ospec)))
                       for r in range(total)]
            if total:
                rows = tree_unflatten([torchshim.stack(list(c)) for c in zip(*[p[0] for p in per_row])],
                                      per_row[0][1])
            else:
                rows = vjp_fn(tree_unflatten(basis, ospec))
        else:
            rows = vmap(vjp_fn, chunk_size=chunk_size)(tree_unflatten(basis, ospec))
        flat_rows, rspec = tree_flatten(rows)  # one (total, *input.shape) tensor per input leaf
        per_out = []
        for k, o in enumerate(flat_out):
            s = sum(numels[:k])
            leaves = [r.narrow(0, s, numels[k]).reshape(tuple(o.shape) + tuple(r.shape[1:]))
                      for r in flat_rows]
            per_in = tree_unflatten(leaves, rspec)
            per_out.append(per_in if isinstance(argnums_w, tuple) else per_in[0])
        jac = tree_unflatten(per_out, ospec)
        if has_aux:
            return jac, res[2]
        return jac
    return wrapper
