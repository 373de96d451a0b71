"""`torch.nn.functional` dropouts: F's signatures (`training`, `inplace`), its ValueError for p outside [0, 1]
and dropout1d/2d/3d's shape rules and warnings, over the table ops of torchshim/ops/nn_dropout.py."""
import warnings

__all__ = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """`F.dropout(input, p=0.5, training=True, inplace=False)`: zero elements with probability p and scale
    the rest by 1 / (1 - p); the input itself when not training or p == 0. torchshim's random stream."""
    _check_p(p)
    t = _torch()
    return t.dropout_(input, p, training) if inplace else t.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """`F.alpha_dropout(input, p=0.5, training=False, inplace=False)`."""
    _check_p(p)
    t = _torch()
    return t.alpha_dropout_(input, p, training) if inplace else t.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """`F.feature_alpha_dropout(input, p=0.5, training=False, inplace=False)`: alpha dropout of channels."""
    _check_p(p)
    t = _torch()
    if inplace:
        return t.feature_alpha_dropout_(input, p, training)
    return t.feature_alpha_dropout(input, p, training)


def _feature(input, p, training, inplace):
    t = _torch()
    return t.feature_dropout_(input, p, training) if inplace else t.feature_dropout(input, p, training)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """`F.dropout1d(input, p=0.5, training=True, inplace=False)`: channel dropout of (N, C, L) or (C, L)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                           "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
                           "inputs).")
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature(input, p, training, inplace)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input, p=0.5, training=True, inplace=False):
    """`F.dropout2d(input, p=0.5, training=True, inplace=False)`: channel dropout of (N, C, H, W); PyTorch's
    warnings for other ranks (a 3-d input is treated as (N, C, L))."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this "
                      "warning, please use dropout instead. Note that dropout2d exists to provide "
                      "channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or "
                      "4D inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
                      "dim. This behavior will change in a future release to interpret the input as one "
                      "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _feature(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """`F.dropout3d(input, p=0.5, training=True, inplace=False)`: channel dropout of (N, C, D, H, W) or
    (C, D, H, W); PyTorch's warning for other ranks."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this "
                      "warning, please use dropout instead. Note that dropout3d exists to provide "
                      "channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or "
                      "5D inputs).", stacklevel=2)
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature(input, p, training, inplace)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result
