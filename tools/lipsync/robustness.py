"""Robustness part of tools/lipsync/eval.py (see docs/lipsync.md): the same figures for degraded input,
and mouth activity on non-speech sound.

Conditions, each on --robust-limit utterances spread evenly over the data set, both models:
  * level -30 dBFS: the utterance scaled so that its active speech (the samples inside non-silence phones)
    has an RMS of -30 dB relative to full scale (32768);
  * white noise, 20 dB SNR: Gaussian noise (fixed seed) over the whole utterance, pauses included, at an RMS
    20 dB below the active speech RMS;
  * babble, 20 dB SNR: the sum of four other utterances of the data set (each at the same active level,
    started at different offsets and looped), scaled to 20 dB below the active speech RMS;
  * 24 kHz and 48 kHz sources: the utterance resampled up with scipy.signal.resample_poly, written as WAV
    and rendered by `essence2 render SRC --lipsync M --seed S -o OUT.y4m`, which resamples it back to 16 kHz
    (libsamplerate); the y4m frames (BT.601 limited range, 4:2:0) are turned back into B,G,R and measured
    against a rest frame that went through the same conversion. Their reference ("clean, via y4m") is the
    clean run's frames through the same conversion, so the figures differ by the resampling alone.
Non-speech (3 s each, both models): a steady 440 Hz tone and a chord sequence (-20 dBFS RMS), and clicks
(2 ms bursts every 250 ms, peaks at -6 dBFS). Mouth activity: the mean raw openness relative to speech's
98th percentile (the median over clean utterances of each one's 98th percentile), and the share of frames
above the closed band (raw openness above 0.10 of that 98th percentile).
"""

import os
import re
import subprocess
import tempfile
import threading
import time

import numpy as np

import measure as ms
import wavio

FULL = 32768.0


def active_rms(pcm, phones):
    """RMS of the samples inside non-silence phones (of all samples when there are none)."""
    x = pcm.astype(np.float64)
    mask = np.zeros(len(x), bool)
    for s, e, p in phones:
        if p != "sil":
            mask[int(float(s) * ms.RATE):int(float(e) * ms.RATE)] = True
    sel = x[mask] if mask.any() else x
    return float(np.sqrt(np.mean(sel * sel))) if len(sel) else 0.0


def to_int16(x):
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def at_level(pcm, phones, dbfs):
    rms = active_rms(pcm, phones)
    return to_int16(pcm.astype(np.float64) * (FULL * 10 ** (dbfs / 20) / max(rms, 1e-9)))


def with_noise(pcm, phones, noise, snr_db):
    rms = active_rms(pcm, phones)
    n = noise[:len(pcm)].astype(np.float64)
    nrms = float(np.sqrt(np.mean(n * n))) or 1.0
    return to_int16(pcm.astype(np.float64) + n * (rms / 10 ** (snr_db / 20) / nrms))


def white(n, seed):
    return np.random.default_rng(seed).standard_normal(n)


def babble(data, index, n, talkers=4):
    """Four other utterances of the data set, each at unit active RMS, offset and looped to n samples."""
    out = np.zeros(n)
    others = [k for k in range(len(data)) if k != index]
    if not others:
        return white(n, index)
    for t in range(talkers):
        _, pcm, meta = data[others[(index * 7 + t * 3) % len(others)]]
        x = pcm.astype(np.float64) / max(active_rms(pcm, meta["phones"]), 1e-9)
        start = (t * 9973 + index * 4001) % max(len(x), 1)
        out += np.resize(np.roll(x, -start), n)
    return out


# ---- non-speech ---------------------------------------------------------------------------------------

def tone(seconds=3.0, freq=440.0, dbfs=-20.0):
    t = np.arange(int(seconds * ms.RATE)) / ms.RATE
    return to_int16(np.sin(2 * np.pi * freq * t) * np.sqrt(2) * FULL * 10 ** (dbfs / 20))


