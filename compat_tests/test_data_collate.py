"""default_collate / default_convert / collate(collate_fn_map=) under torch and torchshim: values, dtypes,
shapes and container types (dict subclasses, namedtuples, tuples -> lists, custom sequences) must match
PyTorch's, and so must the errors (mismatched sizes, unequal lengths, unsupported types)."""
import collections
import collections.abc

import numpy as np
import pytest
import torch

import torchshim
from harness import check

Point = collections.namedtuple("Point", ["x", "y"])


def D(T):
    return T.utils.data


def C(T):
    return T.utils.data._utils.collate


class FrozenMap(collections.abc.Mapping):
    """An immutable mapping built from a dict."""

    def __init__(self, d):
        self._d = dict(d)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


class NoInitMap(FrozenMap):
    """An immutable mapping that can't be built from a dict (collate falls back to a plain dict)."""

    def __init__(self, *a):
        if len(a) != 2:
            raise TypeError("needs two arguments")
        super().__init__({a[0]: a[1]})


class Seq(collections.abc.Sequence):
    """An immutable sequence built from a list."""

    def __init__(self, items):
        self._items = list(items)

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self):
        return len(self._items)


class UserList(collections.UserList):
    pass


def _structure(x):
    """The container types of a result, with tensors of either library named 'Tensor'."""
    if isinstance(x, (torch.Tensor, torchshim.Tensor)):
        return "Tensor"
    if isinstance(x, np.ndarray):
        return f"ndarray[{x.dtype}]"
    if isinstance(x, collections.abc.Mapping):
        return (type(x).__name__, {k: _structure(v) for k, v in x.items()})
    if isinstance(x, (list, tuple, Seq, collections.UserList)):
        return (type(x).__name__, [_structure(v) for v in x])
    return type(x).__name__


def _plain(x):
    """The result with containers harness.compare_values doesn't know made plain (types: see _structure)."""
    if isinstance(x, (torch.Tensor, torchshim.Tensor, str, bytes)):
        return x
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.tolist())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(_plain(v) for v in x))
    if isinstance(x, collections.abc.Mapping):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, Seq, collections.UserList, range)):
        return [_plain(v) for v in x]
    return x


def check_collate(make_batch, fn="default_collate", msg="exact"):
    """Collate `make_batch(T)` with `fn` under both libraries: results, then container types."""
    ref, got = check(lambda T: _plain(getattr(D(T), fn)(make_batch(T))), msg=msg)
    if ref.error is None:
        assert _structure(getattr(D(torch), fn)(make_batch(torch))) == \
            _structure(getattr(D(torchshim), fn)(make_batch(torchshim)))


DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8", "bool", "complex64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_collate_tensors(dtype):
    check_collate(lambda T: [T.zeros(2, 3, dtype=getattr(T, dtype)), T.ones(2, 3, dtype=getattr(T, dtype))])


def test_collate_scalar_tensors_and_views():
    check_collate(lambda T: [T.tensor(1.5), T.tensor(-2.0)])
    check_collate(lambda T: list(T.arange(12.0).reshape(3, 4).t()))


NP_DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "int16", "bool", "complex128"]


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_collate_numpy_arrays(dtype):
    check_collate(lambda T: [np.arange(6).reshape(2, 3).astype(dtype), np.ones((2, 3), dtype)])


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_collate_numpy_scalars(dtype):
    check_collate(lambda T: [np.dtype(dtype).type(1), np.dtype(dtype).type(0)])


def test_collate_numpy_memmap_subclass():
    class Sub(np.ndarray):
        pass
    check_collate(lambda T: [np.arange(3.0).view(Sub), np.zeros(3).view(Sub)])


@pytest.mark.parametrize("batch", [[1, 2, 3], [1.5, 2.0], [True, False], [2**40, -1], [0.1, 1e300]], ids=str)
def test_collate_python_numbers(batch):
    check_collate(lambda T: batch)


@pytest.mark.parametrize("batch", [["a", "bc"], [b"x", b"yz"]], ids=str)
def test_collate_strings_and_bytes_unchanged(batch):
    for T in (torch, torchshim):
        out = D(T).default_collate(batch)
        assert out == batch and type(out) is list and all(type(a) is type(b) for a, b in zip(out, batch))


def test_collate_dicts():
    check_collate(lambda T: [{"a": 1, "b": T.zeros(2)}, {"a": 2, "b": T.ones(2)}])
    od = collections.OrderedDict
    check_collate(lambda T: [od(b=1.0, a=[1, 2]), od(b=2.0, a=[3, 4])])
    dd = lambda v: collections.defaultdict(list, {"k": v})  # noqa: E731
    check_collate(lambda T: [dd(1), dd(2)])
    check_collate(lambda T: [FrozenMap({"p": 1}), FrozenMap({"p": 2})])
    check_collate(lambda T: [NoInitMap("q", 1.0), NoInitMap("q", 2.0)])


