"""The second lip-sync meter: mouth openness as a face tracker sees it (see README.md, "Two meters").

MediaPipe Face Mesh (PyPI `mediapipe==0.10.21`, whose wheel bundles the face detector and the 468-point mesh
model; `make lipsync-eval` installs it into the tools' venv) runs on every rendered frame. Openness is the
inner-lip gap, the distance of landmarks 13 (upper inner lip, centre) and 14 (lower inner lip, centre), over
the outer eye-corner distance (33 and 263), so head motion and scale cancel out. The figures are the pixel
meter's (measure.utterance_figures): normalised per clip between its 2nd and 98th percentiles, strict closure
= every p/b/m reaches <= 0.10 within one frame of its midpoint, strict silence = frames inside pauses of 150 ms
or more at <= 0.10, r at lag 0 against the phones' expected openness, and the best lag.

Only `LandmarkMeter` needs mediapipe (imported when one is made); the rest is numpy and is tested without it
(tests/test_landmarks.py). `compare()` lists where the two meters disagree on one clip.
"""

import os

import numpy as np

from measure import BILABIALS, CLOSED, normalise

LIP_UPPER, LIP_LOWER = 13, 14        # inner lip centre points of the Face Mesh topology
EYE_RIGHT, EYE_LEFT = 33, 263        # outer eye corners
MEDIAPIPE = "mediapipe==0.10.21"


