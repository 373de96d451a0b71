"""First and second order gradients of every op record against real PyTorch (see grad_harness.py).

Per record a few cases (grad_harness.record_grad_cases): float64 (else float32) first and last sample, a
float32 sample and a complex sample where the op takes complex; second-order gradients for the first real and
the complex sample. A case whose call differs from PyTorch even
without gradients is a test_ops failure: it is skipped here, not counted twice.

Known gaps in code owned elsewhere are listed in GAPS, keyed by the case's stable name (op, dtype, sample and
record call: grad_harness.case_name), each with its reason and a fragment of the failure it produces. Like
records/views.py `gap()`, a gap case xfails while it fails with that message, fails when it fails otherwise (a
new failure is not hidden by the gap), and fails when it passes ("gap fixed"), as a strict xfail;
test_gap_names_are_cases fails when a name no longer names a case.
"""
import dataclasses

import pytest

from grad_harness import ForwardMismatch, V, check_grad, record_grad_cases
from harness import check
from records import all_records
from records import linalg_decompositions as linalg_decompositions_records
from records import linalg_functions as linalg_functions_records

CASES = record_grad_cases(all_records())
# cases run only in the slow session (compile-bound), keyed like GAPS (test_gap_names_are_cases checks them)
SLOW = frozenset(linalg_decompositions_records.GRAD_SLOW)


@dataclasses.dataclass(frozen=True)
class Gap:
    reason: str
    match: str  # a fragment of the assertion message the gap gives: any other failure is a failure


def gap(reason, match, *names):
    """[(name, Gap)] for cases of one known gap (names are case ids, see grad_harness.case_name)."""
    return [(n, Gap(reason, match)) for n in names]


def _gaps(*groups):
    pairs = [p for g in groups for p in g]
    names = [n for n, _ in pairs]
    assert len(set(names)) == len(names), "a case is listed twice in GAPS"
    return dict(pairs)


_OUT = ("out= with an input requiring grad: PyTorch first raises '<op>(): functions with out=... arguments "
        "don't support automatic differentiation'; this op's own out= path (ops/linalg.py, movement.py, "
        "views.py, copy.py, random.py) checks out's dtype/shape first or does not raise (kron/outer: PyTorch"
        " names mul(), take_along_dim: gather(), slogdet: _linalg_slogdet())")
_OUT_MSG = "functions with out=... arguments don't support automatic differentiation"
_LEAF = ("in-place op on a leaf requiring grad: PyTorch raises 'a leaf Variable that requires grad is being "
         "used in an in-place operation.' before the op's own checks; the shape checks of ops/linalg.py "
         "(addmm_, addmv_, baddbmm_) and movement.py (tril_, triu_) run first in torchshim")
_SHAPE_ARG = ("an argument used for its shape/dtype only (expand_as/reshape_as/view_as/type_as `other`): "
              "PyTorch doesn't differentiate it (gradient None; a float16 `other` doesn't make the result "
              "require grad); autograd/_ops.py differentiable() makes every tensor argument an input of the "
              "node (lead)")
_RANDOM = ("bernoulli/normal/poisson of inputs requiring grad: PyTorch's results require grad "
           "(BernoulliBackward0, NormalBackward*, PoissonBackward0), torchshim's random ops record no node "
           "(ops/random.py)")
_AUTOGRAD_DTYPE = ("integer result of a differentiable op with an input requiring grad (sum/cumsum with an "
                   "integer dtype=, index_fill of an integer tensor): PyTorch raises 'Autograd not support "
                   "dtype: Long'; ops run with recording off and can't see grad mode, so the check belongs "
                   "in autograd/_ops.py (lead)")
_FLOOR_DIVIDE = ("floor_divide has no derivative in PyTorch (grad_fn NotImplemented, backward raises "
                 "'derivative for aten::floor_divide is not implemented'); torchshim needs a raising rule on"
                 " its registration (grad_rule= with saves='inputs')")
