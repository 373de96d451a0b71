"""`torch.stft` / `torch.istft` (and the Tensor methods): PyTorch 2.13's argument checks, messages (with its
`stft(torch.FloatTensor[40], n_fft=8, ...)` call description) and warnings, each computed in one kernel: the
centre padding (F.pad's modes and errors), framing, window, FFT; istft's inverse FFT, overlap-add and
window-envelope division.

istft's NOLA check ("window overlap add min") reads the envelope's minimum on the host, as PyTorch does; under
jax tracing with a traced window it is skipped."""
import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import promote_types, short_name
from .._warnings import user_stacklevel, warn_once
from . import _dispatch as P
from ._registry import register
from .spectral import BY_N, BY_ROOT_N, NONE, _jnorm, check_input, int_arg

__all__ = []


def _type_str(t):
    """Tensor::toString(): 'torch.FloatTensor' (types with a legacy name), 'CPUComplexFloatType'."""
    d = t._dtype
    return f"CPU{short_name(d)}Type" if d.is_complex else D.legacy_type_name(d, t._storage.device)


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t._shape) + "]"


def _opt(v):
    return "None" if v is None else str(int(v))


def _window_str(window):
    return "None" if window is None else f"{_type_str(window)}{{{_sizes(window)}}}"


def _opt_int(fname, name, v):
    return None if v is None else int_arg(fname, name, v)


# ---- stft --------------------------------------------------------------------------------------------------
def _stft_complex(input, window, return_complex):
    rc = return_complex
    if rc is None:
        rc = input._dtype.is_complex or (window is not None and window._dtype.is_complex)
    return bool(rc)


def _stft_name(args, kwargs):
    names = ("input", "n_fft", "hop_length", "win_length", "window", "center", "pad_mode", "normalized",
             "onesided", "return_complex")
    a = dict(zip(names, args), **kwargs)
    if not _stft_complex(a["input"], a.get("window"), a.get("return_complex")):
        return "ViewAsRealBackward0"
    return "SqueezeBackward4" if a["input"].ndim == 1 else "TransposeBackward1"


_JNP_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _check_center_pad(input, p, mode):
    """F.pad's checks for torch.functional.stft's centring: `input` viewed as 3-D ([1]*(3 - dim) + sizes),
    padded by `p` on both sides of its last dimension in `mode`."""
    if mode not in _JNP_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return
    shape = (1,) * (3 - input.ndim) + tuple(input._shape)
    text = "[" + ", ".join(str(v) for v in shape) + "]"
    if len(shape) != 3:
        raise NotImplementedError(f"Padding size 2 is not supported for {len(shape)}D input tensor.")
    if mode == "circular":
        if p > shape[-1]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        return
    if 0 in shape[1:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {text}")
    if mode == "reflect" and not p < shape[-1]:
        raise RuntimeError("Argument #4: Padding size should be less than the corresponding input "
                           f"dimension, but got: padding ({p}, {p}) at dimension 2 of input {text}")
    if input._dtype is D.bool_:
        kind = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kind}_pad1d\" not implemented for 'Bool'")


def _full_window(w, n_fft, win, dt):
    """The window centred in n_fft samples (ones when None), of numpy dtype `dt`; None for no window."""
    if w is None:
        if win == n_fft:
            return None
        w = jnp.ones((win,), dt)
    left = (n_fft - win) // 2
    return jnp.pad(w, (left, n_fft - win - left)) if win != n_fft else w


@P.kernel(static=("center", "pad_mode", "n_fft", "hop", "win", "frames", "lead", "mode", "onesided", "cdt",
                  "rc", "batched"))
def _stft_k(x, w, center, pad_mode, n_fft, hop, win, frames, lead, mode, onesided, cdt, rc, batched):
    if not batched:
        x = x[None]
    if center:
        x = jnp.pad(x, ((0, 0), (center, center)), mode=_JNP_MODES[pad_mode])
    x = x.astype(cdt)
    w = _full_window(w, n_fft, win, cdt)
    if lead:  # align_to_window: frame m starts `lead` samples before m * hop
        x = jnp.pad(x, ((0, 0), (lead, 0)))
    idx = hop * jnp.arange(frames)[:, None] + jnp.arange(n_fft)[None, :]
    f = x[:, idx]
    if w is not None:
        f = f * w
    if onesided:
        out = jnp.fft.rfft(f, axis=-1, norm=_jnorm(mode, True))
    else:
        ct = cdt if jnp.issubdtype(cdt, jnp.complexfloating) else (
            jnp.complex64 if cdt == jnp.float32 else jnp.complex128)
        out = jnp.fft.fft(f.astype(ct), axis=-1, norm=_jnorm(mode, True))
    out = jnp.swapaxes(out, -1, -2)
    if not rc:
        out = jnp.stack([out.real, out.imag], axis=-1)
    return out if batched else out[0]


