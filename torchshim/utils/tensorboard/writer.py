"""`SummaryWriter` and `FileWriter`: events appended to TensorBoard event files by tensorboard's
`EventFileWriter` (asynchronous, flushed every `flush_secs` or when `max_queue` events wait)."""
import os
import time

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _embedding as E
from . import summary as S
from ._convert import make_np

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """`FileWriter(log_dir, max_queue=10, flush_secs=120, filename_suffix='')`: adds Event/Summary protocol
    buffers to one event file in `log_dir`."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        """Adds a (GraphDef, RunMetadata) pair, as PyTorch's."""
        graph, stepstats = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)
        trm = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=stepstats.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=trm), None, walltime)

    def add_onnx_graph(self, graph, walltime=None):
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


def _default_bins():
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-b for b in reversed(pos)] + [0] + pos


class SummaryWriter:
    """`SummaryWriter(log_dir=None, comment='', purge_step=None, max_queue=10, flush_secs=120,
    filename_suffix='')`. log_dir defaults to `runs/<Mon DD_HH-MM-SS>_<hostname><comment>`.

    Supported: add_scalar, add_scalars, add_tensor, add_histogram, add_histogram_raw, add_image, add_images,
    add_text, add_hparams, add_embedding, flush, close, `with`. Differences: add_graph raises
    NotImplementedError (PyTorch builds the graph with TorchScript tracing); add_figure, add_video,
    add_audio, add_pr_curve, add_mesh and the custom-scalar layouts are not provided."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            import socket
            from datetime import datetime
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The default FileWriter, made again after close()."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory where event files are written."""
        return self.log_dir

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """`add_hparams(hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
        global_step=None)`: the hparams plugin's summaries and each metric as a scalar, in the sub-run
        `<log_dir>/<run_name or time.time()>`."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = S.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w_hp:
            for summ in (exp, ssi, sei):
                w_hp.file_writer.add_summary(summ, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """`add_scalar(tag, scalar_value, global_step=None, walltime=None, new_style=False,
        double_precision=False)`: a number, a one-element tensor or array."""
        summ = S.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """`add_scalars(main_tag, tag_scalar_dict, global_step=None, walltime=None)`: each value under tag
        `main_tag` in its own run `<log_dir>/<main_tag with '/' as '_'>_<key>`."""
        walltime = time.time() if walltime is None else walltime
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            fw_tag = fw_logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = self.all_writers[fw_tag] = FileWriter(fw_tag, self.max_queue, self.flush_secs,
                                                           self.filename_suffix)
            fw.add_summary(S.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """`add_tensor(tag, tensor, global_step=None, walltime=None)`: the whole tensor."""
        self._get_file_writer().add_summary(S.tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """`add_histogram(tag, values, global_step=None, bins='tensorflow', walltime=None, max_bins=None)`:
        bins 'tensorflow' (TensorFlow's exponential edges) or anything `numpy.histogram` takes."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(S.histogram(tag, values, bins, max_bins=max_bins), global_step,
                                            walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,  # noqa: A002
                          bucket_counts, global_step=None, walltime=None):
        """`add_histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
        global_step=None, walltime=None)`."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summ = S.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """`add_image(tag, img_tensor, global_step=None, walltime=None, dataformats='CHW')`: PNG-encoded
        (needs Pillow); float values in [0, 1], uint8 in [0, 255]."""
        self._get_file_writer().add_summary(S.image(tag, img_tensor, dataformats=dataformats), global_step,
                                            walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """`add_images(tag, img_tensor, global_step=None, walltime=None, dataformats='NCHW')`: a batch as one
        grid image."""
        self._get_file_writer().add_summary(S.image(tag, img_tensor, dataformats=dataformats), global_step,
                                            walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """`add_text(tag, text_string, global_step=None, walltime=None)`."""
        self._get_file_writer().add_summary(S.text(tag, text_string), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """`add_graph(model, input_to_model=None, verbose=False, use_strict_trace=True)`: not supported."""
        raise NotImplementedError("SummaryWriter.add_graph is not supported by torchshim: PyTorch builds "
                                  "the graph with TorchScript tracing (torch.jit.trace), which torchshim "
                                  "does not have. The other add_* methods work.")

    @staticmethod
    def _encode(rawstr):
        retval = rawstr
        retval = retval.replace("%", f"%{ord('%'):02x}")
        retval = retval.replace("/", f"%{ord('/'):02x}")
        retval = retval.replace("\\", "%%%02x" % (ord("\\")))  # noqa: UP031
        return retval

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """`add_embedding(mat, metadata=None, label_img=None, global_step=None, tag='default',
        metadata_header=None)`: the projector's files under `<log_dir>/<step:05d>/<tag>`."""
        mat = make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = f"{str(global_step).zfill(5)}/{self._encode(tag)}"
        save_path = os.path.join(self._get_file_writer().get_logdir(), subdir)
        if os.path.exists(save_path):
            if os.path.isdir(save_path):
                print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
            else:
                raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            E.make_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            E.make_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        E.make_mat(mat, save_path)
        if not hasattr(self, "_projector_config"):
            from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([E.embedding_info(metadata, label_img, subdir, global_step,
                                                                   tag)])
        from google.protobuf import text_format
        config = text_format.MessageToString(self._projector_config)
        E.write_pbtxt(self._get_file_writer().get_logdir(), config)

    def flush(self):
        """Writes every pending event of every run to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        """Flushes and closes every event file; a later add_* opens new ones."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
