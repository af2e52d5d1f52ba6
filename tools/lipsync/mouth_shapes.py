"""Mouth shapes as a face tracker sees them: issue 46's figures of `essence2 avatar poses` frames.

    essence2 avatar poses AVATAR --frames DIR --region full
    python tools/lipsync/mouth_shapes.py DIR [DIR ...] [--json OUT] [--check]

MediaPipe Face Mesh (the landmark meter's pinned version, landmarks.MEDIAPIPE; static-image mode, with
refine_landmarks=True: its attention model's lip points follow the lips) finds the points in each pose
PNG (`pose_rest.png`, `pose_o.png`, ...). Distances are over the outer eye-corner distance (33-263), so scale
cancels out: mouth width 61-291, inner width 78-308, opening 13-14, visible lower-lip thickness 14-17. The
table per avatar (one DIR each):

    o   width / rest width, opening / inner width     (wanted <= 0.75, >= 0.50)
    u   width / rest width, opening / inner width     (wanted <= 0.70, >= 0.40)
    fv  lower lip / rest lower lip, opening           (wanted <= 0.70, <= 0.03)
    m   opening                                       (sealed: <= 0.02)
    a   opening                                       (open: >= 0.20)

`--check` exits 1 when a figure misses its bound. Only `measure_dir` needs mediapipe (and cv2, which it brings
along); the figures and bounds are plain numpy and are tested on synthetic landmarks (tests/test_mouth_shapes.py).
"""

import argparse
import json
import os
import sys

import numpy as np

EYE_RIGHT, EYE_LEFT = 33, 263
MOUTH_RIGHT, MOUTH_LEFT = 61, 291
INNER_RIGHT, INNER_LEFT = 78, 308
LIP_UPPER, LIP_LOWER = 13, 14
LOWER_OUTER = 17

POSES = ("rest", "o", "u", "fv", "m", "a")

# (name, pose figure, comparison, bound): the figures.
BOUNDS = (
    ("o_width", "<=", 0.75),
    ("o_round", ">=", 0.50),
    ("u_width", "<=", 0.70),
    ("u_round", ">=", 0.40),
    ("fv_lower_lip", "<=", 0.70),
    ("fv_opening", "<=", 0.03),
    ("m_opening", "<=", 0.02),
    ("a_opening", ">=", 0.20),
)


def _dist(p, a, b):
    return float(np.linalg.norm(p[a, :2] - p[b, :2]))


def figures(points):
    """The four distances of one face over its eye-corner distance: width, inner_width, opening, lower_lip.
    `points`: (468, 2 or 3) landmark pixels."""
    p = np.asarray(points, np.float64)
    eyes = _dist(p, EYE_RIGHT, EYE_LEFT)
    if not eyes > 0:
        raise ValueError("eye corners coincide")
    return {
        "width": _dist(p, MOUTH_RIGHT, MOUTH_LEFT) / eyes,
        "inner_width": _dist(p, INNER_RIGHT, INNER_LEFT) / eyes,
        "opening": _dist(p, LIP_UPPER, LIP_LOWER) / eyes,
        "lower_lip": _dist(p, LIP_LOWER, LOWER_OUTER) / eyes,
    }


def table(per_pose):
    """Issue 46's figures from {pose name: figures(...)} (rest, o, u, fv, m, a)."""
    rest = per_pose["rest"]

    def ratio(a, b):
        return a / b if b > 0 else float("nan")

    out = {}
    for v in ("o", "u"):
        f = per_pose[v]
        out[f"{v}_width"] = ratio(f["width"], rest["width"])
        out[f"{v}_round"] = ratio(f["opening"], f["inner_width"])
    out["fv_lower_lip"] = ratio(per_pose["fv"]["lower_lip"], rest["lower_lip"])
    out["fv_opening"] = per_pose["fv"]["opening"]
    out["m_opening"] = per_pose["m"]["opening"]
    out["a_opening"] = per_pose["a"]["opening"]
    return out


def misses(tab, bounds=BOUNDS):
    """The figures of `tab` that miss their bound (of `bounds`): [(name, value, comparison, bound)]."""
    out = []
    for name, cmp, bound in bounds:
        v = tab.get(name, float("nan"))
        ok = v <= bound if cmp == "<=" else v >= bound
        if not (np.isfinite(v) and ok):
            out.append((name, v, cmp, bound))
    return out


