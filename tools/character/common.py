"""Shared by train.py, evaluate.py and export.py: the crop sampler (the Swift finder does the same), the label
vector layout and the network."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import e2nw  # noqa: E402  (tools/lib: the weights format shared with tools/lipsync)

SIZE = 96  # the network's input: SIZE x SIZE, 4 channels (RGB composited over white, alpha)
POINT_NAMES = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center", "left_brow", "right_brow"]
N_OUT = 14 + 2 + 32 + 3 + 1 + 1  # 7 points, 2 radii, 16 outline points, mouth logits, brows logit, character logit
MOUTHS = ["open", "closed", "absent"]
HEAD_CROP = 1.6  # the training's head crop: this times the larger side of the head outline's box (jittered)
HEAD_CROPS = (1.3, 1.6, 2.0)  # the finder's head crops around the previous pass's outline box, averaged


SAMPLES_CAP = int(os.environ.get("CHARACTER_SAMPLES_CAP", "4")) or None  # k's cap (0: none)


def sample_crop(rgba, x0, y0, side, cap=-1):
    """The square [x0, x0+side) x [y0, y0+side) of rgba (HxWx4 uint8) as SIZE x SIZE x 4 float32 in 0...1:
    premultiplied bilinear samples, k x k per output pixel (k = ceil(side / SIZE), at most `cap`: SAMPLES_CAP by
    default, 0 or None none), averaged; outside the picture is transparent; the colour is then composited over
    white. Mirrors CharacterPointFinder.crop."""
    H, W = rgba.shape[:2]
    cap = SAMPLES_CAP if cap == -1 else cap
    k = max(1, math.ceil(side / SIZE - 1e-6))
    k = int(min(cap, k) if cap else k)
    src = rgba.astype(np.float32) / 255.0
    prem = np.concatenate([src[..., :3] * src[..., 3:4], src[..., 3:4]], axis=2)
    # bilinear sampling averaged over k x k samples is separable: out = Ay . prem . Ax^T per channel
    ay = _axis_matrix(y0, side, k, H)
    ax = _axis_matrix(x0, side, k, W)
    out = (ay @ prem.reshape(H, W * 4)).reshape(SIZE, W, 4)
    out = np.matmul(ax[None], out)
    a = out[..., 3:4]
    rgb = out[..., :3] + (1 - a)
    return np.concatenate([rgb, a], axis=2).astype(np.float32)


def _axis_matrix(origin, side, k, n):
    """SIZE x n: output index -> the mean of its k bilinear samples' weights on the source indices (outside: 0)."""
    step = side / SIZE
    m = np.zeros((SIZE, n + 5), np.float64)
    sub = (np.arange(k, dtype=np.float64) + 0.5) / k
    v = origin + (np.arange(SIZE, dtype=np.float64)[:, None] + sub[None, :]) * step - 0.5  # SIZE x k
    f = np.floor(v)
    w1 = v - f
    i0 = np.clip(f.astype(np.int64), -2, n + 1) + 2  # shifted by 2: columns 0, 1, n+2, n+3 are outside
    rows = np.repeat(np.arange(SIZE), k)
    np.add.at(m, (rows, i0.reshape(-1)), (1 - w1).reshape(-1) / k)
    np.add.at(m, (rows, i0.reshape(-1) + 1), w1.reshape(-1) / k)
    return m[:, 2:n + 2].astype(np.float32)


def cached_chunks(jobs, path, worker, names, procs):
    """The arrays `names` of each job (worker(job) returns them in that order), concatenated in job order; each
    job's are cached in the .npz file path(job), and the missing ones are made in `procs` processes first (the
    drawing scripts' data sets: train.py, refine.py). A job's third value is its scene count."""
    import multiprocessing as mp
    import os
    import time
    todo = [j for j in jobs if not os.path.exists(path(j))]
    t = time.time()
    if todo:
        with mp.Pool(procs) as pool:
            for j, part in zip(todo, pool.imap(worker, todo)):
                np.savez(path(j), **dict(zip(names, part)))
        print(f"drew {sum(j[2] for j in todo)} scenes in {time.time() - t:.0f} s", flush=True)
    parts = [np.load(path(j)) for j in jobs]
    return tuple(np.concatenate([p[k] for p in parts]) for k in names)


