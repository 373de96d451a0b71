"""Convolution, pooling, padding and vision layers (nn.Conv*, ConvTranspose*, Lazy*, *Pool*, *Pad*,
PixelShuffle, Upsample*, Fold/Unfold, ChannelShuffle) against real PyTorch through nn_harness: outputs, first-
(and, where PyTorch lists the layer as double-differentiable, second-) order gradients w.r.t. inputs and
parameters, errors, reprs and state dicts, tracing; default initialisation checked statistically."""
import math
import re

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, check
from nn_harness import check_module, check_repr, check_state_dict_roundtrip, check_traced


def _lib(module):
    return torch if isinstance(module, torch.nn.Module) else torchshim


def _case(build, inputs, second_order=False, kwargs=None, call=None, traced=True, **kw):
    extra = {"call": call} if call is not None else {}
    check_module(build, inputs, second_order=second_order, kwargs=kwargs, **extra, **kw)
    if traced:
        check_traced(build, inputs, kwargs=kwargs, **extra)


# ---- convolutions ------------------------------------------------------------------------------------------
CONV = {
    "conv1d": (lambda T: T.nn.Conv1d(3, 4, 3), [Arg((2, 3, 7))]),
    "conv1d-strided-groups": (lambda T: T.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2,
                                                    bias=False), [Arg((2, 4, 9))]),
    "conv1d-same-circular": (lambda T: T.nn.Conv1d(2, 3, 4, padding="same", padding_mode="circular"),
                             [Arg((3, 2, 6))]),
    "conv2d-unbatched": (lambda T: T.nn.Conv2d(3, 4, 3), [Arg((3, 5, 5))]),
    "conv2d-reflect-depthwise": (lambda T: T.nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 2),
                                                       dilation=(1, 2), groups=4, padding_mode="reflect"),
                                 [Arg((2, 4, 6, 7))]),
    "conv2d-same-replicate": (lambda T: T.nn.Conv2d(2, 3, (3, 4), padding="same", padding_mode="replicate"),
                              [Arg((1, 2, 5, 6))]),
    "conv2d-valid-f64-noncontig": (lambda T: T.nn.Conv2d(2, 2, 2, padding="valid", dtype=T.float64),
                                   [Arg((2, 2, 4, 3), "float64", noncontig=True)]),
    "conv3d": (lambda T: T.nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1), [Arg((2, 2, 3, 5, 4))]),
    "convT1d": (lambda T: T.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1), [Arg((2, 3,
                                                                                                      5))]),
    "convT2d-groups-dilation": (lambda T: T.nn.ConvTranspose2d(4, 2, 3, stride=2, groups=2, dilation=2,
                                                               bias=False), [Arg((1, 4, 3, 3))]),
    "convT2d-unbatched": (lambda T: T.nn.ConvTranspose2d(2, 3, (2, 3), stride=(1, 2), padding=(0, 1)),
                          [Arg((2, 3, 4))]),
    "convT3d": (lambda T: T.nn.ConvTranspose3d(2, 2, 2, stride=2), [Arg((1, 2, 2, 3, 2))]),
}


@pytest.mark.parametrize("name", list(CONV))
def test_conv_matches_torch(name):
    build, inputs = CONV[name]
    _case(build, inputs, second_order=True)


@pytest.mark.parametrize("output_size", [[8, 8], [1, 2, 7, 8]], ids=["spatial", "full"])
def test_conv_transpose_output_size(output_size):
    _case(lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), [Arg((1, 2, 4, 4))],
          kwargs={"output_size": output_size})


@pytest.mark.parametrize("build,inputs,kwargs", [
    (lambda T: T.nn.Conv2d(3, 4, 3), [Arg((2, 2, 5, 5))], None),
    (lambda T: T.nn.Conv2d(3, 4, 3), [Arg((5, 5))], None),
    (lambda T: T.nn.Conv1d(2, 2, 3, padding_mode="reflect", padding=3), [Arg((1, 2, 3))], None),
    (lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2), [Arg((1, 2, 4, 4))], {"output_size": [12, 12]}),
    (lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2), [Arg((1, 2, 4, 4))], {"output_size": [9]}),
], ids=["channels", "rank", "reflect-too-wide", "output-size-range", "output-size-len"])
def test_conv_errors_match_torch(build, inputs, kwargs):
    check_module(build, inputs, kwargs=kwargs, expect_error=True)