_SCATTER_REDUCE_ARG = ("scatter(reduce='add'/'multiply') has no derivative in PyTorch (backward raises "
                       "'derivative for aten::scatter is not implemented'); needs a raising rule on its "
                       "registration (grad_rule= with saves='inputs')")
_SCATTER_TORCH_BUG = ("PyTorch's ScatterBackward0 returns src's gradient shaped like index, which its engine"
                      " rejects ('invalid gradient at index 1') when src is larger than index; torchshim "
                      "returns the correct gradient (emulating the error needs a grad_rule on scatter's "
                      "registration)")
_SCATTER_REDUCE_ALIAS = ("scatter_reduce(reduce='min'/'max') (accepted aliases in the forward): PyTorch's "
                         "backward rejects them ('Expected reduce to be one of ... but got min'); needs a "
                         "raising rule (lead)")
_CDIST = ("cdist has no double backward in PyTorch (NotImplementedError: the derivative for "
          "'_cdist_backward'); torchshim differentiates twice (ops/linalg.py; a raising rule would be "
          "needed, lead)")
_F32_ASIN = ("float32 second derivative near |x| = 1 (one element, x = -0.9945 for asin/acos): 1 - x*x "
             "(x*x - 1 for acosh) cancels ~7 bits and XLA contracts x*x into an FMA while PyTorch rounds "
             "twice, a 2e-6..4e-6 relative difference (7e-5..1.2e-4 absolute) on one element; float64 cases "
             "and first order agree")

_THRU = "{_thru.f{call=getattr(T,name)(*a,**kw){name='%s'}}}"
_INTO = "{_into.f{call=getattr(T,name)(*a,**kw){name='%s'}}}"
_SPLIT_THRU = "{_thru.f{call=getattr(T,name)(*a,**kw){name='split_wi~e0c72d4}"
_SPLIT_INTO = "{_into.f{call=getattr(T,name)(*a,**kw){name='split_wi~8be3742}"
_METHOD = "{getattr(x,name)(*a,**kw){name='%s'}}"
_METHOD_THRU = "{_thru.f{call=getattr(x,name)(*a,**kw){name='%s'}}}"
_METHOD_INTO = "{_into.f{call=getattr(x,name)(*a,**kw){name='%s'}}}"
_RANDOM_CALL = "{_meta(getattr(T,name)(*xs,**_lib_kw(T,kw)),lo,hi,clo~%s}"

_AS_STRIDED_SCATTER = ("PyTorch 2.13's as_strided_scatter backward gives input the gradient at the "
                       "scattered positions and 0 elsewhere (the reverse of the forward, which keeps input "
                       "only outside them); torchshim returns the gradient of its forward "
                       "(ops/view_copies.py)")

_VANDER = ("PyTorch 2.13's vander backward fails ('one of the variables needed for gradient computation has "
           "been modified by an inplace operation': its forward writes its own saved cumprod in place); "
           "torchshim returns the gradient (ops/combinatorics.py)")

_HISTOGRAMDD = ("histogramdd of an input requiring grad: PyTorch's histogram requires grad with a "
                "NotImplemented node (its backward raises 'the derivative for "
                "_histogramdd_from_bin_tensors is not implemented'); torchshim's does not require grad "
                "(ops/math_more.py)")
_GRADIENT_F32 = ("torch.gradient with float32 coordinate tensors: the gradient w.r.t. the coordinates "
                 "differs by float32 rounding (4.8e-7 where PyTorch's is exactly 0: the terms cancel in "
                 "PyTorch's order, not in torchshim's; ops/math_more.py)")

