"""View ops: each computes a new (shape, stride, offset) over the same storage, exactly as PyTorch does.

Nothing here touches jax: reading and writing through views is `_view.read/write`. `reshape`, `flatten` and
`contiguous` return views when PyTorch would, copies otherwise.
"""

from .. import _layout as L
from .. import _view as V
from .._tensor import Tensor, _wrap_dim
from .._warnings import warn_once
from .._methods import add_tensor_method
from ..autograd import _names as N
from ..autograd._node import rename
from ._registry import installed, register

__all__ = ["shape_arg"]

_CONTIGUOUS = L.contiguous_format


def shape_arg(args, name="view", arg="size", pos=None, unpack=False):
    """Sizes given as varargs ints or one sequence (PyTorch's IntArrayRef parsing), with the argument parser's
    TypeError for a non-int element: `unpack` for varargs-or-sequence parameters ("failed to unpack the
    object at pos k"), else "must be tuple of ints, but found element ..." (with the parameter's position)."""
    given = args
    if unpack and len(args) > 1 and not isinstance(args[0], (int, Tensor)):
        raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were given")
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.__index__()
        if not isinstance(a, int):
            if name == "view":
                raise TypeError(f"view() received an invalid combination of arguments - got "
                                f"({', '.join(type(v).__name__ for v in given)}), but expected one of:\n"
                                " * (torch.dtype dtype)\n * (tuple of ints size)")
            if unpack:
                raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                                f"{len(out) + 1} with error \"type must be tuple of ints,but got "
                                f"{type(a).__name__}\"")
            where = f" (position {pos})" if pos else ""
            raise TypeError(f"{name}(): argument '{arg}'{where} must be tuple of ints, but found element of "
                            f"type {type(a).__name__} at pos {len(out)}")
        out.append(int(a))
    return tuple(out)


def _concrete(t, name, arg):
    """The int value of a 0-dim tensor argument that sets a view's geometry; a clear error under jax tracing,
    where the value is unknown."""
    import jax
    if isinstance(t._value, jax.core.Tracer):
        raise RuntimeError(f"{name}(): the tensor argument '{arg}' sets the result's geometry and can't be "
                           "read under jax tracing; pass a Python int")
    return t.__index__()


def _int(v, name, arg, pos):
    """An int parameter, with the argument parser's TypeError otherwise."""
    if isinstance(v, Tensor) and v.ndim == 0 and not (v._dtype.is_floating_point or v._dtype.is_complex):
        return _concrete(v, name, arg)
    if not isinstance(v, int):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {type(v).__name__}")
    return int(v)


def infer_size(shape, numel):
    """Replace a single -1 in `shape` so the product is `numel`; PyTorch's errors otherwise."""
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer] + (numel // known,) + shape[infer + 1:]
    if V.numel(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _reshape_name(shape_of):
    """View when the input is contiguous, ReshapeAlias when viewable anyway, UnsafeView when it copies."""
    def f(args, kwargs):
        t = args[0]
        if V.is_contiguous(t._shape, t._stride):
            return "ViewBackward0"
        try:
            shape = shape_of(t, args, kwargs)
        except Exception:  # the op itself raised; the name is never used
            return "ViewBackward0"
        return "UnsafeViewBackward0" if V.compute_view_stride(t._shape, t._stride, shape) is None \
            else "ReshapeAliasBackward0"
    return f


def _reshape_shape(t, args, kwargs):
    shape = args[1:] if len(args) > 1 else (kwargs["shape"],)
    return infer_size(shape_arg(shape), t.numel())


def _flatten_shape(t, args, kwargs):
    nd = t.ndim
    s = _wrap_dim(N.arg(args, kwargs, 1, "start_dim", 0), nd)
    e = _wrap_dim(N.arg(args, kwargs, 2, "end_dim", -1), nd)
    n = 1
    for k in t._shape[s:e + 1]:
        n *= k
    return t._shape[:s] + (n,) + t._shape[e + 1:]


def _view_name(args, kwargs):
    """ViewBackward0; None for view(dtype), whose output PyTorch never makes differentiable."""
    shape = args[1:]
    if kwargs.get("size") is None and (kwargs.get("dtype") is not None or (
            len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Tensor)))):
        return None
    return "ViewBackward0"


