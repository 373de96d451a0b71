"""The mutable Tensor facade over immutable jax arrays.

A Tensor is (storage, shape, stride, storage_offset, dtype) plus autograd fields. Views share the storage;
writes rebind the storage's array and bump the version counter shared by the tensor, its views and `detach()`
(`.data` gets a fresh counter, as in PyTorch).

This module holds the Tensor's data and its construction only: `Tensor._make` is the one constructor (`fresh`
and `wrap` are shorthands for it). It imports nothing above the base maps (`_dtype`, `_device`, `_view`,
`_storage`, ...). Ops, operators and every method with behaviour (`to`, `type`, `__repr__`, indexing,
`backward`, `grad_fn`, the legacy constructor) are attached by `ops/_registry.install()` from the op table and
from `_methods.METHODS`.
"""
import numbers
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from . import _device as Dev
from . import _dtype as D
from . import _kernel_budget
from . import _layout as L
from . import _view as V
from ._promotion import can_cast, short_name
from ._fused import jit as _fjit
from ._storage import Storage, UntypedStorage

__all__ = ["Tensor", "Size", "fresh", "wrap", "filled", "to_array"]


class Size(tuple):
    """`torch.Size`: a tuple of ints with `numel()`; repr `torch.Size([2, 3])`."""

    def __new__(cls, seq=()):
        return super().__new__(cls, (int(s) for s in seq))

    def numel(self):
        return V.numel(self)

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


_DERIVE = object()  # Tensor._make: derive the lens from the dtypes


