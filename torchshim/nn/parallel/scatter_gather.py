"""`torch.nn.parallel.scatter`, `scatter_kwargs`, `gather` (ported from PyTorch 2.13): split nested inputs
(tensors inside tuples, lists, dicts, namedtuples) over devices, and gather nested outputs back."""
from ..._tensor import Tensor
from ._functions import Gather, Scatter

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs, target_gpus, dim=0):
    """Slice tensors into approximately equal chunks (along `dim`) and distribute them across the devices;
    other objects are repeated. Returns one entry per device that received a chunk."""
    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return Scatter.apply(target_gpus, None, dim, obj)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in target_gpus]

    # After scatter_map is called, a scatter_map cell will exist. This cell has a reference to the actual
    # function scatter_map, which has references to a closure that has a reference to the scatter_map cell.
    try:
        res = scatter_map(inputs)
    finally:
        scatter_map = None  # noqa: F841
    return res


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """Scatter positional and keyword inputs: (tuple of per-device args, tuple of per-device kwargs)."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """Gather the per-device outputs (same nested structure) on `target_device` (-1: cpu), concatenating
    tensors along `dim`."""
    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            return Gather.apply(target_device, dim, *outputs)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs)))
        return type(out)(map(gather_map, zip(*outputs)))

    try:
        res = gather_map(outputs)
    finally:
        gather_map = None  # noqa: F841
    return res
