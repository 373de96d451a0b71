"""Records for the loss functionals (torchshim/ops/nn_loss.py, _loss_margin.py, _loss_classify.py,
_loss_ctc.py and the F wrappers of torchshim/nn/functional/loss.py).

F-only ops are called through `T.nn.functional` (`Fn`); ops PyTorch also has as `torch.<name>` get records of
both forms (the torch form takes the at::Reduction code: 0 none, 1 mean, 2 sum). Class-index targets are `Idx`
(int64 unless the record checks other dtypes); ±1 targets are built with `sign` of a uniform tensor; weights a
record does not differentiate are detached in `call` (PyTorch refuses a weight requiring grad: the records
passing one directly check that error under test_gradients). ctc_loss lengths are Python lists turned into
tensors in `call`. Legacy size_average/reduce warnings, the size warnings and
triplet_margin_with_distance_loss with custom distances are checked in compat_tests/test_nn_loss.py.
"""
import numpy as np

from harness import Arg, Idx, OpRecord

F = ("float32",)
FL = ("float32", "float64")
F16 = ("float16", "bfloat16")
RED = ({}, {"reduction": "none"}, {"reduction": "sum"})


def A(shape=(3, 4), dtype="float32", low=-3.0, high=3.0, nc=False):
    return Arg(shape, dtype, low, high, noncontig=nc)


def c(*specs, **kw):
    """One sample: input specs and keyword arguments."""
    return specs, kw


def s(*items):
    """Fixed samples (the same for every dtype of the record)."""
    return lambda d: list(items)


def Fn(name, **fixed):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **fixed, **kw)


def reds(*makers):
    """Each spec builder (d -> specs) with each reduction."""
    return lambda d: [(make(d), dict(kw)) for make in makers for kw in RED]


def pair(shape=(3, 4), low=-3.0, high=3.0, nc=False):
    return lambda d: (A(shape, d, low, high, nc), A(shape, d, low, high, nc))


def _sign_target(name, pos=1):
    """F.<name> with the argument at `pos` replaced by sign(arg) (a ±1 target)."""
    def f(T, *xs, **kw):
        xs = list(xs)
        xs[pos] = T.sign(xs[pos])
        return getattr(T.nn.functional, name)(*xs, **kw)
    return f


def _detach_at(name, pos):
    def f(T, *xs, **kw):
        xs = list(xs)
        xs[pos] = xs[pos].detach()
        return getattr(T.nn.functional, name)(*xs, **kw)
    return f


# ---- regression losses -------------------------------------------------------------------------------------
def _regression(extra=()):
    """Shapes (2-d, non-contiguous, 0-d, 1-d, 3-d) x reductions, plus per-op keyword samples."""
    def samples(d):
        for make in (pair(), pair((4, 3), nc=True), pair(()), pair((5,)), pair((2, 3, 2))):
            for kw in RED:
                yield make(d), dict(kw)
        for kw in extra:
            yield pair()(d), dict(kw)
    return samples


_EMPTY = s(c(A((0, 3)), A((0, 3))), c(A((0, 3)), A((0, 3)), reduction="sum"),
           c(A((0, 3)), A((0, 3)), reduction="none"))
_MIXED = s(
    c(A(), A(dtype="float64")),
    c(A(dtype="float64"), A(), reduction="none"),
    c(A(), A(dtype="int64")),
    c(A(dtype="int64"), A(), reduction="sum"),
    c(A(dtype="float16"), A()),
    c(A(), A(dtype="bool")),
    c(A(dtype="int64"), A(dtype="int64")),
    c(A(dtype="int64"), A(dtype="int64"), reduction="none"),
    c(A(dtype="int32"), A(dtype="int32"), reduction="sum"),
    c(A(dtype="bool"), A(dtype="bool")),
    c(A(dtype="complex64"), A(dtype="complex64")),
    c(A(), A(), reduction="bad"),
    c(A(), A((5, 4))))
_BCAST = s(c(A(), A((4,))), c(A((3, 1)), A((1, 4)), reduction="none"), c(A(), A(), size_average=False),
           c(A(), A(), reduce=False), c(A(), A(), size_average=True, reduce=True))
_WEIGHTED = s(*[c(A(), A(), A(low=0.1, high=2.0), reduction=r) for r in ("mean", "sum", "none")],
              c(A(), A(), A((4,), low=0.1, high=2.0)),
              c(A(), A(), A(low=0.1, high=2.0), reduction="bad"))


def _weighted(name):
    return lambda T, x, y, w, **kw: getattr(T.nn.functional, name)(x, y, weight=w, **kw)


_REG = []
for _name, _extra in (("l1_loss", ()), ("mse_loss", ()),
                      ("smooth_l1_loss", ({"beta": 0.5}, {"beta": 2.0}, {"beta": 0.0}, {"beta": -1.0})),
                      ("huber_loss", ({"delta": 0.5}, {"delta": 2.5}, {"delta": 0.0}))):
    _REG += [
        OpRecord(_name, _regression(_extra), FL, call=Fn(_name)),
        OpRecord(_name, _regression(), F16, call=Fn(_name)),
        OpRecord(_name, _EMPTY, F, call=Fn(_name)),
        OpRecord(_name, _MIXED, F, call=Fn(_name)),
        OpRecord(_name, _BCAST if _name != "huber_loss" else s(c(A(), A((4,)))), F, call=Fn(_name)),
    ]
    if _name != "smooth_l1_loss":
        _REG.append(OpRecord(_name, _WEIGHTED, F, call=_weighted(_name)))

