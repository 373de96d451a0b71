"""`torch.func.vmap` (also `torch.vmap`) through `jax.vmap` over the facade.

The function receives torchshim Tensors whose jax arrays are jax's batch tracers, so every op sees (and
`.shape` / `.size()` / `.dim()` report) the per-example shapes; ops already run under jax tracing. Nested
vmaps nest `jax.vmap`; `grad`, `vjp`, `jacrev` (the eager tape) and `jvp`/`jacfwd` (jax.jvp) work inside.

Differences from PyTorch:
- In-place writes into the arguments reach the caller's tensors (written back when the call ends), and a
  batched value written into an unbatched argument raises PyTorch's error; a batched value written into a
  tensor made inside the function broadcasts it (PyTorch raises), and writing into a tensor captured from
  outside the function (not an argument) is not detected and must not be done (it would leave jax tracers
  in that tensor).
- When arguments, or tensors the function captures from outside (module parameters, closures), require grad,
  the whole vmapped call is one node of the tape (`VmapBackward0`, PyTorch shows the last op's node); its
  backward re-runs the function under `jax.vjp`.
- randomness='different' gives each example its own key (the numbers differ from PyTorch's, as all of
  torchshim's random streams do).
"""
import functools

import jax
import jax.numpy as jnp

from .._api import Tensor, is_grad_enabled, no_grad
from .. import _random
from ..autograd._node import record
from ._capture import Watch, swapped
from ._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["vmap"]

_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() "
         "on a Tensor, please try to rewrite what you're doing with other operations. If error is occurring "
         "somewhere inside PyTorch internals, please file a bug report.")
_CONTROL = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We "
            "don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")
_RANDOM = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
           "'different' randomness flags on vmap or perform the randomness operation out of vmap")
_DYNAMIC = ("vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap "
            "over "
            "{}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature.")


def _get_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`torch.func.vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None)` (also
    `torch.vmap`): `func` mapped over dimension `in_dims` of its arguments (an int for all, or a tuple or
    pytree of ints and None matching the positional arguments; keyword arguments are not mapped), results
    stacked at `out_dims` (int, None for unbatched outputs, or a pytree matching the outputs). randomness:
    'error' (a random op raises), 'different' (each example draws its own numbers), 'same' (one draw shared
    by all).
    chunk_size: map that many examples at a time.

    >>> vmap(torchshim.dot)(torchshim.ones(2, 3), torchshim.ones(2, 3))
    tensor([3., 3.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _flat_in_dims(func, in_dims, args):
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: "
                         f"{type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         f"the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but "
                         f"inputs "
                         f"has structure {spec}.")
    for arg, d in zip(flat_args, flat_dims):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                             f"input but "
                             "in_dim must be either an integer dimension or None.")
        if d is not None and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                             f"input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                             f"input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected "
                             f"in_dim to "
                             f"satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
    flat_dims = [None if d is None else d % a.dim() for a, d in zip(flat_args, flat_dims)]
    sizes = [a.shape[d] for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got "
                         f"sizes {sizes} for the mapped dimension")
    return flat_args, flat_dims, spec, sizes[0]


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    flat_args, flat_dims, spec, batch = _flat_in_dims(func, in_dims, args)
    if chunk_size is None or chunk_size >= batch:
        return _vmap_run(func, flat_args, flat_dims, spec, batch, out_dims, randomness, kwargs)
    # chunks: split every mapped argument, run each chunk, concatenate the mapped outputs
    from .._api import cat
    results = []
    for start in range(0, batch, chunk_size):
        n = min(chunk_size, batch - start)
        part = [a.narrow(d, start, n) if d is not None else a for a, d in zip(flat_args, flat_dims)]
        results.append(_vmap_run(func, part, flat_dims, spec, n, out_dims, randomness, kwargs,
                                 flat_out=True))
    leaves0, ospec, odims = results[0]
    out = []
    for i, d in enumerate(odims):
        if d is None:
            out.append(leaves0[i])
        else:
            out.append(cat([r[0][i] for r in results], d))
    return tree_unflatten(out, ospec)


class _Info:
    """What the traced call found out: output structure, torch dtypes and devices, batchedness, Python
    (non-Tensor) outputs."""
    spec = None
    metas = None
    py = None
    batched = None
    mutated = ()
    captured_grad = False  # an output requires grad: it depends on a captured tensor that requires grad


def _batched_here(arr, level_trace):
    """Whether jax array `arr` is batched by the vmap whose trace is `level_trace`."""
    from jax._src.interpreters import batching
    return (isinstance(arr, batching.BatchTracer) and arr._trace is level_trace
            and isinstance(arr.batch_dim, int))


