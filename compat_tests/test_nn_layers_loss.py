"""Loss layers (`nn.*Loss`) against real PyTorch through nn_harness: values for each reduction, first- (and
for L1Loss/NLLLoss/PoissonNLLLoss and other cheap ones, second-) order gradients w.r.t. inputs, class-weight
buffers, the legacy size_average/reduce arguments, constructor and forward errors, reprs and state dicts,
tracing."""
import warnings

import pytest
import torch

import torchshim
from harness import Arg, Idx, check
from nn_harness import check_module, check_repr, check_traced


def _lib(module):
    return torch if isinstance(module, torch.nn.Module) else torchshim


def _case(build, inputs, second_order=False, call=None, traced=True, **kw):
    extra = {"call": call} if call is not None else {}
    check_module(build, inputs, second_order=second_order, modes=("train",), **extra, **kw)
    if traced:
        check_traced(build, inputs, modes=("train",), **extra)


def _sign(m, *xs):
    """The last input (0/1 integers) as a float target of -1/+1."""
    *rest, t = xs
    return m(*rest, t.to(rest[0].dtype) * 2 - 1)


def _log_softmax(m, x, *rest):
    return m(_lib(m).log_softmax(x, dim=1), *rest)


def _ctc(m, x, targets):
    T = _lib(m)
    return m(T.log_softmax(x, dim=2), targets, T.tensor([6, 5]), T.tensor([3, 2]))


def _multilabel_margin(m, x):
    return m(x, _lib(m).tensor([[3, 0, -1, 1], [1, 2, 3, -1]]))


def _missing(name):
    return pytest.mark.xfail(not hasattr(torchshim.nn.functional, name), strict=True,
                             reason=f"torchshim.nn.functional.{name} is not written yet")


N, C = 4, 3
X = Arg((N, C))
P = Arg((N, C), low=0.05, high=0.95)  # probabilities
LOSSES = {
    "l1": (lambda T: T.nn.L1Loss(), [X, Arg((N, C))], True, None),
    "l1-sum": (lambda T: T.nn.L1Loss(reduction="sum"), [Arg((2, 3, 2)), Arg((2, 3, 2))], True, None),
    "mse-none": (lambda T: T.nn.MSELoss(reduction="none"), [X, Arg((N, C))], True, None),
    "nll": (lambda T: T.nn.NLLLoss(), [X, Idx((N,), C)], True, _log_softmax),
    "nll-weight-ignore": (lambda T: T.nn.NLLLoss(weight=T.tensor([0.2, 1.0, 2.5]), ignore_index=1),
                          [Arg((N, C, 2)), Idx((N, 2), C)], True, _log_softmax),
    "nll-sum": (lambda T: T.nn.NLLLoss(reduction="sum"), [X, Idx((N,), C)], True, None),
    "poisson-nll": (lambda T: T.nn.PoissonNLLLoss(), [X, Arg((N, C), low=0, high=4)], True, None),
    "poisson-nll-full": (lambda T: T.nn.PoissonNLLLoss(log_input=False, full=True, reduction="none"),
                         [Arg((N, C), low=0.1, high=3), Arg((N, C), low=0, high=4)], True, None),
    "gaussian-nll": (lambda T: T.nn.GaussianNLLLoss(), [X, Arg((N, C)), Arg((N, C), low=0.1, high=2)], False,
                     None),
    "gaussian-nll-full-var1": (lambda T: T.nn.GaussianNLLLoss(full=True, eps=1e-3, reduction="sum"),
                               [X, Arg((N, C)), Arg((N, 1), low=0.1, high=2)], False, None),
    "kldiv-batchmean": (lambda T: T.nn.KLDivLoss(reduction="batchmean"), [X, P], True, _log_softmax),
    "kldiv-log-target": (lambda T: T.nn.KLDivLoss(reduction="none", log_target=True), [X, Arg((N, C))], False,
                         None),
    "bce": (lambda T: T.nn.BCELoss(), [P, Arg((N, C), low=0, high=1)], True, None),
    "bce-weight": (lambda T: T.nn.BCELoss(weight=T.tensor([1.0, 0.5, 2.0]), reduction="sum"),
                   [P, Arg((N, C), low=0, high=1)], False, None),
    "bce-logits": (lambda T: T.nn.BCEWithLogitsLoss(), [X, Arg((N, C), low=0, high=1)], True, None),
    "bce-logits-weights": (lambda T: T.nn.BCEWithLogitsLoss(weight=T.tensor([1.0, 0.5, 2.0]),
                                                            pos_weight=T.tensor([3.0, 1.0,
                                                                                 0.5]), reduction="none"),
                           [X, Arg((N, C), low=0, high=1)], False, None),
    "hinge-embedding": (lambda T: T.nn.HingeEmbeddingLoss(margin=0.5), [X, Idx((N, C), 2)], False, _sign),
    "multilabel-margin": (lambda T: T.nn.MultiLabelMarginLoss(), [Arg((2, 4))], False, _multilabel_margin),
    "smooth-l1": (lambda T: T.nn.SmoothL1Loss(beta=0.5), [X, Arg((N, C))], True, None),
    "huber": (lambda T: T.nn.HuberLoss(delta=2.0, reduction="sum"), [X, Arg((N, C))], True, None),
    "soft-margin": (lambda T: T.nn.SoftMarginLoss(), [X, Idx((N, C), 2)], False, _sign),
    "cross-entropy": (lambda T: T.nn.CrossEntropyLoss(), [X, Idx((N,), C)], True, None),
    "cross-entropy-options": (lambda T: T.nn.CrossEntropyLoss(weight=T.tensor([0.3, 1.0, 2.0]),
                                                              ignore_index=0, label_smoothing=0.1),
                              [Arg((N, C, 2)), Idx((N, 2), C)], True, None),
    "cross-entropy-probs": (lambda T: T.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.2), [X, P],
                            False, None),
    "cross-entropy-f64": (lambda T: T.nn.CrossEntropyLoss(), [Arg((N, C), "float64"), Idx((N,), C)], False,
                          None),
    "multilabel-soft-margin": (lambda T: T.nn.MultiLabelSoftMarginLoss(weight=T.tensor([1.0, 2.0, 0.5])),
                               [X, Idx((N, C), 2)], False, None),
    "cosine-embedding": (lambda T: T.nn.CosineEmbeddingLoss(margin=0.2), [X, Arg((N, C)), Idx((N,), 2)],
                         False, _sign),
    "margin-ranking": (lambda T: T.nn.MarginRankingLoss(margin=0.1), [Arg((N,)), Arg((N,)), Idx((N,), 2)],
                       False, _sign),
    "multi-margin": (lambda T: T.nn.MultiMarginLoss(p=2, margin=0.5, weight=T.tensor([1.0, 0.2, 3.0])),
                     [X, Idx((N,), C)], False, None),
    "multi-margin-p1": (lambda T: T.nn.MultiMarginLoss(reduction="none"), [X, Idx((N,), C)], False, None),
    "triplet": (lambda T: T.nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True), [X, Arg((N, C)), Arg((N, C))],
                False, None),
    "triplet-distance": (lambda T: T.nn.TripletMarginWithDistanceLoss(), [X, Arg((N, C)), Arg((N, C))], False,
                         None),
    "triplet-distance-custom": (lambda T: T.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1 - T.nn.functional.cosine_similarity(a, b), margin=0.3, swap=True,
        reduction="none"), [X, Arg((N, C)), Arg((N, C))], False, None),
    "ctc": (lambda T: T.nn.CTCLoss(), [Arg((6, 2, 4)), Idx((2, 3), 4, low=1)], False, _ctc),
    "ctc-sum-zero-inf": (lambda T: T.nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True),
                         [Arg((6, 2, 4)), Idx((2, 3), 3)], False, _ctc),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_matches_torch(name):
    build, inputs, second, call = LOSSES[name]
    _case(build, inputs, second_order=second, call=call)