@register("view", function=False, kind="view", saves="none", grad_name=_view_name)
def view(self, *shape, size=None, dtype=None):
    """`Tensor.view(*shape)`, `Tensor.view(dtype)`: a view with a new shape; raises when the strides don't
    allow it.

    `view(dtype)` (ops/copy.py `view_dtype`): the storage's bytes as another dtype, an alias."""
    if size is not None:
        shape = (size,)
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Tensor)):
        dtype = shape[0]
    if dtype is not None:
        from .copy import view_dtype
        return view_dtype(self, dtype)
    shape = infer_size(shape_arg(shape), self.numel())
    stride = V.compute_view_stride(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return self._as_view(shape, stride, self._offset)


@register("view_as", function=False, kind="view", grad_name="ViewBackward0", saves="none")
def view_as(self, other):
    """`Tensor.view_as(other)` -> `self.view(other.size())`."""
    return view(self, other._shape)


@register("reshape", kind="view", grad_name=_reshape_name(_reshape_shape), saves="none")
def reshape(input, *shape, **kw):
    """`torch.reshape(input, shape)`, `Tensor.reshape(*shape)`: a view when the strides allow (like PyTorch),
    else a contiguous copy."""
    if kw:
        if set(kw) != {"shape"} or shape:
            raise TypeError("reshape() got an unexpected keyword argument "
                            f"'{next(k for k in kw if k != 'shape')}'"
                            if set(kw) - {"shape"} else "reshape() got multiple values for argument 'shape'")
        shape = (kw["shape"],)
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    shape = infer_size(shape_arg(shape, "reshape", "shape", 2), input.numel())
    stride = V.compute_view_stride(input._shape, input._stride, shape)
    if stride is None:  # a copy, not a view of one (PyTorch's _unsafe_view): no _base, own version counter
        from ._dispatch import fresh
        return fresh(input._value.reshape(shape), input._dtype, input._storage.device)
    return input._as_view(shape, stride, input._offset)


@register("reshape_as", function=False, kind="view", saves="none",
          grad_name=_reshape_name(lambda t, args, kwargs: tuple(args[1]._shape)))
def reshape_as(self, other):
    """`Tensor.reshape_as(other)` -> `self.reshape(other.size())`."""
    return reshape(self, other._shape)


@register("flatten", kind="view", grad_name=_reshape_name(_flatten_shape), saves="none")
def flatten(input, start_dim=0, end_dim=-1):
    """`torch.flatten(input, start_dim=0, end_dim=-1)`: a view when possible; a 0-dim input gives shape
    (1,)."""
    nd = input.ndim
    if nd == 0:
        _wrap_dim(start_dim, 0)
        _wrap_dim(end_dim, 0)
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._shape[:s] + (V.numel(input._shape[s:e + 1]),) + input._shape[e + 1:]
    return reshape(input, shape)


@register("unflatten", kind="view", grad_name="ViewBackward0", saves="none")
def unflatten(input, dim, sizes):
    """`torch.unflatten(input, dim, sizes)`: split one dim into `sizes` (one -1 allowed)."""
    d = _wrap_dim(dim, input.ndim)
    sizes = shape_arg((sizes,), "unflatten", "sizes", 2)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if input.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no "
                           "dimensions")
    try:
        full = infer_size(sizes, input._shape[d])
    except RuntimeError as e:
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                           f"{d} ({input._shape[d]}) in the input tensor") from None
    return view(input, input._shape[:d] + full + input._shape[d + 1:])


@register("transpose", aliases=("swapaxes", "swapdims"), method=False, saves="none",
          inplace=lambda self, dim0,
          dim1: _inplace_geometry(self, "transpose", (dim0, dim1), _m="transpose_"),
          kind="view")
def transpose(input, dim0, dim1, *, _m=False):
    """`torch.transpose(input, dim0, dim1)` (also `swapaxes`, `swapdims`): a view with two dims swapped.

    Difference: argument TypeErrors of `torch.swapaxes`/`torch.swapdims` name `transpose()`."""
    return _transpose(input, dim0, dim1, _m or "transpose", 1 if _m else 2,
                      ("axis0", "axis1") if _m == "swapaxes" else ("dim0", "dim1"))


def _transpose(input, dim0, dim1, name="transpose", pos=1, args=("dim0", "dim1")):
    dim0 = _int(dim0, name, args[0], pos)
    dim1 = _int(dim1, name, args[1], pos + 1)
    nd = input.ndim
    if nd == 0:
        _wrap_dim(dim0, 0)
        _wrap_dim(dim1, 0)
        return input._as_view((), (), input._offset)
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    shape, stride = list(input._shape), list(input._stride)
    shape[a], shape[b] = shape[b], shape[a]
    stride[a], stride[b] = stride[b], stride[a]
    return input._as_view(shape, stride, input._offset)


_pub = installed  # the public `torchshim.<name>` (the op as installed, with autograd recording)


