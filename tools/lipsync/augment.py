"""Seeded augmentation of 16 kHz speech for lip-sync training: EQ, room reverb, noise, level.

Every step draws from the numpy Generator it is given, so the same generator state gives the same output.
None of the steps moves the speech in time (the reverb's direct path is at lag 0, filters are causal IIR
biquads with no added delay beyond their own phase), so the phone timings stay valid.

Chain (each step with its own probability, in this order):
1. EQ (p=0.5): 1-3 random biquads (low shelf, high shelf, peak; gains +-9 dB), and with p=0.2 a band limit
   (high-pass 80-300 Hz and low-pass 3.4-7 kHz, like a phone or a cheap microphone).
2. Room reverb (p=0.4): an exponentially decaying noise impulse response with RT60 0.1-0.6 s and a
   direct-to-reverberant ratio of 0-12 dB.
3. Noise (p=0.6): white, pink or babble (3-6 other training utterances summed at random offsets) at an SNR of
   15-40 dB against the speech's active level.
4. Level (always): peak scaled to -35..0 dBFS.
"""

import numpy as np
from scipy.signal import fftconvolve, lfilter

RATE = 16000


def _biquad(kind, f0, gain_db, q, rate=RATE):
    """RBJ audio-EQ-cookbook biquad coefficients (b, a)."""
    a_ = 10 ** (gain_db / 40)
    w0 = 2 * np.pi * f0 / rate
    cw, sw = np.cos(w0), np.sin(w0)
    alpha = sw / (2 * q)
    if kind == "peak":
        b = [1 + alpha * a_, -2 * cw, 1 - alpha * a_]
        a = [1 + alpha / a_, -2 * cw, 1 - alpha / a_]
    elif kind == "lowshelf":
        s = 2 * np.sqrt(a_) * alpha
        b = [a_ * ((a_ + 1) - (a_ - 1) * cw + s), 2 * a_ * ((a_ - 1) - (a_ + 1) * cw), a_ * ((a_ + 1) - (a_ - 1) * cw - s)]
        a = [(a_ + 1) + (a_ - 1) * cw + s, -2 * ((a_ - 1) + (a_ + 1) * cw), (a_ + 1) + (a_ - 1) * cw - s]
    elif kind == "highshelf":
        s = 2 * np.sqrt(a_) * alpha
        b = [a_ * ((a_ + 1) + (a_ - 1) * cw + s), -2 * a_ * ((a_ - 1) + (a_ + 1) * cw), a_ * ((a_ + 1) + (a_ - 1) * cw - s)]
        a = [(a_ + 1) - (a_ - 1) * cw + s, 2 * ((a_ - 1) - (a_ + 1) * cw), (a_ + 1) - (a_ - 1) * cw - s]
    elif kind == "highpass":
        b = [(1 + cw) / 2, -(1 + cw), (1 + cw) / 2]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif kind == "lowpass":
        b = [(1 - cw) / 2, 1 - cw, (1 - cw) / 2]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    else:
        raise ValueError(kind)
    b, a = np.array(b), np.array(a)
    return b / a[0], a / a[0]


def active_rms(y, rate=RATE):
    """RMS over the louder 20 ms frames (those within 30 dB of the loudest): the speech's active level."""
    h = rate // 50
    n = len(y) // h
    if n == 0:
        return float(np.sqrt(np.mean(y ** 2) + 1e-12))
    p = np.mean(y[: n * h].reshape(n, h).astype(np.float64) ** 2, axis=1)
    act = p[p >= p.max() * 1e-3]
    return float(np.sqrt(np.mean(act) + 1e-12))


