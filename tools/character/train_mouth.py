"""Retrains the finder's mouth-state outputs alone (open / closed / absent), every other weight unchanged.

  python tools/character/train_mouth.py [--init Sources/CCharacterWeights/character_weights.e2nw]
      [--out build/character/mouth]   (writes OUT/character_weights.e2nw and OUT/include/..._info.h)

Why: the network's mouth state came from drawings whose closed mouths are bare lines and whose open mouths are
dark filled shapes, so on users' pictures a filled closed mouth (lips with the line between them, a bar) reads as
open, and the builder then treats it as a drawn opening (it shuts it at rest, painting over the lips). Here the
three mouth logits (the last convolution's output channels 25-27; common.HEATMAP_ORDER) are fitted again on the
frozen network's features of drawn scenes that include draw.py's `mouths=True` styles (filled lips, bars, open
mouths drawn as outlines or with light interiors). The points, radii, brows and character outputs, and so every
point the finder gives, stay exactly as they were: the file differs from --init only in those channels' weights.

The mouth logits are the means over the 12 x 12 map of a 3 x 3 convolution of the features, so they are linear in
the 9 shifted means of each feature channel (432 numbers a crop, computed once): the fit is a multinomial logistic
regression from the committed values, on crops and their mirror images, with a tenth of the scenes held out.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MOUTHS, file_layers, load_net  # noqa: E402
from export import encode, write  # noqa: E402
from train import dataset  # noqa: E402

MOUTH_CHANNELS = slice(25, 28)  # the last convolution's outputs that become the mouth logits (open, closed, absent)


def shifted_means(backbone, x, batch=256):
    """x: uint8 N x 96 x 96 x 4 -> N x 432: for each feature channel and each 3 x 3 kernel offset, the mean over the
    map of the zero-padded features at that offset (so that logits = this @ weights[out].reshape(432) + bias)."""
    import torch
    import torch.nn.functional as F
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = torch.from_numpy(np.ascontiguousarray((x[i:i + batch].astype(np.float32) / 255 - .5).transpose(0, 3, 1, 2)))
            f = F.pad(backbone(xb), (1, 1, 1, 1))
            h = f.shape[2] - 2
            m = torch.stack([f[:, :, ky:ky + h, kx:kx + h].mean((2, 3)) for ky in range(3) for kx in range(3)], 2)
            out.append(m.reshape(len(xb), -1).numpy())
    return np.concatenate(out)


def last_conv(layers):
    """Index of the last convolution in a weights file's layers (common.file_layers), and its (in, out) channels."""
    index = [i for i, layer in enumerate(layers) if layer[0] in (1, 3)][-1]
    return index, layers[index][1], layers[index][2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--init", default="Sources/CCharacterWeights/character_weights.e2nw")
    ap.add_argument("--out", default="build/character/mouth")
    ap.add_argument("--cache", default="build/character")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenes", type=int, default=10000, help="plain scenes (seed)")
    ap.add_argument("--extras-scenes", type=int, default=6000, help="scenes with plush faces and neckwear (seed + 2)")
    ap.add_argument("--styles-scenes", type=int, default=6000, help="draw_styles scenes (seed + 3)")
    ap.add_argument("--mouths-scenes", type=int, default=8000, help="scenes with the mouths=True styles (seed + 5)")
    ap.add_argument("--steps", type=int, default=400, help="full-batch optimisation steps")
    ap.add_argument("--weight-decay", type=float, default=1e-3, help="on the distance from --init's values")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    parts = [(args.scenes, args.seed, "plain"), (args.extras_scenes, args.seed + 2, "extras"),
             (args.styles_scenes, args.seed + 3, "styles"), (args.mouths_scenes, args.seed + 5, "mouths")]
    xs, ms, groups = [], [], []
    for count, seed, kind in parts:
        if count:
            x, _, m, _, o = dataset(seed, count, args.cache, kind=kind, procs=args.threads)
            keep = o > 0
            crops_per_scene = len(x) // count
            scene = np.arange(len(x)) // crops_per_scene
            xs.append(x[keep]); ms.append(m[keep]); groups.append(scene[keep] + 1_000_000 * seed)
    x, m, g = np.concatenate(xs), np.concatenate(ms), np.concatenate(groups)
    net = load_net(args.init)
    backbone = torch.nn.Sequential(*list(net)[:-2])
    feats = np.concatenate([shifted_means(backbone, x), shifted_means(backbone, x[:, :, ::-1])])
    labels = np.concatenate([m, m])
    g = np.concatenate([g, g])
    scenes = np.unique(g)
    held = np.isin(g, scenes[np.random.default_rng(args.seed + 500).random(len(scenes)) < .1])  # a tenth of the scenes
    data = open(args.init, "rb").read()
    layers = file_layers(data)[1]
    index, cin, cout = last_conv(layers)
    w_all = layers[index][5].reshape(cout, cin * 9)
    b_all = layers[index][6]
    w0 = torch.from_numpy(w_all[MOUTH_CHANNELS].astype(np.float64))
    b0 = torch.from_numpy(b_all[MOUTH_CHANNELS].astype(np.float64))
    w = w0.clone().requires_grad_(True)
    b = b0.clone().requires_grad_(True)
    ft = torch.from_numpy(feats[~held].astype(np.float64))
    lt = torch.from_numpy(labels[~held])
    fv = torch.from_numpy(feats[held].astype(np.float64))
    lv = labels[held]

    def accuracy(w_, b_, f, lab):
        with torch.no_grad():
            pred = (f @ w_.T + b_).argmax(1).numpy()
        return (pred == lab).mean(), np.array([[(pred[lab == i] == j).mean() for j in range(3)] for i in range(3)])
    acc0, conf0 = accuracy(w0, b0, fv, lv)
    print(f"{len(ft)} training crops, {len(fv)} held out; held-out mouth state right: {acc0 * 100:.1f} % (--init)")
    opt = torch.optim.LBFGS([w, b], lr=.5, max_iter=args.steps, history_size=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(ft @ w.T + b, lt) + args.weight_decay * ((w - w0) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    acc1, conf1 = accuracy(w.detach(), b.detach(), fv, lv)
    print(f"held-out mouth state right: {acc1 * 100:.1f} % (refitted)")
    for name, c in (("--init", conf0), ("refitted", conf1)):
        print(f"  {name}: rows = drawn {'/'.join(MOUTHS)}, columns = read as " + "; ".join(
            f"{MOUTHS[i]}: " + " ".join(f"{v * 100:.0f}" for v in c[i]) for i in range(3)))
    w_new = w_all.copy()
    b_new = b_all.copy()
    w_new[MOUTH_CHANNELS] = w.detach().numpy().astype(np.float32)
    b_new[MOUTH_CHANNELS] = b.detach().numpy().astype(np.float32)
    kind, a, b_, c, relu, _, _ = layers[index]
    layers[index] = (kind, a, b_, c, relu, w_new.reshape(cout, cin, 3, 3), b_new)
    new = encode(layers)
    sha = write(new, args.out)
    print(f"wrote {args.out}/character_weights.e2nw ({len(new)} bytes, sha256 {sha})")


if __name__ == "__main__":
    main()