# ---- soft margin, binary cross entropy ---------------------------------------------------------------------
_SOFT = [
    OpRecord("soft_margin_loss", _regression(), FL, call=_detach_at("soft_margin_loss", 1)),
    # target requiring grad: PyTorch's error under test_gradients
    OpRecord("soft_margin_loss", reds(pair()), F, call=_sign_target("soft_margin_loss")),
    OpRecord("soft_margin_loss", _regression(), F16, call=Fn("soft_margin_loss")),
    OpRecord("soft_margin_loss", s(
        c(A(), A(dtype="float64")),
        c(A(dtype="float64"), A(), reduction="none"),
        c(A(dtype="int64"), A(dtype="int64")),
        c(A(dtype="int64"), A()),
        c(A(), A(dtype="int64")),
        c(A(dtype="bool"), A(dtype="bool")),
        c(A(), A((4,))),
        c(A((4,)), A()),
        c(A((0, 3)), A((0, 3))),
        c(A(), A(), reduce=False)), F, call=_detach_at("soft_margin_loss", 1)),
]


def _probs(shape=(3, 4), nc=False):
    return lambda d: (A(shape, d, 0.02, 0.98, nc), A(shape, d, 0.0, 1.0, nc))


def _bce(T, x, y, w=None, **kw):
    return T.nn.functional.binary_cross_entropy(x, y, None if w is None else w.detach(), **kw)


_U = {"low": 0.0, "high": 1.0}  # values in the unit interval
_BCE = [
    OpRecord("binary_cross_entropy", reds(_probs(), _probs((4, 3), True), _probs(()), _probs((2, 3, 2))), FL,
             call=Fn("binary_cross_entropy")),
    OpRecord("binary_cross_entropy", reds(_probs()), F16, call=Fn("binary_cross_entropy")),
    OpRecord("binary_cross_entropy", lambda d: [(_probs()(d) + (A((4,), d, 0.1, 2.0),), dict(kw))
                                                for kw in RED]
             + [(_probs()(d) + (A((3, 4), d, 0.1, 2.0),), {}), (_probs()(d) + (A((3, 1), d, 0.1, 2.0),), {})],
             FL, call=_bce),
    # a weight requiring grad: PyTorch's error under test_gradients
    OpRecord("binary_cross_entropy", s(c(A(low=0.1, high=0.9), A(**_U), A((4,), low=0.1, high=2))), F,
             call=lambda T, x, y, w, **kw: T.nn.functional.binary_cross_entropy(x, y, w, **kw)),
    OpRecord("binary_cross_entropy", s(
        c(A(**_U), A(dtype="float64", **_U)),
        c(A(dtype="int64", **_U), A(dtype="int64", **_U)),
        c(A(dtype="float64", **_U), A(**_U)),
        c(A(low=-1, high=2), A(**_U)),
        c(A(**_U), A(low=-1, high=2)),
        c(A(**_U), A((4,), **_U)),
        c(A(**_U), A(**_U), A((5,))),
        c(A(**_U), A(**_U), A((2, 3, 4))),
        c(A((0, 4), **_U), A((0, 4), **_U)),
        c(A(**_U), A(**_U), reduction="bad"),
        c(A(**_U), A(**_U), size_average=False)), F, call=_bce),
]


def _logits(shape=(3, 4), nc=False):
    return lambda d: (A(shape, d, -4, 4, nc), A(shape, d, 0.0, 1.0, nc))


def _bcel(T, x, y, w=None, pw=None, **kw):
    return T.nn.functional.binary_cross_entropy_with_logits(x, y, None if w is None else w.detach(), **kw,
                                                            pos_weight=None if pw is None else pw.detach())


def _bcel_weighted(d):
    w, pw = A((4,), d, 0.1, 2), A((4,), d, 0.5, 3)
    out = [(_logits()(d) + (w, pw), dict(kw)) for kw in RED]
    out.append((_logits()(d) + (None, pw), {}))
    out.append((_logits()(d) + (A((3, 1), d, 0.1, 2),), {}))
    out.append((_logits((2, 3, 4))(d) + (A((3, 1), d, 0.1, 2), A((3, 4), d, 0.5, 3)), {"reduction": "sum"}))
    return out


_BCEL = [
    OpRecord("binary_cross_entropy_with_logits", reds(_logits(), _logits((4, 3), True), _logits(()),
                                                      _logits((5,))), FL,
             call=Fn("binary_cross_entropy_with_logits")),
    OpRecord("binary_cross_entropy_with_logits", reds(_logits()), F16,
             call=Fn("binary_cross_entropy_with_logits")),
    OpRecord("binary_cross_entropy_with_logits", _bcel_weighted, FL, call=_bcel),
    # weight / pos_weight requiring grad: PyTorch's errors under test_gradients
    OpRecord("binary_cross_entropy_with_logits", s(c(A(), A(**_U), A((4,))),
                                                   c(A(), A(**_U), None, A((4,)))), F,
             call=lambda T, x, y, w=None, pw=None: T.nn.functional.binary_cross_entropy_with_logits(
                 x, y, w, pos_weight=pw)),
    OpRecord("binary_cross_entropy_with_logits", s(
        c(A(), A(dtype="float64", **_U)),
        c(A(dtype="float64"), A(**_U)),
        c(A(dtype="int64"), A()),
        c(A(), A(dtype="int64", **_U)),
        c(A(), A(dtype="bool")),
        c(A(dtype="float16"), A(**_U)),
        c(A(), A((4,))),
        c(A(), A(), A((5,))),
        c(A(), A(), None, A((2, 3, 4))),
        c(A((0, 4)), A((0, 4))),
        c(A(), A(), reduction="bad"),
        c(A(), A(), reduce=False)), F, call=_bcel),
    OpRecord("binary_cross_entropy_with_logits", lambda d: [
        (_logits()(d) + (None, None, 1), {}),
        (_logits()(d) + (A((4,), d, 0.1, 2), A((4,), d, 0.5, 3), 0), {}),
        (_logits()(d) + (None, A((4,), d, 0.5, 3), 2), {})], F,
        call=lambda T, x, y, w, pw, r: T.binary_cross_entropy_with_logits(
            x, y, None if w is None else w.detach(), None if pw is None else pw.detach(), r)),
]

