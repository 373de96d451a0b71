"""`F.scaled_mm` (float8 matrix product with scales) as PyTorch runs it on a CPU: tensor-wise and row-wise
scaling, computed in float32 and rounded once to `output_dtype`; the block-wise recipes are GPU kernels
(PyTorch's "Invalid scaling configuration" error here, as on a CPU). `F.scaled_grouped_mm` has no CPU kernel
in PyTorch and raises the same NotImplementedError."""
from ... import _api as torch
from .grouped_mm import _ScalingType

__all__ = ["scaled_mm", "scaled_grouped_mm"]

_C10 = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
        "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2", "float8_e4m3fnuz": "Float8_e4m3fnuz",
        "float8_e5m2fnuz": "Float8_e5m2fnuz"}


def _c10(dtype):
    name = str(dtype).replace("torch.", "")
    return _C10.get(name, name)


def _one(x):
    return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


def _valid(mat_a, mat_b, scale_a, recipe_a, scale_b, recipe_b):
    fp8 = all("float8" in str(m.dtype) for m in (mat_a, mat_b))
    floats = all(isinstance(s, torch.Tensor) and s.dtype == torch.float32 for s in (scale_a, scale_b))
    if not (fp8 and floats):
        return False
    if recipe_a == recipe_b == _ScalingType.TensorWise:
        return scale_a.numel() == 1 and scale_b.numel() == 1
    if recipe_a == recipe_b == _ScalingType.RowWise:
        return (tuple(scale_a.shape) == (mat_a.size(0), 1) and tuple(scale_b.shape) == (1, mat_b.size(1))
                and scale_a.is_contiguous() and scale_b.is_contiguous())
    return False


def scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None, swizzle_b=None,
              bias=None, output_dtype=torch.bfloat16, contraction_dim=(), use_fast_accum=False):
    """`F.scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None,
    swizzle_b=None, bias=None, output_dtype=torch.bfloat16, contraction_dim=(), use_fast_accum=False)`:
    `(mat_a * scale_a) @ (mat_b * scale_b) + bias` for float8 matrices, scales float32 singletons
    (TensorWise) or (M, 1) / (1, N) (RowWise); output_dtype None keeps mat_a's dtype. `use_fast_accum`
    changes nothing on a CPU."""
    scale_a, scale_b = _one(scale_a), _one(scale_b)
    recipe_a, recipe_b = _one(scale_recipe_a), _one(scale_recipe_b)
    if mat_a.size(-1) != mat_b.size(0):
        raise ValueError(f"mat_a and mat_b shapes cannot be multiplied ({mat_a.size(0)}x{mat_a.size(1)} and "
                         f"{mat_b.size(0)}x{mat_b.size(1)})")
    if not _valid(mat_a, mat_b, scale_a, recipe_a, scale_b, recipe_b):
        m, n = mat_a.size(0), mat_b.size(1)
        raise ValueError(
            "Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, scales "
            "should be float and singletons.\n- For RowWise scaling, a and b should be float8, scales should "
            f"be float, scale_a should be ({m}, 1) and scale_b should be (1, {n}), and both should be "
            "contiguous.\n"
            f"Got mat_a.dtype()={_c10(mat_a.dtype)}, scale_a.dtype()={_c10(scale_a.dtype)}, "
            f"scale_a.size()={list(scale_a.shape)}, scale_a.stride()={list(scale_a.stride())}, "
            f"mat_b.dtype()={_c10(mat_b.dtype)}, scale_b.dtype()={_c10(scale_b.dtype)}, "
            f"scale_b.size()={list(scale_b.shape)} and scale_b.stride()={list(scale_b.stride())}")
    row = recipe_a == _ScalingType.RowWise
    out = torch.matmul(mat_a.float(), mat_b.float())
    out = out * (scale_a.reshape(-1, 1) if row else scale_a.reshape(()))
    out = out * (scale_b.reshape(1, -1) if row else scale_b.reshape(()))
    if bias is not None:
        out = out + bias.float()
    return out.to(output_dtype if output_dtype is not None else mat_a.dtype)


def scaled_grouped_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None,
                      swizzle_b=None, bias=None, offs=None, output_dtype=torch.bfloat16, contraction_dim=(),
                      use_fast_accum=False):
    """`F.scaled_grouped_mm(...)`: PyTorch has no CPU kernel for it; raises its NotImplementedError."""
    raise NotImplementedError(
        "Could not run 'aten::_scaled_grouped_mm_v2' with arguments from the 'CPU' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the selective/custom "
        "build process (if using custom build).")
