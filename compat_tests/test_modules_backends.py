"""torch.backends and the torch.* global switches (deterministic algorithms, matmul precision, threads, ...)
against real PyTorch 2.13 on this machine: defaults, stored values, validation errors, and the applied JAX
setting (float32 matmul precision -> jax_default_matmul_precision)."""
import re
import warnings

import jax
import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def _outcome(fn, *args, **kwargs):
    """(result, None) or (None, (exception type name, message)); warnings recorded as (category, message)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r, err = fn(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001
            r, err = None, (type(e).__name__, str(e))
    # PyTorch's C++ warnings end with " (Triggered internally at <file>:<line>.)"
    return r, err, [(x.category.__name__, re.sub(r" \(Triggered internally at .*\)$", "", str(x.message)))
                    for x in w]


@pytest.fixture(autouse=True)
def _restore():
    """Every test leaves both libraries' global flags as it found them."""
    saved = []
    for T in LIBS:
        b = T.backends
        saved.append((T, T.get_float32_matmul_precision(), T.are_deterministic_algorithms_enabled(),
                      T.is_deterministic_algorithms_warn_only_enabled(), b.cudnn.benchmark,
                      b.cudnn.deterministic, b.cudnn.enabled, b.cudnn.allow_tf32, b.cudnn.benchmark_limit,
                      b.mkldnn.enabled, b.mkldnn.deterministic, b.opt_einsum.enabled, b.opt_einsum.strategy,
                      b.cuda.flash_sdp_enabled(), b.cuda.math_sdp_enabled(),
                      b.cuda.mem_efficient_sdp_enabled(), b.cuda.cudnn_sdp_enabled(),
                      b.cuda.matmul.allow_fp16_reduced_precision_reduction, T.get_num_threads()))
    jax_prec = jax.config.jax_default_matmul_precision
    yield
    for (T, prec, det, wo, bench, cdet, cen, ctf, blim, men, mdet, oen, ostr, fl, ma, me, cu, f16,
         thr) in saved:
        b = T.backends
        T.set_float32_matmul_precision(prec)
        T.use_deterministic_algorithms(det, warn_only=wo)
        b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.enabled, b.cudnn.allow_tf32 = bench, cdet, cen, ctf
        b.cudnn.benchmark_limit = blim
        b.mkldnn.enabled, b.mkldnn.deterministic = men, mdet
        b.opt_einsum.set_flags(True, ostr)  # set_flags, not attributes: see test_opt_einsum_attributes
        b.opt_einsum.set_flags(oen)
        b.cuda.enable_flash_sdp(fl)
        b.cuda.enable_math_sdp(ma)
        b.cuda.enable_mem_efficient_sdp(me)
        b.cuda.enable_cudnn_sdp(cu)
        b.cuda.matmul.allow_fp16_reduced_precision_reduction = f16
        T.set_num_threads(thr)
    jax.config.update("jax_default_matmul_precision", jax_prec)


def both(fn):
    """fn(T) under torch and torchshim: results, errors and warnings must agree."""
    a, b = (_outcome(fn, T) for T in LIBS)
    assert a == b, f"torch: {a}\ntorchshim: {b}"
    return a[0]


# ---- defaults ----------------------------------------------------------------------------------------------
DEFAULTS = {
    "cudnn": lambda T: (T.backends.cudnn.benchmark, T.backends.cudnn.deterministic, T.backends.cudnn.enabled,
                        T.backends.cudnn.allow_tf32, T.backends.cudnn.version(),
                        T.backends.cudnn.is_available(), T.backends.cudnn.benchmark_limit,
                        T.backends.cudnn.is_acceptable(T.ones(2))),
    "cuda": lambda T: (T.backends.cuda.is_built(), T.backends.cuda.matmul.allow_tf32,
                       T.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
                       T.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
                       T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.mem_efficient_sdp_enabled(),
                       T.backends.cuda.math_sdp_enabled(), T.backends.cuda.cudnn_sdp_enabled(),
                       T.backends.cuda.fp16_bf16_reduction_math_sdp_allowed(),
                       T.backends.cuda.is_flash_attention_available(),
                       str(T.backends.cuda.preferred_linalg_library()),
                       str(T.backends.cuda.preferred_blas_library())),
    "mps": lambda T: (T.backends.mps.is_available(), T.backends.mps.is_built()),
    "mkldnn": lambda T: (T.backends.mkldnn.is_available(), T.backends.mkldnn.enabled,
                         T.backends.mkldnn.deterministic, T.backends.mkldnn.allow_tf32),
    "cpu": lambda T: T.backends.cpu.get_cpu_capability(),
    "opt_einsum": lambda T: (T.backends.opt_einsum.is_available(), T.backends.opt_einsum.enabled,
                             T.backends.opt_einsum.strategy,
                             T.backends.opt_einsum.get_opt_einsum() is not None),
    "openmp_mkl": lambda T: (T.backends.openmp.is_available(), T.backends.mkl.is_available()),
    "mha": lambda T: T.backends.mha.get_fastpath_enabled(),
    "global": lambda T: (T.get_float32_matmul_precision(), T.are_deterministic_algorithms_enabled(),
                         T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode(),
                         T.get_num_threads(), T.init_num_threads(), T.has_lapack, T.has_mkl, T.has_openmp,
                         T.has_spectral, T.compiled_with_cxx11_abi()),
}


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_defaults(name):
    both(DEFAULTS[name])


