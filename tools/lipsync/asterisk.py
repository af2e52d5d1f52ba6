"""Recorded speakers from Debian's Asterisk prompt packages, aligned to phones without a language-specific aligner.

    python3 tools/lipsync/asterisk.py --cache build/asterisk --out build/lipsync-asterisk   # fetch, align, write
    python3 tools/lipsync/asterisk.py --cache build/asterisk --out DIR --limit 20           # 20 prompts a voice

Each prompt's text (the base package's `core-sounds-XX.txt`, "name: text" lines) is spoken by espeak-ng in the
prompt's language (phone timings exact, `synth_espeak.Espeak(ipa=True)`, phones mapped by `phones.from_ipa`); the
recording is aligned to that synthesis by dynamic time warping (DTW) on cepstra of a telephone band (250-3800 Hz,
so 8 kHz recordings align as 16 kHz ones do), and the synthesis' phone boundaries are carried over along the
warping path (the approach of aeneas). The packages come through `apt-get download` (no root needed) into
`--cache` and are unpacked with `dpkg-deb -x`; nothing of the audio is committed.

Voices (`VOICES`): whole speakers are `train` or `val` (held out). The 16 kHz (`-g722`) and 8 kHz (`-wav`)
packages hold the same recordings: the 16 kHz one is aligned, the 8 kHz one (upsampled to 16 kHz with
`resample_poly`, as a voice agent receives telephone audio) gets the same phones, band "8k". The prompt
packages es-co (GPL-2) and fr-armelle (BSD-style or GPL-2+) are only ever held out, never trained on (the core
sounds are CC-BY-SA-3.0, Russian and Italian CC-BY-3.0; it-menardi CC-BY-SA-3.0 Italian). Output: `<out>/items/<id>.wav|json` in the real recordings' item format
(tools/lipsync/README.md) plus `speaker`, `language`, `band`, `package`, `prompt`, `align` (DTW cost, speaking
rate); `<out>/manifest.json` lists every item and the prompts left out (and why).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
from typing import Iterable, Sequence

import numpy as np
from scipy.fft import dct
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wavio  # noqa: E402

RATE = 16000
HOP = 160          # 10 ms
WINDOW = 400       # 25 ms
NFFT = 512
BAND_HZ = (250.0, 3800.0)  # inside the telephone band, so 8 kHz and 16 kHz recordings give the same features
N_BANDS = 24
N_CEPS = 13
SPEECH_BELOW_PEAK_DB = 38.0   # frames this far below the loud level are silence (the ends are trimmed there)
STEP_PENALTY = 0.1            # DTW: extra cost of a vertical or horizontal step (per-frame cost is ~1)
PAUSE_MIN_S = 0.15            # silent stretches of the recording this long are labelled sil
MAX_COST = 1.25               # prompts whose mean path cost is higher are left out (text and audio disagree)
RATE_LIMITS = (80, 400)       # espeak-ng words per minute
Phone = tuple[float, float, str]


@dataclasses.dataclass(frozen=True)
class Voice:
    """One recorded speaker: where the recordings are (inside the unpacked packages) and which texts they speak."""
    speaker: str
    language: str                # ISO code; espeak-ng voice and core-sounds-XX.txt
    split: str                   # train or val (held out)
    package: str                 # package of the aligned recordings
    directory: str               # under /usr/share/asterisk/sounds
    extension: str               # g722, wav or gsm
    package_8k: str | None = None   # the same recordings at 8 kHz (-wav), or None
    licence: str = "CC-BY-SA-3.0"


SOUNDS = "usr/share/asterisk/sounds"
VOICES: tuple[Voice, ...] = (
    Voice("fr_CA_f_June", "fr", "train", "asterisk-core-sounds-fr-g722", "fr_CA_f_June", "g722",
          "asterisk-core-sounds-fr-wav"),
    Voice("ru_RU_f_IvrvoiceRU", "ru", "train", "asterisk-core-sounds-ru-g722", "ru_RU_f_IvrvoiceRU", "g722",
          "asterisk-core-sounds-ru-wav", licence="CC-BY-3.0"),
    Voice("it_IT_m_Carlo", "it", "train", "asterisk-core-sounds-it-g722", "it_IT_m_Carlo", "g722",
          "asterisk-core-sounds-it-wav", licence="CC-BY-3.0"),
    Voice("es_MX_f_Allison", "es", "val", "asterisk-core-sounds-es-g722", "es_MX_f_Allison", "g722",
          "asterisk-core-sounds-es-wav"),
    Voice("it_IT_f_Menardi", "it", "val", "asterisk-prompt-it-menardi-wav", "it_IT_f_Menardi", "wav",
          licence="CC-BY-SA-3.0 (Italian)"),
    Voice("es_CO_f_July", "es", "val", "asterisk-prompt-es-co", "es", "gsm", licence="GPL-2"),
    Voice("fr_FR_f_Armelle", "fr", "val", "asterisk-prompt-fr-armelle", "fr", "gsm", licence="GPL-2+ or BSD-style"),
)
TEXT_PACKAGES = {lang: f"asterisk-core-sounds-{lang}" for lang in ("es", "fr", "it", "ru")}
ESPEAK_VOICES = {"es": "es", "fr": "fr", "it": "it", "ru": "ru"}


def packages() -> list[str]:
    """Every Debian package the data set needs (never asterisk-core-sounds-en*: kept aside for external checks)."""
    names = set(TEXT_PACKAGES.values())
    for v in VOICES:
        names.add(v.package)
        if v.package_8k:
            names.add(v.package_8k)
    out = sorted(names)
    assert not any(n.startswith("asterisk-core-sounds-en") for n in out)
    return out


def fetch(cache: str) -> str:
    """Downloads (`apt-get download`, into `<cache>/debs`) and unpacks (`dpkg-deb -x`, into `<cache>/x/<package>`)
    every package that is not there yet; returns the directory of the unpacked packages."""
    debs, root = os.path.join(cache, "debs"), os.path.join(cache, "x")
    os.makedirs(debs, exist_ok=True)
    for name in packages():
        target = os.path.join(root, name)
        if os.path.isdir(os.path.join(target, "usr")):
            continue
        have = [f for f in os.listdir(debs) if f.startswith(name + "_") and f.endswith(".deb")]
        if not have:
            subprocess.run(["apt-get", "download", "-q", name], cwd=debs, check=True, stdout=subprocess.DEVNULL)
            have = [f for f in os.listdir(debs) if f.startswith(name + "_") and f.endswith(".deb")]
        os.makedirs(target, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", os.path.join(debs, sorted(have)[-1]), target], check=True)
    return root


# ---- texts ------------------------------------------------------------------------------------------------

def parse_texts(lines: Iterable[str]) -> dict[str, str]:
    """`core-sounds-XX.txt` -> {prompt name (with its subdirectory, e.g. digits/1): text}. Lines are
    "name: text"; ";" starts a comment; a byte-order mark and blank lines are skipped; a bracketed remark
    ("[...]") is not spoken and is dropped."""
    out: dict[str, str] = {}
    for raw in lines:
        line = raw.replace("\ufeff", "").strip()
        if not line or line.startswith(";") or ":" not in line:
            continue
        name, text = line.split(":", 1)
        name = name.strip()
        text = re.sub(r"\[[^\]]*\]", " ", text)
        text = " ".join(text.split())
        if name and text and " " not in name:
            out[name] = text
    return out


def load_texts(root: str, language: str) -> dict[str, str]:
    pkg = TEXT_PACKAGES[language]
    path = os.path.join(root, pkg, "usr/share/doc", pkg, f"core-sounds-{language}.txt.gz")
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        return parse_texts(f)


def recordings(root: str, voice: Voice) -> dict[str, str]:
    """{prompt name: file} of one voice (names relative to its directory, without the extension)."""
    base = os.path.join(root, voice.package, SOUNDS, voice.directory)
    out = {}
    for d, _, files in os.walk(base):
        for f in files:
            if f.endswith("." + voice.extension):
                rel = os.path.relpath(os.path.join(d, f), base)
                out[rel[: -len(voice.extension) - 1]] = os.path.join(d, f)
    return out


def decode(path: str) -> np.ndarray:
    """Any of the packages' formats -> int16 at 16 kHz. 8 kHz sources (wav, gsm) are decoded at 8 kHz and
    upsampled with resample_poly (as a voice agent gets telephone audio); g722 is 16 kHz already."""
    ext = path.rsplit(".", 1)[-1]
    if ext == "wav":
        pcm, rate = wavio.read_pcm(path)
    else:
        fmt = {"g722": "g722", "gsm": "gsm"}[ext]
        rate = 16000 if ext == "g722" else 8000
        raw = subprocess.run(["ffmpeg", "-v", "error", "-f", fmt, "-i", path, "-f", "s16le", "-ac", "1",
                              "-ar", str(rate), "-"], check=True, capture_output=True).stdout
        pcm = np.frombuffer(raw, "<i2").astype(np.int16)
    if rate == RATE:
        return pcm
    if rate != 8000:
        raise ValueError(f"{path}: unexpected rate {rate}")
    y = resample_poly(pcm.astype(np.float64), 2, 1)
    return np.clip(np.round(y), -32768, 32767).astype(np.int16)


# ---- features and alignment -------------------------------------------------------------------------------

def _mel_matrix() -> np.ndarray:
    def mel(f):
        return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)
    edges = 700.0 * (10 ** (np.linspace(mel(BAND_HZ[0]), mel(BAND_HZ[1]), N_BANDS + 2) / 2595.0) - 1.0)
    freqs = np.arange(NFFT // 2 + 1) * RATE / NFFT
    m = np.zeros((N_BANDS, len(freqs)))
    for b in range(N_BANDS):
        lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
        m[b] = np.clip(np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)), 0, None)
    return m


_MEL = _mel_matrix()
_HANN = 0.5 - 0.5 * np.cos(2 * np.pi * (np.arange(WINDOW) + 0.5) / WINDOW)


def frame_count(n_samples: int) -> int:
    return max(0, 1 + (n_samples - WINDOW) // HOP)


def frame_time(i: float) -> float:
    """Centre of frame i in seconds."""
    return (i * HOP + WINDOW / 2) / RATE


def log_bands(x: np.ndarray) -> np.ndarray:
    """(frames, N_BANDS) log energies (dB) of the 250-3800 Hz band, 25 ms windows every 10 ms."""
    x = np.asarray(x, dtype=np.float64)
    n = frame_count(len(x))
    if n == 0:
        return np.zeros((0, N_BANDS))
    idx = np.arange(WINDOW)[None, :] + HOP * np.arange(n)[:, None]
    spec = np.abs(np.fft.rfft(x[idx] * _HANN, NFFT)) ** 2
    return 10 * np.log10(spec @ _MEL.T + 1e-3)


def cepstra(bands: np.ndarray) -> np.ndarray:
    """Cepstra c0..c12 of log bands, each normalised to zero mean and unit variance over the clip (so two
    recordings of different channels and levels compare)."""
    c = dct(bands, type=2, norm="ortho", axis=1)[:, :N_CEPS]
    return (c - c.mean(0)) / (c.std(0) + 1e-6)


def distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) root-mean-square distance between the rows of a (n, d) and b (m, d)."""
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * (a @ b.T)
    return np.sqrt(np.maximum(d2, 0.0) / a.shape[1])