def labels_to_vector(p, x0, y0, side):
    """Points dict (picture pixels) -> (48 floats in crop units, mouth class, brows 0/1)."""
    v = np.zeros(48, np.float32)
    for i, k in enumerate(POINT_NAMES):
        q = p[k]
        if q is None:  # absent brow: the eye's position, masked out of the loss
            q = p["left_eye" if k == "left_brow" else "right_eye"]
        v[2 * i] = (q[0] - x0) / side
        v[2 * i + 1] = (q[1] - y0) / side
    v[14] = p["left_eye_radius"] / side * 10
    v[15] = p["right_eye_radius"] / side * 10
    for i, q in enumerate(p["outline"]):
        v[16 + 2 * i] = (q[0] - x0) / side
        v[17 + 2 * i] = (q[1] - y0) / side
    return v, MOUTHS.index(p["mouth"]), float(p["left_brow"] is not None)


def mirror_vector(v):
    """The label vector of the mirrored crop."""
    m = v.copy()
    xs = lambda i: 1 - v[2 * i]
    for a, b in ((0, 1), (2, 3), (5, 6)):
        m[2 * a], m[2 * a + 1] = xs(b), v[2 * b + 1]
        m[2 * b], m[2 * b + 1] = xs(a), v[2 * a + 1]
    m[8], m[9] = xs(4), v[9]
    m[14], m[15] = v[15], v[14]
    for i in range(16):
        j = (16 - i) % 16
        m[16 + 2 * i] = 1 - v[16 + 2 * j]
        m[17 + 2 * i] = v[17 + 2 * j]
    return m


def build_net(arch="heatmap", channels=None):
    """The network. "heatmap" (the committed weights' since 2026-12-03): fully convolutional to 12 x 12 (dilated
    convolutions widen its view to the whole crop), a heatmap a point whose soft-argmax is the point, the other
    outputs the means of their own channels (HeatmapHeads); channels: its width at 12 x 12 (default
    HEATMAP_CHANNELS). "dense": the earlier one (convolutions to 6 x 6, then dense layers regressing the 53
    outputs)."""
    import torch.nn as nn

    def block(cin, cout, stride, dilation=1):
        pad = dilation
        return [nn.Conv2d(cin, cout, 3, stride, pad, dilation=dilation), nn.BatchNorm2d(cout), nn.ReLU()]
    if arch == "heatmap":
        c = channels or HEATMAP_CHANNELS
        layers = block(4, 16, 2) + block(16, 32, 2) + block(32, c, 2)
        for d in HEATMAP_DILATIONS:
            layers += block(c, c, 1, d)
        layers += [nn.Conv2d(c, HEATMAPS + N_OUT - 2 * HEATMAPS, 3, 1, 1), HeatmapHeads(HEATMAPS)]
        return nn.Sequential(*layers)
    layers = block(4, 12, 2) + block(12, 24, 2) + block(24, 32, 2) + block(32, 32, 1) + block(32, 64, 2) + \
        block(64, 64, 1) + [nn.Flatten(), nn.Linear(64 * 6 * 6, 192), nn.ReLU(), nn.Linear(192, N_OUT)]
    return nn.Sequential(*layers)


HEATMAPS = 23  # the heatmap network's points: the 7 named points, then the 16 outline points
HEATMAP_CHANNELS = 48
HEATMAP_DILATIONS = (1, 2, 4, 2, 1)
# The heads' outputs are [23 points' (x, y), then the means of the other channels: 2 radii, 3 mouth logits, brows,
# character]; this permutation puts them in the 53-vector's order (points, radii, outline, logits).
HEATMAP_ORDER = list(range(14)) + [46, 47] + list(range(14, 46)) + list(range(48, 53))


def arch_of(state):
    """"dense" or "heatmap", from a saved state dict (only the dense network has 2-D weights)."""
    return "dense" if any(v.dim() == 2 for v in state.values()) else "heatmap"


def channels_of(state):
    """The heatmap network's width at 12 x 12, from a saved state dict (the third convolution's outputs)."""
    convs = [v for k, v in state.items() if k.endswith(".weight") and v.dim() == 4]
    return int(convs[2].shape[0])


def load_net(path):
    """A saved state dict (train.py's .pt), or an exported weights file (.e2nw: the heatmap network with its batch
    normalisation folded into the convolutions, read back with identity batch norms)."""
    import torch
    if str(path).endswith(".e2nw"):
        with open(path, "rb") as f:
            return net_from_weights(f.read())
    state = torch.load(path)
    arch = arch_of(state)
    net = build_net(arch, channels_of(state) if arch == "heatmap" else None)
    net.load_state_dict(state)
    net.eval()
    return net


