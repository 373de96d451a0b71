"""Records for vision functionals (torchshim/ops/nn_vision.py, nn_upsample.py,
torchshim/nn/functional/vision.py): constant_pad_nd and F.pad (constant/reflect/replicate/circular, negative
pads), F.interpolate's kernels (nearest, nearest-exact, linear, bilinear, bicubic, trilinear; size /
scale_factor / recompute_scale_factor / align_corners; area goes through adaptive_avg_pool), grid_sampler
(F.grid_sample) and affine_grid_generator (F.affine_grid), pixel_shuffle/unshuffle, channel_shuffle.
"""

from harness import Arg, OpRecord

F = ("float32", "float64")
LOW = ("float16", "bfloat16")


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


# ---- padding -----------------------------------------------------------------------------------------------
def _constant(d):
    return [
        ((Arg((2, 3), d), (1, 2)), {}),
        ((Arg((2, 3, 4), d), (1, 0, 2, 1)), {"value": 2.5}),
        ((Arg((2, 3), d), (-1, 1)), {}),
        ((Arg((2, 3), d), (-1, -1, 1, 0)), {}),
        ((Arg((2, 3), d), (-2, -1)), {}),
        ((Arg((2, 3, 4, 5), d, noncontig=True), (1, 1, 2, 2, 0, 1)), {"value": -1}),
        ((Arg((0, 3), d), (1, 1)), {}),
        ((Arg((3,), d), ()), {}),
    ]


def _pad_errors(d):
    x = Arg((2, 3))
    return [
        ((x, (1,)), {}),
        ((x, (1, 1, 1, 1, 1, 1)), {}),
        ((x, (-4, 1)), {}),
        ((x, (-3, -1, 1, 1)), {}),
        ((x, (1, 1)), {"mode": "foo"}),
        ((x, (1, 1)), {"mode": "reflect", "value": 1.0}),
        ((x, (3, 1)), {"mode": "reflect"}),
        ((Arg((3,)), (1, 1)), {"mode": "reflect"}),
        ((Arg((2, 3, 4, 5, 6)), (1, 1)), {"mode": "reflect"}),
        ((x, (1, 1, 1, 1)), {"mode": "replicate"}),
        ((x, (4, 1)), {"mode": "circular"}),
        ((Arg((3,)), (1, 1)), {"mode": "circular"}),
        ((Arg((0, 3)), (1, 1)), {"mode": "reflect"}),
        ((Arg((2, 0)), (1, 1)), {"mode": "replicate"}),
        ((Arg((2, 3), "bool"), (1, 1)), {"mode": "reflect"}),
        ((Arg((2, 3), "bool"), (1, 1)), {"mode": "replicate"}),
        ((Arg((2, 3, 4)), (3, 3, 1, 1)), {"mode": "reflect"}),
        ((Arg((2, 3, 4)), (1, 1, 3, 3)), {"mode": "reflect"}),
        ((Arg((1, 2, 3, 4)), (1, 1, 1, 1, 2, 2)), {"mode": "reflect"}),
        ((x, (-3, -1)), {"mode": "replicate"}),
        ((Arg((2, 3, 3)), (-3, -1, -3, -1)), {"mode": "replicate"}),
        ((x, 1), {}),
    ]


def _mode_pad(mode):
    def samples(d):
        return [
            ((Arg((2, 5), d), (2, 1)), {"mode": mode}),
            ((Arg((2, 3, 5), d), (1, 3)), {"mode": mode}),
            ((Arg((3, 4, 5), d), (1, 2, 3, 0)), {"mode": mode}),
            ((Arg((2, 3, 4, 5), d, noncontig=True), (2, 1, 1, 2)), {"mode": mode}),
            ((Arg((2, 3, 4, 5), d), (1, 0, 2, 1, 1, 1)), {"mode": mode}),
            ((Arg((2, 2, 3, 4, 5), d), (1, 1, 1, 1, 2, 2)), {"mode": mode}),
            ((Arg((2, 5), d), (-1, 2)), {"mode": mode}),
            ((Arg((0, 2, 5), d), (1, 1)), {"mode": mode}),
        ]

    return samples


# ---- shuffles ----------------------------------------------------------------------------------------------
def _pixel_shuffle(d):
    return [
        ((Arg((2, 8, 3, 2), d), 2), {}),
        ((Arg((9, 2, 2), d), 3), {}),
        ((Arg((2, 1, 4, 3, 3), d), 1), {}),
        ((Arg((1, 2, 4, 3, 2), d, noncontig=True), 2), {}),
    ]


def _pixel_unshuffle(d):
    return [
        ((Arg((2, 2, 4, 6), d), 2), {}),
        ((Arg((1, 6, 6), d), 3), {}),
        ((Arg((2, 1, 2, 4, 4), d), 2), {}),
        ((Arg((2, 2, 4, 4), d, noncontig=True), 2), {}),
    ]