GAPS = _gaps(
    gap(_HISTOGRAMDD, "requires_grad False vs True",
        "histogramdd-float64-5x2-{(T.histogramdd(x,[T.tensor([-3.0,0.0,1.0,3.0],dtype=~ddb1072}"),
    gap(_GRADIENT_F32, "first-order grad[1]",
        "gradient-float32-3x4,4:float64[0,1]-dim=1-"
        "{T.gradient(x,spacing=[T.cumsum(c + 0.5,0).to(x.real.~8f5fbbf}"),
    *(gap(r, m, *names) for r, m, names in linalg_functions_records.GRAD_GAPS),
    *(gap(r, m, *names) for r, m, names in linalg_decompositions_records.GRAD_GAPS),
    gap(_VANDER, "first-order backward: torch raised RuntimeError", "vander-float64-4"),
    gap(_AS_STRIDED_SCATTER, "first-order grad[0]",
        "as_strided_scatter-float64-3x4,2x2,(2,2),(1,2)"),
    gap(_OUT, _OUT_MSG,
        "addbmm-float32-2x4,5x2x3,5x3x4-{getattr(T,n)(x,a,b,out=T.empty(0,dtype=T.float64)){n~7bb7c1e}",
        "addmm-float32-2x4,2x3,3x4-{getattr(T,n)(x,a,b,out=T.empty(0,dtype=T.float64)){n~c0d3fb5}",
        "addmv-float32-2,2x3,3-{getattr(T,n)(x,a,b,out=T.empty(0,dtype=T.float64)){n~9c7102a}",
        "baddbmm-float32-5x2x4,5x2x3,5x3x4-{getattr(T,n)(x,a,b,out=T.empty(0,dtype=T.float64)){n~b1dae7a}",
        "cat-float32-2x2,3x3-{f(T,*xs){f=T.cat([a,a],out=T.empty(0,dtype=T.int64))}}",
        "cat-float32-2x2,3x3-{f(T,*xs){f=T.cat([a,a],out=T.empty(0,dtype=T.float64))}}",
        "complex-float32-3,3-{T.complex(a,b,out=T.empty(0,dtype=T.complex128))}",
        "complex-float32-3,3-{T.complex(a,b,out=T.empty(0,dtype=T.float32))}",
        "cross-float32-3,3-{T.cross(a,b,dim=0,out=T.empty(0,dtype=T.int64))}",
        "dot-float32-3,3-{T.dot(a,b,out=T.empty(0,dtype=T.float64))}",
        "inverse-float32-3x3-{T.inverse(x,out=T.empty(0,dtype=T.float64))}",
        "kron-float32-2x3,2-{T.kron(a,b,out=T.empty(0,dtype=T.int64))}",
        "matmul-float32-2x3,3x4-{T.matmul(a,b,out=T.empty(0,dtype=T.float64))}",
        "matmul-float32-2x2x3,2x3x4-{T.matmul(a,b,out=T.empty(0,dtype=T.float64))}",
        "matrix_power-float32-3x3-{T.matrix_power(x,2,out=T.empty(0,dtype=T.float64))}",
        "mm-float32-2x3,3x4-{T.mm(a,b,out=T.empty(0,dtype=T.float64))}",
        "normal-float32-3,3[0,1]-out='float64'-" + _RANDOM_CALL % "95898fa",
        "normal-float64-3,3[0,1]-out='float64'-" + _RANDOM_CALL % "95898fa",
        "outer-float32-2,3-{T.outer(a,b,out=T.empty(0,dtype=T.int64))}",
        "slogdet-float32-3x3-{T.slogdet(x,out=(T.empty(0,dtype=T.float64),T.empty(~b19c097}",
        "stack-float32-2,3-{f(T,*xs){f=T.stack([a,a],out=T.empty(0,dtype=T.int64))}}",
        "take_along_dim-float32-2x3,Idx(2x2,high=3)-{T.take_along_dim(x,i,1,out=T.empty(0,dtype=T.float64))}",
        "tril-float32-3x3-{getattr(T,n)(x,out=T.empty(0,dtype=T.float64)){n='tril'}}",
        "triu-float32-3x3-{getattr(T,n)(x,out=T.empty(0,dtype=T.float64)){n='triu'}}"),
    gap(_LEAF, "a leaf Variable that requires grad is being used in an in-place operation",
        "addmm-float32-4,2x3,3x4-{getattr(x,n + \"_\")(a,b){n='addmm'}}",
        "addmv-float32-0d,2x3,3-{getattr(x,n + \"_\")(a,b){n='addmv'}}",
        "baddbmm-float32-2x4,5x2x3,5x3x4-{getattr(x,n + \"_\")(a,b){n='baddbmm'}}",
        "tril-float32-3-{getattr(x,n + \"_\")(){n='tril'}}",
        "triu-float32-3-{getattr(x,n + \"_\")(){n='triu'}}"),
    gap(_SHAPE_ARG, "first-order: unused inputs (None) differ: torch [False, True]",
        "expand_as-complex64-3x1,3x4:float32-" + _METHOD % "expand_as",
        "expand_as-float32-3x1,3x4-" + _METHOD % "expand_as",
        "expand_as-float32-3x4,3x4-" + _METHOD_THRU % "expand_as",
        "reshape_as-complex64-2x3x4,4x6:float32-" + _METHOD % "reshape_as",
        "reshape_as-float32-2x3x4,4x6-" + _METHOD % "reshape_as",
        "reshape_as-float32-2x3x4,4x6-" + _METHOD_THRU % "reshape_as",
        "reshape_as-float32-4x6.nc,24-" + _METHOD_THRU % "reshape_as",
        "reshape_as-float32-4x6.nc,24-" + _METHOD_INTO % "reshape_as",
        "type_as-float32-3x4,2:float64-" + _METHOD_THRU % "type_as",
        "type_as-float32-3x4,2:float64-" + _METHOD_INTO % "type_as",
        "view_as-complex64-2x3x4,4x6:float32-" + _METHOD % "view_as",
        "view_as-float32-2x3x4,4x6-" + _METHOD % "view_as",
        "view_as-float32-2x3x4,4x6-" + _METHOD_THRU % "view_as"),
    gap(_SHAPE_ARG, "forward: requires_grad False vs True",
        "type_as-float32-0x3,1:float16-" + _METHOD % "type_as"),
    gap(_RANDOM, "forward[2]: True vs False",
        "bernoulli-float32-4,1-" + _RANDOM_CALL % "09adf56",
        "bernoulli-float32-0d[0,1]-" + _RANDOM_CALL % "09adf56",
        "bernoulli-float64-4x5[0,1]-" + _RANDOM_CALL % "09adf56",
        "bernoulli-float64-4x5-p=0.3-" + _RANDOM_CALL % "09adf56",
        "bernoulli-float64-4,1-" + _RANDOM_CALL % "09adf56",
        "bernoulli-float64-0d[0,1]-" + _RANDOM_CALL % "09adf56",
        "normal-float32-3:float64,3[0,1]-" + _RANDOM_CALL % "95898fa",
        "normal-float64-3x4,3x4[0,2]-" + _RANDOM_CALL % "95898fa",
        "poisson-float32-3[1,2]-generator=1-" + _RANDOM_CALL % "6b6a10f",
        "poisson-float64-4x5[0,6]-" + _RANDOM_CALL % "6b6a10f",
        "poisson-float64-3[1,2]-generator=1-" + _RANDOM_CALL % "6b6a10f"),
    gap(_AUTOGRAD_DTYPE, "Autograd not support dtype",
        "cumsum-float32-3x4-dim=1-{(T.cumsum(x,dtype=T.float64,**kw),T.cumsum(x,dtype=T~a6c0392}",
        "index_fill-float32-3x4:int64,1,Idx(2,high=4),0d",
        "sum-float32-3x4[0,9]-dim=0,keepdim=True,dtype='int8'-{_with_dtype.f{dtype=None;name='sum'}}"),
    gap(_FLOOR_DIVIDE, "derivative for aten::floor_divide is not implemented",
        "floor_divide-float32-3x4[-9,9],2.5",
        "floor_divide-float64-3x4[-9,9],3x4[1,4]",
        "floor_divide-float64-3x4[-9,9],2.5"),
    gap(_SCATTER_REDUCE_ARG, "derivative for aten::scatter is not implemented",
        "scatter-float32-3x4,0,Idx(5x4,high=3),5x4[1,2]-reduce='add'",
        "scatter-float32-3x4,1,Idx(3x6,high=4),2-reduce='multiply'"),
    gap(_SCATTER_TORCH_BUG, "ScatterBackward0 returned an invalid gradient at index 1",
        "scatter-complex128-3x4,0,UIdx(2x4,high=3),3x4",
        "scatter-float32-3x4,0,UIdx(2x4,high=3,dtype='int32'),3x4",
        "scatter-float64-3x4,0,UIdx(2x4,high=3),3x4",
        "scatter-float64-3x4,0,UIdx(2x4,high=3,dtype='int32'),3x4"),
    gap(_SCATTER_REDUCE_ALIAS, "Expected 'reduce' to be one of",
        "scatter_reduce-float32-3x4,1,Idx(3x5,high=4),3x5,'min'",
        "scatter_reduce-float64-3x4,1,Idx(3x5,high=4),3x5,'min'"),
    gap(_CDIST, "the derivative for '_cdist_backward' is not implemented",
        "cdist-float32-0x3,5x3", "cdist-float64-4x3,5x3", "cdist-float64-0x3,5x3"),
    gap(_F32_ASIN, "second-order grad[0]: Tensor-likes are not close",
        "acos-float32-2x3x4[-1,1].nc", "acosh-float32-2x3x4[1,5].nc", "asin-float32-2x3x4[-1,1].nc"),
)


