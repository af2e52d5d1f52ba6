"""Lip-sync measured through the real interface: held-out utterances rendered by libessence2.so, mouth
openness read from the output pixels, compared with the phones' expected openness. See docs/lipsync.md.

    python3 tools/lipsync/eval.py --lib .build/release/libessence2.so --avatar avatars/grace-hopper.imx \
        --data build/lipsync-data/val --cli build/essence2 [--json] [--no-per-utterance] [--no-robustness]

Every utterance is rendered twice from the same run, once per lip-sync model (be_essence2_set_lipsync:
LEARNED and V1), through ctypes against include/essence2.h in UNPACED pacing: push the utterance,
end_utterance, pull every frame; the SPEECH frames are measured (frame k shows audio [640k, 640k+640)).
Needs numpy only; the robustness part (tools/lipsync/robustness.py) also uses scipy for resampling and,
for the 24/48 kHz sources, the `essence2` command (--cli).
"""

import argparse
import ctypes
import json
import os
import struct
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import targets as tg  # noqa: E402
import wavio  # noqa: E402

FPS = 25
RATE = 16000
SPF = 640
RING = 256000
FRAME_IDLE, FRAME_SPEECH, FRAME_RAMP = 0, 1, 2
PACING_UNPACED = 1
MODELS = {"learned": 0, "v1": 1}  # BE_ESSENCE2_LIPSYNC_LEARNED, BE_ESSENCE2_LIPSYNC_V1
SEED = 0x5EED

CLOSED = 0.10          # normalised openness at or below this is the closed band
PAUSE_MIN = 0.150      # seconds: silences at least this long are pauses
LAGS = range(-2, 3)    # frames; lag L compares measured[t + L] with expected[t]: L = -1 means the mouth leads
BILABIALS = ("p", "b", "m")


# ---- the library ------------------------------------------------------------------------------------------

