"""`torch.nn.functional.embedding`: F's argument order, padding_idx normalization and max_norm (renormalizes
the used rows of `weight` in place, under no_grad, before the lookup), over `torch.embedding` and
`torch.embedding_renorm_` (torchshim/ops/nn_embedding.py). F.embedding_bag and F.one_hot are table entries."""
__all__ = ["embedding"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """`F.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
    sparse=False)`: rows of `weight` at `input`; padding_idx's row gets no gradient; max_norm rescales the
    looked-up rows of weight in place to at most that norm. Difference: sparse=True raises."""
    from ... import _api as torchshim
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with torchshim.no_grad():
            torchshim.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return torchshim.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