def _channel_shuffle(d):
    return [
        ((Arg((2, 6, 3, 2), d), 3), {}),
        ((Arg((2, 4, 5), d), 2), {}),
        ((Arg((1, 6, 2, 2, 2), d), 2), {}),
        ((Arg((2, 6, 3), d, noncontig=True), 3), {}),
    ]


def _shuffle_errors(name):
    return lambda d: [
        ((Arg((4, 4)), 2), {}),
        ((Arg((2, 4, 4, 4)), 0), {}),
        ((Arg((2, 3, 4, 4)), 2), {}),
        ((Arg((2, 4, 3, 4)), 2), {}),
        ((Arg((2, 4, 4, 3)), 2), {}),
    ]


# ---- interpolate -------------------------------------------------------------------------------------------
def _interp(mode, nd, align=None):
    def samples(d):
        x = Arg((2, 3) + (5, 4, 3)[:nd], d)
        kw = {"mode": mode}
        if align is not None:
            kw["align_corners"] = align
        return [
            ((x,), {**kw, "scale_factor": 2}),
            ((x,), {**kw, "size": (7, 3, 5)[:nd]}),
            ((x,), {**kw, "scale_factor": 1.7}),
            ((x,), {**kw, "scale_factor": (0.5, 1.5, 2.25)[:nd]}),
            ((x,), {**kw, "scale_factor": 1.7, "recompute_scale_factor": True}),
            ((x,), {**kw, "size": 1}),
            ((Arg((2, 3) + (5, 4, 3)[:nd], d, noncontig=True),), {**kw, "size": 6}),
            ((Arg((0, 3) + (5, 4, 3)[:nd], d),), {**kw, "scale_factor": 2}),
        ]

    return samples


_INTERP = [
    ("nearest", 1, None),
    ("nearest", 2, None),
    ("nearest", 3, None),
    ("nearest-exact", 1, None),
    ("nearest-exact", 2, None),
    ("nearest-exact", 3, None),
    ("linear", 1, False),
    ("linear", 1, True),
    ("bilinear", 2, False),
    ("bilinear", 2, True),
    ("bicubic", 2, False),
    ("bicubic", 2, True),
    ("trilinear", 3, False),
    ("trilinear", 3, True),
]
_KERNEL = {
    ("nearest", 1): "upsample_nearest1d",
    ("nearest", 2): "upsample_nearest2d",
    ("nearest", 3): "upsample_nearest3d",
    ("nearest-exact", 1): "_upsample_nearest_exact1d",
    ("nearest-exact", 2): "_upsample_nearest_exact2d",
    ("nearest-exact", 3): "_upsample_nearest_exact3d",
    ("linear", 1): "upsample_linear1d",
    ("bilinear", 2): "upsample_bilinear2d",
    ("bicubic", 2): "upsample_bicubic2d",
    ("trilinear", 3): "upsample_trilinear3d",
}


def _interp_errors(d):
    x = Arg((2, 3, 5, 4))
    return [
        ((x,), {}),
        ((x,), {"size": 3, "scale_factor": 2}),
        ((x,), {"size": (3,)}),
        ((x,), {"size": (3.0, 2)}),
        ((x,), {"scale_factor": (2,)}),
        ((x,), {"size": 3, "recompute_scale_factor": True}),
        ((x,), {"size": 3, "mode": "nearest", "align_corners": True}),
        ((x,), {"size": 3, "mode": "linear"}),
        ((x,), {"size": 3, "mode": "trilinear"}),
        ((Arg((2, 3, 5)),), {"size": 3, "mode": "bilinear"}),
        ((Arg((2, 3, 5)),), {"size": 3, "mode": "bicubic"}),
        ((Arg((2, 5)),), {"size": (), "mode": "nearest"}),
        ((x,), {"size": 3, "mode": "foo"}),
        ((x,), {"size": 0}),
        ((x,), {"scale_factor": 0.1}),
        ((Arg((2, 3, 0, 4)),), {"size": 3}),
        ((x,), {"size": 3, "mode": "nearest", "antialias": True}),
        ((Arg((2, 3, 5, 4), "int64"),), {"size": 3}),
        ((Arg((2, 3, 5, 4), "int64"),), {"size": 3, "mode": "bilinear"}),
        ((Arg((2, 3, 5), "int64"),), {"size": 3}),
        ((Arg((2, 3, 5), "uint8"),), {"size": 3, "mode": "linear"}),
        ((Arg((2, 3, 5, 4, 3), "int32"),), {"size": 3}),
        ((Arg((2, 3, 5, 4), "bool"),), {"size": 3, "mode": "bicubic"}),
        ((Arg((2, 3, 5, 4, 3), "uint8"),), {"size": 3, "mode": "trilinear"}),
        ((Arg((2, 3, 5, 4), "complex64"),), {"size": 3, "mode": "nearest-exact"}),
    ]