# ---- kl_div, poisson, gaussian -----------------------------------------------------------------------------
_RED_BM = (*RED, {"reduction": "batchmean"})


def _kl_samples(d):
    out = [c(A((3, 4), d, -3, 0), A((3, 4), d, 0, 1), **kw) for kw in _RED_BM]
    out += [c(A((3, 4), d, -3, 0), A((3, 4), d, -3, 0), log_target=True, **kw) for kw in _RED_BM]
    out.append(c(A((4, 3), d, -3, 0, True), A((4, 3), d, 0, 1, True), reduction="sum"))
    out.append(c(A((), d, -3, 0), A((), d, 0, 1), reduction="batchmean"))
    out.append(c(A((3, 4), d, -3, 0), A((4,), d, 0, 1), reduction="none"))
    return out


_KL = [
    OpRecord("kl_div", _kl_samples, FL, call=Fn("kl_div")),
    OpRecord("kl_div", lambda d: [c(A((3, 4), d, -3, 0), A((3, 4), d, 0, 1), **kw) for kw in RED], F16,
             call=Fn("kl_div")),
    OpRecord("kl_div", s(
        c(A(low=-3, high=0), A(dtype="float64", **_U)),
        c(A(dtype="int64"), A()),
        c(A(), A(dtype="bool")),
        c(A(dtype="complex64"), A()),
        c(A(), A(), reduction="x"),
        c(A(low=-3, high=0), A(**_U), size_average=False),
        c(A(low=-3, high=0), A(**_U), reduce=False),
        c(A((0, 4)), A((0, 4), **_U), reduction="batchmean")), F, call=Fn("kl_div")),
    OpRecord("kl_div", lambda d: [c(A((3, 4), d, -3, 0), A((3, 4), d, 0, 1)),
                                  c(A((3, 4), d, -3, 0), A((3, 4), d, 0, 1), 0),
                                  c(A((3, 4), d, -3, 0), A((3, 4), d, -2, 0), 2, log_target=True)], FL,
             method=False),
]


def _pois(log_input=True):
    lo = -2.0 if log_input else 0.1
    return lambda d: (A((3, 4), d, lo, 2.0), A((3, 4), d, 0.0, 4.0))


def _pois_samples(d):
    out = [(_pois(li)(d), {"log_input": li, "full": fu, **kw})
           for li in (True, False) for fu in (False, True) for kw in RED]
    out.append(c(A((4, 3), d, 0.1, 2, True), A((4, 3), d, 0, 4, True), log_input=False, eps=0.5))
    return out


_POIS = [
    OpRecord("poisson_nll_loss", _pois_samples, FL, call=Fn("poisson_nll_loss")),
    OpRecord("poisson_nll_loss", lambda d: [(_pois()(d), dict(kw)) for kw in RED], F16,
             call=Fn("poisson_nll_loss")),
    OpRecord("poisson_nll_loss", s(
        c(A(), A(dtype="float64", low=0, high=4)),
        c(A(dtype="int64", low=0, high=3), A(dtype="int64", low=0, high=3)),
        c(A(dtype="int64", low=0, high=3), A(dtype="int64", low=0, high=3), log_input=False),
        c(A(dtype="bool"), A(dtype="bool")),
        c(A(), A(dtype="int64", low=0, high=4), full=True),
        c(A(), A((4,), low=0, high=4), reduction="none"),
        c(A(), A(), reduction="bad"),
        c(A(), A(low=0, high=4), size_average=False)), F, call=Fn("poisson_nll_loss")),
    OpRecord("poisson_nll_loss", lambda d: [(_pois()(d) + (True, False, 1e-8, 1), {}),
                                            (_pois(False)(d) + (False, True, 1e-8, 0), {})], FL,
             method=False),
]


def _gauss_samples(d):
    out = [c(A((3, 4), d), A((3, 4), d), A(sh, d, 0.1, 2.0), full=fu, **kw)
           for sh in ((3, 4), (3,), (3, 1)) for fu in (False, True) for kw in RED]
    out.append(c(A((3, 4), d), A((3, 4), d), A((3, 4), d, 0.0, 1e-4), eps=1e-3))
    return out


_GAUSS = [
    OpRecord("gaussian_nll_loss", _gauss_samples, FL, call=Fn("gaussian_nll_loss")),
    OpRecord("gaussian_nll_loss", lambda d: [c(A((3, 4), d), A((3, 4), d), 0.5, **kw) for kw in RED], FL,
             call=Fn("gaussian_nll_loss")),
    OpRecord("gaussian_nll_loss", s(
        c(A(), A(), -1.0),
        c(A(), A(), 1),
        c(A(), A(), A(low=-1, high=-0.5)),
        c(A(), A(), A((3, 2), low=0.1, high=1)),
        c(A(), A(), A((4,), low=0.1, high=1)),
        c(A(), A(), A(low=0.1, high=1), reduction="bad"),
        c(A(), A(dtype="float64"), A(low=0.1, high=1)),
        c(A(dtype="float16"), A(dtype="float16"), A(dtype="float16", low=0.1, high=1))), F,
        call=Fn("gaussian_nll_loss")),
]