def speech_span(bands: np.ndarray) -> tuple[int, int]:
    """First and one-past-last frame whose level is within SPEECH_BELOW_PEAK_DB of the clip's loud level."""
    level = 10 * np.log10(np.sum(10 ** (bands / 10), axis=1) + 1e-9)
    if len(level) == 0:
        return 0, 0
    loud = np.flatnonzero(level > np.percentile(level, 98) - SPEECH_BELOW_PEAK_DB)
    return int(loud[0]), int(loud[-1]) + 1


def silent_stretches(bands: np.ndarray, min_s: float = PAUSE_MIN_S) -> list[tuple[float, float]]:
    """[(start_s, end_s)] of the runs of at least `min_s` of silent frames (below both the loud level minus
    SPEECH_BELOW_PEAK_DB + 5 dB and the noise floor plus 10 dB, whichever is higher)."""
    level = 10 * np.log10(np.sum(10 ** (bands / 10), axis=1) + 1e-9)
    if len(level) == 0:
        return []
    threshold = max(np.percentile(level, 98) - SPEECH_BELOW_PEAK_DB + 5.0, np.percentile(level, 5) + 10.0)
    quiet = level < threshold
    out, k = [], 0
    while k < len(quiet):
        if quiet[k]:
            j = k
            while j < len(quiet) and quiet[j]:
                j += 1
            a, b = frame_time(k) - HOP / RATE / 2, frame_time(j - 1) + HOP / RATE / 2
            if b - a >= min_s:
                out.append((max(0.0, a), b))
            k = j
        else:
            k += 1
    return out


