#!/usr/bin/env python3
"""Train the learned lip-sync model (CPU, seeded): 16 kHz speech -> jaw / lip spread / lip press / lip tuck per 40
ms frame.

    python3 tools/lipsync/train.py --data build/lipsync-data --out build/lipsync-model [--seed 1]
    python3 tools/lipsync/export.py --model build/lipsync-model/model.pt

Reads DATA/train/*.wav + *.json (tools/lipsync/make_data.py) for training and DATA/val for validation (held-out
voices); targets come from tools/lipsync/targets.py (`learned_targets`) at 25 frames/s. Each utterance is used
at its own level and at two more random levels (peak -35 ... 0 dBFS, one of them with white noise at 15-40 dB
SNR), requantised to int16, so the model does not depend on loudness. Background speech: 1.5 more copies per utterance (on average)
mixed with 3-6 other training talkers at 10-30 dB under it, from the first sample on, their pauses weighted x3, and
clips of background talkers alone; the mouth must stay still for them. Copies of 15% of the utterances cut off
mid-speech (silence after the cut, as when a reply's audio ends and the stream is flushed), and of 20% that start
right at their speech (half of them also cut off soon after). 960 clips of synthetic non-speech (tones, chords,
note sequences, clicks, hum, noise with level steps, from -60 dBFS; often starting or ending abruptly) with rest
targets, weighted x3, teach it to keep the mouth still without speech. Each training
crop also gets a random equaliser and a vocal-tract-length warp of the mel axis (see `warp`), for voices and
channels not seen; 30% of the crops start at the utterance's start (how a stream begins matters).

The network (features and geometry in tools/lipsync/features.py, forward pass mirrored by
Sources/Essence2Runtime/Audio/ArticulationNetwork.swift): per hop, the normalised inputs (32 log-mel bands, the
relative level, the periodicity) -> dense 48 + ReLU; per frame, the 36 hop embeddings (25 before the frame, its 4,
7 ahead) -> dense 256 + ReLU -> dense 64 + ReLU -> (sigmoid jaw, tanh spread, sigmoid press, sigmoid tuck): the
press is the lips pressed together (p, b, m) alone, the tuck the lower lip under the upper teeth (f, v), and the
engine combines them into the renderer's press (targets.combined_press). Loss: weighted squared error on the four
fields and on the visible opening jaw * (1 - combined press), with frames inside p and b weighted x4
(--pb-weight), m x4 (--m-weight), f/v x4 (--fv-weight) and silence x2 (x3 under background speech).

Writes OUT/model.pt (state dict and metadata) and OUT/metrics.json (frame-level validation figures, also per
validation voice). About 6 minutes on this machine's two cores (torch.set_num_threads(2)); same data, same seed,
same model.
"""
import argparse
import glob
import json
import math
import multiprocessing as mp
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.append(os.path.dirname(os.path.abspath(__file__)))
import augment as aug  # noqa: E402
import channel  # noqa: E402
import features as ft  # noqa: E402
import targets as tg  # noqa: E402
import wavio  # noqa: E402

FRAME_RATE = 25.0
CROP_FRAMES = 48
START_CROPS = 0.3      # share of training crops that start at the utterance's first frame
BILABIALS = ("p", "b", "m")
LABIODENTALS = tg.LABIODENTALS
OUTPUTS = len(tg.LEARNED_FIELDS)  # jaw, spread, press, tuck


class Ensemble(nn.Module):
    """The shipped model: the mean of its members' outputs (jaw, spread, press, tuck), member by member in order."""

    def __init__(self, members):
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x):
        out = self.members[0](x)
        for m in self.members[1:]:
            out = out + m(x)
        return out / len(self.members)


