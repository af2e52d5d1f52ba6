"""Speech with exact phone timings from Festival voices (Debian festvox packages).

One `festival --batch` process synthesizes a whole batch: a generated Scheme script selects each item's voice,
sets Duration_Stretch (speaking rate), runs utt.synth, saves the wave (riff) and prints every item of the
Segment relation with its end time. The waves are resampled to 16 kHz (resample_poly keeps seconds unchanged).

Voices: kal_diphone (festvox-kallpc16k), ked_diphone (festvox-kdlpc16k), cmu_us_slt_arctic_hts
(festvox-us-slt-hts, 32 kHz; HTS ignores Duration_Stretch, so it always speaks at its own rate), and the voices
of other languages in OTHER_VOICES (each recorded from its own speaker; their phone sets are mapped by
phones.FESTIVAL_LANGUAGE). Their text front ends read their own 8-bit encodings (Czech ISO-8859-2, Finnish and
Catalan ISO-8859-1), so the batch script is written as bytes, each item's text in its voice's encoding.

Usage as a script:
    python3 tools/lipsync/synth_festival.py "Bob ate a poppy pie." --voice kal_diphone --out /tmp/x.wav
"""

import math
import os
import subprocess
import sys
import tempfile
import wave

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phones as ph  # noqa: E402
import wavio  # noqa: E402

# voice -> (language, phone set for phones.from_festival, text encoding, Debian package)
ENGLISH_VOICES = {
    "kal_diphone": ("en", "english", "latin-1", "festvox-kallpc16k"),
    "ked_diphone": ("en", "english", "latin-1", "festvox-kdlpc16k"),
    "cmu_us_slt_arctic_hts": ("en", "english", "latin-1", "festvox-us-slt-hts"),
}
OTHER_VOICES = {
    "lp_diphone": ("it", "italian", "latin-1", "festvox-italp16k"),
    "pc_diphone": ("it", "italian", "latin-1", "festvox-itapc16k"),
    "czech_dita": ("cs", "czech", "iso-8859-2", "festvox-czech-dita"),
    "czech_krb": ("cs", "czech", "iso-8859-2", "festvox-czech-krb"),
    "czech_machac": ("cs", "czech", "iso-8859-2", "festvox-czech-machac"),
    "czech_ph": ("cs", "czech", "iso-8859-2", "festvox-czech-ph"),
    "suo_fi_lj_diphone": ("fi", "finnish", "latin-1", "festvox-suopuhe-lj"),
    "hy_fi_mv_diphone": ("fi", "finnish", "latin-1", "festvox-suopuhe-mv"),
    "upc_ca_ona_hts": ("ca", "catalan", "latin-1", "festvox-ca-ona-hts"),
    "msu_ru_nsh_clunits": ("ru", "russian", "utf-8", "festvox-ru"),
    "hindi_NSK_diphone": ("hi", "indic", "utf-8", "festvox-hi-nsk"),
    "marathi_NSK_diphone": ("mr", "indic", "utf-8", "festvox-mr-nsk"),
    "telugu_NSK_diphone": ("te", "indic", "utf-8", "festvox-te-nsk"),
}
VOICES = {**ENGLISH_VOICES, **OTHER_VOICES}
# Voices that ignore Duration_Stretch (HTS and cluster units speak at their own rate).
FIXED_RATE = frozenset({"cmu_us_slt_arctic_hts", "upc_ca_ona_hts", "msu_ru_nsh_clunits"})
OUT_RATE = 16000


def _clean(text: str) -> str:
    return text.replace("\\", " ").replace('"', " ")


def read_wav(path):
    """Mono int16 wav -> (float32 in -1..1, sample rate)."""
    with wave.open(path, "rb") as w:
        rate, ch, n = w.getframerate(), w.getnchannels(), w.getnframes()
        if w.getsampwidth() != 2:
            raise ValueError(f"{path}: not 16-bit")
        x = np.frombuffer(w.readframes(n), "<i2").astype(np.float32) / 32768.0
    if ch > 1:
        x = x.reshape(-1, ch).mean(axis=1)
    return x, rate


def synth_batch(items, timeout=600):
    """Synthesize a batch in one festival process.

    items: [(text, voice, duration_stretch, f0)] where f0 is None or (target_f0_mean, target_f0_std) in Hz for the
    diphone voices' linear-regression intonation (int_lr_params; the voices' own values are 105 and 14-15).
    Returns [(float32 audio at 16 kHz, [(start_s, end_s, phone)])].
    """
    with tempfile.TemporaryDirectory(prefix="lipsync-fest-") as tmp:
        lines = []
        current = None
        for k, (text, voice, stretch, f0) in enumerate(items):
            if voice not in VOICES:
                raise ValueError(f"unknown festival voice {voice!r}")
            enc = VOICES[voice][2]
            if voice != current:
                lines.append((f"(voice_{voice})", enc))
                current = voice
            wav = os.path.join(tmp, f"{k}.wav")
            if f0 is not None:
                if voice not in ("kal_diphone", "ked_diphone"):
                    raise ValueError(f"{voice} does not take int_lr_params")
                lines.append((f"(set! int_lr_params '((target_f0_mean {float(f0[0]):.2f}) (target_f0_std "
                              f"{float(f0[1]):.2f}) (model_f0_mean 170) (model_f0_std 34)))", enc))
            lines += [(line, enc) for line in [
                f"(Parameter.set 'Duration_Stretch {float(stretch):.4f})",
                f'(set! u (Utterance Text "{_clean(text)}"))',
                "(utt.synth u)",
                f'(utt.save.wave u "{wav}" \'riff)',
                f'(format t "ITEM {k}\\n")',
                "(mapcar (lambda (s) (format t \"SEG %s %f\\n\" (item.name s) (item.feat s \"end\")))"
                " (utt.relation.items u 'Segment))",
            ]]
        script = os.path.join(tmp, "batch.scm")
        with open(script, "wb") as f:
            f.write(b"".join(line.encode(enc) + b"\n" for line, enc in lines))
        r = subprocess.run(["festival", "--batch", script], capture_output=True, text=True, errors="replace",
                           timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"festival failed: {r.stderr[-2000:]}")
        segs = {}
        cur = None
        for line in r.stdout.splitlines():
            if line.startswith("ITEM "):
                cur = int(line.split()[1])
                segs[cur] = []
            elif line.startswith("SEG ") and cur is not None:
                _, name, end = line.split()
                segs[cur].append((name, float(end)))
        out = []
        for k in range(len(items)):
            x, rate = read_wav(os.path.join(tmp, f"{k}.wav"))
            if rate != OUT_RATE:
                g = math.gcd(OUT_RATE, rate)
                x = resample_poly(x.astype(np.float64), OUT_RATE // g, rate // g).astype(np.float32)
            phones = ph.from_segment_ends(segs.get(k, []), len(x) / OUT_RATE, VOICES[items[k][1]][1])
            if not phones:
                raise RuntimeError(f"festival gave no segments for item {k}: {items[k][0]!r}")
            out.append((x, phones))
        return out


def main():
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("text")
    ap.add_argument("--voice", default="kal_diphone", choices=sorted(VOICES))
    ap.add_argument("--stretch", type=float, default=1.0)
    ap.add_argument("--f0", type=float, nargs=2, metavar=("MEAN", "STD"), help="diphone voices only")
    ap.add_argument("--out")
    a = ap.parse_args()
    [(y, segs)] = synth_batch([(a.text, a.voice, a.stretch, a.f0)])
    wavio.show_synthesis(y, segs, a.out, OUT_RATE)


if __name__ == "__main__":
    main()
