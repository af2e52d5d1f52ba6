#!/usr/bin/env python3
"""Export a trained lip-sync model (tools/lipsync/train.py) into the library, and the Swift tests' fixtures.

    python3 tools/lipsync/export.py --model build/lipsync-model/model.pt

Writes Sources/CEssence2Weights/lipsync_weights.e2nw: the weights file (E2NW, tools/lib/e2nw.py's lipsync_encode;
the tensors in Sources/Essence2Runtime/Audio/ArticulationEnsemble+Decoding.swift: the member count, then per member
its sizes and IEEE half-precision arrays, weights input-major), which the library embeds as bytes
(lipsync_weights.c, C23 #embed), and lipsync_weights_info.h beside it with its size (checked at compile time)
and SHA-256 (checked when the library first decodes it).

With --fixture WAV (default: the speech_bilabial test fixture) it also writes Tests/Essence2Tests/Fixtures/
lipsync_features.txt (the inputs of every hop the engine analyses, from tools/lipsync/features.py: 32 log-mel
bands, the relative level, the periodicity) and lipsync_model.txt (the articulation of every frame, from a float32
NumPy forward pass of every member with the exported half-precision weights, averaged), which the Swift tests
compare with the engine's own.
"""
import argparse
import hashlib
import os
import sys

import numpy as np
import torch