# ---- hinge, margin ranking, cosine embedding, multilabel soft margin ---------------------------------------
_HINGE = [
    OpRecord("hinge_embedding_loss", lambda d: [c(A((3, 4), d), A((3, 4), d), margin=m, **kw)
                                                for m in (1.0, 0.5) for kw in RED]
             + [c(A((4, 3), d, nc=True), A((4, 3), d)), c(A((), d), A((), d)),
                c(A((3, 4), d), A((4,), d), reduction="none")], FL,
             call=_sign_target("hinge_embedding_loss")),
    OpRecord("hinge_embedding_loss", lambda d: [c(A((3, 4), d), A((3, 4), d), **kw) for kw in RED], F16,
             call=_sign_target("hinge_embedding_loss")),
    OpRecord("hinge_embedding_loss", s(
        c(A(dtype="int64"), A(), reduction="none", margin=1.5),
        c(A(dtype="int64"), A()),
        c(A(dtype="int64"), A(), reduction="sum"),
        c(A(), A(dtype="float64")),
        c(A(dtype="bool"), A()),
        c(A(dtype="complex64"), A()),
        c(A(), A(), size_average=False)), F, call=_sign_target("hinge_embedding_loss")),
    OpRecord("hinge_embedding_loss", lambda d: [c(A((3, 4), d), A((3, 4), d)),
                                                c(A((3, 4), d), A((3, 4), d), 2.0, 0)], FL,
             call=lambda T, x, t, *a, **kw: T.hinge_embedding_loss(x, T.sign(t).detach(), *a, **kw)),
]


def _rank_samples(d):
    out = [c(A((3, 4), d), A((3, 4), d), A((3, 4), d), margin=m, **kw) for m in (0.0, 0.5) for kw in RED]
    out += [c(*(A((4, 3), d, nc=True),) * 3), c(*(A((5,), d),) * 3, reduction="none"),
            c(A((3, 4), d), A((1, 4), d), A((3, 1), d), reduction="none")]
    return out


_RANK = [
    OpRecord("margin_ranking_loss", _rank_samples, FL, call=_sign_target("margin_ranking_loss", 2)),
    OpRecord("margin_ranking_loss", s(
        c(A(), A(), A((4,))),
        c(A(dtype="int64"), A(dtype="int64"), A(dtype="int64")),
        c(A(), A(dtype="float64"), A()),
        c(A(), A(), A(dtype="bool")),
        c(A(dtype="bool"), A(), A()),
        c(A(), A(), A(), reduction="bad")), F, call=_sign_target("margin_ranking_loss", 2)),
    OpRecord("margin_ranking_loss", lambda d: [c(*(A((3, 4), d),) * 3), c(*(A((3, 4), d),) * 3, 0.5, 2)], FL,
             call=lambda T, a, b, t, *r: T.margin_ranking_loss(a, b, T.sign(t), *r)),
]


def _cos_target(T, a, b, t, *r, **kw):
    return T.nn.functional.cosine_embedding_loss(a, b, T.sign(t), *r, **kw)


def _cosemb_samples(d):
    out = [c(A((3, 5), d), A((3, 5), d), A((3,), d), margin=m, **kw) for m in (0.0, 0.3) for kw in RED]
    out += [c(A((5,), d), A((5,), d), A((), d)),
            c(A((5, 3), d, nc=True), A((5, 3), d, nc=True), A((5,), d), reduction="none")]
    return out


_COSEMB = [
    OpRecord("cosine_embedding_loss", _cosemb_samples, FL, call=_cos_target),
    OpRecord("cosine_embedding_loss", s(
        c(A((3, 5)), A((3, 5)), A((3, 1))),
        c(A((3, 5)), A((5,)), A((3,))),
        c(A((5,)), A((5,)), A((3,))),
        c(A((3, 5), "int64"), A((3, 5), "int64"), A((3,))),
        c(A((3, 5), "float64"), A((3, 5)), A((3,))),
        c(A((3, 5)), A((3, 5)), A((3,)), reduce=False)), F, call=_cos_target),
    OpRecord("cosine_embedding_loss", lambda d: [c(A((3, 5), d), A((3, 5), d), A((3,), d), 0.2, 2)], FL,
             call=lambda T, a, b, t, *r: T.cosine_embedding_loss(a, b, T.sign(t).detach(), *r)),
]


def _mlsm_samples(d):
    out = [c(A((3, 5), d), A((3, 5), d, 0, 1), **kw) for kw in RED]
    out += [c(A((5,), d), A((5,), d, 0, 1)),
            c(A((2, 3, 4), d, nc=True), A((2, 3, 4), d, 0, 1), reduction="none")]
    return out


