"""The finder's refinement pass (CharacterPointFinder+Refinement.swift): its points, each looked at again up close.

  python refine.py train [--scenes 10000] [--epochs 8] [--out build/character/refine.pt]
  python refine.py export [--refine build/character/refine.pt] [--dest Sources/CCharacterWeights]
  python refine.py evaluate [--refine build/character/refine.pt] [--drawn 100] [--rounds 1]

The finder reads a head crop of 96 pixels for 1.6 head sizes; a quarter eye distance is then 4-10 crop pixels
on front faces, with heatmap cells of 8. This pass takes, around each found point (the eyes, the mouth's corners
and centre), a square of ZOOM found eye distances, and a small network of its own (five heatmaps, one a kind of
point) says where that point is in it. It is trained on the same drawings (draw.py, draw_styles.py), the
crop's centre displaced from the true point as the finder's errors are, the eye distance it is scaled by
misjudged as the finder's is. Fixed seeds (default 11): the same command draws the same crops and, on the same
machine, thread count and torch version, trains the same weights (the committed ones: two threads).
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse
import json
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import draw  # noqa: E402
import draw_styles  # noqa: E402
from common import cached_chunks, sample_crop  # noqa: E402

KEYS = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"]
MIRROR = [1, 0, 3, 2, 4]  # a kind's index in the mirrored crop
ZOOM = 1.6  # the crop's side, in (found) eye distances
SHIFT = 0.22  # the crop centre's displacement from the true point: normal, this times the eye distance a coordinate
SCALE = 0.18  # the eye distance's misjudgement: log-normal, this sigma


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


def scene(seed, i):
    rng = np.random.default_rng([seed, i])
    u = rng.random()
    if u < 0.55:
        img, p = draw.draw_scene(rng, negative=False)
    elif u < 0.8:
        img, p = draw.draw_scene(rng, negative=False, extras=True, mouths=rng.random() < .5)
    elif u < 0.92:
        img, p = draw_styles.draw_styled(rng)
    else:
        img, p = draw_styles.draw_face_profile(rng)
    return rng, np.asarray(img), p


def make_samples(job):
    seed, start, count = job
    xs, ts, ks = [], [], []
    for i in range(start, start + count):
        rng, a, p = scene(seed, i)
        if p is None:
            continue
        ed = float(np.linalg.norm(np.subtract(p["right_eye"], p["left_eye"])))
        if ed < 2:
            continue
        for k, key in enumerate(KEYS):
            q = np.asarray(p[key], np.float64)
            e = ed * float(np.exp(rng.normal(0, SCALE)))
            c = q + rng.normal(0, SHIFT, 2) * ed
            box = crop_box(c, e)
            xs.append((sample_crop(a, *box) * 255 + .5).astype(np.uint8))
            ts.append([(q[0] - box[0]) / box[2], (q[1] - box[1]) / box[2]])
            ks.append(k)
    return np.stack(xs), np.array(ts, np.float32), np.array(ks, np.int64)


def dataset(seed, scenes, cache, procs=2):
    os.makedirs(cache, exist_ok=True)
    chunk = 250
    jobs = [(seed, s, min(chunk, scenes - s)) for s in range(0, scenes, chunk)]
    path = lambda j: os.path.join(cache, f"refine-{j[0]}-{j[1]}-{j[2]}-z{ZOOM}.npz")
    return cached_chunks(jobs, path, make_samples, ("x", "t", "k"), procs)


def train(args):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    x, t, k = dataset(args.seed, args.scenes, args.cache, args.threads)
    n = len(x)
    print(f"{n} crops", flush=True)
    net = build_refiner(args.channels)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    bs = 64
    steps = args.epochs * (n // bs)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=.15)
    g = np.random.default_rng(args.seed + 100)
    mirror = torch.tensor(MIRROR)
    t0 = time.time()
    net.train()
    for ep in range(args.epochs):
        perm = g.permutation(n)
        tot = 0.0
        for s in range(n // bs):
            idx = perm[s * bs:(s + 1) * bs]
            flip = g.random(bs) < .5
            xb = x[idx].astype(np.float32) / 255.0 - 0.5
            xb[flip] = xb[flip, :, ::-1]
            tb = t[idx].copy()
            tb[flip, 0] = 1 - tb[flip, 0]
            kb = torch.from_numpy(k[idx])
            kb = torch.where(torch.from_numpy(flip), mirror[kb], kb)
            out = net(torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)))).reshape(bs, 5, 2)
            pred = out[torch.arange(bs), kb]
            loss = F.smooth_l1_loss(pred, torch.from_numpy(tb), beta=.02) * 4
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
        print(f"epoch {ep + 1}/{args.epochs} loss {tot / (n // bs):.4f} ({time.time() - t0:.0f} s)", flush=True)
        net.eval()
        torch.save(net.state_dict(), args.out)
        net.train()


# A refined mouth centre farther than this times the mouth's width from the refined corners' middle is not taken
# (CharacterPointFinder.refinedCentreLimit).
CENTRE_LIMIT = 0.5


class Refiner:
    """The refinement pass (CharacterPointFinder.refine does the same): each point's crop run plain and mirrored,
    the two answers averaged; the mouth centre kept where it was when its answer lies far from the refined
    corners' middle (a bow tie or a chin below a closed mouth)."""

    def __init__(self, path, channels=32):
        self.path = path
        if path.endswith(".e2cp"):
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
        dis = 0.0
        for _ in range(rounds):
            ed = max(2.0, float(np.linalg.norm(pts["right_eye"] - pts["left_eye"])))
            new, dis = {}, 0.0
            for i, key in enumerate(KEYS):
                box = crop_box(pts[key], ed)
                crop = sample_crop(rgba, *box)
                a = self.run(crop)[i]
                b = self.run(crop[:, ::-1])[MIRROR[i]]
                b = np.array([1 - b[0], b[1]])
                pa = np.array([box[0], box[1]]) + a * box[2]
                pb = np.array([box[0], box[1]]) + b * box[2]
                new[key] = (pa + pb) / 2
                dis = max(dis, float(np.linalg.norm(pa - pb)) / ed)
            middle = (new["mouth_left"] + new["mouth_right"]) / 2
            width = max(1e-3, float(np.linalg.norm(new["mouth_right"] - new["mouth_left"])))
            if np.linalg.norm(new["mouth_center"] - middle) > CENTRE_LIMIT * width:
                new["mouth_center"] = pts["mouth_center"]
            pts = new
        return {k: v.tolist() for k, v in pts.items()}, dis


