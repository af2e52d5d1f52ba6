"""16-bit mono WAV reading and writing shared by the lip-sync tools (standard library `wave` + numpy)."""
import wave

import numpy as np


def read_pcm(path):
    """Mono 16-bit PCM WAV -> (int16 samples, sample rate). Other formats raise ValueError."""
    with wave.open(path, "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: expected mono 16-bit PCM")
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.int16)
    return pcm, rate


def write_pcm(path, pcm, rate):
    """Writes int16 samples as a mono 16-bit PCM WAV."""
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(pcm, "<i2").tobytes())


def to_pcm(y):
    """Float samples in -1..1 -> int16, rounded, clipped."""
    return np.clip(np.round(np.asarray(y, dtype=np.float64) * 32767), -32768, 32767).astype("<i2")


def show_synthesis(y, phones, out, rate):
    """What the synth_*.py commands do with one synthesis: print its phones, write it to `out` when given."""
    for s, e, p in phones:
        print(f"{s:8.3f} {e:8.3f} {p}")
    if out:
        write_pcm(out, to_pcm(y), rate)
