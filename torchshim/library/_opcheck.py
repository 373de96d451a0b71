"""`torch.library.opcheck`: run an op defined through torch.library on sample inputs and check its
registrations: schema (undeclared mutation of inputs), autograd registration, fake implementation (shapes and
dtypes of the real outputs), and a traced run (`jax.jit`, what `torch.compile` stands for here) against eager.

Difference from PyTorch: the traced check is a jax.jit run (PyTorch's runs AOTAutograd with dynamic shapes).
"""
import jax

from .. import _api as torch
from ..testing import assert_close
from ._custom_op import CustomOpDef, entry_of

__all__ = ["opcheck", "OpCheckError"]

DEFAULT_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """`torch.testing._internal.optests.generate_tests.OpCheckError`."""


def _clone(v):
    if isinstance(v, torch.Tensor):
        return v.detach().clone().requires_grad_(v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(_clone(x) for x in v)
    return v


def _flat(v):
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for x in v for t in _flat(x)]
    if isinstance(v, dict):
        return [t for x in v.values() for t in _flat(x)]
    return []


def _test_schema(op, entry, args, kwargs):
    a, k = _clone(args), _clone(kwargs)
    before = [t.detach().clone() for t in _flat((a, k))]
    with torch.no_grad():
        op(*a, **k)
    values = entry.schema.bind(tuple(args), dict(kwargs))
    mutable = {id(t) for arg, v in zip(entry.schema.arguments, entry.schema.bind(a, k)) if arg.is_write
               for t in _flat(v)}
    del values
    for t, b in zip(_flat((a, k)), before):
        if id(t) not in mutable and not torch.equal(t.detach(), b):
            raise RuntimeError(f"{entry.qualname}: an input that the schema does not declare mutable was "
                               f"mutated (schema: {entry.schema})")


def _test_autograd_registration(op, entry, args, kwargs):
    if any(t.requires_grad for t in _flat((args, kwargs))) and entry.backward is None and \
            entry.autograd_kernel is None and not entry.custom:
        raise RuntimeError(f"{entry.qualname}: an input requires grad but the op has no autograd "
                           "registration (use torch.library.register_autograd)")


def _test_faketensor(op, entry, args, kwargs):
    if entry.fake is None and entry.custom:
        raise RuntimeError(f"There was no fake impl registered for <CustomOpDef({entry.qualname})>. This is "
                           "necessary for torch.compile/export/fx tracing to work. Please use "
                           f"`{entry.fn_name}.register_fake` to add an fake impl.")
    if entry.fake is None:
        raise RuntimeError(f"{entry.qualname}: no fake implementation was registered "
                           "(torch.library.register_fake)")
    with torch.no_grad():
        real = _flat(op(*_clone(args), **_clone(kwargs)))
        pos, kw = entry._split(entry.schema.bind(_clone(args), _clone(kwargs)))
        fake = _flat(entry.fake(*pos, **kw))
    if [(tuple(t.shape), t.dtype) for t in real] != [(tuple(t.shape), t.dtype) for t in fake]:
        raise RuntimeError(f"{entry.qualname}: the fake implementation's outputs (shapes, dtypes) "
                           f"{[(tuple(t.shape), t.dtype) for t in fake]} differ from the real ones "
                           f"{[(tuple(t.shape), t.dtype) for t in real]}")


def _test_aot_dispatch_dynamic(op, entry, args, kwargs, atol, rtol):
    a, k = _clone(args), _clone(kwargs)
    tensors = _flat((a, k))
    with torch.no_grad():
        expected = _flat(op(*_clone(args), **_clone(kwargs)))

        def run(*arrays):
            from .._tensor import fresh
            swap = {id(t): fresh(x, t.dtype, t.device) for t, x in zip(tensors, arrays)}
            sub = _swap((a, k), swap)
            return [t._value for t in _flat(op(*sub[0], **sub[1]))]

        got = jax.jit(run)(*[t._value for t in tensors])
    for e, g in zip(expected, got):
        assert_close(torch.from_numpy(jax.device_get(g)).to(e.dtype), e, atol=atol, rtol=rtol)


def _swap(v, swap):
    if isinstance(v, torch.Tensor):
        return swap.get(id(v), v)
    if isinstance(v, (list, tuple)):
        return type(v)(_swap(x, swap) for x in v)
    if isinstance(v, dict):
        return {n: _swap(x, swap) for n, x in v.items()}
    return v


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_UTILS, raise_exception=True, atol=None, rtol=None):
    """`torch.library.opcheck(op, args, kwargs=None, *, test_utils=..., raise_exception=True, atol=None,
    rtol=None)` -> {test name: "SUCCESS" or the exception}."""
    kwargs = {} if kwargs is None else kwargs
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    unknown = [t for t in test_utils if t not in DEFAULT_UTILS]
    if unknown:
        raise ValueError(f"test_utils={unknown[0]!r} is not one of {DEFAULT_UTILS}")
    entry = entry_of(op)
    if entry is None:
        raise ValueError(f"opcheck(op, ...): op must be an operator defined with torch.library, got {op!r}")
    target = op._opoverload if isinstance(op, CustomOpDef) else entry.opoverload
    results = {}
    for name in test_utils:
        try:
            if name == "test_aot_dispatch_dynamic":
                _test_aot_dispatch_dynamic(target, entry, args, kwargs, atol, rtol)
            else:
                globals()["_" + name](target, entry, args, kwargs)
            results[name] = "SUCCESS"
        except Exception as e:
            if raise_exception:
                what = str(e) if str(e).startswith("There was no fake impl") else entry.dotted
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {what} (scroll up for stack "
                                   "trace)") from e
            results[name] = e
    return results