class Net(nn.Module):
    def __init__(self, embed=48, hidden1=256, hidden2=64):
        super().__init__()
        self.register_buffer("mean", torch.zeros(ft.N_INPUTS))
        self.register_buffer("scale", torch.ones(ft.N_INPUTS))
        self.embed = nn.Conv1d(ft.N_INPUTS, embed, 1)
        self.layer1 = nn.Conv1d(embed, hidden1, ft.CONTEXT_HOPS, stride=ft.HOPS_PER_FRAME)
        self.layer2 = nn.Conv1d(hidden1, hidden2, 1)
        self.out = nn.Conv1d(hidden2, OUTPUTS, 1)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        """x: (batch, hops, inputs) of utterance_features rows -> (batch, frames, 4): jaw, spread, press, tuck."""
        z = ((x - self.mean) * self.scale).transpose(1, 2)
        h = F.relu(self.embed(z))
        h = F.relu(self.layer1(self.drop(h)))
        h = F.relu(self.layer2(h))
        o = self.out(h).transpose(1, 2)
        return torch.stack([torch.sigmoid(o[..., 0]), torch.tanh(o[..., 1]), torch.sigmoid(o[..., 2]),
                            torch.sigmoid(o[..., 3])], dim=-1)


def read_wav(path):
    pcm, rate = wavio.read_pcm(path)
    if rate != 16000:
        raise ValueError(f"{path}: not 16 kHz mono int16")
    return pcm


def load_split(data, split, languages=None):
    """The split's (id, samples, phones); with `languages`, only the items of those languages (`en` when an item
    names none)."""
    items = []
    for path in sorted(glob.glob(os.path.join(data, split, "*.wav"))):
        meta = json.load(open(path[:-4] + ".json"))
        if languages is not None and meta.get("language", "en") not in languages:
            continue
        items.append((os.path.basename(path)[:-4], read_wav(path), [tuple(p) for p in meta["phones"]]))
    return items


def voice_of(data, item_id):
    return json.load(open(os.path.join(data, "val", item_id + ".json"))).get("voice", "?")


def features(samples):
    """utterance_features (hops before the stream as the engine sees them: pure silence) as float32."""
    return ft.utterance_features(samples).astype(np.float32)


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
        else:  # steady white or brown noise, now and then stepping to another level (hiss, fans, a gain change)
            w = rng.standard_normal(n)
            x = w if rng.uniform() < 0.5 else np.cumsum(w) - np.convolve(np.cumsum(w), np.ones(400) / 400, "same")
            if rng.uniform() < 0.8:
                edges = np.sort(rng.integers(0, n, size=rng.integers(1, 4)))
                gain = np.ones(n)
                for e in edges:
                    gain[e:] *= 10 ** (rng.uniform(-25, 25) / 20)
                x = x * gain
        x = x / max(np.abs(x).max(), 1e-9) * 32767 * 10 ** (rng.uniform(-60, -1) / 20)
        # silence around the clip, or none: a stream can start and end in the middle of a sound
        lead, tail = (np.zeros(int(sr * rng.uniform(0.0, 0.5)) if rng.uniform() < 0.7 else 0) for _ in range(2))
        clips.append(np.clip(np.round(np.concatenate([lead, x, tail])), -32768, 32767).astype(np.int16))
    return clips


def abrupt_starts(train, rng, share):
    """Copies of a `share` of the training utterances that start right at their speech (0-20 ms before the first
    phone: a stream need not begin with silence), half of them also cut off 40-400 ms later (a short reply flushed
    at once)."""
    out = []
    for k in rng.choice(len(train), size=int(round(share * len(train))), replace=False):
        _, s, p = train[k]
        first = next(a for a, _, q in p if q != "sil")
        t0 = max(0.0, first - rng.uniform(0.0, 0.02))
        n0 = int(round(t0 * 16000))
        x = s[n0:].copy()
        shift = n0 / 16000
        phones = [(max(a - shift, 0.0), b - shift, q) for a, b, q in p if b - shift > 0]
        if rng.uniform() < 0.5:
            cut = phones[0][0] + (first - t0) + rng.uniform(0.04, 0.4)
            x[int(round(cut * 16000)):] = 0
            phones = [(a, min(b, cut), q) for a, b, q in phones if a < cut] + [(cut, phones[-1][1], "sil")]
        out.append(example(x, [q for q in phones if q[1] > q[0]]))
    return out


