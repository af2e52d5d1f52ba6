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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finder import Finder, load_rgba, score  # noqa: E402


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


def verdicts(args):
    """Issue 45's table from the Python finder (the command's sure is a confidence of at least 0.5)."""
    import scoring
    finder = Finder(args.model, None if args.refine == "none" else args.refine)
    everything = json.load(open(args.labels))
    labels, hidden = everything["pictures"], everything.get("hidden_eyes", {})
    verdicts = []
    for name in sorted(labels):
        f = finder.find(load_rgba(os.path.join(args.pictures, name)))
        right, worst, error, ratio = scoring.judge(f, labels[name], hidden.get(name, []))
        v = scoring.verdict(f["confidence"] >= 0.5, right)
        verdicts.append(v)
        print(f"{name:34s} conf {f['confidence']:.2f} {worst:13s} {error:6.3f} {ratio:5.2f}  {v}", flush=True)
    print(scoring.tally(verdicts), flush=True)
    if args.drawn:
        import draw
        from train import large_scale
        rows = []
        for i in range(args.drawn):
            size = large_scale(999, 1000 + i) if args.large else {}
            img, p = draw.draw_scene(np.random.default_rng([999, 1000 + i]), negative=False, **size)
            f = finder.find(np.asarray(img))
            rows.append((f["confidence"] >= 0.5, scoring.judge(f, p)[0]))
        print(f"{args.drawn} drawn scenes{' at users sizes' if args.large else ''} (seed 999): "
              f"{scoring.shares(rows)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pictures", default="/work/shared/characters")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    ap.add_argument("--model", default="build/character/model.pt",
                    help="the weights (.pt or .e2nw); several, comma-separated: an ensemble (outputs averaged)")
    ap.add_argument("--refine", default="Sources/CCharacterWeights/character_refine.e2nw",
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
    ap.add_argument("--verdicts", action="store_true",
                    help="issue 45's scoring (scoring.py) instead: sure (confidence at least 0.5) and right on each "
                         "picture, and with --drawn N the share of sure answers and of those right")
    ap.add_argument("--large", action="store_true",
                    help="with --verdicts --drawn: the scenes drawn at users' sizes (train.large_scale)")
    args = ap.parse_args()
    if args.verdicts:
        return verdicts(args)
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
