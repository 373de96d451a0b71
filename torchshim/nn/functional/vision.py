"""torch.nn.functional vision wrappers: interpolate (PyTorch's Python argument handling, ported, over the
upsampling kernels of torchshim/ops/nn_upsample.py), the deprecated
upsample/upsample_nearest/upsample_bilinear, grid_sample and affine_grid (over the table's grid_sampler /
affine_grid_generator). `F.pad`, `F.pixel_shuffle`, `F.pixel_unshuffle` and `F.channel_shuffle` come straight
from the op table."""

import math
import numbers
import warnings

from .conv import aten

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample", "affine_grid"]

_K = {
    name: aten(name)
    for name in (
        "upsample_nearest1d",
        "upsample_nearest2d",
        "upsample_nearest3d",
        "_upsample_nearest_exact1d",
        "_upsample_nearest_exact2d",
        "_upsample_nearest_exact3d",
        "upsample_linear1d",
        "upsample_bilinear2d",
        "upsample_trilinear3d",
        "upsample_bicubic2d",
        "grid_sampler",
        "affine_grid_generator",
    )
}


def _is_integer(x):
    from ... import _api as T

    if isinstance(x, T.Tensor):
        return not x.is_floating_point() and not x.is_complex()
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) or isinstance(x, int)


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """`F.interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None, antialias=False)`: modes nearest, nearest-exact, linear, bilinear, bicubic,
    trilinear, area. antialias=True is not supported (NotImplementedError)."""
    from . import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | "
                "bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                    "...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                    f"int], but got size with types {[type(x) for x in size]}"
                )
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                    f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [math.floor(float(input.size(i + 2) * scale_factors[i])) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
            "tensor as input"
        )
    nd = input.dim()
    if mode in ("nearest", "nearest-exact") and nd in (3, 4, 5):
        pre = "upsample_nearest" if mode == "nearest" else "_upsample_nearest_exact"
        return _K[f"{pre}{nd - 2}d"](input, output_size, scale_factors)
    if mode == "area" and nd in (3, 4, 5):
        return {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[nd](
            input, output_size
        )
    if antialias:
        raise NotImplementedError("torchshim: F.interpolate(antialias=True) is not implemented")
    if nd == 3 and mode == "linear":
        return _K["upsample_linear1d"](input, output_size, align_corners, scale_factors)
    if nd == 4 and mode == "bilinear":
        return _K["upsample_bilinear2d"](input, output_size, align_corners, scale_factors)
    if nd == 5 and mode == "trilinear":
        return _K["upsample_trilinear3d"](input, output_size, align_corners, scale_factors)
    if nd == 4 and mode == "bicubic":
        return _K["upsample_bicubic2d"](input, output_size, align_corners, scale_factors)
    if nd == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    wanted = {"bilinear": 4, "trilinear": 5, "linear": 3}
    if nd in (3, 4, 5) and mode in wanted and wanted[mode] != nd:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {wanted[mode]}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
        "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
        f"(got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """`F.upsample` (deprecated): `interpolate` with a warning."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """`F.upsample_nearest` (deprecated): `interpolate(mode='nearest')` with a warning."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """`F.upsample_bilinear` (deprecated): `interpolate(mode='bilinear', align_corners=True)` with a
    warning."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
    "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
    "details."
)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """`F.grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None)`: modes
    bilinear, nearest, bicubic (4-D); padding zeros, border, reflection."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
            f"got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    mode_enum = {"bilinear": 0, "nearest": 1, "bicubic": 2}[mode]
    pad_enum = {"zeros": 0, "border": 1, "reflection": 2}[padding_mode]
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _K["grid_sampler"](input, grid, mode_enum, pad_enum, align_corners)


def affine_grid(theta, size, align_corners=None):
    """`F.affine_grid(theta, size, align_corners=None)`: the sampling grid (N, H, W, 2) or (N, D, H, W, 3) of
    a batch of affine matrices, for `grid_sample`."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial_size) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
            "of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _K["affine_grid_generator"](theta, size, align_corners)
