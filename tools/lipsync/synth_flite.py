"""Speech with exact phone timings from Flite's statistical-parametric (clustergen) voices (Debian libflite1).

Flite runs in-process through ctypes (libflite.so.1 and the voice libraries). Each sentence is synthesized with
flite_synth_text; the Segment relation gives every phone with its end time, and the wave is generated frame by
frame from that same segment timeline, so the timings are exact (to the voice's 5 ms frame).

Voices: cmu_us_awb (Scottish English male) and cmu_us_rms (US English male), clustergen voices built from
recordings of two people of the CMU ARCTIC databases, 16 kHz. Flite's cmu_us_slt is left out on purpose: it is
the same speaker (SLT) as the held-out validation voice cmu_us_slt_arctic_hts. Per sentence: duration_stretch
(speaking rate), f0_shift (pitch factor) and int_f0_target_stddev (intonation range).

Usage as a script:
    python3 tools/lipsync/synth_flite.py "Bob ate a poppy pie." --voice cmu_us_rms --out /tmp/x.wav
"""

import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phones as ph  # noqa: E402
import wavio  # noqa: E402

VOICES = ("cmu_us_awb", "cmu_us_rms")
OUT_RATE = 16000
_P = ctypes.c_void_p


class _Wave(ctypes.Structure):
    """cst_wave (flite/include/cst_wave.h)."""
    _fields_ = [("type", ctypes.c_char_p), ("sample_rate", ctypes.c_int), ("num_samples", ctypes.c_int),
                ("num_channels", ctypes.c_int), ("samples", ctypes.POINTER(ctypes.c_short))]


class _Voice(ctypes.Structure):
    """The head of cst_voice (flite/include/cst_voice.h): its name and its feature set."""
    _fields_ = [("name", ctypes.c_char_p), ("features", _P)]


class Flite:
    """libflite with its US English language and lexicon; voices are registered on first use."""

    def __init__(self):
        g = ctypes.RTLD_GLOBAL
        try:
            self.lib = ctypes.CDLL("libflite.so.1", mode=g)
            ctypes.CDLL("libflite_cmulex.so.1", mode=g)
            ctypes.CDLL("libflite_usenglish.so.1", mode=g)
        except OSError as e:
            raise RuntimeError(f"libflite not found ({e}); install the Debian package libflite1") from e
        lib = self.lib
        lib.flite_init()
        for name, res, args in (
            ("flite_synth_text", _P, [ctypes.c_char_p, _P]),
            ("flite_feat_set_float", None, [_P, ctypes.c_char_p, ctypes.c_float]),
            ("utt_wave", ctypes.POINTER(_Wave), [_P]),
            ("utt_relation", _P, [_P, ctypes.c_char_p]),
            ("relation_head", _P, [_P]),
            ("item_next", _P, [_P]),
            ("item_feat_string", ctypes.c_char_p, [_P, ctypes.c_char_p]),
            ("item_feat_float", ctypes.c_float, [_P, ctypes.c_char_p]),
            ("delete_utterance", None, [_P]),
        ):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        self.voices = {}

    def voice(self, name):
        if name not in VOICES:
            raise ValueError(f"unknown flite voice {name!r}")
        if name not in self.voices:
            vlib = ctypes.CDLL(f"libflite_{name}.so.1", mode=ctypes.RTLD_GLOBAL)
            register = getattr(vlib, f"register_{name}")
            register.restype, register.argtypes = _P, [ctypes.c_char_p]
            v = register(None)
            if not v:
                raise RuntimeError(f"flite: register_{name} failed")
            self.voices[name] = (vlib, v)
        return self.voices[name][1]

    def synth(self, text, voice, stretch=1.0, f0_shift=1.0, f0_std=None):
        """(float32 audio at 16 kHz, [(start_s, end_s, phone)] contiguous from 0 to the end) of one sentence."""
        v = self.voice(voice)
        feats = ctypes.cast(v, ctypes.POINTER(_Voice))[0].features
        self.lib.flite_feat_set_float(feats, b"duration_stretch", float(stretch))
        self.lib.flite_feat_set_float(feats, b"f0_shift", float(f0_shift))
        if f0_std is not None:
            self.lib.flite_feat_set_float(feats, b"int_f0_target_stddev", float(f0_std))
        utt = self.lib.flite_synth_text(text.encode("utf-8"), v)
        if not utt:
            raise RuntimeError(f"flite gave no utterance for {text!r}")
        try:
            w = self.lib.utt_wave(utt)
            if not w or w[0].num_channels != 1 or w[0].sample_rate != OUT_RATE:
                raise RuntimeError(f"flite: {voice} did not give 16 kHz mono audio")
            n = w[0].num_samples
            x = np.ctypeslib.as_array(w[0].samples, (n,)).astype(np.float32) / 32768.0 if n else np.zeros(0, np.float32)
            segs = []
            item = self.lib.relation_head(self.lib.utt_relation(utt, b"Segment"))
            while item:
                name = self.lib.item_feat_string(item, b"name").decode()
                segs.append((name, float(self.lib.item_feat_float(item, b"end"))))
                item = self.lib.item_next(item)
        finally:
            self.lib.delete_utterance(utt)
        phones = ph.from_segment_ends(segs, len(x) / OUT_RATE)
        if not phones:
            raise RuntimeError(f"flite gave no segments for {text!r}")
        return x, phones


def main():
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("text")
    ap.add_argument("--voice", default="cmu_us_rms", choices=VOICES)
    ap.add_argument("--stretch", type=float, default=1.0)
    ap.add_argument("--f0-shift", type=float, default=1.0)
    ap.add_argument("--out")
    a = ap.parse_args()
    y, segs = Flite().synth(a.text, a.voice, a.stretch, a.f0_shift)
    wavio.show_synthesis(y, segs, a.out, OUT_RATE)


if __name__ == "__main__":
    main()