_MLSM = [
    OpRecord("multilabel_soft_margin_loss", _mlsm_samples, FL, call=Fn("multilabel_soft_margin_loss")),
    OpRecord("multilabel_soft_margin_loss",
             lambda d: [c(A((3, 5), d), A((3, 5), d, 0, 1), A((5,), d, 0.1, 2), **kw) for kw in RED], FL,
             call=Fn("multilabel_soft_margin_loss")),
    OpRecord("multilabel_soft_margin_loss",
             lambda d: [c(A((3, 5), d), A((3, 5), d, 0, 1), **kw) for kw in RED], F16,
             call=Fn("multilabel_soft_margin_loss")),
    OpRecord("multilabel_soft_margin_loss", s(
        c(A(()), A((), **_U)),
        c(A((3, 5), "int64"), A((3, 5))),
        c(A((3, 5)), A((3, 5), "bool")),
        c(A((3, 5)), A((3, 5), "float64", 0, 1)),
        c(A((3, 5)), A((3, 5), **_U), reduction="bad"),
        c(A((3, 5)), A((3, 5), **_U), size_average=False),
        c(A((0, 5)), A((0, 5)))), F, call=Fn("multilabel_soft_margin_loss")),
]

# ---- triplet -----------------------------------------------------------------------------------------------
def _trip_samples(d):
    out = [c(*(A((4, 5), d),) * 3, p=p, swap=sw, **kw)
           for p in (2, 1, 3.5) for sw in (False, True) for kw in RED]
    out += [c(*(A((5,), d),) * 3, margin=0.3), c(*(A((2, 3, 4), d, nc=True),) * 3, reduction="none"),
            c(A((4, 5), d), A((1, 5), d), A((4, 5), d), eps=1e-3)]
    return out


_A45 = A((4, 5))
_TRIP = [
    OpRecord("triplet_margin_loss", _trip_samples, FL, call=Fn("triplet_margin_loss")),
    OpRecord("triplet_margin_loss", lambda d: [c(*(A((4, 5), d),) * 3, **kw) for kw in RED], F16,
             call=Fn("triplet_margin_loss")),
    OpRecord("triplet_margin_loss", s(
        c(_A45, _A45, A((5,))),
        c(_A45, _A45, _A45, margin=0),
        c(*(A((4, 5), "int64"),) * 3),
        c(*(A((4, 5), "bool"),) * 3),
        c(_A45, A((4, 5), "float64"), _A45),
        c(_A45, _A45, _A45, reduction="bad"),
        c(_A45, _A45, _A45, size_average=False)), F, call=Fn("triplet_margin_loss")),
    OpRecord("triplet_margin_loss", lambda d: [c(*(A((4, 5), d),) * 3),
                                               c(*(A((4, 5), d),) * 3, 0.5, 1.0, 1e-6, True, 0)], FL,
             method=False),
]


# ---- nll_loss ----------------------------------------------------------------------------------------------
def _cls(shape, n_cls, nc=False):
    """(input, class-index target) of an (N, C, d1, ...) / (C,) input."""
    tshape = () if len(shape) == 1 else (shape[0],) + tuple(shape[2:])
    return lambda d: (A(shape, d, nc=nc), Idx(tshape, n_cls))


_CLS_SHAPES = (((3, 5), 5), ((4, 3), 3, True), ((5,), 5), ((2, 4, 3), 4), ((2, 4, 3, 2), 4),
               ((2, 3, 2, 2, 2), 3))


def _cls_samples(extra_kw=()):
    def samples(d):
        for shape, n_cls, *nc in _CLS_SHAPES:
            for kw in RED:
                yield _cls(shape, n_cls, bool(nc))(d), dict(kw)
        for kw in extra_kw:
            yield _cls((4, 5), 5)(d), dict(kw)
    return samples


def _with_weight(name):
    def f(T, x, t, w, **kw):
        return getattr(T.nn.functional, name)(x, t, w.detach(), **kw)
    return f


def _weighted_cls(d):
    out = [(_cls(shape, n_cls, bool(nc))(d) + (A((n_cls,), d, 0.1, 2.0),), dict(kw))
           for shape, n_cls, *nc in _CLS_SHAPES for kw in RED]
    out.append((_cls((4, 5), 5)(d) + (A((5,), d, 0.1, 2.0),), {"ignore_index": 2}))
    return out


_A35 = A((3, 5))
_T3 = Idx((3,), 5)
_NLL_ERRORS = s(
    c(A(()), Idx((), 1)),
    c(_A35, Idx((2,), 5)),
    c(A((5,)), Idx((5,), 5)),
    c(A((5,)), Idx((1,), 5)),
    c(A((5,)), Idx((1,), 5), reduction="none"),
    c(_A35, Idx((), 5)),
    c(_A35, Idx((3, 1), 5)),
    c(_A35, Idx((3,), 5, dtype="int32")),
    c(_A35, Idx((3,), 5, dtype="uint8")),
    c(_A35, A((3,))),
    c(A((3, 5), "int64"), _T3),
    c(A((3, 5), "complex64"), _T3),
    c(_A35, Idx((3,), 9, 5)),
    c(A((1, 5)), Idx((1,), 0, -3), reduction="none"),  # one bad target: PyTorch's threads pick among several
    c(_A35, _T3, A((4,))),
    c(_A35, _T3, A((5, 1))),
    c(_A35, _T3, A((5,), "float64")),
    c(_A35, Idx((3,), 5, dtype="int32"), A((4,))),
    c(A((2, 5, 3, 4)), Idx((2, 3), 5)),
    c(A((2, 5, 3, 4)), Idx((2, 3, 5), 5)),
    c(A((2, 5, 3, 4)), Idx((2, 3, 4), 9, 5)),
    c(A((2, 5, 3, 4)), Idx((2, 3, 4), 5), A((3,))),
    c(A((2, 5, 3, 4), "int64"), Idx((2, 3, 4), 5)),
    c(A((2, 5, 3)), Idx((2, 4), 5)),
    c(A((2, 5, 3)), Idx((2, 3), 9, 5)),
    c(A((0, 5)), Idx((0,), 5)),
    c(A((0, 5)), Idx((0,), 5), reduction="sum"),
    c(A((0, 5, 3)), Idx((0, 3), 5)),
    c(A((0, 5, 3)), Idx((0, 3), 5), reduction="none"),
    c(_A35, _T3, reduction="bad"),
    c(_A35, _T3, reduce=False),
    c(A((3, 0)), Idx((3,), 1)))