class Library:
    """libessence2.so through ctypes, with the signatures of include/essence2.h."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(os.path.abspath(path))
        H, I32, I64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
        sig = {
            "be_essence2_create": (I32, [ctypes.c_char_p, ctypes.c_char_p, I32, ctypes.POINTER(H)]),
            "be_essence2_destroy": (I32, [H]),
            "be_essence2_set_pacing": (I32, [H, I32]),
            "be_essence2_set_seed": (I32, [H, ctypes.c_uint64]),
            "be_essence2_set_lipsync": (I32, [H, I32]),
            "be_essence2_get_info": (I32, [H, ctypes.POINTER(I32), ctypes.POINTER(I32)]),
            "be_essence2_push_audio": (I32, [H, ctypes.POINTER(ctypes.c_int16), I32]),
            "be_essence2_end_utterance": (I32, [H]),
            "be_essence2_pull_frame": (I32, [H, ctypes.c_void_p, I32]),
            "be_essence2_last_frame_kind": (I32, [H]),
            "be_essence2_last_error": (I32, [ctypes.c_char_p, I32]),
            "be_essence2_quiesce_all": (I32, [I32]),
            "be_essence2_version": (ctypes.c_char_p, []),
        }
        for name, (res, args) in sig.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args

    def error(self):
        buf = ctypes.create_string_buffer(512)
        self.lib.be_essence2_last_error(buf, 512)
        return buf.value.decode("utf-8", "replace")


class Session:
    """One engine in UNPACED pacing with a fixed idle seed and one lip-sync model."""

    def __init__(self, library, avatar, model, seed=SEED):
        self.L = library
        lib = library.lib
        self.h = ctypes.c_void_p()
        rc = lib.be_essence2_create(avatar.encode(), None, 0, ctypes.byref(self.h))
        if rc != 0:
            raise RuntimeError(f"be_essence2_create({avatar}): {rc}: {library.error()}")
        for call, arg in (("set_pacing", PACING_UNPACED), ("set_seed", seed), ("set_lipsync", MODELS[model])):
            rc = getattr(lib, "be_essence2_" + call)(self.h, arg)
            if rc != 0:
                raise RuntimeError(f"be_essence2_{call}({arg}): {rc}: {library.error()}")
        w, h = ctypes.c_int32(), ctypes.c_int32()
        lib.be_essence2_get_info(self.h, ctypes.byref(w), ctypes.byref(h))
        self.width, self.height = w.value, h.value
        self.bytes = self.width * self.height * 3
        self.buf = (ctypes.c_uint8 * self.bytes)()
        self.view = np.frombuffer(self.buf, np.uint8).reshape(self.height, self.width, 3)

    def _pull(self):
        got = self.L.lib.be_essence2_pull_frame(self.h, self.buf, self.bytes)
        if got < 0:
            raise RuntimeError(f"be_essence2_pull_frame: {got}: {self.L.error()}")
        return self.L.lib.be_essence2_last_frame_kind(self.h) if got > 0 else None

    def rest_frame(self, timeout=10.0):
        """The first idle frame (mouth at rest), B,G,R."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._pull() == FRAME_IDLE:
                return self.view.copy()
            time.sleep(0.001)
        raise RuntimeError("no idle frame within %.0f s" % timeout)

    def render(self, pcm, box, timeout=120.0):
        """Pushes one utterance (int16), ends it, pulls until idle; returns its SPEECH frames cropped to box."""
        lib = self.L.lib
        x0, y0, x1, y1 = box
        pcm = np.ascontiguousarray(pcm, dtype=np.int16)
        crops, pushed, ended, reply_seen = [], 0, False, False
        deadline = time.monotonic() + timeout
        while True:
            progressed = False
            while pushed < len(pcm):
                n = min(len(pcm) - pushed, RING // 4)
                chunk = pcm[pushed:pushed + n]
                rc = lib.be_essence2_push_audio(self.h, chunk.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)), n)
                if rc == -2:
                    break
                if rc != 0:
                    raise RuntimeError(f"be_essence2_push_audio: {rc}: {self.L.error()}")
                pushed += n
                progressed = True
            if pushed == len(pcm) and not ended:
                lib.be_essence2_end_utterance(self.h)
                ended = True
            kind = self._pull()
            if kind is not None:
                progressed = True
                if kind == FRAME_SPEECH:
                    crops.append(self.view[y0:y1, x0:x1].copy())
                    reply_seen = True
                elif kind == FRAME_RAMP:
                    reply_seen = True
                elif ended and reply_seen:
                    break
            if not progressed:
                if time.monotonic() > deadline:
                    raise RuntimeError("the reply did not end within %.0f s" % timeout)
                time.sleep(0.0005)
        return np.stack(crops) if crops else np.zeros((0, y1 - y0, x1 - x0, 3), np.uint8)

    def close(self):
        if self.h:
            self.L.lib.be_essence2_destroy(self.h)
            self.h = None


# ---- the avatar file: mouth box and lip outlines ---------------------------------------------------------