@register("stft", kind="spectral", grad_name=_stft_name)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """`torch.stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    pad_mode='reflect', normalized=False, onesided=None, return_complex=None, align_to_window=None)`:
    the short-time Fourier transform of a 1-D signal or a 2-D batch, (B?, N, T) complex (or (B?, N, T, 2)
    real with `return_complex=False`, deprecated); real inputs need `return_complex`, as in PyTorch 2.13."""
    check_input("stft", input)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    n_fft = int_arg("stft", "n_fft", n_fft)
    p = n_fft // 2 if center else 0
    if center:
        _check_center_pad(input, p, pad_mode)
    shape = tuple(input._shape)
    if center:  # the shape after F.pad of the 3-D view, viewed back as input.shape[-dim:]
        shape = shape[:-1] + (shape[-1] + 2 * p,) if shape else (1, 1, 1 + 2 * p)
    hop = n_fft >> 2 if hop_length is None else int_arg("stft", "hop_length", hop_length)
    win = n_fft if win_length is None else int_arg("stft", "win_length", win_length)
    if window is not None:
        check_input("stft", window)
    repr_ = (f"stft({_type_str(input)}[{', '.join(str(v) for v in shape)}], n_fft={n_fft}, hop_length={hop}, "
             f"win_length={win}, window={_window_str(window)}, normalized={int(bool(normalized))}, "
             f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, "
             f"align_to_window={_opt(align_to_window)}) ")
    if window is None:
        warn_once("A window was not provided. A rectangular window will be applied,which is known to cause "
                  "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                  "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                  "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                  stacklevel=user_stacklevel())
    rc = _stft_complex(input, window, return_complex)
    if not rc:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and "
                               "will further require that return_complex=True in a future PyTorch release.")
        warn_once("stft with return_complex=False is deprecated. In a future pytorch release, stft will "
                  "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
                  "Note: you can still call torch.view_as_real on the complex output to recover the old "
                  "return format.", stacklevel=user_stacklevel())
    d = input._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(repr_ + ": expected a tensor of floating point or complex values")
    if len(shape) not in (1, 2):
        raise RuntimeError(repr_ + ": expected a 1D or 2D tensor")
    length = shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(repr_ + f": expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(repr_ + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(repr_ + f": expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window._shape[0] != win):
        raise RuntimeError(repr_ + f": expected a 1D window tensor of size equal to win_length={win}, but "
                                   f"got window with size {_sizes(window)}")
    align = bool(align_to_window) and win < n_fft
    cdt = d if window is None else promote_types(d, window._dtype)
    if cdt in (D.float16, D.bfloat16):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {short_name(cdt)}")
    sided = (not cdt.is_complex) if onesided is None else bool(onesided)
    if cdt.is_complex and sided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = 1 + ((length - (win if align else n_fft)) // hop)
    out = _stft_k(input._value, None if window is None else window._value, center=p, pad_mode=pad_mode,
                  n_fft=n_fft, hop=hop, win=win, frames=frames, lead=(n_fft - win) // 2 if align else 0,
                  mode=BY_ROOT_N if normalized else NONE, onesided=sided, cdt=cdt.np, rc=rc,
                  batched=len(shape) == 2)
    return P.fresh(out, D.from_numpy_dtype(out.dtype), input._storage.device)


# ---- istft -------------------------------------------------------------------------------------------------
def _istft_plan(input, n_fft, hop_length, win_length, center, length):
    n_frames = input._shape[-1]
    hop = n_fft >> 2 if hop_length is None else hop_length
    expected = n_fft + hop * (n_frames - 1)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else expected)
    return hop, expected, start, end


def _istft_name(args, kwargs):
    names = ("input", "n_fft", "hop_length", "win_length", "window", "center", "normalized", "onesided",
             "length", "return_complex")
    a = dict(zip(names, args), **kwargs)
    x = a["input"]
    _, expected, _, end = _istft_plan(x, a["n_fft"], a.get("hop_length"), a.get("win_length"),
                                      a.get("center", True), a.get("length"))
    if end > expected:
        return "ConstantPadNdBackward0"
    return "SqueezeBackward1" if x.ndim == 2 else "DivBackward0"


@P.kernel(static=("n_fft", "win", "hop", "mode", "onesided", "rc", "start", "end", "pad", "rdt", "wdt",
                  "batched"))
