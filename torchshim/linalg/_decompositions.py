"""torch.linalg's decompositions and solvers, bound from the op table (ops/linalg_decompositions.py,
ops/linalg_solvers.py, ops/linalg_ldl.py; see __init__.py): each is the table op PyTorch names
`linalg_<name>` (its `__name__`), with autograd, `out=` and `__torch_function__`."""
from .._errors import LinAlgError
from ..ops._registry import installed as _op

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "qr", "svd", "svdvals", "eig", "eigvals", "eigh",
           "eigvalsh", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "solve", "solve_ex", "solve_triangular",
           "lstsq", "inv", "inv_ex", "det", "slogdet", "householder_product", "ldl_factor", "ldl_factor_ex",
           "ldl_solve"]

cholesky = _op("linalg_cholesky")
cholesky_ex = _op("linalg_cholesky_ex")
qr = _op("linalg_qr")
svd = _op("linalg_svd")
svdvals = _op("linalg_svdvals")
eig = _op("linalg_eig")
eigvals = _op("linalg_eigvals")
eigh = _op("linalg_eigh")
eigvalsh = _op("linalg_eigvalsh")
lu = _op("linalg_lu")
lu_factor = _op("linalg_lu_factor")
lu_factor_ex = _op("linalg_lu_factor_ex")
lu_solve = _op("linalg_lu_solve")
solve = _op("linalg_solve")
solve_ex = _op("linalg_solve_ex")
solve_triangular = _op("linalg_solve_triangular")
lstsq = _op("linalg_lstsq")
inv = _op("linalg_inv")
inv_ex = _op("linalg_inv_ex")
det = _op("linalg_det")
slogdet = _op("linalg_slogdet")
householder_product = _op("linalg_householder_product")
ldl_factor = _op("linalg_ldl_factor")
ldl_factor_ex = _op("linalg_ldl_factor_ex")
ldl_solve = _op("linalg_ldl_solve")