def chords(seconds=3.0, dbfs=-20.0):
    """Four chords of three notes with four harmonics each, plucked (fast attack, exponential decay)."""
    seq = [(261.63, 329.63, 392.00), (220.00, 261.63, 329.63), (174.61, 220.00, 261.63), (196.00, 246.94, 293.66)]
    n = int(seconds * ms.RATE)
    per = n // len(seq)
    out = np.zeros(n)
    t = np.arange(per) / ms.RATE
    env = np.minimum(t / 0.01, 1.0) * np.exp(-t / 0.5)
    for k, chord in enumerate(seq):
        seg = sum(sum(np.sin(2 * np.pi * f * h * t) / h for h in range(1, 5)) for f in chord) * env
        out[k * per:(k + 1) * per] = seg
    rms = np.sqrt(np.mean(out * out))
    return to_int16(out / rms * FULL * 10 ** (dbfs / 20))


def clicks(seconds=3.0, every=0.25, peak_dbfs=-6.0, seed=3):
    n = int(seconds * ms.RATE)
    out = np.zeros(n)
    rng = np.random.default_rng(seed)
    burst = int(0.002 * ms.RATE)
    for start in range(int(0.1 * ms.RATE), n - burst, int(every * ms.RATE)):
        out[start:start + burst] = rng.uniform(-1, 1, burst) * np.exp(-np.arange(burst) / (burst / 4))
    return to_int16(out / np.abs(out).max() * FULL * 10 ** (peak_dbfs / 20))


# ---- y4m ----------------------------------------------------------------------------------------------