def _istft_k(spec, w, n_fft, win, hop, mode, onesided, rc, start, end, pad, rdt, wdt, batched):
    """(signal, the minimum of |window envelope| over the kept samples)."""
    x = jnp.swapaxes(spec if batched else spec[None], -1, -2)  # (B, T, N)
    if rc:
        frames = jnp.fft.ifft(x, axis=-1, norm=_jnorm(mode, False))
    else:
        if not onesided:
            x = x[..., : n_fft // 2 + 1]
        frames = jnp.fft.irfft(x, n=n_fft, axis=-1, norm=_jnorm(mode, False))
    w = _full_window(w, n_fft, win, wdt)
    if w is None:
        w = jnp.ones((n_fft,), wdt)
    t = x.shape[1]
    total = n_fft + hop * (t - 1)
    idx = (hop * jnp.arange(t)[:, None] + jnp.arange(n_fft)[None, :]).reshape(-1)
    wr = w.astype(rdt)
    y = jnp.zeros((x.shape[0], total), rdt).at[:, idx].add((frames.astype(rdt) * wr).reshape(x.shape[0], -1))
    env = jnp.zeros((total,), wdt).at[idx].add(jnp.tile(w * w, t))[start:end]
    y = y[:, start:end] / env.astype(rdt)
    if pad:
        y = jnp.pad(y, ((0, 0), (0, pad)))
    return (y if batched else y[0]), jnp.min(jnp.abs(env))


@register("istft", kind="spectral", grad_name=_istft_name)
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """`torch.istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    normalized=False, onesided=None, length=None, return_complex=False)`: the inverse of stft by
    overlap-add, divided by the summed squared window (PyTorch's NOLA check raises when it vanishes).

    Syncs with the host for the NOLA check (as PyTorch does), except under tracing with a traced window."""
    check_input("istft", input)
    n_fft = int_arg("istft", "n_fft", n_fft)
    hop = n_fft >> 2 if hop_length is None else int_arg("istft", "hop_length", hop_length)
    win = n_fft if win_length is None else int_arg("istft", "win_length", win_length)
    length = _opt_int("istft", "length", length)
    if window is not None:
        check_input("istft", window)
    repr_ = (f"istft({_type_str(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
             f"window={_window_str(window)}, center={int(bool(center))}, normalized={int(bool(normalized))}, "
             f"onesided={_opt(onesided)}, length={'None' if length is None else length}, "
             f"return_complex={int(bool(return_complex))}) ")
    if window is None:
        warn_once("A window was not provided. A rectangular window will be applied.Please provide the same "
                  "window used by stft to make the inversion lossless.To suppress this warning and use a "
                  "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                  stacklevel=user_stacklevel())
    if not input._dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    rdim = input.ndim + 1  # the dims of view_as_real(input)
    for k in (-2, -3):
        if rdim < -k:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-rdim}, {rdim - 1}], but "
                             f"got {k})")
    fft_size = input._shape[-2]
    if input.numel() == 0:
        raise RuntimeError(repr_ + ": input tensor cannot be empty.")
    if rdim not in (3, 4):
        raise RuntimeError(repr_ + f": expected a tensor with 3 or 4 dimensions, but got {rdim}")
    sided = fft_size != n_fft if onesided is None else bool(onesided)
    if sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(repr_ + ": expected the frequency dimension (3rd to the last) of the input tensor "
                                   f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        raise RuntimeError(repr_ + ": expected the frequency dimension (3rd to the last) of the input tensor "
                                   f"to match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(repr_ + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(repr_ + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window._shape[0] != win):
        raise RuntimeError(repr_ + ": Invalid window shape. window has to be 1D and length of `win_length`")
    real = D.float32 if input._dtype is D.complex64 else D.float64
    wdt = real if window is None else window._dtype
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
    elif window is not None and window._dtype.is_complex:
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    _, expected, start, end = _istft_plan(input, n_fft, hop, win, center, length)
    if not range(expected)[start:end]:
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                           "the reduction dim with the 'dim' argument.")
    rdt = promote_types(input._dtype if return_complex else real, wdt)
    w = None if window is None else window._value
    y, lowest = _istft_k(input._value, w, n_fft=n_fft, win=win, hop=hop, onesided=sided,
                         mode=BY_ROOT_N if normalized else BY_N, rc=bool(return_complex), start=start,
                         end=end, pad=max(0, end - expected), rdt=rdt.np, wdt=wdt.np, batched=input.ndim == 3)
    if not isinstance(lowest, jax.core.Tracer) and float(lowest) < 1e-11:  # a host sync, as in PyTorch
        raise RuntimeError(repr_ + "window overlap add min: 1")
    if end > expected:
        warn_once("The length of signal is shorter than the length parameter. Result is being padded with "
                  "zeros in the tail. Please check your center and hop_length settings.",
                  stacklevel=user_stacklevel())
    return P.fresh(y, rdt, input._storage.device)