class _VersionCounter:
    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor:
    """`torch.Tensor`. Calling it directly is PyTorch's legacy constructor: `Tensor(2, 3)` (uninitialised
    float32, zeros here), `Tensor([1, 2])`, `Tensor(size=...)`; `__new__` is attached from
    `ops/legacy_types.py`."""

    __slots__ = ("_storage", "_shape", "_stride", "_offset", "_dtype", "_natural", "_cache", "_vc", "_base",
                 "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_retains_grad", "_hooks", "_node",
                 "_diff_view", "_grad_version", "_lens", "__dict__",
                 "__weakref__")

    # ----- construction -------------------------------------------------------------------------------
    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _make(cls, storage, shape, stride, offset, dtype, vc=None, base=None, lens=_DERIVE, natural=None):
        """The one constructor: a tensor viewing `storage` with PyTorch's geometry (shape, stride, offset).
        `lens` (see _view.py) is derived from the dtypes unless given; `natural` (the view is the whole
        storage array as it is) is computed unless the caller knows it."""
        if lens is _DERIVE:
            lens = V.derive_lens(storage.array, dtype)
        t = object.__new__(cls)
        t._storage = storage
        t._shape = shape
        t._stride = stride
        t._offset = offset
        t._dtype = dtype
        if natural is None:
            natural = (lens is None and offset == 0 and shape == storage.array.shape
                       and stride == V.contiguous_strides(shape))
        t._natural = natural
        t._lens = lens
        t._cache = None
        t._vc = vc if vc is not None else _VersionCounter()
        t._base = base
        t._requires_grad = False
        t._grad = None
        t._grad_fn = None
        t._output_nr = 0
        t._retains_grad = False
        t._hooks = None
        t._node = None
        t._diff_view = base is not None
        t._grad_version = -1
        return t

    # ----- the jax value --------------------------------------------------------------------------------
    @property
    def _value(self):
        """The tensor's current contents as a jax array (of its own shape)."""
        st = self._storage
        if self._natural:
            return st.array
        arr = st.array
        c = self._cache
        if c is not None and c[0] is arr:
            return c[1]
        v = V.read(arr, self._shape, self._stride, self._offset, self._lens)
        self._cache = (arr, v)
        return v

    def _write(self, value):
        """Write `value` (a broadcastable jax array or a Python number) into this tensor's elements, cast to
        its dtype; every alias sees it."""
        st = self._storage
        if self._natural:
            if getattr(value, "shape", None) != self._shape or value.dtype != st.array.dtype:
                value = _fit(value, self._shape, st.array.dtype)
            st.array = value
        else:
            if V.has_overlap(self._shape, self._stride):
                raise RuntimeError(
                    "unsupported operation: more than one element of the written-to tensor refers to a "
                    "single memory location. Please clone() the tensor before performing the operation.")
            st.array = V.write(st.array, value, self._shape, self._stride, self._offset, self._lens)
        self._vc.value += 1

    def _as_view(self, shape, stride, offset):
        """A new tensor viewing this one's storage with the given geometry (shares the version counter)."""
        root = self._base if self._base is not None else self
        return Tensor._make(self._storage, tuple(shape), tuple(stride), offset, self._dtype, self._vc, root,
                            self._lens)

    def _resize_storage(self, shape):
        """Give self a fresh contiguous storage of `shape` (what out= does when the shape is wrong)."""
        shape = tuple(shape)
        self._storage = Storage(jnp.zeros(shape, self._dtype.np), self._storage.device)
        self._shape, self._stride, self._offset = shape, V.contiguous_strides(shape), 0
        self._natural, self._cache, self._lens = True, None, None

    # ----- metadata --------------------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        """`Tensor.size(dim=None)` -> torch.Size, or the size of one dim."""
        if dim is None:
            return Size(self._shape)
        return self._shape[_wrap_dim(dim, len(self._shape))]

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self):
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._storage.device.type == "cpu"

    is_sparse = False
    is_quantized = False
    is_meta = False
    is_mkldnn = False
    is_nested = False
    layout = L.strided

    def get_device(self):
        """`Tensor.get_device()`: the cuda index, or -1 for cpu tensors."""
        d = self._storage.device
        return -1 if d.type == "cpu" else d.index

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return V.numel(self._shape)

    nelement = numel

    def element_size(self):
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self._dtype.itemsize * V.numel(self._shape)

    def stride(self, dim=None):
        """`Tensor.stride(dim=None)`: PyTorch's strides (in elements) of this view of its storage."""
        if dim is None:
            return tuple(self._stride)
        return self._stride[_wrap_dim(dim, len(self._shape))]

    def storage_offset(self):
        return self._offset

    def is_contiguous(self, *args, memory_format=L.contiguous_format):
        """`Tensor.is_contiguous(memory_format=torch.contiguous_format)`; channels_last(_3d): NHWC (NDHWC)."""
        if args:
            raise TypeError(f"is_contiguous() takes 0 positional arguments but {len(args)} was given")
        plain = V.is_contiguous(self._shape, self._stride)
        if memory_format is L.contiguous_format:
            return plain
        fmt = L.check_memory_format("is_contiguous", memory_format, optional=False)
        return L.is_contiguous_as(self._shape, self._stride, fmt, plain)

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def is_complex(self):
        return self._dtype.is_complex

    def is_signed(self):
        return self._dtype.is_signed

    def data_ptr(self):
        """A fake address: equal for tensors that start at the same storage element, as in PyTorch."""
        return self._storage.address + self._offset * self._dtype.itemsize

    def untyped_storage(self):
        return UntypedStorage(self._storage)

    def storage(self):
        return UntypedStorage(self._storage)

    def is_set_to(self, other):
        """True when both tensors view the same storage with the same geometry."""
        return (self._storage is other._storage and self._offset == other._offset
                and self._shape == other._shape and self._stride == other._stride)

    @property
    def _version(self):
        return self._vc.value

    def _is_view(self):
        return self._base is not None

    # ----- aliases without autograd history ------------------------------------------------------------
    @property
    def data(self):
        """`.data`: shares storage, not history or version counter (writes are invisible to autograd)."""
        t = Tensor._make(self._storage, self._shape, self._stride, self._offset, self._dtype, lens=self._lens)
        return t

    @data.setter
    def data(self, new):
        if not isinstance(new, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(new).__name__}")
        self._storage, self._shape, self._stride = new._storage, new._shape, new._stride
        self._offset, self._dtype, self._natural = new._offset, new._dtype, new._natural
        self._cache, self._lens = None, new._lens

    def detach(self):
        """`detach()`: shares storage and version counter; no history."""
        t = Tensor._make(self._storage, self._shape, self._stride, self._offset, self._dtype, self._vc,
                         self._base, self._lens)
        t._diff_view = False
        return t

    def detach_(self):
        """`detach_()`: drops this tensor's history in place (it becomes a leaf that does not require
        grad)."""
        if self._diff_view and self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                               "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                               "be called on these gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ----- autograd fields (the tape lives in torchshim/autograd; `grad_fn` is attached from there) -------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if not flag and self._grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to "
                               "use a computed variable in a subgraph that doesn't require differentiation "
                               "use var_no_grad = var.detach().")
        if flag and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        """`requires_grad_(requires_grad=True)`: set the flag in place (leaves only when turning it off)."""
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad(self):
        """`.grad`: the accumulated gradient of a leaf (PyTorch's warning when read on a non-leaf)."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                          ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                          "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                          "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                          "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
                          "more information. (Triggered internally at "
                          "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)", UserWarning,
                          stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(g).__name__}")
            if g._dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if g._shape != self._shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = g

    @grad.deleter
    def grad(self):
        self._grad = None

    # ----- conversion -------------------------------------------------------------------------------------
    def numpy(self, *, force=False):
        """`Tensor.numpy()`: a numpy copy (PyTorch shares memory; jax arrays are immutable, so we can't)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self._lens is not None and not force:
            bit = "conjugate" if self._lens[1] else "negative" if self._lens[2] else None
            if bit is not None:
                fix = "resolve_conj" if self._lens[1] else "resolve_neg"
                raise RuntimeError(f"Can't call numpy() on Tensor that has {bit} bit set. Use "
                                   f"tensor.{fix}().numpy() instead.")
        if self._storage.device.type != "cpu" and not force:
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first.")
        return np.asarray(self._value)

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self._value)
        return a if dtype is None else a.astype(dtype)

    def __jax_array__(self):
        return self._value

    def item(self):
        """`Tensor.item()` -> a Python number; the tensor must have exactly one element."""
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return _py_scalar(np.asarray(self._value).reshape(()), self._dtype)

    def tolist(self):
        """`Tensor.tolist()` -> nested lists of Python numbers (a number for 0-dim tensors)."""
        a = np.asarray(self._value)
        if self._dtype is D.bfloat16 or self._dtype.name.startswith("float8"):
            a = a.astype(np.float32)
        return a.tolist()

    # __float__ / __complex__ (PyTorch warns there for a tensor that requires grad): autograd/_tensor_api.py

    def __int__(self):
        self._check_scalar("int")
        return int(self.item())

    def __index__(self):
        if self._dtype.is_floating_point or self._dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def _check_scalar(self, kind):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        if isinstance(element, (Tensor, numbers.Number)):
            return bool((self == element).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    def __reduce_ex__(self, proto):
        return (_rebuild, (np.asarray(self._value), self._dtype.name, self._requires_grad,
                           str(self._storage.device)))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                               "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = wrap(self._value, self._dtype, self._storage.device)
        new.__class__ = self.__class__
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update(self.__dict__)
        memo[id(self)] = new
        return new

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def pin_memory(self, device=None):
        return self

    def is_pinned(self, device=None):
        return False

    def share_memory_(self):
        """`share_memory_() -> Tensor`: marks the storage as shared (`is_shared()` is then True for this
        tensor and its views) and returns self. torchshim moves nothing to shared memory: another process gets
        a copy, and in-place updates are not seen across processes (docs/differences.md, Hogwild)."""
        self._storage.shared = True
        return self

    def is_shared(self):
        """`is_shared() -> bool`: whether `share_memory_()` was called on this storage."""
        return self._storage.shared


@partial(_fjit, static_argnums=(1, 2))
def _fit(value, shape, dtype):
    return jnp.broadcast_to(jnp.asarray(value).astype(dtype), shape)


def _rebuild(arr, dtype_name, requires_grad, device="cpu"):
    """Unpickle a Tensor: the values on the device it was pickled from (as PyTorch restores a CUDA tensor
    on CUDA)."""
    dev = Dev.canonical(device)
    t = wrap(jax.device_put(arr, Dev.to_jax(dev)), D.PUBLIC[dtype_name], dev)
    t._requires_grad = requires_grad
    return t


def _py_scalar(a, dtype):
    if dtype is D.bool_:
        return bool(a)
    if dtype.is_complex:
        return complex(a)
    if dtype.is_floating_point:
        return float(a)
    return int(a)


def _wrap_dim(dim, ndim):
    """Normalise a possibly negative dim; IndexError with PyTorch's message when out of range."""
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def fresh(array, dtype, device):
    """A new Tensor owning jax `array` (which must already have `dtype`'s numpy dtype) in a fresh storage: how
    every op wraps its result."""
    if _kernel_budget.pending and not isinstance(array, jax.core.Tracer):
        _kernel_budget.relieve()  # a safe point: outside any trace (see _kernel_budget)
    shape = array.shape
    return Tensor._make(Storage(array, device), shape, V.contiguous_strides(shape), 0, dtype, lens=None,
                        natural=True)


def wrap(array, dtype=None, device=None):
    """A new Tensor owning `array` (a jax array) in a fresh storage; dtype and device default to the
    array's."""
    if dtype is None:
        dtype = D.from_numpy_dtype(array.dtype)
    if device is None:
        device = Dev.of_array(array)
    return fresh(array, dtype, device)


def filled(shape, value, dtype, device):
    """A new contiguous tensor of `shape` filled with `value`, on canonical torch `device` (the tape's zero
    and one gradients; the public factories are `torch.zeros`, `torch.full`, ...)."""
    arr = jax.device_put(jnp.full(tuple(shape), value, dtype.np), Dev.to_jax(device))
    return fresh(arr, dtype, device)


def to_array(x):
    """The jax array of a Tensor (others pass through)."""
    return x._value if isinstance(x, Tensor) else x


def check_inplace_result(self, result_dtype, result_shape):
    """PyTorch's checks before an in-place op writes its result into `self`."""
    if result_shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                           f"{list(result_shape)}")
    if not can_cast(result_dtype, self._dtype):
        raise RuntimeError(f"result type {short_name(result_dtype)} can't be cast to the desired output type "
                           f"{short_name(self._dtype)}")

