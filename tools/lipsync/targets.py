"""Articulation targets from timed phones: the table and the coarticulation rules (see docs/lipsync.md).

Fields are the renderer's `Articulation` (Sources/Essence2Runtime/Render/Articulation.swift):
jawOpen 0..1, lipSpread -1 (rounded) .. +1 (spread), lipPress 0..1.

Rules
* Each phone has a target; `None` for lipSpread means the phone does not constrain the lips (tongue/velar
  consonants, bilabials, labiodentals): the lips keep the previous vowel's shape and, from ANTICIPATION
  seconds before the next vowel (or rounded/spread glide or postalveolar) onward, take that vowel's shape.
  Anticipation runs through any number of unconstrained consonants but never across a pause.
* Silence and pauses are rest (0, 0, 0). Bilabials (p b m: jaw 0, press 1), labiodentals (f v: small jaw,
  press 0.4) and silence are HARD: their value holds exactly for the phone's whole duration; the transition
  into and out of them happens inside the neighbouring phone (a cosine ramp of up to RAMP seconds ending at the
  closure onset / starting at its release).
* Between two soft phones the transition is a cosine ramp of RAMP seconds centred on the boundary.
* Every ramp is confined to the half of a phone next to its boundary, so short phones still reach their own
  value at their midpoint when neither neighbour forces otherwise.
* A curve is sampled at frame centres: frame i covers [i/rate, (i+1)/rate) and is sampled at (i+0.5)/rate.
  Time beyond the last phone is silence.
* Minimum visibility: the frame that contains the midpoint of a p/b/m (or f/v) shows that phone's jawOpen and
  lipPress even when no frame centre falls inside the phone (a 30 ms closure at 25 frames/s).
"""

import numpy as np

RAMP = 0.035        # seconds, length of a full transition
ANTICIPATION = 0.10  # seconds before the next vowel at which the lips start taking its shape

# phone: (jawOpen, lipSpread or None = unconstrained, lipPress, hard)
TABLE = {
    "sil": (0.00, 0.0, 0.0, True),
    # bilabial closure
    "p": (0.00, None, 1.0, True), "b": (0.00, None, 1.0, True), "m": (0.00, None, 1.0, True),
    # labiodental: lower lip tucked under the upper teeth
    "f": (0.10, None, 0.4, True), "v": (0.10, None, 0.4, True),
    # rounded vowels and glides
    "uw": (0.20, -1.00, 0.0, False), "uh": (0.30, -0.60, 0.0, False), "ow": (0.45, -0.75, 0.0, False),
    "ao": (0.60, -0.50, 0.0, False), "oy": (0.50, -0.50, 0.0, False), "w": (0.12, -1.00, 0.0, False),
    "r": (0.20, -0.45, 0.0, False), "er": (0.30, -0.40, 0.0, False),
    # spread vowels and glide
    "iy": (0.20, 0.90, 0.0, False), "ih": (0.30, 0.60, 0.0, False), "ey": (0.40, 0.70, 0.0, False),
    "eh": (0.50, 0.50, 0.0, False), "y": (0.15, 0.70, 0.0, False),
    # open vowels
    "aa": (0.90, 0.05, 0.0, False), "ae": (0.75, 0.40, 0.0, False), "ah": (0.65, 0.10, 0.0, False),
    "aw": (0.75, -0.20, 0.0, False), "ay": (0.75, 0.25, 0.0, False),
    # reduced vowel
    "ax": (0.40, 0.00, 0.0, False),
    # consonants that leave the lips free
    "th": (0.15, None, 0.0, False), "dh": (0.15, None, 0.0, False),
    "t": (0.20, None, 0.0, False), "d": (0.20, None, 0.0, False), "n": (0.20, None, 0.0, False),
    "l": (0.25, None, 0.0, False),
    "k": (0.25, None, 0.0, False), "g": (0.25, None, 0.0, False), "ng": (0.25, None, 0.0, False),
    "hh": (0.35, None, 0.0, False),
    "s": (0.10, None, 0.0, False), "z": (0.10, None, 0.0, False),
    # postalveolars: lips protruded
    "sh": (0.15, -0.50, 0.0, False), "zh": (0.15, -0.50, 0.0, False),
    "ch": (0.15, -0.50, 0.0, False), "jh": (0.15, -0.50, 0.0, False),
}

