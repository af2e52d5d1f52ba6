"""Codec and channel augmentation for lip-sync training: what real audio goes through before it reaches us.

    y = channel.apply(x, rng)          # int16 16 kHz in, int16 16 kHz out, same length, same timing

One of, chosen by `rng`:
- `mp3`: MP3 through ffmpeg's libmp3lame at 16-32 kbit/s (at 16 kHz; below 24 kbit/s it drops the top band);
- `opus`: Opus through libopus at 8-16 kbit/s, voice mode;
- `phone`: the telephone band: 8 kHz, 300-3400 Hz, G.711 mu-law (or GSM 06.10 full rate);
- `g722`: G.722 wideband ADPCM (the codec of the Asterisk prompts in the real set);
- `agc`: automatic gain control as conferencing front ends do it: the level pulled towards a target with a
  0.3-1.5 s time constant, so pauses are lifted (their noise floor too) and loud syllables pressed down.

Codecs delay their output; every decoded signal is shifted back onto the input by cross-correlation (within
±100 ms) so the phone labels stay exact. Needs `ffmpeg` (Debian) for the codecs. Deterministic for the rng's
state (the codecs themselves are deterministic).
"""

import os
import subprocess
import tempfile

import numpy as np
from scipy.signal import butter, fftconvolve, resample_poly, sosfilt

RATE = 16000
KINDS = ("mp3", "opus", "phone", "g722", "agc")


def _ffmpeg(x, encode, decode_rate=RATE, suffix=".bin", fmt=None, in_rate=RATE):
    """x (int16 at in_rate) -> encoded with `encode` args -> decoded to int16 mono at decode_rate."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.raw")
        enc = os.path.join(d, "enc" + suffix)
        x.astype("<i2").tofile(src)
        base = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
        subprocess.run(base + ["-f", "s16le", "-ar", str(in_rate), "-ac", "1", "-i", src] + encode
                       + (["-f", fmt] if fmt else []) + [enc], check=True)
        out = subprocess.run(base + (["-f", fmt] if fmt else []) + ["-i", enc, "-f", "s16le", "-ac", "1", "-ar",
                                                                     str(decode_rate), "-"],
                             check=True, capture_output=True).stdout
    return np.frombuffer(out, "<i2").astype(np.float64)


def realign(ref, y, max_shift=1600):
    """`y` shifted so it lines up with `ref` (cross-correlation peak within ±max_shift samples), cut or
    zero-padded to ref's length."""
    n = len(ref)
    if not np.any(y) or not np.any(ref):
        return np.resize(y, n) if len(y) else np.zeros(n)
    c = fftconvolve(y, ref[::-1].astype(np.float64), mode="full")
    zero = n - 1  # index of lag 0: y[t + lag] ~ ref[t]
    lo, hi = max(0, zero - max_shift), min(len(c), zero + max_shift + 1)
    lag = int(np.argmax(c[lo:hi])) + lo - zero
    out = np.zeros(n)
    if lag >= 0:
        m = min(n, len(y) - lag)
        out[:m] = y[lag:lag + m]
    else:
        m = min(n + lag, len(y))
        out[-lag:-lag + m] = y[:m]
    return out


def _agc(x, rng):
    tau = rng.uniform(0.3, 1.5) * RATE
    target = 32767 * 10 ** (rng.uniform(-20, -10) / 20)
    env = np.abs(x)
    # one-pole smoothing of the magnitude, forwards only (a live AGC cannot look ahead)
    a = np.exp(-1.0 / tau)
    from scipy.signal import lfilter
    level = lfilter([1 - a], [1, -a], env) * np.sqrt(2) + 1.0
    gain = np.clip(target / level, 10 ** (-12 / 20), 10 ** (rng.uniform(12, 30) / 20))
    return x * gain


def apply(x, rng, kind=None):
    """One random codec or channel condition on int16 audio at 16 kHz; int16 of the same length back."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    ref = x.astype(np.float64)
    if kind == "mp3":
        y = _ffmpeg(x, ["-c:a", "libmp3lame", "-b:a", f"{int(rng.choice([16, 24, 32]))}k"], suffix=".mp3")
    elif kind == "opus":
        y = _ffmpeg(x, ["-c:a", "libopus", "-b:a", f"{int(rng.choice([8, 12, 16]))}k", "-application", "voip"],
                    suffix=".ogg")
    elif kind == "g722":
        y = _ffmpeg(x, ["-c:a", "g722"], suffix=".wav")
    elif kind == "phone":
        sos = butter(4, [300, 3400], btype="bandpass", fs=RATE, output="sos")
        band = sosfilt(sos, ref)
        narrow = np.clip(np.round(resample_poly(band, 1, 2)), -32768, 32767).astype(np.int16)
        codec = ["-c:a", "pcm_mulaw"] if rng.uniform() < 0.6 else ["-c:a", "libgsm"]
        y = _ffmpeg(narrow, codec + ["-ar", "8000"], suffix=".wav" if codec[1] == "pcm_mulaw" else ".gsm",
                    in_rate=8000, decode_rate=RATE)
    elif kind == "agc":
        y = _agc(ref, rng)
        peak = np.abs(y).max()
        if peak > 29204:  # a limiter after the gain, at -1 dBFS
            y *= 29204 / peak
        return np.clip(np.round(y), -32768, 32767).astype(np.int16)
    else:
        raise ValueError(f"unknown channel {kind!r}")
    y = realign(ref, y)
    return np.clip(np.round(y), -32768, 32767).astype(np.int16)