def test_import_forms():
    import importlib
    for mod in ("cudnn", "cuda", "mps", "mkldnn", "cpu", "opt_einsum", "openmp", "mkl", "mha"):
        m = importlib.import_module("torchshim.backends." + mod)
        assert m is getattr(torchshim.backends, mod)


# ---- flags stored and read back, with PyTorch's checks --------------------------------------------------
@pytest.mark.parametrize("module,attr,value", [
    ("cudnn", "benchmark", True), ("cudnn", "deterministic", True), ("cudnn", "enabled", False),
    ("cudnn", "allow_tf32", False), ("cudnn", "benchmark_limit", 5), ("cudnn", "benchmark", 1),
    ("cudnn", "enabled", 1), ("cudnn", "deterministic", 0), ("cudnn", "allow_tf32", 1),
    ("mkldnn", "enabled", False), ("mkldnn", "deterministic", True), ("mkldnn", "enabled", 1),
    ("mkldnn", "allow_tf32", True), ("mkldnn", "allow_tf32", 1),
])
def test_set_attribute(module, attr, value):
    def f(T):
        m = getattr(T.backends, module)
        setattr(m, attr, value)
        return getattr(m, attr)
    both(f)


@pytest.mark.parametrize("attr,value", [
    ("allow_tf32", True), ("allow_tf32", False), ("allow_tf32", 1),
    ("allow_fp16_reduced_precision_reduction", False), ("allow_fp16_reduced_precision_reduction", 1),
    ("allow_bf16_reduced_precision_reduction", False), ("allow_bf16_reduced_precision_reduction", "x"),
    ("nonexistent", True),
])
def test_cuda_matmul_attributes(attr, value):
    def f(T):
        m = T.backends.cuda.matmul
        setattr(m, attr, value)
        return getattr(m, attr), T.get_float32_matmul_precision()
    both(f)
    both(lambda T: T.backends.cuda.matmul.unknown_name)


@pytest.mark.parametrize("fn", ["enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
                                "enable_cudnn_sdp"])
@pytest.mark.parametrize("value", [False, True, 1])
def test_sdp_switches(fn, value):
    def f(T):
        c = T.backends.cuda
        getattr(c, fn)(value)
        return (c.flash_sdp_enabled(), c.math_sdp_enabled(), c.mem_efficient_sdp_enabled(),
                c.cudnn_sdp_enabled())
    both(f)


def test_sdp_kernel_context():
    def f(T):
        c = T.backends.cuda
        with c.sdp_kernel(enable_math=False, enable_flash=False):
            inside = (c.flash_sdp_enabled(), c.math_sdp_enabled(), c.mem_efficient_sdp_enabled())
        return inside, (c.flash_sdp_enabled(), c.math_sdp_enabled())
    r = both(f)
    assert r == ((False, False, True), (True, True))


@pytest.mark.parametrize("backend", [None, "default", "cusolver", "magma", "other"])
def test_preferred_linalg_library(backend):
    both(lambda T: str(T.backends.cuda.preferred_linalg_library(backend)))


def test_flags_contexts():
    def f(T):
        b = T.backends
        with b.cudnn.flags(enabled=False, deterministic=True) as r:
            inside = (r, b.cudnn.enabled, b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.benchmark_limit)
        after = (b.cudnn.enabled, b.cudnn.deterministic)
        with b.mkldnn.flags(enabled=False):
            m_inside = (b.mkldnn.enabled, b.mkldnn.deterministic)
        with b.opt_einsum.flags(enabled=True, strategy="optimal"):
            o_inside = (b.opt_einsum.enabled, b.opt_einsum.strategy)
        return inside, after, m_inside, b.mkldnn.enabled, o_inside, b.opt_einsum.strategy
    both(f)