def _area(d):
    return [
        ((Arg((2, 3, 7), d),), {"size": 3}),
        ((Arg((2, 3, 7, 6), d),), {"size": (3, 4)}),
        ((Arg((2, 3, 4, 5), d),), {"scale_factor": 0.5}),
        ((Arg((2, 3, 4, 5, 6), d),), {"size": 2}),
        ((Arg((2, 3, 5, 4), d),), {"scale_factor": 1.5}),
    ]


# ---- grid_sample / affine_grid -----------------------------------------------------------------------------
def _grid(mode, nd=2):
    def samples(d):
        sp = (5, 6, 4)[:nd]
        out = []
        for pm in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out.append(
                    (
                        (Arg((2, 3) + sp, d), Arg((2,) + (4, 3, 2)[:nd] + (nd,), d, -1.3, 1.3)),
                        {"mode": mode, "padding_mode": pm, "align_corners": ac},
                    )
                )
        out.append(
            (
                (Arg((2, 3) + sp, d), Arg((2,) + (3,) * nd + (nd,), d, -4.0, 4.0)),
                {"mode": mode, "padding_mode": "reflection", "align_corners": False},
            )
        )
        out.append(
            (
                (Arg((2, 3) + sp, d, noncontig=True), Arg((2,) + (3,) * nd + (nd,), d, -1.0, 1.0)),
                {"mode": mode, "align_corners": False},
            )
        )
        return out

    return samples


def _grid_errors(d):
    x, g = Arg((2, 3, 5, 6)), Arg((2, 4, 3, 2))
    return [
        ((x, g), {"mode": "foo"}),
        ((x, g), {"padding_mode": "foo"}),
        ((x, Arg((2, 4, 3, 2), "float64")), {}),
        ((x, Arg((3, 4, 3, 2))), {}),
        ((x, Arg((2, 4, 3, 3))), {}),
        ((Arg((2, 3, 0, 6)), g), {}),
        ((x, Arg((2, 4, 3, 2, 2))), {}),
        ((Arg((2, 3, 5, 6, 4)), Arg((2, 4, 3, 2, 3))), {"mode": "bicubic"}),
        ((Arg((2, 3, 5, 6), "int64"), Arg((2, 4, 3, 2), "int64")), {}),
        ((Arg((2, 3, 6)), Arg((2, 4, 1))), {}),
    ]


def _grid_warn(T, x, g):
    return T.nn.functional.grid_sample(x, g)


def _affine(d):
    return [
        ((Arg((2, 2, 3), d), (2, 3, 4, 5)), {"align_corners": False}),
        ((Arg((2, 2, 3), d), (2, 1, 3, 1)), {"align_corners": True}),
        ((Arg((1, 2, 3), d), [1, 3, 1, 6]), {"align_corners": False}),
        ((Arg((2, 3, 4), d), (2, 3, 4, 5, 2)), {"align_corners": False}),
        ((Arg((2, 3, 4), d), (2, 1, 3, 4, 5)), {"align_corners": True}),
        ((Arg((2, 2, 3), d, noncontig=True), (2, 3, 3, 3)), {"align_corners": True}),
    ]


def _affine_errors(d):
    return [
        ((Arg((2, 2, 3), "int64"), (2, 3, 4, 5)), {"align_corners": False}),
        ((Arg((2, 3, 3)), (2, 3, 4, 5)), {"align_corners": False}),
        ((Arg((2, 2, 3)), (2, 3, 4, 5, 6)), {"align_corners": False}),
        ((Arg((2, 2, 3)), (2, 3, 4)), {"align_corners": False}),
        ((Arg((2, 2, 3)), (2, 3, 0, 5)), {"align_corners": False}),
        ((Arg((2, 2, 3)), (2, 3, 4, 5)), {}),
    ]