def _methods(op, *names):
    """Install `Tensor.<name>` for each name as `torchshim.<op>(self, ..., _m=name)`: the method form of an op
    whose argument errors differ from the function's (the parser counts positions without self and leaves the
    Tensor out of the types it lists); the op is registered with method=False."""
    for n in names:
        def m(self, *args, _n=n, **kw):
            return _pub(op)(self, *args, _m=_n, **kw)
        m.__name__ = m.__qualname__ = n
        m.__doc__ = f"`Tensor.{n}`: see `torch.{op}`."
        add_tensor_method(n, m)


_methods("transpose", "transpose", "swapaxes", "swapdims")


def _inplace_geometry(self, op, args, **kw):
    """`t_`, `transpose_`, `squeeze_`, `unsqueeze_`, `as_strided_`: self adopts the geometry of its view
    `torchshim.<op>(self, *args)`. With autograd, the view's node (renamed to PyTorch's in-place variant,
    e.g. `TBackward1`) becomes self's history, as PyTorch's in-place view ops rebase it."""
    from ..autograd.grad_mode import is_grad_enabled
    tracked = self._requires_grad and is_grad_enabled()
    if tracked and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    v = _pub(op)(self, *args, **kw)
    self._shape, self._stride, self._offset = v._shape, v._stride, v._offset
    self._natural = v._natural
    self._cache = None
    if tracked and v._grad_fn is not None:
        node = v._grad_fn
        rename(node, _INPLACE_NODE_NAMES.get(node._name, node._name))
        self._grad_fn, self._output_nr = node, v._output_nr
    return self


# PyTorch's node names for the in-place view ops (the functional forms end in 0 or, for squeeze's overloads,
# in 0/1/2).
_INPLACE_NODE_NAMES = {"TBackward0": "TBackward1", "TransposeBackward0": "TransposeBackward1",
                       "UnsqueezeBackward0": "UnsqueezeBackward1", "AsStridedBackward0": "AsStridedBackward1",
                       "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
                       "SqueezeBackward2": "SqueezeBackward5"}


@register("t", inplace=lambda self: _inplace_geometry(self, "t", ()), kind="view", saves="none")
def t(input):
    """`torch.t(input)`: transpose of a tensor with <= 2 dims (0-D and 1-D are returned as they are)."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return transpose(input, 0, 1) if input.ndim == 2 else input._as_view(input._shape, input._stride,
                                                                          input._offset)


def _T(self):
    if self.ndim == 0:
        _deprecated_0d("Tensor.T", "This function is the identity in these cases.")
    elif self.ndim != 2:
        warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                  "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                  "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                  "dimensions of a tensor.", UserWarning, stacklevel=2)
    return _pub("permute")(self, tuple(range(self.ndim - 1, -1, -1)))


def _deprecated_0d(what, advice):
    warn_once(f"{what} is deprecated on 0-D tensors. {advice}", UserWarning, stacklevel=3)


def _mT(self):
    if self.ndim == 0:
        _deprecated_0d("Tensor.mT", "This function is the identity in these cases.")
        return self._as_view((), (), self._offset)
    if self.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return _pub("transpose")(self, -2, -1)


def _conj(t):
    """Conjugate of a complex tensor: PyTorch's lazily conjugated view (`is_conj()`); `t` itself when real."""
    from .complex_views import conj
    return conj(t)


def _H(self):
    if self.ndim == 0:
        _deprecated_0d("Tensor.H", "Consider using x.conj().")
        return _conj(self._as_view((), (), self._offset))
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""))
    return _pub("adjoint")(self)


