"""`torch.utils.tensorboard`: `SummaryWriter` writing TensorBoard event files through the `tensorboard`
package's own record writer and protocol buffers. Without `tensorboard` installed, importing this module
raises the same `ModuleNotFoundError` ("No module named 'tensorboard'") as PyTorch's."""
import tensorboard

if not hasattr(tensorboard, "__version__") or tuple(
        int(p) if p.isdigit() else 0 for p in tensorboard.__version__.split(".")[:2]) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
