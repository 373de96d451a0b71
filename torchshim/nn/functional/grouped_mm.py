"""`F.grouped_mm` (the mixture-of-experts grouped matrix product) and the scaling/swizzle enums of PyTorch's
scaled (fp8) products. Written with torchshim ops, so gradients flow (PyTorch's CPU backward is broken for
this op); rows or columns past the last offset are zeros (PyTorch leaves them uninitialized)."""
import enum

from ... import _api as torch

__all__ = ["grouped_mm", "ScalingType", "SwizzleType"]


class _ScalingType(enum.Enum):
    """`F.ScalingType`: how a scaled matmul's scale tensor applies (per tensor, per row, per block)."""
    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class _SwizzleType(enum.Enum):
    """`F.SwizzleType`: the layout of a blocked scale tensor."""
    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


ScalingType, SwizzleType = _ScalingType, _SwizzleType  # PyTorch's classes are named with the underscore

_C10 = {"float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float64": "double"}
_DTYPE_TEXT = {"float32": "Float32", "float16": "Float16", "bfloat16": "BFloat16", "float64": "Double"}


def _name(dtype):
    return str(dtype).replace("torch.", "")


def _check(mat_a, mat_b, offs, bias, out_dtype):
    a_name = _name(mat_a.dtype)
    if a_name not in ("float32", "bfloat16", "float16"):
        raise RuntimeError("Expected mat_a to be Float32, BFloat16 or Float16 matrix, got "
                           f"{_DTYPE_TEXT.get(a_name, a_name)}")
    if mat_b.dtype != mat_a.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_C10.get(_name(mat_b.dtype))}, but got "
                           f"{_C10.get(a_name)} instead")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if mat_a.dim() not in (2, 3):
        raise RuntimeError("mat_a has to be 2 or 3d")
    if mat_b.dim() not in (2, 3):
        raise RuntimeError("mat_b has to be 2 or 3d")
    if (mat_a.dim() == 2 or mat_b.dim() == 2) != (offs is not None):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices "
                           "are 3d")
    if offs is not None:
        if offs.dim() != 1:
            raise RuntimeError("offs has to be 1D")
        if offs.dtype != torch.int32:
            raise RuntimeError("Offsets have to be int32")
    if mat_a.size(-1) != mat_b.size(-2):
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    if mat_a.dim() == 3 and mat_b.dim() == 3 and mat_a.size(0) != mat_b.size(0):
        raise RuntimeError("batched dimension has to match")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")


def _groups(offs, n):
    """For each of n positions, its group (the number of offsets <= position) and whether it has one."""
    pos = torch.arange(n, device=offs.device)
    gid = (pos.unsqueeze(1) >= offs.long().unsqueeze(0)).sum(1)
    return gid.clamp(max=offs.numel() - 1), gid < offs.numel()


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """`F.grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None)`: per-group products.
    3d x 3d: batched matmul. 2d (M, K) x 3d (G, K, N): rows of mat_a split at the cumulative `offs` (int32),
    group g times mat_b[g] -> (M, N). 3d (G, M, K) x 2d (K, N): columns of mat_b split -> (M, N). 2d (M, K) x
    2d (K, N): the contraction dim split -> (G, M, N)."""
    _check(mat_a, mat_b, offs, bias, out_dtype)
    if offs is None:
        return torch.bmm(mat_a, mat_b)
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        full = torch.matmul(mat_a.unsqueeze(0), mat_b)  # (G, M, N)
        gid, valid = _groups(offs, mat_a.size(0))
        index = gid.view(1, -1, 1).expand(1, full.size(1), full.size(2))
        return full.gather(0, index).squeeze(0) * valid.unsqueeze(1).to(full.dtype)
    if mat_a.dim() == 3 and mat_b.dim() == 2:
        full = torch.matmul(mat_a, mat_b.unsqueeze(0))  # (G, M, N)
        gid, valid = _groups(offs, mat_b.size(1))
        index = gid.view(1, 1, -1).expand(1, full.size(1), full.size(2))
        return full.gather(0, index).squeeze(0) * valid.unsqueeze(0).to(full.dtype)
    gid, valid = _groups(offs, mat_a.size(1))
    mask = (gid.unsqueeze(0) == torch.arange(offs.numel(), device=offs.device).unsqueeze(1)) & valid
    return torch.matmul(mat_a.unsqueeze(0) * mask.unsqueeze(1).to(mat_a.dtype), mat_b)  # (G, M, N)
