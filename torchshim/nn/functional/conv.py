"""`F.unfold` / `F.fold`: PyTorch's Python wrappers over the table's im2col/col2im (torch.nn.functional has
conv1d/2d/3d, conv_transpose1d/2d/3d and conv_tbc straight from the op table)."""

from ...ops._registry import installed

__all__ = ["unfold", "fold"]


def aten(name):
    """The table op `name` (one PyTorch exposes only as `torch._C._nn.<name>`) as installed, with autograd
    recording."""
    return installed(name)


def pair(x):
    """PyTorch's `_pair`: an int becomes (x, x); a sequence is kept."""
    return tuple(x) if isinstance(x, (list, tuple)) else (x, x)


_im2col, _col2im = aten("im2col"), aten("col2im")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """`F.unfold(input, kernel_size, dilation=1, padding=0, stride=1)`: sliding local blocks of a (N, C, H, W)
    (or unbatched (C, H, W)) input as (N, C * kh * kw, L) columns."""
    return _im2col(input, pair(kernel_size), pair(dilation), pair(padding), pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """`F.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)`: sums sliding local blocks
    (N, C * kh * kw, L) back into a (N, C, H, W) tensor (the adjoint of `unfold`)."""
    return _col2im(input, pair(output_size), pair(kernel_size), pair(dilation), pair(padding), pair(stride))