def _nll(T, x, t, w=None, **kw):
    return T.nn.functional.nll_loss(x, t, None if w is None else w.detach(), **kw)


_IGN = s(
    c(_A35, _T3, ignore_index=1),
    c(_A35, Idx((3,), 2), ignore_index=1),
    c(_A35, Idx((3,), 1), ignore_index=0),  # every target ignored: mean is NaN
    c(_A35, Idx((3,), 1), ignore_index=0, reduction="sum"),
    c(A((4, 5)), Idx((4,), 5, -2), ignore_index=-1, reduction="none"),
    c(A((4, 5)), Idx((4,), 200, 150, dtype="uint8"), ignore_index=156),  # uint8 compared as int64
    c(A((4, 5)), Idx((4,), 5, dtype="uint8"), ignore_index=3))

_NLL = [
    OpRecord("nll_loss", _cls_samples(({"ignore_index": 2}, {"ignore_index": 2, "reduction": "none"})), FL,
             call=Fn("nll_loss")),
    OpRecord("nll_loss", _cls_samples(), F16, call=Fn("nll_loss")),
    OpRecord("nll_loss", _weighted_cls, FL, call=_with_weight("nll_loss")),
    OpRecord("nll_loss", s(c(_A35, _T3, A((5,)))), F,  # a weight requiring grad (error under test_gradients)
             call=lambda T, x, t, w: T.nn.functional.nll_loss(x, t, w)),
    OpRecord("nll_loss", _IGN, F, call=Fn("nll_loss")),
    OpRecord("nll_loss", _NLL_ERRORS, F, call=_nll),
]


# ---- cross_entropy -----------------------------------------------------------------------------------------
def _probs_target(shape, nc=False):
    return lambda d: (A(shape, d, nc=nc), A(shape, d, 0.0, 1.0, nc))


def _ce_prob_samples(d):
    shapes = (((3, 5), False), ((4, 3), True), ((5,), False), ((2, 4, 3), False), ((2, 3, 2, 2), False))
    for shape, nc in shapes:
        for kw in RED:
            yield _probs_target(shape, nc)(d), dict(kw)
    for kw in ({"label_smoothing": 0.2}, {"label_smoothing": 0.2, "reduction": "none"}):
        yield _probs_target((3, 5))(d), kw


def _ce(T, x, t, w=None, **kw):
    """F.cross_entropy with the weight detached for class indices (PyTorch differentiates it only for class
    probabilities)."""
    if w is not None and not t.is_floating_point():
        w = w.detach()
    return T.nn.functional.cross_entropy(x, t, w, **kw)


_LS = ({"label_smoothing": 0.1}, {"label_smoothing": 0.1, "reduction": "none"},
       {"label_smoothing": 0.3, "reduction": "sum"}, {"label_smoothing": 0.2, "ignore_index": 1},
       {"label_smoothing": 0.2, "ignore_index": 1, "reduction": "none"}, {"label_smoothing": 1.0})


def _ce_ls_weighted(d):
    out = [(_cls(sh, n)(d) + (A((n,), d, 0.1, 2),), {"label_smoothing": 0.2, **kw})
           for sh, n in (((4, 5), 5), ((2, 4, 3), 4)) for kw in RED]
    out.append((_cls((4, 5), 2)(d) + (A((5,), d, 0.1, 2),), {"label_smoothing": 0.2, "ignore_index": 1}))
    return out


def _ce_prob_weighted(d):
    out = [(_probs_target((3, 5))(d) + (A((5,), d, 0.1, 2),), dict(kw))
           for kw in (*RED, {"label_smoothing": 0.2})]
    out.append((_probs_target((2, 5, 3))(d) + (A((5,), d, 0.1, 2),), {}))
    return out


