"""`torch.onnx.errors`."""

__all__ = ["OnnxExporterError", "UnsupportedOperatorError", "SymbolicValueError"]


class OnnxExporterError(RuntimeError):
    """`torch.onnx.errors.OnnxExporterError` (also `torch.onnx.OnnxExporterError`)."""


class UnsupportedOperatorError(OnnxExporterError):
    """`torch.onnx.errors.UnsupportedOperatorError`."""


class SymbolicValueError(OnnxExporterError):
    """`torch.onnx.errors.SymbolicValueError`."""