def _sets_sorted(msg):
    """PyTorch prints Python sets in its messages: their order follows the string hash seed (and, for a set
    constant, the order it was compiled in), so compare them sorted."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", msg)


def test_conv_constructor_errors():
    def f(T):
        out = []
        for fn in (lambda: T.nn.Conv2d(4, 4, 3, groups=0), lambda: T.nn.Conv2d(3, 4, 3, groups=2),
                   lambda: T.nn.Conv2d(4, 3, 3, groups=2), lambda: T.nn.Conv2d(2, 2, 3, padding="full"),
                   lambda: T.nn.Conv1d(2, 2, 3, padding="same", stride=2),
                   lambda: T.nn.Conv2d(2, 2, 3, padding_mode="mirror"),
                   lambda: T.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
                   lambda: T.nn.ConvTranspose1d(4, 2, 3, groups=3)):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, _sets_sorted(str(e))))
        return out
    check(f)


@pytest.mark.parametrize("build", [
    lambda T: T.nn.Conv1d(3, 4, 3),
    lambda T: T.nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 2), dilation=2, groups=4, bias=False,
                          padding_mode="circular"),
    lambda T: T.nn.Conv2d(2, 2, 3, padding="same"),
    lambda T: T.nn.Conv3d(2, 4, 3, padding="valid", dtype=T.float64),
    lambda T: T.nn.ConvTranspose1d(2, 4, 3, output_padding=1, stride=2),
    lambda T: T.nn.ConvTranspose2d(4, 4, 2, groups=2, dilation=(1, 2), bias=False),
    lambda T: T.nn.ConvTranspose3d(1, 2, (1, 2, 3)),
    lambda T: T.nn.LazyConv1d(3, 2), lambda T: T.nn.LazyConv2d(3, 2, bias=False), lambda T: T.nn.LazyConv3d(3,
                                                                                                            2),
    lambda T: T.nn.LazyConvTranspose1d(3, 2), lambda T: T.nn.LazyConvTranspose2d(3, 2),
    lambda T: T.nn.LazyConvTranspose3d(3, 2, groups=1),
], ids=["conv1d", "conv2d", "conv2d-same", "conv3d", "convT1d", "convT2d", "convT3d", "lazy1d", "lazy2d",
        "lazy3d", "lazyT1d", "lazyT2d", "lazyT3d"])
def test_conv_repr_and_state_dict(build):
    check_repr(build)


def test_conv_state_dict_round_trip():
    check_state_dict_roundtrip(lambda T: T.nn.Conv2d(2, 4, 3, groups=2))
    check_state_dict_roundtrip(lambda T: T.nn.ConvTranspose1d(2, 4, 3, bias=False))


@pytest.mark.parametrize("cls,dims,in_shape", [
    ("LazyConv1d", 1, (2, 3, 6)), ("LazyConv2d", 2, (3, 5, 5)), ("LazyConv3d", 3, (1, 2, 3, 3, 3)),
    ("LazyConvTranspose1d", 1, (2, 3, 4)), ("LazyConvTranspose2d", 2, (1, 4, 3, 3)),
    ("LazyConvTranspose3d", 3, (2, 2, 2, 2)),
])
def test_lazy_conv_materializes(cls, dims, in_shape):
    def f(T, x):
        m = getattr(T.nn, cls)(4, 2, groups=2 if in_shape[-dims - 1] % 2 == 0 else 1)
        before = [repr(m), type(m.weight).__name__, m.has_uninitialized_params()]
        y = m(x)
        return before + [type(m).__name__, repr(m), tuple(m.weight.shape), tuple(m.bias.shape),
                         tuple(y.shape), m.in_channels, len(m._forward_pre_hooks)]
    check(f, [Arg(in_shape)])


def test_lazy_conv_errors():
    def f(T, x):
        out = []
        for fn in (lambda: T.nn.LazyConv2d(4, 3)(x), lambda: T.nn.LazyConv2d(4, 3, groups=2)(x[0, :, :3]),
                   lambda: T.nn.LazyConvTranspose1d(4, 3)(x[0, 0, 0, 0])):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        return out
    check(f, [Arg((2, 5, 5, 5, 5))])


def test_lazy_conv_values_match_after_copy():
    def build(T):
        m = T.nn.LazyConv2d(3, 2, padding=1)
        m(T.ones(1, 2, 4, 4))
        return m
    check_module(build, [Arg((2, 2, 4, 4))], second_order=True)


# ---- pooling -----------------------------------------------------------------------------------------------
def _unpool(n, **pool_kw):
    def call(m, x, **kw):
        T = _lib(m)
        out, idx = getattr(T.nn.functional, f"max_pool{n}d")(x, m.kernel_size, m.stride, m.padding,
                                                              return_indices=True, **pool_kw)
        return m(out, idx, **kw)
    return call


POOL = {
    "maxpool1d": (lambda T: T.nn.MaxPool1d(3, stride=2, padding=1), [Arg((2, 3, 8))], True),
    "maxpool1d-indices-unbatched": (lambda T: T.nn.MaxPool1d(2, return_indices=True, ceil_mode=True),
                                    [Arg((3, 7))], True),
    "maxpool2d-indices": (lambda T: T.nn.MaxPool2d(2, return_indices=True), [Arg((2, 2, 4, 6))], True),
    "maxpool2d-options": (lambda T: T.nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=(1, 2),
                                                   ceil_mode=True), [Arg((1, 2, 7, 6))], True),
    "maxpool3d": (lambda T: T.nn.MaxPool3d(2, stride=1, padding=(0, 1, 0)), [Arg((1, 2, 3, 3, 4))], False),
    "avgpool1d": (lambda T: T.nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), [Arg((2, 3, 8))],
                  True),
    "avgpool2d": (lambda T: T.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, divisor_override=2),
                  [Arg((1, 2, 6, 7))], True),
    "avgpool2d-unbatched": (lambda T: T.nn.AvgPool2d((2, 3)), [Arg((2, 4, 6))], True),
    "avgpool3d": (lambda T: T.nn.AvgPool3d(2, stride=(1, 2, 2), count_include_pad=False, padding=1),
                  [Arg((1, 2, 3, 4, 4))], True),
    "adaptive-avg1d": (lambda T: T.nn.AdaptiveAvgPool1d(4), [Arg((2, 3, 7))], True),
    "adaptive-avg2d-none": (lambda T: T.nn.AdaptiveAvgPool2d((None, 3)), [Arg((1, 2, 5, 7))], True),
    "adaptive-avg3d": (lambda T: T.nn.AdaptiveAvgPool3d((2, 1, 3)), [Arg((2, 3, 4, 5))], False),
    "adaptive-max1d-indices": (lambda T: T.nn.AdaptiveMaxPool1d(3, return_indices=True), [Arg((2, 3, 7))],
                               False),
    "adaptive-max2d": (lambda T: T.nn.AdaptiveMaxPool2d((2, None)), [Arg((1, 2, 5, 4))], False),
    "adaptive-max3d": (lambda T: T.nn.AdaptiveMaxPool3d(2), [Arg((1, 1, 4, 3, 5))], False),
    "lppool1d": (lambda T: T.nn.LPPool1d(2, 3, stride=2), [Arg((2, 3, 8), low=0.2, high=2.0)], False),
    "lppool2d": (lambda T: T.nn.LPPool2d(1.5, (2, 3), ceil_mode=True), [Arg((1, 2, 5, 7), low=0.2, high=2.0)],
                 True),
    "lppool3d": (lambda T: T.nn.LPPool3d(3, 2), [Arg((1, 2, 4, 4, 4), low=0.2, high=2.0)], False),
}


@pytest.mark.parametrize("name", list(POOL))
def test_pool_matches_torch(name):
    build, inputs, second = POOL[name]
    _case(build, inputs, second_order=second)


@pytest.mark.parametrize("n,build,shape,kwargs", [
    (1, lambda T: T.nn.MaxUnpool1d(2), (2, 3, 6), None),
    (2, lambda T: T.nn.MaxUnpool2d(2, stride=2), (1, 2, 4, 6), None),
    (2, lambda T: T.nn.MaxUnpool2d((2, 3), stride=(2, 3), padding=(0, 1)), (1, 2, 4, 7), {"output_size": [4,
                                                                                                          7]}),
    (3, lambda T: T.nn.MaxUnpool3d(2), (1, 2, 4, 4, 2), None),
], ids=["1d", "2d", "2d-output-size", "3d"])
def test_max_unpool_matches_torch(n, build, shape, kwargs):
    _case(build, [Arg(shape)], kwargs=kwargs, call=_unpool(n), second_order=n == 2)


def test_fractional_max_pool_with_samples_matches_torch():
    def build2(T):
        samples = T.tensor([[[0.3, 0.7], [0.9, 0.1]]], dtype=T.float32)
        return T.nn.FractionalMaxPool2d(2, output_size=(3, 4), return_indices=True, _random_samples=samples)

    def build3(T):
        samples = T.tensor([[[0.2, 0.5, 0.8]]], dtype=T.float32)
        return T.nn.FractionalMaxPool3d((2, 2, 1), output_ratio=0.5, _random_samples=samples)
    _case(build2, [Arg((1, 2, 6, 7))])
    _case(build3, [Arg((1, 1, 6, 4, 5))])


def test_fractional_max_pool_random_shapes():
    """Without _random_samples the regions are random (different streams): shapes, dtypes and that each output
    is one of the window's inputs."""
    def f(T, x):
        y, i = T.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True)(x)
        z = T.nn.FractionalMaxPool3d(2, output_size=2)(x.unsqueeze(0))
        taken = x.flatten(-2).gather(-1, i.flatten(-2)).reshape(y.shape)
        return [tuple(y.shape), y.dtype, i.dtype, tuple(z.shape), bool((taken == y).all())]
    check(f, [Arg((2, 3, 8, 10))])