FIELDS = ("jawOpen", "lipSpread", "lipPress")
# The learned model's outputs (learned_targets): the press of the lips together alone (p, b, m), and the lower lip's
# tuck under the upper teeth (f, v) as a channel of its own, so one output does not carry two gestures.
LEARNED_FIELDS = ("jawOpen", "lipSpread", "bilabialPress", "lipTuck")
LABIODENTALS = ("f", "v")
# The press the renderer draws as a full tuck (TABLE's f and v; Articulation.labiodentalPress in the runtime).
LABIODENTAL_PRESS = 0.4
CLASS_OF_HARD = {"p": "bilabial", "b": "bilabial", "m": "bilabial", "f": "labiodental", "v": "labiodental"}


def _spread_segments(phones):
    """Piecewise-constant lipSpread targets with anticipation: [(start, end, value, hard)]."""
    out = []
    n = len(phones)
    for i, (s, e, p) in enumerate(phones):
        _, sp, _, hard = TABLE[p]
        if sp is not None:
            out.append((s, e, sp, hard))
            continue
        prev = 0.0
        for j in range(i - 1, -1, -1):
            pj = phones[j][2]
            if pj == "sil":
                break
            if TABLE[pj][1] is not None:
                prev = TABLE[pj][1]
                break
        nxt = None
        for j in range(i + 1, n):
            pj = phones[j][2]
            if pj == "sil":
                break
            if TABLE[pj][1] is not None:
                nxt = (phones[j][0], TABLE[pj][1])
                break
        if nxt is None:
            out.append((s, e, prev, False))
            continue
        a = nxt[0] - ANTICIPATION
        if a <= s:
            out.append((s, e, nxt[1], False))
        elif a >= e:
            out.append((s, e, prev, False))
        else:
            out.append((s, a, prev, False))
            out.append((a, e, nxt[1], False))
    return out


def _merge(segs):
    out = []
    for s, e, v, h in segs:
        if e <= s:
            continue
        if out and abs(out[-1][2] - v) < 1e-9:
            ps, _, pv, ph = out[-1]
            out[-1] = (ps, e, pv, ph or h)
        else:
            out.append((s, e, v, h))
    return out


def _curve(segs, t):
    """Sample piecewise targets with cosine ramps (see module doc) at times t."""
    segs = _merge(segs)
    if not segs:
        return np.zeros_like(t)
    y = np.full_like(t, segs[0][2])
    for k in range(len(segs) - 1):
        s0, b, v0, h0 = segs[k]
        _, e1, v1, h1 = segs[k + 1]
        m0, m1 = (s0 + b) / 2, (b + e1) / 2
        if h0 and h1:
            r0 = r1 = b
        elif h1:
            r0, r1 = max(b - RAMP, m0), b
        elif h0:
            r0, r1 = b, min(b + RAMP, m1)
        else:
            r0, r1 = max(b - RAMP / 2, m0), min(b + RAMP / 2, m1)
        if r1 > r0:
            u = np.clip((t - r0) / (r1 - r0), 0.0, 1.0)
            w = 0.5 - 0.5 * np.cos(np.pi * u)
        else:
            w = (t >= r0).astype(t.dtype)
        y += (v1 - v0) * w
    for s, e, v, hard in segs:  # held values exactly (the sum of ramps leaves rounding residue)
        if hard:
            y[(t >= s) & (t < e)] = v
    return y


def _with_tail(phones, end):
    phones = [(float(s), float(e), p) for s, e, p in phones]
    if not phones:
        return [(0.0, end, "sil")]
    if phones[0][0] > 0:
        phones.insert(0, (0.0, phones[0][0], "sil"))
    if phones[-1][1] < end:
        phones.append((phones[-1][1], end, "sil"))
    return phones