def evaluate(args):
    from evaluate import Finder, load_rgba, score
    finder = Finder(args.model)
    ref = Refiner(args.refine, args.channels)
    labels = json.load(open(args.labels))["pictures"]
    rows = []
    if args.drawn:
        before, after = [], []
        for i in range(args.drawn):
            rng = np.random.default_rng([999, 1000 + i])
            img, p = draw.draw_scene(rng, negative=False, extras=args.extras)
            a = np.asarray(img)
            f = finder.find(a)
            r, _ = ref.refine(a, f, args.rounds)
            before.append(score(f, p)[0])
            after.append(score(r, p)[0])
        for name, e in (("before", before), ("after", after)):
            e = np.array(e)
            print(f"drawn {args.drawn} {name}: median {np.median(e):.3f}, {(e <= .15).mean() * 100:.0f} % within "
                  f"0.15, {(e <= .25).mean() * 100:.0f} % within 0.25", flush=True)
    ok0 = ok1 = 0
    for name in sorted(labels):
        a = load_rgba(os.path.join(args.pictures, name))
        f = finder.find(a)
        r, dis = ref.refine(a, f, args.rounds)
        e0, w0 = score(f, labels[name])
        e1, w1 = score(r, labels[name])
        ok0 += e0 <= .25
        ok1 += e1 <= .25
        rows.append((name, e0, w0, e1, w1, f["confidence"], dis))
        print(f"{name:34s} {e0:7.3f} {w0:13s} -> {e1:7.3f} {w1:13s} conf {f['confidence']:.2f} dis {dis:.2f}",
              flush=True)
    print(f"within 0.25: {ok0} -> {ok1} of {len(labels)}")


def export(args):
    """Writes DEST/character_refine.e2cp (export.py's format: 10 outputs, the five heatmaps' x, y) and its info
    header, and checks the file's own forward pass against torch's."""
    import torch

    from export import encode, forward, layers_of, write
    net = build_refiner(args.channels)
    net.load_state_dict(torch.load(args.refine))
    net.eval()
    data = encode(layers_of(net))
    sha = write(data, args.dest, "character_refine", "the character point finder's refinement weights", "refine.py")
    x = np.random.default_rng(0).uniform(-.5, .5, (4, 96, 96))
    with torch.no_grad():
        ref = net(torch.from_numpy(x[None]).float())[0].double().numpy()
    diff = np.abs(forward(data, x) - ref).max()
    print(f"wrote {len(data)} bytes, sha256 {sha}; the file's forward pass matches torch within {diff:.2e}")
    assert diff < 1e-3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["train", "evaluate", "export"])
    ap.add_argument("--scenes", type=int, default=10000)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--cache", default="build/character")
    ap.add_argument("--out", default="build/character/refine.pt")
    ap.add_argument("--refine", default="build/character/refine.pt")
    ap.add_argument("--model", default="Sources/CCharacterWeights/character_weights.e2cp")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    ap.add_argument("--pictures", default="/work/shared/characters")
    ap.add_argument("--drawn", type=int, default=0)
    ap.add_argument("--extras", action="store_true")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--dest", default="Sources/CCharacterWeights")
    args = ap.parse_args()
    {"train": train, "evaluate": evaluate, "export": export}[args.what](args)


if __name__ == "__main__":
    main()
