"""`torch.backends.mha`: the fast path of `nn.MultiheadAttention` / `TransformerEncoderLayer` in eval."""

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]
_state = {"enabled": True}


def get_fastpath_enabled():
    """`torch.backends.mha.get_fastpath_enabled() -> bool`: True by default."""
    return _state["enabled"]


def set_fastpath_enabled(value: bool):
    """`torch.backends.mha.set_fastpath_enabled(value)`: stored (torchshim's attention layers compute the
    same result on either path)."""
    _state["enabled"] = bool(value)
