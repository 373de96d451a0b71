"""`torch.utils.data._utils.collate`: `default_collate` (a list of samples -> a batch), `default_convert`
(numpy -> tensors, no batching), and the type-keyed dispatch behind them (`collate(batch, collate_fn_map=)`,
`default_collate_fn_map`, which users may extend). PyTorch's rules, element by element.

Difference from PyTorch: inside a worker process PyTorch stacks tensors straight into shared memory; torchshim
stacks normally (the batch travels back to the main process as numpy arrays)."""
import collections
import copy
import re

import numpy as np

from .... import _api as torch# attributes are looked up at call time: this module loads while torchshim does

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def default_convert(data):
    """`torch.utils.data.default_convert(data)`: numpy arrays and numpy scalars (not strings or object
    arrays) become tensors, recursively through mappings, namedtuples, tuples (-> lists) and sequences;
    anything else is returned unchanged. The collate function of a DataLoader with `batch_size=None`."""
    elem_type = type(data)
    if isinstance(data, torch.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # PyTorch's backwards compatibility
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _collate_mapping(batch, elem, elem_type, collate_fn_map):
    def items():
        return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(items())
            return clone
        return elem_type(items())
    except TypeError:
        return items()


def _collate_sequence(batch, elem, elem_type, collate_fn_map):
    it = iter(batch)
    elem_size = len(next(it))
    if not all(len(e) == elem_size for e in it):
        raise RuntimeError("each element in list of batch should be of equal size")
    transposed = list(zip(*batch))
    if isinstance(elem, tuple):
        return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, samples in enumerate(transposed):
                clone[i] = collate(samples, collate_fn_map=collate_fn_map)
            return clone
        return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
    except TypeError:
        return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]


def collate(batch, *, collate_fn_map=None):
    """`torch.utils.data._utils.collate.collate(batch, *, collate_fn_map=None)`: collate a list of samples.

    The type of `batch[0]` picks the rule: an exact key of `collate_fn_map`, else the first key (in insertion
    order) it is an instance of, else mappings (per key), namedtuples (per field), sequences (per position,
    all of equal length; tuples give lists). Anything else raises PyTorch's TypeError."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _collate_mapping(batch, elem, elem_type, collate_fn_map)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        return _collate_sequence(batch, elem, elem_type, collate_fn_map)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


_SPARSE_LAYOUTS = ("sparse_coo", "sparse_csr", "sparse_bsr", "sparse_csc", "sparse_bsc")


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors: `torch.stack(batch, 0)` (PyTorch's errors for nested/sparse tensors and unequal sizes)."""
    elem = batch[0]
    if elem.is_nested:
        raise RuntimeError("Batches of nested tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    if elem.layout in {getattr(torch, name) for name in _SPARSE_LAYOUTS}:
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    return torch.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """numpy arrays: `torch.as_tensor` each, then collated as tensors; string/object arrays raise."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """numpy scalars: `torch.as_tensor(batch)`."""
    return torch.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats: a float64 tensor."""
    return torch.tensor(batch, dtype=torch.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools): `torch.tensor(batch)`."""
    return torch.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """str and bytes: the list, unchanged."""
    return batch


default_collate_fn_map = {torch.Tensor: collate_tensor_fn}
default_collate_fn_map[np.ndarray] = collate_numpy_array_fn  # ndarray and memmap
default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """`torch.utils.data.default_collate(batch)`: stack a list of samples into a batch with a new leading
    dimension. Tensors -> stacked tensor; numpy arrays/scalars -> tensors; float -> float64 tensor; int ->
    int64 tensor; str/bytes -> unchanged list; mappings/namedtuples/sequences -> the same structure of
    collated fields (tuples become lists, as in PyTorch)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