def _sampled(phones, n_frames, frame_rate, held):
    """Curves sampled at frame centres, float32 (n_frames, 2 + len(held)): jawOpen, lipSpread, then one column per
    function of `held` (phone -> its held value; its hardness is TABLE's), each clipped to 0 ... 1."""
    t = (np.arange(n_frames, dtype=np.float64) + 0.5) / float(frame_rate)
    phones = _with_tail(phones, max(n_frames / float(frame_rate), phones[-1][1] if phones else 0.0) + 1.0)
    values = [lambda p: TABLE[p][0]] + list(held)
    columns = [_curve([(s, e, value(p), TABLE[p][3]) for s, e, p in phones], t) for value in values]
    out = np.stack(columns[:1] + [_curve(_spread_segments(phones), t)] + columns[1:], axis=1)
    # A closure shorter than a frame may contain no frame centre (at 25 frames/s a 30 ms "p" is easily missed):
    # the frame that holds the phone's midpoint always shows it. Labiodentals first, so bilabials win.
    for cls in ("labiodental", "bilabial"):
        for s, e, p in phones:
            if CLASS_OF_HARD.get(p) == cls:
                k = int((s + e) / 2 * frame_rate)
                if 0 <= k < n_frames:
                    for c, value in zip([0] + list(range(2, out.shape[1])), values):
                        out[k, c] = value(p)
    out[:, 0] = np.clip(out[:, 0], 0, 1)
    out[:, 1] = np.clip(out[:, 1], -1, 1)
    out[:, 2:] = np.clip(out[:, 2:], 0, 1)
    return out.astype(np.float32)


def targets(phones, n_frames, frame_rate):
    """Articulation targets, float32 (n_frames, 3) = jawOpen, lipSpread, lipPress, sampled at frame centres.

    phones: [(start_s, end_s, phone)] in the common set (tools/lipsync/phones.py), contiguous.
    """
    return _sampled(phones, n_frames, frame_rate, [lambda p: TABLE[p][2]])


def learned_targets(phones, n_frames, frame_rate):
    """The learned model's targets, float32 (n_frames, 4) = jawOpen, lipSpread, bilabial press (TABLE's press but
    0 on f and v), lip tuck (1 on f and v, held as hard phones are), sampled at frame centres. `combined_press` of
    the last two is the renderer's lipPress (0.4 on f and v, as `targets`)."""
    return _sampled(phones, n_frames, frame_rate, [lambda p: 0.0 if p in LABIODENTALS else TABLE[p][2],
                                                   lambda p: 1.0 if p in LABIODENTALS else 0.0])


def combined_press(press, tuck, xp=np):
    """The renderer's lipPress from the learned model's bilabial press and tuck, as the runtime's
    `Articulation(learned:)` computes it (without its gain on the tuck): the tuck pulls the press to LABIODENTAL_PRESS (the
    renderer's full tuck) unless the lips are pressed together (from 0.4, fully from 0.55: the closure wins).
    `xp`: numpy, or torch for the training loss."""
    u = xp.clip((press - 0.4) / 0.15, 0.0, 1.0)
    gate = 1 - u * u * (3 - 2 * u)
    return press + (LABIODENTAL_PRESS - press) * tuck * gate


def expected_openness(phones, n_frames, frame_rate):
    """Visible mouth opening the eval correlates with: jawOpen * (1 - lipPress), float32 (n_frames,)."""
    a = targets(phones, n_frames, frame_rate)
    return (a[:, 0] * (1.0 - a[:, 2])).astype(np.float32)