def truncated(train, rng, share):
    """Copies of a `share` of the training utterances cut off at a random moment of their speech, silence after
    it (as when a reply's audio ends there and the stream is flushed): the frames up to the cut still show the
    speech, the mouth closes after it."""
    out = []
    for k in rng.choice(len(train), size=int(round(share * len(train))), replace=False):
        _, s, p = train[k]
        speech = [(a, b) for a, b, q in p if q != "sil"]
        cut = rng.uniform(speech[0][0] + 0.02, speech[-1][1])
        x = s.copy()
        x[int(round(cut * 16000)):] = 0
        phones = [(a, min(b, cut), q) for a, b, q in p if a < cut] + [(cut, p[-1][1], "sil")]
        out.append(example(x, [q for q in phones if q[1] > q[0]]))
    return out


def background_copies(train, rng, copies, snr=(10.0, 30.0)):
    """Examples of training utterances with 3-6 other training talkers under them (`copies` per utterance on
    average), from the first sample to the last, at a random level."""
    pool = [s for _, s, _ in train]
    out = []
    for j in range(int(round(copies * len(train)))):
        k = j % len(train)
        _, s, p = train[k]
        others = [q for i, q in enumerate(pool) if i != k]
        noise = aug.talkers(len(s), rng, others, int(rng.integers(3, 7)))
        x = s.astype(np.float64)
        noise *= aug.active_rms(x) / (aug.active_rms(noise) + 1e-12) * 10 ** (-rng.uniform(*snr) / 20)
        mix = np.clip(np.round(x + noise), -32768, 32767).astype(np.int16)
        out.append(example(relevel(mix, rng, rng.uniform(-35, 0)), p, silence_weight=3.0))
    return out


def background_alone(train, rng, count):
    """Clips (1.5-5 s) of 3-6 training talkers at once and nothing else, whose target is a still, closed mouth."""
    pool = [s for _, s, _ in train]
    out = []
    for _ in range(count):
        noise = aug.talkers(int(16000 * rng.uniform(1.5, 5.0)), rng, pool, int(rng.integers(3, 7)))
        out.append(example(relevel(noise, rng, rng.uniform(-45, -10)), [], silence_weight=3.0))
    return out


PB_WEIGHT = 4.0  # loss weight of frames inside a p or b (train.py --pb-weight)
M_WEIGHT = 4.0   # loss weight of frames inside an m (train.py --m-weight)
FV_WEIGHT = 4.0  # loss weight of frames inside an f or v (train.py --fv-weight)


def example(samples, phones, pad_frames=CROP_FRAMES, silence_weight=2.0, exclude=(), weight=1.0):
    """Features, targets, weights, visible opening and frame phones of one clip (silence-padded to a crop).
    Frames touching an `exclude` interval ([start_s, end_s]: laughter in a real recording) weigh nothing;
    `weight` scales the rest."""
    n = ft.frame_count(len(samples))
    if n < pad_frames:
        samples = np.concatenate([samples, np.zeros((pad_frames - n) * ft.FRAME_SAMPLES, np.int16)])
        n = pad_frames
    y = tg.learned_targets(phones, n, FRAME_RATE) if phones else np.zeros((n, OUTPUTS), np.float32)
    fp = frame_phone(phones, n)
    w = np.ones(n, np.float32)
    w[[p in BILABIALS for p in fp]] = PB_WEIGHT
    w[[p == "m" for p in fp]] = M_WEIGHT
    w[[p in LABIODENTALS for p in fp]] = FV_WEIGHT
    w[[p == "sil" for p in fp]] = silence_weight
    w *= weight
    for a, b in exclude:
        w[max(0, int(math.floor(a * FRAME_RATE))):min(n, int(math.ceil(b * FRAME_RATE)))] = 0.0
    return features(samples), y, w, fp


