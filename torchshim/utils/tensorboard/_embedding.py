"""The files of `SummaryWriter.add_embedding` for TensorBoard's projector: tensors.tsv, metadata.tsv,
sprite.png and the run's projector_config.pbtxt."""
import io
import math
import os

import numpy as np

from ._convert import make_grid, make_np

__all__ = ["make_tsv", "make_sprite", "make_mat", "embedding_info", "write_pbtxt"]


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_tsv(metadata, save_path, metadata_header=None):
    """metadata.tsv: one label per line, or a header line and tab-separated columns."""
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header] + list(metadata)]
    _write(os.path.join(save_path, "metadata.tsv"), ("\n".join(lines) + "\n").encode())


def make_sprite(label_img, save_path):
    """sprite.png: the label images (N, C, H, W, values in [0, 1]) in a square grid."""
    from PIL import Image
    imgs = make_np(label_img)
    nrow = math.ceil(imgs.shape[0] ** 0.5)
    chw = make_grid(imgs, ncols=nrow)
    square = np.zeros((chw.shape[2], chw.shape[2], 3))
    hwc = chw.transpose(1, 2, 0)
    square[:hwc.shape[0], :, :] = hwc
    im = Image.fromarray(np.uint8((square * 255).clip(0, 255)))
    with io.BytesIO() as buf:
        im.save(buf, format="PNG")
        _write(os.path.join(save_path, "sprite.png"), buf.getvalue())


def make_mat(mat, save_path):
    """tensors.tsv: one data point per line, tab-separated."""
    lines = ["\t".join(str(v.item()) for v in row) + "\n" for row in mat]
    _write(os.path.join(save_path, "tensors.tsv"), "".join(lines).encode())


def embedding_info(metadata, label_img, subdir, global_step, tag):
    """The projector's EmbeddingInfo entry of one embedding."""
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo
    info = EmbeddingInfo()
    info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
    info.tensor_path = os.path.join(subdir, "tensors.tsv")
    if metadata is not None:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    return info


def write_pbtxt(save_path, contents):
    _write(os.path.join(save_path, "projector_config.pbtxt"), contents.encode())
