"""`torch.func`: `vmap`, `grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian`, `linearize`,
`functionalize`, `functional_call`, `stack_module_state`, `replace_all_batch_norm_modules_`, `rearrange`,
`debug_unwrap`.

`vmap` and the forward-mode transforms run the function on torchshim Tensors over jax tracers (`jax.vmap`,
`jax.jvp`); `grad`, `vjp` and `jacrev` use the eager tape. They compose (`vmap(grad(f))`, `jacfwd(jacrev(f))`,
nested `vmap`). Differences from PyTorch are listed in each module's docstring (`_vmap`, `_grad`, `_jvp`).
"""
from ._debug import debug_unwrap
from ._grad import grad, grad_and_value, jacrev, vjp
from ._jvp import functionalize, hessian, jacfwd, jvp, linearize
from ._rearrange import rearrange
from ._stateless import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize",
           "functionalize", "functional_call", "stack_module_state", "replace_all_batch_norm_modules_",
           "debug_unwrap", "rearrange"]
