"""`torch.func.jvp`, `jacfwd`, `hessian`, `linearize` and `functionalize`.

`jvp` and `linearize` run the function under `jax.jvp` / `jax.linearize` over the facade: it receives
torchshim Tensors whose arrays are jax's tracers, so every op is differentiated forward by jax (and the tape
still works inside, which is how `hessian = jacfwd(jacrev(f))` differentiates reverse mode forward).
`jacfwd` maps `jvp` over the standard basis with `vmap`, as PyTorch does.

Differences from PyTorch:
- The output tangents have the outputs' dtypes (PyTorch keeps a tangent of another floating dtype).
- When primals, tangents or tensors the function captures (module parameters, closures) require grad, the
  call is one node of the tape (`JvpBackward0`), whose backward re-runs the function under jax.
- `functionalize` runs the function as it is: torchshim's in-place ops already write new jax arrays, so the
  values and the mutations of the inputs are the ones PyTorch's functionalized program gives.
"""
import functools

import jax
import jax.numpy as jnp

from .._api import Tensor, is_grad_enabled, no_grad
from .._tensor import fresh
from ..autograd._node import record
from ._capture import Watch, swapped
from ._grad import _slice_argnums
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["jvp", "jacfwd", "hessian", "linearize", "functionalize"]


def _check_primals_tangents(fname, primals, tangents):
    flat_p, pspec = tree_flatten(primals)
    flat_t, tspec = tree_flatten(tangents)
    if pspec != tspec:
        raise RuntimeError(f"{fname}: Expected primals and tangents to have the same python structure. For "
                           "example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           "primals with "
                           f"structure {pspec} and tangents with structure {tspec}")
    for p, t in zip(flat_p, flat_t):
        for x, what in ((p, "primals"), (t, "tangents")):
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{fname}: Expected {what} to be a tuple of Tensors, got {type(x)}")
        if not (p.is_floating_point() or p.is_complex()):
            raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
        if not (t.is_floating_point() or t.is_complex()):
            raise ValueError(f"Expected tangent to be floating point or complex, but got: {t.dtype}")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               "original Tensor, this is not supported. Tensor is of size "
                               f"{list(p.shape)} while the given forward gradient is of size "
                               f"{list(t.shape)}.")
    return flat_p, pspec, flat_t


class _Out:
    spec = None
    metas = None
    aux = None
    watch = None
    captured_grad = False


def _pure(func, fname, flat_p, pspec, has_aux, info):
    """func as a jax function of the primals' arrays -> tuple of output arrays (aux kept in `info`)."""
    def g(*arrays):
        if info.watch is not None and arrays:
            info.watch.level = getattr(arrays[0], "_trace", None)
        ts = [fresh(a, p.dtype, p.device) for a, p in zip(arrays, flat_p)]
        out = func(*tree_unflatten(ts, pspec))
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(f"{fname}: output of function f should be a tuple: (output, aux) if "
                                   f"has_aux "
                                   "is True")
            out, aux = out
            flat_aux, aspec = tree_flatten(aux)
            for a in flat_aux:
                if not isinstance(a, Tensor):
                    raise RuntimeError(f"{fname}: expected f(*primals) to return only tensors as auxiliary "
                                       f"output, got unsupported type {type(a)}")
            info.aux = (aspec, [(a.dtype, a.device) for a in flat_aux])
            aux_arrays = tuple(a._value for a in flat_aux)
        flat_out, ospec = tree_flatten(out)
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{fname}: expected f(*primals) to return only tensors, got "
                                   f"unsupported type "
                                   f"{type(o)}")
        info.spec, info.metas = ospec, [(o.dtype, o.device) for o in flat_out]
        info.captured_grad = any(o.requires_grad for o in flat_out)
        res = tuple(o._value for o in flat_out)
        return (res, aux_arrays) if has_aux else res
    return g