def gap_ratio(points):
    """Inner-lip gap over outer eye-corner distance for landmark arrays (..., 468, 2 or 3) in pixels (x, y):
    only x and y are used. NaN where the eye distance is 0 or the points are NaN."""
    p = np.asarray(points, np.float64)[..., :2]
    gap = np.linalg.norm(p[..., LIP_UPPER, :] - p[..., LIP_LOWER, :], axis=-1)
    eyes = np.linalg.norm(p[..., EYE_RIGHT, :] - p[..., EYE_LEFT, :], axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(eyes > 0, gap / np.where(eyes > 0, eyes, 1.0), np.nan)


def fill_missing(raw):
    """Frames where no face was found (NaN) take the value interpolated between their neighbours (the nearest
    measured value at the ends); (filled array, count of missing frames). All missing: zeros."""
    raw = np.asarray(raw, np.float64)
    bad = ~np.isfinite(raw)
    if not bad.any():
        return raw.copy(), 0
    if bad.all():
        return np.zeros_like(raw), int(bad.sum())
    idx = np.arange(len(raw))
    out = raw.copy()
    out[bad] = np.interp(idx[bad], idx[~bad], raw[~bad])
    return out, int(bad.sum())


def face_box(points, shape, margin=0.35):
    """A square crop (x0, y0, x1, y1), even corners, around landmark pixels `points` (468, 2), its side the
    face's larger extent widened by `margin` of it on each side, shifted and clipped to stay in the frame
    `shape` (h, w). Square: Face Mesh's landmark projection assumes a square region of interest."""
    h, w = shape[:2]
    lo, hi = np.min(points[:, :2], axis=0), np.max(points[:, :2], axis=0)
    side = min(int(np.ceil((hi - lo).max() * (1 + 2 * margin))) // 2 * 2, w // 2 * 2, h // 2 * 2)
    cx, cy = (lo + hi) / 2
    x0 = int(min(max(0, cx - side / 2), w - side)) // 2 * 2
    y0 = int(min(max(0, cy - side / 2), h - side)) // 2 * 2
    return x0, y0, x0 + side, y0 + side


class LandmarkMeter:
    """Face Mesh on frames (B,G,R, as the library renders them) of one avatar; one per thread.

    By default every frame is measured on its own (Face Mesh's static-image mode: face detection, then the
    mesh), so a frame reads the same whatever came before it. `video=True` is Face Mesh's video mode: the
    mesh's region follows the previous frame's landmarks (faster; its slow drift of a pixel or so shows in
    clips whose mouth opens little, see README.md). `start()` begins a clip (in video mode the tracker is
    shown the rest frame first, so every clip starts from the same face);
    `add(frame)` measures one frame; `finish()` returns the clip's raw openness (NaN where no face was
    found) and starts nothing. The frames are cropped to the face as found in the rest frame (`box`),
    widened so that the idle head motion stays inside.
    """

    def __init__(self, rest_bgr=None, box=None, video=False):
        import mediapipe as mp  # noqa: F401  (only here: the figures are testable without it)
        self._fm_cls = mp.solutions.face_mesh.FaceMesh
        self.fm = None
        self.video = video
        self.values = []
        self.box = box
        if box is None and rest_bgr is not None:
            pts = self.points(rest_bgr, static=True)
            if pts is None:
                raise RuntimeError("Face Mesh finds no face in the rest frame")
            self.box = face_box(pts, rest_bgr.shape)
        self.warm = None
        if rest_bgr is not None:
            x0, y0, x1, y1 = self.box
            self.warm = np.ascontiguousarray(rest_bgr[y0:y1, x0:x1, ::-1])

    def _mesh(self, static):
        return self._fm_cls(static_image_mode=static, max_num_faces=1, refine_landmarks=False,
                            min_detection_confidence=0.5, min_tracking_confidence=0.5)

    def points(self, bgr, static=False):
        """Landmark pixels (468, 3) of the face in `bgr` (whole image, no crop), or None."""
        rgb = np.ascontiguousarray(bgr[..., ::-1])
        if static:
            fm = self._mesh(True)
            res = fm.process(rgb)
            fm.close()
        else:
            res = self.fm.process(rgb)
        if not res.multi_face_landmarks:
            return None
        h, w = bgr.shape[:2]
        lm = res.multi_face_landmarks[0].landmark
        return np.array([(p.x * w, p.y * h, p.z * w) for p in lm], np.float64)

    def start(self):
        """Begins a clip: the tracker sees the rest frame twice first, so it starts from the rest face
        whatever the clip before ended with. One graph serves all clips: MediaPipe logs warnings to stderr for
        each graph it builds, some of them from its own threads later on."""
        if self.fm is None:
            self.fm = self._mesh(not self.video)
        if self.warm is not None and self.video:
            self.fm.process(self.warm)
            self.fm.process(self.warm)
        self.values, self.lips = [], []

    def add(self, frame_bgr):
        x0, y0, x1, y1 = self.box if self.box is not None else (0, 0, frame_bgr.shape[1], frame_bgr.shape[0])
        pts = self.points(frame_bgr[y0:y1, x0:x1])
        self.values.append(np.nan if pts is None else float(gap_ratio(pts)))
        # the two inner-lip points in frame pixels, for pictures
        self.lips.append(np.full((2, 2), np.nan) if pts is None else pts[[LIP_UPPER, LIP_LOWER], :2] + (x0, y0))

    def finish(self):
        """The clip's raw openness; its inner-lip points stay in self.last_lips (frames, 2, 2)."""
        out = np.array(self.values, np.float64)
        self.last_lips = np.array(self.lips).reshape(-1, 2, 2)
        self.values, self.lips = [], []
        return out

    def close(self):
        if self.fm is not None:
            self.fm.close()
            self.fm = None


# ---- where the two meters disagree --------------------------------------------------------------------

def compare(px_raw, lm_raw, px_fig, lm_fig):
    """Where the pixel and the landmark meters disagree on one clip (figures from measure.utterance_figures
    of each meter's raw openness): the bilabials closed by one and not by the other, the pause frames closed
    by one and open in the other, and r between the two meters' openness, frame by frame."""
    out = {"r_meters": None, "bilabials": [], "pause": []}
    if px_fig is None or lm_fig is None or len(px_raw) != len(lm_raw) or len(px_raw) < 3:
        return out
    px, lm = normalise(np.asarray(px_raw, float)), normalise(np.asarray(lm_raw, float))
    a, b = px - px.mean(), lm - lm.mean()
    d = np.sqrt((a * a).sum() * (b * b).sum())
    out["r_meters"] = float((a * b).sum() / d) if d > 0 else 0.0
    n = len(px)
    for (p, mid, hp), (_, _, hl) in zip(px_fig["events"], lm_fig["events"]):
        if hp != hl:
            lo, hi = max(0, mid - 1), min(n, mid + 2)
            out["bilabials"].append({"phone": p, "frame": mid, "pixel_closed": hp, "landmark_closed": hl,
                                     "pixel_min": float(px[lo:hi].min()), "landmark_min": float(lm[lo:hi].min())})
    for f in px_fig["pause_index"]:
        cp, cl = bool(px[f] <= CLOSED + 1e-12), bool(lm[f] <= CLOSED + 1e-12)
        if cp != cl:
            out["pause"].append({"frame": f, "pixel_closed": cp, "landmark_closed": cl,
                                 "pixel": float(px[f]), "landmark": float(lm[f])})
    return out


def summarise(comparisons):
    """Disagreement counts over clips: {"bilabials": {"pixel_only": {p: n}, "landmark_only": {p: n}},
    "pause": {"pixel_only": n, "landmark_only": n}, "r_meters": mean r between the meters}. `pixel_only`:
    closed by the pixel meter, open by the landmarks."""
    bil = {"pixel_only": {b: 0 for b in BILABIALS}, "landmark_only": {b: 0 for b in BILABIALS}}
    pause = {"pixel_only": 0, "landmark_only": 0}
    rs = []
    for c in comparisons:
        if c["r_meters"] is not None:
            rs.append(c["r_meters"])
        for e in c["bilabials"]:
            bil["pixel_only" if e["pixel_closed"] else "landmark_only"][e["phone"]] += 1
        for e in c["pause"]:
            pause["pixel_only" if e["pixel_closed"] else "landmark_only"] += 1
    return {"bilabials": bil, "pause": pause, "r_meters": float(np.mean(rs)) if rs else None}


# ---- pictures of the disagreements ----------------------------------------------------------------------

def phone_at(phones, frame, fps=25):
    """The phone at the middle of `frame`, and the word-like context: the phones around it."""
    t = (frame + 0.5) / fps
    for i, (s, e, p) in enumerate(phones):
        if s <= t < e:
            return p, " ".join(q for _, _, q in phones[max(0, i - 2):i + 3])
    return "", ""


def dump_pictures(directory, name, zooms, px_raw, lm_raw, cmp, phones, scale=3, pauses=4, lips=None,
                  origin=(0, 0), interior=None, interior_origin=(0, 0)):
    """PNGs of the mouth (`zooms`: B,G,R mouth regions of every frame, enlarged `scale` times) at each
    disagreeing bilabial (the frame before its midpoint, the midpoint, the frame after) and at up to `pauses`
    disagreeing pause frames, with both meters' normalised openness written under every frame and, given
    `lips` (frames, 2, 2: landmarks 13 and 14 in frame pixels; `origin`: the zooms' top left corner in the
    frame), the two inner-lip points Face Mesh placed drawn as green dots, and given `interior` (frame index ->
    the pixel meter's boolean mask of its box, whose top left corner is `interior_origin` in the frame), the
    pixels it counts as mouth interior tinted red. Needs cv2
    (opencv, which mediapipe brings along)."""
    import cv2
    px, lm = normalise(np.asarray(px_raw, float)), normalise(np.asarray(lm_raw, float))
    n = len(zooms)

    def tile(f):
        img = zooms[f].copy()
        if interior is not None:
            mask = interior(f)
            oy, ox = interior_origin[1] - origin[1], interior_origin[0] - origin[0]
            h, w = mask.shape
            region = img[oy:oy + h, ox:ox + w]
            region[mask] = (0.4 * region[mask] + 0.6 * np.array([0, 0, 255])).astype(np.uint8)
        z = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        if lips is not None and f < len(lips) and np.isfinite(lips[f]).all():
            for x, y in lips[f]:
                cv2.circle(z, (int((x - origin[0] + 0.5) * scale), int((y - origin[1] + 0.5) * scale)), 3,
                           (0, 255, 0), -1)
        bar = np.full((44, z.shape[1], 3), 255, np.uint8)
        cv2.putText(bar, f"frame {f}  {phone_at(phones, f)[0]}", (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (0, 0, 0), 1)
        cv2.putText(bar, f"px {px[f]:.2f}  lm {lm[f]:.2f} (gap/eyes {lm_raw[f]:.3f})", (4, 36),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
        return np.vstack([z, bar])

    def write(tag, frames):
        img = np.hstack([tile(f) for f in frames if 0 <= f < n])
        cv2.imwrite(os.path.join(directory, f"{name}-{tag}.png"), img)

    for e in cmp["bilabials"]:
        kind = "pxonly" if e["pixel_closed"] else "lmonly"
        write(f"{e['phone']}{e['frame']:04d}-{kind}", range(e["frame"] - 1, e["frame"] + 2))
    for e in cmp["pause"][:pauses]:
        kind = "pxonly" if e["pixel_closed"] else "lmonly"
        write(f"sil{e['frame']:04d}-{kind}", [e["frame"]])