def random_eq(y, rng):
    desc = []
    for _ in range(rng.integers(1, 4)):
        kind = rng.choice(["lowshelf", "highshelf", "peak"])
        if kind == "lowshelf":
            f0, q = rng.uniform(80, 400), 0.707
        elif kind == "highshelf":
            f0, q = rng.uniform(2000, 6000), 0.707
        else:
            f0, q = np.exp(rng.uniform(np.log(200), np.log(5000))), rng.uniform(0.7, 3.0)
        g = rng.uniform(-9, 9)
        b, a = _biquad(kind, f0, g, q)
        y = lfilter(b, a, y)
        desc.append(f"{kind}({f0:.0f}Hz,{g:+.1f}dB)")
    if rng.random() < 0.2:
        hp, lp = rng.uniform(80, 300), rng.uniform(3400, 7000)
        for kind, f0 in (("highpass", hp), ("lowpass", lp)):
            b, a = _biquad(kind, f0, 0, 0.707)
            y = lfilter(b, a, y)
        desc.append(f"band({hp:.0f}-{lp:.0f}Hz)")
    return y, desc


def room_rir(rng, rt60, drr_db, rate=RATE):
    """Synthetic room impulse response: unit direct path at lag 0 plus exponentially decaying noise."""
    n = int(rate * rt60 * 1.2)
    t = np.arange(n) / rate
    tail = rng.standard_normal(n) * np.exp(-6.9078 * t / rt60)  # -60 dB at rt60
    onset = int(rate * rng.uniform(0.002, 0.010))  # first reflections arrive after the direct sound
    tail[:onset] = 0
    e_tail = np.sum(tail ** 2)
    tail *= np.sqrt(10 ** (-drr_db / 10) / max(e_tail, 1e-12))
    tail[0] = 1.0
    return tail


def pink(n, rng):
    """Pink (1/f) noise by spectral shaping of white noise."""
    x = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(x), dtype=np.float64)
    f[0] = 1.0
    return np.fft.irfft(x / np.sqrt(f), n)


def babble(n, rng, pool):
    """Sum of 3-6 other utterances from `pool` (a list of float arrays), each at a random offset and gain."""
    out = np.zeros(n)
    for _ in range(rng.integers(3, 7)):
        src = pool[rng.integers(len(pool))]
        if len(src) == 0:
            continue
        seg = np.resize(src, n + len(src))  # loop the source so every sample gets speech
        off = rng.integers(len(src))
        piece = seg[off: off + n]
        out += piece / (active_rms(piece) + 1e-9) * rng.uniform(0.5, 1.0)
    return out


def talkers(n, rng, pool, count):
    """`count` utterances from `pool` (float or int16 arrays), each at unit active level, looped from a random
    offset to n samples and summed: background speech with no one talker standing out."""
    out = np.zeros(n)
    for k in rng.choice(len(pool), size=count, replace=False):
        src = np.asarray(pool[k], dtype=np.float64)
        if len(src) == 0:
            continue
        out += np.resize(np.roll(src, -int(rng.integers(len(src)))), n) / (active_rms(src) + 1e-9)
    return out


def augment(y, rng, pool=None):
    """Augment float audio `y` (16 kHz) with generator `rng`; returns (float32 audio, description dict)."""
    y = np.asarray(y, dtype=np.float64)
    desc = {}
    if rng.random() < 0.5:
        y, eq = random_eq(y, rng)
        desc["eq"] = eq
    if rng.random() < 0.4:
        rt60, drr = rng.uniform(0.1, 0.6), rng.uniform(0, 12)
        y = fftconvolve(y, room_rir(rng, rt60, drr))[: len(y)]
        desc["reverb"] = {"rt60": round(rt60, 3), "drr_db": round(drr, 1)}
    if rng.random() < 0.6:
        kinds = ["white", "pink"] + (["babble"] if pool else [])
        kind = kinds[rng.integers(len(kinds))]
        snr = rng.uniform(15, 40)
        if kind == "white":
            noise = rng.standard_normal(len(y))
        elif kind == "pink":
            noise = pink(len(y), rng)
        else:
            noise = babble(len(y), rng, pool)
        noise *= active_rms(y) / (active_rms(noise) + 1e-12) * 10 ** (-snr / 20)
        y = y + noise
        desc["noise"] = {"kind": kind, "snr_db": round(snr, 1)}
    level = rng.uniform(-35, 0)
    y = y / (np.max(np.abs(y)) + 1e-12) * 10 ** (level / 20) * 0.999
    desc["peak_dbfs"] = round(level, 1)
    return y.astype(np.float32), desc
