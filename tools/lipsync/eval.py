"""Lip-sync measured through the real interface: held-out utterances rendered by libessence2.so, mouth
openness read from the output pixels, compared with the phones' expected openness. See docs/lipsync.md.

    python3 tools/lipsync/eval.py --lib .build/release/libessence2.so --avatar avatars/grace-hopper.imx \
        --data build/lipsync-data/val --cli build/essence2 [--json] [--no-per-utterance] [--no-robustness]

Every utterance is rendered twice from the same run, once per lip-sync model (be_essence2_set_lipsync:
LEARNED and V1), through ctypes against include/essence2.h in UNPACED pacing: push the utterance,
end_utterance, pull every frame; the SPEECH frames are measured (frame k shows audio [640k, 640k+640)).
Needs numpy only; the robustness part (tools/lipsync/robustness.py) also uses scipy for resampling and,
for the 24/48 kHz sources, the `essence2` command (--cli).

A second meter reads the same frames: MediaPipe Face Mesh landmarks (tools/lipsync/landmarks.py; needs
`mediapipe`, which `make lipsync-eval` installs into the tools' venv; --no-landmarks leaves it out). Both
meters' figures are reported side by side, per utterance, clip, speaker and split, with where they disagree
(--dump DIR: pictures of those frames). See tools/lipsync/README.md, "Two meters".
"""

import argparse
import ctypes
import importlib.util
import json
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wavio  # noqa: E402
# the rates, the measure and the figures, shared with robustness.py (and kept importable as eval.X)
from measure import (  # noqa: E402,F401
    BILABIALS, CLOSED, FPS, LAGS, PAUSE_MIN, RATE, SEED, SPF, MouthMeter, excluded_frames, lagged_r, luma,
    normalise, overall, pearson, phones_with_silence, read_imx_mouth, utterance_figures)

# The library's signatures and constants: the Python package's one table, loaded by its path (no install needed).
_HERE = os.path.dirname(os.path.abspath(__file__))
_NATIVE = os.path.join(_HERE, "..", "..", "python", "src", "essence2", "_native.py")
_spec = importlib.util.spec_from_file_location("essence2_native", _NATIVE)
N = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(N)

RING = N.RING_SAMPLES
FRAME_IDLE, FRAME_SPEECH, FRAME_RAMP = N.FRAME_IDLE, N.FRAME_SPEECH, N.FRAME_RAMP
PACING_UNPACED = N.PACING_UNPACED
MODELS = {"learned": N.LIPSYNC_LEARNED, "v1": N.LIPSYNC_V1}


# ---- the library ------------------------------------------------------------------------------------------

class Library:
    """libessence2.so through ctypes, with the signatures of the package's table (python/src/essence2/_native.py)."""

    def __init__(self, path):
        self.lib = N.load(os.path.abspath(path))

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

    def render(self, pcm, box, timeout=120.0, on_frame=None):
        """Pushes one utterance (int16), ends it, pulls until idle; returns its SPEECH frames cropped to box.
        `on_frame(frame)`, when given, sees every whole SPEECH frame (B,G,R; valid during the call only)."""
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
                rc = lib.be_essence2_push_audio(self.h, chunk.ctypes.data, n)
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
                    if on_frame is not None:
                        on_frame(self.view)
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


# ---- running ------------------------------------------------------------------------------------------

