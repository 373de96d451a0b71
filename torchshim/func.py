"""`torch.func`: `functional_call`, `stack_module_state`, and `grad` / `grad_and_value` built on torchshim's
eager autograd.

Differences from PyTorch:
- `grad` / `grad_and_value` are not functorch transforms (no levels): they differentiate with
  `torchshim.autograd.grad` and return PyTorch's values. The results keep autograd history (so an outer
  `grad`, `backward` or `autograd.grad` can differentiate them again) when an argument requires grad or when
  called inside another `grad`; otherwise they are detached, as in PyTorch. Not composable with `vmap`.
- `vmap`, `jacrev`, `jacfwd`, `hessian`, `jvp`, `vjp`, `linearize`, `functionalize` are not provided (for
  Jacobians and Hessians see `torchshim.autograd.functional`).
"""
import functools

import jax

from ._tensor import Tensor
from .autograd.engine_api import grad as _autograd_grad
from .autograd.grad_mode import enable_grad
from .nn.utils.stateless import _functional_call

__all__ = ["functional_call", "stack_module_state", "grad", "grad_and_value"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """`torch.func.functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
    tie_weights=True, strict=False)`: call `module(*args, **kwargs)` with its parameters and buffers replaced
    by the given ones (a dict by dotted name, or a sequence of dicts with distinct keys); the module is left
    unchanged. `tie_weights`: a value given for one of several tied names applies to all of them. `strict`:
    the names must be exactly the module's parameters and buffers.

    >>> m = torchshim.nn.Linear(2, 1)
    >>> functional_call(m, {"weight": torchshim.ones(1, 2), "bias": torchshim.zeros(1)}, torchshim.ones(1, 2))
    tensor([[2.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        all_keys_counter = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                all_keys_counter[k] = all_keys_counter.get(k, 0) + 1
        repeated_keys = [key for key, n in all_keys_counter.items() if n > 1]
        if len(repeated_keys) > 0:
            raise ValueError(f"{repeated_keys} appeared in multiple dictionaries; behavior of functional "
                             f"call is "
                             "ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
                         "got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _construct_stacked_leaf(tensors, name):
    from . import _api as torchshim
    all_requires_grad = all(t.requires_grad for t in tensors)
    none_requires_grad = all(not t.requires_grad for t in tensors)
    if not all_requires_grad and not none_requires_grad:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = torchshim.stack(tensors)
    if all_requires_grad:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """`torch.func.stack_module_state(models) -> (params, buffers)`: each parameter and buffer of the (same
    class, same mode) models stacked along a new dim 0, by name; stacked parameters are new leaves."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    model0_typ = type(models[0])
    if not all(type(m) is model0_typ for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {k: _construct_stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {k: _construct_stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


# ---- grad --------------------------------------------------------------------------------------------------
_nesting = 0  # how many grad transforms are running (inside one, results must keep their history)


def _tree_flatten(tree):
    return jax.tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, Tensor))


def _tree_map(fn, tree):
    return jax.tree_util.tree_map(fn, tree, is_leaf=lambda x: isinstance(x, Tensor))


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
    from . import _api as torchshim
    global _nesting
    diff_args, argnums = _slice_argnums(args, argnums)
    outer = _nesting > 0 or any(isinstance(t, Tensor) and t.requires_grad
                                for t in _tree_flatten((args, kwargs))[0])
    _nesting += 1
    try:
        with enable_grad():
            flat_diff, spec = _tree_flatten(diff_args)
            flat_inner = [_differentiable(x) for x in flat_diff]
            inner = jax.tree_util.tree_unflatten(spec, flat_inner)
            if isinstance(argnums, int):
                args = tuple(inner if i == argnums else a for i, a in enumerate(args))
            else:
                pos = dict(zip(argnums, inner))
                args = tuple(pos.get(i, a) for i, a in enumerate(args))
            output = func(*args, **kwargs)
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
            for leaf in _tree_flatten(aux)[0]:
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
    grad_input = jax.tree_util.tree_unflatten(spec, grads)
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