def test_collate_namedtuples_tuples_lists():
    check_collate(lambda T: [Point(1, T.zeros(2)), Point(2, T.ones(2))])
    check_collate(lambda T: [(1, "a", 2.0), (3, "b", 4.0)])
    check_collate(lambda T: [[T.zeros(1), 1], [T.ones(1), 2]])
    check_collate(lambda T: [Seq([1, 2]), Seq([3, 4])])
    check_collate(lambda T: [UserList([1, 2]), UserList([3, 4])])
    check_collate(lambda T: [range(2), range(2, 4)])


def test_collate_nested():
    def batch(T):
        return [{"img": np.full((2, 2), i, np.float32), "meta": {"id": i, "tags": ("x", f"t{i}")},
                 "pts": [Point(i, i + 0.5), Point(-i, 0.0)], "t": T.tensor([i, i])} for i in range(3)]
    check_collate(batch)


@pytest.mark.parametrize("case", ["tensor_sizes", "tensor_ndim", "list_lengths", "object_array", "str_array",
                                  "set", "none", "object", "numpy_sizes"])
def test_collate_errors(case):
    def batch(T):
        return {"tensor_sizes": [T.zeros(2), T.zeros(3)], "tensor_ndim": [T.zeros(2), T.zeros(1, 2)],
                "list_lengths": [[1, 2], [3]],
                "object_array": [np.array([1, None]), np.array([2, 3], object)],
                "str_array": [np.array(["a"]), np.array(["b"])], "set": [{1}, {2}], "none": [None, None],
                "object": [object(), object()], "numpy_sizes": [np.zeros(2), np.zeros(3)]}[case]
    check_collate(batch)


def test_collate_mixed_tensor_dtypes():
    check_collate(lambda T: [T.zeros(2, dtype=T.int64), T.ones(2)])


# ---- default_convert ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["int", "ndarray", "np_scalar", "str_array", "object_array", "np_str",
                                  "namedtuple", "tuple", "list", "dict", "frozen_map", "seq", "range",
                                  "tensor", "str", "nested"])
def test_default_convert(case):
    def data(T):
        return {"int": 0, "ndarray": np.array([0, 1]), "np_scalar": np.float32(2.5),
                "str_array": np.array(["a", "b"]), "object_array": np.array([1, None]),
                "np_str": np.str_("s"), "namedtuple": Point(np.array(0), 1), "tuple": (np.array([1.0]), "x"),
                "list": [np.int16(3), 2], "dict": collections.OrderedDict(a=np.ones(2), b="s"),
                "frozen_map": FrozenMap({"a": np.ones(1)}),
                "seq": Seq([np.zeros(1)]), "range": range(3), "tensor": T.arange(3), "str": "abc",
                "nested": {"x": [np.arange(2), (np.float64(1.0),)]}}[case]

    check_collate(data, fn="default_convert")


def test_default_convert_keeps_tensor_identity():
    t = torchshim.ones(2)
    assert torchshim.utils.data.default_convert(t) is t


# ---- collate_fn_map dispatch -------------------------------------------------------------------------------
class Custom:
    def __init__(self, v):
        self.v = v


class CustomChild(Custom):
    pass


def test_collate_fn_map_custom_type_and_subclass():
    def fn(T):
        def collate_custom(batch, *, collate_fn_map=None):
            return T.tensor([c.v for c in batch]) * 10

        fmap = {Custom: collate_custom, **C(T).default_collate_fn_map}
        batch = [{"c": CustomChild(1), "n": 1}, {"c": CustomChild(2), "n": 2}]
        return C(T).collate(batch, collate_fn_map=fmap), C(T).collate([[1, 2], [3, 4]], collate_fn_map=fmap)
    check(fn)


def test_collate_without_map_rejects_leaves():
    check(lambda T: C(T).collate([1, 2]))
    check(lambda T: C(T).collate([[1, 2], [3, 4]], collate_fn_map=None), msg="exact")


def test_collate_fn_map_overrides_tensor_rule():
    def fn(T):
        fmap = dict(C(T).default_collate_fn_map)
        fmap[T.Tensor] = lambda batch, *, collate_fn_map=None: T.cat(batch)
        return C(T).collate([(T.ones(2), 1), (T.zeros(2), 2)], collate_fn_map=fmap)
    check(fn)


def test_default_collate_fn_map_keys():
    def names(m):
        return [k.__name__ if isinstance(k, type) else tuple(c.__name__ for c in k) for k in m]
    assert names(C(torch).default_collate_fn_map) == names(C(torchshim).default_collate_fn_map)


def test_collate_error_message_format():
    check(lambda T: C(T).default_collate_err_msg_format)
