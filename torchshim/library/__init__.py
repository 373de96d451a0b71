"""`torch.library`: user-defined operators reachable as `torch.ops.<ns>.<name>`: `custom_op` (schema from
type hints), `register_kernel` / `register_fake` / `register_autograd`, `Library(ns, "DEF"|"FRAGMENT"|"IMPL")`
with `define` / `impl`, `opcheck`, `get_ctx`, `infer_schema`, `triton_op` / `wrap_triton`.

Ops run eagerly on torchshim tensors; gradients flow through torchshim's tape (`register_autograd` is an
autograd.Function underneath); under jax tracing (`torch.func.vmap`, `jax.jit`) an op with a fake
implementation runs its kernel through `jax.pure_callback` (library/_entry.py has the details).

Differences from PyTorch: no dispatcher (dispatch keys other than CPU, CUDA, Meta, Autograd*,
CompositeImplicitAutograd and CompositeExplicitAutograd raise NotImplementedError, as do `with_keyset=True`,
`fallthrough_kernel` registrations and replacing built-in aten kernels); `register_vmap`,
`register_torch_dispatch`, `register_autocast` are not provided; `wrap_triton` raises (no triton/CUDA).
"""
from ._custom_op import CustomOpDef, custom_op, triton_op, wrap_triton  # noqa: F401
from ._entry import get_ctx  # noqa: F401
from ._infer_schema import infer_schema  # noqa: F401
from ._library import (  # noqa: F401
    Library, define, fallthrough_kernel, impl, impl_abstract, register_autograd, register_fake,
    register_kernel)
from ._opcheck import opcheck  # noqa: F401
from ..ops._namespace import OpOverload  # noqa: F401

__all__ = ["Library", "impl", "define", "fallthrough_kernel", "impl_abstract", "register_fake", "get_ctx",
           "custom_op", "triton_op", "wrap_triton", "infer_schema", "register_kernel", "register_autograd",
           "opcheck"]