def _vmap_run(func, flat_args, flat_dims, spec, batch, out_dims, randomness, kwargs, flat_out=False):
    name = _get_name(func)
    tpos = [i for i, a in enumerate(flat_args) if isinstance(a, Tensor)]
    tensors = [flat_args[i] for i in tpos]
    axes = [flat_dims[i] for i in tpos]
    first = axes.index(next(d for d in axes if d is not None))
    info = _Info()
    watch = Watch()

    def inner(arrays, index):
        level = arrays[first]._trace
        watch.level = level
        leaves = list(flat_args)
        wrappers = [_fresh(a, t.dtype, t.device) for t, a in zip(tensors, arrays)]
        for i, w in zip(tpos, wrappers):
            leaves[i] = w
        hook = _draw_hook(randomness, index)
        _random.draw_hooks.append(hook)
        try:
            out = func(*tree_unflatten(leaves, spec), **kwargs)
        finally:
            _random.draw_hooks.remove(hook)
        outs, ospec = tree_flatten(out)
        odims = _flat_out_dims(name, out_dims, ospec)
        info.spec, info.odims, info.py, info.metas = ospec, odims, {}, []
        res = []
        for k, (o, d) in enumerate(zip(outs, odims)):
            if not isinstance(o, Tensor):
                if d is None:
                    info.py[k] = o
                    continue
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. "
                                 "Did you mean to set out_dims= to None for output?")
            v = o._value
            if d is None and _batched_here(v, level):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                                 f"out_dim is "
                                 "None")
            info.captured_grad = info.captured_grad or o.requires_grad
            info.metas.append((o.dtype, o.device, o.dim()))
            res.append(v)
        info.mutated = []  # arguments written in place: their new values go back to the caller's tensors
        for k, (w, d) in enumerate(zip(wrappers, axes)):
            if w._vc.value:
                v = w._value
                if d is None and _batched_here(v, level):
                    raise RuntimeError(f"output with shape {list(w.shape)} doesn't match the broadcast shape "
                                       f"{[batch] + list(w.shape)}")
                info.mutated.append(k)
                res.append(v)
        return tuple(res)

    index = jnp.arange(batch, dtype=jnp.uint32)
    vf = jax.vmap(inner, in_axes=(list(axes), 0 if randomness == "different" else None), out_axes=0,
                  axis_size=batch)

    try:
        with watch:
            arrays_out = vf([t._value for t in tensors], index)
    except (jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError,
            jax.errors.TracerArrayConversionError, jax.errors.TracerIntegerConversionError) as e:
        raise RuntimeError(_CONTROL if _in_bool(e) else _ITEM) from None
    except jax.errors.NonConcreteBooleanIndexError:
        raise RuntimeError(_DYNAMIC.format("a boolean mask index")) from None
    except RuntimeError as e:
        if _innermost(e) == ("_tensor.py", "item"):  # PyTorch's vmap check comes before the element count's
            raise RuntimeError(_ITEM) from None
        raise
    n_out = len(info.metas)
    for j, k in enumerate(info.mutated):  # in-place writes to the arguments, as PyTorch's vmap makes them
        t, d = tensors[k], axes[k]
        t._assign_from(_fresh(_place(arrays_out[n_out + j], d, batch), t.dtype, t.device), "copy_")
    outs, results, k = [], [], 0
    for i, d in enumerate(info.odims):
        if i in info.py:
            outs.append(info.py[i])
            continue
        dtype, dev, ndim = info.metas[k]
        a = arrays_out[k]
        k += 1
        if d is not None and not -(ndim + 1) <= d <= ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-(ndim + 1)}, {ndim}], "
                             f"but got {d})")
        t = _fresh(_place(a, d, batch), dtype, dev)
        outs.append(t)
        results.append(t)
    if is_grad_enabled() and results and (info.captured_grad or any(t.requires_grad for t in tensors)):
        odims = [d for i, d in enumerate(info.odims) if i not in info.py]
        _record(vf, tensors, watch.tensors, results, odims, index, batch)
    if flat_out:
        return outs, info.spec, info.odims
    return tree_unflatten(outs, info.spec)


def _record(vf, tensors, captured, results, odims, index, batch):
    """The vmapped call as one tape node over its tensor arguments and the captured tensors."""
    wanted = tuple(i for i, t in enumerate(results) if t.dtype.is_floating_point or t.dtype.is_complex)
    n = len(tensors)

    def node_forward(arrays):
        with no_grad(), swapped(captured, arrays[n:]):
            res = vf(list(arrays[:n]), index)
        return tuple(_place(res[i], odims[i], batch) for i in wanted)
    record("VmapBackward0", list(tensors) + list(captured), [results[i] for i in wanted], node_forward, None)


def _place(a, d, batch):
    """A vmapped output (batch first) with its batch dim moved to `d` (None: one example's value)."""
    if d is None:
        return a[0] if batch else jnp.zeros(a.shape[1:], a.dtype)
    return jnp.moveaxis(a, 0, d)


def _fresh(a, dtype, device):
    from .._tensor import fresh
    return fresh(a, dtype, device)


def _flat_out_dims(name, out_dims, ospec):
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))):
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                         f"python "
                         "collection of ints representing where in the outputs the vmapped dimension should "
                         "appear.")
    flat = broadcast_to_and_flatten(out_dims, ospec)
    if flat is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
                         f"outputs has structure {ospec}.")
    return flat


def _in_bool(e):
    """Whether the tracer error came from `bool(tensor)` (data-dependent control flow), not `.item()`."""
    tb = e.__traceback__
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return isinstance(e, jax.errors.TracerBoolConversionError) or "__bool__" in names


def _innermost(e):
    """(file name, function name) of the frame that raised `e`."""
    tb = e.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return code.co_filename.rsplit("/", 1)[-1], code.co_name


def _draw_hook(randomness, index):
    if randomness == "error":
        def hook(r):
            raise RuntimeError(_RANDOM)
    elif randomness == "same":
        def hook(r):
            return r
    else:
        def hook(r):
            raw, n = r
            key = jax.random.fold_in(jax.random.wrap_key_data(jnp.asarray(raw), impl="threefry2x32"), index)
            return jax.random.key_data(key), n
    return hook

