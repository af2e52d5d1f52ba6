"""The learned lip-sync stream's lip press by phone on recorded speech, and how far the audio tells f/v from
p/b/m where the model presses hard on both (issue 46's f/v in speech; docs/experiments/2026-12-05-fv-in-speech.md).

    ARTICULATION_DUMP_DIR=DIR swift test -c release --scratch-path .build/tests --filter ArticulationDump
    python tools/lipsync/press_by_phone.py DIR --clips tools/lipsync/real

DIR holds the clips' WAVs (16 kHz mono) and, written by the Swift test, NAME.artic.json: per 40 ms frame
[jaw, spread, press, level, pitch] of `LipSyncStream` (the shipped model, its calibrations included). The phones
come from the clips' NAME.json ([start, end, phone] in seconds); a frame is labelled by the phone at its middle.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from wavio import read_pcm  # noqa: E402

CLASSES = {"f/v": ("f", "v"), "p/b/m": ("p", "b", "m"), "s-like": ("s", "z", "sh", "zh", "th", "dh"),
           "o/u": ("ow", "ao", "uw")}
FRAME = 640  # samples of a 40 ms frame at 16 kHz


def phone_at(phones, t):
    """The phone whose [start, end) holds time `t`, or None."""
    for start, end, phone in phones:
        if start <= t < end:
            return phone
    return None


def phone_class(phone):
    """The CLASSES key of `phone`, else "other"."""
    return next((k for k, names in CLASSES.items() if phone in names), "other")


def high_low_db(frame, rate=16000):
    """Power above 3.5 kHz over power in 100-1000 Hz, dB: frication's noise against voicing's formants."""
    spectrum = np.abs(np.fft.rfft(frame * np.hanning(len(frame)))) ** 2
    freqs = np.fft.rfftfreq(len(frame), 1 / rate)
    high = spectrum[freqs >= 3500].sum()
    low = spectrum[(freqs >= 100) & (freqs < 1000)].sum()
    return float(10 * np.log10((high + 1e-12) / (low + 1e-12)))


def frames(artic, phones, pcm):
    """[(class, press, high/low dB)] of each whole frame of a clip."""
    x = pcm.astype(np.float32) / 32768
    out = []
    for i, row in enumerate(artic):
        segment = x[i * FRAME:(i + 1) * FRAME]
        if len(segment) < FRAME:
            break
        out.append((phone_class(phone_at(phones, (i + 0.5) / 25)), float(row[2]), high_low_db(segment)))
    return out


def summary(rows):
    """Per class: frames, press quartiles, the share in the tuck's range (0.1-0.55), and for the frames pressed
    over 0.4 their count and median high/low dB."""
    out = {}
    for cls in list(CLASSES) + ["other"]:
        press = np.array([p for c, p, _ in rows if c == cls])
        pressed = np.array([d for c, p, d in rows if c == cls and p > 0.4])
        if len(press) == 0:
            continue
        out[cls] = {"frames": int(len(press)),
                    "press_quartiles": [round(float(v), 2) for v in np.percentile(press, [25, 50, 75])],
                    "tuck_range": round(float(np.mean((press > 0.1) & (press < 0.55))), 2),
                    "pressed": int(len(pressed)),
                    "pressed_high_low_db": round(float(np.median(pressed)), 1) if len(pressed) else None}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="WAVs and the Swift test's NAME.artic.json")
    ap.add_argument("--clips", required=True, help="the clips' folder (NAME.json with phones)")
    args = ap.parse_args(argv)
    rows = []
    for path in sorted(glob.glob(os.path.join(args.dir, "*.artic.json"))):
        name = os.path.basename(path)[:-len(".artic.json")]
        with open(path) as f:
            artic = json.load(f)
        with open(os.path.join(args.clips, name + ".json")) as f:
            phones = json.load(f)["phones"]
        pcm, _ = read_pcm(os.path.join(args.dir, name + ".wav"))
        rows += frames(artic, phones, pcm)
    print("| phones | frames | press 25/50/75 % | in the tuck's range | pressed > 0.4 | their high/low dB |")
    print("|---|---|---|---|---|---|")
    for cls, s in summary(rows).items():
        q = " / ".join(f"{v:.2f}" for v in s["press_quartiles"])
        print(f"| {cls} | {s['frames']} | {q} | {s['tuck_range']:.2f} | {s['pressed']} | {s['pressed_high_low_db']} |")


if __name__ == "__main__":
    main()