@_missing("linear_cross_entropy")
@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.LinearCrossEntropyLoss(5, 3), [Arg((4, 5)), Idx((4,), 3)]),
    (lambda T: T.nn.LinearCrossEntropyLoss(5, 3, bias=True, weight=T.tensor([1.0, 0.5, 2.0]), ignore_index=1,
                                           label_smoothing=0.1, reduction="sum"), [Arg((4, 5)), Idx((4,),
                                                                                                    3)]),
    (lambda T: T.nn.LinearCrossEntropyLoss(5, 3, out_features=(2,), bias=True), [Arg((4, 5)), Idx((4, 2),
                                                                                                  3)]),
], ids=["plain", "options", "out-features"])
def test_linear_cross_entropy_loss_matches_torch(build, inputs):
    _case(build, inputs)


@pytest.mark.parametrize("build,inputs,call", [
    (lambda T: T.nn.NLLLoss(), [X, Idx((N,), C + 1)], None),
    (lambda T: T.nn.NLLLoss(weight=T.ones(2)), [X, Idx((N,), C)], None),
    (lambda T: T.nn.CrossEntropyLoss(), [X, Arg((N,))], None),
    (lambda T: T.nn.BCELoss(), [Arg((N, C), low=0.5, high=1.5), Arg((N, C), low=0, high=1)], None),
    (lambda T: T.nn.L1Loss(reduction="avg"), [X, Arg((N, C))], None),
    (lambda T: T.nn.MultiMarginLoss(), [X, Idx((N,), C + 2, low=C)], None),
    (lambda T: T.nn.BCEWithLogitsLoss(), [X, Arg((N, 2))], None),
    (lambda T: T.nn.GaussianNLLLoss(), [X, Arg((N, C)), Arg((N, C), low=-2, high=-1)], None),
], ids=["nll-target-range", "nll-weight-size", "ce-target-dtype", "bce-range", "bad-reduction",
        "multi-margin-target", "bce-logits-shape", "gaussian-negative-var"])
def test_loss_errors_match_torch(build, inputs, call):
    extra = {"call": call} if call is not None else {}
    check_module(build, inputs, expect_error=True, modes=("train",), **extra)