sys.path.append(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import e2nw  # noqa: E402
import features as ft  # noqa: E402
import targets as tg  # noqa: E402
import train  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WEIGHTS_DIR = os.path.join(ROOT, "Sources", "CEssence2Weights")
WEIGHTS = os.path.join(WEIGHTS_DIR, "lipsync_weights.e2nw")
WEIGHTS_INFO = os.path.join(WEIGHTS_DIR, "include", "lipsync_weights_info.h")
FIXTURES = os.path.join(ROOT, "Tests", "Essence2Tests", "Fixtures")


def parameters(path):
    """Per member: the exported arrays (half precision), in file order, and the sizes."""
    ckpt = torch.load(path, map_location="cpu")
    embed, h1, h2 = ckpt["embed"], ckpt["hidden1"], ckpt["hidden2"]
    outputs = ckpt.get("outputs", 3)  # 3: a model from before the tuck had its own output (press 0.4 on f, v)
    out = []
    for state in ckpt["members"]:
        s = {k: v.numpy().astype(np.float64) for k, v in state.items()}
        arrays = [
            s["mean"], s["scale"],
            s["embed.weight"][:, :, 0].T,                                   # [input][embed]
            s["embed.bias"],
            s["layer1.weight"].transpose(2, 1, 0).reshape(-1, h1),          # [hop][embed][hidden1]
            s["layer1.bias"],
            s["layer2.weight"][:, :, 0].T, s["layer2.bias"],
            s["out.weight"][:, :, 0].T, s["out.bias"],
        ]
        halves = [np.ascontiguousarray(a, dtype=np.float16) for a in arrays]
        out.append((halves, (ft.N_MELS, ft.N_INPUTS - ft.N_MELS, embed, ft.CONTEXT_HOPS, ft.PAST_HOPS, h1, h2, outputs)))
    return out


def blob(members):
    """The weights file (E2NW): the member count, then per member its 8 sizes and its arrays."""
    return e2nw.lipsync_encode(members)


def forward_member(halves, dims, feats):
    """Float32 forward pass of one member over utterance_features rows, as ArticulationNetwork.swift computes it:
    (frames, outputs) = jaw, spread, press and (with 4 outputs) tuck."""
    mean, scale, w0, b0, w1, b1, w2, b2, w3, b3 = [h.astype(np.float32) for h in halves]
    context = dims[3]
    e = np.maximum(((feats.astype(np.float32) - mean) * scale) @ w0 + b0, 0)
    n = (len(e) - context) // ft.HOPS_PER_FRAME + 1
    outputs = dims[7]
    out = np.zeros((n, outputs), np.float32)
    for k in range(n):
        x = e[4 * k: 4 * k + context].reshape(-1)
        a = np.maximum(x @ w1 + b1, 0)
        a = np.maximum(a @ w2 + b2, 0)
        z = a @ w3 + b3
        out[k] = (1 / (1 + np.exp(-z[0])), np.tanh(z[1]), *(1 / (1 + np.exp(-z[2:outputs]))))
    return np.clip(out, [0, -1] + [0] * (outputs - 2), [1] * outputs)


def forward(members, feats):
    """(frames, 3) jaw, spread and the renderer's press: the members' mean, summed in member order, with the mean
    press and tuck combined (targets.combined_press), as LearnedArticulationPipeline.swift does."""
    total = None
    for halves, dims in members:
        out = forward_member(halves, dims, feats)
        total = out if total is None else total + out
    mean = total / np.float32(len(members))
    if mean.shape[1] == 3:
        return mean
    press = tg.combined_press(mean[:, 2].astype(np.float32), mean[:, 3].astype(np.float32)).astype(np.float32)
    return np.stack([mean[:, 0], mean[:, 1], press], axis=1)


def write_weights(data):
    """The weights file and its size and SHA-256 (the header is included by lipsync_weights.c, so a new
    header also rebuilds the embedded bytes)."""
    digest = hashlib.sha256(data).hexdigest()
    with open(WEIGHTS, "wb") as f:
        f.write(data)
    with open(WEIGHTS_INFO, "w") as f:
        f.write("/* Generated by tools/lipsync/export.py from a model trained by tools/lipsync/train.py. "
                "Do not edit. */\n")
        f.write("#ifndef ESSENCE2_LIPSYNC_WEIGHTS_INFO_H\n#define ESSENCE2_LIPSYNC_WEIGHTS_INFO_H\n\n")
        f.write("/** Size in bytes of lipsync_weights.e2nw, the learned lip-sync model's weights file. */\n")
        f.write(f"#define E2_LIPSYNC_WEIGHTS_SIZE {len(data)}\n")
        f.write("/** SHA-256 of lipsync_weights.e2nw, lower-case hex. */\n")
        f.write(f"#define E2_LIPSYNC_WEIGHTS_SHA256 \"{digest}\"\n\n#endif\n")
    return digest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--fixture", default=os.path.join(FIXTURES, "speech_bilabial.wav"))
    ap.add_argument("--no-fixtures", action="store_true")
    ap.add_argument("--weights-only", metavar="FILE", help="write only the weights file, to FILE (a candidate "
                    "to measure through swap_weights.py); the library's sources and the fixtures stay as they are")
    a = ap.parse_args()
    members = parameters(a.model)
    data = blob(members)
    if a.weights_only:
        with open(a.weights_only, "wb") as f:
            f.write(data)
        print(f"{a.weights_only}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
        return
    digest = write_weights(data)
    print(f"{WEIGHTS}: {len(data)} bytes, sha256 {digest}")
    if a.no_fixtures:
        return
    samples = train.read_wav(a.fixture)
    feats = train.features(samples)
    n = ft.frame_count(len(samples))
    with open(os.path.join(FIXTURES, "lipsync_features.txt"), "w") as f:
        f.write(f"# log-mel bands (dB), relative level (dB) and periodicity of hops 0 ... of "
                f"{os.path.basename(a.fixture)}, one hop a line (tools/lipsync/export.py)\n")
        for row in feats[ft.PAST_HOPS:]:
            f.write(" ".join(repr(float(v)) for v in row.astype(np.float64)) + "\n")
    out = forward(members, feats)[:n]
    with open(os.path.join(FIXTURES, "lipsync_model.txt"), "w") as f:
        f.write(f"# jawOpen lipSpread lipPress of every frame of {os.path.basename(a.fixture)} "
                f"(tools/lipsync/export.py, weights sha256 {digest})\n")
        for row in out:
            f.write(" ".join(repr(float(v)) for v in row) + "\n")
    print(f"fixtures: {len(feats) - ft.PAST_HOPS} hops, {n} frames")


if __name__ == "__main__":
    main()
