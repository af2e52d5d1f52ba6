"""The character point finder's pipeline in Python (torch), the same steps as CharacterPointFinder.swift and its
refinement pass (CharacterPointFinder+Refinement.swift), shared by evaluate.py, refine.py, crossval.py and
make_fixtures.py (so that none of them imports another's command).

  Finder(model, refine)   the finder: a whole-picture crop, then REFINEMENTS rounds of head crops at SCALES, each
                          run plain and mirrored; the refinement pass (Refiner) on the found points
  Refiner(path)           the refinement pass (refine.py trains it): each point's crop of ZOOM eye distances
  score(found, label)     the largest error of the KEYS points over the labelled eye distance, and its point
"""
import os

import numpy as np
from PIL import Image

from common import HEAD_CROPS, MOUTHS, load_net, mirror_vector, sample_crop

KEYS = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"]
MIRROR = [1, 0, 3, 2, 4]  # a kind's index in the mirrored crop
ZOOM = 1.6  # the crop's side, in (found) eye distances
AGREEMENT_SCALE = 0.42  # CharacterPointFinder.agreementScale
REFINEMENTS = int(os.environ.get("CHARACTER_REFINEMENTS", "2"))
SCALES = [float(v) for v in os.environ["CHARACTER_SCALES"].split(",")] if "CHARACTER_SCALES" in os.environ \
    else list(HEAD_CROPS)


def load_rgba(path):
    return np.asarray(Image.open(path).convert("RGBA"))


class Finder:
    def __init__(self, model, refine=None):
        """refine: the refinement pass's weights (refine.py: .pt or .e2nw), run on the found points; None: none."""
        import torch
        self.torch = torch
        self.nets = [load_net(m) for m in model.split(",")]  # several: an ensemble, their outputs averaged
        if refine:
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
            dis_each = [np.linalg.norm(plain["points"][i] - mir["points"][i]) / ed for i in range(5)]
            spread_each = [max(np.linalg.norm(q["points"][i] - out["points"][i]) for q in plains + mirs) / ed
                           for i in range(5)]
            dis, spread = max(dis_each), max(spread_each)
        lg = out["logits"]
        character = 1 / (1 + np.exp(-lg[4]))
        conf = character * min(1, max(0, 1 - max(dis, spread) / AGREEMENT_SCALE))
        p = out["points"]
        shifts, splits = [0.0] * 5, [0.0] * 5
        if self.refiner:
            refined, _ = self.refiner.refine(rgba, {k: p[i] for i, k in enumerate(KEYS)})
            ed = max(1e-3, float(np.linalg.norm(p[1] - p[0])))
            shifts = [float(np.linalg.norm(np.subtract(refined[k], p[i]))) / ed for i, k in enumerate(KEYS)]
            splits = list(self.refiner.splits)
            p = np.array([refined[k] for k in KEYS] + [p[5], p[6]])
        brows = lg[3] > 0
        return dict(left_eye=p[0].tolist(), right_eye=p[1].tolist(), mouth_left=p[2].tolist(),
                    mouth_right=p[3].tolist(), mouth_center=p[4].tolist(),
                    left_brow=p[5].tolist() if brows else None, right_brow=p[6].tolist() if brows else None,
                    left_eye_radius=float(out["radii"][0]), right_eye_radius=float(out["radii"][1]),
                    mouth=MOUTHS[int(np.argmax(lg[:3]))], outline=out["outline"].tolist(), confidence=float(conf),
                    evidence=dict(character=float(character), disagreement=[float(d) for d in dis_each],
                                  spread=[float(d) for d in spread_each], shift=shifts, split=splits))


def score(found, label):
    ed = max(1e-6, np.linalg.norm(np.subtract(label["right_eye"], label["left_eye"])))
    errs = {k: np.linalg.norm(np.subtract(found[k], label[k])) / ed for k in KEYS}
    worst = max(errs, key=errs.get)
    return errs[worst], worst


