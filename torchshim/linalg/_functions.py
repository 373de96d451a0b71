"""torch.linalg names bound from the op table (see __init__.py): norms and matrix functions."""
from .. import _api  # noqa: F401  (installs the op table)
from ..ops._registry import installed as _op

__all__ = ["norm", "vector_norm", "matrix_norm", "cond", "matrix_rank", "pinv", "matrix_power", "matrix_exp",
           "cross", "vecdot", "multi_dot", "tensorinv", "tensorsolve", "vander", "diagonal", "matmul"]

norm = _op("linalg_norm")
vector_norm = _op("linalg_vector_norm")
matrix_norm = _op("linalg_matrix_norm")
cond = _op("linalg_cond")
matrix_rank = _op("linalg_matrix_rank")
pinv = _op("linalg_pinv")
matrix_power = _op("linalg_matrix_power")
matrix_exp = _op("linalg_matrix_exp")
cross = _op("linalg_cross")
vecdot = _op("linalg_vecdot")
multi_dot = _op("linalg_multi_dot")
tensorinv = _op("linalg_tensorinv")
tensorsolve = _op("linalg_tensorsolve")
vander = _op("linalg_vander")
diagonal = _op("linalg_diagonal")
matmul = _op("linalg_matmul")
