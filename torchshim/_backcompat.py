"""`torch.utils.backcompat.broadcast_warning` / `keepdim_warning` (re-exported there; a base module, read by
the ops).

PyTorch 2.13 keeps these flags but never warns. torchshim, deliberately, emits the warnings of the PyTorch 0.2
release notes when a user switches them on, to help port old scripts (documented in docs/differences.md):
- broadcast_warning: an elementwise op whose inputs have different shapes but the same number of elements
  (the pre-0.2 "pointwise" behaviour would have given another result);
- keepdim_warning: a reduction over a dim called without an explicit keepdim.
"""


class Warning:
    """A switch with an `enabled` attribute, like PyTorch's backcompat Warning object."""

    def __init__(self, setter=None, getter=None):
        self.enabled = False

    def set_enabled(self, value):
        self.enabled = bool(value)

    def get_enabled(self):
        return self.enabled


broadcast_warning = Warning()
keepdim_warning = Warning()
