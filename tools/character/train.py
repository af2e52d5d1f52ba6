"""Trains the character point finder on pictures draw.py draws (never on outside pictures).

  python train.py [--scenes 12000] [--epochs 8] [--out build/character/model.pt]

Each drawn scene gives two training crops, the two passes the finder makes on a picture:
  whole: the whole picture in a square (letterboxed; jittered in size and place), as pass 1 sees it;
  head:  a square of HEAD_CROP times the head's size around the head (jittered), as pass 2 sees it.
Every crop is also seen mirrored (left and right labels swapped). Fixed seeds: the same command gives the same
data and, on the same machine and torch version, the same weights.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's small matrix products: threads only contend
import argparse
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import draw  # noqa: E402
import draw_styles  # noqa: E402
from common import (HEAD_CROP, build_net, cached_chunks, calibrate_norms, labels_to_vector,  # noqa: E402
                    load_net, mirror_vector, sample_crop)


def head_box(p):
    o = np.array(p["outline"])
    lo, hi = o.min(0), o.max(0)
    return (lo + hi) / 2, float(max(hi - lo))


LARGE_SCALES = (2, 3, 4)  # the "large" scenes' pixels a drawing unit: 512 to 1024 pixels, as users' pictures


def large_scale(seed, i):
    """draw_scene's scale and line factor for scene i of a "large" data set: drawn from a stream of their own, so
    the scene itself is the one the seed draws at scale 1. Lines 0.35-1 times as thick against the head as at
    scale 1: users' line art is thinner than the small drawings'."""
    rng = np.random.default_rng([seed, i, 5])
    return dict(scale=int(rng.choice(LARGE_SCALES)), lines=float(rng.uniform(0.35, 1.0)))


def make_samples(args):
    """Scenes [start, start+count) of the seed: uint8 crops (N x SIZE x SIZE x 4) and their labels."""
    seed, start, count, scenes = args
    three_crops = scenes in ("figure", "styles", "faces")
    xs, vs, ms, bs, objs = [], [], [], [], []
    for i in range(start, start + count):
        rng = np.random.default_rng([seed, i])
        if scenes == "styles":
            img, p = draw_styles.draw_styled(rng)
        elif scenes == "faces":
            img, p = draw_styles.draw_face_profile(rng)
        elif scenes == "mouths":
            img, p = draw.draw_scene(rng, extras=True, mouths=True)
        elif scenes == "large":
            img, p = draw.draw_scene(rng, extras=True, mouths=True, **large_scale(seed, i))
        elif scenes == "figure":
            img, p = draw.draw_scene(rng, negative=False, figure=True)
        else:
            img, p = draw.draw_scene(rng, extras=scenes == "extras")
        a = np.asarray(img)
        S = a.shape[0]
        for kind in ("whole", "head", "context") if three_crops else ("whole", "head"):
            if p is None or kind == "whole":
                side = S * rng.uniform(1.0, 1.4)
                x0 = rng.uniform(S - side, 0)
                y0 = rng.uniform(S - side, 0)
            elif kind == "context":  # a head box too large (the body in it), as a refinement pass may see it
                c, s = head_box(p)
                side = s * HEAD_CROP * rng.uniform(1.3, 4.0)
                x0 = c[0] - side / 2 + rng.uniform(-.3, .3) * side
                y0 = c[1] - side / 2 + rng.uniform(-.3, .3) * side
            else:
                c, s = head_box(p)
                side = s * HEAD_CROP * rng.uniform(0.8, 1.25)
                x0 = c[0] - side / 2 + rng.uniform(-.12, .12) * side
                y0 = c[1] - side / 2 + rng.uniform(-.12, .12) * side
            crop = sample_crop(a, x0, y0, side, cap=0 if scenes == "large" else -1)
            xs.append((crop * 255 + .5).astype(np.uint8))
            if p is None:
                vs.append(np.zeros(48, np.float32)); ms.append(0); bs.append(0.0); objs.append(0.0)
            else:
                v, m, b = labels_to_vector(p, x0, y0, side)
                vs.append(v); ms.append(m); bs.append(b); objs.append(1.0)
    return (np.stack(xs), np.stack(vs), np.array(ms, np.int64), np.array(bs, np.float32),
            np.array(objs, np.float32))


def dataset(seed, scenes, cache, kind="plain", procs=2):
    """The crops of scenes [0, scenes) of the seed, drawn in chunks of 250 scenes cached in `cache`. kind: "plain"
    (draw.draw_scene as the first stages drew it), "figure" (a body below the head, draw_scene(figure=True)),
    "extras" (draw_scene(extras=True): plush faces and bodies, bow ties and collars as well) or "styles"
    (draw_styles.draw_styled: side views, snowmen, line-art animals; three crops a scene as "figure") or "faces"
    (draw_styles.draw_face_profile: people's heads from the side; three crops a scene) or "mouths"
    (draw_scene(extras=True, mouths=True): closed mouths drawn as filled lips or bars, open ones as outlines or
    light interiors, as well) or "large" (those scenes drawn at users' sizes, 512-1024 pixels with thinner lines:
    large_scale)."""
    os.makedirs(cache, exist_ok=True)
    chunk = 250
    jobs = [(seed, s, min(chunk, scenes - s), kind) for s in range(0, scenes, chunk)]
    path = lambda j: os.path.join(cache, f"chunk-{'' if j[3] == 'plain' else j[3] + '-'}{j[0]}-{j[1]}-{j[2]}.npz")
    return cached_chunks(jobs, path, make_samples, ("x", "v", "m", "b", "o"), procs)


def run_epochs(net, opt, sched, epochs, g, data, out_path, label, steps=None):
    """steps: steps an epoch (default: the whole data once; else that many batches of a fresh permutation)."""
    import torch
    import torch.nn.functional as F
    x, v, vm, m, b, o = data
    n = len(x)
    bs = 64
    nsteps = steps or n // bs
    w = torch.from_numpy(W_POINTS)
    t0 = time.time()
    net.train()
    for ep in range(epochs):
        perm = g.permutation(n)
        tot = 0.0
        for k in range(nsteps):
            idx = perm[k * bs:(k + 1) * bs]
            flip = g.random(bs) < .5
            xb = x[idx].astype(np.float32) / 255.0 - 0.5
            xb[flip] = xb[flip, :, ::-1]
            vb = np.where(flip[:, None], vm[idx], v[idx])
            xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)))
            out = net(xt)
            pos = torch.from_numpy(o[idx])
            brow = torch.from_numpy(b[idx])
            wp = w[None, :].repeat(bs, 1)
            wp[:, 10:14] *= brow[:, None]
            lp = (F.smooth_l1_loss(out[:, :48], torch.from_numpy(vb), reduction="none", beta=.02) * wp).sum(1)
            lm = F.cross_entropy(out[:, 48:51], torch.from_numpy(m[idx]), reduction="none")
            lb = F.binary_cross_entropy_with_logits(out[:, 51], brow, reduction="none")
            lo = F.binary_cross_entropy_with_logits(out[:, 52], pos)
            loss = ((lp * 4 + .3 * lm + .2 * lb) * pos).sum() / pos.sum().clamp(min=1) + .3 * lo
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
        print(f"{label}epoch {ep + 1}/{epochs} loss {tot / nsteps:.4f} ({time.time() - t0:.0f} s)", flush=True)
        os.makedirs(os.path.dirname(out_path), exist_ok=True)
        net.eval()
        torch.save(net.state_dict(), out_path)  # after every epoch (the last one is the result)
        if steps:
            torch.save(net.state_dict(), out_path.replace(".pt", f"-ep{ep + 1}.pt"))
        net.train()
    net.eval()


# loss weights per entry of the 48-vector: eyes and mouth 1, brows .5 (only where drawn), radii .5, outline .3
W_POINTS = np.array([1.0] * 10 + [0.5] * 4 + [0.5] * 2 + [0.3] * 32, np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=20000)
    ap.add_argument("--epochs", type=int, default=9)
    ap.add_argument("--finetune-epochs", type=int, default=3)
    ap.add_argument("--init", help="start from these weights (e.g. stage 1's, with --epochs 0): a state dict, or "
                                   "an exported .e2nw (its batch norms are then set from the data so that the "
                                   "network computes what the file does)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default="build/character")
    ap.add_argument("--out", default="build/character/model.pt")
    ap.add_argument("--threads", type=int, default=2, help="torch threads and drawing processes")
    ap.add_argument("--figure-scenes", type=int, default=0,
                    help="stage 3: this many extra figure scenes (a body below the head; seed + 1), 3 crops each: "
                         "whole, head, and a head box 2-6 times too large")
    ap.add_argument("--extras-scenes", type=int, default=0,
                    help="stage 3: this many extra scenes with draw.py's later additions (plush faces and bodies, "
                         "bow ties, collars; seed + 2), 2 crops each")
    ap.add_argument("--styles-scenes", type=int, default=0,
                    help="stage 3: this many extra scenes of draw_styles.py (side views, snowmen, line-art animals; "
                         "seed + 3), 3 crops each: whole, head, and a head box too large")
    ap.add_argument("--faces-scenes", type=int, default=0,
                    help="this many extra scenes of draw_styles.draw_face_profile (people's heads from the side; "
                         "seed + 4), 3 crops each")
    ap.add_argument("--large-scenes", type=int, default=0,
                    help="this many extra scenes drawn at users' sizes (draw_scene(extras, mouths) at 512-1024 "
                         "pixels, thinner lines; seed + 5), 2 crops each")
    ap.add_argument("--large-only", action="store_true", help="train on the --large-scenes alone")
    ap.add_argument("--stage3-epochs", type=int, default=0,
                    help="stage 3: epochs of --stage3-steps steps at a constant learning rate 3e-4")
    ap.add_argument("--stage3-steps", type=int, default=250)
    ap.add_argument("--arch", choices=["heatmap", "dense"], default="heatmap",
                    help="the network (common.build_net): the heatmap one (committed), or the earlier dense one")
    ap.add_argument("--channels", type=int, default=0,
                    help="the heatmap network's width at 12 x 12 (default common.HEATMAP_CHANNELS, the committed 48)")
    args = ap.parse_args()

    import torch
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    extra = ((args.figure_scenes, args.seed + 1, "figure"), (args.extras_scenes, args.seed + 2, "extras"),
             (args.styles_scenes, args.seed + 3, "styles"), (args.faces_scenes, args.seed + 4, "faces"),
             (args.large_scenes, args.seed + 5, "large"))
    parts = [] if args.large_only else [dataset(args.seed, args.scenes, args.cache, procs=args.threads)]
    for count, seed, kind in extra:
        if count and (kind == "large" or not args.large_only):
            parts.append(dataset(seed, count, args.cache, kind=kind, procs=args.threads))
    x, v, m, b, o = (np.concatenate(arrays) for arrays in zip(*parts))
    vm = np.stack([mirror_vector(r) for r in v])
    n = len(x)
    print(f"{n} crops, {int(o.sum())} with a character", flush=True)
    data = (x, v, vm, m, b, o)

    net = build_net(args.arch, args.channels or None)
    if args.init and args.init.endswith(".e2nw"):
        net = load_net(args.init)
        calibrate_norms(net, x[np.random.default_rng(args.seed + 400).permutation(n)[:1024]])
    elif args.init:
        net.load_state_dict(torch.load(args.init))
    if args.epochs:
        opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
        steps = args.epochs * (n // 64)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=.15)
        run_epochs(net, opt, sched, args.epochs, np.random.default_rng(args.seed + 100), data, args.out, "")
    if args.finetune_epochs:
        # stage 2: a cosine from 1e-3 to 0, its own optimizer and random stream (so running it from the saved
        # stage-1 weights with --init gives the same result as one run)
        opt = torch.optim.AdamW(net.parameters(), 1e-3, weight_decay=1e-4)
        steps = args.finetune_epochs * (n // 64)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
        run_epochs(net, opt, sched, args.finetune_epochs, np.random.default_rng(args.seed + 200), data, args.out,
                   "fine-tune ")
    if args.stage3_epochs:
        # stage 3: with the figure or extras scenes, a constant 3e-4 (so epoch k's weights, saved as model-epK.pt, are what
        # --stage3-epochs k gives), its own optimizer and random stream
        opt = torch.optim.AdamW(net.parameters(), 3e-4, weight_decay=1e-4)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda _: 1.0)
        run_epochs(net, opt, sched, args.stage3_epochs, np.random.default_rng(args.seed + 300), data, args.out,
                   "stage 3 ", steps=args.stage3_steps)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
