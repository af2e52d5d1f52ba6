"""Measures the character point finder on hand-labelled pictures (avatars/characters/labels.json).

  python evaluate.py [--pictures /work/shared/characters] [--model build/character/model.pt]
      the finder's pipeline in Python (torch), the same steps as CharacterPointFinder.swift
  python evaluate.py --dump DIR      writes each picture as DIR/name.rgba (+ name.json: width, height) for the
                                     Swift test CharacterPointFinderTests (CHARACTER_EVAL_DIR=DIR), which writes
                                     DIR/name.result.json
  python evaluate.py --swift DIR     the table from the Swift finder's results

Per picture: the largest error of the eye and mouth points (left_eye, right_eye, mouth_left, mouth_right,
mouth_center) divided by the labelled eye distance; "ok" when within 0.25.
"""
import argparse
import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HEAD_CROPS, MOUTHS, load_net, mirror_vector, sample_crop  # noqa: E402

KEYS = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"]
AGREEMENT_SCALE = 0.42  # CharacterPointFinder.agreementScale
REFINEMENTS = int(os.environ.get("CHARACTER_REFINEMENTS", "2"))
SCALES = [float(v) for v in os.environ["CHARACTER_SCALES"].split(",")] if "CHARACTER_SCALES" in os.environ \
    else list(HEAD_CROPS)


def load_rgba(path):
    return np.asarray(Image.open(path).convert("RGBA"))


class Finder:
    def __init__(self, model, refine=None):
        """refine: the refinement pass's weights (refine.py: .pt or .e2cp), run on the found points; None: none."""
        import torch
        self.torch = torch
        self.nets = [load_net(m) for m in model.split(",")]  # several: an ensemble, their outputs averaged
        if refine:
            from refine import Refiner
            self.refiner = Refiner(refine)
        else:
            self.refiner = None

    def run(self, crop):
        x = self.torch.from_numpy(np.ascontiguousarray((crop - 0.5).transpose(2, 0, 1)[None]).astype(np.float32))
        with self.torch.no_grad():
            return np.mean([net(x)[0].numpy().astype(np.float64) for net in self.nets], 0)

    @staticmethod
    def decode(v, x0, y0, side):
        pts = np.stack([x0 + v[0:48:2] * side, y0 + v[1:48:2] * side], 1)  # 24 points: 7, (radii slot), outline
        return dict(points=pts[:7], radii=v[14:16] / 10 * side, outline=np.stack([x0 + v[16:48:2] * side,
                                                                                  y0 + v[17:48:2] * side], 1),
                    logits=v[48:])

    def find(self, rgba):
        H, W = rgba.shape[:2]
        side = max(W, H)
        box = ((W - side) / 2, (H - side) / 2, side)
        out = self.decode(self.run(sample_crop(rgba, *box)), *box)
        dis = 0.0
        for _ in range(REFINEMENTS):
            o = out["outline"]
            lo, hi = o.min(0), o.max(0)
            c = (lo + hi) / 2
            plains, mirs = [], []
            for scale in SCALES:
                s = max(4.0, scale * float(max(hi - lo)))
                box = (c[0] - s / 2, c[1] - s / 2, s)
                crop = sample_crop(rgba, *box)
                plains.append(self.decode(self.run(crop), *box))
                mirs.append(self.decode(mirror_vector(self.run(crop[:, ::-1]).astype(np.float32)).astype(np.float64), *box))
            plain = {k: np.mean([p[k] for p in plains], 0) for k in plains[0]}
            mir = {k: np.mean([p[k] for p in mirs], 0) for k in mirs[0]}
            out = {k: (plain[k] + mir[k]) / 2 for k in plain}
            ed = max(1e-3, np.linalg.norm(out["points"][1] - out["points"][0]))
            dis = max(np.linalg.norm(plain["points"][i] - mir["points"][i]) for i in range(5)) / ed
            spread = max(np.linalg.norm(q["points"][i] - out["points"][i])
                         for q in plains + mirs for i in range(5)) / ed
        lg = out["logits"]
        character = 1 / (1 + np.exp(-lg[4]))
        conf = character * min(1, max(0, 1 - max(dis, spread) / AGREEMENT_SCALE))
        p = out["points"]
        if self.refiner:
            refined, _ = self.refiner.refine(rgba, {k: p[i] for i, k in enumerate(KEYS)})
            p = np.array([refined[k] for k in KEYS] + [p[5], p[6]])
        brows = lg[3] > 0
        return dict(left_eye=p[0].tolist(), right_eye=p[1].tolist(), mouth_left=p[2].tolist(),
                    mouth_right=p[3].tolist(), mouth_center=p[4].tolist(),
                    left_brow=p[5].tolist() if brows else None, right_brow=p[6].tolist() if brows else None,
                    left_eye_radius=float(out["radii"][0]), right_eye_radius=float(out["radii"][1]),
                    mouth=MOUTHS[int(np.argmax(lg[:3]))], outline=out["outline"].tolist(), confidence=float(conf))


