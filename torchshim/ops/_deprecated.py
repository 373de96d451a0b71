"""The deprecated positional overloads PyTorch 2.13 still accepts, with its UserWarning: the scalar factor
given positionally before the tensors,

- `add`/`sub`: `torch.add(input, alpha, other)`, `Tensor.add(alpha, other)`, `Tensor.add_(alpha, other)`;
- `addcmul`/`addcdiv`: `torch.addcmul(input, value, tensor1, tensor2)`, `Tensor.addcmul(_)(value, t1, t2)`;
- `addmm`/`addmv`/`addr`/`addbmm`/`baddbmm`: `torch.addmm(beta, input, alpha, mat1, mat2)`,
  `torch.addmm(beta, input, mat1, mat2)`, `Tensor.addmm(_)(beta, alpha, mat1, mat2)`, `Tensor.addmm(_)(beta,
  mat1, mat2)`.

`wrap(name, f)` (used by `_registry.install`) returns the public function or method `f` also taking these
forms: a call that cannot be the current signature (more positional arguments, or a keyword naming a
positional slot already filled) and that fits a deprecated one is rearranged into the current call (scalars
by keyword) after PyTorch's warning. PyTorch warns once per process for all of them together (one
`TORCH_WARN_ONCE` site), every time under `torch.set_warn_always(True)`; so does torchshim.
"""
import functools
import numbers
import warnings

from .._tensor import Tensor
from .._warnings import is_warn_always_enabled, user_stacklevel

__all__ = ["has", "wrap"]

_WARNED = [False]
_WHERE = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)"
_MM = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
       "addbmm": ("batch1", "batch2"), "baddbmm": ("batch1", "batch2")}
_OPS = frozenset(("add", "sub", "addcmul", "addcdiv", *_MM))
_OUT_DTYPE = ("addmm", "baddbmm")  # their functions also list the out_dtype overload as a replacement


class _Form:
    """One deprecated signature: its parameter names in order (a method's first is `self`), which of them are
    scalars, which may be a Number instead of a Tensor, and the warning's text."""
    __slots__ = ("params", "scalars", "numbers", "message")

    def __init__(self, params, scalars, numbers_ok, message):
        self.params, self.scalars, self.numbers, self.message = params, scalars, numbers_ok, message


def _forms(name, method):
    """The deprecated forms of `name` ('add', 'add_', 'addmm', ...) as a function or as a method."""
    base = name.rstrip("_")

    def sig(params):
        out = [] if method else ["Tensor out = None"] if "*" in params else ["*", "Tensor out = None"]
        return f"{name}({', '.join(params + out)})"

    def form(params, scalars, numbers_ok, old, new):
        message = (f"This overload of {name} is deprecated:\n\t{sig(old)}\nConsider using one of the "
                   "following signatures instead:\n\t" + "\n\t".join(sig(n) for n in new))
        return _Form(params, frozenset(scalars), frozenset(numbers_ok), message)

    first = "self" if method else "input"
    lead = [] if method else ["Tensor input"]
    if base in ("add", "sub"):
        return [form((first, "alpha", "other"), ("alpha",), ("other",),
                     lead + ["Number alpha", "Tensor other"],
                     [lead + ["Tensor other", "*", "Number alpha = 1"]])]
    if base in ("addcmul", "addcdiv"):
        return [form((first, "value", "tensor1", "tensor2"), ("value",), (),
                     lead + ["Number value", "Tensor tensor1", "Tensor tensor2"],
                     [lead + ["Tensor tensor1", "Tensor tensor2", "*", "Number value = 1"]])]
    x, y = _MM[base]
    tensors = [f"Tensor {x}", f"Tensor {y}"]
    new = [lead + tensors + ["*", "Number beta = 1", "Number alpha = 1"]]
    if not method and base in _OUT_DTYPE:
        new.append(lead + tensors + ["torch.dtype out_dtype", "*", "Number beta = 1", "Number alpha = 1"])
    if method:
        return [form(("self", "beta", "alpha", x, y), ("beta", "alpha"), (),
                     ["Number beta", "Number alpha"] + tensors, new),
                form(("self", "beta", x, y), ("beta",), (), ["Number beta"] + tensors, new)]
    # the function forms take beta before the input: their first parameter is the scalar
    return [form(("beta", "input", "alpha", x, y), ("beta", "alpha"), (),
                 ["Number beta", "Tensor input", "Number alpha"] + tensors, new),
            form(("beta", "input", x, y), ("beta",), (), ["Number beta", "Tensor input"] + tensors, new)]


def _scalar(x):
    """A PyTorch Scalar argument's value (a Number, or a 0-dim tensor's item), or None if `x` is not one."""
    if isinstance(x, Tensor):
        return x.item() if x.ndim == 0 else None
    return x if isinstance(x, numbers.Number) else None


def _bind(form, args, kwargs, method):
    """(tensor arguments in order, scalar keywords, other keywords) if the call fits `form`, else None."""
    params = form.params
    if len(args) > len(params):
        return None
    rest = dict(kwargs)
    bound = dict(zip(params, args))
    for p in params[len(args):]:
        if p not in rest:
            return None
        bound[p] = rest.pop(p)
    if any(k != "out" for k in rest) or (method and rest):
        return None
    tensors, scalars = [], {}
    for p in params:
        v = bound[p]
        if p in form.scalars:
            s = _scalar(v)
            if s is None:
                return None
            scalars[p] = s
        elif isinstance(v, Tensor) or p in form.numbers and isinstance(v, numbers.Number):
            tensors.append(v)
        else:
            return None
    return tensors, scalars, rest


def _warn(message):
    if _WARNED[0] and not is_warn_always_enabled():
        return
    _WARNED[0] = True
    warnings.warn(message + _WHERE, UserWarning, stacklevel=user_stacklevel())


def has(name):
    """Whether op `name` has deprecated positional forms."""
    return name.rstrip("_") in _OPS


def wrap(name, f, method=False):
    """`f` (the public function, or with method=True the Tensor method, of op `name`; `name` ends with '_'
    for the in-place method) also accepting PyTorch's deprecated positional forms; `f` itself when the op has
    none."""
    if not has(name):
        return f
    forms = _forms(name, method)
    base = name.rstrip("_")
    current = 2 if base in ("add", "sub") else 3  # positional parameters of the current signature
    names = (("self" if method else "input"),) + (("other",) if current == 2 else
                                                  ("tensor1", "tensor2") if base.startswith("addc")
                                                  else _MM[base])

    filled = [frozenset(names[:i]) for i in range(current + 1)]  # the parameters i positionals fill

    @functools.wraps(f)
    def accepting(*args, **kwargs):
        n = len(args)
        if n > current or kwargs and not filled[n].isdisjoint(kwargs):
            for form in forms:
                hit = _bind(form, args, kwargs, method)
                if hit is not None:
                    _warn(form.message)
                    tensors, scalars, rest = hit
                    return f(*tensors, **scalars, **rest)
        return f(*args, **kwargs)
    return accepting
