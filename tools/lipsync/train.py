#!/usr/bin/env python3
"""Train the learned lip-sync model (CPU, seeded): 16 kHz speech -> jaw / lip spread / lip press per 40 ms frame.

    python3 tools/lipsync/train.py --data build/lipsync-data --out build/lipsync-model [--seed 1]
    python3 tools/lipsync/export.py --model build/lipsync-model/model.pt

Reads DATA/train/*.wav + *.json (tools/lipsync/make_data.py) for training and DATA/val for validation (held-out
voices); targets come from tools/lipsync/targets.py at 25 frames/s. Each utterance is used at its own level and
at two more random levels (peak -35 ... 0 dBFS, one of them with white noise at 15-40 dB SNR), requantised to
int16, so the model does not depend on loudness. Synthetic non-speech (tones, chords, note sequences, clicks,
hum, noise) with rest targets teaches it to keep the mouth still without speech. Each training crop also gets a
random equaliser and a vocal-tract-length warp of the mel axis (see `warp`), for voices and channels not seen.

The network (features and geometry in tools/lipsync/features.py, forward pass mirrored by
Sources/Essence2Core/Audio/ArticulationNetwork.swift): per hop, normalised log-mel (32) -> dense 48 + ReLU; per
frame, the 36 hop embeddings (25 before the frame, its 4, 7 ahead) -> dense 256 + ReLU -> dense 64 + ReLU ->
(sigmoid jaw, tanh spread, sigmoid press). Loss: weighted squared error on the three fields and on the visible
opening jaw * (1 - press), with frames inside p/b/m weighted x4 and silence x2.

Writes OUT/model.pt (state dict and metadata) and OUT/metrics.json (frame-level validation figures, also per
validation voice). About 6 minutes on this machine's two cores (torch.set_num_threads(2)); same data, same seed,
same model.
"""
import argparse
import glob
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.append(os.path.dirname(os.path.abspath(__file__)))
import features as ft  # noqa: E402
import targets as tg  # noqa: E402
import wavio  # noqa: E402

FRAME_RATE = 25.0
CROP_FRAMES = 48
BILABIALS = ("p", "b", "m")


class Net(nn.Module):
    def __init__(self, embed=48, hidden1=256, hidden2=64):
        super().__init__()
        self.register_buffer("mean", torch.zeros(ft.N_MELS))
        self.register_buffer("scale", torch.ones(ft.N_MELS))
        self.embed = nn.Conv1d(ft.N_MELS, embed, 1)
        self.layer1 = nn.Conv1d(embed, hidden1, ft.CONTEXT_HOPS, stride=ft.HOPS_PER_FRAME)
        self.layer2 = nn.Conv1d(hidden1, hidden2, 1)
        self.out = nn.Conv1d(hidden2, 3, 1)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        """x: (batch, hops, bands) of utterance_features rows -> (batch, frames, 3)."""
        z = ((x - self.mean) * self.scale).transpose(1, 2)
        h = F.relu(self.embed(z))
        h = F.relu(self.layer1(self.drop(h)))
        h = F.relu(self.layer2(h))
        o = self.out(h).transpose(1, 2)
        return torch.stack([torch.sigmoid(o[..., 0]), torch.tanh(o[..., 1]), torch.sigmoid(o[..., 2])], dim=-1)


def read_wav(path):
    pcm, rate = wavio.read_pcm(path)
    if rate != 16000:
        raise ValueError(f"{path}: not 16 kHz mono int16")
    return pcm


def load_split(data, split):
    items = []
    for path in sorted(glob.glob(os.path.join(data, split, "*.wav"))):
        meta = json.load(open(path[:-4] + ".json"))
        items.append((os.path.basename(path)[:-4], read_wav(path), [tuple(p) for p in meta["phones"]]))
    return items


def voice_of(data, item_id):
    return json.load(open(os.path.join(data, "val", item_id + ".json"))).get("voice", "?")