class Renderer:
    """One session per model, rendering the same audio through both at once (one thread per model).
    With `landmarks`, a Face Mesh meter per model (landmarks.LandmarkMeter) as well; with `zoom`, the mouth
    region (x0, y0, x1, y1) of every frame is kept for pictures of the disagreements."""

    def __init__(self, library, avatar, models, landmarks=False, zoom=None, landmark_video=False):
        self.models = models
        self.sessions = {m: Session(library, avatar, m) for m in models}
        first = self.sessions[models[0]]
        box, _, _, _ = read_imx_mouth(avatar)
        rest = first.rest_frame()
        for m in models[1:]:
            self.sessions[m].rest_frame()
        self.rest = rest
        self.meter = MouthMeter(rest, box)
        self.mouth_box = box
        self.lm = {}
        if landmarks:
            import landmarks as lmk
            first_lm = lmk.LandmarkMeter(rest, video=landmark_video)
            self.lm = {m: first_lm if i == 0 else lmk.LandmarkMeter(rest, box=first_lm.box, video=landmark_video)
                       for i, m in enumerate(models)}
        self.zoom = zoom
        self.dump_pauses = 4
        self.last_landmarks, self.last_zoom, self.last_lips = {}, {}, {}

    def _landmark_hook(self, meter, zooms):
        """What render() calls with every speech frame: the landmark meter, and the mouth zoom kept."""
        def hook(frame):
            meter.add(frame)
            if self.zoom is not None:
                x0, y0, x1, y1 = self.zoom
                zooms.append(frame[y0:y1, x0:x1].copy())
        return hook

    def raw_openness(self, pcm, keep=None, landmarks=False):
        """{model: raw openness per speech frame} for int16 audio at 16 kHz; the crops go into `keep` too.
        With `landmarks` (and a renderer made with them), the landmark meter's raw openness per model goes
        into self.last_landmarks (and the mouth zooms into self.last_zoom)."""
        out, errors = {}, []
        lm_out, zoom_out, lips_out = {}, {}, {}
        use_lm = landmarks and bool(self.lm)

        def work(m):
            try:
                if use_lm:
                    self.lm[m].start()
                    zoom_out[m] = []
                hook = self._landmark_hook(self.lm[m], zoom_out[m]) if use_lm else None
                crops = self.sessions[m].render(pcm, self.meter.crop, on_frame=hook)
                if use_lm:
                    lm_out[m] = self.lm[m].finish()
                    lips_out[m] = self.lm[m].last_lips
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
        self.last_landmarks, self.last_lips = lm_out, lips_out
        self.last_zoom = zoom_out if self.zoom is not None else {}
        return out

    def close(self):
        for s in self.sessions.values():
            s.close()
        for meter in self.lm.values():
            meter.close()


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


def column_name(col, cols):
    """'learned' / 'learned pixels' / 'learned landmarks' for a column of `cols`."""
    if col.endswith(LM):
        return col[:-len(LM)] + " landmarks"
    return col + " pixels" if col + LM in cols else col


def print_table(title, rows, models):
    """rows: [(label, {model: figures})]."""
    cols = ["closure", "silence", "r0", "lag"]
    head = f"{'':28s}" + "".join(f" | {column_name(m, models):^27s}" for m in models)
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


LM_REAL_TARGETS = "landmark meter, held-out speakers: closure >= 0.95, silence >= 0.97, r0 >= 0.65, best lag 0"


def meets_landmarks(f):
    return {"closure": (f["closure"] or 0) >= 0.95, "silence": (f["silence"] or 0) >= 0.97,
            "r0": f["r0"] >= 0.65, "lag": f["best_lag"] == 0}


def meets_lang(f):
    return {"closure": (f["closure"] or 0) >= 0.85, "silence": (f["silence"] or 0) >= 0.95}


LM = ":lm"   # the landmark meter's figures of model m are figs[m + LM]


def columns(models, landmarks):
    """The table columns: per model its pixel figures and, with the landmark meter, its landmark figures."""
    return [c for m in models for c in ([m, m + LM] if landmarks else [m])]


def item_figures(renderer, pcm, meta, models, keep=None, landmarks=False, dump=None, uid=""):
    """Raw openness per model of one item rendered through the library, and its figures (its `exclude`
    intervals left out). With `landmarks`, figs[m + LM] holds the landmark meter's figures (frames where Face
    Mesh found no face interpolated; their count in "no_face") and figs["disagree"][m] where the two meters
    disagree; `dump` (a directory) gets pictures of those frames (the pixel meter's interior pixels in red)."""
    if dump and keep is None:
        keep = {}
    raw = renderer.raw_openness(pcm, keep, landmarks=landmarks)
    figs = {m: utterance_figures(raw[m], meta["phones"], len(pcm), meta.get("exclude")) for m in models}
    if landmarks and renderer.last_landmarks:
        import landmarks as lmk
        figs["disagree"] = {}
        for m in models:
            lm_raw, missing = lmk.fill_missing(renderer.last_landmarks[m])
            f = utterance_figures(lm_raw, meta["phones"], len(pcm), meta.get("exclude"))
            if f is not None:
                f["no_face"] = missing
            figs[m + LM] = f
            figs["disagree"][m] = lmk.compare(raw[m], lm_raw, figs[m], f)
            if dump and renderer.last_zoom.get(m):
                crops, meter = keep[m], renderer.meter
                lmk.dump_pictures(dump, f"{uid}-{m}", renderer.last_zoom[m], raw[m], lm_raw,
                                  figs["disagree"][m], meta["phones"], lips=renderer.last_lips.get(m),
                                  origin=renderer.zoom[:2], pauses=renderer.dump_pauses,
                                  interior=lambda f, crops=crops, meter=meter: meter.interior(crops[f:f + 1])[0],
                                  interior_origin=meter.box[:2])
    return raw, figs