def row(label, tab):
    """One markdown table row: label | o | u | f/v | m | a."""
    return (f"| {label} | {tab['o_width']:.2f}, {tab['o_round']:.2f} | {tab['u_width']:.2f}, {tab['u_round']:.2f} "
            f"| {tab['fv_lower_lip']:.2f}, {tab['fv_opening']:.3f} | {tab['m_opening']:.3f} | {tab['a_opening']:.2f} |")


HEADER = ("| avatar | o: width / rest, opening / inner width | u: width / rest, opening / inner width "
          "| f/v: lower lip / rest, opening | m: opening | a: opening |\n|---|---|---|---|---|---|")


class FaceMeshReader:
    """Face Mesh (mediapipe, MEDIAPIPE) in static-image mode with `refine_landmarks=True` (the attention model,
    whose lip points follow the lips closely), on whole frames, as issue 46 measured. A context manager."""

    def __init__(self):
        import mediapipe as mp
        self.fm = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1, refine_landmarks=True,
                                                  min_detection_confidence=0.5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fm.close()

    def figures(self, path):
        """figures() of the face in the PNG at `path`; None when Face Mesh finds no face."""
        import cv2
        bgr = cv2.imread(path)
        if bgr is None:
            raise RuntimeError(f"cannot read {path}")
        res = self.fm.process(np.ascontiguousarray(bgr[..., ::-1]))
        if not res.multi_face_landmarks:
            return None
        h, w = bgr.shape[:2]
        return figures(np.array([(q.x * w, q.y * h) for q in res.multi_face_landmarks[0].landmark], np.float64))

    def required(self, path):
        """figures() of the face in the PNG at `path`; RuntimeError when Face Mesh finds none."""
        f = self.figures(path)
        if f is None:
            raise RuntimeError(f"Face Mesh finds no face in {path}")
        return f


def measure_dir(directory):
    """{pose: figures} of the pose PNGs in `directory` (`essence2 avatar poses --region full`)."""
    out = {}
    with FaceMeshReader() as reader:
        for pose in POSES:
            out[pose] = reader.required(os.path.join(directory, f"pose_{pose}.png"))
    return out


# Phones whose frames `speech_table` gathers: the o, u and f/v.
SPEECH_PHONES = {"o": ("ow", "ao"), "u": ("uw",), "fv": ("f", "v")}


def phone_frames(phones, n_frames, fps=25):
    """{shape: [frame index]} of the frames whose middle falls in one of SPEECH_PHONES' phones, from
    [(start, end, phone)] in seconds."""
    out = {k: [] for k in SPEECH_PHONES}
    for f in range(n_frames):
        t = (f + 0.5) / fps
        for s, e, p in phones:
            if s <= t < e:
                for k, names in SPEECH_PHONES.items():
                    if p in names:
                        out[k].append(f)
                break
    return out


def speech_table(rest, frames):
    """Issue 46's o, u and f/v figures averaged over speech frames: `rest` the rest figures, `frames`
    {shape: [figures of each frame at that shape's phones]}; NaN where a shape has no frame."""
    def mean(shape, key):
        v = [f[key] for f in frames.get(shape, [])]
        return float(np.mean(v)) if v else float("nan")

    def ratio(a, b):
        return a / b if b > 0 else float("nan")

    out = {}
    for v in ("o", "u"):
        out[f"{v}_width"] = ratio(mean(v, "width"), rest["width"])
        out[f"{v}_round"] = float(np.mean([ratio(f["opening"], f["inner_width"]) for f in frames[v]])) \
            if frames.get(v) else float("nan")
    out["fv_lower_lip"] = ratio(mean("fv", "lower_lip"), rest["lower_lip"])
    out["fv_opening"] = mean("fv", "opening")
    out["counts"] = {k: len(frames.get(k, [])) for k in SPEECH_PHONES}
    return out


def render_speech_frames(cli, avatar, wav, directory):
    """`essence2 render WAV --frames DIRECTORY` of `avatar` (seed 1, the raw .y4m output beside the frames so no
    encoder is needed); returns the number of frames."""
    import subprocess
    video = os.path.join(directory, "speech.y4m")
    subprocess.run([cli, "render", wav, "--avatar", avatar, "--output", video, "--frames", directory,
                    "--seed", "1", "--quiet"], check=True)
    return len([n for n in os.listdir(directory) if n.startswith("frame_") and n.endswith(".png")])