def read_imx_mouth(path):
    """(mouth box (x, y, w, h), outer lip points (20, 2), inner lip points (20, 2), (width, height)) of an .imx
    file, from its `landmarks` section (docs/imx-format.md)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89IMX\r\n\x1a\n":
        raise ValueError(f"{path}: not an .imx file")
    count = struct.unpack_from("<I", data, 12)[0]
    width, height = struct.unpack_from("<II", data, 24)
    for i in range(count):
        e = 64 + 80 * i
        name = data[e:e + 16].rstrip(b"\0").decode()
        encoding, _, offset, stored, length = struct.unpack_from("<IIQQQ", data, e + 16)
        if name != "landmarks":
            continue
        if encoding != 0:
            raise ValueError(f"{path}: landmarks section is not raw")
        s = data[offset:offset + stored]
        p = 0
        (named,) = struct.unpack_from("<I", s, p)
        p += 4
        for _ in range(named):
            n = s[p]
            p += 1 + n + 8
        lips = []
        for _ in range(2):
            (n,) = struct.unpack_from("<I", s, p)
            p += 4
            lips.append(np.array(struct.unpack_from("<%df" % (2 * n), s, p), np.float32).reshape(n, 2))
            p += 8 * n
        p += 16  # face box
        box = struct.unpack_from("<4i", s, p)
        return box, lips[0], lips[1], (width, height)
    raise ValueError(f"{path}: no landmarks section")


# ---- openness from pixels ---------------------------------------------------------------------------------

def luma(bgr):
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    return 0.299 * r + 0.587 * g + 0.114 * b


class MouthMeter:
    """Mouth openness of frames: the count of mouth-interior pixels (teeth, cavity, tongue) near the mouth.

    The renderer paints the opened mouth with colours the closed face never shows at that place: dark
    cavity and tongue, and teeth. Each frame is first aligned with the rest frame (the integer shift within
    +-S pixels that best matches the luma of the skin above the mouth), which follows the idle head motion.
    Then a pixel of the measured region counts as interior when, compared with the aligned rest frame within
    +-R pixels of its own position,
      * it is darker by DARK luma levels than the darkest rest pixel there (cavity, tongue, shadow), or
      * its colour is farther than NOVEL (Euclidean, B,G,R levels) from every rest pixel there (teeth).
    Lips pressed, rounded or stretched keep lip and skin colours near their rest place and do not count.
    The region is the avatar's mouth box widened by M pixels on each side and 2M below (the lower lip moves
    down). Closed lips measure 0 or a few pixels; a wide-open mouth of this avatar about 1300.
    """

    R = 4
    S = 3
    A = 12
    M = 6
    DARK = 20.0
    NOVEL = 35.0

    def __init__(self, rest_bgr, mouth_box):
        x, y, w, h = mouth_box
        H, W = rest_bgr.shape[:2]
        m, pad = self.M, self.R + self.S
        self.box = (max(pad, x - m), max(pad + self.A, y - m), min(W - pad, x + w + m), min(H - pad, y + h + 2 * m))
        # the crop handed to measure(): the box, the alignment rows above it and the margin of shift and window
        # (even x0, y0: a crop holds whole 2x2 chroma blocks of a 4:2:0 picture)
        self.crop = ((self.box[0] - pad) // 2 * 2, (self.box[1] - pad - self.A) // 2 * 2, self.box[2] + pad,
                     self.box[3] + pad)
        self.set_rest(rest_bgr)

    def set_rest(self, rest_bgr):
        cx0, cy0, cx1, cy1 = self.crop
        self.rest = rest_bgr[cy0:cy1, cx0:cx1].astype(np.float32)
        self.rest_luma = luma(self.rest)
        r = self.R
        padded = np.pad(self.rest_luma, r, mode="edge")
        h, w = self.rest_luma.shape
        self.rest_luma_min = np.min([padded[r + dy:r + dy + h, r + dx:r + dx + w]
                                     for dy in range(-r, r + 1) for dx in range(-r, r + 1)], axis=0)
        self.window = sorted(((dy, dx) for dy in range(-r, r + 1) for dx in range(-r, r + 1) if dy or dx),
                             key=lambda d: d[0] * d[0] + d[1] * d[1])

    def _inner(self):
        """Slices of the measured box within the crop."""
        bx0, by0, bx1, by1 = self.box
        cx0, cy0 = self.crop[:2]
        return slice(by0 - cy0, by1 - cy0), slice(bx0 - cx0, bx1 - cx0)

    def align(self, frame_luma):
        """Per frame, the shift (sy, sx) for which frame(p) best matches rest(p + shift) above the mouth."""
        ys, xs = self._inner()
        ay, ax = slice(ys.start - self.A, ys.start, 2), slice(xs.start, xs.stop, 2)
        f = frame_luma[:, ay, ax]
        best, shift = None, None
        for sy in range(-self.S, self.S + 1):
            for sx in range(-self.S, self.S + 1):
                r = self.rest_luma[ay.start + sy:ay.stop + sy:2, ax.start + sx:ax.stop + sx:2]
                err = ((f - r[None]) ** 2).mean(axis=(1, 2))
                if best is None:
                    best, shift = err, np.zeros((len(f), 2), int)
                else:
                    better = err < best
                    best = np.where(better, err, best)
                    shift[better] = (sy, sx)
        return shift[:, 0], shift[:, 1]

    def interior(self, crops):
        """Boolean masks (frames, h, w) of interior pixels for crops of self.crop, B,G,R."""
        ys, xs = self._inner()
        full = crops.astype(np.float32)
        sy, sx = self.align(luma(full))
        f = full[:, ys, xs]
        Y = np.arange(ys.start, ys.stop)[None, :, None] + sy[:, None, None]
        X = np.arange(xs.start, xs.stop)[None, None, :] + sx[:, None, None]
        dark = (self.rest_luma_min[Y, X] - luma(f)) > self.DARK
        # colour novelty: only pixels unlike the aligned rest pixel are compared further, nearest shifts
        # first, and each stops at its first shift with a rest colour within NOVEL
        limit = self.NOVEL ** 2
        fi, yi, xi = np.nonzero(((f - self.rest[Y, X]) ** 2).sum(-1) > limit)
        vals = f[fi, yi, xi]
        ry, rx = Y[fi, yi, 0], X[fi, 0, xi]
        for dy, dx in self.window:
            if len(fi) == 0:
                break
            far = ((vals - self.rest[ry + dy, rx + dx]) ** 2).sum(-1) > limit
            fi, yi, xi, vals, ry, rx = fi[far], yi[far], xi[far], vals[far], ry[far], rx[far]
        novel = np.zeros_like(dark)
        novel[fi, yi, xi] = True
        return dark | novel

    def measure(self, crops, chunk=64):
        """Raw openness (interior pixel count) of each crop."""
        out = [self.interior(crops[i:i + chunk]).sum(axis=(1, 2)) for i in range(0, len(crops), chunk)]
        return np.concatenate(out).astype(np.float64) if out else np.zeros(0)


# ---- data ---------------------------------------------------------------------------------------------

read_wav = wavio.read_pcm
write_wav = wavio.write_pcm


def load_dataset(directory, limit=None):
    """[(id, int16 samples at 16 kHz, meta)] for every <id>.wav with an <id>.json beside it, sorted by id."""
    items = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        uid = name[:-5]
        wav = os.path.join(directory, uid + ".wav")
        if not os.path.exists(wav):
            continue
        meta = json.load(open(os.path.join(directory, name)))
        pcm, rate = read_wav(wav)
        if rate != RATE:
            raise ValueError(f"{wav}: {rate} Hz, expected {RATE}")
        items.append((uid, pcm, meta))
    if limit:
        items = items[:limit]
    return items


def phones_with_silence(phones, end):
    """The phones as (start, end, phone), with the time before the first and after the last phone as `sil`
    up to `end` seconds."""
    ph = [(float(s), float(e), str(p)) for s, e, p in phones]
    if not ph:
        return [(0.0, end, "sil")]
    if ph[0][0] > 0:
        ph.insert(0, (0.0, ph[0][0], "sil"))
    if ph[-1][1] < end:
        ph.append((ph[-1][1], end, "sil"))
    return ph


# ---- figures ------------------------------------------------------------------------------------------

def normalise(raw):
    """Openness scaled to 0..1 between the utterance's 2nd and 98th percentiles (clipped)."""
    lo, hi = np.percentile(raw, 2), np.percentile(raw, 98)
    return np.clip((raw - lo) / max(hi - lo, 1e-9), 0.0, 1.0)


