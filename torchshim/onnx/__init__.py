"""`torch.onnx`: importable; exporting is not available (torchshim has neither TorchScript nor torch.export
graphs to translate). `export` raises `OnnxExporterError` (a RuntimeError, the type PyTorch raises when its
exporter cannot run) with a clear message; `is_in_onnx_export()` is False. docs/differences.md:
"torch.onnx"."""
import enum

from . import errors  # noqa: F401
from .errors import OnnxExporterError

__all__ = ["export", "dynamo_export", "is_in_onnx_export", "OnnxExporterError", "TrainingMode",
           "OperatorExportTypes", "producer_name", "producer_version", "register_custom_op_symbolic",
           "unregister_custom_op_symbolic", "select_model_mode_for_export", "errors"]

producer_name = "pytorch"
producer_version = "2.13.0"

_MESSAGE = ("torch.onnx.{fn}: torchshim cannot export to ONNX (it runs on JAX and has no TorchScript or "
            "torch.export graph to translate). Export from PyTorch itself, or save the weights with "
            "torch.save(model.state_dict(), ...).")


class TrainingMode(enum.IntEnum):
    """`torch.onnx.TrainingMode`."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """`torch.onnx.OperatorExportTypes`."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, **options):
    """`torch.onnx.export(model, args=(), f=None, ...)`: raises OnnxExporterError (no exporter in
    torchshim)."""
    raise OnnxExporterError(_MESSAGE.format(fn="export"))


def dynamo_export(model, *args, **kwargs):
    """`torch.onnx.dynamo_export(...)`: raises OnnxExporterError (no exporter in torchshim)."""
    raise OnnxExporterError(_MESSAGE.format(fn="dynamo_export"))


def is_in_onnx_export():
    """`torch.onnx.is_in_onnx_export() -> bool`: False (no export ever runs)."""
    return False


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """`torch.onnx.register_custom_op_symbolic(...)`: raises OnnxExporterError (no exporter)."""
    raise OnnxExporterError(_MESSAGE.format(fn="register_custom_op_symbolic"))


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """`torch.onnx.unregister_custom_op_symbolic(...)`: raises OnnxExporterError (no exporter)."""
    raise OnnxExporterError(_MESSAGE.format(fn="unregister_custom_op_symbolic"))


def select_model_mode_for_export(model, mode):
    """`torch.onnx.select_model_mode_for_export(model, mode)`: a context manager putting the model in the
    mode (EVAL / TRAINING / PRESERVE) for the block and restoring it after, as in PyTorch."""
    import contextlib

    @contextlib.contextmanager
    def ctx():
        if not isinstance(mode, TrainingMode):
            raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got '{type(mode)}'.")
        was = model.training
        if mode is not TrainingMode.PRESERVE:
            model.train(mode is TrainingMode.TRAINING)
        try:
            yield
        finally:
            model.train(was)
    return ctx()
