"""`torch.distributed`'s enum-like names: ReduceOp, Backend, GroupMember, group (PyTorch's names and
values)."""
import enum

__all__ = ["ReduceOp", "Backend", "GroupMember", "group"]


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
