"""`nn.BatchNorm1d/2d/3d`, their `Lazy*` forms and `nn.SyncBatchNorm` (ported from PyTorch 2.13's
torch/nn/modules/batchnorm.py), with the `_NormBase` that InstanceNorm shares.

State as PyTorch: `weight` (ones) and `bias` (zeros) when `affine`, buffers `running_mean` (zeros),
`running_var` (ones) and `num_batches_tracked` (int64 scalar) when `track_running_stats`. In training the
batch statistics normalise and the running ones are updated with `momentum` (None: the cumulative average,
factor 1 / num_batches_tracked); in eval the running statistics are used (the batch ones when they are not
tracked). Loading a state dict saved before version 2 (no `num_batches_tracked`) keeps the current counter.

Differences from PyTorch: SyncBatchNorm runs as BatchNorm on the one process (there is no
`torch.distributed` process group to synchronise with). Under `jax.jit` with `momentum=None` the counter is a
traced value, so the cumulative average is applied with tensor arithmetic (the same formula, computed in the
buffer's dtype rather than in double).

Example:
    >>> bn = nn.BatchNorm2d(3)
    >>> bn(torch.randn(4, 3, 5, 5)).shape, int(bn.num_batches_tracked)
    (torch.Size([4, 3, 5, 5]), 1)
"""
import jax

from ..._api import empty, ones, tensor, zeros
from ..._api import long as _long
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from . import _init_helpers as init
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
           "LazyBatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Common base of _BatchNorm and _InstanceNorm: the affine parameters and the running-statistics
    buffers."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """running_mean to 0, running_var to 1, num_batches_tracked to 0 (when tracked)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics; weight to 1 and bias to 0 (when affine)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, bias={use_bias}, "
                "track_running_stats={track_running_stats}".format(**self.__dict__,
                                                                   use_bias=self.bias is not None))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # at version 2: added num_batches_tracked buffer; this should have a default value of 0
            num_batches_tracked_key = prefix + "num_batches_tracked"
            if num_batches_tracked_key not in state_dict:
                current = self.num_batches_tracked
                default = tensor(0, dtype=_long)
                state_dict[num_batches_tracked_key] = current if current is not None else default
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def _traced(t):
    return t is not None and isinstance(t._value, jax.core.Tracer)


class _BatchNorm(_NormBase):
    """The BatchNorm forward shared by BatchNorm{1,2,3}d, their lazy forms and SyncBatchNorm."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)

    def _averaging_factor(self):
        """Count the batch and return the running-average factor: momentum, or 1 / num_batches_tracked (a
        tensor when the counter is traced)."""
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:  # use cumulative moving average
                    if _traced(self.num_batches_tracked):
                        return 1.0 / self.num_batches_tracked
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:  # use exponential moving average
                    exponential_average_factor = self.momentum
        return exponential_average_factor

    def _batch_norm(self, input, exponential_average_factor):
        # mini-batch stats normalise in training, and in eval when there are no running buffers
        bn_training = True if self.training else self.running_mean is None and self.running_var is None
        # buffers are passed when they are updated (training and tracked) or used (eval)
        use_buffers = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_buffers else None
        running_var = self.running_var if use_buffers else None
        if isinstance(exponential_average_factor, Tensor):
            return _batch_norm_traced_factor(input, running_mean, running_var, self.weight, self.bias,
                                             bn_training, exponential_average_factor, self.eps)
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training,
                            exponential_average_factor, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        return self._batch_norm(input, self._averaging_factor())


def _batch_norm_traced_factor(input, running_mean, running_var, weight, bias, training, factor, eps):
    """F.batch_norm with a tensor running-average factor (momentum=None under tracing): the batch statistics
    are taken with momentum 1 and blended as `stat * factor + running * (1 - factor)`."""
    olds = [None if t is None else t.detach().clone() for t in (running_mean, running_var)]
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, 1.0, eps)
    with no_grad():
        for running, old in zip((running_mean, running_var), olds):
            if running is not None:
                f = factor.to(running.dtype)
                running.copy_(running * f + old * (1 - f))
    return out


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features from the first input's dim 1; parameters and running buffers materialized then."""

    def __init__(self, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        # affine and track_running_stats are hardcoded to False to avoid creating tensors that will soon be
        # overwritten
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = tensor(0, dtype=_long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                if not isinstance(self.weight, UninitializedParameter):
                    raise AssertionError("self.weight must be an UninitializedParameter")
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    if not isinstance(self.bias, UninitializedParameter):
                        raise AssertionError("self.bias must be an UninitializedParameter")
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _dims_check(allowed):
    """A `_check_input_dim` accepting `allowed` numbers of dims, with PyTorch's message."""
    text = " or ".join(f"{d}D" for d in allowed)

    def _check_input_dim(self, input):
        if input.dim() not in allowed:
            raise ValueError(f"expected {text} input (got {input.dim()}D input)")
    return _check_input_dim


class BatchNorm1d(_BatchNorm):
    """`BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`: input (N, C) or (N, C, L)."""

    _check_input_dim = _dims_check((2, 3))


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """`LazyBatchNorm1d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`: a BatchNorm1d whose num_features comes from the first input."""

    cls_to_become = BatchNorm1d
    _check_input_dim = _dims_check((2, 3))


class BatchNorm2d(_BatchNorm):
    """`BatchNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`: input (N, C, H, W)."""

    _check_input_dim = _dims_check((4,))


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """`LazyBatchNorm2d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`."""

    cls_to_become = BatchNorm2d
    _check_input_dim = _dims_check((4,))


class BatchNorm3d(_BatchNorm):
    """`BatchNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`: input (N, C, D, H, W)."""

    _check_input_dim = _dims_check((5,))


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """`LazyBatchNorm3d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`."""

    cls_to_become = BatchNorm3d
    _check_input_dim = _dims_check((5,))


class SyncBatchNorm(_BatchNorm):
    """`SyncBatchNorm(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
    process_group=None, device=None, dtype=None, *, bias=True)`: BatchNorm over inputs of 2+ dims. torchshim
    has one process, so the statistics are never synchronised (PyTorch's behaviour without an initialised
    process group)."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        if self.training and self.track_running_stats and self.num_batches_tracked is None:
            raise AssertionError("num_batches_tracked must not be None")
        return self._batch_norm(input, self._averaging_factor())

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every BatchNorm*d in `module` (recursively) by a SyncBatchNorm sharing its parameters and
        buffers; returns the converted module."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group,
                                          bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
