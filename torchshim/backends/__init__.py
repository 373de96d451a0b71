"""`torch.backends`: the backend switches of PyTorch's CPU build (cudnn, cuda, mps, mkldnn, cpu, opt_einsum,
openmp, mkl, mha), stored and read back; those with a JAX meaning are applied (float32 matmul precision).
The `torch.*` global switches (deterministic algorithms, thread counts, ...) are in `_global_flags`."""
from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
from . import cusparselt, kleidiai, miopen, nnpack, python_native  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp", "opt_einsum",
           "cusparselt", "kleidiai", "miopen", "nnpack", "python_native"]