def build_refiner(channels=32):
    import torch.nn as nn

    def block(cin, cout, stride, dilation=1):
        return [nn.Conv2d(cin, cout, 3, stride, dilation, dilation=dilation), nn.BatchNorm2d(cout), nn.ReLU()]
    c = channels
    layers = block(4, 16, 2) + block(16, 24, 2) + block(24, c, 2)
    for d in (1, 2, 4, 1):
        layers += block(c, c, 1, d)
    layers += [nn.Conv2d(c, 5, 3, 1, 1), point_heads(5)]
    return nn.Sequential(*layers)


def point_heads(k):
    import torch
    import torch.nn as nn

    class Points(nn.Module):
        """k heatmaps -> each's soft-argmax (x, y in crop units): N x 2k."""

        def __init__(self, k):
            super().__init__()
            self.k = k

        def forward(self, f):
            n, c, h, w = f.shape
            p = f.reshape(n, c, h * w).softmax(-1).reshape(n, c, h, w)
            xs = (torch.arange(w, dtype=f.dtype) + 0.5) / w
            ys = (torch.arange(h, dtype=f.dtype) + 0.5) / h
            return torch.stack([(p.sum(2) * xs).sum(-1), (p.sum(3) * ys).sum(-1)], -1).reshape(n, 2 * c)
    return Points(k)


def crop_box(point, ed):
    side = max(4.0, ZOOM * ed)
    return (point[0] - side / 2, point[1] - side / 2, side)


# A refined mouth centre farther than this times the mouth's width from the refined corners' middle is not taken
# (CharacterPointFinder.refinedCentreLimit).
CENTRE_LIMIT = 0.5


class Refiner:
    """The refinement pass (CharacterPointFinder.refine does the same): each point's crop run plain and mirrored,
    the two answers averaged; the mouth centre kept where it was when its answer lies far from the refined
    corners' middle (a bow tie or a chin below a closed mouth)."""

    def __init__(self, path, channels=32):
        self.path = path
        if path.endswith(".e2nw"):
            from export import forward
            data = open(path, "rb").read()
            self.forward = lambda crop: forward(data, (crop - 0.5).transpose(2, 0, 1).astype(np.float64))
        else:
            import torch
            net = build_refiner(channels)
            net.load_state_dict(torch.load(path))
            net.eval()

            def run(crop):
                x = torch.from_numpy(np.ascontiguousarray((crop - 0.5).transpose(2, 0, 1)[None]).astype(np.float32))
                with torch.no_grad():
                    return net(x)[0].numpy().astype(np.float64)
            self.forward = run

    def run(self, crop):
        return np.asarray(self.forward(crop), np.float64).reshape(5, 2)

    def refine(self, rgba, found, rounds=1):
        """found: dict of KEYS -> (x, y). Returns the new dict (the same keys) and the largest plain/mirrored
        disagreement (eye distances)."""
        pts = {k: np.asarray(found[k], np.float64) for k in KEYS}
        self.splits = [0.0] * len(KEYS)  # each point's plain/mirrored disagreement (eye distances), last round
        for _ in range(rounds):
            ed = max(2.0, float(np.linalg.norm(pts["right_eye"] - pts["left_eye"])))
            new = {}
            for i, key in enumerate(KEYS):
                box = crop_box(pts[key], ed)
                crop = sample_crop(rgba, *box)
                a = self.run(crop)[i]
                b = self.run(crop[:, ::-1])[MIRROR[i]]
                b = np.array([1 - b[0], b[1]])
                pa = np.array([box[0], box[1]]) + a * box[2]
                pb = np.array([box[0], box[1]]) + b * box[2]
                new[key] = (pa + pb) / 2
                self.splits[i] = float(np.linalg.norm(pa - pb)) / ed
            middle = (new["mouth_left"] + new["mouth_right"]) / 2
            width = max(1e-3, float(np.linalg.norm(new["mouth_right"] - new["mouth_left"])))
            if np.linalg.norm(new["mouth_center"] - middle) > CENTRE_LIMIT * width:
                new["mouth_center"] = pts["mouth_center"]
            pts = new
        return {k: v.tolist() for k, v in pts.items()}, max(self.splits)