_CE = [
    OpRecord("cross_entropy", _cls_samples(({"ignore_index": 2}, *_LS)), FL, call=Fn("cross_entropy")),
    OpRecord("cross_entropy", lambda d: [(_cls(sh, n)(d), dict(kw)) for sh, n in (((2, 4, 3), 4),
                                                                                  ((2, 3, 2, 2), 3))
                                         for kw in _LS[:3]], FL, call=Fn("cross_entropy")),
    OpRecord("cross_entropy", _cls_samples(), F16, call=Fn("cross_entropy")),
    OpRecord("cross_entropy", _ce_prob_samples, FL, call=Fn("cross_entropy")),
    OpRecord("cross_entropy", _ce_prob_weighted, FL, call=_ce),
    OpRecord("cross_entropy", _weighted_cls, FL, call=_ce),
    OpRecord("cross_entropy", _ce_ls_weighted, FL, call=_ce),
    # a weight requiring grad with class indices (error under test_gradients)
    OpRecord("cross_entropy", s(c(_A35, _T3, A((5,))), c(_A35, _T3, A((5,)), label_smoothing=0.1)), F,
             call=lambda T, x, t, w, **kw: T.nn.functional.cross_entropy(x, t, w, **kw)),
    OpRecord("cross_entropy", s(
        c(A(()), Idx((), 1)),
        c(A((3, 5), "int64"), _T3),
        c(A((2, 5, 3), "int64"), Idx((2, 3), 5)),
        c(_A35, A((3, 5), "int64")),
        c(_A35, A((3, 5), **_U), ignore_index=1),
        c(_A35, A((3, 5), "float64", 0, 1)),
        c(_A35, A((3, 5), "float64", 0, 1), label_smoothing=0.2),
        c(_A35, A((3, 5), "float16", 0, 1)),
        c(_A35, A((3, 5), **_U), A((4,))),
        c(_A35, A((3, 5), **_U), A((5,), "float64", 0.1, 1)),
        c(A((0, 5)), A((0, 5), **_U)),
        c(A((0, 5)), A((0, 5), **_U), reduction="none"),
        c(_A35, _T3, label_smoothing=1.5),
        c(_A35, _T3, label_smoothing=-0.5),
        c(_A35, A((3, 5), **_U), label_smoothing=1.5),
        c(_A35, _T3, A((4,)), label_smoothing=0.1),
        c(_A35, Idx((3,), 9, 5), label_smoothing=0.1),
        c(_A35, Idx((3,), 5, dtype="int32"), label_smoothing=0.1),
        c(_A35, Idx((3,), 1), label_smoothing=0.1, ignore_index=0),
        c(A((0, 5)), Idx((0,), 5), label_smoothing=0.1),
        c(_A35, A((3,))),
        c(A((3, 5), "float16"), _T3, reduction="sum"),
        c(_A35, _T3, reduction="bad"),
        c(_A35, _T3, size_average=False)), F, call=_ce),
]


# ---- multi margin, multilabel margin -----------------------------------------------------------------------
def _mm_samples(d):
    for p in (1, 2):
        for kw in RED:
            yield (A((4, 5), d), Idx((4,), 5)), {"p": p, **kw}
    yield (A((4, 5), d), Idx((4,), 5)), {"margin": 0.5}
    yield (A((5, 4), d, nc=True), Idx((5,), 4)), {"reduction": "none"}
    yield (A((5,), d), Idx((1,), 5)), {"reduction": "none"}
    yield (A((5,), d), Idx((), 5)), {"reduction": "none"}
    yield (A((), d), Idx((), 1)), {}
    yield (A((0, 5), d), Idx((0,), 5)), {"reduction": "none"}  # reduced: PyTorch returns uninitialized memory


def _mm(T, x, t, w=None, **kw):
    return T.nn.functional.multi_margin_loss(x, t, weight=None if w is None else w.detach(), **kw)


_T4 = Idx((4,), 5)
_MM = [
    OpRecord("multi_margin_loss", _mm_samples, FL, call=Fn("multi_margin_loss")),
    OpRecord("multi_margin_loss", lambda d: [c(A((4, 5), d), _T4, A((5,), d, 0.1, 2), p=p, **kw)
                                             for p in (1, 2) for kw in RED], FL, call=_mm),
    OpRecord("multi_margin_loss", s(
        c(_A45, _T4, p=3),
        c(_A45, _T4, A((5, 1))),
        c(_A45, _T4, A((4,))),
        c(_A45, Idx((3,), 5)),
        c(_A45, Idx((1, 4), 5)),
        c(_A45, Idx((4,), 9, 5)),
        c(_A45, Idx((4,), 5, dtype="int32")),
        c(_A45, A((4,))),
        c(A((4, 5), "float16"), _T4),
        c(A((4, 5), "int64"), _T4),
        c(A((2, 3, 4)), Idx((2,), 3)),
        c(A((4, 0)), Idx((4,), 1)),
        c(_A45, _T4, A((5,), "float64")),
        c(A((4, 5), "float16"), Idx((4,), 5, dtype="int32")),
        c(_A45, Idx((4,), 5, dtype="int32"), A((5,), "float64")),
        c(_A45, _T4, reduction="bad"),
        c(_A45, _T4, size_average=False)), F, call=_mm),
    OpRecord("multi_margin_loss", s(c(_A45, _T4, A((5,)))), F,  # a weight requiring grad
             call=lambda T, x, t, w: T.nn.functional.multi_margin_loss(x, t, weight=w)),
]


