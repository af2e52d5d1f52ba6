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