def _wrap_all(arrays, metas):
    return [fresh(a if a.dtype != jax.dtypes.float0 else jnp.zeros(a.shape, d.np), d, dev)
            for a, (d, dev) in zip(arrays, metas)]


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`torch.func.jvp(func, primals, tangents, *, strict=False, has_aux=False)` -> `(output, jvp_out)`
    (`(output, jvp_out, aux)` with `has_aux`): `func(*primals)` and its Jacobian-vector product with
    `tangents` (same structure as `primals`), by forward mode.

    >>> jvp(torchshim.sin, (torchshim.zeros(2),), (torchshim.ones(2),))
    (tensor([0., 0.]), tensor([1., 1.]))
    """
    fname = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{fname}: Expected primals to be a tuple. E.g. it should be valid to call "
                           "f(*primals).")
    if strict:
        raise RuntimeError(f"{fname}: strict=True is not supported.")
    flat_p, pspec, flat_t = _check_primals_tangents(fname, primals, tangents)
    info = _Out()
    g = _pure(func, fname, flat_p, pspec, has_aux, info)
    n = len(flat_p)

    def run(arrays):
        ps, ts = arrays[:n], [t.astype(p.dtype) for t, p in zip(arrays[n:], arrays[:n])]
        r = jax.jvp(g, tuple(ps), tuple(ts), has_aux=has_aux)
        return r
    tensors = list(flat_p) + list(flat_t)
    info.watch = Watch()
    with info.watch:
        r = run([t._value for t in tensors])
    out_arrays, tan_arrays = r[0], r[1]
    outs = _wrap_all(out_arrays, info.metas)
    tans = _wrap_all(tan_arrays, info.metas)
    if is_grad_enabled() and (info.captured_grad or any(t.requires_grad for t in tensors)):
        captured, m = info.watch.tensors, len(tensors)
        picked = [i for i, o in enumerate(outs + tans) if o.dtype.is_floating_point or o.dtype.is_complex]

        def forward(arrs, _picked=tuple(picked)):
            with no_grad(), swapped(captured, arrs[m:]):
                rr = run(arrs[:m])
            flat = tuple(rr[0]) + tuple(rr[1])
            return tuple(flat[i] for i in _picked)
        record("JvpBackward0", tensors + list(captured), [(outs + tans)[i] for i in picked], forward, None)
    output = tree_unflatten(outs, info.spec)
    jvp_out = tree_unflatten(tans, info.spec)
    if has_aux:
        aspec, ametas = info.aux
        return output, jvp_out, tree_unflatten(_wrap_all(r[2], ametas), aspec)
    return output, jvp_out


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """`torch.func.jacfwd(func, argnums=0, has_aux=False, *, randomness='error')`: a function returning the
    Jacobian of `func` w.r.t. the arguments `argnums` by forward mode (`jvp` mapped over the standard basis
    with `vmap`, whose `randomness` it takes): per output a tensor of shape `output.shape + input.shape`.

    >>> jacfwd(torchshim.sin)(torchshim.zeros(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    from ._vmap import vmap

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .. import _api as torchshim
        diff, argnums_w = _slice_argnums(args, argnums)
        tuple_arg = isinstance(argnums_w, tuple)
        diff_tuple = diff if tuple_arg else (diff,)
        idx = argnums_w if tuple_arg else (argnums_w,)
        flat_d, dspec = tree_flatten(diff_tuple)
        for x in flat_d:
            if not isinstance(x, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        numels = [x.numel() for x in flat_d]
        total = sum(numels)

        def f_diff(*dargs):
            pos = dict(zip(idx, dargs))
            return func(*(pos.get(i, a) for i, a in enumerate(args)), **kwargs)

        eye = torchshim.eye(total, dtype=flat_d[0].dtype, device=flat_d[0].device)
        basis, start = [], 0
        for x, n in zip(flat_d, numels):
            basis.append(eye[:, start:start + n].reshape((total,) + tuple(x.shape)).to(x.dtype))
            start += n
        basis_tree = tree_unflatten(basis, dspec)

        def push(tangents):
            r = jvp(f_diff, diff_tuple, tangents, has_aux=has_aux)
            return (r[1], r[2]) if has_aux else r[1]
        if has_aux:
            out_t, aux = vmap(push, randomness=randomness, out_dims=(0, None))(basis_tree)
        else:
            out_t = vmap(push, randomness=randomness)(basis_tree)
        flat_ot, ospec = tree_flatten(out_t)  # each (total, *output.shape)
        per_out = []
        for ot in flat_ot:
            oshape = tuple(ot.shape[1:])
            leaves, s = [], 0
            for x, n in zip(flat_d, numels):
                piece = ot.narrow(0, s, n).movedim(0, -1) if n else ot.narrow(0, s, 0).movedim(0, -1)
                leaves.append(piece.reshape(oshape + tuple(x.shape)))
                s += n
            per_in = tree_unflatten(leaves, dspec)
            per_out.append(per_in if tuple_arg else per_in[0])
        jac = tree_unflatten(per_out, ospec)
        if has_aux:
            return jac, aux
        return jac
    return wrapper


def hessian(func, argnums=0):
    """`torch.func.hessian(func, argnums=0)`: `jacfwd(jacrev(func, argnums), argnums)`, the Hessian of a
    function with a scalar output (shape `input.shape + input.shape`)."""
    from ._grad import jacrev
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """`torch.func.linearize(func, *primals)` -> `(output, jvp_fn)`: `func(*primals)` and a function
    computing its Jacobian-vector product at `primals` for new tangents, `jvp_fn(*tangents)`, without
    re-running `func`'s Python code (jax.linearize)."""
    fname = "linearize(func, *primals)"
    flat_p, pspec = tree_flatten(primals)
    for p in flat_p:
        if not isinstance(p, Tensor):
            raise RuntimeError(f"{fname}: Expected primals to be a tuple of Tensors, got {type(p)}")
    info = _Out()
    g = _pure(func, "linearize(func, *primals)", flat_p, pspec, False, info)
    with no_grad():
        out_arrays, lin = jax.linearize(g, *[p._value for p in flat_p])
    output = tree_unflatten(_wrap_all(out_arrays, info.metas), info.spec)

    def jvp_fn(*tangents):
        """The Jacobian-vector product at the linearization point; tangents shaped like the primals."""
        flat_t, tspec = tree_flatten(tangents)
        if tspec != pspec:
            raise RuntimeError(f"Expected the tangents to have the same structure as the primals: got "
                               f"{tspec} and {pspec}")
        for i, (t, p) in enumerate(zip(flat_t, flat_p)):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"{fname}: expected tangents to be Tensors, got {type(t)}")
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                                   f"shape {p.shape} of the corresponding primal.")
        res = lin(*[t._value.astype(p._value.dtype) for t, p in zip(flat_t, flat_p)])
        return tree_unflatten(_wrap_all(res, info.metas), info.spec)
    return output, jvp_fn


def functionalize(func, *, remove="mutations"):
    """`torch.func.functionalize(func, *, remove='mutations')`: `func` with mutations removed from its
    program. torchshim's in-place ops already produce new jax arrays, so this runs `func` itself (same values,
    same mutations of the inputs as the functionalized program copies back)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove="
                           f"{remove}. Valid options are:\n     remove='mutations': all inplace and out= "
                           "operators will be removed from the program, and replaced with their out-of-place "
                           "equivalents.\n     remove='mutations_and_views': In addition to the above, all "
                           "aliasing operators {view} will be replaced with their non-aliasing counterparts, "
                           "{view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped
