"""New voices from recorded ones: pitch and vocal-tract-length changes through the WORLD vocoder (pyworld, PyPI).

The voices of Festival and Flite that come from recorded people are all male (kal, ked, awb, rms), and the
validation voice cmu_us_slt_arctic_hts is a female voice never used for training. `warp` analyses an utterance
with WORLD (DIO + StoneMask pitch, CheapTrick spectral envelope, D4C aperiodicity, 5 ms frames), scales the pitch
by `f0_factor` and stretches the spectral envelope and aperiodicity along frequency by `formant_factor` (above 1
moves the formants up, as a shorter vocal tract does), and resynthesizes. Frames keep their times, so the phone
timings stay exact; the output has the input's length. Deterministic (WORLD's synthesis draws no random numbers
between calls of the same input).

    python3 tools/lipsync/voice_warp.py IN.wav OUT.wav --f0 1.7 --formant 1.15
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wavio  # noqa: E402

RATE = 16000
FRAME_MS = 5.0


def _world():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyworld imports pkg_resources, which warns about itself
        import pyworld
    return pyworld


def warp(y, f0_factor, formant_factor, rate=RATE):
    """Float audio `y` (-1..1) with its pitch times `f0_factor` and formants times `formant_factor`."""
    pw = _world()
    x = np.ascontiguousarray(y, dtype=np.float64)
    f0, t = pw.dio(x, rate, frame_period=FRAME_MS)
    f0 = pw.stonemask(x, f0, t, rate)
    sp = pw.cheaptrick(x, f0, t, rate)
    ap = pw.d4c(x, f0, t, rate)
    bins = np.arange(sp.shape[1], dtype=np.float64)
    src = bins / formant_factor
    sp = np.ascontiguousarray([np.interp(src, bins, row) for row in sp])
    ap = np.ascontiguousarray(np.clip([np.interp(src, bins, row) for row in ap], 0.0, 1.0))
    z = pw.synthesize(np.ascontiguousarray(f0 * f0_factor), sp, ap, rate, FRAME_MS)
    out = np.zeros(len(x))
    n = min(len(x), len(z))
    out[:n] = z[:n]
    return out.astype(np.float32)


def main():
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--f0", type=float, default=1.7)
    ap.add_argument("--formant", type=float, default=1.15)
    a = ap.parse_args()
    pcm, rate = wavio.read_pcm(a.input)
    y = warp(pcm.astype(np.float64) / 32768.0, a.f0, a.formant, rate)
    wavio.write_pcm(a.output, wavio.to_pcm(y * (0.9 / max(np.abs(y).max(), 1e-9))), rate)


if __name__ == "__main__":
    main()
