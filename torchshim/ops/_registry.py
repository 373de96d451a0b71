"""The one table of ops. Each op is registered once; its variants are generated from the entry:

- `torchshim.<name>` (with `out=` when `out=True`),
- `Tensor.<name>` (when `method=True`),
- `Tensor.<name>_` (when `inplace=True`: compute out of place, check shape/dtype like PyTorch, write back),
- Python operators named in `operators` (`__add__`, reflected `__radd__`, in-place `__iadd__`),
- `torchshim.nn.functional.<name>` (when `functional=True`; `function=False, functional=True` for the
  functions PyTorch has only in `torch.nn.functional`),
- `torchshim.<name>_` (when `inplace_function=True`: `torch.relu_`, `torch.dropout_`, ...; then
  `Tensor.<name>_` only when `method=True`).

Ops of kind "composite" record no node of their own: their front function calls differentiable ops (or
draws random numbers and then does), which record the history (`dropout`, `batch_norm` with its running-stat
update).

Registering a name (or alias, or generated variant name) twice raises at import.

`install()` also attaches the Tensor methods that are not table ops (`_methods.METHODS`: `to`, `__repr__`,
`backward`, `grad_fn`, `T`, ...), so every attribute of Tensor beyond its data comes from this one installer.
"""
import functools
import warnings

from .. import _tensor_str  # noqa: F401  (registers Tensor.__repr__)
from .._methods import METHODS
from .._promotion import can_cast, short_name
from .._tensor import Tensor, check_inplace_result
from ..autograd import _tensor_api  # noqa: F401  (registers Tensor.backward, grad_fn, ...)
from ..autograd._ops import any_requires_grad, differentiable
from ..autograd.grad_mode import is_grad_enabled
from . import _deprecated
from ._autocast import wrap as autocast_wrap
from ._override import overridable

__all__ = ["register", "OPS", "install", "installed", "records_node"]

OPS = {}  # public name -> OpDef
FUNCTIONAL = {}  # name -> public function, for torchshim.nn.functional (filled by install)
PUBLIC = {}  # name -> the public function `torchshim.<name>` as installed (with autograd and out=)
_TAKEN = set()  # every generated name, to reject duplicates


class OpDef:
    __slots__ = ("name", "fn", "method", "inplace", "out", "aliases", "operators", "function", "kind",
                 "functional", "inplace_function", "grad_name", "saves", "grad_rule")

    def __init__(self, name, fn, method, inplace, out, aliases, operators, function, kind, functional=False,
                 inplace_function=False, grad_name=None, saves=None, grad_rule=None):
        self.name, self.fn, self.method, self.inplace, self.out = name, fn, method, inplace, out
        self.aliases, self.operators, self.function, self.kind = aliases, operators, function, kind
        self.functional, self.inplace_function = functional, inplace_function
        self.grad_name, self.saves, self.grad_rule = grad_name, saves, grad_rule  # None: the default

    def __repr__(self):
        return f"OpDef({self.name})"


def _claim(name):
    if name in _TAKEN:
        raise RuntimeError(f"torchshim op table: '{name}' is registered twice")
    _TAKEN.add(name)


