"""Writes the Swift test's fixtures: a few characters draw.py draws (seed 999, never used in training), at 128 x 128,
as raw RGBA bytes (name.rgba) and their true points (name.json) in Tests/Essence2Tests/Fixtures/characters/.

  python make_fixtures.py [--model M] [indices...]

With the model present (default build/character/model.pt; an exported .e2nw works too), each JSON also gets
"reference": what finder.py's Python finder (the same steps as the Swift one, the committed refinement pass
REFINE included) finds, which the Swift test matches to a hundredth of a pixel or so.
"""
import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import draw  # noqa: E402

OUT = "Tests/Essence2Tests/Fixtures/characters"
SIDE = 128
REFINE = "Sources/CCharacterWeights/character_refine.e2nw"


def scene(i):
    rng = np.random.default_rng([999, i])
    return draw.draw_scene(rng, negative=False)


def main():
    args = sys.argv[1:]
    model = "build/character/model.pt"
    if args[:1] == ["--model"]:
        model, args = args[1], args[2:]
    indices = [int(a) for a in args] or [0, 2, 9, 13]
    finder = None
    if os.path.exists(model):
        from finder import Finder
        finder = Finder(model, REFINE)
    os.makedirs(OUT, exist_ok=True)
    for i in indices:
        img, p = scene(i)
        f = SIDE / img.size[0]
        a = np.asarray(img.resize((SIDE, SIDE), Image.LANCZOS))
        a.tofile(os.path.join(OUT, f"drawn_{i}.rgba"))

        def s(q):
            return None if q is None else [round(q[0] * f, 2), round(q[1] * f, 2)]
        doc = {k: s(p[k]) for k in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center",
                                    "left_brow", "right_brow")}
        doc.update(width=SIDE, height=SIDE, mouth=p["mouth"], left_eye_radius=round(p["left_eye_radius"] * f, 2),
                   right_eye_radius=round(p["right_eye_radius"] * f, 2), outline=[s(q) for q in p["outline"]])
        if finder is not None:
            r = finder.find(a)
            doc["reference"] = {k: r[k] for k in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center",
                                                  "confidence")}
        json.dump(doc, open(os.path.join(OUT, f"drawn_{i}.json"), "w"), indent=1)
        print("wrote", f"drawn_{i}", p["mouth"])


if __name__ == "__main__":
    main()