def test_loss_constructor_errors():
    def f(T):
        out = []
        for fn in (lambda: T.nn.HuberLoss(delta="1"), lambda: T.nn.MultiMarginLoss(p=3),
                   lambda: T.nn.MultiMarginLoss(weight=T.ones(2,
                                                              2)), lambda: T.nn.TripletMarginLoss(margin=0.0),
                   lambda: T.nn.TripletMarginWithDistanceLoss(margin=-1.0),
                   lambda: T.nn.LinearCrossEntropyLoss(3, 4, weight=T.ones(3)),
                   lambda: T.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5)):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        return out
    check(f)


@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True), (False, True)])
def test_legacy_reduction_arguments(size_average, reduce):
    def f(T, x, y, t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            losses = [T.nn.L1Loss(size_average, reduce), T.nn.MSELoss(size_average=size_average,
                                                                      reduce=reduce),
                      T.nn.NLLLoss(size_average=size_average, reduce=reduce),
                      T.nn.CrossEntropyLoss(None, size_average, -100, reduce),
                      T.nn.KLDivLoss(size_average, reduce), T.nn.BCEWithLogitsLoss(None, size_average,
                                                                                   reduce)]
        msgs = [(m.category.__name__, str(m.message)) for m in w]
        tgt = T.sigmoid(y)
        vals = [losses[0](x, y), losses[1](x, y), losses[2](x, t), losses[3](x, t), losses[4](x, tgt),
                losses[5](x, tgt)]
        return [[m.reduction for m in losses], msgs, vals]
    check(f, [X, Arg((N, C)), Idx((N,), C)])


def test_nll_loss_2d_is_deprecated():
    def f(T, x, t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = T.nn.NLLLoss2d(ignore_index=0)
        return [[(x.category.__name__, str(x.message)) for x in w], repr(m), m.ignore_index,
                isinstance(m, T.nn.NLLLoss), m(T.log_softmax(x, 1), t)]
    check(f, [Arg((2, 3, 2, 2)), Idx((2, 2, 2), 3)])


def test_weight_buffers_follow_the_module():
    def f(T):
        ce = T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0]))
        bce = T.nn.BCEWithLogitsLoss(pos_weight=T.tensor([0.5]))
        ce2 = ce.double()
        return [list(ce.state_dict()), list(bce.state_dict()), ce2.weight.dtype,
                bce.double().pos_weight.dtype,
                dict(ce.named_buffers()), list(T.nn.NLLLoss().state_dict()), T.nn.NLLLoss().weight,
                list(dict(bce.named_buffers()))]
    check(f)


REPRS = [
    lambda T: T.nn.L1Loss(), lambda T: T.nn.NLLLoss(weight=T.ones(3)),
    lambda T: T.nn.PoissonNLLLoss(full=True),
    lambda T: T.nn.GaussianNLLLoss(), lambda T: T.nn.KLDivLoss(log_target=True), lambda T: T.nn.MSELoss(),
    lambda T: T.nn.BCELoss(weight=T.ones(2)), lambda T: T.nn.BCEWithLogitsLoss(pos_weight=T.ones(2)),
    lambda T: T.nn.HingeEmbeddingLoss(), lambda T: T.nn.MultiLabelMarginLoss(), lambda T: T.nn.SmoothL1Loss(),
    lambda T: T.nn.HuberLoss(), lambda T: T.nn.SoftMarginLoss(),
    lambda T: T.nn.CrossEntropyLoss(label_smoothing=0.1), lambda T: T.nn.MultiLabelSoftMarginLoss(),
    lambda T: T.nn.CosineEmbeddingLoss(), lambda T: T.nn.MarginRankingLoss(),
    lambda T: T.nn.MultiMarginLoss(weight=T.ones(3)), lambda T: T.nn.TripletMarginLoss(),
    lambda T: T.nn.TripletMarginWithDistanceLoss(), lambda T: T.nn.TripletMarginWithDistanceLoss(
        distance_function=T.nn.PairwiseDistance(p=1.0)), lambda T: T.nn.CTCLoss(),
    lambda T: T.nn.LinearCrossEntropyLoss(4, 3), lambda T: T.nn.LinearCrossEntropyLoss(
        4, 3, out_features=(2,), bias=True, ignore_index=0, label_smoothing=0.1, reduction="sum"),
]


@pytest.mark.parametrize("build", REPRS)
def test_loss_repr(build):
    check_repr(build)


def test_loss_attributes():
    def f(T):
        out = []
        for m in (T.nn.PoissonNLLLoss(), T.nn.GaussianNLLLoss(full=True), T.nn.CTCLoss(blank=2),
                  T.nn.HuberLoss(), T.nn.SmoothL1Loss(beta=0.3), T.nn.TripletMarginLoss(swap=True),
                  T.nn.KLDivLoss(),
                  T.nn.CrossEntropyLoss(), T.nn.MultiMarginLoss()):
            out.append(sorted((k, repr(v)) for k, v in vars(m).items() if not k.startswith("_")
                              and k not in ("training",)))
        return out
    check(f)
