"""The op table: importing this package registers every op (see `_registry.py`) and every Tensor method that
is not an op (`_methods.py`): conversion (`to`, `type`), subscripts (`x[i]`), the legacy constructor."""
from . import pointwise, comparison, views, copy, creation, indexing, reduction, sorting, movement, linalg, random, complex_views  # noqa: F401,E501
from . import einsum, linalg_addmm, linalg_matrix, slicing  # noqa: F401
from . import nn_activation, nn_attention, nn_conv, nn_distance, nn_dropout, nn_embedding, nn_linear, nn_loss, nn_norm, nn_pooling, nn_rnn, nn_vision  # noqa: F401,E501
from . import conversion, legacy_types, subscript  # noqa: F401
from . import _subclass  # noqa: F401  (Tensor.__torch_function__, as_subclass, _make_subclass)
from . import predicates, pointwise_more, view_copies, binning, statistics, combinatorics, tensor_misc, linalg_legacy  # noqa: F401,E501
from . import math_more, tensor_state  # noqa: F401
from . import linalg_decompositions, linalg_solvers, linalg_ldl  # noqa: F401  (torch.linalg: decompositions, solvers, LDL)
from . import special, special_poly  # noqa: F401  (torch.special)
from . import linalg_norms, linalg_spectral, linalg_functions  # noqa: F401  (torch.linalg: norms, matrix functions)
from . import sparse_dispatch  # noqa: F401  (sparse COO tensors: Tensor.to_sparse, ...; sparse_tensor.py)
from . import spectral, spectral_fft, spectral_freq, spectral_stft  # noqa: F401  (torch.fft, stft/istft)
from . import random_distributions  # noqa: F401  (_standard_gamma, _sample_dirichlet, binomial, ...)


def __getattr__(name):
    """`torch.ops.<namespace>` (ops/_namespace.py): a name that is not one of this package's modules is an op
    namespace (`torchshim.ops.aten.add.Tensor`, `torchshim.ops.mylib.myop`); a module of the package not
    imported yet is imported (so `from torchshim.ops import nn_unpool` still finds the module)."""
    if name.startswith("__"):
        raise AttributeError(f"module 'torch.ops' has no attribute '{name}'")
    import importlib
    import importlib.util
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    from ._namespace import namespace
    ns = globals()[name] = namespace(name)  # found directly from now on
    return ns
