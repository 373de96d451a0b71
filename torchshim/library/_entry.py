"""One operator overload defined through `torch.library` (a custom op or a `Library.define`d op) and how a
call of it runs: argument check against its schema, the kernel for the inputs' device, autograd, tracing.

- Autograd: a backward registered with `register_autograd` makes the call one node of the tape (an
  `autograd.Function` named `GeneratedBackwardFor_<ns>_<op>_<overload>`, as PyTorch); a custom op without one
  gets a node whose backward raises PyTorch's "no autograd formula was registered"; a `Library` op without one
  runs its kernel with autograd on (its inner ops are recorded, as PyTorch's fallthrough does, without
  PyTorch's deprecation warning at backward).
- Tracing (`torch.func.vmap`, `jax.jit` over the facade: the inputs hold jax tracers): an op with a fake
  implementation (`register_fake`, or a `Meta` kernel) is opaque, as in `torch.compile`: the fake gives the
  output shapes and dtypes, and the real kernel runs on concrete values through `jax.pure_callback` (under
  vmap once per example, as PyTorch's vmap fallback). Without one, the kernel runs on the traced tensors,
  and a kernel that reads data (`.numpy()`, `.item()`) raises an error that names `register_fake`.
"""
import threading

import jax
import numpy as np

from .. import _api as torch
from ..autograd.function import Function

__all__ = ["OpEntry", "get_ctx"]

_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}
_TRACE_ERRORS = (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError,
                 jax.errors.TracerIntegerConversionError)
_STATE = threading.local()


class FakeImplCtx:
    """`torch._library.fake_impl.FakeImplCtx`: what `get_ctx()` returns inside a fake implementation."""

    def new_dynamic_size(self, *, min=0, max=None):
        raise RuntimeError("torchshim: ctx.new_dynamic_size(): an output whose size depends on the input "
                           "data cannot be traced by jax (jax.jit and torch.func.vmap need static shapes)")

    create_unbacked_symint = new_dynamic_size


def get_ctx():
    """`torch.library.get_ctx()`: the FakeImplCtx inside a fake implementation, None elsewhere."""
    return getattr(_STATE, "ctx", None)