def pearson(a, b):
    a = a - a.mean()
    b = b - b.mean()
    d = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / d) if d > 0 else 0.0


def lagged_r(measured, expected, lag, keep=None):
    """r between measured[t + lag] and expected[t] over the frames where both exist (and `keep` is true for
    both, when given)."""
    n = len(measured)
    keep = np.ones(n, bool) if keep is None else keep
    if lag >= 0:
        m, e, k = measured[lag:], expected[:n - lag], keep[lag:] & keep[:n - lag]
    else:
        m, e, k = measured[:n + lag], expected[-lag:], keep[:n + lag] & keep[-lag:]
    return pearson(m[k], e[k])


def excluded_frames(n, exclude):
    """Boolean mask of the frames touching any [start_s, end_s] interval of `exclude` (laughter, noise)."""
    mask = np.zeros(n, bool)
    for s, e in exclude or ():
        mask[max(0, int(np.floor(s * FPS))):min(n, int(np.ceil(e * FPS)))] = True
    return mask


def utterance_figures(raw, phones, n_samples, exclude=None):
    """Figures of one utterance from its raw openness per speech frame; None when it has under 3 frames.
    Frames touching an `exclude` interval ([start_s, end_s]: laughter in the real recordings) count in
    neither the silence nor r."""
    n = len(raw)
    if n < 3:
        return None
    op = normalise(raw)
    closed = op <= CLOSED + 1e-12
    expected = tg.expected_openness(phones, n, FPS).astype(np.float64)
    skip = excluded_frames(n, exclude)
    ph = phones_with_silence(phones, n_samples / RATE)
    # closures: the frame holding the phone's midpoint, or one of its two neighbours, is closed
    hits = total = 0
    for s, e, p in ph:
        if p not in BILABIALS:
            continue
        mid = int(np.floor((s + e) / 2 * FPS))
        if mid >= n:
            continue
        total += 1
        hits += bool(closed[max(0, mid - 1):min(n, mid + 2)].any())
    # silence: the frames lying wholly inside a pause of PAUSE_MIN or more (runs of `sil` merged)
    runs = []
    for s, e, p in ph:
        if p != "sil":
            continue
        if runs and abs(runs[-1][1] - s) < 1e-6:
            runs[-1][1] = e
        else:
            runs.append([s, e])
    sil_frames = []
    for s, e in runs:
        if e - s < PAUSE_MIN:
            continue
        first, last = int(np.ceil(s * FPS - 1e-6)), int(np.floor(e * FPS + 1e-6)) - 1
        sil_frames.extend(f for f in range(first, min(last, n - 1) + 1) if not skip[f])
    sil_closed = int(closed[sil_frames].sum()) if sil_frames else 0
    rs = {lag: lagged_r(raw.astype(np.float64), expected, lag, ~skip) for lag in LAGS}
    return {
        "frames": n,
        "bilabials": total, "closed_bilabials": hits,
        "closure": hits / total if total else None,
        "pause_frames": len(sil_frames), "closed_pause_frames": sil_closed,
        "silence": sil_closed / len(sil_frames) if sil_frames else None,
        "r0": rs[0], "r_by_lag": rs, "best_lag": max(LAGS, key=lambda L: rs[L]),
        "p98_raw": float(np.percentile(raw, 98)), "p2_raw": float(np.percentile(raw, 2)),
    }


