"""`torch.fx.passes.shape_prop`: `ShapeProp` runs a GraphModule on example inputs and records each node's
result in `node.meta['tensor_meta']` (a `TensorMetadata`, or a structure of them) and `node.meta['type']`."""
from typing import NamedTuple

from ..._tensor import Tensor
from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["TensorMetadata", "ShapeProp", "extract_tensor_metadata"]


class TensorMetadata(NamedTuple):
    """`TensorMetadata(shape, dtype, requires_grad, stride, memory_format, is_quantized, qparams)`."""
    shape: object
    dtype: object
    requires_grad: bool
    stride: tuple
    memory_format: object
    is_quantized: bool
    qparams: dict


def extract_tensor_metadata(result):
    """The TensorMetadata of a tensor."""
    from ... import _api as torch
    memory_format = None
    for fmt in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d):
        try:
            if result.is_contiguous(memory_format=fmt):
                memory_format = fmt
                break
        except (RuntimeError, ValueError):
            continue
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format,
                          False, {})


class ShapeProp(Interpreter):
    """`ShapeProp(gm)`; `propagate(*args)` runs the module and fills `node.meta['tensor_meta']`.
    Difference from PyTorch: no fake-tensor mode (`fake_mode=` is not accepted); inputs are real tensors."""

    def __init__(self, gm):
        super().__init__(gm)

    def run_node(self, n):
        result = super().run_node(n)
        found = [False]

        def extract(obj):
            if isinstance(obj, Tensor):
                found[0] = True
                return extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found[0]:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the module on `args` (recording shapes); returns its output."""
        return super().run(*args)