def _mlm_target(n, n_cls, seed):
    """Multilabel targets: per row some class indices, then -1, then anything in [-1, C)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        k = int(rng.integers(0, n_cls + 1))
        row = [int(v) for v in rng.permutation(n_cls)[:k]] + ([-1] if k < n_cls else [])
        row += [int(v) for v in rng.integers(-1, n_cls, size=n_cls - len(row))]
        rows.append(row)
    return rows


def _mlm(T, x, rows, **kw):
    t = T.tensor(rows[0] if x.ndim <= 1 and rows else rows, dtype=T.int64)
    if x.ndim == 0:
        t = t.reshape(())
    elif x.ndim == 2:
        t = t.reshape(-1, x.shape[1])
    return T.nn.functional.multilabel_margin_loss(x, t, **kw)


def _mlm_samples(d):
    for kw in RED:
        yield (A((4, 5), d), _mlm_target(4, 5, 0)), dict(kw)
    yield (A((5, 4), d, nc=True), _mlm_target(5, 4, 1)), {"reduction": "none"}
    yield (A((5,), d), _mlm_target(1, 5, 2)), {"reduction": "none"}
    yield (A((5,), d), [[1, 1, 3, -1, 2]]), {}
    yield (A((), d), [[0]]), {}
    yield (A((0, 5), d), []), {"reduction": "none"}


_T35 = Idx((3, 5), 5)
_MLM = [
    OpRecord("multilabel_margin_loss", _mlm_samples, FL, call=_mlm),
    OpRecord("multilabel_margin_loss", s(
        c(_A35, Idx((3, 4), 5)),
        c(_A35, Idx((3, 5), 7, 5)),
        c(_A35, Idx((3, 5), -1, -3)),
        c(_A35, Idx((3, 5), 5, dtype="int32")),
        c(_A35, _A35),
        c(A((3, 5), "float16"), _T35),
        c(A((3, 5), "int64"), _T35),
        c(A((5,)), Idx((3,), 5)),
        c(_A35, Idx((5,), 5)),
        c(A((2, 3, 4)), Idx((2, 3, 4), 4)),
        c(A((3, 0)), Idx((3, 0), 1)),
        c(A((3, 5), "float16"), Idx((3, 5), 5, dtype="int32")),
        c(_A35, Idx((3, 5), 7, 5, dtype="int32")),
        c(_A35, _T35, reduction="bad"),
        c(_A35, _T35, reduce=False)), F, call=Fn("multilabel_margin_loss")),
]


# ---- ctc (lengths as Python lists: tensors built in `call`; tuples in the torch-form record) ---------------
def _ctc(T, lp, tg, il, tl, **kw):
    return T.nn.functional.ctc_loss(lp, tg, T.tensor(il), T.tensor(tl), **kw)


def _ctc_int32(T, lp, tg, il, tl, **kw):
    return T.nn.functional.ctc_loss(lp, tg, T.tensor(il, dtype=T.int32), T.tensor(tl, dtype=T.int32), **kw)


def _ctc_samples(d):
    lp = A((7, 3, 5), d, -3.0, 0.0)
    tg = Idx((3, 4), 5, 1)
    for kw in (*RED, {"zero_infinity": True, "reduction": "none"}):
        yield (lp, tg, [7, 5, 6], [4, 2, 3]), dict(kw)
    yield (lp, Idx((9,), 5, 1), [7, 6, 7], [4, 2, 3]), {"reduction": "none"}  # concatenated targets
    yield (lp, Idx((3, 3), 5), [7, 7, 7], [3, 3, 3]), {"blank": 2, "reduction": "sum"}
    yield (A((7, 3, 5), d, -3, 0, True), tg, [7, 7, 7], [4, 0, 1]), {}
    yield (lp, Idx((3, 4), 2, 1), [2, 7, 3], [4, 2, 3]), {"reduction": "none"}  # impossible alignments: inf
    yield (lp, Idx((3, 4), 2, 1), [2, 7, 3], [4, 2, 3]), {"reduction": "mean", "zero_infinity": True}
    yield (A((6, 4), d, -3, 0), Idx((3,), 4, 1), [6], [3]), {"reduction": "none"}  # unbatched
    yield (A((6, 4), d, -3, 0), Idx((3,), 4, 1), [6], [3]), {}
    yield (lp, tg, [0, 7, 5], [0, 2, 3]), {"reduction": "none"}


_LP = A((7, 3, 5), low=-3, high=0)
_TG = Idx((3, 4), 5, 1)
_CTC_ERRORS = s(
    c(A((7, 3, 5), "float16"), _TG, [7, 5, 6], [4, 2, 3]),
    c(A((5,)), _TG, [7, 5, 6], [4, 2, 3]),
    c(_LP, Idx((1, 3, 4), 5, 1), [7, 5, 6], [4, 2, 3]),
    c(_LP, _TG, [7, 5, 6], [4, 2, 3], blank=5),
    c(_LP, _TG, [7, 5], [4, 2, 3]),
    c(_LP, _TG, [7, 5, 6], [4, 2]),
    c(_LP, _TG, [7, 5, 6], [4, -1, 3]),
    c(_LP, Idx((8,), 5, 1), [7, 5, 6], [4, 2, 3]),
    c(_LP, Idx((2, 4), 5, 1), [7, 5, 6], [4, 2, 3]),
    c(_LP, _TG, [7, 5, 6], [5, 2, 3]),
    c(_LP, _TG, [8, 5, 6], [4, 2, 3]),
    c(_LP, _TG, [-1, 5, 6], [4, 2, 3]),
    c(_LP, _TG, [7.0, 5.0, 6.0], [4, 2, 3]),  # PyTorch's "input_lengths must be integral"
    c(_LP, _TG, [7, 5, 6], [4, 2, 3], reduction="bad"))

_CTC = [
    OpRecord("ctc_loss", _ctc_samples, FL, call=_ctc),
    OpRecord("ctc_loss", _CTC_ERRORS, F, call=_ctc),
    OpRecord("ctc_loss", s(c(_LP, _TG, [7, 5, 6], [4, 2, 3]),
                           c(_LP, Idx((3, 4), 5, 1, dtype="int32"), [7, 5, 6], [4, 2, 3],
                             reduction="sum")), F,
             call=_ctc_int32),
    OpRecord("ctc_loss", lambda d: [c(A((7, 3, 5), d, -3, 0), _TG, (7, 5, 6), (4, 2, 3)),
                                    c(A((7, 3, 5), d, -3, 0), _TG, (7, 5, 6), (4, 2, 3), 0, 1),
                                    c(A((7, 3, 5), d, -3, 0), _TG, (7, 5, 6), (4, 2, 3), 0, 0, True)], FL,
             method=False),
]

RECORDS = (_REG + _SOFT + _BCE + _BCEL + _KL + _POIS + _GAUSS + _HINGE + _RANK + _COSEMB + _MLSM + _TRIP
           + _NLL + _CE + _MM + _MLM + _CTC)