def register(name, *, method=True, inplace=False, out=False, aliases=(), operators=(), function=True,
             kind="other", functional=False, inplace_function=False, grad_name=None, saves=None,
             grad_rule=None):
    """Decorator: register `fn` (PyTorch's signature, works on Tensors) as op `name`.

    functional: also `torchshim.nn.functional.<name>` (and its aliases).
    inplace_function: the in-place variant is also `torchshim.<name>_` (then a Tensor method only with
    method=True).

    inplace: True derives `Tensor.name_` generically; a callable is used as `Tensor.name_` itself.
    out: True adds PyTorch's `out=` keyword; a string also names the function PyTorch's out= error names
    when an argument requires grad (`linalg_cholesky_ex` for `torch.linalg.cholesky`).
    kind: a tag for tests and docs ('pointwise', 'reduction', 'view', 'creation', ...).

    The op's gradient facts (for ops that record a node, `records_node(op)`; see autograd/_ops.py
    `differentiable`). Aliases and the generated in-place variant share them; a callable `inplace` records its
    own node (e.g. `nn_activation.inplace_variant(name, fn, grad_name)` for PyTorch's `EluBackward1`):
    grad_name: the `grad_fn` class name PyTorch shows, a string or callable(args, kwargs) -> str; default
      `<CamelCase(name)>Backward0` (autograd/_names.py `default_grad_name`).
    saves: what PyTorch saves for backward, which decides when an in-place modification of an input is an
      error at backward: 'inputs' (default: tensor inputs, version-checked), 'none' (linear ops and views:
      nothing checked), 'output' (the result), or callable(args, kwargs) -> one of those.
    grad_rule: an explicit rule `rule(saved_arrays, cotangents, mask) -> [gradient of each input where mask]`
      replacing the vjp of the forward; implies saves='output' (saved_arrays = [result]), for ops whose
      PyTorch backward reads the result (the `.data` example of the 0.4 migration guide depends on it). With
      an explicit saves='inputs' the rule gets the saved inputs' arrays instead (for an op whose jax
      derivative differs from PyTorch's convention where the forward can't be written to match).
    """
    def deco(fn):
        for n in (name, *aliases):
            _claim(("fn", n))
        if inplace:
            for n in (name, *aliases):
                _claim(("fn", n + "_"))
        for op in operators:
            _claim(("operator", op))
        OPS[name] = OpDef(name, fn, method, inplace, out, tuple(aliases), tuple(operators), function, kind,
                          functional, inplace_function, grad_name, saves, grad_rule)
        return fn
    return deco


def make_inplace(fn, name):
    """`Tensor.name_` from the out-of-place `fn`: same computation, PyTorch's checks, written into self."""
    def inplace(self, *args, **kwargs):
        result = fn(self, *args, **kwargs)
        check_inplace_result(self, result._dtype, result._shape)
        return self._assign_from(result, name + "_")
    inplace.__name__ = name + "_"
    inplace.__qualname__ = "Tensor." + name + "_"
    inplace.__doc__ = f"In-place version of :meth:`Tensor.{name}`."
    return inplace


def with_out(fn, name):
    """`fn` plus PyTorch's `out=` keyword: dtype must be castable; a wrong shape is resized with a warning."""
    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if is_grad_enabled() and (any_requires_grad(args, kwargs) or any_requires_grad((out,), None)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        result = fn(*args, **kwargs)
        if isinstance(out, (tuple, list)):
            results = result if isinstance(result, tuple) else (result,)
            for o, r in zip(out, results):
                write_out(o, r)
            return type(result)(out) if isinstance(result, tuple) and hasattr(result,
                                                                              "_fields") else tuple(out)
        return write_out(out, result)
    return f


def write_out(out, result):
    """Copy `result` into the tensor `out` as PyTorch's out= does."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if not can_cast(result._dtype, out._dtype):
        raise RuntimeError(f"result type {short_name(result._dtype)} can't be cast to the desired output "
                           f"type {short_name(out._dtype)}")
    if result._shape != out._shape:
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(out._shape)}, "
                f"which does not match the required output shape {list(result._shape)}. This behavior is "
                "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                "elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._resize_storage(result._shape)
    return out._assign_from(result, "out")


def _reflected(fn):
    def r(self, other):
        return fn(other, self)
    return r


def _ioperator(inplace):
    def i(self, other):
        inplace(self, other)
        return self
    return i


_PLAIN_KINDS = ("creation", "random", "composite")


def records_node(op):
    """Whether `install()` wraps op's front function in `differentiable` (then its gradient facts apply).
    In-place functions handle autograd when they write; creation and sampling ops have no gradient; composite
    ops record through the ops they call."""
    inplace_op = op.name.endswith("_") and not op.name.startswith("__")  # not a dunder (__getitem__)
    return not (inplace_op or op.kind in _PLAIN_KINDS and op.name != "complex")


# PyTorch's argument parser takes NumPy's keyword names for these parameters (python_arg_parser's numpy
# compatibility names), in every native function and method: `x.sum(axis=0, keepdims=True)`
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
                "x2": "other"}


def numpy_keywords(fn, name):
    """`fn` also taking PyTorch's NumPy-style keyword aliases (`axis=` for `dim=`, `keepdims=` for `keepdim=`,
    `x`/`a`/`x1` for `input=`, `x2` for `other=`) where its signature has the PyTorch name; giving both
    spellings raises PyTorch's TypeError. Functions without such a parameter are returned as they are."""
    import inspect
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    mapping = {a: c for a, c in _NUMPY_NAMES.items() if c in params and a not in params}
    if not mapping:
        return fn
    keys = frozenset(mapping)

    @functools.wraps(fn)
    def f(*args, **kwargs):
        if kwargs and not keys.isdisjoint(kwargs):
            for alias in keys.intersection(kwargs):
                if mapping[alias] in kwargs:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{alias}'")
                kwargs[mapping[alias]] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return f


