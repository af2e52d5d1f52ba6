"""Writes the trained model as Sources/CCharacterWeights/character_weights.e2nw (and its info header).

  python export.py [--model build/character/model.pt] [--out Sources/CCharacterWeights]

Format: E2NW (tools/lib/e2nw.py, docs/architecture.md "Weights files"), kind "essence2-character-points", written
by e2nw.character_encode; the tensors:
  size     int32: the input's side in pixels (96; 4 channels R, G, B, A, each value/255 - 0.5, channel-major)
  outputs  int32: the network's outputs (53: the 48-vector, 3 mouth logits, brows logit, character logit)
  layers   int32: the number of layers, then per layer i, names prefixed "i.":
    layer    int32 [kind, a, b, c, relu]:
               kind 1 = 3x3 convolution (padding 1), 2 = dense, 3 = dilated 3x3 convolution (stride 1, padding =
               dilation), 4 = heatmap heads (the last layer; no weights)
               a b c: convolution: input channels, output channels, stride; dense: inputs, outputs, 0;
               dilated: input channels, output channels, dilation (1-8); heads: channels, outputs, heatmaps k
               relu: 1 when a ReLU follows, else 0 (heads: 0)
    weights  float32: convolutions [out, in, 3, 3]; dense [out, in]
    bias     float32 [out]
    order    (heads, instead of weights and bias) int32 [outputs]: output i is value order[i] of the list
             [channel 0's soft-argmax x, y, ..., channel k-1's x, y, the means of channels k ... channels-1]
             (soft-argmax: the softmax over the side x side map; x, y the expected cell centre, (j + 0.5) / side)
  (batch normalisation is folded into the convolutions; a dense layer after a convolution reads it flattened
  channel-major, as torch's Flatten does)
"""
import argparse
import hashlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HEATMAP_ORDER, N_OUT, SIZE, e2nw, file_layers, load_net  # noqa: E402


def layers_of(net):
    import torch.nn as nn
    mods = list(net)
    out = []
    i = 0
    while i < len(mods):
        m = mods[i]
        if isinstance(m, nn.Conv2d) and not isinstance(mods[i + 1], nn.BatchNorm2d):  # the heads' convolution
            w = m.weight.detach().double().numpy()
            out.append((1, m.in_channels, m.out_channels, m.stride[0], False, w, m.bias.detach().double().numpy()))
            i += 1
        elif type(m).__name__ == "Heads":
            out.append((4, m.k + (N_OUT - 2 * m.k), N_OUT, m.k, False, None, np.array(HEATMAP_ORDER)))
            i += 1
        elif type(m).__name__ == "Points":  # the refiner's heads (refine.py): k heatmaps, their (x, y) in order
            out.append((4, m.k, 2 * m.k, m.k, False, None, np.arange(2 * m.k)))
            i += 1
        elif isinstance(m, nn.Conv2d):
            bn = mods[i + 1]
            w = m.weight.detach().double().numpy()
            b = m.bias.detach().double().numpy()
            g = bn.weight.detach().double().numpy() / np.sqrt(bn.running_var.detach().double().numpy() + bn.eps)
            w = w * g[:, None, None, None]
            b = (b - bn.running_mean.detach().double().numpy()) * g + bn.bias.detach().double().numpy()
            relu = isinstance(mods[i + 2], nn.ReLU)
            if m.dilation[0] > 1:
                out.append((3, m.in_channels, m.out_channels, m.dilation[0], relu, w, b))
            else:
                out.append((1, m.in_channels, m.out_channels, m.stride[0], relu, w, b))
            i += 3 if relu else 2
        elif isinstance(m, nn.Linear):
            relu = i + 1 < len(mods) and isinstance(mods[i + 1], nn.ReLU)
            out.append((2, m.in_features, m.out_features, 0, relu, m.weight.detach().double().numpy(),
                        m.bias.detach().double().numpy()))
            i += 2 if relu else 1
        else:
            i += 1
    return out


def encode(layers):
    """The weights file's bytes of layers_of's list; the outputs are the last layer's (53 for the finder, 10 for
    the refiner)."""
    return e2nw.character_encode(SIZE, layers)


def forward(data, x):
    """numpy forward pass straight from the file's bytes (checks the format and the batch-norm folding)."""
    _, layers = file_layers(data)
    for kind, a, b, c, relu, w, bias in layers:
        if kind == 4:
            order = bias
            side = x.shape[1]
            hm = x[:c].reshape(c, -1)
            hm = np.exp(hm - hm.max(1, keepdims=True))
            hm = (hm / hm.sum(1, keepdims=True)).reshape(c, side, side)
            centres = (np.arange(side) + 0.5) / side
            pts = np.stack([(hm.sum(1) * centres).sum(1), (hm.sum(2) * centres).sum(1)], 1).reshape(-1)
            x = np.concatenate([pts, x[c:].mean((1, 2))])[order]
            continue
        w = w.astype(np.float64)
        bias = bias.astype(np.float64)
        if kind in (1, 3):
            side = x.shape[1]
            stride, d = (c, 1) if kind == 1 else (1, c)
            p = np.pad(x, ((0, 0), (d, d), (d, d)))
            o = (side - 1) // stride + 1
            y = np.zeros((b, o, o)) + bias[:, None, None]
            for ky in range(3):
                for kx in range(3):
                    patch = p[:, ky * d:ky * d + stride * (o - 1) + 1:stride, kx * d:kx * d + stride * (o - 1) + 1:stride]
                    y += np.einsum("oi,ihw->ohw", w[:, :, ky, kx], patch)
        else:
            y = w.reshape(b, a) @ x.reshape(-1) + bias
        x = np.maximum(y, 0) if relu else y
    return x


def write(data, out, name="character_weights", what="the character point finder's weights file",
          trainer="train.py"):
    """Writes out/NAME.e2nw and out/include/NAME_info.h (its size and SHA-256, macros E2_NAME_SIZE and
    E2_NAME_SHA256)."""
    os.makedirs(os.path.join(out, "include"), exist_ok=True)
    with open(os.path.join(out, name + ".e2nw"), "wb") as f:
        f.write(data)
    sha = hashlib.sha256(data).hexdigest()
    macro, guard = "E2_" + name.upper(), "ESSENCE2_" + name.upper() + "_INFO_H"
    with open(os.path.join(out, "include", name + "_info.h"), "w") as f:
        f.write(f"""/* Generated by tools/character/export.py from a model trained by tools/character/{trainer}. Do not edit. */
#ifndef {guard}
#define {guard}

/** Size in bytes of {name}.e2nw, {what}. */
#define {macro}_SIZE {len(data)}
/** SHA-256 of {name}.e2nw, lower-case hex. */
#define {macro}_SHA256 "{sha}"

#endif
""")
    return sha


def main():
    import torch
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="build/character/model.pt")
    ap.add_argument("--out", default="Sources/CCharacterWeights")
    args = ap.parse_args()
    net = load_net(args.model)
    data = encode(layers_of(net))
    sha = write(data, args.out)
    x = np.random.default_rng(0).uniform(-.5, .5, (4, SIZE, SIZE))
    with torch.no_grad():
        ref = net(torch.from_numpy(x[None]).float())[0].double().numpy()
    diff = np.abs(forward(data, x) - ref).max()
    print(f"wrote {len(data)} bytes, sha256 {sha}; the file's forward pass matches torch within {diff:.2e}")
    assert diff < 1e-3


if __name__ == "__main__":
    main()