def carve_pauses(phones: Sequence[Phone], stretches: Sequence[tuple[float, float]],
                 closure_s: float = 0.08) -> list[Phone]:
    """The recording's own pauses (silent stretches) labelled `sil`, whatever the synthesis had there: phones
    overlapping a stretch are cut back to outside it; a p, b or m that overlapped it keeps the last `closure_s`
    of the stretch (its closure, before the release that follows the pause)."""
    out = [tuple(p) for p in phones]
    for a, b in stretches:
        new: list[Phone] = []
        keep_bilabial = None
        for s, e, p in out:
            if e <= a or s >= b:
                new.append((s, e, p))
                continue
            if p in ("p", "b", "m"):
                keep_bilabial = p
            if s < a:
                new.append((s, a, p))
            if e > b:
                new.append((b, e, p))
        if not new:
            continue
        ins: list[Phone] = [(a, b, "sil")]
        if keep_bilabial:
            c = max(a, b - closure_s)
            ins = ([(a, c, "sil")] if c > a else []) + [(c, b, keep_bilabial)]
        merged = sorted(new + ins, key=lambda x: x[0])
        out = []
        for s, e, p in merged:
            if out and out[-1][2] == p and abs(out[-1][1] - s) < 1e-9:
                out[-1] = (out[-1][0], e, p)
            elif e - s > 1e-9:
                out.append((s, e, p))
    return [(round(s, 4), round(e, 4), p) for s, e, p in out]


SNAP_SEARCH_S = 0.05          # a bilabial's closure is looked for within this of the DTW midpoint
SNAP_HZ = (1000.0, 3800.0)    # the closure's band: a p or b is silent there, an m's murmur is weak there
SNAP_DEPTH = 0.5              # the closure: frames below min + SNAP_DEPTH * (neighbouring peak - min), in dB
SNAP_MIN_S, SNAP_MAX_S = 0.04, 0.2
SNAP_GAIN_DB = 3.0            # anchor mode: moved only when the closure found is this much quieter than the anchor


def closure_level(bands: np.ndarray) -> np.ndarray:
    """Per frame, the level (dB) of the mel bands centred in SNAP_HZ (from `log_bands`)."""
    edges = 700.0 * (10 ** (np.linspace(2595.0 * np.log10(1.0 + BAND_HZ[0] / 700.0),
                                         2595.0 * np.log10(1.0 + BAND_HZ[1] / 700.0), N_BANDS + 2) / 2595.0) - 1.0)
    sel = (edges[1:-1] >= SNAP_HZ[0]) & (edges[1:-1] <= SNAP_HZ[1])
    return 10 * np.log10(np.sum(10 ** (bands[:, sel] / 10), axis=1) + 1e-9)