def print_targets(text, met):
    """The targets line and, per model, which of them its figures meet (`met`: {model: {target: bool}})."""
    print(f"targets: {text}")
    for m, ok in met.items():
        print(f"  {m}: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in ok.items()))
    print()


def real_set(renderer, directory, models, landmarks=False, only=None, dump=None):
    """The real recordings: figures per clip, per speaker and per split (val: speakers never trained on).
    `only`: the clips whose id contains one of these strings, or whose split is one of them."""
    data = load_dataset(directory)
    if only:
        data = [d for d in data if any(x in d[0] or x == d[2].get("split") for x in only)]
    if not data:
        raise SystemExit(f"no aligned recordings (<clip>.wav + <clip>.json) in {directory}")
    cols = columns(models, landmarks)
    clips = []
    for uid, pcm, meta in data:
        _, figs = item_figures(renderer, pcm, meta, models, landmarks=landmarks, dump=dump, uid=uid)
        clips.append({"id": uid, "speaker": meta.get("speaker", ""), "split": meta.get("split", ""),
                      "style": meta.get("style", ""), "transcript": meta.get("transcript", ""), **figs})
    out = {"clips": clips, "speakers": {}, "splits": {}}
    for sp in sorted({c["speaker"] for c in clips}):
        out["speakers"][sp] = {m: overall([c[m] for c in clips if c["speaker"] == sp]) for m in cols}
    for split in ("val", "train"):
        sel = [c for c in clips if c["split"] == split]
        if sel:
            out["splits"][split] = {m: overall([c[m] for c in sel]) for m in cols}
    out["splits"]["all"] = {m: overall([c[m] for c in clips]) for m in cols}
    if "val" in out["splits"]:
        out["targets_met"] = {m: meets_real(out["splits"]["val"][m]) for m in models}
        if landmarks:
            out["targets_met_landmarks"] = {m: meets_landmarks(out["splits"]["val"][m + LM]) for m in models}
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


def print_real(real, models, per_clip, landmarks=False):
    cols = columns(models, landmarks)
    if per_clip:
        print_table("real recording (split)", [(f"{c['id'][:20]} ({c['split']})", c) for c in real["clips"]],
                    cols)
    rows = [(f"speaker {sp}", f) for sp, f in real["speakers"].items()]
    print_table("real speech (per speaker)", rows, cols)
    names = {"val": "held-out speakers (val)", "train": "training speakers", "all": "all real recordings"}
    print_table("real speech (overall)", [(names[k], f) for k, f in real["splits"].items()], cols)
    if "targets_met" in real:
        print_targets(REAL_TARGETS + " (pixel meter)", real["targets_met"])
    if "targets_met_landmarks" in real:
        print_targets(LM_REAL_TARGETS, real["targets_met_landmarks"])


def print_languages(langs, models):
    import languages as lg
    rows = [(f"{lang} {lg.LANGUAGES.get(lang, ('', lang))[1]}", f) for lang, f in langs.items()]
    print_table("other languages (espeak-ng)", rows, models)
    print(f"targets: {LANG_TARGETS}")
    for m in models:
        missed = [lang for lang, f in langs.items() if not all(f["targets_met"][m].values())]
        print(f"  {m}: " + (f"met in all {len(langs)} languages" if not missed else "NOT met in " + ", ".join(missed)))
    print()


def split_items(result):
    """[(split name, [(item id, figs)])]: the synthetic validation voices, the held-out real speakers and the
    training real speakers."""
    out = [("synthetic (val voices)", [(u["id"], u) for u in result["utterances"]])]
    if "real" in result:
        for split, name in (("val", "held-out real speakers"), ("train", "training real speakers")):
            sel = [(c["id"], c) for c in result["real"]["clips"] if c["split"] == split]
            if sel:
                out.append((name, sel))
    return out


def meters_summary(result, models):
    """Both meters per split: {split: {column: overall figures}} and {split: {model: disagreement summary}}."""
    import landmarks as lmk
    cols = columns(models, True)
    figures, disagree = {}, {}
    for name, items in split_items(result):
        figures[name] = {c: overall([f.get(c) for _, f in items]) for c in cols}
        disagree[name] = {m: lmk.summarise([f["disagree"][m] for _, f in items if "disagree" in f]) for m in models}
    return figures, disagree


def print_meters(result, models, events=12):
    """The two meters side by side per split, closures per phone, and where they disagree."""
    cols = columns(models, True)
    figures, disagree = result["meters"]["figures"], result["meters"]["disagree"]
    print("== the two meters: pixels (mouth-interior pixel count) and landmarks (Face Mesh inner-lip gap 13-14 "
          f"over eye corners 33-263, {result['meters']['mode']} mode) ==\n")
    print_table("per split", list(figures.items()), cols)
    head = f"{'closures per phone':28s}" + "".join(f" | {column_name(c, cols):^27s}" for c in cols)
    print(head)
    print(f"{'':28s}" + " | ".join([""] + [" ".join(f"{b:>8s}" for b in BILABIALS) for _ in cols]))
    print("-" * len(head))
    for name, figs in figures.items():
        line = f"{name[:28]:28s}"
        for c in cols:
            bp = figs[c]["by_phone"]
            line += " | " + " ".join(f"{bp[b][0]:>3d}/{bp[b][1]:<4d}" for b in BILABIALS)
        print(line)
    print()
    for name, per_model in disagree.items():
        for m, d in per_model.items():
            po, lo = d["bilabials"]["pixel_only"], d["bilabials"]["landmark_only"]
            print(f"{name}, {m}: r between the meters {fmt(d['r_meters'])}; bilabials closed by the pixels only: "
                  f"{sum(po.values())} ({', '.join(f'{b} {po[b]}' for b in BILABIALS)}), by the landmarks only: "
                  f"{sum(lo.values())} ({', '.join(f'{b} {lo[b]}' for b in BILABIALS)}); pause frames closed by "
                  f"the pixels only: {d['pause']['pixel_only']}, by the landmarks only: {d['pause']['landmark_only']}")
    print()
    if events:
        for name, items in split_items(result):
            rows = []
            for uid, f in items:
                for m in models:
                    for e in f.get("disagree", {}).get(m, {}).get("bilabials", []):
                        rows.append((uid, m, e))
            if not rows:
                continue
            print(f"disagreeing bilabials, {name} (openness 0..1 of each meter, lowest within a frame of the "
                  f"midpoint; closed <= {CLOSED}):")
            for uid, m, e in rows[:events]:
                who = "pixels closed, landmarks open" if e["pixel_closed"] else "landmarks closed, pixels open"
                print(f"  {uid[:34]:34s} {m:8s} {e['phone']} at {e['frame'] / FPS:6.2f} s (frame {e['frame']:4d}): "
                      f"{who} (pixels {e['pixel_min']:.2f}, landmarks {e['landmark_min']:.2f})")
            if len(rows) > events:
                print(f"  ... and {len(rows) - events} more (--json lists them all)")
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
    ap.add_argument("--json-out", metavar="FILE", help="the machine-readable output written to FILE as well")
    ap.add_argument("--real", metavar="DIR",
                    help="real recordings aligned by align_real.py (tools/lipsync/real): reported per clip, "
                         "per speaker, and for the held-out (val) and training (train) speakers")
    ap.add_argument("--langs", metavar="DIR", help="other languages from languages.py (build/lipsync-lang)")
    ap.add_argument("--real-only", metavar="TEXT", action="append",
                    help="only the real clips whose id contains TEXT (repeatable), or 'val' / 'train' for a split")
    ap.add_argument("--no-landmarks", action="store_true",
                    help="only the pixel meter (the landmark meter needs mediapipe, see landmarks.py)")
    ap.add_argument("--landmark-video", action="store_true",
                    help="Face Mesh in video mode (tracking from frame to frame) instead of every frame on its own")
    ap.add_argument("--dump", metavar="DIR",
                    help="PNG pictures of the mouth (3x) at the frames where the two meters disagree")
    ap.add_argument("--dump-pauses", type=int, default=4, help="pause frames pictured per clip (default 4)")
    ap.add_argument("--events", type=int, default=12, help="disagreeing bilabials listed per split (default 12)")
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
    use_lm = not a.no_landmarks
    zoom = None
    if a.dump:
        x, y, w, h = read_imx_mouth(a.avatar)[0]
        zoom = (x - 40, y - 45, x + w + 40, y + h + 55)
        os.makedirs(a.dump, exist_ok=True)
    renderer = Renderer(library, a.avatar, models, landmarks=use_lm, zoom=zoom, landmark_video=a.landmark_video)
    renderer.dump_pauses = a.dump_pauses
    cols = columns(models, use_lm)
    per, kept = [], {}
    robust_n = 0 if a.no_robustness else min(a.robust_limit or len(data), len(data))
    # the robustness subset: spread evenly over the (sorted) data set, so every voice is in it
    robust_ids = {int(round(x)) for x in np.linspace(0, len(data) - 1, robust_n)} if robust_n else set()
    try:
        for k, (uid, pcm, meta) in enumerate(data):
            keep = {} if k in robust_ids else None
            raw, figs = item_figures(renderer, pcm, meta, models, keep, landmarks=use_lm, dump=a.dump, uid=uid)
            per.append((uid, meta.get("voice", ""), figs, raw))
            if keep is not None:
                kept[k] = keep
        clean = {c: overall([f[c] for _, _, f, _ in per]) for c in cols}
        result = {
            "library": a.lib, "version": library.lib.be_essence2_version().decode(), "avatar": a.avatar,
            "data": a.data, "models": models,
            "measure": {"kind": "mouth-interior pixel count", "box": renderer.meter.box,
                        "closed_band": CLOSED, "pause_min_s": PAUSE_MIN},
            "landmarks": {"kind": "Face Mesh inner-lip gap (13-14) over outer eye corners (33-263)",
                          "face_box": renderer.lm[models[0]].box,
                          "mode": "video" if a.landmark_video else "image"} if use_lm else None,
            "clean": clean,
            "targets_met": {m: meets(clean[m]) for m in models},
            "utterances": [{"id": uid, "voice": voice, **{c: f[c] for c in cols},
                            **({"disagree": f["disagree"]} if "disagree" in f else {})}
                           for uid, voice, f, _ in per],
        }
        if a.real:
            result["real"] = real_set(renderer, a.real, models, use_lm, a.real_only, a.dump)
        if use_lm:
            figures, disagree = meters_summary(result, models)
            result["meters"] = {"figures": figures, "disagree": disagree,
                                "mode": "video" if a.landmark_video else "image"}
        if a.langs:
            result["languages"] = language_sets(renderer, a.langs, models)
        if not a.no_robustness:
            import robustness
            result["robustness"] = robustness.run(renderer, a, data, per, kept, models)
    finally:
        renderer.close()
        library.lib.be_essence2_quiesce_all(2000)
    result["seconds"] = round(time.monotonic() - t0, 1)
    def as_json(o):
        return o.item() if isinstance(o, np.generic) else o

    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(result, f, indent=1, default=as_json)
    if a.json:
        json.dump(result, sys.stdout, indent=1, default=as_json)
        print()
        return 0
    print(f"lip-sync evaluation: libessence2 {result['version']}, {a.avatar}, {len(data)} utterances from {a.data}")
    print(f"openness: mouth-interior pixels in box x{renderer.meter.box[0]}..{renderer.meter.box[2]} "
          f"y{renderer.meter.box[1]}..{renderer.meter.box[3]}; closed band <= {CLOSED} of the utterance's "
          f"2nd..98th percentile; lag L: measured[t+L] vs expected[t], -1 = mouth leads\n")
    if not a.no_per_utterance:
        print_table("utterance", [(f"{uid} {voice}", f) for uid, voice, f, _ in per], cols)
    voices = sorted({voice for _, voice, _, _ in per})
    by_voice = [(f"voice {v}", {c: overall([f[c] for _, vv, f, _ in per if vv == v]) for c in cols})
                for v in voices] if len(voices) > 1 else []
    print_table("clean (overall)", [("all utterances", clean)] + by_voice, cols)
    print_targets(TARGETS, result["targets_met"])
    if "real" in result:
        print_real(result["real"], models, not a.no_per_utterance, use_lm)
    if "meters" in result:
        print_meters(result, models, a.events)
    if "languages" in result:
        print_languages(result["languages"], models)
    if "robustness" in result:
        robustness.print_report(result["robustness"], models, print_table)
    print(f"({result['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
