"""`nn.InstanceNorm1d/2d/3d` and their `Lazy*` forms (ported from PyTorch 2.13's
torch/nn/modules/instancenorm.py): per-sample, per-channel normalisation through `F.instance_norm`, sharing
`_NormBase` with BatchNorm (affine=False and track_running_stats=False by default). Unbatched inputs are
normalised as a batch of one. An input whose channel count differs from num_features is an error when affine,
otherwise a warning (as PyTorch). Loading a pre-0.4 state dict with running stats into a module that does not
track them reports PyTorch's error.

Example:
    >>> nn.InstanceNorm2d(3, affine=True)(torch.randn(2, 3, 4, 4)).shape
    torch.Size([2, 3, 4, 4])
"""
import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """The InstanceNorm forward: dim checks, the num_features check, unbatched inputs."""

    _no_batch_dim = None

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)

    def _check_input_dim(self, input):
        n = self._no_batch_dim
        if input.dim() not in (n, n + 1):
            raise ValueError(f"expected {n}D or {n + 1}D input (got {input.dim()}D input)")

    def _get_no_batch_dim(self):
        return self._no_batch_dim

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        # at version 1: removed running_mean and running_var when track_running_stats=False (default)
        if version is None and not self.track_running_stats:
            running_stats_keys = []
            for name in ("running_mean", "running_var"):
                key = prefix + name
                if key in state_dict:
                    running_stats_keys.append(key)
            if len(running_stats_keys) > 0:
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. "
                    "If state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} "
                    "does not track running stats by default since 0.4.0. Please remove these keys from "
                    "state_dict. If the running stats are actually needed, instead set "
                    "track_running_stats=True in {klass} to enable them. See the documentation of {klass} "
                    "for details.".format(
                        names=" and ".join(f'"{k}"' for k in running_stats_keys),
                        klass=self.__class__.__name__))
                for key in running_stats_keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence "
                          "this warning by not passing in num_features, which is not used because "
                          "affine=False",
                          stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """`InstanceNorm1d(num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
    device=None, dtype=None, *, bias=True)`: input (N, C, L) or (C, L)."""

    _no_batch_dim = 2


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """`LazyInstanceNorm1d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`: num_features from the first input (PyTorch's lazy defaults: affine and
    tracked)."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """`InstanceNorm2d(num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
    device=None, dtype=None, *, bias=True)`: input (N, C, H, W) or (C, H, W)."""

    _no_batch_dim = 3


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """`LazyInstanceNorm2d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """`InstanceNorm3d(num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
    device=None, dtype=None, *, bias=True)`: input (N, C, D, H, W) or (C, D, H, W)."""

    _no_batch_dim = 4


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """`LazyInstanceNorm3d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
    dtype=None, *, bias=True)`."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
