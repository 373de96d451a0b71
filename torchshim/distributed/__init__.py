"""`torch.distributed`: importable; no process groups yet (the issue "torch.distributed"). `is_available()`
and `is_initialized()` are False, so the usual `if dist.is_available() and dist.is_initialized():` guards take
the single-process path. `init_process_group` raises RuntimeError saying so; the collectives and rank queries
raise PyTorch's ValueError for a missing default process group. `ReduceOp`, `Backend`, `GroupMember`/`group`
carry PyTorch's names and values."""
import enum
import os

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group", "ReduceOp",
           "Backend", "GroupMember", "group", "is_gloo_available", "is_nccl_available", "is_mpi_available",
           "is_ucc_available", "is_xccl_available", "is_torchelastic_launched", "get_rank", "get_world_size",
           "get_backend", "new_group", "barrier", "all_reduce", "broadcast", "all_gather", "reduce", "gather",
           "scatter", "reduce_scatter", "all_to_all", "send", "recv", "isend", "irecv", "all_gather_object",
           "broadcast_object_list", "get_process_group_ranks", "monitored_barrier", "all_gather_into_tensor",
           "reduce_scatter_tensor", "all_to_all_single", "get_global_rank", "get_group_rank",
           "get_node_local_rank",
           "DistError", "DistBackendError"]

_NO_PG = "Default process group has not been initialized, please make sure to call init_process_group."


class DistError(RuntimeError):
    """`torch.distributed.DistError`."""


class DistBackendError(DistError):
    """`torch.distributed.DistBackendError`."""


def is_available():
    """`torch.distributed.is_available() -> bool`: False until torchshim has process groups."""
    return False


def is_initialized():
    """`torch.distributed.is_initialized() -> bool`: False (no process group can be created)."""
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """`torch.distributed.init_process_group(...)`: RuntimeError, torchshim has no distributed backend yet."""
    raise RuntimeError("torch.distributed.init_process_group: torchshim has no distributed backend yet "
                       "(torch.distributed.is_available() is False; see the issue \"torch.distributed\"). "
                       "Run "
                       "the script as a single process (no torchrun / DDP).")


def destroy_process_group(group=None):
    """`torch.distributed.destroy_process_group(group=None)`: AssertionError without a process group, as
    PyTorch."""
    raise AssertionError("Process group cannot be None")


def is_gloo_available():
    """`torch.distributed.is_gloo_available()`: False."""
    return False


def is_nccl_available():
    """`torch.distributed.is_nccl_available()`: False."""
    return False


def is_mpi_available():
    """`torch.distributed.is_mpi_available()`: False."""
    return False


def is_ucc_available():
    """`torch.distributed.is_ucc_available()`: False."""
    return False


def is_xccl_available():
    """`torch.distributed.is_xccl_available()`: False."""
    return False


def is_torchelastic_launched():
    """`torch.distributed.is_torchelastic_launched()`: whether TORCHELASTIC_RUN_ID is set (torchrun sets
    it)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


class ReduceOp:
    """`torch.distributed.ReduceOp`: SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, PREMUL_SUM (members of
    `ReduceOp.RedOpType`)."""

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

        def __int__(self):
            return self.value

        def __str__(self):
            return f"RedOpType.{self.name}"

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class Backend(str):
    """`torch.distributed.Backend(name)`: a lower-cased backend name; `Backend.GLOO`, `NCCL`, ..."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI]

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        return super().__new__(cls, name.lower())


class GroupMember:
    """`torch.distributed.GroupMember`: WORLD is None before init_process_group."""
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    """`torch.distributed.group`: WORLD is None before init_process_group."""
    WORLD = None


def _needs_group(name, doc):
    def fn(*args, **kwargs):
        raise ValueError(_NO_PG)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`torch.distributed.{name}{doc}`: ValueError without a default process group, as PyTorch."
    return fn


for _name, _sig in (("get_rank", "(group=None)"), ("get_world_size", "(group=None)"),
                    ("get_backend", "(group=None)"), ("new_group", "(ranks=None, ...)"),
                    ("barrier", "(group=None, async_op=False, device_ids=None)"),
                    ("monitored_barrier", "(group=None, timeout=None, wait_all_ranks=False)"),
                    ("all_reduce", "(tensor, op=ReduceOp.SUM, group=None, async_op=False)"),
                    ("broadcast", "(tensor, src, group=None, async_op=False)"),
                    ("all_gather", "(tensor_list, tensor, group=None, async_op=False)"),
                    ("all_gather_into_tensor", "(output_tensor, input_tensor, group=None, async_op=False)"),
                    ("reduce", "(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False)"),
                    ("gather", "(tensor, gather_list=None, dst=0, group=None, async_op=False)"),
                    ("scatter", "(tensor, scatter_list=None, src=0, group=None, async_op=False)"),
                    ("reduce_scatter", "(output, input_list, op=ReduceOp.SUM, group=None, async_op=False)"),
                    ("reduce_scatter_tensor", "(output, input, op=ReduceOp.SUM, group=None, async_op=False)"),
                    ("all_to_all", "(output_tensor_list, input_tensor_list, group=None, async_op=False)"),
                    ("all_to_all_single", "(output, input, ...)"),
                    ("send", "(tensor, dst, group=None, tag=0)"),
                    ("recv", "(tensor, src=None, group=None, tag=0)"),
                    ("isend", "(tensor, dst, group=None, tag=0)"),
                    ("irecv", "(tensor, src=None, group=None, tag=0)"),
                    ("all_gather_object", "(object_list, obj, group=None)"),
                    ("broadcast_object_list", "(object_list, src=0, group=None, device=None)"),
                    ("get_process_group_ranks", "(group)"), ("get_global_rank", "(group, group_rank)"),
                    ("get_group_rank", "(group, global_rank)")):
    globals()[_name] = _needs_group(_name, _sig)
del _name, _sig


def get_node_local_rank(fallback_rank=None):
    """`torch.distributed.get_node_local_rank(fallback_rank=None)`: LOCAL_RANK from the environment, else
    fallback_rank, else RuntimeError (PyTorch's message)."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device "
                       "context "
                       "and want the code to run locally instead.")
