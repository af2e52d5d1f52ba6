"""An experiment, not the committed recipe: does training on some of the labelled pictures help on the others?

  python crossval.py [--pictures /work/shared/characters] [--crops 1000] [--epochs 8] [--fold A|B|both]

The 14 labelled pictures (avatars/characters/labels.json) are split in two fixed halves of 7, each with a mix of
styles. For each fold, a stage 3 starts from the committed weights (Sources/CCharacterWeights/character_weights.e2nw)
on the 10,000 plain drawn scenes of train.py's cache (seed 1) plus `--crops` augmented crops of each picture of
one half (a rotation of up to 14 degrees about the head and a vertical stretch, shared by 25 crops; whole-picture,
head and too-large head boxes as train.py's; channel mixing, contrast, brightness, gamma, noise and blur on the crop;
a transparent picture on a random backdrop), then the finder (evaluate.py's) runs on the **other** half, never
trained on, after every epoch. The committed weights never saw any of the 14: the held-out figures are what
comparing them with it measures.

Fixed seeds (crops 77, batches 301), one thread. About 6 minutes of crops and 3 minutes an epoch a fold on one
core of the development machine.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse
import json
import math
import sys
import time

import numpy as np
from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402
from common import HEAD_CROP, POINT_NAMES, calibrate_norms, labels_to_vector, load_net, mirror_vector, \
    sample_crop  # noqa: E402

FOLDS = {
    "A": ["a_simple_pig_01.png", "brozo_the_clown_enrique__01.png", "cartoon_squirrel_mike_sm1.png",
          "happy_woman_dirk_struve_01.png", "head5.png", "plush_xpuppy.png", "tux_head_fco._andrade_01.png"],
    "B": ["alien_peterm_01.png", "camel_head_01.png", "dog_head_nicu_buculei_02.png", "head2.png",
          "plush_xbrummi.png", "snowman_01.png", "wizard.png"],
}
WEIGHTS = "Sources/CCharacterWeights/character_weights.e2nw"
PER_ROTATION = 25  # crops sharing one rotated picture


def transform_labels(labels, m):
    """The labels under the affine map m (2 x 3, picture -> augmented picture)."""
    f = lambda q: None if q is None else [m[0][0] * q[0] + m[0][1] * q[1] + m[0][2],
                                          m[1][0] * q[0] + m[1][1] * q[1] + m[1][2]]
    out = dict(labels)
    for k in POINT_NAMES:
        out[k] = f(labels[k])
    s = math.hypot(m[0][0], m[1][0])
    out["left_eye_radius"] = labels["left_eye_radius"] * s
    out["right_eye_radius"] = labels["right_eye_radius"] * s
    out["outline"] = [f(q) for q in labels["outline"]]
    return out


def rotate(rng, img, labels):
    """The picture turned about its head's centre (up to 14 degrees, 70 %) and stretched vertically (0.9-1.1,
    30 %), and its labels with it."""
    w, h = img.size
    o = np.array(labels["outline"])
    c = (o.min(0) + o.max(0)) / 2
    th = math.radians(rng.uniform(-14, 14)) if rng.random() < .7 else 0.0
    sy = rng.uniform(.9, 1.1) if rng.random() < .3 else 1.0
    a = np.array([[math.cos(th), -math.sin(th) * sy], [math.sin(th), math.cos(th) * sy]])
    t = c - a @ c
    ai = np.linalg.inv(a)
    ti = -ai @ t
    turned = img.transform((w, h), Image.AFFINE, (ai[0, 0], ai[0, 1], ti[0], ai[1, 0], ai[1, 1], ti[1]),
                           resample=Image.BICUBIC)
    return np.asarray(turned), transform_labels(labels, np.hstack([a, t[:, None]]))


def region_crop(rgba, x0, y0, side):
    """sample_crop of only the part of the picture the box can touch: the same values, less work."""
    h, w = rgba.shape[:2]
    xa, ya = max(0, int(math.floor(x0)) - 3), max(0, int(math.floor(y0)) - 3)
    xb, yb = min(w, int(math.ceil(x0 + side)) + 3), min(h, int(math.ceil(y0 + side)) + 3)
    if xb <= xa or yb <= ya:
        return sample_crop(np.zeros((1, 1, 4), np.uint8), x0, y0, side)
    return sample_crop(rgba[ya:yb, xa:xb], x0 - xa, y0 - ya, side)


def recolour(rng, crop):
    """Colour augmentation of a crop (SIZE x SIZE x 4 in 0...1, composited over white)."""
    rgb, alpha = crop[..., :3].copy(), crop[..., 3:4]
    if rng.random() < .5 and alpha.min() < .98:  # transparent parts: a random backdrop in place of white
        rgb = rgb - (1 - alpha) + (1 - alpha) * rng.uniform(0, 1, 3).astype(np.float32)
        alpha = np.ones_like(alpha)
    if rng.random() < .5:  # a channel mix close to a permutation
        mix = np.eye(3)[rng.permutation(3)] * rng.uniform(.7, 1) + rng.uniform(0, .3, (3, 3)) / 3
        rgb = rgb @ (mix / mix.sum(1, keepdims=True)).T.astype(np.float32)
    if rng.random() < .6:
        rgb = (rgb - .5) * rng.uniform(.7, 1.3) + .5 + rng.uniform(-.12, .12)
    if rng.random() < .3:
        rgb = np.clip(rgb, 0, 1) ** rng.uniform(.7, 1.4)
    if rng.random() < .3:
        rgb = rgb + rng.normal(0, rng.uniform(.01, .05), rgb.shape)
    out = np.concatenate([np.clip(rgb, 0, 1), alpha], 2).astype(np.float32)
    if rng.random() < .2:
        blurred = Image.fromarray((out * 255 + .5).astype(np.uint8))
        out = np.asarray(blurred.filter(ImageFilter.GaussianBlur(rng.uniform(.4, 1)))).astype(np.float32) / 255
    return out


def picture_samples(names, labels, per, seed, pictures):
    """per augmented crops of each named picture, in train.make_samples's arrays (crops, vectors, mouths, brows,
    character)."""
    xs, vs, ms, bs = [], [], [], []
    for j, name in enumerate(names):
        img = Image.open(os.path.join(pictures, name)).convert("RGBA")
        rng = np.random.default_rng([seed, j])
        for i in range(per):
            if i % PER_ROTATION == 0:
                a, p = rotate(rng, img, labels[name])
                h, w = a.shape[:2]
                s_pic = max(w, h)
                c, s = train.head_box(p)
            kind = rng.choice(["whole", "head", "head", "context"])
            if kind == "whole":
                side = s_pic * rng.uniform(1.0, 1.4)
                x0 = (w - s_pic) / 2 + rng.uniform(s_pic - side, 0)
                y0 = (h - s_pic) / 2 + rng.uniform(s_pic - side, 0)
            elif kind == "context":
                side = s * HEAD_CROP * rng.uniform(1.3, 3.0)
                x0 = c[0] - side / 2 + rng.uniform(-.3, .3) * side
                y0 = c[1] - side / 2 + rng.uniform(-.3, .3) * side
            else:
                side = s * HEAD_CROP * rng.uniform(0.75, 1.3)
                x0 = c[0] - side / 2 + rng.uniform(-.15, .15) * side
                y0 = c[1] - side / 2 + rng.uniform(-.15, .15) * side
            xs.append((recolour(rng, region_crop(a, x0, y0, side)) * 255 + .5).astype(np.uint8))
            v, m, b = labels_to_vector(p, x0, y0, side)
            vs.append(v)
            ms.append(m)
            bs.append(b)
    n = len(xs)
    return np.stack(xs), np.stack(vs), np.array(ms, np.int64), np.array(bs, np.float32), np.ones(n, np.float32)


def held_out(model_path, names, labels, pictures):
    """evaluate.py's finder on the named pictures: (within 0.25, automatic, lines)."""
    from finder import Finder, load_rgba, score
    finder = Finder(model_path)
    within = automatic = 0
    lines = []
    for name in names:
        r = finder.find(load_rgba(os.path.join(pictures, name)))
        e, worst = score(r, labels[name])
        within += e <= .25
        automatic += e <= .25 and r["confidence"] >= .5
        lines.append(f"  {name:34s} {e:7.3f}  {worst:13s} confidence {r['confidence']:.2f}")
    return within, automatic, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pictures", default="/work/shared/characters")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    ap.add_argument("--crops", type=int, default=1000, help="augmented crops of each training picture")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--fold", choices=["A", "B", "both"], default="both", help="the half trained on")
    ap.add_argument("--out", default="build/character/crossval")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    labels = json.load(open(args.labels))["pictures"]
    drawn = train.dataset(1, 10000, "build/character", procs=1)
    os.makedirs(args.out, exist_ok=True)
    for fold in (["A", "B"] if args.fold == "both" else [args.fold]):
        torch.manual_seed(1)
        test = FOLDS["B" if fold == "A" else "A"]
        t = time.time()
        real = picture_samples(FOLDS[fold], labels, args.crops, 77, args.pictures)
        print(f"fold {fold}: {len(real[0])} crops of its 7 pictures in {time.time() - t:.0f} s", flush=True)
        x, v, m, b, o = (np.concatenate([p, q]) for p, q in zip(drawn, real))
        vm = np.stack([mirror_vector(r) for r in v])
        net = load_net(WEIGHTS)
        within, automatic, _ = held_out(WEIGHTS, test, labels, args.pictures)
        print(f"fold {fold}, committed weights on the other 7: {within} within 0.25, {automatic} automatic",
              flush=True)
        calibrate_norms(net, x[np.random.default_rng(401).permutation(len(x))[:1024]])
        opt = torch.optim.AdamW(net.parameters(), 3e-4, weight_decay=1e-4)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda _: 1.0)
        path = os.path.join(args.out, f"fold{fold}.pt")
        train.run_epochs(net, opt, sched, args.epochs, np.random.default_rng(301), (x, v, vm, m, b, o), path,
                         f"fold {fold} ", steps=args.steps)
        for ep in range(1, args.epochs + 1):
            within, automatic, lines = held_out(path.replace(".pt", f"-ep{ep}.pt"), test, labels, args.pictures)
            print(f"fold {fold}, epoch {ep}, on the other 7: {within} within 0.25, {automatic} automatic")
            if ep == args.epochs:
                print("\n".join(lines))


if __name__ == "__main__":
    main()