def snap_bilabials(phones: Sequence[Phone], level: np.ndarray, mode: str = "anchor",
                   anchors: Sequence[float] = ()) -> list[Phone]:
    """Each p, b and m moved onto the recording's closure, the quietest frame of `level` (`closure_level`)
    near where the DTW put it. Mode "anchor" (the default of `align`): `anchors` are the recording times where
    the DTW path carries the quietest frame of each bilabial of the synthesis; the phone (its DTW length kept)
    is shifted by the distance from its anchor to the quietest recording frame within SNAP_SEARCH_S of it, so
    the closure sits where it sits in espeak-ng's phone (espeak-ng's p, like the training data's, is closure and
    release). Mode "centre": the phone centred on the quietest frame within SNAP_SEARCH_S of its midpoint.
    Mode "stretch": the low-energy run around that frame (frames below min + SNAP_DEPTH * (the louder
    neighbourhood's peak - min), SNAP_MIN_S to SNAP_MAX_S) becomes the phone. The neighbours give or take the
    time, never shrinking below 10 ms; a bilabial after `sil` is left as it is (`carve_pauses` put it at the
    pause's end) and one before `sil` never grows into it."""
    out = [list(p) for p in phones]
    n = len(level)
    if n == 0:
        return [tuple(p) for p in out]

    def frame(t):
        return (t * RATE - WINDOW / 2) / HOP
    for k, (s, e, p) in enumerate(out):
        if p not in ("p", "b", "m") or k == 0 or k == len(out) - 1 or out[k - 1][2] == "sil":
            continue
        s, e = out[k][0], out[k][1]
        mid = frame((s + e) / 2)
        if mode == "anchor":
            near = [t for t in anchors if s - 0.02 <= t <= e + 0.02]
            if not near:
                continue
            mid = frame(min(near, key=lambda t: abs(t - (s + e) / 2)))
        r = SNAP_SEARCH_S * RATE / HOP
        lo, hi = max(0, int(np.ceil(mid - r))), min(n - 1, int(np.floor(mid + r)))
        if hi < lo:
            continue
        i = lo + int(np.argmin(level[lo:hi + 1]))
        if mode == "anchor":
            at = int(round(min(max(mid, 0), n - 1)))
            if level[at] - level[i] < SNAP_GAIN_DB:
                continue
            shift = (i - mid) * HOP / RATE
            a, b = s + shift, e + shift
        elif mode == "centre":
            half = (e - s) / 2
            a, b = frame_time(i) - half, frame_time(i) + half
        else:
            span = int(round(SNAP_MAX_S * RATE / HOP))
            left = level[max(0, i - span):i + 1].max()
            right = level[i:min(n, i + span + 1)].max()
            thr = level[i] + SNAP_DEPTH * (min(left, right) - level[i])
            j0 = j1 = i
            while j0 > 0 and level[j0 - 1] < thr and (j1 - j0 + 2) * HOP / RATE <= SNAP_MAX_S:
                j0 -= 1
            while j1 < n - 1 and level[j1 + 1] < thr and (j1 - j0 + 2) * HOP / RATE <= SNAP_MAX_S:
                j1 += 1
            a, b = frame_time(j0) - HOP / RATE / 2, frame_time(j1) + HOP / RATE / 2
            if b - a < SNAP_MIN_S:
                c = (a + b) / 2
                a, b = c - SNAP_MIN_S / 2, c + SNAP_MIN_S / 2
        a = max(a, out[k - 1][0] + 0.01)
        b = min(b, out[k + 1][1] - 0.01, e if out[k + 1][2] == "sil" else np.inf)
        if b - a < 0.01:
            continue
        out[k - 1][1] = out[k][0] = round(a, 4)
        out[k + 1][0] = out[k][1] = round(b, 4)
    return [tuple(p) for p in out]


def dtw(cost: np.ndarray, penalty: float | None = None) -> tuple[np.ndarray, float]:
    """Dynamic time warping over a (n, m) cost matrix from (0, 0) to (n-1, m-1), steps (1,1), (1,0) and (0,1),
    the last two with an extra `penalty`. Row by row, vectorised: within a row the horizontal steps are a
    running minimum. Returns the path ((k, 2) int array of (row, column)) and its mean cost per step."""
    penalty = STEP_PENALTY if penalty is None else penalty
    n, m = cost.shape
    acc = np.full((n, m), np.inf)
    move = np.zeros((n, m), np.int8)   # 0 diagonal, 1 from the row above, 2 from the left
    row = np.cumsum(cost[0] + penalty) - penalty
    acc[0] = row
    move[0, 1:] = 2
    for i in range(1, n):
        diag = np.full(m, np.inf)
        diag[1:] = acc[i - 1, :-1]
        up = acc[i - 1] + penalty
        a = np.minimum(diag, up) + cost[i]
        came_up = up < diag
        s = np.cumsum(cost[i] + penalty)
        best = np.minimum.accumulate(a - s) + s
        left = best < a - 1e-12
        acc[i] = np.where(left, best, a)
        move[i] = np.where(left, 2, np.where(came_up, 1, 0))
    i, j = n - 1, m - 1
    path = [(i, j)]
    while i > 0 or j > 0:
        mv = move[i, j]
        if mv == 0:
            i, j = i - 1, j - 1
        elif mv == 1:
            i -= 1
        else:
            j -= 1
        path.append((i, j))
    path_arr = np.array(path[::-1])
    return path_arr, float(acc[n - 1, m - 1] / len(path_arr))