def _check(case):
    # a known gap or a slow case keeps its second-order stage (the gap may live there)
    second = case.second_order or case.id in GAPS or case.id in SLOW
    try:
        check_grad(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg, second_order=second)
    except ForwardMismatch:
        try:
            check(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg)
        except AssertionError:
            pytest.skip("the call differs from PyTorch without gradients too (a test_ops failure)")
        raise


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c.id in SLOW else c
                                  for c in CASES], ids=[c.id for c in CASES])
def test_gradient(case):
    known = GAPS.get(case.id)
    if known is None:
        _check(case)
        return
    try:
        _check(case)
    except AssertionError as e:
        if known.match not in str(e):
            raise AssertionError(f"fails otherwise than its known gap ({known.match!r}): {e}") from e
        pytest.xfail(known.reason)
    pytest.fail(f"known gap is fixed, remove it from GAPS: {known.reason}")


def test_gap_names_are_cases():
    """Every GAPS (and SLOW) name names a case (a renamed or removed case must not leave its gap behind)."""
    assert sorted((set(GAPS) | SLOW) - {c.id for c in CASES}) == []


# ---- engine behaviour the per-op cases avoid on purpose (grad_harness.py ENGINE_NOTES)
# --------------------------
def test_two_roots_from_one_node():
    def f(T, x):
        v, m = T.var_mean(x)
        one = T.ones((), dtype=x.dtype)
        return T.autograd.grad((v, m), x, (one, one))
    check(f, [V([1.0, 2.0, 4.0])])


@pytest.mark.xfail(strict=True, reason="a create_graph backward node depends on every saved input of its op "
                   "(MulBackward's gradient for `w` reads `out`), PyTorch's only on what its formula reads: "
                   "the zero cotangent that reaches log(x) at x = 0 meets its infinite derivative and gives "
                   "NaN, not -inf")
def test_create_graph_has_only_real_dependencies():
    def f(T, x, w, v):
        g, = T.autograd.grad((T.log(x) * w).sum(), x, create_graph=True)
        return T.autograd.grad(g, x, v)
    check(f, [V([0.0, 2.0]), V([0.9, 0.9], requires_grad=False), V([0.5, 0.5], requires_grad=False)])
