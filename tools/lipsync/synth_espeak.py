"""Speech with exact phone timings from espeak-ng, through libespeak-ng and ctypes.

espeak-ng is initialised in synchronous mode with phoneme events; every espeakEVENT_PHONEME event carries the
sample index (in the 22050 Hz output of this message) at which that phoneme starts. A phone ends where the next
event starts; the last one ends at the end of the audio. The audio is resampled to 16 kHz with
scipy.signal.resample_poly(320, 441), which keeps time in seconds unchanged, so the timings stay exact.

Usage as a script (prints the phones, writes a wav):
    python3 tools/lipsync/synth_espeak.py "Bob ate a poppy pie." --voice en-us+m3 --rate 170 --out /tmp/x.wav
"""

import ctypes
import os
import sys

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phones as ph  # noqa: E402
import wavio  # noqa: E402

# /usr/include/espeak-ng/speak_lib.h
AUDIO_OUTPUT_SYNCHRONOUS = 2
espeakINITIALIZE_PHONEME_EVENTS = 0x0001
espeakINITIALIZE_PHONEME_IPA = 0x0002
espeakCHARS_UTF8 = 1
POS_CHARACTER = 1
espeakRATE, espeakVOLUME, espeakPITCH, espeakRANGE = 1, 2, 3, 4
espeakEVENT_LIST_TERMINATED, espeakEVENT_PHONEME = 0, 7
ESPEAK_RATE = 22050
OUT_RATE = 16000


class _Event(ctypes.Structure):
    """espeak_EVENT."""

    class _Id(ctypes.Union):
        _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]

    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _Id),
    ]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))


class Espeak:
    """One libespeak-ng instance (the library is a per-process singleton: make one per process)."""

    def __init__(self, ipa: bool = False):
        """`ipa`: phoneme events name phonemes in IPA (any language; map them with `phones.from_ipa`) instead
        of espeak-ng's English mnemonics (`phones.from_espeak`)."""
        self.lib = ctypes.CDLL("libespeak-ng.so.1")
        flags = espeakINITIALIZE_PHONEME_EVENTS | (espeakINITIALIZE_PHONEME_IPA if ipa else 0)
        self.mapper = ph.from_ipa if ipa else ph.from_espeak
        rate = self.lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, flags)
        if rate != ESPEAK_RATE:
            raise RuntimeError(f"espeak_Initialize returned {rate}, expected {ESPEAK_RATE}")
        self._chunks = []
        self._events = []
        self._cb = _CALLBACK(self._callback)  # keep a reference: ctypes must not free it
        self.lib.espeak_SetSynthCallback(self._cb)
        self.lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]

    def _callback(self, wav, n, events):
        if n > 0:
            self._chunks.append(np.ctypeslib.as_array(wav, shape=(n,)).copy())
        i = 0
        while events[i].type != espeakEVENT_LIST_TERMINATED:
            e = events[i]
            if e.type == espeakEVENT_PHONEME:
                self._events.append((e.sample, e.id.string.decode("utf-8", "replace")))
            i += 1
        return 0

    def synth(self, text: str, voice: str, rate: int = 175, pitch: int = 50, pitch_range: int = 50):
        """Synthesize `text`; returns (float32 audio at 16 kHz in -1..1, [(start_s, end_s, common_phone)])."""
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise ValueError(f"unknown espeak voice {voice!r}")
        self.lib.espeak_SetParameter(espeakRATE, int(rate), 0)
        self.lib.espeak_SetParameter(espeakPITCH, int(pitch), 0)
        self.lib.espeak_SetParameter(espeakRANGE, int(pitch_range), 0)
        self.lib.espeak_SetParameter(espeakVOLUME, 100, 0)
        self._chunks, self._events = [], []
        data = text.encode("utf-8") + b"\0"
        err = self.lib.espeak_Synth(data, len(data), 0, POS_CHARACTER, 0, espeakCHARS_UTF8, None, None)
        if err != 0:
            raise RuntimeError(f"espeak_Synth failed: {err}")
        self.lib.espeak_Synchronize()
        audio = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.int16)
        n = len(audio)
        starts = [(0, "sil")] + [(min(max(s, 0), n), self.mapper(name)) for s, name in self._events
                                 if not name.startswith("(")]  # "(en)": a language switch, not a phone
        segs = []
        for k, (s, p) in enumerate(starts):
            e = starts[k + 1][0] if k + 1 < len(starts) else n
            if e <= s:
                continue
            if segs and segs[-1][2] == p == "sil":
                segs[-1][1] = e
            else:
                segs.append([s, e, p])
        y = resample_poly(audio.astype(np.float64) / 32768.0, OUT_RATE, ESPEAK_RATE).astype(np.float32)
        out = [(s / ESPEAK_RATE, e / ESPEAK_RATE, p) for s, e, p in segs]
        return y, attach_closures(audio, out)


STOPS = frozenset(("p", "b", "t", "d", "k", "g", "ch", "jh"))
CLOSURE_HOP = 44          # 2 ms at 22050 Hz
CLOSURE_SKIP = 5          # 2 ms frames of burst allowed before the event
CLOSURE_BELOW_PEAK = 35.0  # dB below the utterance's loud level that counts as the silent closure


def attach_closures(audio, segs):
    """Move each stop's start back over the silent closure that espeak-ng renders before it.

    espeak-ng emits a stop's phoneme event at its burst; the closure (near digital silence, 30-60 ms) is
    rendered at the end of the preceding phone. The lips are closed during that silence, so it belongs to the
    stop: the boundary moves back to where the closure's silence starts (at most to the previous phone's
    midpoint). Checked against the audio in tools/lipsync/README.md.
    """
    x = audio.astype(np.float64)
    n = len(x) // CLOSURE_HOP
    if n == 0:
        return segs
    db = 10 * np.log10(np.mean(x[: n * CLOSURE_HOP].reshape(n, CLOSURE_HOP) ** 2, axis=1) + 1e-3)
    quiet = db < np.percentile(db, 99) - CLOSURE_BELOW_PEAK
    out = [list(s) for s in segs]
    for k in range(1, len(out)):
        s, _, p = out[k]
        prev = out[k - 1]
        if p not in STOPS or prev[2] == "sil":
            continue
        limit = (prev[0] + prev[1]) / 2
        i = int(round(s * ESPEAK_RATE / CLOSURE_HOP))  # first 2 ms frame of the stop
        # the burst may start a few ms before the event: look for the closure's end within 10 ms
        ends = [q for q in range(max(i - CLOSURE_SKIP, 0), i) if quiet[q]]
        if not ends:
            continue
        j = ends[-1] + 1
        while j - 1 >= 0 and (j - 1) * CLOSURE_HOP / ESPEAK_RATE >= limit and quiet[j - 1]:
            j -= 1
        if j <= ends[-1]:
            t = j * CLOSURE_HOP / ESPEAK_RATE
            prev[1] = t
            out[k][0] = t
    return [tuple(s) for s in out]


def main():
    import argparse
    
    ap = argparse.ArgumentParser()
    ap.add_argument("text")
    ap.add_argument("--voice", default="en-us")
    ap.add_argument("--rate", type=int, default=175)
    ap.add_argument("--pitch", type=int, default=50)
    ap.add_argument("--out")
    a = ap.parse_args()
    y, segs = Espeak().synth(a.text, a.voice, a.rate, a.pitch)
    wavio.show_synthesis(y, segs, a.out, OUT_RATE)


if __name__ == "__main__":
    main()