def bgr_to_yuv420(bgr):
    """As Sources/essence2-cli/Y4MWriter.swift: BT.601 limited range, chroma from 2x2 averages (any leading axes)."""
    x = bgr.astype(np.int64)
    b, g, r = x[..., 0], x[..., 1], x[..., 2]
    y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16
    h, w = y.shape[-2:]
    ph, pw = (h + 1) // 2 * 2, (w + 1) // 2 * 2
    lead = x.shape[:-3]
    pad = np.pad(x, [(0, 0)] * len(lead) + [(0, ph - h), (0, pw - w), (0, 0)], mode="edge")
    avg = pad.reshape(*lead, ph // 2, 2, pw // 2, 2, 3).sum(axis=(-4, -2))
    ab, ag, ar = (avg[..., 0] + 2) // 4, (avg[..., 1] + 2) // 4, (avg[..., 2] + 2) // 4
    u = np.clip(((-38 * ar - 74 * ag + 112 * ab + 128) >> 8) + 128, 0, 255)
    v = np.clip(((112 * ar - 94 * ag - 18 * ab + 128) >> 8) + 128, 0, 255)
    return y.astype(np.uint8), u.astype(np.uint8), v.astype(np.uint8)


def yuv420_to_bgr(y, u, v):
    h, w = y.shape[-2:]
    U = np.repeat(np.repeat(u.astype(np.float32), 2, -2), 2, -1)[..., :h, :w] - 128
    V = np.repeat(np.repeat(v.astype(np.float32), 2, -2), 2, -1)[..., :h, :w] - 128
    C = 1.164 * (y.astype(np.float32) - 16)
    r = C + 1.596 * V
    g = C - 0.392 * U - 0.813 * V
    b = C + 2.017 * U
    return np.clip(np.stack([b, g, r], -1), 0, 255).astype(np.uint8)


def roundtrip(bgr):
    return yuv420_to_bgr(*bgr_to_yuv420(bgr))


def read_y4m(path, count, crop):
    """The first `count` frames of a 4:2:0 y4m file as B,G,R crops (x0, y0, x1, y1; even x0/y0 assumed)."""
    x0, y0, x1, y1 = crop
    with open(path, "rb") as f:
        header = f.readline().decode()
        w = int(re.search(r" W(\d+)", header).group(1))
        h = int(re.search(r" H(\d+)", header).group(1))
        cw, ch = (w + 1) // 2, (h + 1) // 2
        size = w * h + 2 * cw * ch
        out = []
        for _ in range(count):
            tag = f.readline()
            if not tag.startswith(b"FRAME"):
                break
            buf = np.frombuffer(f.read(size), np.uint8)
            Y = buf[:w * h].reshape(h, w)
            U = buf[w * h:w * h + cw * ch].reshape(ch, cw)
            V = buf[w * h + cw * ch:].reshape(ch, cw)
            cy0, cx0 = y0 // 2, x0 // 2
            cy1, cx1 = (y1 + 1) // 2, (x1 + 1) // 2
            out.append(yuv420_to_bgr(Y[cy0 * 2:cy1 * 2, cx0 * 2:cx1 * 2], U[cy0:cy1, cx0:cx1],
                                     V[cy0:cy1, cx0:cx1])[y0 - cy0 * 2:y1 - cy0 * 2, x0 - cx0 * 2:x1 - cx0 * 2])
    return np.stack(out) if out else np.zeros((0, y1 - y0, x1 - x0, 3), np.uint8)


def write_source(pcm16, rate, workdir, tag):
    """The 16 kHz utterance written at `rate` (upsampled with scipy) as `<tag>.src.wav`; returns its path. Written
    once, before the models' renders read it at the same time."""
    from scipy.signal import resample_poly
    from math import gcd
    g = gcd(rate, ms.RATE)
    src = to_int16(resample_poly(pcm16.astype(np.float64), rate // g, ms.RATE // g))
    wav = os.path.join(workdir, f"{tag}.src.wav")
    wavio.write_pcm(wav, src, rate)
    return wav


def render_cli(cli, avatar, wav, samples16k, model, crop, workdir, tag):
    """Raw frames of `essence2 render` for the source file `wav` (made by `write_source` from `samples16k`
    samples at 16 kHz)."""
    out = os.path.join(workdir, f"{tag}.{model}.y4m")
    p = subprocess.run([cli, "render", wav, "--avatar", avatar, "--lipsync", model, "--seed", str(ms.SEED),
                        "-o", out], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"essence2 render failed ({p.returncode}): {p.stderr.strip()}")
    m = re.search(r"(\d+) speech", p.stdout)
    speech = int(m.group(1)) if m else (samples16k + ms.SPF - 1) // ms.SPF
    crops = read_y4m(out, speech, crop)
    for path in (out, out[:-4] + ".wav"):
        if os.path.exists(path):
            os.remove(path)
    return crops


# ---- the run ------------------------------------------------------------------------------------------

def run(renderer, args, data, per, kept, models):
    """Figures of every condition: {condition: {model: overall figures}}, with deltas from their clean ones."""
    subset = sorted(kept)
    timing = {}
    t0 = time.monotonic()
    clean = {m: ms.overall([per[i][2][m] for i in subset]) for m in models}
    conditions = {}

    def degraded(name, make):
        figs = {m: [] for m in models}
        for i in subset:
            uid, pcm, meta = data[i]
            raw = renderer.raw_openness(make(i, pcm, meta))
            for m in models:
                figs[m].append(ms.utterance_figures(raw[m], meta["phones"], len(pcm)))
        conditions[name] = {m: ms.overall(figs[m]) for m in models}
        timing[name] = round(time.monotonic() - t0, 1)

    degraded("level -30 dBFS", lambda i, pcm, meta: at_level(pcm, meta["phones"], -30.0))
    degraded("white noise 20 dB SNR",
             lambda i, pcm, meta: with_noise(pcm, meta["phones"], white(len(pcm), 1000 + i), 20.0))
    degraded("babble 20 dB SNR",
             lambda i, pcm, meta: with_noise(pcm, meta["phones"], babble(data, i, len(pcm)), 20.0))

    # resampled sources through `essence2 render`, measured from y4m against a converted rest frame
    y4m_clean = None
    if args.cli and os.path.exists(args.cli):
        meter = ms.MouthMeter(roundtrip(renderer.rest), ms.read_imx_mouth(args.avatar)[0])
        crop = meter.crop
        ref = {m: [] for m in models}
        for i in subset:
            uid, pcm, meta = data[i]
            for m in models:
                raw = meter.measure(roundtrip(kept[i][m]))
                ref[m].append(ms.utterance_figures(raw, meta["phones"], len(pcm)))
        y4m_clean = {m: ms.overall(ref[m]) for m in models}
        with tempfile.TemporaryDirectory(prefix="lipsync-eval-") as work:
            for rate in (24000, 48000):
                figs = {m: [] for m in models}
                for i in subset:
                    uid, pcm, meta = data[i]
                    res, errors = {}, []
                    tag = f"{uid}.{rate}"
                    wav = write_source(pcm, rate, work, tag)

                    def job(m):
                        try:
                            res[m] = meter.measure(render_cli(args.cli, args.avatar, wav, len(pcm), m, crop, work,
                                                              tag))
                        except Exception as e:  # reported in the main thread
                            errors.append(e)

                    threads = [threading.Thread(target=job, args=(m,)) for m in models]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                    os.remove(wav)
                    if errors:
                        raise errors[0]
                    for m in models:
                        figs[m].append(ms.utterance_figures(res[m], meta["phones"], len(pcm)))
                conditions[f"{rate // 1000} kHz source (render)"] = {m: ms.overall(figs[m]) for m in models}
                timing[f"{rate // 1000} kHz source (render)"] = round(time.monotonic() - t0, 1)

    # non-speech: activity relative to clean speech's 98th percentile
    p98 = {m: float(np.median([u[2][m]["p98_raw"] for u in per if u[2][m] is not None])) for m in models}
    nonspeech = {}
    for name, pcm in (("tone 440 Hz", tone()), ("chord sequence", chords()), ("clicks", clicks())):
        raw = renderer.raw_openness(pcm)
        nonspeech[name] = {m: {"mean_openness": float(raw[m].mean() / max(p98[m], 1e-9)),
                               "active_share": float((raw[m] > ms.CLOSED * p98[m]).mean()),
                               "frames": int(len(raw[m]))} for m in models}

    def delta(figs, ref):
        return {m: {k: (figs[m][k] - ref[m][k]) if figs[m][k] is not None and ref[m][k] is not None else None
                    for k in ("closure", "silence", "r0")} for m in models}

    return {
        "utterances": len(subset),
        "clean": clean,
        "clean_via_y4m": y4m_clean,
        "conditions": conditions,
        "deltas": {name: delta(f, y4m_clean if "render" in name else clean) for name, f in conditions.items()},
        "speech_p98": p98,
        "nonspeech": nonspeech,
        "seconds_elapsed_after": {**timing, "non-speech": round(time.monotonic() - t0, 1)},
    }


def print_report(rob, models, print_table):
    rows = [(f"clean ({rob['utterances']} utterances)", rob["clean"])]
    rows += [(name, figs) for name, figs in rob["conditions"].items() if "render" not in name]
    if rob["clean_via_y4m"]:
        rows.append(("clean, via y4m", rob["clean_via_y4m"]))
        rows += [(name, figs) for name, figs in rob["conditions"].items() if "render" in name]
    print_table("robustness", rows, models)
    worst = {m: max((abs(v) for d in rob["deltas"].values() for v in d[m].values() if v is not None), default=0.0)
             for m in models}
    print("largest change from the clean figures: " + ", ".join(f"{m} {worst[m]:.2f}" for m in models) + "\n")
    head = f"{'non-speech':28s}" + "".join(f" | {m + ': mean, active':>27s}" for m in models)
    print(head)
    print("-" * len(head))
    for name, figs in rob["nonspeech"].items():
        print(f"{name:28s}" + "".join(f" | {figs[m]['mean_openness']:>12.3f} {figs[m]['active_share']:>14.2f}"
                                      for m in models))
    print("(mean: mean openness / clean speech's 98th percentile; active: share of frames above the closed band)\n")