def features(samples):
    """utterance_features with hops before the stream as the engine sees them: pure silence."""
    f = ft.utterance_features(samples)
    f[: ft.PAST_HOPS] = ft.FLOOR_DB
    return f.astype(np.float32)


def frame_phone(phones, n):
    """The phone at each frame's centre ('sil' outside the list)."""
    out = ["sil"] * n
    for s, e, p in phones:
        for k in range(max(0, int(math.floor(s * FRAME_RATE - 0.5))), min(n, int(math.ceil(e * FRAME_RATE)))):
            c = (k + 0.5) / FRAME_RATE
            if s <= c < e:
                out[k] = p
    return out


def relevel(samples, rng, peak_db, snr_db=None):
    x = samples.astype(np.float64)
    peak = max(np.abs(x).max(), 1.0)
    x = x * (32767.0 * 10 ** (peak_db / 20) / peak)
    if snr_db is not None:
        power = np.mean(x[np.abs(x) > 0.05 * np.abs(x).max()] ** 2) if np.any(x) else 1.0
        x = x + rng.standard_normal(len(x)) * math.sqrt(power / 10 ** (snr_db / 10))
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def negatives(rng, count):
    """Non-speech clips (16 kHz int16, 1.5-4 s) whose target is a still, closed mouth."""
    sr = 16000
    clips = []
    for i in range(count):
        n = int(sr * rng.uniform(1.5, 4.0))
        t = np.arange(n) / sr
        kind = i % 6
        if kind == 0:  # steady or gliding tone
            f0 = rng.uniform(80, 3000) * np.exp(np.cumsum(np.full(n, rng.uniform(-0.5, 0.5) / sr)))
            x = np.sin(2 * np.pi * np.cumsum(f0) / sr)
        elif kind == 1:  # chord of harmonic tones
            x = sum(sum(np.sin(2 * np.pi * f * h * t) / h for h in range(1, 6))
                    for f in rng.uniform(100, 800, size=rng.integers(2, 5)))
        elif kind == 2:  # note sequence with plucked envelopes (music-like)
            x = np.zeros(n)
            step = int(sr * rng.uniform(0.1, 0.5))
            for s in range(0, n, step):
                f = 110 * 2 ** (rng.integers(0, 36) / 12)
                m = min(step * 2, n - s)
                tt = np.arange(m) / sr
                env = np.exp(-tt * rng.uniform(3, 15)) * np.minimum(tt / 0.005, 1)
                x[s:s + m] += env * sum(np.sin(2 * np.pi * f * h * tt) * rng.uniform(0.2, 1) / h for h in range(1, 8))
        elif kind == 3:  # clicks
            x = np.zeros(n)
            for s in rng.integers(0, n - 50, size=rng.integers(3, 40)):
                x[s:s + 30] += rng.standard_normal(30) * np.exp(-np.arange(30) / 5)
        elif kind == 4:  # mains hum with harmonics
            f = rng.choice([50.0, 60.0])
            x = sum(np.sin(2 * np.pi * f * h * t + rng.uniform(0, 6)) / h for h in range(1, 8))
        else:  # steady white or brown noise
            w = rng.standard_normal(n)
            x = w if rng.uniform() < 0.5 else np.cumsum(w) - np.convolve(np.cumsum(w), np.ones(400) / 400, "same")
        x = x / max(np.abs(x).max(), 1e-9) * 32767 * 10 ** (rng.uniform(-35, -1) / 20)
        pad = np.zeros(int(sr * rng.uniform(0.0, 0.5)))
        clips.append(np.clip(np.round(np.concatenate([pad, x, pad])), -32768, 32767).astype(np.int16))
    return clips


def example(samples, phones, pad_frames=CROP_FRAMES):
    """Features, targets, weights, visible opening and frame phones of one clip (silence-padded to a crop)."""
    n = ft.frame_count(len(samples))
    if n < pad_frames:
        samples = np.concatenate([samples, np.zeros((pad_frames - n) * ft.FRAME_SAMPLES, np.int16)])
        n = pad_frames
    y = tg.targets(phones, n, FRAME_RATE) if phones else np.zeros((n, 3), np.float32)
    fp = frame_phone(phones, n)
    w = np.ones(n, np.float32)
    w[[p in BILABIALS for p in fp]] = 4.0
    w[[p == "sil" for p in fp]] = 2.0
    return features(samples), y, w, fp