class OpEntry:
    """An overload's registrations: `kernels` (device type 'cpu'/'cuda' or None for every device ->
    function), `fake`, `autograd_kernel` (Library.impl(..., 'Autograd')), `backward`/`setup_context`."""

    def __init__(self, schema, custom, fn_name=None):
        self.schema, self.custom, self.fn_name = schema, custom, fn_name
        self.qualname = schema.name
        self.overload = schema.overload_name or "default"
        self.kernels, self.fake, self.autograd_kernel = {}, None, None
        self.backward = self.setup_context = None
        self._function = None
        self.opoverload = None  # set by the definer (ops/_namespace.define)

    @property
    def dotted(self):
        return self.qualname.replace("::", ".") + "." + self.overload

    # ----- the call --------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        values = self.schema.bind(args, kwargs)
        below = getattr(_STATE, "below_autograd", None)
        if below is None:
            below = _STATE.below_autograd = set()
        if self.autograd_kernel is not None and self not in below:
            # the Autograd kernel's own call of the op runs below it (PyTorch's redispatch)
            below.add(self)
            try:
                return self.autograd_kernel(*args, **kwargs)
            finally:
                below.discard(self)
        flat = _tensors(values)
        wants_grad = torch.is_grad_enabled() and any(t.requires_grad for t in flat)
        if wants_grad and (self.backward is not None or self.custom):
            layout = tuple(len(v) if _is_tensor_list(v) else None for v in values)
            return self._autograd_function().apply(*_flatten(values), layout)
        if self.custom:
            with torch.no_grad():
                return self._run(values)
        return self._run(values)

    def _kernel(self, values):
        tensors = _tensors(values)
        dev = tensors[0].device.type if tensors else "cpu"
        fn = self.kernels.get(dev, self.kernels.get(None))
        if fn is None:
            key = _DEVICE_KEYS.get(dev, dev.upper())
            have = [_DEVICE_KEYS.get(k, str(k).upper()) for k in self.kernels if k is not None]
            have += ["Meta"] if self.fake is not None else []
            qual = self.qualname + ("" if self.overload == "default" else "." + self.overload)
            raise NotImplementedError(
                f"Could not run '{qual}' with arguments from the '{key}' backend. This could be because "
                "the operator doesn't exist for this backend, or was omitted during the selective/custom "
                "build process (if using custom build). If you are a Facebook employee using PyTorch on "
                "mobile, please visit https://fburl.com/ptmfixes for possible resolutions. "
                f"'{qual}' is only available "
                f"for these backends: [{', '.join(have)}].")
        return fn

    def _split(self, values):
        pos, kw = [], {}
        for a, v in zip(self.schema.arguments, values):
            if a.kwarg_only:
                kw[a.name] = v
            else:
                pos.append(v)
        return pos, kw

    def _run(self, values):
        """The kernel's result for `values` (checked against the schema's returns), traced or not."""
        fn = self._kernel(values)
        if self.custom:  # a custom op's kernel runs below autograd: its inputs don't require grad
            values = _replace(values, {id(t): t.detach() for t in _tensors(values)})
        pos, kw = self._split(values)
        traced = any(isinstance(t._value, jax.core.Tracer) for t in _tensors(values))
        if traced and self.fake is not None:
            return self._callback(fn, values)
        try:
            out = fn(*pos, **kw)
        except _TRACE_ERRORS as e:
            if not traced:
                raise
            raise RuntimeError(
                f"{self.qualname}: its implementation reads the data of a traced tensor ({type(e).__name__}) "
                "under jax tracing (torch.func.vmap, jax.jit). Register a fake implementation with "
                f"torch.library.register_fake(\"{self.qualname}\") (shapes and dtypes of the outputs from "
                "those of the inputs) so that torchshim runs the implementation outside the trace "
                "(jax.pure_callback).") from e
        self._check_returns(out, values)
        for a, v in zip(self.schema.arguments, values):
            if a.is_write:
                for t in _tensors([v]):
                    t._vc.value += 1  # PyTorch bumps a declared mutated input's version once more
        return out

    def _check_returns(self, out, values):
        rets = self.schema.returns
        if not rets:
            if out is not None:
                raise RuntimeError(f"Expected PythonKernelHolder for {self.qualname} to return None but it "
                                   "returned something else instead.")
            return
        outs = [out] if len(rets) == 1 else out
        if len(rets) > 1 and not isinstance(out, (tuple, list)):
            raise TypeError(f"Object of type '{type(out).__name__}' is not an instance of 'sequence'")
        for r, o in zip(rets, outs):
            if r.type.base == "Tensor" and r.type.list_size is None and not isinstance(o, torch.Tensor) \
                    and not (o is None and r.type.optional):
                raise RuntimeError(f"Unable to cast {o!r} to Tensor")
        if self.custom:
            self._check_aliases(_tensors(list(outs)), _tensors(values))

    def _check_aliases(self, outs, ins):
        storages = [t._storage for t in ins]
        seen = []
        for o in outs:
            if any(o._storage is s for s in storages) or any(o._storage is s for s in seen):
                raise RuntimeError(
                    f"{self.fn_name} (with implementation in <module 'torch._library.custom_ops'>): The "
                    "output of this custom operator (1) must not also be an input to this custom operator "
                    "and (2) may not alias any inputs to this custom operator or other returns. The most "
                    "common way to trigger this error is if we have y = custom_op(x) and y and x are the "
                    "same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. "
                    "return x.clone()) or refactor the custom operator to not return y.")
            seen.append(o._storage)

    # ----- tracing: the fake gives the shapes, the kernel runs on the host ---------------------------------
    def _callback(self, fn, values):
        pos, kw = self._split(values)
        _STATE.ctx = FakeImplCtx()
        try:
            fake_out = self.fake(*pos, **kw)
        finally:
            _STATE.ctx = None
        none = not self.schema.returns
        single = not none and not isinstance(fake_out, (tuple, list))
        fake_outs = [] if none else [fake_out] if single else list(fake_out)
        if not all(isinstance(o, torch.Tensor) for o in fake_outs):
            raise RuntimeError(f"{self.qualname}: under jax tracing torchshim runs custom ops whose "
                               "outputs are all tensors (the fake implementation returned something else)")
        ins = _tensors(values)
        mutated = [t for a, v in zip(self.schema.arguments, values) if a.is_write for t in _tensors([v])]
        shapes = tuple(jax.ShapeDtypeStruct(tuple(o.shape), o._value.dtype) for o in fake_outs) + \
            tuple(jax.ShapeDtypeStruct(tuple(t.shape), t._value.dtype) for t in mutated)
        where = [[i for i, x in enumerate(ins) if x is t][0] for t in mutated]

        def host(*arrays):
            real = [torch.from_numpy(np.array(a)) for a in arrays]
            swap = {id(t): r for t, r in zip(ins, real)}
            vals = _replace(values, swap)
            p, k = self._split(vals)
            with torch.no_grad():
                out = fn(*p, **k)
            self._check_returns(out, vals)
            outs = [] if none else [out] if single else list(out)
            res = [np.asarray(o.detach().numpy(), dtype=s.dtype) for o, s in zip(outs, shapes)]
            return tuple(res) + tuple(np.asarray(real[i].numpy()) for i in where)

        arrays = jax.pure_callback(host, shapes, *[t._value for t in ins], vmap_method="sequential")
        from .._tensor import fresh
        results = [fresh(a, o.dtype, o.device) for a, o in zip(arrays, fake_outs)]
        for t, a in zip(mutated, arrays[len(fake_outs):]):
            t._write(a)
        return None if none else results[0] if single else tuple(results)

    # ----- autograd -----------------------------------------------------------------------------------------
    def _autograd_function(self):
        if self._function is None:
            entry = self
            name = f"GeneratedBackwardFor_{self.qualname.replace('::', '_')}_{self.overload}"

            def forward(*flat):
                return entry._run(_unflatten(flat[-1], flat[:-1]))

            def setup_context(ctx, inputs, output):
                # ctx.needs_input_grad: one per argument (per tensor of a list argument), then the layout's
                layout = ctx._library_layout = inputs[-1]
                if entry.setup_context is not None:
                    values = _unflatten(layout, inputs[:-1])
                    kw = {a.name: v for a, v in zip(entry.schema.arguments, values) if a.kwarg_only}
                    pos = tuple(v for a, v in zip(entry.schema.arguments, values) if not a.kwarg_only)
                    if kw:  # PyTorch passes keyword-only arguments apart
                        entry.setup_context(ctx=ctx, inputs=pos, keyword_only_inputs=kw, output=output)
                    else:
                        entry.setup_context(ctx=ctx, inputs=pos, output=output)

            def backward(ctx, *grads):
                return entry._backward(ctx, grads)

            self._function = type(name, (Function,), {"forward": staticmethod(forward),
                                                      "setup_context": staticmethod(setup_context),
                                                      "backward": staticmethod(backward)})
        return self._function

    def _backward(self, ctx, grads):
        n = sum(not a.kwarg_only for a in self.schema.arguments)  # kwarg-only args get no gradient
        cls = f"GeneratedBackwardFor_{self.qualname.replace('::', '_')}_{self.overload}Backward"
        if self.backward is None:
            raise RuntimeError(f"Trying to backward through {self.dotted} but no autograd formula was "
                               "registered. Please use register_autograd to add one.")
        result = self.backward(ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) == n + 1 and result[-1] is None:
            result = result[:-1]  # PyTorch tolerates one more (None) gradient
        if len(result) != n:
            raise RuntimeError(f"function {cls} returned an incorrect number of gradients (expected {n + 1}, "
                               f"got {len(result) + 1})")
        flat = []
        for i, (a, g) in enumerate(zip(self.schema.arguments, result)):
            if a.type.base != "Tensor":
                if g is not None:
                    raise RuntimeError(f"function {cls} returned a gradient different than None at position "
                                       f"{i + 1}, but the corresponding forward input was not a Variable")
                flat.append(None)
            elif a.type.list_size is not None and ctx._library_layout[i] is not None:
                k = ctx._library_layout[i]
                gs = list(g) if g is not None else [None] * k
                flat.extend(gs + [None] * (k - len(gs)))
            else:
                flat.append(g)
        flat += [None] * (len(self.schema.arguments) - n)  # the kwarg-only arguments
        return tuple(flat) + (None,)  # the layout argument


def _tensors(values):
    out = []
    for v in values:
        if isinstance(v, torch.Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(x for x in v if isinstance(x, torch.Tensor))
    return out


def _replace(values, swap):
    out = []
    for v in values:
        if isinstance(v, torch.Tensor):
            out.append(swap.get(id(v), v))
        elif isinstance(v, (list, tuple)):
            out.append(type(v)(swap.get(id(x), x) if isinstance(x, torch.Tensor) else x for x in v))
        else:
            out.append(v)
    return out


def _is_tensor_list(v):
    return isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in v)


def _flatten(values):
    """The values with each list of tensors spread out (one autograd edge per tensor)."""
    flat = []
    for v in values:
        if _is_tensor_list(v):
            flat.extend(v)
        else:
            flat.append(v)
    return flat


def _unflatten(layout, flat):
    """`_flatten`'s inverse: `layout` has, per argument, None or the length of its list of tensors."""
    out, i = [], 0
    for k in layout:
        if k is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(list(flat[i:i + k]))
            i += k
    return out