def test_pool_constructor_errors():
    def f(T):
        out = []
        for fn in (lambda: T.nn.FractionalMaxPool2d(2), lambda: T.nn.FractionalMaxPool2d(2, 3, 0.5),
                   lambda: T.nn.FractionalMaxPool2d(2, output_ratio=1.5), lambda: T.nn.FractionalMaxPool3d(0,
                                                                                                           2),
                   lambda: T.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)),
                   lambda: T.nn.FractionalMaxPool3d(2)):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        return out
    check(f)


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.MaxPool2d(3), [Arg((1, 1, 2, 2))]),
    (lambda T: T.nn.AvgPool1d(2, padding=2), [Arg((1, 2, 6))]),
    (lambda T: T.nn.AdaptiveAvgPool2d((2, 2, 2)), [Arg((1, 2, 4, 4))]),
], ids=["maxpool-too-small", "avgpool-pad", "adaptive-size"])
def test_pool_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True)


@pytest.mark.parametrize("build", [
    lambda T: T.nn.MaxPool1d(3), lambda T: T.nn.MaxPool2d((3, 2), stride=1, padding=1, dilation=2,
                                                          ceil_mode=True),
    lambda T: T.nn.MaxPool3d(2, return_indices=True), lambda T: T.nn.MaxUnpool1d(2),
    lambda T: T.nn.MaxUnpool2d((2, 3), padding=1), lambda T: T.nn.MaxUnpool3d(2, stride=1),
    lambda T: T.nn.AvgPool1d(3), lambda T: T.nn.AvgPool2d(2, ceil_mode=True), lambda T: T.nn.AvgPool3d((1, 2,
                                                                                                        3)),
    lambda T: T.nn.FractionalMaxPool2d(2, output_size=3), lambda T: T.nn.FractionalMaxPool3d(2,
                                                                                             output_ratio=0.5),
    lambda T: T.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=T.ones(1, 1, 2) / 2),
    lambda T: T.nn.LPPool1d(2, 3), lambda T: T.nn.LPPool2d(1.5, (2, 3), stride=1),
    lambda T: T.nn.LPPool3d(3, 2, ceil_mode=True), lambda T: T.nn.AdaptiveMaxPool1d(3),
    lambda T: T.nn.AdaptiveMaxPool2d((None, 2)), lambda T: T.nn.AdaptiveMaxPool3d(2, return_indices=True),
    lambda T: T.nn.AdaptiveAvgPool1d(3), lambda T: T.nn.AdaptiveAvgPool2d(2),
    lambda T: T.nn.AdaptiveAvgPool3d(1),
])
def test_pool_repr(build):
    check_repr(build)