def map_times(path: np.ndarray, times: Sequence[float], offset_src: int, offset_dst: int) -> list[float]:
    """Carries times (s) of the source (the path's column, the synthesis) over to the destination (its row, the
    recording): a source frame's time goes to the mean destination frame paired with it. Offsets: the frame
    index where each trimmed span starts."""
    cols = path[:, 1]
    out = []
    for t in times:
        j = (t * RATE - WINDOW / 2) / HOP - offset_src
        j = min(max(j, 0.0), float(cols[-1]))
        lo = int(np.floor(j))
        hi = min(lo + 1, int(cols[-1]))
        a = path[cols == lo, 0].mean()
        b = path[cols == hi, 0].mean()
        i = a + (b - a) * (j - lo)
        out.append(frame_time(i + offset_dst))
    return out


def align(recording: np.ndarray, synth: np.ndarray, synth_phones: Sequence[Phone],
          snap: str | None = "anchor") -> tuple[list[Phone], dict]:
    """Phones of `recording` (int16 or float, 16 kHz) from a synthesis of the same text and its phones: the
    speech spans of both (silence trimmed at the ends) are aligned by DTW on band cepstra, the synthesis'
    boundaries carried over; the recording's ends are `sil`. Returns the phones (contiguous, 0 to its length)
    and {"cost", "ratio"} (mean path cost, recording speech / synthesis speech duration)."""
    rec = np.asarray(recording, dtype=np.float64)
    syn = np.asarray(synth, dtype=np.float64)
    if np.abs(syn).max() <= 1.0:
        syn = syn * 32768.0
    rb, sb = log_bands(rec), log_bands(syn)
    r0, r1 = speech_span(rb)
    speech = [p for p in synth_phones if p[2] != "sil"]
    if not speech or r1 - r0 < 3:
        raise ValueError("nothing to align")
    s_start, s_end = speech[0][0], speech[-1][1]
    s0 = max(0, int(round((s_start * RATE - WINDOW / 2) / HOP)))
    s1 = min(len(sb), int(round((s_end * RATE - WINDOW / 2) / HOP)) + 1)
    rc, sc = cepstra(rb[r0:r1]), cepstra(sb[s0:s1])
    cost = distances(rc, sc)
    path, mean_cost = dtw(cost)
    inner = [p for p in synth_phones if p[1] > s_start and p[0] < s_end]
    bounds = [max(inner[0][0], s_start)] + [p[1] for p in inner[:-1]] + [min(inner[-1][1], s_end)]
    mapped = map_times(path, bounds, s0, r0)
    duration = len(rec) / RATE
    mapped[0] = max(0.0, frame_time(r0) - HOP / RATE / 2)
    mapped[-1] = min(duration, frame_time(r1 - 1) + HOP / RATE / 2)
    mapped = list(np.maximum.accumulate(mapped))
    phones: list[Phone] = []
    if mapped[0] > 0:
        phones.append((0.0, round(mapped[0], 4), "sil"))
    for k, (_, _, name) in enumerate(inner):
        s, e = round(mapped[k], 4), round(mapped[k + 1], 4)
        if e - s < 0.001:
            continue
        if phones and phones[-1][2] == name == "sil":
            phones[-1] = (phones[-1][0], e, "sil")
        else:
            phones.append((s, e, name))
    if phones[-1][1] < duration:
        if phones[-1][2] == "sil":
            phones[-1] = (phones[-1][0], round(duration, 4), "sil")
        else:
            phones.append((phones[-1][1], round(duration, 4), "sil"))
    # contiguous from 0
    fixed: list[Phone] = []
    for s, e, name in phones:
        s = fixed[-1][1] if fixed else 0.0
        if e > s:
            fixed.append((s, e, name))
    fixed = carve_pauses(fixed, silent_stretches(rb))
    if snap:
        sl = closure_level(sb)
        anchors = []
        for ps, pe, name in inner:
            if name in ("p", "b", "m"):
                f0 = max(s0, int(np.ceil((ps * RATE - WINDOW / 2) / HOP)))
                f1 = min(s1 - 1, int(np.floor((pe * RATE - WINDOW / 2) / HOP)))
                if f1 >= f0:
                    anchors.append(frame_time(f0 + int(np.argmin(sl[f0:f1 + 1]))))
        anchors = map_times(path, anchors, s0, r0) if anchors else []
        fixed = snap_bilabials(fixed, closure_level(rb), snap, anchors)
    ratio = ((r1 - r0) * HOP / RATE) / max(s_end - s_start, 1e-3)
    return fixed, {"cost": round(mean_cost, 4), "ratio": round(ratio, 3)}


def speech_seconds(x: np.ndarray) -> float:
    b = log_bands(np.asarray(x, dtype=np.float64) * (32768.0 if np.abs(x).max() <= 1.0 else 1.0))
    r0, r1 = speech_span(b)
    return (r1 - r0) * HOP / RATE


def synth_matched(engine, text: str, voice: str, target_s: float, rate: int = 160):
    """espeak-ng's synthesis of `text`, its speaking rate set so that its speech lasts about `target_s`."""
    y, ph = engine.synth(text, voice, rate, 50, 50)
    have = speech_seconds(y)
    if have > 0 and target_s > 0:
        new = int(np.clip(round(rate * have / target_s), *RATE_LIMITS))
        if abs(new - rate) > 8:
            rate = new
            y, ph = engine.synth(text, voice, rate, 50, 50)
    return y, ph, rate