def measure_speech(cli, avatar, clips, rest_png):
    """speech_table() of `avatar` speaking every clip of `clips` (WAV + JSON with its "phones", as in
    tools/lipsync/real), against the rest face of `rest_png` (its `avatar poses` pose_rest.png)."""
    import glob
    import tempfile
    frames = {k: [] for k in SPEECH_PHONES}
    with FaceMeshReader() as reader:
        rest = reader.required(rest_png)
        for js in sorted(glob.glob(os.path.join(clips, "*.json"))):
            wav = js[:-5] + ".wav"
            if not os.path.exists(wav):
                continue
            with open(js) as f:
                phones = json.load(f).get("phones") or []
            with tempfile.TemporaryDirectory(prefix="mouth-speech-") as d:
                n = render_speech_frames(cli, avatar, wav, d)
                for shape, idx in phone_frames(phones, n).items():
                    for k in idx:
                        fig = reader.figures(os.path.join(d, f"frame_{k:05d}.png"))
                        if fig is not None:
                            frames[shape].append(fig)
    return speech_table(rest, frames)


SPEECH_HEADER = ("| avatar | o: width / rest, opening / inner width | u: width / rest, opening / inner width "
                 "| f/v: lower lip / rest, opening | frames o / u / f,v |\n|---|---|---|---|---|")


def speech_row(label, tab):
    c = tab["counts"]
    return (f"| {label} | {tab['o_width']:.2f}, {tab['o_round']:.2f} | {tab['u_width']:.2f}, {tab['u_round']:.2f} "
            f"| {tab['fv_lower_lip']:.2f}, {tab['fv_opening']:.3f} | {c['o']} / {c['u']} / {c['fv']} |")


SPEECH_BOUNDS = tuple(b for b in BOUNDS if b[0].split("_")[0] in ("o", "u", "fv"))


def speech_main(argv):
    ap = argparse.ArgumentParser(prog="mouth_shapes.py speech", description="issue 46's o, u and f/v figures "
                                 "averaged over the frames of rendered speech at those phones")
    ap.add_argument("--cli", required=True, help="the essence2 command")
    ap.add_argument("--clips", required=True, help="folder of WAV + phone JSON clips (tools/lipsync/real)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--check", action="store_true", help="exit 1 when a figure misses the issue's bound")
    ap.add_argument("pairs", nargs="+", metavar="AVATAR.imx=POSES_DIR",
                    help="an avatar and the folder of its `avatar poses --region full` frames (for the rest)")
    args = ap.parse_args(argv)
    print(SPEECH_HEADER)
    result, failed = {}, []
    for pair in args.pairs:
        avatar, _, poses = pair.partition("=")
        if not poses:
            ap.error(f"{pair}: wanted AVATAR.imx=POSES_DIR")
        tab = measure_speech(args.cli, avatar, args.clips, os.path.join(poses, "pose_rest.png"))
        label = os.path.basename(avatar).removesuffix(".imx")
        result[label] = tab
        print(speech_row(label, tab))
        failed += [(label + " (speech)",) + m for m in misses(tab, SPEECH_BOUNDS)]
    return finish(result, failed, args.json, args.check)


def finish(result, failed, json_path, check):
    """Says each figure of `failed` ([(label, name, value, comparison, bound)]) that misses, writes `result` to
    `json_path` when given; the exit status (1 when `check` and something missed)."""
    for label, name, v, cmp, bound in failed:
        print(f"{label}: {name} = {v:.3f}, wanted {cmp} {bound}", file=sys.stderr)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(result, f, indent=1)
    return 1 if (check and failed) else 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["speech"]:
        return speech_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="folders of `essence2 avatar poses --region full` frames")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--check", action="store_true", help="exit 1 when a figure misses the issue's bound")
    args = ap.parse_args(argv)
    print(HEADER)
    result, failed = {}, []
    for d in args.dirs:
        per_pose = measure_dir(d)
        tab = table(per_pose)
        label = os.path.basename(os.path.normpath(d))
        result[label] = {"poses": per_pose, "table": tab}
        print(row(label, tab))
        failed += [(label,) + m for m in misses(tab)]
    return finish(result, failed, args.json, args.check)


if __name__ == "__main__":
    sys.exit(main())
