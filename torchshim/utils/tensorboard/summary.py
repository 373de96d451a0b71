"""Summary protocol buffers (tensorboard's own `Summary`, `HistogramProto`, `TensorProto` and plugin data
messages) for what SummaryWriter logs: scalars, histograms, images, text, tensors and hyperparameters."""
import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._convert import convert_to_hwc, make_np

__all__ = ["scalar", "histogram", "histogram_raw", "make_histogram", "image", "text", "tensor_proto",
           "hparams"]


def scalar(name, value, collections=None, new_style=False, double_precision=False):
    """A Summary with one scalar: `simple_value`, or with `new_style` a float (double with
    `double_precision`) tensor for the scalars plugin."""
    arr = make_np(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError("Tensor should contain one element (0 dimensions). Was given size: "
                             f"{arr.size} and {arr.ndim} dimensions.")
    v = float(arr)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=v)])
    proto = (TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[v], dtype="DT_FLOAT"))
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=smd)])


def make_histogram(values, bins, max_bins=None):
    """HistogramProto of `values` with numpy's `bins` (edges or a method name); at most `max_bins` buckets;
    empty leading/trailing buckets trimmed as TensorFlow's histogram.cc does."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        sub = len(counts) // max_bins
        rem = len(counts) % sub
        if rem:
            counts = np.pad(counts, [[0, sub - rem]], mode="constant", constant_values=0)
        counts = counts.reshape(-1, sub).sum(axis=-1)
        new_limits = np.empty((counts.size + 1,), limits.dtype)
        new_limits[:-1] = limits[:-1:sub]
        new_limits[-1] = limits[-1]
        limits = new_limits
    nonzero = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(nonzero, [0, nonzero[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(),
                          bucket=counts.tolist())


def histogram(name, values, bins, max_bins=None):
    """A Summary with the histogram of `values`."""
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002
    """A Summary with a histogram given by its statistics and buckets."""
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _png(hwc_uint8, rescale=1):
    from PIL import Image
    h, w, c = hwc_uint8.shape
    img = Image.fromarray(hwc_uint8)
    img = img.resize((int(w * rescale), int(h * rescale)), Image.Resampling.LANCZOS)
    with io.BytesIO() as out:
        img.save(out, format="PNG")
        data = out.getvalue()
    return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=data)


def image(tag, value, rescale=1, dataformats="NCHW"):
    """A Summary with one PNG image: uint8 values as they are, other dtypes scaled by 255 (values in
    [0, 1]), clipped to [0, 255]; a batch is laid out as a grid. Needs Pillow, as PyTorch's."""
    arr = convert_to_hwc(make_np(value), dataformats)
    scale = 1 if arr.dtype == np.uint8 else 255
    arr = (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=_png(arr, rescale))])


def text(tag, text_string):
    """A Summary for the text plugin: tag `<tag>/text_summary`, a 1-element string tensor."""
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode(encoding="utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=smd, tensor=proto)])


def _half_bits(a):  # PyTorch stores each 16-bit float as the int32 bit pattern of its float32 value
    return a.astype(np.float32).view(np.int32).tolist()


def _plain(a):
    return a.tolist()


def _complex(a):
    return np.stack([a.real, a.imag], -1).ravel().tolist()


_TENSOR_FIELDS = {  # torch dtype name -> (proto dtype, proto field, conversion of the flat numpy array)
    "float16": ("DT_HALF", "half_val", _half_bits), "bfloat16": ("DT_BFLOAT16", "half_val", _half_bits),
    "float32": ("DT_FLOAT", "float_val", _plain), "float64": ("DT_DOUBLE", "double_val", _plain),
    "int8": ("DT_INT8", "int_val", _plain), "uint8": ("DT_UINT8", "uint32_val", _plain),
    "int16": ("DT_INT16", "int_val", _plain), "int32": ("DT_INT32", "int_val", _plain),
    "int64": ("DT_INT64", "int64_val", _plain), "bool": ("DT_BOOL", "bool_val", _plain),
    "complex64": ("DT_COMPLEX64", "scomplex_val", _complex),
    "complex128": ("DT_COMPLEX128", "dcomplex_val", _complex),
}


def tensor_proto(tag, tensor):
    """A Summary with the whole tensor (the 'tensor' plugin); `tensor` is a torch tensor, as PyTorch's."""
    if tensor.numel() * tensor.itemsize >= (1 << 31):
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    name = str(tensor.dtype).replace("torch.", "")
    if name not in _TENSOR_FIELDS:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dtype, field, conv = _TENSOR_FIELDS[name]
    arr = tensor.detach().cpu().to("cpu")
    arr = (arr.float() if name == "bfloat16" else arr).numpy().ravel()
    proto = TensorProto(dtype=dtype, tensor_shape=TensorShapeProto(
        dim=[TensorShapeProto.Dim(size=x) for x in tensor.shape]), **{field: conv(arr)})
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=tag, metadata=smd, tensor=proto)])


def _plugin_summary(tag, **content):
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME,
                                                                 content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=smd)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The three Summaries of the hparams plugin: (experiment, session start, session end)."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import (DataType, Experiment, HParamInfo, MetricInfo,
                                                     MetricName, Status)
    from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, SESSION_END_INFO_TAG,
                                                      SESSION_START_INFO_TAG)
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    from ... import _api as torch
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    discrete = hparam_domain_discrete or {}
    if not isinstance(discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k]))
                                                                      for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    infos = []
    ssi = SessionStartInfo()

    def domain(k, field):
        if k not in discrete:
            return None
        return struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in discrete[k]])
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, (int, float)):  # bool included, as PyTorch (it is an int)
            ssi.hparams[k].number_value = v
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64"),
                                    domain_discrete=domain(k, "number_value")))
        elif isinstance(v, str):
            ssi.hparams[k].string_value = v
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_STRING"),
                                    domain_discrete=domain(k, "string_value")))
        elif isinstance(v, torch.Tensor):
            ssi.hparams[k].number_value = make_np(v)[0]
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
    exp = Experiment(hparam_infos=infos,
                     metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_plugin_summary(EXPERIMENT_TAG, experiment=exp),
            _plugin_summary(SESSION_START_INFO_TAG, session_start_info=ssi),
            _plugin_summary(SESSION_END_INFO_TAG,
                            session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