def warp(x, rng):
    """Feature-space augmentation of one crop (hops, bands): a random equaliser (tilt plus a smooth random curve,
    up to about +-6 dB) and a vocal-tract-length warp of the mel axis (factor 0.88 ... 1.12), so that new voices and
    channels look like known ones. Floor-level hops (digital silence) stay at the floor."""
    bands = x.shape[1]
    pos = np.arange(bands, dtype=np.float64)
    alpha = rng.uniform(0.88, 1.12)
    src = np.clip(pos * alpha, 0, bands - 1)
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, bands - 1)
    f = (src - lo)[None, :]
    y = x[:, lo] * (1 - f) + x[:, hi] * f
    knots = rng.uniform(-3, 3, size=4)
    eq = np.interp(pos, np.linspace(0, bands - 1, 4), knots) + rng.uniform(-3, 3) * (pos / (bands - 1) - 0.5) * 2
    silent = x <= ft.FLOOR_DB + 1e-3
    y = np.maximum(y + eq[None, :], ft.FLOOR_DB)
    y[silent] = ft.FLOOR_DB
    return y.astype(np.float32)


def batch(examples, rng, size, augment=True):
    xs, ys, ws = [], [], []
    for _ in range(size):
        f, y, w, _ = examples[rng.integers(len(examples))]
        k = rng.integers(0, len(y) - CROP_FRAMES + 1)
        x = f[4 * k: 4 * k + 4 * CROP_FRAMES + ft.CONTEXT_HOPS - 4]
        xs.append(warp(x, rng) if augment and rng.uniform() < 0.8 else x)
        ys.append(y[k:k + CROP_FRAMES])
        ws.append(w[k:k + CROP_FRAMES])
    return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys)), torch.from_numpy(np.stack(ws))


def loss_fn(pred, y, w, open_weight):
    err = (pred - y) ** 2 * torch.tensor([1.0, 0.5, 1.5])
    open_pred = pred[..., 0] * (1 - pred[..., 2])
    open_true = y[..., 0] * (1 - y[..., 2])
    total = (err.sum(-1) + open_weight * (open_pred - open_true) ** 2) * w
    return total.sum() / w.sum()


def predict(net, samples):
    """(frames, 3) float32 for a whole utterance, as the engine gives it."""
    with torch.no_grad():
        return net(torch.from_numpy(features(samples))[None])[0].numpy()