def _mH(self, what="Tensor.mH", err="tensor.mH"):
    if self.ndim == 0:
        _deprecated_0d(what, "Consider using x.conj().")
        return _conj(self._as_view((), (), self._offset))
    if self.ndim < 2:
        raise RuntimeError(f"{err} is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                           "tensor.")
    return _conj(transpose(self, -2, -1))


add_tensor_method("T", property(_T, doc="`x.T`: all dims reversed (deprecated by PyTorch for ndim != 2)."))
add_tensor_method("mT", property(_mT, doc="`x.mT`: the last two dims transposed."))
add_tensor_method("H", property(_H, doc="`x.H`: conjugate transpose of a matrix."))
def _mH_prop(self):
    return _pub("adjoint")(self) if self.ndim >= 2 else _mH(self)


add_tensor_method("mH", property(_mH_prop, doc="`x.mH`: conjugate transpose of the last two dims."))


@register("adjoint", kind="view",
          grad_name=N.complex_input("ConjBackward0", "TransposeBackward0"), saves="none")
def adjoint(input):
    """`torch.adjoint(input)` -> `input.mH`."""
    return _mH(input, "adjoint()", "tensor.adjoint()")


@register("permute", method=False, kind="view", saves="none")
def permute(input, *dims, _m=False, **kw):
    """`torch.permute(input, dims)`: a view with dims reordered (`Tensor.permute(*dims)` takes varargs
    too)."""
    if kw:
        if set(kw) != {"dims"}:
            raise TypeError("permute() got an unexpected keyword argument "
                            f"'{next(k for k in kw if k != 'dims')}'")
        if dims:
            raise TypeError("permute() got multiple values for argument 'dims'")
        dims = (kw["dims"],)
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    if not _m:
        if len(dims) > 1:
            raise TypeError(f"permute() takes 2 positional arguments but {len(dims) + 1} were given")
        if not isinstance(dims[0], (tuple, list)):
            raise TypeError(f"permute(): argument 'dims' (position 2) must be tuple of ints, not "
                            f"{type(dims[0]).__name__}")
    return _permute(input, shape_arg(dims, "permute", "dims", unpack=True))


_methods("permute", "permute")


def _permute(input, dims):
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           "length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{nd} is not equal to len(dims) = {len(dims)}")
    dims = [_wrap_dim(d, nd) for d in dims]
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return input._as_view([input._shape[d] for d in dims], [input._stride[d] for d in dims], input._offset)


@register("movedim", aliases=("moveaxis",), method=False, kind="view", grad_name="PermuteBackward0",
          saves="none")
def movedim(input, source, destination, *, _m=False):
    """`torch.movedim(input, source, destination)` (also `moveaxis`): move dims (int or sequence) to new
    positions."""
    return _movedim(input, source, destination, _m or "movedim", "" if _m else "Tensor, ")


def _movedim(input, source, destination, name="movedim", lead=""):
    if isinstance(source, (tuple, list)) != isinstance(destination, (tuple, list)) or not all(
            isinstance(v, (int, tuple, list)) for v in (source, destination)):
        kinds = ", ".join("int" if isinstance(v, int) else type(v).__name__ for v in (source, destination))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({lead}{kinds}), but "
                        "expected one of:\n * (tuple of ints source, tuple of ints destination)\n * (int "
                        "source, int destination)")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
                           f"the same number of dims as destination ({dst} dims)")
    nd = input.ndim
    src = [_wrap_dim(d, nd) for d in src]
    dst = [_wrap_dim(d, nd) for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError("movedim: repeated dim in `source` "
                           f"({list(source) if not isinstance(source, int) else source})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` "
                           f"({list(destination) if not isinstance(destination, int) else destination})")
    if nd == 0:
        return input._as_view((), (), input._offset)
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return _permute(input, order)


_methods("movedim", "movedim", "moveaxis")


@register("expand", function=False, kind="view", saves="none")
def expand(self, *sizes, size=None, implicit=False):
    """`Tensor.expand(*sizes)`: a view broadcasting size-1 dims (stride 0); -1 keeps a dim."""
    if size is not None:
        if sizes:
            raise TypeError("expand() got multiple values for argument 'size'")
        sizes = (size,)
    sizes = shape_arg(sizes, "expand", unpack=True)
    nd = self.ndim
    if len(sizes) < nd:
        raise RuntimeError(f"expand({self.type()}{{{list(self._shape)}}}, size={list(sizes)}): the number of "
                           f"sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({nd})")
    # PyTorch's inferExpandGeometry, from the last dim backwards
    n = len(sizes)
    shape, stride = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        d = i - (n - nd)
        size = self._shape[d] if d >= 0 else 1
        st = self._stride[d] if d >= 0 else shape[i + 1] * stride[i + 1] if i + 1 < n else 0
        target = sizes[i]
        if target == -1:
            if d < 0:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size "
                                   f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                   f"Tensor sizes: {list(self._shape)}")
            if target < 0:
                raise RuntimeError("numel: integer multiplication overflow")
            size, st = target, 0
        shape[i], stride[i] = size, st
    return self._as_view(shape, stride, self._offset)


@register("expand_as", function=False, kind="view", grad_name="ExpandBackward0", saves="none")
def expand_as(self, other):
    """`Tensor.expand_as(other)` -> `self.expand(other.size())`."""
    return expand(self, other._shape)