# ---- the data set -------------------------------------------------------------------------------------------

def item_id(voice: Voice, prompt: str, band: str) -> str:
    return f"ast-{voice.speaker}-{band}-" + re.sub(r"[^A-Za-z0-9]+", "_", prompt)


def _work(args) -> list[dict]:
    """One voice's prompts (one process per task: libespeak-ng is a per-process singleton)."""
    root, out, voice, prompts = args
    import synth_espeak
    engine = synth_espeak.Espeak(ipa=True)
    texts = load_texts(root, voice.language)
    files = recordings(root, voice)
    results = []
    for prompt in prompts:
        rec = decode(files[prompt])
        entry = {"speaker": voice.speaker, "prompt": prompt}
        try:
            y, ph, rate = synth_matched(engine, texts[prompt], ESPEAK_VOICES[voice.language], speech_seconds(rec))
            phones, info = align(rec, y, ph)
        except (ValueError, KeyError) as e:
            results.append({**entry, "left_out": f"alignment failed: {e}"})
            continue
        info["espeak_rate"] = rate
        if info["cost"] > MAX_COST or not 0.5 <= info["ratio"] <= 2.0:
            results.append({**entry, "left_out": f"cost {info['cost']}, ratio {info['ratio']}"})
            continue
        bands = [("16k" if voice.extension == "g722" else "8k", rec)]
        if voice.package_8k:
            other = os.path.join(root, voice.package_8k, SOUNDS, voice.directory, prompt + ".wav")
            if os.path.exists(other):
                pcm8 = decode(other)
                if abs(len(pcm8) - len(rec)) <= 160:
                    bands.append(("8k", _fit(pcm8, len(rec))))
        for band, pcm in bands:
            uid = item_id(voice, prompt, band)
            wavio.write_pcm(os.path.join(out, uid + ".wav"), pcm, RATE)
            meta = {"id": uid, "split": voice.split, "speaker": voice.speaker, "language": voice.language,
                    "band": band, "source": "asterisk", "package": voice.package if band != "8k" or not
                    voice.package_8k else voice.package_8k, "licence": voice.licence, "prompt": prompt,
                    "style": "telephone prompt", "transcript": texts[prompt], "text": texts[prompt],
                    "sample_rate": RATE, "samples": int(len(pcm)), "align": info,
                    "phones": [[round(s, 4), round(e, 4), p] for s, e, p in phones]}
            with open(os.path.join(out, uid + ".json"), "w", encoding="utf-8") as f:
                json.dump(meta, f, ensure_ascii=False)
            results.append({"id": uid, "speaker": voice.speaker, "language": voice.language, "band": band,
                             "split": voice.split, "seconds": round(len(pcm) / RATE, 3), **info})
    return results


def _fit(x: np.ndarray, n: int) -> np.ndarray:
    return x[:n] if len(x) >= n else np.concatenate([x, np.zeros(n - len(x), np.int16)])


def plan(root: str, limit: int | None = None, min_phones: int = 3) -> list[tuple[Voice, list[str]]]:
    """Per voice, the prompts that have a text (sorted; the first `limit` when given)."""
    out = []
    for v in VOICES:
        texts = load_texts(root, v.language)
        names = sorted(p for p in recordings(root, v) if p in texts and len(texts[p]) >= min_phones)
        out.append((v, names[:limit] if limit else names))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default="build/asterisk", help="downloaded and unpacked packages")
    ap.add_argument("--out", default="build/lipsync-asterisk")
    ap.add_argument("--limit", type=int, help="at most this many prompts per voice")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fetch-only", action="store_true")
    a = ap.parse_args(argv)
    root = fetch(a.cache)
    if a.fetch_only:
        return 0
    items = os.path.join(a.out, "items")
    os.makedirs(items, exist_ok=True)
    tasks = []
    for v, names in plan(root, a.limit):
        for k in range(0, len(names), 60):
            tasks.append((root, items, v, names[k:k + 60]))
    results: list[dict] = []
    with mp.get_context("fork").Pool(a.jobs, maxtasksperchild=1) as pool:
        for part in pool.imap(_work, tasks):
            results += part
    kept = [r for r in results if "left_out" not in r]
    left = [r for r in results if "left_out" in r]
    with open(os.path.join(a.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"voices": [dataclasses.asdict(v) for v in VOICES], "items": kept, "left_out": left}, f,
                  ensure_ascii=False, indent=0)
    for v in VOICES:
        mine = [r for r in kept if r["speaker"] == v.speaker]
        for band in ("16k", "8k"):
            sel = [r for r in mine if r["band"] == band]
            if sel:
                print(f"{v.speaker:20s} {v.language} {v.split:5s} {band}: {len(sel):4d} items, "
                      f"{sum(r['seconds'] for r in sel) / 60:5.1f} min, median cost "
                      f"{np.median([r['cost'] for r in sel]):.3f}")
        n_left = sum(1 for r in left if r["speaker"] == v.speaker)
        if n_left:
            print(f"{'':20s} {n_left} prompts left out")
    return 0




# ---- checking the aligner ----------------------------------------------------------------------------------

def boundaries(phones: Sequence[Sequence]) -> list[float]:
    """Inner boundaries of a phone list (where the phone changes)."""
    return [float(phones[k][1]) for k in range(len(phones) - 1) if phones[k][2] != phones[k + 1][2]]