RECORDS = [
    OpRecord(
        "constant_pad_nd",
        _constant,
        F + LOW + ("int64", "bool", "complex64"),
        method=False,
        call=lambda T, x, pad, value=0: T.constant_pad_nd(x, pad, value),
    ),
    OpRecord("pad", _constant, F + ("int64", "bool", "uint8"), method=False, call=Fn("pad")),
    OpRecord("pad", _pad_errors, ("float32",), method=False, call=Fn("pad")),
    OpRecord("pixel_shuffle", _pixel_shuffle, F + ("int64", "bool"), method=False),
    OpRecord("pixel_shuffle", _shuffle_errors("pixel_shuffle"), ("float32",), method=False),
    OpRecord("pixel_unshuffle", _pixel_unshuffle, F + ("int64",), method=False),
    OpRecord("pixel_unshuffle", _shuffle_errors("pixel_unshuffle"), ("float32",), method=False),
    OpRecord("channel_shuffle", _channel_shuffle, F + ("int64",), method=False),
    OpRecord("channel_shuffle", _shuffle_errors("channel_shuffle"), ("float32",), method=False),
    OpRecord("upsample_nearest2d", _interp_errors, ("float32",), method=False, call=Fn("interpolate")),
    OpRecord(
        "adaptive_avg_pool2d",
        _area,
        F + LOW,
        method=False,
        call=lambda T, x, **kw: T.nn.functional.interpolate(x, mode="area", **kw),
    ),
    OpRecord(
        "upsample_bilinear2d",
        lambda d: [((Arg((2, 3, 4, 5), d),), {"scale_factor": 2})],
        ("float32",),
        method=False,
        call=Fn("upsample_bilinear"),
    ),
    OpRecord(
        "upsample_nearest2d",
        lambda d: [((Arg((2, 3, 4, 5), d),), {"size": 7})],
        ("float32",),
        method=False,
        call=Fn("upsample_nearest"),
    ),
    OpRecord(
        "upsample_trilinear3d",
        lambda d: [((Arg((2, 3, 4, 5, 3), d),), {"size": 7, "mode": "trilinear"})],
        ("float32",),
        method=False,
        call=Fn("upsample"),
    ),
    OpRecord("grid_sampler", _grid_errors, ("float32",), method=False, call=Fn("grid_sample")),
    OpRecord(
        "grid_sampler",
        lambda d: [((Arg((2, 3, 5, 6), d), Arg((2, 4, 3, 2), d, -1, 1)), {})],
        ("float32",),
        method=False,
        call=_grid_warn,
    ),
    OpRecord(
        "grid_sampler",
        lambda d: [((Arg((2, 3, 5, 6), d), Arg((2, 4, 3, 2), d, -1, 1), 0, 1, True), {})],
        F,
        method=False,
    ),
    OpRecord("affine_grid_generator", _affine, F, method=False, call=Fn("affine_grid")),
    OpRecord(
        "affine_grid_generator",
        lambda d: [((Arg((1, 2, 3), d), (1, 3, 1, 6)), {"align_corners": False})],
        LOW,
        method=False,
        call=Fn("affine_grid"),
    ),  # ATen's at::tensor(0) has no 16-bit kernel
    OpRecord("affine_grid_generator", _affine_errors, ("float32",), method=False, call=Fn("affine_grid")),
    OpRecord(
        "affine_grid_generator", lambda d: [((Arg((2, 2, 3), d), (2, 3, 4, 5), False), {})], F, method=False
    ),
]
for _mode in ("reflect", "replicate", "circular"):
    RECORDS.append(
        OpRecord(
            "pad", _mode_pad(_mode), F + LOW + ("int64", "uint8", "complex64"), method=False, call=Fn("pad")
        )
    )
# 16-bit floats: nearest modes are exact; linear/bicubic/grid_sample values differ from PyTorch by a few ulps
# (its kernels round intermediate steps), and uint8 bilinear/bicubic use PyTorch's fixed-point AVX2 path:
# strict xfails in test_nn_conv_pool.py
for _mode, _nd, _align in _INTERP:
    _exact = _mode.startswith("nearest")
    _dts = F + (LOW + ("uint8",) if _exact else ())
    RECORDS.append(
        OpRecord(
            _KERNEL[(_mode, _nd)], _interp(_mode, _nd, _align), _dts, method=False, call=Fn("interpolate")
        )
    )
RECORDS.append(OpRecord("grid_sampler", _grid("nearest"), ("float16",), method=False, call=Fn("grid_sample")))
for _m in ("bilinear", "nearest"):
    RECORDS.append(OpRecord("grid_sampler", _grid(_m), F, method=False, call=Fn("grid_sample")))
# float32 second derivatives of the cubic coefficients (w.r.t. the grid) carry ~1e-5 relative rounding
# differences from PyTorch's differently ordered polynomial evaluation; float64 agrees to the default
# tolerance
RECORDS.append(OpRecord("grid_sampler", _grid("bicubic"), ("float64",), method=False, call=Fn("grid_sample")))
RECORDS.append(
    OpRecord(
        "grid_sampler",
        _grid("bicubic"),
        ("float32",),
        method=False,
        call=Fn("grid_sample"),
        rtol=1e-4,
        atol=1e-4,
    )
)
for _m in ("bilinear", "nearest"):
    RECORDS.append(OpRecord("grid_sampler", _grid(_m, 3), F, method=False, call=Fn("grid_sample")))
