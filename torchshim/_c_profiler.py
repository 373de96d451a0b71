"""The enums of PyTorch's profiler extension (`torch._C._profiler`, `torch._C._autograd`) with PyTorch's
members and values, and `kineto_available`: shared by torch.autograd (the tape's layer) and torch.profiler.

PyTorch's enums are pybind11 enums: not `enum.Enum` instances there, but the same surface (`.name`,
`.value`, `int(member)`, `Enum(value)`, `__members__`, `repr`/`str`); members compare equal only to
themselves, not to ints, in both."""
import enum

__all__ = ["DeviceType", "ProfilerActivity", "ProfilerState", "RecordScope", "kineto_available"]


class _CEnum(enum.Enum):
    """An enum that converts to int (`int(member)`, `operator.index`) as a pybind11 enum does."""

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __hash__(self):
        return hash(self.value)


class DeviceType(_CEnum):
    """`torch.autograd.DeviceType` (also `torch.profiler.DeviceType`): c10's device types."""
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    MTIA = 19  # PyTorch's member order
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    PrivateUse1 = 20


class ProfilerActivity(_CEnum):
    """`torch.profiler.ProfilerActivity` (also `torch.autograd.ProfilerActivity`)."""
    CPU = 0  # PyTorch's member order
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerState(_CEnum):
    """`torch.autograd.ProfilerState`: which backend a profiler session records with."""
    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_PRIVATEUSE1 = 9


class RecordScope(_CEnum):
    """`torch.profiler.RecordScope`: the kind of a recorded function."""
    FUNCTION = 0
    BACKWARD_FUNCTION = 1
    TORCHSCRIPT_FUNCTION = 2
    KERNEL_FUNCTION_DTYPE = 3
    CUSTOM_CLASS = 4
    BUILD_FEATURE = 5
    LITE_INTERPRETER = 6
    USER_SCOPE = 7
    STATIC_RUNTIME_OP = 8
    STATIC_RUNTIME_MODEL = 9


def kineto_available():
    """`torch.profiler.kineto_available()` / `torch.autograd.kineto_available()`: False. Difference from
    PyTorch (True in its CPU wheel): torchshim has no Kineto; its profiler is its own span recorder
    (torch.profiler's docstring)."""
    return False
