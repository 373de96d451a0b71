"""`torch.backends.cpu`: `get_cpu_capability()`."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """`torch.backends.cpu.get_cpu_capability() -> str`: the vector instruction set PyTorch's CPU kernels
    would use here: 'AVX512' or 'AVX2' on x86 (from /proc/cpuinfo), 'DEFAULT' otherwise (and on other
    architectures PyTorch may report 'SVE256' etc.)."""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return "DEFAULT"
    flags = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            break
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"