@register("broadcast_to", kind="view", grad_name="ExpandBackward0", saves="none")
def broadcast_to(input, size):
    """`torch.broadcast_to(input, size)` -> `input.expand(size)`."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"broadcast_to(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return expand(input, tuple(shape_arg((size,), "broadcast_to", "size", 2)))


def _tname(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _combo(name, args, m):
    """The argument parser's error for argument types no overload accepts (the function form lists input)."""
    got = ", ".join(["Tensor"] * (not m) + [_tname(a) for a in args])
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                    "of:")


def _squeeze_(self, dim=None):
    return _inplace_geometry(self, "squeeze", (dim,), _m="squeeze_")


def _squeeze_name(args, kwargs):
    d = N.arg(args, kwargs, 1, "dim")
    return "SqueezeBackward0" if d is None else "SqueezeBackward2" if isinstance(d, (tuple, list)) \
        else "SqueezeBackward1"


@register("squeeze", method=False, inplace=_squeeze_, kind="view", grad_name=_squeeze_name, saves="none")
def squeeze(input, dim=None, *, _m=False):
    """`torch.squeeze(input, dim=None)`: drop size-1 dims (all, one, or a tuple); others are kept silently."""
    nd = input.ndim
    if dim is None:
        dims = {i for i, s in enumerate(input._shape) if s == 1}
    else:
        if not isinstance(dim, (int, tuple, list)) or isinstance(dim, bool) or (
                not isinstance(dim, int) and not all(isinstance(d, int) for d in dim)):
            _combo("squeeze", (dim,), _m)
        wrapped = [_wrap_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims = {d for d in wrapped if nd and input._shape[d] == 1}
    keep = [i for i in range(nd) if i not in dims]
    return input._as_view([input._shape[i] for i in keep], [input._stride[i] for i in keep], input._offset)


def _unsqueeze_(self, dim):
    return _inplace_geometry(self, "unsqueeze", (dim,), _m="unsqueeze_")


@register("unsqueeze", method=False, inplace=_unsqueeze_, kind="view", saves="none")
def unsqueeze(input, dim, *, _m=False):
    """`torch.unsqueeze(input, dim)`: insert a size-1 dim at `dim` (in [-ndim-1, ndim])."""
    nd = input.ndim
    d = _wrap_dim(_int(dim, "unsqueeze", "dim", 2 - bool(_m)), nd + 1)
    st = input._shape[d] * input._stride[d] if d < nd else 1
    shape = input._shape[:d] + (1,) + input._shape[d:]
    stride = input._stride[:d] + (st,) + input._stride[d:]
    return input._as_view(shape, stride, input._offset)


@register("contiguous", function=False, kind="view", grad_name="CloneBackward0", saves="none")
def contiguous(self, *args, memory_format=_CONTIGUOUS):
    """`Tensor.contiguous(memory_format=torch.contiguous_format)`: self when already contiguous in that
    format, else a copy in it (channels_last: NHWC strides of a 4-D tensor, channels_last_3d: NDHWC)."""
    if args:
        raise TypeError(f"contiguous() takes 0 positional arguments but {len(args)} was given")
    if memory_format is _CONTIGUOUS:
        if self.is_contiguous():
            return self
        from ._dispatch import fresh
        return fresh(self._value, self._dtype, self._storage.device)
    fmt = L.check_memory_format("contiguous", memory_format, optional=False)
    if self.is_contiguous(memory_format=fmt):
        return self
    if fmt is L.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    from .copy import clone
    return clone(self, memory_format=fmt)


@register("broadcast_tensors", method=False, kind="view", grad_name="ExpandBackward0", saves="none")
def broadcast_tensors(*tensors):
    """`torch.broadcast_tensors(*tensors)` -> tuple of expanded views sharing one broadcast shape (a tensor
    that already has that shape is returned itself, as in PyTorch)."""
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
    from ._dispatch import broadcast_error
    shape = broadcast_error([t._shape for t in tensors]) if tensors else ()
    return tuple(t if t._shape == tuple(shape) else expand(t, shape) for t in tensors)  # PyTorch: same tensor


@register("broadcast_shapes", method=False)
def broadcast_shapes(*shapes):
    """`torch.broadcast_shapes(*shapes)` -> torch.Size: the broadcast of shapes given as ints or sequences,
    with PyTorch's (torch._refs) error messages."""
    from collections.abc import Sequence

    from .._tensor import Size
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                               f"got {shape}")
    common = [1] * max(len(s) for s in shapes)
    for arg, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            if shape[idx] == 1:
                continue
            if common[idx] != shape[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                                   f"Mismatching argument at index {arg} had {shape}; but expected shape "
                                   f"should be broadcastable to {common}")
    for k, s in enumerate(common):
        if not isinstance(s, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {k} is '{type(s).__name__}')")
    return Size(common)