def overall(per):
    """Pooled figures over utterances: closures and pause frames pooled, r averaged, best lag of the mean r."""
    per = [u for u in per if u is not None]
    bil = sum(u["bilabials"] for u in per)
    pf = sum(u["pause_frames"] for u in per)
    mean_r = {L: float(np.mean([u["r_by_lag"][L] for u in per])) for L in LAGS} if per else {L: 0.0 for L in LAGS}
    return {
        "utterances": len(per),
        "bilabials": bil,
        "closure": sum(u["closed_bilabials"] for u in per) / bil if bil else None,
        "pause_frames": pf,
        "silence": sum(u["closed_pause_frames"] for u in per) / pf if pf else None,
        "r0": mean_r[0],
        "r_by_lag": mean_r,
        "best_lag": max(LAGS, key=lambda L: mean_r[L]),
    }


# ---- running ------------------------------------------------------------------------------------------

class Renderer:
    """One session per model, rendering the same audio through both at once (one thread per model)."""

    def __init__(self, library, avatar, models):
        self.models = models
        self.sessions = {m: Session(library, avatar, m) for m in models}
        first = self.sessions[models[0]]
        box, _, _, _ = read_imx_mouth(avatar)
        rest = first.rest_frame()
        for m in models[1:]:
            self.sessions[m].rest_frame()
        self.rest = rest
        self.meter = MouthMeter(rest, box)

    def raw_openness(self, pcm, keep=None):
        """{model: raw openness per speech frame} for int16 audio at 16 kHz; the crops go into `keep` too."""
        out, errors = {}, []

        def work(m):
            try:
                crops = self.sessions[m].render(pcm, self.meter.crop)
                if keep is not None:
                    keep[m] = crops
                out[m] = self.meter.measure(crops)
            except Exception as e:  # reported below, in the main thread
                errors.append(e)

        threads = [threading.Thread(target=work, args=(m,)) for m in self.models]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return out

    def close(self):
        for s in self.sessions.values():
            s.close()