def boundary_errors(ref: Sequence[Sequence], hyp: Sequence[Sequence]) -> list[float]:
    """Per boundary of `ref`, the distance (s) to the nearest boundary of `hyp`."""
    hb = np.array(boundaries(hyp))
    if len(hb) == 0:
        return [float("inf")] * len(boundaries(ref))
    return [float(np.abs(hb - t).min()) for t in boundaries(ref)]


def _label_at(phones: Sequence[Sequence], t: float) -> str:
    for s, e, p in phones:
        if s <= t < e:
            return p
    return "sil"


def bilabial_hits(ref: Sequence[Sequence], hyp: Sequence[Sequence], tolerance: float = 0.02) -> tuple[int, int]:
    """(hits, total): the p, b and m of `ref` whose midpoint (+-`tolerance`) `hyp` labels p, b or m."""
    hits = total = 0
    for s, e, p in ref:
        if p not in ("p", "b", "m"):
            continue
        total += 1
        mid = (s + e) / 2
        if any(_label_at(hyp, mid + d) in ("p", "b", "m") for d in (-tolerance, 0.0, tolerance)):
            hits += 1
    return hits, total


def bilabial_offsets(ref: Sequence[Sequence], hyp: Sequence[Sequence]) -> list[float]:
    """Per p, b and m of `ref`, the distance (s) from its midpoint to the nearest p, b or m midpoint of `hyp`."""
    mids = np.array([(s + e) / 2 for s, e, p in hyp if p in ("p", "b", "m")])
    return [float(np.abs(mids - (s + e) / 2).min()) if len(mids) else float("inf")
            for s, e, p in ref if p in ("p", "b", "m")]


def pause_agreement(ref: Sequence[Sequence], hyp: Sequence[Sequence], min_s: float = 0.15) -> tuple[int, int]:
    """(agreeing, total) 10 ms frames inside the pauses of `ref` (sil of `min_s` or more) that `hyp` labels sil."""
    agree = total = 0
    for s, e, p in ref:
        if p != "sil" or e - s < min_s:
            continue
        for t in np.arange(s + 0.005, e, 0.01):
            total += 1
            agree += _label_at(hyp, float(t)) == "sil"
    return agree, total


def summarise_check(rows: list[dict]) -> dict:
    errs = np.array([x for r in rows for x in r["errors"]])
    hits = sum(r["bilabial"][0] for r in rows)
    tot = sum(r["bilabial"][1] for r in rows)
    offs = np.array([x for r in rows for x in r.get("bilabial_offsets", [])])
    pa = sum(r["pauses"][0] for r in rows)
    pt = sum(r["pauses"][1] for r in rows)
    return {"clips": len(rows), "boundaries": int(len(errs)),
            "median_ms": round(1000 * float(np.median(errs)), 1) if len(errs) else None,
            "p90_ms": round(1000 * float(np.percentile(errs, 90)), 1) if len(errs) else None,
            "within_20ms": round(float(np.mean(errs <= 0.02)), 3) if len(errs) else None,
            "within_40ms": round(float(np.mean(errs <= 0.04)), 3) if len(errs) else None,
            "bilabials": [hits, tot], "bilabial_share": round(hits / tot, 3) if tot else None,
            "bilabial_offset_median_ms": round(1000 * float(np.median(offs)), 1) if len(offs) else None,
            "bilabial_offset_within_40ms": round(float(np.mean(offs <= 0.04)), 3) if len(offs) else None,
            "pause_frames": [pa, pt], "pause_share": round(pa / pt, 3) if pt else None}


def check_english(directory: str, voice: str = "en-us", plots: str | None = None, limit: int | None = None,
                  splits: Sequence[str] = ("val", "train"), snap: str | None = "anchor") -> dict:
    """The DTW aligner (espeak-ng `voice`, English mnemonics) against the existing labels of English items
    (the real clips' PocketSphinx alignments, or synthetic items' exact timings): boundary errors, bilabials,
    pauses."""
    import glob
    import synth_espeak
    engine = synth_espeak.Espeak(ipa=False)
    rows = []
    paths = sorted(glob.glob(os.path.join(directory, "*.json")))
    for path in paths[:limit] if limit else paths:
        meta = json.load(open(path, encoding="utf-8"))
        if meta.get("split", "val") not in splits or not meta.get("text"):
            continue
        pcm, rate = wavio.read_pcm(path[:-5] + ".wav")
        if rate != RATE:
            continue
        try:
            y, ph, _ = synth_matched(engine, meta["text"], voice, speech_seconds(pcm))
            hyp, info = align(pcm, y, ph, snap=snap)
        except ValueError:
            continue
        ref = meta["phones"]
        rows.append({"id": meta["id"], "errors": boundary_errors(ref, hyp), "bilabial": bilabial_hits(ref, hyp),
                     "bilabial_back": bilabial_hits(hyp, ref),
                     "bilabial_offsets": bilabial_offsets(ref, hyp), "pauses": pause_agreement(ref, hyp), **info})
        if plots:
            plot(os.path.join(plots, meta["id"] + ".png"), pcm, ref, hyp, meta["id"])
    return {"summary": summarise_check(rows), "rows": rows}


