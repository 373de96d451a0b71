"""`torch.testing.FileCheck`: PyTorch's checker of TorchScript IR text (torch._C.FileCheck)."""


class FileCheck:
    """`torch.testing.FileCheck()`: checks patterns in the printed TorchScript IR of a scripted or traced
    function. torchshim has no TorchScript IR (docs/coverage.md), so making one raises NotImplementedError."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "torch.testing.FileCheck checks TorchScript IR (the graphs of torch.jit.script/trace), which "
            "torchshim does not produce; compare values with torch.testing.assert_close instead")
