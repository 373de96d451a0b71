"""`torch.nn.DataParallel` and `torch.nn.parallel.data_parallel` (ported from PyTorch 2.13).

As in PyTorch, the batch is split only over accelerator devices: with jax GPUs ('cuda:i'), the inputs are
scattered along `dim` over `device_ids`, the module is replicated (differentiably: gradients reach the
original parameters), the replicas run, and the outputs are gathered on `output_device`. With one GPU the
module runs on it; without GPUs `DataParallel` just runs the module (`device_ids == []`) and `data_parallel`
raises PyTorch's 'device type could not be determined'. Tensors may be nested in tuples, lists, dicts and
namedtuples, positional or keyword."""
from itertools import chain

from ... import _device as Dev
from ...autograd.grad_mode import is_grad_enabled
from ..modules.module import Module
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _get_available_device_type():
    from ... import cuda
    return "cuda" if cuda.is_available() else None


def _get_all_device_indices():
    from ... import cuda
    return list(range(cuda.device_count()))


def _get_device_index(device, optional=False):
    """The cuda index of an int / 'cuda:i' / torch.device (None for 'cuda' means the current device)."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        device = Dev.device(device)
    if isinstance(device, Dev.device):
        if device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        if device.index is None:
            if not optional:
                raise ValueError("Expected a torch.device with a specified index or an integer, but "
                                 f"got:{device}")
            return Dev.current_cuda_index()
        return device.index
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")


def _check_params_on(module, src_device_obj):
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device_obj:
            raise RuntimeError(f"module must have its parameters and buffers on device {src_device_obj} "
                               f"(device_ids[0]) but found one of them on device: {t.device}")


class DataParallel(Module):
    """`DataParallel(module, device_ids=None, output_device=None, dim=0)`: run `module` on chunks of the batch
    (dim `dim`) on several GPUs and gather the results (see the module docstring). The wrapped module is
    `self.module` (state_dict keys are prefixed with 'module.')."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        device_type = _get_available_device_type()
        if device_type is None:
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = _get_all_device_indices()
        if device_ids is None:
            raise RuntimeError("no available devices were found")
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_get_device_index(x, True) for x in device_ids]
        self.output_device = _get_device_index(output_device, True)
        self.src_device_obj = Dev.device(device_type, self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_params_on(self.module, self.src_device_obj)
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        # for forward function without any inputs, empty list and dict will be created so the module can be
        # executed on one device which is the first one in device_ids
        if not inputs and not module_kwargs:
            inputs = ((),)
            module_kwargs = ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        return replicate(module, device_ids, not is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """`data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None)`: the
    functional form of DataParallel (the module's parameters must be on device_ids[0])."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device_type = _get_available_device_type()
    if device_type is None:
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = _get_all_device_indices()
    if device_ids is None:
        raise RuntimeError("no available devices were found")
    if output_device is None:
        output_device = device_ids[0]
    device_ids = [_get_device_index(x, True) for x in device_ids]
    output_device = _get_device_index(output_device, True)
    src_device_obj = Dev.device(device_type, device_ids[0])
    _check_params_on(module, src_device_obj)
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    if not inputs and not module_kwargs:
        inputs = ((),)
        module_kwargs = ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **module_kwargs[0])
    used_device_ids = device_ids[:len(inputs)]
    replicas = replicate(module, used_device_ids)
    outputs = parallel_apply(replicas, inputs, module_kwargs, used_device_ids)
    return gather(outputs, output_device, dim)