def fmt(x, digits=2):
    if x is None:
        return "-"
    if isinstance(x, int):
        return f"{x:+d}" if x else "0"
    return f"{x:.{digits}f}"


TARGETS = "closure >= 0.85, silence >= 0.97, r0 >= 0.85, best lag 0 or -1"


def meets(f):
    """Which of the issue's targets the overall figures meet."""
    return {"closure": (f["closure"] or 0) >= 0.85, "silence": (f["silence"] or 0) >= 0.97,
            "r0": f["r0"] >= 0.85, "lag": f["best_lag"] in (0, -1)}


def print_table(title, rows, models):
    """rows: [(label, {model: figures})]."""
    cols = ["closure", "silence", "r0", "lag"]
    head = f"{'':28s}" + "".join(f" | {m:^27s}" for m in models)
    sub = f"{title:28s}" + "".join(" | " + " ".join(f"{c:>6s}" for c in cols) for _ in models)
    print(head)
    print(sub)
    print("-" * len(sub))
    for label, figs in rows:
        line = f"{label[:28]:28s}"
        for m in models:
            f = figs.get(m)
            if f is None:
                line += " | " + " ".join(f"{'-':>6s}" for _ in cols)
                continue
            line += " | " + " ".join(f"{v:>6s}" for v in (fmt(f["closure"]), fmt(f["silence"]), fmt(f["r0"]),
                                                         fmt(f["best_lag"])))
        print(line)
    print()


# ---- real recordings and other languages ------------------------------------------------------------------

REAL_TARGETS = "held-out speakers: closure >= 0.90, silence >= 0.95, r0 >= 0.75, best lag 0"
LANG_TARGETS = "every language: closure >= 0.85, silence >= 0.95"


def meets_real(f):
    return {"closure": (f["closure"] or 0) >= 0.90, "silence": (f["silence"] or 0) >= 0.95,
            "r0": f["r0"] >= 0.75, "lag": f["best_lag"] == 0}


def meets_lang(f):
    return {"closure": (f["closure"] or 0) >= 0.85, "silence": (f["silence"] or 0) >= 0.95}


def item_figures(renderer, pcm, meta, models, keep=None):
    """Raw openness per model of one item rendered through the library, and its figures (its `exclude`
    intervals left out)."""
    raw = renderer.raw_openness(pcm, keep)
    return raw, {m: utterance_figures(raw[m], meta["phones"], len(pcm), meta.get("exclude")) for m in models}