def _heads_class():
    import torch
    import torch.nn as nn

    class Heads(nn.Module):
        """Channels [0, k): heatmaps, each's soft-argmax (x, y in crop units, cell centres at (i + 0.5) / side);
        the rest: their means over the map. Output: HEATMAP_ORDER of [k (x, y) pairs, the means]."""

        def __init__(self, k):
            super().__init__()
            self.k = k
            self.register_buffer("order", torch.tensor(HEATMAP_ORDER), persistent=False)

        def forward(self, f):
            n, c, h, w = f.shape
            p = f[:, :self.k].reshape(n, self.k, h * w).softmax(-1).reshape(n, self.k, h, w)
            xs = (torch.arange(w, dtype=f.dtype) + 0.5) / w
            ys = (torch.arange(h, dtype=f.dtype) + 0.5) / h
            x = (p.sum(2) * xs).sum(-1)
            y = (p.sum(3) * ys).sum(-1)
            pts = torch.stack([x, y], -1).reshape(n, 2 * self.k)
            out = torch.cat([pts, f[:, self.k:].mean((2, 3))], 1)
            return out[:, self.order]
    return Heads


def HeatmapHeads(k):
    return _heads_class()(k)


def net_from_weights(data):
    """The heatmap network from an exported weights file (export.py's: E2NW, tools/lib/e2nw.py): each convolution
    takes the file's folded weights and bias; its batch norm is the identity (mean 0, variance 1 - eps, scale 1,
    shift 0), so the network computes what the file does. Before training it, calibrate_norms sets the batch norms
    from data."""
    size, layers = file_layers(data)
    assert size == SIZE and layers[-1][2] == N_OUT, "another network's file"
    return folded_into(build_net("heatmap", layers[2][2]), layers)  # the width: the third layer's output channels


def folded_into(net, layers):
    """`net` (convolutions, each but the last followed by a batch norm) with an exported file's layers
    (file_layers) in its convolutions and identity batch norms: it computes what the file does (net_from_weights;
    the refinement network's file too)."""
    import torch
    import torch.nn as nn
    convs = [m for m in net if isinstance(m, nn.Conv2d)]
    norms = [m for m in net if isinstance(m, nn.BatchNorm2d)]
    k = 0
    with torch.no_grad():
        for kind, a, b, c, relu, w, bias in layers:
            if kind == 4:
                continue
            conv = convs[k]
            assert kind in (1, 3) and (conv.in_channels, conv.out_channels) == (a, b), "layer shapes differ"
            conv.weight.copy_(torch.from_numpy(np.array(w, dtype=np.float32).reshape(b, a, 3, 3)))
            conv.bias.copy_(torch.from_numpy(np.array(bias, dtype=np.float32)))
            if k < len(norms):
                bn = norms[k]
                bn.running_mean.zero_()
                bn.running_var.fill_(1 - bn.eps)
                bn.weight.fill_(1)
                bn.bias.zero_()
            k += 1
    assert k == len(convs), "layer count differs"
    net.eval()
    return net


def file_layers(data):
    """(size, layers) of an exported weights file (export.py's format), each layer (kind, a, b, c, relu, weights,
    bias), the heads' order in place of their bias (weights None); ValueError when the file is not one."""
    return e2nw.character_decode(data)


def calibrate_norms(net, crops):
    """Sets each batch norm of a network read from an .e2nw (identity norms) to its input's per-channel mean and
    variance over crops (uint8 N x SIZE x SIZE x 4), with scale and shift that undo them: the network computes
    the same in eval mode, and training mode (batch statistics) starts close to it."""
    import torch
    import torch.nn as nn
    norms = [m for m in net if isinstance(m, nn.BatchNorm2d)]
    seen = {}
    hooks = [bn.register_forward_pre_hook(lambda mod, inp: seen.__setitem__(mod, inp[0].detach())) for bn in norms]
    net.eval()
    with torch.no_grad():
        xb = torch.from_numpy(np.ascontiguousarray((crops.astype(np.float32) / 255.0 - 0.5).transpose(0, 3, 1, 2)))
        before = net(xb)
        for h in hooks:
            h.remove()
        for bn in norms:
            y = seen[bn]
            mean = y.mean((0, 2, 3))
            var = y.var((0, 2, 3), unbiased=False).clamp(min=1e-4)
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            bn.weight.copy_((var + bn.eps).sqrt())
            bn.bias.copy_(mean)
        after = net(xb)
    assert float((after - before).abs().max()) < 1e-3, "calibration changed the network"
