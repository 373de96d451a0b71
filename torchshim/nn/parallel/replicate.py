"""`torch.nn.parallel.replicate` (ported from PyTorch 2.13): shallow copies of a module tree, one per device,
whose parameters are differentiable copies (Broadcast) of the original's: gradients of a replica's
parameters flow back into the original parameters. Buffers are copied without history (unless they require
grad)."""
from collections import OrderedDict

from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedParameter
from ._functions import Broadcast, _copy_to, as_device

__all__ = ["replicate"]


def _broadcast_coalesced_reshape(tensors, devices, detach=False):
    """Per device, the list of copies of `tensors` on it."""
    if len(tensors) == 0:
        return []
    if detach:
        with no_grad():
            return [[_copy_to(t.detach(), d) for t in tensors] for d in devices]
    tensor_copies = Broadcast.apply(devices, *tensors)
    return [list(tensor_copies[i:i + len(tensors)]) for i in range(0, len(tensor_copies), len(tensors))]


def replicate(network, devices, detach=False):
    """`replicate(network, devices, detach=False)`: replicas of `network`, the j-th on devices[j]."""
    if not devices:
        return []
    devices = [as_device(x) for x in devices]
    num_replicas = len(devices)
    params = list(network.parameters())
    for p in params:
        if isinstance(p, UninitializedParameter):
            raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                               "Run a "
                               "dummy forward pass to correctly initialize the modules")
    param_indices = {param: idx for idx, param in enumerate(params)}
    param_copies = _broadcast_coalesced_reshape(params, devices, detach)

    buffers = list(network.buffers())
    buffers_rg = [b for b in buffers if b.requires_grad and not detach]
    buffers_not_rg = [b for b in buffers if not (b.requires_grad and not detach)]
    buffer_indices_rg = {buf: idx for idx, buf in enumerate(buffers_rg)}
    buffer_indices_not_rg = {buf: idx for idx, buf in enumerate(buffers_not_rg)}
    buffer_copies_rg = _broadcast_coalesced_reshape(buffers_rg, devices, detach=detach)
    buffer_copies_not_rg = _broadcast_coalesced_reshape(buffers_not_rg, devices, detach=True)

    modules = list(network.modules())
    module_copies = [[] for _ in devices]
    module_indices = {}
    for i, module in enumerate(modules):
        module_indices[module] = i
        for j in range(num_replicas):
            replica = module._replicate_for_data_parallel()
            # This is a temporary fix for DDP. DDP needs to access the replicated model parameters. It used to
            # do so through `mode.parameters()`. The fix added in #33907 for DP stops the `parameters()` API
            # from exposing the replicated parameters. Hence, we add a `_former_parameters` dict here to
            # support DDP.
            replica._former_parameters = OrderedDict()
            module_copies[j].append(replica)

    for i, module in enumerate(modules):
        for key, child in module._modules.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if child is None:
                    replica._modules[key] = None
                else:
                    setattr(replica, key, module_copies[j][module_indices[child]])
        for key, param in module._parameters.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if param is None:
                    replica._parameters[key] = None
                else:
                    param_copy = param_copies[j][param_indices[param]]
                    # parameters in replicas are no longer leaves, so setattr them as non-parameter attributes
                    setattr(replica, key, param_copy)
                    # expose the parameter for DDP
                    replica._former_parameters[key] = param_copy
        for key, buf in module._buffers.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if buf is None:
                    replica._buffers[key] = None
                    continue
                if buf.requires_grad and not detach:
                    copies, idx = buffer_copies_rg, buffer_indices_rg[buf]
                else:
                    copies, idx = buffer_copies_not_rg, buffer_indices_not_rg[buf]
                setattr(replica, key, copies[j][idx])
    return [module_copies[j][0] for j in range(num_replicas)]
