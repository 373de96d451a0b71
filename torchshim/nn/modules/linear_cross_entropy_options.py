"""`nn.LinearCrossEntropyOptions`: the settings of `F.linear_cross_entropy`'s chunked path, validated as
PyTorch's. torchshim computes that loss one way (linear, then cross entropy, jitted), so the options are
checked and kept but change no number."""
import dataclasses

from ... import _api as torch

__all__ = ["LinearCrossEntropyOptions"]

_ACC_DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """`LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=None, chunking_method='auto',
    acc_policy='auto', acc_dtype=None)`."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: "torch.dtype | None" = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in [getattr(torch, n) for n in _ACC_DTYPES]:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                             "pick automatically.")