def load_real(directory, split):
    """Real recordings aligned by align_real.py: [(id, samples, phones, exclude)] of one split."""
    out = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        meta = json.load(open(path))
        if meta.get("split") != split:
            continue
        out.append((meta["id"], read_wav(path[:-5] + ".wav"), [tuple(p) for p in meta["phones"]],
                    [tuple(x) for x in meta.get("exclude", [])]))
    return out


def real_examples(real, train, rng, copies, weight):
    """`copies` examples of each real training recording (pseudo-labels from forced alignment), each through
    another condition: as recorded, at another level, with white noise, through a codec or channel, or with
    background talkers."""
    pool = [s for _, s, _ in train]
    out = []
    for _, s, p, ex in real:
        for c in range(copies):
            kind = c % 5
            if kind == 0:
                x = s
            elif kind == 1:
                x = relevel(s, rng, rng.uniform(-35, 0))
            elif kind == 2:
                x = relevel(s, rng, rng.uniform(-30, 0), rng.uniform(15, 40))
            elif kind == 3:
                x = channel.apply(s, rng)
            else:
                x = with_talkers(s, rng, pool)
            out.append(example(x, p, exclude=ex, weight=weight))
    return out


def with_talkers(s, rng, pool):
    """`s` (int16) with 3-6 background talkers from `pool` mixed in, 15-30 dB under its active level."""
    noise = aug.talkers(len(s), rng, pool, int(rng.integers(3, 7)))
    xf = s.astype(np.float64)
    noise *= aug.active_rms(xf) / (aug.active_rms(noise) + 1e-12) * 10 ** (-rng.uniform(15, 30) / 20)
    return np.clip(np.round(xf + noise), -32768, 32767).astype(np.int16)


def asterisk_examples(items, train, rng, count, weight):
    """`count` examples drawn from the Asterisk prompts' training speakers (asterisk.py: real recordings aligned
    by DTW to espeak-ng), each through one condition: as recorded at another level (half), through the telephone
    band (a quarter of the 16 kHz ones: 8 kHz mu-law or GSM, upsampled; the 8 kHz ones already are), or with
    white noise or background talkers."""
    pool = [s for _, s, _ in train]
    out = []
    for k in rng.choice(len(items), size=min(count, len(items)), replace=False):
        _, s, p, ex = items[k]
        u = rng.uniform()
        if u < 0.5:
            x = relevel(s, rng, rng.uniform(-35, 0))
        elif u < 0.75 and not items[k][0].count("-8k-"):
            x = relevel(channel.apply(s, rng, "phone"), rng, rng.uniform(-30, 0))
        elif u < 0.875:
            x = relevel(s, rng, rng.uniform(-30, 0), rng.uniform(15, 40))
        else:
            x = with_talkers(s, rng, pool)
        out.append(example(x, p, exclude=ex, weight=weight))
    return out


def asterisk_by_speaker(items, per_speaker):
    """The first `per_speaker` items (sorted by id) of each speaker: {speaker: [(id, samples, phones)]}."""
    out = {}
    for i, s, p, _ in items:
        speaker = i.split("-")[1]
        band = "8k" if "-8k-" in i else "16k"
        out.setdefault(f"{speaker} {band}", []).append((i, s, p))
    return {k: v[:per_speaker] for k, v in sorted(out.items())}


def channel_copies(train, rng, share):
    """Copies of a `share` of the training utterances through a codec or channel (channel.py: MP3, Opus,
    telephone band, G.722, AGC), at a random level."""
    out = []
    for k in rng.choice(len(train), size=int(round(share * len(train))), replace=False):
        _, s, p = train[k]
        out.append(example(relevel(channel.apply(s, rng), rng, rng.uniform(-30, 0)), p))
    return out