def metrics(net, items):
    """Frame-level figures like the pixel eval's, on the model's own opening jaw * (1 - press)."""
    closed = total_bil = sil_ok = sil_total = 0
    rs, lags, mse = [], [], []
    for _, samples, phones in items:
        n = ft.frame_count(len(samples))
        p = predict(net, samples)[:n]
        y = tg.targets(phones, n, FRAME_RATE)
        mse.append(((p - y) ** 2).mean(0))
        o = p[:, 0] * (1 - p[:, 2])
        e = tg.expected_openness(phones, n, FRAME_RATE)
        lo, hi = np.percentile(o, 2), np.percentile(o, 98)
        on = np.clip((o - lo) / max(hi - lo, 1e-6), 0, 1)
        for s, t, ph in phones:
            if ph in BILABIALS:
                k = int((s + t) / 2 * FRAME_RATE)
                total_bil += 1
                closed += bool(np.any(on[max(0, k - 1):k + 2] <= 0.10))
            elif ph == "sil" and t - s >= 0.15:
                ks = [k for k in range(int(s * FRAME_RATE), min(n, int(math.ceil(t * FRAME_RATE))))
                      if s <= k / FRAME_RATE and (k + 1) / FRAME_RATE <= t]
                sil_total += len(ks)
                sil_ok += int(np.sum(on[ks] <= 0.10))
        if np.std(o) > 0 and np.std(e) > 0:
            rs.append(float(np.corrcoef(o, e)[0, 1]))
            best = max(range(-2, 3), key=lambda d: np.corrcoef(o[max(0, d):n + min(0, d)],
                                                             e[max(0, -d):n - max(0, d)])[0, 1])
            lags.append(best)
    return {
        "closure_accuracy": closed / max(total_bil, 1), "bilabials": total_bil,
        "silence_accuracy": sil_ok / max(sil_total, 1), "silence_frames": sil_total,
        "pearson_r": float(np.mean(rs)), "best_lag_counts": {str(d): lags.count(d) for d in range(-2, 3)},
        "mse_jaw_spread_press": [float(v) for v in np.mean(mse, 0)],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=30.0, help="safety stop: training ends early when this much "
                    "time has passed (then the result depends on the machine's speed and is not reproducible)")
    ap.add_argument("--steps", type=int, default=14000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--open-weight", type=float, default=2.0, help="loss weight of the visible opening")
    ap.add_argument("--embed", type=int, default=48)
    ap.add_argument("--hidden1", type=int, default=256)
    ap.add_argument("--hidden2", type=int, default=64)
    a = ap.parse_args()
    start = time.time()
    torch.set_num_threads(2)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)

    train = load_split(a.data, "train")
    val = load_split(a.data, "val")
    if not train or not val:
        sys.exit(f"no data under {a.data}/train and {a.data}/val")
    examples = []
    for _, s, p in train:
        examples.append(example(s, p))
        examples.append(example(relevel(s, rng, rng.uniform(-35, 0)), p))
        examples.append(example(relevel(s, rng, rng.uniform(-35, 0), rng.uniform(15, 40)), p))
    speech_frames = sum(len(e[1]) for e in examples)
    for clip in negatives(rng, max(60, len(train) // 3)):
        examples.append(example(clip, []))
    print(f"{len(train)} train / {len(val)} val utterances, {len(examples)} examples, "
          f"{speech_frames / FRAME_RATE / 60:.1f} min of speech; features in {time.time() - start:.0f} s", flush=True)

    net = Net(a.embed, a.hidden1, a.hidden2)
    allf = np.concatenate([e[0][ft.PAST_HOPS:] for e in examples[:len(train)]])
    net.mean.copy_(torch.from_numpy(allf.mean(0)))
    net.scale.copy_(torch.from_numpy(1.0 / (allf.std(0) + 1e-3)))
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=a.steps, pct_start=0.05)
    net.train()
    deadline = start + a.minutes * 60
    for step in range(a.steps):
        x, y, w = batch(examples, rng, a.batch)
        loss = loss_fn(net(x), y, w, a.open_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0 or step == a.steps - 1:
            print(f"step {step} loss {loss.item():.4f} ({time.time() - start:.0f} s)", flush=True)
        if time.time() > deadline:
            print(f"WARNING: time budget reached at step {step}; this model is not reproducible", flush=True)
            break
    net.eval()

    quiet = [(i, relevel(s, rng, -30.0), p) for i, s, p in val]
    report = {"val_clean": metrics(net, val), "val_minus30dBFS_peak": metrics(net, quiet),
              "val_noise20dB": metrics(net, [(i, relevel(s, rng, -6.0, 20.0), p) for i, s, p in val]),
              "val_clean_by_voice": {v: metrics(net, [it for it in val if voice_of(a.data, it[0]) == v])
                                     for v in sorted({voice_of(a.data, it[0]) for it in val})},
              "train_seconds": round(time.time() - start, 1), "steps": step + 1, "seed": a.seed,
              "train_utterances": len(train), "val_utterances": len(val)}
    os.makedirs(a.out, exist_ok=True)
    torch.save({"state": net.state_dict(), "embed": net.embed.out_channels, "hidden1": net.layer1.out_channels,
                "hidden2": net.layer2.out_channels}, os.path.join(a.out, "model.pt"))
    json.dump(report, open(os.path.join(a.out, "metrics.json"), "w"), indent=1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
