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
from finder import KEYS, MIRROR, ZOOM, Finder, Refiner, build_refiner, crop_box, load_rgba, score  # noqa: E402
from train import large_scale  # noqa: E402

SHIFT = 0.22  # the crop centre's displacement from the true point: normal, this times the eye distance a coordinate
SCALE = 0.18  # the eye distance's misjudgement: log-normal, this sigma


def scene(seed, i, large=False):
    """Scene i of the seed (draw.py's and draw_styles.py's mix); large: draw.py's at users' sizes
    (train.large_scale: 512-1024 pixels, thinner lines)."""
    rng = np.random.default_rng([seed, i])
    size = large_scale(seed, i) if large else {}
    u = rng.random()
    if u < 0.55:
        img, p = draw.draw_scene(rng, negative=False, **size)
    elif u < 0.8:
        img, p = draw.draw_scene(rng, negative=False, extras=True, mouths=rng.random() < .5, **size)
    elif u < 0.92:
        img, p = draw_styles.draw_styled(rng)
    else:
        img, p = draw_styles.draw_face_profile(rng)
    return rng, np.asarray(img), p


def make_samples(job):
    seed, start, count = job[:3]
    large = len(job) > 3 and job[3] == "large"
    xs, ts, ks = [], [], []
    for i in range(start, start + count):
        rng, a, p = scene(seed, i, large)
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
            xs.append((sample_crop(a, *box, cap=0 if large else -1) * 255 + .5).astype(np.uint8))
            ts.append([(q[0] - box[0]) / box[2], (q[1] - box[1]) / box[2]])
            ks.append(k)
    return np.stack(xs), np.array(ts, np.float32), np.array(ks, np.int64)


def dataset(seed, scenes, cache, procs=2, large=False):
    os.makedirs(cache, exist_ok=True)
    chunk = 250
    jobs = [(seed, s, min(chunk, scenes - s)) + (("large",) if large else ()) for s in range(0, scenes, chunk)]
    path = lambda j: os.path.join(cache, f"refine-{'large-' if large else ''}{j[0]}-{j[1]}-{j[2]}-z{ZOOM}.npz")
    return cached_chunks(jobs, path, make_samples, ("x", "t", "k"), procs)


def train(args):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    parts = [] if args.large_only else [dataset(args.seed, args.scenes, args.cache, args.threads)]
    if args.large_scenes:
        parts.append(dataset(args.seed + 5, args.large_scenes, args.cache, args.threads, large=True))
    x, t, k = (np.concatenate(a) for a in zip(*parts))
    n = len(x)
    print(f"{n} crops", flush=True)
    net = build_refiner(args.channels)
    bs = 64
    steps = args.epochs * (n // bs)
    if args.init:  # fine-tuning an exported refiner: a cosine from 3e-4
        from common import calibrate_norms, file_layers, folded_into
        net = folded_into(net, file_layers(open(args.init, "rb").read())[1])
        calibrate_norms(net, x[np.random.default_rng(args.seed + 400).permutation(n)[:1024]])
        opt = torch.optim.AdamW(net.parameters(), 3e-4, weight_decay=1e-4)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    else:
        opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
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


def evaluate(args):
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
    """Writes DEST/character_refine.e2nw (export.py's E2NW format: 10 outputs, the five heatmaps' x, y) and its info
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
    ap.add_argument("--large-scenes", type=int, default=0, help="train: this many scenes at users' sizes as well "
                    "(train.large_scale; seed + 5)")
    ap.add_argument("--large-only", action="store_true", help="train: on the --large-scenes alone")
    ap.add_argument("--init", help="train: fine-tune these exported weights (.e2nw) instead of starting afresh")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--cache", default="build/character")
    ap.add_argument("--out", default="build/character/refine.pt")
    ap.add_argument("--refine", default="build/character/refine.pt")
    ap.add_argument("--model", default="Sources/CCharacterWeights/character_weights.e2nw")
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