def installed(name):
    """The public function `torchshim.<name>` as `install()` built it (autograd recording, `out=`): what an op
    calls when it needs another op with its history, e.g. a Tensor method whose argument order differs."""
    return PUBLIC[name]


def _alias(keyworded, op_name, alias):
    """The public function `torch.<alias>` of op `op_name`: the same call as `torch.<op_name>` (keyword
    aliases, `__torch_function__`, autocast) as a distinct object named `alias`."""
    f = autocast_wrap(op_name, overridable(keyworded))
    f.__name__ = f.__qualname__ = alias
    return f


def install(namespace):
    """Attach every registered op to the module namespace `namespace` and to Tensor, then every method of
    `_methods.METHODS` to Tensor."""
    from ._subclass import wrap_methods
    wrap_methods(METHODS, Tensor)  # methods outside the table go through __torch_function__ too
    for name, value in METHODS.items():
        setattr(Tensor, name, value)
    for op in OPS.values():
        fn = differentiable(op.name, op.fn, grad_name=op.grad_name, saves=op.saves, grad_rule=op.grad_rule,
                            view=op.kind == "view") if records_node(op) else op.fn
        public = with_out(fn, op.out if isinstance(op.out, str) else op.name) if op.out else fn
        functional = public
        kw_fn = numpy_keywords(fn, op.name)  # one wrapper (and one signature read) when there is no out=
        public, fn = (kw_fn if public is fn else numpy_keywords(public, op.name)), kw_fn
        keyworded = public
        # the `__torch_function__` hook (ops/_override.py, for torch.fx's Proxy): function and method distinct
        same = functional is public
        # PyTorch's deprecated positional forms (`torch.add(x, 2, y)`, ops/_deprecated.py; ops without: as is)
        public = _deprecated.wrap(op.name, public)
        public, method = overridable(public), overridable(_deprecated.wrap(op.name, fn, method=True))
        # an alias's method (`Tensor.subtract`) takes the current signature only, as in PyTorch
        alias_method = overridable(fn) if op.aliases and _deprecated.has(op.name) else method
        functional = public if same else overridable(functional)
        method.__torchshim_method__ = alias_method.__torchshim_method__ = op.name
        # autocast's casts (ops/_autocast.py; identity for ops on no autocast list): functions, methods
        public, method, functional, alias_method = (autocast_wrap(op.name, f)
                                                    for f in (public, method, functional, alias_method))
        public.__name__ = public.__qualname__ = op.name  # not the forward's own name (`_addmm`, `range_`)
        ip = None
        if op.inplace:
            ip = op.inplace if callable(op.inplace) and op.inplace is not True else make_inplace(fn, op.name)
            alias_ip, ip = ip, _deprecated.wrap(op.name + "_", ip, method=True)
        for n in (op.name, *op.aliases):
            # an alias is its own function object named as it is called (`torch.arctan.__name__ == "arctan"`,
            # which torch.fx prints), as in PyTorch
            PUBLIC[n] = public if n == op.name else _alias(keyworded, op.name, n)
            if op.function:
                namespace[n] = PUBLIC[n]
            if op.functional:
                FUNCTIONAL[n] = functional
            if op.method:
                setattr(Tensor, n, method if n == op.name else alias_method)
            if ip is not None:
                if op.method or not op.inplace_function:
                    setattr(Tensor, n + "_", ip if n == op.name else alias_ip)
                if op.inplace_function and op.function:
                    namespace[n + "_"] = ip
                    PUBLIC[n + "_"] = ip
                if op.functional:
                    FUNCTIONAL[n + "_"] = ip
        for o in op.operators:
            if o.startswith("__i"):
                setattr(Tensor, o, _ioperator(ip))
            elif o.startswith("__r") and o not in ("__rshift__",):
                setattr(Tensor, o, _reflected(method))
            else:
                setattr(Tensor, o, method)