# ---- padding -----------------------------------------------------------------------------------------------
PAD = {
    "constant1d": (lambda T: T.nn.ConstantPad1d(2, 3.5), [Arg((2, 3, 4))], False),
    "constant2d": (lambda T: T.nn.ConstantPad2d((1, 0, 2, 1), -1.0), [Arg((1, 2, 3, 3))], True),
    "constant3d-negative": (lambda T: T.nn.ConstantPad3d((1, -1, 0, 2, 1, 0), 0.5), [Arg((2, 3, 2, 3))],
                            False),
    "zero1d": (lambda T: T.nn.ZeroPad1d((0, 3)), [Arg((3, 4))], False),
    "zero2d": (lambda T: T.nn.ZeroPad2d(1), [Arg((1, 2, 3, 3))], True),
    "zero3d": (lambda T: T.nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), [Arg((1, 1, 2, 2, 2))], False),
    "reflection1d": (lambda T: T.nn.ReflectionPad1d((2, 1)), [Arg((2, 3, 4))], False),
    "reflection2d": (lambda T: T.nn.ReflectionPad2d((1, 2, 0, 2)), [Arg((2, 4, 3))], False),
    "reflection3d": (lambda T: T.nn.ReflectionPad3d(1), [Arg((1, 2, 2, 3, 3))], False),
    "replication1d": (lambda T: T.nn.ReplicationPad1d(3), [Arg((1, 2, 3))], False),
    "replication2d": (lambda T: T.nn.ReplicationPad2d((0, 2, 1, 1)), [Arg((1, 2, 3, 3))], False),
    "replication3d": (lambda T: T.nn.ReplicationPad3d((1, 1, 0, 0, 2, 1)), [Arg((2, 2, 2, 2))], False),
    "circular1d": (lambda T: T.nn.CircularPad1d((1, 2)), [Arg((2, 3, 4))], False),
    "circular2d": (lambda T: T.nn.CircularPad2d(1), [Arg((2, 3, 3))], False),
    "circular3d": (lambda T: T.nn.CircularPad3d((0, 1, 1, 0, 1, 1)), [Arg((1, 1, 2, 3, 2))], False),
}


