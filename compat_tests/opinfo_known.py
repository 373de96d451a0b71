"""Known disagreements of torchshim with PyTorch on PyTorch's OpInfo samples (test_opinfo.py): case id ->
short reason (the failure's first line, untriaged). Each is a strict xfail: when a fix makes the case pass,
the test fails until its entry goes."""

KNOWN = {
    "hash_tensor-float32-1":
        "IndexError: index 0 is out of bounds for axis 0 with size 0",
    "hash_tensor-float64-1":
        "IndexError: index 0 is out of bounds for axis 0 with size 0",
    "hash_tensor-int64-1":
        "IndexError: index 0 is out of bounds for axis 0 with size 0",
    "linalg.det-float64-0-grad":
        "jax._src.source_info_util.JaxStackTraceBeforeTransformation: IndexError: index is out of bounds",
    "linalg.lstsq-float64-1-grad":
        "AssertionError: forward (inputs requiring grad)[3]: requires_grad False vs True",
    "logsumexp-complex128-0":
        "AssertionError: forward: Scalars are not close!",
    "matrix_exp-float32-1":
        "AssertionError: forward: Tensor-likes are not close!",
    "special.bessel_j0-float64-0":
        "AssertionError: forward: Tensor-likes are not close!",
    "special.bessel_y1-float64-0":
        "AssertionError: forward: Tensor-likes are not close!",
}
