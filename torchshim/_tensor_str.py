"""Tensor printing: `repr(t)` / `str(t)` and `set_printoptions`, a port of PyTorch 2.13's
torch/_tensor_str.py.

Printing is allowed one host round-trip: the tensor's contents are copied to numpy once
(`np.asarray(t._value)`), real floating dtypes are widened to float64 and complex ones to complex128 (exact,
so the formatted digits are those PyTorch prints via `Tensor.item()` / `tolist()`), and everything below works
on numpy arrays. The formatter (int mode, scientific mode, column width) is computed over the summarised
elements like PyTorch's.

Differences from PyTorch: sparse, quantized, nested, meta, functorch-wrapped tensors and forward-AD tangents
are not supported (torchshim has none of them); the `tensor_contents=` override is not supported.
"""
import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype as D
from ._methods import tensor_method
from ._tensor import Tensor

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """`torch.set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
    sci_mode=None)`.

    precision: digits after the decimal point (default 4); threshold: numel above which tensors are
    summarised with `...` (default 1000); edgeitems: items kept at each end of a summarised dim (default 3);
    linewidth: characters per line for wrapping (default 80); profile: 'default', 'short' or 'full' sets the
    four options first (explicit arguments override it; an unknown profile name is ignored, as in PyTorch);
    sci_mode: True/False forces scientific notation on/off, None (the default) lets the formatter choose.
    Like PyTorch, every call sets `sci_mode` (omitting it resets it to None). Same as PyTorch otherwise.
    """
    if profile is not None and profile in _PROFILES:
        for k, v in _PROFILES[profile].items():
            setattr(PRINT_OPTS, k, v)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """`torch._tensor_str.get_printoptions()` -> dict usable as `set_printoptions(**d)`."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """`torch._tensor_str.printoptions(**kwargs)`: set print options temporarily."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---- host data --------------------------------------------------------------------------------------------
def _host(t):
    """The tensor's contents as numpy: float64 for real floating dtypes, complex128 for complex, else as
    is."""
    arr = np.asarray(t._value)
    if t.dtype.is_complex:
        return arr.astype(np.complex128)
    if t.dtype.is_floating_point:
        return arr.astype(np.float64)  # bfloat16/float8/float16 -> float64 is exact
    return arr


def _summarized(a):
    """PyTorch's `get_summarized_data`: the elements a summarised print shows (same slicing quirks)."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate((a[:e], a[-e:])) if a.shape[0] > 2 * e else a
    if not e:
        return np.empty([0] * a.ndim, a.dtype)
    n = a.shape[0]
    rows = list(range(e)) + list(range(n - e, n)) if n > 2 * e else range(n)
    return np.stack([_summarized(a[i]) for i in rows])


# ---- formatting -------------------------------------------------------------------------------------------
class _Formatter:
    """PyTorch's `_Formatter`, over a numpy array (float64 when `floating`)."""

    def __init__(self, arr, floating):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        flat = arr.reshape(-1)
        if not floating:
            for value in np.unique(flat).tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return
        nz = flat[np.isfinite(flat) & (flat != 0)]
        if nz.size == 0:
            return
        absval = np.abs(nz)
        vmin, vmax = float(absval.min()), float(absval.max())
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        values = np.unique(nz).tolist()
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in values)
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in values)
        else:
            widths = (len(f"{v:.{p}f}") for v in values)
        self.max_width = max(self.max_width, max(widths))

    def width(self):
        return self.max_width

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _val_str(val, f1, f2):
    if f2 is None:
        return f1.format(val)
    real_str = f1.format(val.real)
    imag_str = (f2.format(val.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector_str(a, indent, summarize, f1, f2):
    element_length = f1.width() + 2  # spaces and comma between elements
    if f2 is not None:
        element_length += f2.width() + 1  # the imaginary part and its 'j'
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = ([_val_str(v, f1, f2) for v in a[:e].tolist()] + [" ..."]
                + [_val_str(v, f1, f2) for v in a[-e:].tolist()])
    else:
        data = [_val_str(v, f1, f2) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(a, indent, summarize, f1, f2=None):
    dim = a.ndim
    if dim == 0:
        return _val_str(a.item(), f1, f2)
    if dim == 1:
        return _vector_str(a, indent, summarize, f1, f2)
    e, n = PRINT_OPTS.edgeitems, a.shape[0]
    if summarize and n > 2 * e:
        slices = ([_tensor_str_with_formatter(a[i], indent + 1, summarize, f1, f2) for i in range(e)]
                  + ["..."]
                  + [_tensor_str_with_formatter(a[i], indent + 1, summarize, f1, f2)
                     for i in range(n - e, n)])
    else:
        slices = [_tensor_str_with_formatter(a[i], indent + 1, summarize, f1, f2) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(t, indent):
    """The bracketed contents of a non-empty tensor (PyTorch's `_tensor_str`)."""
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > PRINT_OPTS.threshold
    a = _host(t)
    shown = _summarized(a) if summarize else a
    if t.dtype.is_complex:
        f1 = _Formatter(shown.real, True)
        f2 = _Formatter(shown.imag, True)
        return _tensor_str_with_formatter(a, indent, summarize, f1, f2)
    return _tensor_str_with_formatter(a, indent, summarize, _Formatter(shown, t.dtype.is_floating_point))


def _add_suffixes(tensor_str, suffixes, indent, force_newline=False):
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _grad_fn_name(grad_fn):
    name = getattr(grad_fn, "name", None)
    name = name() if callable(name) else type(grad_fn).__name__
    return name.rsplit("::", 1)[-1]


@tensor_method("__repr__")
def _tensor_repr_method(self, *, tensor_contents=None):
    return tensor_repr(self)


def tensor_repr(t):
    """`repr(t)` / `str(t)` exactly as PyTorch 2.13 prints it.

    A Tensor subclass prints as `ClassName(...)` like in PyTorch, unless its class defines `_repr_prefix`
    (e.g. `Parameter` with 'Parameter containing:\\n'): it then prints as a plain `tensor(...)` preceded by
    that prefix.
    """
    cls = type(t)
    hook = getattr(cls, "_repr_prefix", None)
    prefix = "tensor(" if cls is Tensor or hook is not None else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []

    dev = t.device
    if dev.type != "cpu":
        suffixes.append("device='" + str(dev) + "'")

    default = D.get_default_dtype()
    default_complex = D.complex128 if default is D.float64 else D.complex64
    has_default_dtype = t.dtype in (default, default_complex, D.int64, D.bool_)

    if t.numel() == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t.shape)))
        # no elements to infer the dtype from, so anything but the default float dtype is shown
        if t.dtype is not default:
            suffixes.append("dtype=" + str(t.dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(t.shape)))
        if not has_default_dtype:
            suffixes.append("dtype=" + str(t.dtype))
        tensor_str = _tensor_str(t, indent)

    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")

    out = _add_suffixes(prefix + tensor_str, suffixes, indent)
    return out if hook is None else hook + out