@pytest.mark.parametrize("name", list(PAD))
def test_padding_matches_torch(name):
    build, inputs, second = PAD[name]
    _case(build, inputs, second_order=second)


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.CircularPad2d(1), [Arg((3, 3))]),
    (lambda T: T.nn.CircularPad1d(1), [Arg((1, 2, 3, 3))]),
    (lambda T: T.nn.ReflectionPad1d(4), [Arg((1, 2, 3))]),
    (lambda T: T.nn.ConstantPad2d((1, 1, 1), 0.0), [Arg((1, 2, 3))]),
], ids=["circular-rank", "circular1d-rank", "reflection-too-wide", "odd-padding"])
def test_padding_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True)


@pytest.mark.parametrize("name", list(PAD))
def test_padding_repr(name):
    check_repr(PAD[name][0])


# ---- vision ------------------------------------------------------------------------------------------------
VISION = {
    "pixel-shuffle": (lambda T: T.nn.PixelShuffle(2), [Arg((2, 8, 2, 3))], True),
    "pixel-unshuffle": (lambda T: T.nn.PixelUnshuffle(2), [Arg((1, 2, 4, 6))], False),
    "upsample-nearest": (lambda T: T.nn.Upsample(scale_factor=2), [Arg((1, 2, 3, 3))], False),
    "upsample-linear": (lambda T: T.nn.Upsample(size=7, mode="linear", align_corners=True), [Arg((2, 2, 4))],
                        False),
    "upsample-bilinear": (lambda T: T.nn.Upsample(size=(5, 7), mode="bilinear"), [Arg((1, 2, 3, 4))], False),
    "upsample-bicubic": (lambda T: T.nn.Upsample(scale_factor=(1.5, 2), mode="bicubic"), [Arg((1, 1, 4, 3))],
                         False),
    "upsample-trilinear": (lambda T: T.nn.Upsample(scale_factor=2, mode="trilinear",
                                                   recompute_scale_factor=True),
                           [Arg((1, 1, 2, 2, 3))], False),
    "upsampling-nearest2d": (lambda T: T.nn.UpsamplingNearest2d(size=(4, 5)), [Arg((1, 2, 2, 3))], False),
    "upsampling-bilinear2d": (lambda T: T.nn.UpsamplingBilinear2d(scale_factor=2), [Arg((1, 2, 2, 3))],
                              False),
    "fold": (lambda T: T.nn.Fold(output_size=(4, 5), kernel_size=2), [Arg((2, 8, 12))], False),
    "fold-options": (lambda T: T.nn.Fold((5, 4), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
                     [Arg((1, 6, 10))], False),
    "unfold": (lambda T: T.nn.Unfold(kernel_size=(2, 3), padding=1, stride=2), [Arg((2, 3, 4, 5))], False),
    "channel-shuffle": (lambda T: T.nn.ChannelShuffle(2), [Arg((2, 4, 3, 2))], False),
}


@pytest.mark.parametrize("name", list(VISION))
def test_vision_matches_torch(name):
    build, inputs, second = VISION[name]
    _case(build, inputs, second_order=second)


@pytest.mark.parametrize("name", list(VISION))
def test_vision_repr(name):
    check_repr(VISION[name][0])


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.PixelShuffle(2), [Arg((1, 3, 2, 2))]),
    (lambda T: T.nn.Upsample(scale_factor=2, mode="bilinear"), [Arg((1, 2, 3))]),
    (lambda T: T.nn.Unfold(3), [Arg((1, 2, 2, 2))]),
    (lambda T: T.nn.ChannelShuffle(3), [Arg((1, 4, 2, 2))]),
], ids=["pixel-shuffle-channels", "upsample-mode-rank", "unfold-too-small", "channel-shuffle-groups"])
def test_vision_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True)