def print_targets(text, met):
    """The targets line and, per model, which of them its figures meet (`met`: {model: {target: bool}})."""
    print(f"targets: {text}")
    for m, ok in met.items():
        print(f"  {m}: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in ok.items()))
    print()


def real_set(renderer, directory, models):
    """The real recordings: figures per clip, per speaker and per split (val: speakers never trained on)."""
    data = load_dataset(directory)
    if not data:
        raise SystemExit(f"no aligned recordings (<clip>.wav + <clip>.json) in {directory}")
    clips = []
    for uid, pcm, meta in data:
        _, figs = item_figures(renderer, pcm, meta, models)
        clips.append({"id": uid, "speaker": meta.get("speaker", ""), "split": meta.get("split", ""),
                      "style": meta.get("style", ""), "transcript": meta.get("transcript", ""), **figs})
    out = {"clips": clips, "speakers": {}, "splits": {}}
    for sp in sorted({c["speaker"] for c in clips}):
        out["speakers"][sp] = {m: overall([c[m] for c in clips if c["speaker"] == sp]) for m in models}
    for split in ("val", "train"):
        sel = [c for c in clips if c["split"] == split]
        if sel:
            out["splits"][split] = {m: overall([c[m] for c in sel]) for m in models}
    out["splits"]["all"] = {m: overall([c[m] for c in clips]) for m in models}
    if "val" in out["splits"]:
        out["targets_met"] = {m: meets_real(out["splits"]["val"][m]) for m in models}
    return out


def language_sets(renderer, directory, models):
    """Other languages: one subdirectory per language."""
    out = {}
    for lang in sorted(os.listdir(directory)):
        sub = os.path.join(directory, lang)
        if not os.path.isdir(sub):
            continue
        per = []
        for uid, pcm, meta in load_dataset(sub):
            per.append(item_figures(renderer, pcm, meta, models)[1])
        if per:
            figs = {m: overall([u[m] for u in per]) for m in models}
            out[lang] = {**figs, "targets_met": {m: meets_lang(figs[m]) for m in models}}
    return out


def print_real(real, models, per_clip):
    if per_clip:
        print_table("real recording (split)", [(f"{c['id'][:20]} ({c['split']})", c) for c in real["clips"]],
                    models)
    rows = [(f"speaker {sp}", f) for sp, f in real["speakers"].items()]
    print_table("real speech (per speaker)", rows, models)
    names = {"val": "held-out speakers (val)", "train": "training speakers", "all": "all real recordings"}
    print_table("real speech (overall)", [(names[k], f) for k, f in real["splits"].items()], models)
    if "targets_met" in real:
        print_targets(REAL_TARGETS, real["targets_met"])


def print_languages(langs, models):
    import languages as lg
    rows = [(f"{lang} {lg.LANGUAGES.get(lang, ('', lang))[1]}", f) for lang, f in langs.items()]
    print_table("other languages (espeak-ng)", rows, models)
    print(f"targets: {LANG_TARGETS}")
    for m in models:
        missed = [lang for lang, f in langs.items() if not all(f["targets_met"][m].values())]
        print(f"  {m}: " + (f"met in all {len(langs)} languages" if not missed else "NOT met in " + ", ".join(missed)))
    print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default=".build/release/libessence2.so")
    ap.add_argument("--avatar", default="avatars/grace-hopper.imx")
    ap.add_argument("--data", default="build/lipsync-data/val")
    ap.add_argument("--cli", default="build/essence2", help="the essence2 command, for the 24/48 kHz renders")
    ap.add_argument("--models", default="learned,v1", help="comma-separated: learned, v1")
    ap.add_argument("--limit", type=int, help="use only the first N utterances")
    ap.add_argument("--robust-limit", type=int, default=12,
                    help="utterances for each robustness condition (default 12, spread over the set; 0: all)")
    ap.add_argument("--no-robustness", action="store_true", help="only the clean figures")
    ap.add_argument("--no-per-utterance", action="store_true", help="leave out the table of every utterance")
    ap.add_argument("--json", action="store_true", help="machine-readable output instead of the tables")
    ap.add_argument("--real", metavar="DIR",
                    help="real recordings aligned by align_real.py (tools/lipsync/real): reported per clip, "
                         "per speaker, and for the held-out (val) and training (train) speakers")
    ap.add_argument("--langs", metavar="DIR", help="other languages from languages.py (build/lipsync-lang)")
    a = ap.parse_args(argv)
    models = [m for m in a.models.split(",") if m]
    for m in models:
        if m not in MODELS:
            ap.error(f"unknown model {m!r}")
    t0 = time.monotonic()
    library = Library(a.lib)
    data = load_dataset(a.data, a.limit)
    if not data:
        ap.error(f"no utterances (<id>.wav + <id>.json) in {a.data}")
    renderer = Renderer(library, a.avatar, models)
    per, kept = [], {}
    robust_n = 0 if a.no_robustness else min(a.robust_limit or len(data), len(data))
    # the robustness subset: spread evenly over the (sorted) data set, so every voice is in it
    robust_ids = {int(round(x)) for x in np.linspace(0, len(data) - 1, robust_n)} if robust_n else set()
    try:
        for k, (uid, pcm, meta) in enumerate(data):
            keep = {} if k in robust_ids else None
            raw, figs = item_figures(renderer, pcm, meta, models, keep)
            per.append((uid, meta.get("voice", ""), figs, raw))
            if keep is not None:
                kept[k] = keep
        clean = {m: overall([f[m] for _, _, f, _ in per]) for m in models}
        result = {
            "library": a.lib, "version": library.lib.be_essence2_version().decode(), "avatar": a.avatar,
            "data": a.data, "models": models,
            "measure": {"kind": "mouth-interior pixel count", "box": renderer.meter.box,
                        "closed_band": CLOSED, "pause_min_s": PAUSE_MIN},
            "clean": clean,
            "targets_met": {m: meets(clean[m]) for m in models},
            "utterances": [{"id": uid, "voice": voice, **{m: f[m] for m in models}}
                           for uid, voice, f, _ in per],
        }
        if a.real:
            result["real"] = real_set(renderer, a.real, models)
        if a.langs:
            result["languages"] = language_sets(renderer, a.langs, models)
        if not a.no_robustness:
            import robustness
            result["robustness"] = robustness.run(renderer, a, data, per, kept, models)
    finally:
        renderer.close()
        library.lib.be_essence2_quiesce_all(2000)
    result["seconds"] = round(time.monotonic() - t0, 1)
    if a.json:
        json.dump(result, sys.stdout, indent=1, default=lambda o: o if not isinstance(o, np.generic) else o.item())
        print()
        return 0
    print(f"lip-sync evaluation: libessence2 {result['version']}, {a.avatar}, {len(data)} utterances from {a.data}")
    print(f"openness: mouth-interior pixels in box x{renderer.meter.box[0]}..{renderer.meter.box[2]} "
          f"y{renderer.meter.box[1]}..{renderer.meter.box[3]}; closed band <= {CLOSED} of the utterance's "
          f"2nd..98th percentile; lag L: measured[t+L] vs expected[t], -1 = mouth leads\n")
    if not a.no_per_utterance:
        print_table("utterance", [(f"{uid} {voice}", f) for uid, voice, f, _ in per], models)
    voices = sorted({voice for _, voice, _, _ in per})
    by_voice = [(f"voice {v}", {m: overall([f[m] for _, vv, f, _ in per if vv == v]) for m in models})
                for v in voices] if len(voices) > 1 else []
    print_table("clean (overall)", [("all utterances", clean)] + by_voice, models)
    print_targets(TARGETS, result["targets_met"])
    if "real" in result:
        print_real(result["real"], models, not a.no_per_utterance)
    if "languages" in result:
        print_languages(result["languages"], models)
    if "robustness" in result:
        robustness.print_report(result["robustness"], models, print_table)
    print(f"({result['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