def selftest():
    """Check the documented rules on small phone lists; raises AssertionError on a violation."""
    ph = [(0.0, 0.2, "sil"), (0.2, 0.25, "b"), (0.25, 0.4, "aa"), (0.4, 0.46, "b"), (0.46, 0.52, "s"),
          (0.52, 0.6, "t"), (0.6, 0.75, "uw"), (0.75, 0.9, "m"), (0.9, 1.0, "iy"), (1.0, 1.3, "sil")]
    rate = 1000.0
    n = 1400
    a = targets(ph, n, rate)
    t = (np.arange(n) + 0.5) / rate
    inside = lambda s, e: (t > s) & (t < e)  # noqa: E731
    for s, e, p in ph:
        m = inside(s, e)
        if p in ("p", "b", "m"):
            assert np.all(a[m, 0] == 0) and np.all(a[m, 2] == 1), f"{p} not held closed over its whole phone"
        if p == "sil":
            assert np.all(a[m] == 0), "silence is not rest"
    assert np.allclose(a[inside(0.29, 0.36), 0], TABLE["aa"][0]), "open vowel does not reach its target"
    # lips round on the s/t of "stoop"-like clusters: free consonants within 100 ms of the rounded vowel
    assert np.all(a[inside(0.518, 0.6), 1] < -0.99), "no anticipatory rounding through free consonants"
    # anticipation of the spread "iy" inside the m: spread before the vowel starts
    assert a[int(0.85 * rate), 1] > 0.8, "no anticipatory spreading inside the closure"
    # transitions are ramps, not steps, outside held phones
    assert np.max(np.abs(np.diff(a[inside(0.46, 0.75), 1]))) < 0.1, "spread jumps"
    # a 30 ms closure at 25 frames/s is still visible in the frame holding its midpoint
    short = [(0.0, 0.2, "sil"), (0.2, 0.3, "aa"), (0.3, 0.33, "p"), (0.33, 0.45, "aa"), (0.45, 0.6, "sil")]
    o = expected_openness(short, 15, 25)
    assert o[int(0.315 * 25)] == 0 and o[6] > 0.8 and o[9] > 0.8, "short closure not visible at 25 frames/s"
    # any rate: 100 Hz and 25 Hz agree at common instants (frame centres 0.02 + 0.04k are 100 Hz centres+0.015)
    assert targets(ph, 130, 100).shape == (130, 3) and expected_openness(ph, 33, 25).shape == (33,)
    # the learned targets: f and v tuck without a press, p/b/m press without a tuck; combined, the renderer's press
    fv = [(0.0, 0.2, "sil"), (0.2, 0.3, "aa"), (0.3, 0.4, "f"), (0.4, 0.5, "aa"), (0.5, 0.6, "m"), (0.6, 0.8, "sil")]
    lt = learned_targets(fv, 800, 1000.0)
    t8 = (np.arange(800) + 0.5) / 1000.0
    f_in, m_in = (t8 > 0.3) & (t8 < 0.4), (t8 > 0.5) & (t8 < 0.6)
    assert np.all(lt[f_in, 3] == 1) and np.all(lt[f_in, 2] == 0), "f is not a tuck alone"
    assert np.all(lt[m_in, 2] == 1) and np.all(lt[m_in, 3] == 0), "m is not a press alone"
    both = combined_press(lt[:, 2].astype(np.float64), lt[:, 3].astype(np.float64))
    assert np.allclose(both[f_in], LABIODENTAL_PRESS) and np.allclose(both[m_in], 1.0), "combined press is off"
    assert np.allclose(both[(t8 > 0.22) & (t8 < 0.25)], 0.0), "a vowel is pressed"
    assert combined_press(0.9, 1.0) == 0.9 and abs(combined_press(0.1, 1.0) - 0.4) < 1e-12, "the closure must win"
    print("targets selftest: ok")


def main():
    """Print the targets of a phone list json (the data set's per-utterance .json) at a given rate."""
    import argparse
    import json
    import sys

    if sys.argv[1:] == ["--selftest"]:
        selftest()
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("json", help="an utterance .json of the data set (or --selftest)")
    ap.add_argument("--rate", type=float, default=25.0)
    a = ap.parse_args()
    meta = json.load(open(a.json))
    n = int(np.ceil(meta["samples"] / meta["sample_rate"] * a.rate))
    tg = targets(meta["phones"], n, a.rate)
    op = expected_openness(meta["phones"], n, a.rate)
    ph = meta["phones"]
    for i in range(n):
        tc = (i + 0.5) / a.rate
        p = next((q[2] for q in ph if q[0] <= tc < q[1]), "sil")
        print(f"{tc:7.3f} {p:4s} jaw {tg[i,0]:.2f} spread {tg[i,1]:+.2f} press {tg[i,2]:.2f} open {op[i]:.2f}")


if __name__ == "__main__":
    main()