def test_upsample_attributes():
    def f(T):
        out = []
        for m in (T.nn.Upsample(scale_factor=2), T.nn.Upsample(scale_factor=(2, 3)), T.nn.Upsample(size=4),
                  T.nn.UpsamplingBilinear2d(size=(2, 2)), T.nn.UpsamplingNearest2d(scale_factor=1.5)):
            out.append([m.name, m.size, m.scale_factor, m.mode, m.align_corners, m.recompute_scale_factor,
                        repr(m)])
        return out
    check(f, warn=True)


# ---- default initialisation (statistics: the RNG streams differ) -------------------------------------------
@pytest.mark.parametrize("build,fan_in", [
    (lambda T: T.nn.Conv2d(8, 64, (3, 5), groups=2), 4 * 15),
    (lambda T: T.nn.Conv1d(3, 300, 7), 21),
    (lambda T: T.nn.ConvTranspose2d(6, 90, 3, groups=3), 30 * 9),
    (lambda T: T.nn.Conv3d(2, 40, 3, bias=False), 54),
], ids=["conv2d-groups", "conv1d", "convT2d", "conv3d-nobias"])
def test_conv_default_init_statistics(build, fan_in):
    torchshim.manual_seed(0)
    layer = build(torchshim)
    torch.manual_seed(0)
    ref = build(torch)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) and the bias bound are both 1/sqrt(fan_in)
    for name, t in layer.named_parameters():
        v = t.detach().numpy().astype(np.float64).ravel()
        assert -bound <= v.min() and v.max() <= bound, (name, v.min(), v.max(), bound)
        want_std = bound / math.sqrt(3.0)
        assert abs(v.mean()) < 5 * want_std / math.sqrt(v.size), name
        if v.size > 1000:
            assert abs(v.std() - want_std) < 0.05 * want_std, name
            assert v.max() > 0.95 * bound and v.min() < -0.95 * bound, name
        r = dict(ref.named_parameters())[name].detach().numpy()
        assert r.shape == tuple(t.shape), name
        assert abs(np.abs(r).max() - np.abs(v).max()) < 0.1 * bound, name


def test_conv_init_is_seeded_and_reset_redraws():
    torchshim.manual_seed(3)
    a = torchshim.nn.Conv2d(2, 3, 3)
    torchshim.manual_seed(3)
    b = torchshim.nn.Conv2d(2, 3, 3)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    w = a.weight
    before = w.detach().numpy().copy()
    a.reset_parameters()
    assert a.weight is w and not np.array_equal(before, w.detach().numpy())
    assert w.requires_grad and w.grad_fn is None