def warp(x, rng):
    """Feature-space augmentation of one crop (hops, inputs): a random equaliser (tilt plus a smooth random curve,
    up to about +-6 dB) and a vocal-tract-length warp of the mel axis (factor 0.88 ... 1.12), so that new voices and
    channels look like known ones. Floor-level hops (digital silence) stay at the floor; the inputs after the bands
    (relative level, periodicity) are kept."""
    extra = x[:, ft.N_MELS:]
    x = x[:, :ft.N_MELS]
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
    return np.concatenate([y, extra], axis=1).astype(np.float32)


def batch(examples, rng, size, augment=True):
    xs, ys, ws = [], [], []
    for _ in range(size):
        f, y, w, _ = examples[rng.integers(len(examples))]
        k = 0 if rng.uniform() < START_CROPS else rng.integers(0, len(y) - CROP_FRAMES + 1)
        x = f[4 * k: 4 * k + 4 * CROP_FRAMES + ft.CONTEXT_HOPS - 4]
        xs.append(warp(x, rng) if augment and rng.uniform() < 0.8 else x)
        ys.append(y[k:k + CROP_FRAMES])
        ws.append(w[k:k + CROP_FRAMES])
    return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys)), torch.from_numpy(np.stack(ws))


def loss_fn(pred, y, w, open_weight):
    err = (pred - y) ** 2 * torch.tensor([1.0, 0.5, 1.5, 1.5])
    open_pred = pred[..., 0] * (1 - tg.combined_press(pred[..., 2], pred[..., 3], xp=torch))
    open_true = y[..., 0] * (1 - tg.combined_press(y[..., 2], y[..., 3], xp=torch))
    total = (err.sum(-1) + open_weight * (open_pred - open_true) ** 2) * w
    return total.sum() / w.sum()


def predict(net, samples):
    """(frames, 4) float32 for a whole utterance (jaw, spread, press, tuck), as the engine's network gives it."""
    with torch.no_grad():
        return net(torch.from_numpy(features(samples))[None])[0].numpy()


def metrics(net, items):
    """Frame-level figures like the pixel eval's, on the model's own opening jaw * (1 - press)."""
    closed = total_bil = sil_ok = sil_total = 0
    rs, lags, mse = [], [], []
    for _, samples, phones in items:
        n = ft.frame_count(len(samples))
        p = predict(net, samples)[:n]
        y = tg.learned_targets(phones, n, FRAME_RATE)
        mse.append(((p - y) ** 2).mean(0))
        o = p[:, 0] * (1 - tg.combined_press(p[:, 2], p[:, 3]))
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
        "mse_jaw_spread_press_tuck": [float(v) for v in np.mean(mse, 0)],
    }


_EXAMPLES = None