def test_opt_einsum_attributes():
    """Plain assignment is not validated (PyTorch 2.13 too: `torch.backends.opt_einsum.strategy = "foo"` is
    accepted). Not compared with torch in-process: there an assignment shadows set_flags for good."""
    o = torchshim.backends.opt_einsum
    o.strategy = "greedy"
    assert o.strategy == "greedy" and o.set_flags() == (True, "greedy")
    o.enabled = False
    assert o.enabled is False


@pytest.mark.parametrize("args", [(None, "foo"), (False, "greedy"), (True, "greedy"), (False, None)])
def test_opt_einsum_set_flags(args):
    both(lambda T: (T.backends.opt_einsum.set_flags(*args), T.backends.opt_einsum.enabled,
                    T.backends.opt_einsum.strategy))


def test_cudnn_set_flags_returns_previous():
    both(lambda T: (T.backends.cudnn.set_flags(True, True, 3, None, False), T.backends.cudnn.benchmark,
                    T.backends.cudnn.allow_tf32, T.backends.cudnn.benchmark_limit))
    both(lambda T: T.backends.mkldnn.set_flags(False, True))


# ---- float32 matmul precision <-> TF32 <-> jax ------------------------------------------------------------
@pytest.mark.parametrize("precision", ["highest", "high", "medium", "foo"])
def test_matmul_precision(precision):
    both(lambda T: (T.set_float32_matmul_precision(precision), T.get_float32_matmul_precision(),
                    T.backends.cuda.matmul.allow_tf32))


def test_matmul_precision_applied_to_jax():
    expect = {"highest": "float32", "high": "tensorfloat32", "medium": "bfloat16"}
    for p, j in expect.items():
        torchshim.set_float32_matmul_precision(p)
        assert jax.config.jax_default_matmul_precision == j
    torchshim.backends.cuda.matmul.allow_tf32 = True
    assert jax.config.jax_default_matmul_precision == "tensorfloat32"
    torchshim.backends.cuda.matmul.allow_tf32 = False
    assert jax.config.jax_default_matmul_precision == "float32"


def test_matmul_precision_keeps_cpu_results():
    """PyTorch's CPU matmul ignores the setting on this machine; torchshim's kernels must too."""
    import numpy as np
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 64)).astype("float32"), rng.standard_normal((64, 64)).astype("float32")
    res = []
    for T in LIBS:
        T.set_float32_matmul_precision("medium")
        res.append((T.tensor(a) @ T.tensor(b)).numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-5, atol=1e-5)


# ---- deterministic algorithms ------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.use_deterministic_algorithms(True),
    lambda T: T.use_deterministic_algorithms(True, warn_only=True),
    lambda T: T.use_deterministic_algorithms(1),
    lambda T: T.use_deterministic_algorithms(True, warn_only=1),
    lambda T: T.set_deterministic_debug_mode("warn"),
    lambda T: T.set_deterministic_debug_mode("error"),
    lambda T: T.set_deterministic_debug_mode("default"),
    lambda T: T.set_deterministic_debug_mode(2),
    lambda T: T.set_deterministic_debug_mode(3),
    lambda T: T.set_deterministic_debug_mode("foo"),
    lambda T: T.set_deterministic_debug_mode(1.5),
    lambda T: T.set_deterministic_debug_mode(None),
])
def test_deterministic(call):
    both(lambda T: (call(T), T.are_deterministic_algorithms_enabled(),
                    T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode()))


# ---- threads, denormals ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 3, 0, -1, 1.5, "a"])
def test_set_num_threads(n):
    both(lambda T: (T.set_num_threads(n), T.get_num_threads()))


@pytest.mark.parametrize("n", [0, 1.5])
def test_set_num_interop_threads_errors(n):
    both(lambda T: T.set_num_interop_threads(n))


@pytest.mark.parametrize("mode", [True, False, 1])
def test_set_flush_denormal(mode):
    try:
        both(lambda T: T.set_flush_denormal(mode))
    finally:
        # PyTorch's switch is the thread's FTZ/DAZ state: left on, every later torch result of this xdist
        # worker flushes subnormals (test_ops' `eq` record of subnormals then fails depending on the order)
        torch.set_flush_denormal(False)
        torchshim.set_flush_denormal(False)