def plot(path: str, pcm: np.ndarray, ref: Sequence[Sequence], hyp: Sequence[Sequence], title: str) -> None:
    """A log spectrogram (0-8 kHz) with the reference phones above and the DTW phones below."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    x = np.asarray(pcm, dtype=np.float64)
    n = frame_count(len(x))
    idx = np.arange(WINDOW)[None, :] + HOP * np.arange(n)[:, None]
    spec = 10 * np.log10(np.abs(np.fft.rfft(x[idx] * _HANN, NFFT)) ** 2 + 1e-3).T
    dur = len(x) / RATE
    fig, (top, ax, bottom) = plt.subplots(3, 1, figsize=(max(8.0, dur * 4.0), 4.6), dpi=90, sharex=True,
                                          gridspec_kw={"height_ratios": [1, 6, 1]})
    ax.imshow(spec, origin="lower", aspect="auto", extent=(0, dur, 0, 8000), cmap="gray_r",
              vmin=spec.max() - 70, vmax=spec.max())
    for strip, phones, colour in ((top, ref, "tab:blue"), (bottom, hyp, "tab:red")):
        strip.set_ylim(0, 1)
        strip.set_yticks([])
        for s, e, p in phones:
            strip.axvline(s, color=colour, lw=1.0)
            ax.axvline(s, ymin=0.93 if strip is top else 0.0, ymax=1.0 if strip is top else 0.07, color=colour, lw=1.0)
            if p != "sil":
                bil = p in ("p", "b", "m")
                strip.text((s + e) / 2, 0.5, p, color=colour, ha="center", va="center", fontsize=8,
                           weight="bold" if bil else "normal",
                           bbox={"facecolor": "yellow", "edgecolor": "none", "pad": 1} if bil else None)
    top.set_title(f"{title}: reference (blue, top), DTW (red, bottom)")
    bottom.set_xlabel("s")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def check_main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="the DTW aligner against existing English labels")
    ap.add_argument("directory", help="tools/lipsync/real or build/lipsync-data/val")
    ap.add_argument("--voice", default="en-us")
    ap.add_argument("--plots", help="write spectrogram PNGs here")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json-out")
    ap.add_argument("--snap", choices=("anchor", "stretch", "centre", "none"), default="anchor",
                    help="bilabials moved onto the recording's closure (snap_bilabials), or not")
    ap.add_argument("--split", choices=("val", "train", "all"), default="all")
    a = ap.parse_args(argv)
    res = check_english(a.directory, a.voice, a.plots, a.limit,
                        ("val", "train") if a.split == "all" else (a.split,), None if a.snap == "none" else a.snap)
    for r in res["rows"]:
        e = np.array(r["errors"])
        print(f"{r['id'][:40]:40s} median {1000 * np.median(e):5.0f} ms  p90 {1000 * np.percentile(e, 90):5.0f} ms"
              f"  bilabials {r['bilabial'][0]}/{r['bilabial'][1]}  pauses {r['pauses'][0]}/{r['pauses'][1]}"
              f"  cost {r['cost']}")
    print(json.dumps(res["summary"]))
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(res, f, indent=1)
    return 0


def select_eval(metas: Sequence[dict], per_group: int, min_s: float = 1.5) -> list[dict]:
    """The held-out items the eval renders: per speaker, the `per_group` prompts of at least `min_s` with a
    p, b or m and the lowest DTW cost (the labels most likely right), taken in every band the speaker has."""
    out = []
    speakers = sorted({m["speaker"] for m in metas if m["split"] == "val"})
    for sp in speakers:
        mine = [m for m in metas if m["speaker"] == sp and m["split"] == "val"]
        by_prompt: dict[str, list[dict]] = {}
        for m in mine:
            by_prompt.setdefault(m["prompt"], []).append(m)

        def fits(m):
            return (m["samples"] / RATE >= min_s and any(p in ("p", "b", "m") for _, _, p in m["phones"]))
        prompts = sorted((min(x["align"]["cost"] for x in v), k) for k, v in by_prompt.items()
                         if any(fits(x) for x in v))
        for _, k in prompts[:per_group]:
            out += sorted(by_prompt[k], key=lambda m: m["id"])
    return out


def evalset_main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="the held-out speakers' prompts for eval.py --real")
    ap.add_argument("--items", default="build/lipsync-asterisk/items")
    ap.add_argument("--out", default="build/lipsync-asterisk/eval")
    ap.add_argument("--per-speaker", type=int, default=12)
    a = ap.parse_args(argv)
    import glob
    metas = [json.load(open(p, encoding="utf-8")) for p in sorted(glob.glob(os.path.join(a.items, "*.json")))]
    chosen = select_eval(metas, a.per_speaker)
    os.makedirs(a.out, exist_ok=True)
    for m in chosen:
        for ext in (".wav", ".json"):
            dst = os.path.join(a.out, m["id"] + ext)
            if os.path.lexists(dst):
                os.remove(dst)
            os.symlink(os.path.abspath(os.path.join(a.items, m["id"] + ext)), dst)
    groups: dict[str, int] = {}
    for m in chosen:
        groups[f"{m['speaker']} {m['band']}"] = groups.get(f"{m['speaker']} {m['band']}", 0) + 1
    print(f"{len(chosen)} clips in {a.out}: " + ", ".join(f"{k} {v}" for k, v in groups.items()))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "check":
        sys.exit(check_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "evalset":
        sys.exit(evalset_main(sys.argv[2:]))
    sys.exit(main())
