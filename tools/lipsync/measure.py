"""What tools/lipsync/eval.py and tools/lipsync/robustness.py both use (see docs/lipsync.md): the rates and
the measuring constants, the avatar's mouth box and lip outlines from its .imx file, mouth openness from the
output pixels (MouthMeter), and the figures of an utterance (utterance_figures) and of a set (overall).

eval.py renders through libessence2.so and reports; robustness.py (run by eval.py) degrades the input. Both
import this module, and it imports neither, so there is no import cycle (tests/test_lipsync_tools.py checks).
"""

import struct

import numpy as np

import targets as tg

FPS = 25
RATE = 16000
SPF = 640
SEED = 0x5EED

CLOSED = 0.10          # normalised openness at or below this is the closed band
PAUSE_MIN = 0.150      # seconds: silences at least this long are pauses
LAGS = range(-2, 3)    # frames; lag L compares measured[t + L] with expected[t]: L = -1 means the mouth leads
BILABIALS = ("p", "b", "m")


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


# ---- figures ------------------------------------------------------------------------------------------

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
    events = []   # [phone, frame of its midpoint, closed within a frame of it]
    for s, e, p in ph:
        if p not in BILABIALS:
            continue
        mid = int(np.floor((s + e) / 2 * FPS))
        if mid >= n:
            continue
        hit = bool(closed[max(0, mid - 1):min(n, mid + 2)].any())
        total += 1
        hits += hit
        events.append([p, mid, hit])
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
        "by_phone": {b: [sum(1 for q, _, h in events if q == b and h), sum(1 for q, _, _ in events if q == b)]
                     for b in BILABIALS},
        "events": events, "pause_index": [int(f) for f in sil_frames],
        "pause_frames": len(sil_frames), "closed_pause_frames": sil_closed,
        "silence": sil_closed / len(sil_frames) if sil_frames else None,
        "r0": rs[0], "r_by_lag": rs, "best_lag": max(LAGS, key=lambda L: rs[L]),
        "p98_raw": float(np.percentile(raw, 98)), "p2_raw": float(np.percentile(raw, 2)),
    }


def overall(per):
    """Pooled figures over utterances: closures (also per phone: by_phone {p: [closed, total]}) and pause
    frames pooled, r averaged, best lag of the mean r."""
    per = [u for u in per if u is not None]
    bil = sum(u["bilabials"] for u in per)
    pf = sum(u["pause_frames"] for u in per)
    mean_r = {L: float(np.mean([u["r_by_lag"][L] for u in per])) for L in LAGS} if per else {L: 0.0 for L in LAGS}
    return {
        "utterances": len(per),
        "bilabials": bil,
        "closure": sum(u["closed_bilabials"] for u in per) / bil if bil else None,
        "by_phone": {b: [sum(u["by_phone"][b][0] for u in per), sum(u["by_phone"][b][1] for u in per)]
                     for b in BILABIALS},
        "pause_frames": pf,
        "silence": sum(u["closed_pause_frames"] for u in per) / pf if pf else None,
        "r0": mean_r[0],
        "r_by_lag": mean_r,
        "best_lag": max(LAGS, key=lambda L: mean_r[L]),
    }