def _train_member(job):
    """Trains member k on the shared examples; returns the state dict of its weights' moving average."""
    a, k, mean, scale, start = job
    torch.set_num_threads(2 if a.members == 1 else 1)
    torch.manual_seed(a.seed * 1000 + k)
    rng = np.random.default_rng([a.seed, 7, k])
    examples = _EXAMPLES
    net = Net(a.embed, a.hidden1, a.hidden2)
    net.mean.copy_(torch.from_numpy(mean))
    net.scale.copy_(torch.from_numpy(scale))
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=a.steps, pct_start=0.05)
    net.train()
    # The member's weights are an exponential moving average of the trained ones over the later steps (Polyak
    # averaging), steadier than the last step's.
    average = Net(a.embed, a.hidden1, a.hidden2)
    average.load_state_dict(net.state_dict())
    average_from = int(a.steps * a.average_from)
    deadline = start + a.minutes * 60
    for step in range(a.steps):
        x, y, w = batch(examples, rng, a.batch)
        loss = loss_fn(net(x), y, w, a.open_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        with torch.no_grad():
            keep = 0.0 if step < average_from else a.average_decay
            for p_avg, p_net in zip(average.parameters(), net.parameters()):
                p_avg.mul_(keep).add_(p_net, alpha=1 - keep)
        if step % 500 == 0 or step == a.steps - 1:
            print(f"member {k} step {step} loss {loss.item():.4f} ({time.time() - start:.0f} s)", flush=True)
        if time.time() > deadline:
            print(f"WARNING: time budget reached at step {step}; this model is not reproducible", flush=True)
            break
    return average.state_dict()


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
    ap.add_argument("--hidden1", type=int, default=176)
    ap.add_argument("--hidden2", type=int, default=64)
    ap.add_argument("--background", type=float, default=1.5, help="copies per utterance with background talkers")
    ap.add_argument("--background-alone", type=int, default=300, help="clips of background talkers alone")
    ap.add_argument("--truncated", type=float, default=0.15, help="share of utterances also used cut off")
    ap.add_argument("--abrupt", type=float, default=0.2, help="share of utterances also used from their speech on")
    ap.add_argument("--negatives", type=int, default=960, help="synthetic non-speech clips")
    ap.add_argument("--average-decay", type=float, default=0.999, help="decay of the weights' moving average")
    ap.add_argument("--average-from", type=float, default=0.5, help="share of the steps before averaging starts")
    ap.add_argument("--members", type=int, default=3, help="networks trained (in parallel) and averaged")
    ap.add_argument("--real", help="real recordings aligned by align_real.py (tools/lipsync/real): the `train` "
                    "split is trained on, the `val` split reported")
    ap.add_argument("--real-copies", type=int, default=15, help="examples per real training recording")
    ap.add_argument("--real-weight", type=float, default=1.0, help="loss weight of the real recordings' frames")
    ap.add_argument("--asterisk", metavar="DIR", help="the Asterisk prompts of asterisk.py (build/lipsync-asterisk/"
                    "items): the `train` speakers are trained on, the `val` ones reported per speaker and band")
    ap.add_argument("--asterisk-share", type=float, default=0.25, help="share of all examples drawn from them")
    ap.add_argument("--asterisk-weight", type=float, default=1.0, help="loss weight of their frames")
    ap.add_argument("--pb-weight", type=float, default=4.0, help="loss weight of the frames inside a p or b")
    ap.add_argument("--m-weight", type=float, default=4.0, help="loss weight of the frames inside an m (the m is "
                    "the closure most often left open on recorded speakers)")
    ap.add_argument("--fv-weight", type=float, default=4.0, help="loss weight of the frames inside an f or v "
                    "(their lip tuck; weighted as p and b are)")
    ap.add_argument("--jobs", type=int, help="processes training the members (default: one per member)")
    ap.add_argument("--channel", type=float, default=0.3, help="share of utterances also used through a codec "
                    "or channel (channel.py)")
    ap.add_argument("--languages", help="train only on the utterances of these languages (comma-separated, `en` "
                    "for the English voices; default: all in the data set), to measure what each adds")
    a = ap.parse_args()
    global PB_WEIGHT, M_WEIGHT, FV_WEIGHT
    PB_WEIGHT = a.pb_weight
    M_WEIGHT = a.m_weight
    FV_WEIGHT = a.fv_weight
    start = time.time()
    rng = np.random.default_rng(a.seed)

    train = load_split(a.data, "train", a.languages.split(",") if a.languages else None)
    val = load_split(a.data, "val")
    if not train or not val:
        sys.exit(f"no data under {a.data}/train and {a.data}/val")
    examples = []
    for _, s, p in train:
        examples.append(example(s, p))
        examples.append(example(relevel(s, rng, rng.uniform(-35, 0)), p))
        examples.append(example(relevel(s, rng, rng.uniform(-35, 0), rng.uniform(15, 40)), p))
    examples += background_copies(train, rng, a.background)
    examples += truncated(train, rng, a.truncated)
    examples += abrupt_starts(train, rng, a.abrupt)
    if a.channel > 0:
        examples += channel_copies(train, rng, a.channel)
    real_train = load_real(a.real, "train") if a.real else []
    real_val = load_real(a.real, "val") if a.real else []
    if real_train:
        examples += real_examples(real_train, train, rng, a.real_copies, a.real_weight)
    ast_train = load_real(a.asterisk, "train") if a.asterisk else []
    ast_val = load_real(a.asterisk, "val") if a.asterisk else []
    if ast_train:
        count = int(round(a.asterisk_share / (1 - a.asterisk_share) * len(examples)))
        examples += asterisk_examples(ast_train, train, rng, count, a.asterisk_weight)
    speech_frames = sum(len(e[1]) for e in examples)
    examples += background_alone(train, rng, a.background_alone)
    for clip in negatives(rng, a.negatives):
        examples.append(example(clip, [], silence_weight=3.0))
    print(f"{len(train)} train / {len(val)} val utterances, {len(real_train)} real recordings, "
          f"{len(ast_train)} Asterisk prompts ({len(ast_val)} held out), "
          f"{len(examples)} examples, "
          f"{speech_frames / FRAME_RATE / 60:.1f} min of speech; features in {time.time() - start:.0f} s", flush=True)

    allf = np.concatenate([e[0][ft.PAST_HOPS:] for e in examples[:len(train)]])
    mean, scale = allf.mean(0), 1.0 / (allf.std(0) + 1e-3)
    global _EXAMPLES
    _EXAMPLES = examples
    jobs = [(a, k, mean, scale, start) for k in range(a.members)]
    if a.members == 1:
        states = [_train_member(jobs[0])]
    else:
        # One process per member (one thread each), forked so they share the examples.
        with mp.get_context("fork").Pool(a.jobs or a.members) as pool:
            states = pool.map(_train_member, jobs)
    members = []
    for state in states:
        m = Net(a.embed, a.hidden1, a.hidden2)
        m.load_state_dict(state)
        members.append(m.eval())
    net = Ensemble(members)

    quiet = [(i, relevel(s, rng, -30.0), p) for i, s, p in val]
    babble = []
    for k, (i, s, p) in enumerate(val):
        noise = aug.talkers(len(s), rng, [q for j, (_, q, _) in enumerate(val) if j != k], 4)
        x = s.astype(np.float64)
        noise *= aug.active_rms(x) / (aug.active_rms(noise) + 1e-12) * 10 ** (-20 / 20)
        babble.append((i, np.clip(np.round(x + noise), -32768, 32767).astype(np.int16), p))
    report = {"val_clean": metrics(net, val), "val_minus30dBFS_peak": metrics(net, quiet),
              "val_noise20dB": metrics(net, [(i, relevel(s, rng, -6.0, 20.0), p) for i, s, p in val]),
              "val_babble20dB": metrics(net, babble),
              "val_clean_by_voice": {v: metrics(net, [it for it in val if voice_of(a.data, it[0]) == v])
                                     for v in sorted({voice_of(a.data, it[0]) for it in val})},
              **({"real_val": metrics(net, [(i, x, p) for i, x, p, _ in real_val]),
                  "real_train": metrics(net, [(i, x, p) for i, x, p, _ in real_train])} if real_val else {}),
              **({"asterisk_val": {k: metrics(net, v) for k, v in asterisk_by_speaker(ast_val, 40).items()},
                  "asterisk_train": {k: metrics(net, v) for k, v in asterisk_by_speaker(ast_train, 20).items()},
                  "asterisk_share": a.asterisk_share, "asterisk_prompts": len(ast_train)} if ast_train else {}),
              "real_copies": a.real_copies if real_train else 0, "channel_share": a.channel,
              "train_seconds": round(time.time() - start, 1), "steps": a.steps, "pb_weight": a.pb_weight, "m_weight": a.m_weight, "fv_weight": a.fv_weight, "members": a.members, "seed": a.seed,
              "train_utterances": len(train), "val_utterances": len(val), "languages": a.languages or "all"}
    os.makedirs(a.out, exist_ok=True)
    torch.save({"members": [m.state_dict() for m in members], "embed": a.embed, "hidden1": a.hidden1, "outputs": OUTPUTS,
                "hidden2": a.hidden2}, os.path.join(a.out, "model.pt"))
    json.dump(report, open(os.path.join(a.out, "metrics.json"), "w"), indent=1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