def score(found, label):
    ed = max(1e-6, np.linalg.norm(np.subtract(label["right_eye"], label["left_eye"])))
    errs = {k: np.linalg.norm(np.subtract(found[k], label[k])) / ed for k in KEYS}
    worst = max(errs, key=errs.get)
    return errs[worst], worst


def table(results, labels):
    print(f"{'picture':34s} {'error/eye dist':>14s}  worst point    mouth (found/label)  confidence")
    ok = 0
    for name in sorted(labels):
        if name not in results:
            print(f"{name:34s} {'(no result)':>14s}")
            continue
        f = results[name]
        e, worst = score(f, labels[name])
        ok += e <= 0.25
        print(f"{name:34s} {e:14.3f}  {worst:14s} {f['mouth']:>7s}/{labels[name]['mouth']:<8s}    {f['confidence']:.2f}"
              + ("" if e <= 0.25 else "   > 0.25"))
    print(f"{ok} of {len(labels)} within 0.25 of the eye distance")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pictures", default="/work/shared/characters")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    ap.add_argument("--model", default="build/character/model.pt",
                    help="the weights (.pt or .e2cp); several, comma-separated: an ensemble (outputs averaged)")
    ap.add_argument("--refine", default="Sources/CCharacterWeights/character_refine.e2cp",
                    help="the refinement pass's weights (refine.py), or none")
    ap.add_argument("--dump")
    ap.add_argument("--swift")
    ap.add_argument("--drawn", type=int, default=0, help="also measure on this many drawn scenes (seed 999)")
    ap.add_argument("--extras", action="store_true",
                    help="the drawn scenes with draw.py's later additions (plush faces and bodies, bow ties, collars)")
    ap.add_argument("--styles", action="store_true",
                    help="the drawn scenes of draw_styles.py (side views, snowmen, line-art animals) instead")
    ap.add_argument("--mouths", action="store_true",
                    help="the drawn scenes with draw.py's mouth styles (filled lips, bars, outlined open mouths) and "
                         "extras")
    ap.add_argument("--faces", action="store_true",
                    help="the drawn scenes of draw_styles.draw_face_profile (people's heads from the side) instead")
    args = ap.parse_args()
    labels = json.load(open(args.labels))["pictures"]
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        for name in labels:
            a = load_rgba(os.path.join(args.pictures, name))
            a.tofile(os.path.join(args.dump, name + ".rgba"))
            json.dump({"width": a.shape[1], "height": a.shape[0]}, open(os.path.join(args.dump, name + ".json"), "w"))
        return
    if args.swift:
        results = {}
        for name in labels:
            p = os.path.join(args.swift, name + ".result.json")
            if os.path.exists(p):
                results[name] = json.load(open(p))
        table(results, labels)
        return
    finder = Finder(args.model, None if args.refine == "none" else args.refine)
    if args.drawn:
        import draw
        errs, mouths_right = [], []
        for i in range(args.drawn):
            rng = np.random.default_rng([999, 1000 + i])
            if args.styles or args.faces:
                import draw_styles
                img, p = (draw_styles.draw_face_profile if args.faces else draw_styles.draw_styled)(rng)
            else:
                img, p = draw.draw_scene(rng, negative=False, extras=args.extras or args.mouths, mouths=args.mouths)
            found = finder.find(np.asarray(img))
            errs.append(score(found, p)[0])
            mouths_right.append(found["mouth"] == p["mouth"])
        errs = np.array(errs)
        what = ("drawn side views of faces" if args.faces else "drawn scenes with mouth styles" if args.mouths
                else "drawn scenes of draw_styles" if args.styles else "drawn scenes with extras" if args.extras
                else "drawn scenes")
        print(f"{args.drawn} {what} (seed 999, never trained on): median {np.median(errs):.3f} eye distances, "
              f"{(errs <= .15).mean() * 100:.0f} % within 0.15, {(errs <= .25).mean() * 100:.0f} % within 0.25; "
              f"mouth state right {np.mean(mouths_right) * 100:.0f} %")
    results = {name: finder.find(load_rgba(os.path.join(args.pictures, name))) for name in labels}
    os.makedirs("build/character", exist_ok=True)
    json.dump(results, open("build/character/python-results.json", "w"), indent=1)
    table(results, labels)


if __name__ == "__main__":
    main()
