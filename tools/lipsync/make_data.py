"""Generate the lip-sync training and validation data: 16 kHz speech with exact phone timings.

    python3 tools/lipsync/make_data.py --out build/lipsync-data --seed 1 [--quick] [--jobs 2]

Writes <out>/train/<id>.wav|.json, <out>/val/<id>.wav|.json and <out>/manifest.json, then prints a summary.
Same seed -> byte-identical files. See tools/lipsync/README.md and docs/lipsync.md.
"""

import argparse
import collections
import hashlib
import json
import multiprocessing as mp
import os
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import augment as aug  # noqa: E402
import wavio  # noqa: E402
import synth_festival  # noqa: E402

RATE = 16000

# Voices. Validation voices are never used for training.
TRAIN_ESPEAK_BASES = ["en", "en-us", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-gb-x-gbclan"]
TRAIN_ESPEAK_VARIANTS = ["", "m1", "m2", "m3", "m4", "m5", "m6", "m8", "f1", "f2", "f3", "f4",
                         "klatt", "klatt2", "klatt3", "klatt4", "klatt5", "klatt6"]
TRAIN_FESTIVAL = ["kal_diphone", "ked_diphone"]
TRAIN_FLITE = ["cmu_us_awb", "cmu_us_rms"]         # clustergen voices of two recorded people (not slt: see below)
VAL_ESPEAK = ["en-us-nyc+m7", "en-gb-x-gbcwmd+f5"]   # base voices and variants unused in train
VAL_FESTIVAL = ["cmu_us_slt_arctic_hts"]              # HTS voice built from a recorded person (SLT)

FULL = {"train": 720, "val_per_voice": 12, "other": 240}
QUICK = {"train": 40, "val_per_voice": 2, "other": 13}
# Festival voices of other languages, other recorded speakers (synth_festival.OTHER_VOICES): utterances appended to
# the training set from a stream of their own, so the items above are the same whichever languages are chosen.
OTHER_LANGUAGES = ("it", "cs", "fi", "ca", "ru", "hi", "mr", "te")
OTHER_WARP_SHARE = 0.7  # share of them given a new voice: pitch and vocal-tract length (voice_warp.py)
FESTIVAL_SHARE = 0.25  # share of training utterances from Festival
FLITE_SHARE = 0.25     # share of training utterances from Flite
WARP_SHARE = 0.5       # share of Festival and Flite training utterances given a new voice (voice_warp.py)
CLEAN_SHARE = 0.3      # share of training utterances left clean (the rest are augmented)
VAL_EVERY = 8          # every 8th sentence is held out for validation
LEAD_KEEP, TAIL_KEEP, FADE = 0.03, 0.05, 0.005  # seconds of a sentence's own silence kept around it
CHUNK = 20             # utterances per worker task


def load_language_sentences(lang):
    path = os.path.join(HERE, f"sentences-festival-{lang}.txt")
    return [l.strip() for l in open(path, encoding="utf-8") if l.strip() and not l.startswith("#")]


def _warp_params(rng):
    if rng.random() < 0.6:   # a higher, shorter voice: female and child-like ranges
        return [round(float(rng.uniform(1.35, 1.9)), 3), round(float(rng.uniform(1.08, 1.22)), 3)]
    return [round(float(rng.uniform(0.8, 1.3)), 3), round(float(rng.uniform(0.92, 1.08)), 3)]  # another adult


def load_sentences():
    lines = [l.strip() for l in open(os.path.join(HERE, "sentences.txt"), encoding="utf-8")]
    sents = [l for l in lines if l and not l.startswith("#")]
    val = [s for i, s in enumerate(sents) if i % VAL_EVERY == 0]
    train = [s for i, s in enumerate(sents) if i % VAL_EVERY != 0]
    return train, val


def plan(seed, sizes, languages=()):
    """The list of utterance specs, fully determined by the seed."""
    rng = np.random.default_rng([seed, 0])
    train_s, val_s = load_sentences()
    specs = []

    def common(split, k, pool_s):
        n = int(rng.choice([1, 2, 3], p=[0.35, 0.4, 0.25]))
        idx = rng.choice(len(pool_s), size=n, replace=False)
        return {
            "id": f"{split}-{k:04d}", "split": split,
            "sentences": [pool_s[i] for i in idx],
            "pauses": [round(float(rng.uniform(0.15, 0.7)), 3) for _ in range(n - 1)],
            "lead": round(float(rng.uniform(0.15, 0.5)), 3), "trail": round(float(rng.uniform(0.15, 0.5)), 3),
        }

    def espeak_params(spec, voice):
        spec.update(source="espeak", voice=voice, rate=int(rng.integers(130, 221)),
                    pitch=int(rng.integers(30, 71)), range=int(rng.integers(30, 81)))

    for k in range(sizes["train"]):
        spec = common("train", k, train_s)
        pick = rng.random()
        if pick < FLITE_SHARE:
            spec.update(source="flite", voice=str(rng.choice(TRAIN_FLITE)),
                        stretch=round(float(rng.uniform(0.8, 1.3)), 3),
                        f0_shift=round(float(rng.uniform(0.8, 1.25)), 3),
                        f0_std=round(float(rng.uniform(8, 30)), 1))
        elif pick < FLITE_SHARE + FESTIVAL_SHARE:
            spec.update(source="festival", voice=str(rng.choice(TRAIN_FESTIVAL)),
                        stretch=round(float(rng.uniform(0.8, 1.3)), 3),
                        f0=[round(float(rng.uniform(80, 140)), 1), round(float(rng.uniform(8, 25)), 1)])
        else:
            base = str(rng.choice(TRAIN_ESPEAK_BASES))
            var = str(rng.choice(TRAIN_ESPEAK_VARIANTS))
            espeak_params(spec, base + ("+" + var if var else ""))
        if spec["source"] in ("festival", "flite") and rng.random() < WARP_SHARE:
            spec["warp"] = _warp_params(rng)
        spec["augment"] = bool(rng.random() >= CLEAN_SHARE)
        specs.append(spec)
    # validation draws from its own stream, so changing the training plan never changes the validation set
    rng = np.random.default_rng([seed, 1])
    k = 0
    for voice in VAL_ESPEAK + VAL_FESTIVAL:
        for _ in range(sizes["val_per_voice"]):
            spec = common("val", k, val_s)
            if voice in VAL_FESTIVAL:
                spec.update(source="festival", voice=voice, stretch=1.0, f0=None)
            else:
                espeak_params(spec, voice)
            spec["augment"] = False
            specs.append(spec)
            k += 1
    # other languages, last, from their own stream
    rng = np.random.default_rng([seed, 3])
    languages = [l for l in OTHER_LANGUAGES if l in languages]
    pools = {l: load_language_sentences(l) for l in languages}
    by_language = {l: [v for v, info in synth_festival.OTHER_VOICES.items() if info[0] == l] for l in languages}
    for j in range(sizes["other"] if languages else 0):
        lang = str(rng.choice(languages))
        spec = common("train", sizes["train"] + j, pools[lang])
        voice = str(rng.choice(by_language[lang]))
        stretch = round(float(rng.uniform(0.8, 1.3)), 3)
        spec.update(source="festival", voice=voice, language=lang,
                    stretch=1.0 if voice in synth_festival.FIXED_RATE else stretch, f0=None)
        if rng.random() < OTHER_WARP_SHARE:
            spec["warp"] = _warp_params(rng)
        spec["augment"] = bool(rng.random() >= CLEAN_SHARE)
        specs.append(spec)
    return specs


def _trim(y, phones):
    """Cut a synthesized sentence to its speech plus a little of its own silence; fade the cut edges."""
    dur = len(y) / RATE
    speech = [i for i, p in enumerate(phones) if p[2] != "sil"]
    if not speech:
        return None
    t0 = max(0.0, phones[speech[0]][0] - LEAD_KEEP)
    t1 = min(dur, phones[speech[-1]][1] + TAIL_KEEP)
    s0, s1 = int(round(t0 * RATE)), int(round(t1 * RATE))
    y = np.array(y[s0:s1], dtype=np.float64)
    nf = int(FADE * RATE)
    if s0 > 0 and len(y) > nf:
        y[:nf] *= np.linspace(0, 1, nf)
    if s1 < int(round(dur * RATE)) and len(y) > nf:
        y[-nf:] *= np.linspace(1, 0, nf)
    off, end = s0 / RATE, (s1 - s0) / RATE
    out = []
    for s, e, p in phones:
        s, e = max(s - off, 0.0), min(e - off, end)
        if e > s:
            out.append((s, e, p))
    return y, out


def _assemble(spec, parts):
    """Join synthesized sentences with real silence: lead, pauses between sentences, trail."""
    pieces, phones = [], []
    pos = 0  # samples

    def add_sil(n):
        nonlocal pos
        if n <= 0:
            return
        pieces.append(np.zeros(n))
        _add(phones, pos / RATE, (pos + n) / RATE, "sil")
        pos += n

    add_sil(int(round(spec["lead"] * RATE)))
    parts = [p for p in (_trim(y, ph) for y, ph in parts) if p is not None]
    for k, (y, ph) in enumerate(parts):
        for s, e, p in ph:
            _add(phones, pos / RATE + s, pos / RATE + e, p)
        pieces.append(y)
        pos += len(y)
        if k + 1 < len(parts):
            # the pause counts the sentences' own kept silence too
            add_sil(int(round(max(spec["pauses"][k] - LEAD_KEEP - TAIL_KEEP, 0.05) * RATE)))
    add_sil(int(round(spec["trail"] * RATE)))
    y = np.concatenate(pieces)
    # make the phone list contiguous and cover the whole file exactly
    fixed, t = [], 0.0
    for s, e, p in phones:
        if s > t + 1e-9:
            _add(fixed, t, s, "sil")
        _add(fixed, max(s, t), e, p)
        t = e
    total = len(y) / RATE
    if t < total:
        _add(fixed, t, total, "sil")
    fixed[-1] = (fixed[-1][0], total, fixed[-1][2])
    return y, fixed


def _add(phones, s, e, p):
    if e <= s:
        return
    if phones and phones[-1][2] == p == "sil" and abs(phones[-1][1] - s) < 1e-9:
        phones[-1] = (phones[-1][0], e, "sil")
    else:
        phones.append((s, e, p))


_ESPEAK = None


def _warped(spec, parts):
    """The sentences of `spec` in the new voice its "warp" ([pitch factor, formant factor]) asks for."""
    if not spec.get("warp"):
        return parts
    import voice_warp
    f0, formant = spec["warp"]
    return [(voice_warp.warp(y, f0, formant), ph) for y, ph in parts]


def _synth_chunk(chunk):
    """Worker: synthesize and assemble a chunk of utterance specs (one engine per chunk)."""
    global _ESPEAK
    out = []
    if chunk[0]["source"] == "flite":
        import synth_flite
        engine = synth_flite.Flite()
        for spec in chunk:
            parts = [engine.synth(s, spec["voice"], spec["stretch"], spec["f0_shift"], spec["f0_std"])
                     for s in spec["sentences"]]
            out.append(_assemble(spec, _warped(spec, parts)))
    elif chunk[0]["source"] == "espeak":
        if _ESPEAK is None:
            import synth_espeak
            _ESPEAK = synth_espeak.Espeak()
        for spec in chunk:
            parts = [_ESPEAK.synth(s, spec["voice"], spec["rate"], spec["pitch"], spec["range"])
                     for s in spec["sentences"]]
            out.append(_assemble(spec, parts))
    else:
        items = [(s, spec["voice"], spec["stretch"], spec["f0"]) for spec in chunk for s in spec["sentences"]]
        res = synth_festival.synth_batch(items)
        k = 0
        for spec in chunk:
            n = len(spec["sentences"])
            out.append(_assemble(spec, _warped(spec, res[k: k + n])))
            k += n
    return out


_POOL = None  # clean training audio for babble noise (inherited by forked workers)


def _augment_one(args):
    idx, seed, y = args
    rng = np.random.default_rng([seed, 2, idx])
    others = _POOL[:idx] + _POOL[idx + 1:] if idx < len(_POOL) else _POOL
    return aug.augment(y, rng, others)


def _normalize_clean(y):
    return (y / (np.max(np.abs(y)) + 1e-12) * 10 ** (-1 / 20)).astype(np.float32)  # peak -1 dBFS


def _write_wav(path, y):
    pcm = wavio.to_pcm(y)
    wavio.write_pcm(path, pcm, RATE)
    return len(pcm)


def main():
    global _POOL
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/lipsync-data")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a small set (40 train, 6 val utterances) in seconds")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (at most 2 on the shared machine)")
    # Default none: the shipped weights were trained without them, and `make lipsync-train` must give them back.
    ap.add_argument("--other-languages", default="none",
                    help="Festival voices of these languages added to training (comma-separated: "
                         f"{','.join(OTHER_LANGUAGES)}, or 'all'; default none)")
    a = ap.parse_args()
    languages = ([] if a.other_languages == "none" else list(OTHER_LANGUAGES) if a.other_languages == "all"
                 else a.other_languages.split(","))
    unknown = [l for l in languages if l not in OTHER_LANGUAGES]
    if unknown:
        ap.error(f"unknown language(s) {', '.join(unknown)}: choose from {', '.join(OTHER_LANGUAGES)}")
    t_start = time.time()
    specs = plan(a.seed, QUICK if a.quick else FULL, languages)

    # 1. synthesis, in chunks of one engine each, order preserved
    chunks = []
    for src in ("espeak", "festival", "flite"):
        group = [s for s in specs if s["source"] == src and "language" not in s]
        chunks += [group[i: i + CHUNK] for i in range(0, len(group), CHUNK)]
    # the other languages' voices one at a time: a festival process that switches between them can fail (the
    # Indian voices share tables that a second one redefines)
    others = [s for s in specs if "language" in s]
    for voice in sorted({s["voice"] for s in others}):
        group = [s for s in others if s["voice"] == voice]
        chunks += [group[i: i + CHUNK] for i in range(0, len(group), CHUNK)]
    ctx = mp.get_context("fork")
    results = {}
    # maxtasksperchild=1: every chunk starts in a fresh process. espeak-ng carries synthesis state (the glottal
    # cycle's phase) from one message to the next, so output is only reproducible for a fixed history.
    with ctx.Pool(max(1, min(a.jobs, 2)), maxtasksperchild=1) as pool:
        for chunk, res in zip(chunks, pool.imap(_synth_chunk, chunks)):
            for spec, r in zip(chunk, res):
                results[spec["id"]] = r
    t_synth = time.time() - t_start

    # 2. clean level, then augmentation (babble from the clean training audio)
    clean = {sid: _normalize_clean(y) for sid, (y, _) in results.items()}
    train_ids = [s["id"] for s in specs if s["split"] == "train"]
    # babble from the English training talkers only, so the English items are the same with or without the others
    _POOL = [clean[s["id"]] for s in specs if s["split"] == "train" and "language" not in s]
    jobs = [(k, a.seed, clean[sid]) for k, sid in enumerate(train_ids)
            if next(s for s in specs if s["id"] == sid)["augment"]]
    with ctx.Pool(max(1, min(a.jobs, 2))) as pool:
        augmented = dict(zip([train_ids[k] for k, _, _ in jobs], pool.map(_augment_one, jobs, chunksize=8)))

    # 3. write
    if os.path.isdir(a.out):
        for sub in ("train", "val"):
            shutil.rmtree(os.path.join(a.out, sub), ignore_errors=True)
    for sub in ("train", "val"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    manifest = []
    for spec in specs:
        sid = spec["id"]
        phones = results[sid][1]
        if sid in augmented:
            y, desc = augmented[sid]
        else:
            y, desc = clean[sid], None
        rel = f"{spec['split']}/{sid}"
        n = _write_wav(os.path.join(a.out, rel + ".wav"), y)
        meta = {
            "id": sid, "split": spec["split"], "voice": spec["voice"], "source": spec["source"],
            "language": spec.get("language", "en"), "sample_rate": RATE, "samples": n,
            "text": " ".join(spec["sentences"]),
            "synth": {k: spec[k] for k in ("rate", "pitch", "range", "stretch", "f0", "f0_shift", "f0_std", "warp")
                      if k in spec},
            "augment": desc,
            "phones": [[round(s, 6), round(e, 6), p] for s, e, p in phones],
        }
        meta["phones"][-1][1] = round(n / RATE, 6)
        with open(os.path.join(a.out, rel + ".json"), "w") as f:
            json.dump(meta, f, indent=None, separators=(",", ":"))
            f.write("\n")
        manifest.append({"id": sid, "split": spec["split"], "wav": rel + ".wav", "json": rel + ".json",
                         "voice": spec["voice"], "source": spec["source"], "language": spec.get("language", "en"),
                         "seconds": round(n / RATE, 4),
                         "augmented": desc is not None})
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump({"seed": a.seed, "quick": a.quick, "sample_rate": RATE,
                   "val_voices": VAL_ESPEAK + VAL_FESTIVAL, "items": manifest}, f, indent=1)
        f.write("\n")
    summarize(a.out, manifest, results, time.time() - t_start, t_synth)


def summarize(out, manifest, results, total_s, synth_s):
    print(f"lipsync data in {out}: {total_s:.1f} s (synthesis {synth_s:.1f} s)")
    for split in ("train", "val"):
        items = [m for m in manifest if m["split"] == split]
        mins = sum(m["seconds"] for m in items) / 60
        nb = collections.Counter()
        per_voice = collections.defaultdict(float)
        for m in items:
            per_voice[m["voice"]] += m["seconds"] / 60
            for _, _, p in results[m["id"]][1]:
                nb[p] += 1
        aug_n = sum(m["augmented"] for m in items)
        print(f"  {split}: {len(items)} utterances, {mins:.1f} min, {aug_n} augmented; "
              f"p/b/m phones: {nb['p']}/{nb['b']}/{nb['m']}; sil segments (pauses and ends): {nb['sil']}")
        groups = collections.defaultdict(float)
        for v, mn in per_voice.items():
            groups[v if split == "val" or "+" not in v else v.split("+")[0] + "+*"] += mn
        print(f"    {len(per_voice)} voices; minutes per voice (espeak bases with all variants as +*): "
              + ", ".join(f"{v} {mn:.1f}" for v, mn in sorted(groups.items())))
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk(out)):
        for fn in sorted(files):
            p = os.path.join(root, fn)
            h.update(os.path.relpath(p, out).encode())
            h.update(open(p, "rb").read())
    print(f"  sha256 of all files: {h.hexdigest()}")


def check(out):
    """Sanity-check phone timings against the audio of the clean utterances in a generated set.

    Per source: silence (frames inside pauses of 150 ms or more, 20 ms from their edges, that are 40 dB or more
    below the utterance's loud level), bilabial stops between two vowels (how far the energy dips inside the
    labelled p/b below its neighbours, and the share whose lowest 5 ms frame between the neighbours' midpoints
    lies inside the label), m (dip below its neighbours) and vowel onsets after stops or silence (level rise from
    the 10 ms before the label to the 10 ms after it).
    """
    import wave as _w
    man = json.load(open(os.path.join(out, "manifest.json")))
    stats = collections.defaultdict(lambda: collections.defaultdict(list))
    vowels = {"aa", "ae", "ah", "aw", "ay", "ao", "ow", "oy", "uw", "uh", "iy", "ih", "ey", "eh", "er", "ax"}
    for m in man["items"]:
        if m["augmented"]:
            continue
        meta = json.load(open(os.path.join(out, m["json"])))
        with _w.open(os.path.join(out, m["wav"])) as w:
            y = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float64) / 32768
        h = RATE // 200
        n = len(y) // h
        db = 10 * np.log10(np.mean(y[: n * h].reshape(n, h) ** 2, axis=1) + 1e-12)
        db -= np.percentile(db, 99)
        fr = lambda t: min(max(int(t * 200), 0), n)  # noqa: E731
        st = stats[m["source"]]
        ph = meta["phones"]
        for k, (s, e, p) in enumerate(ph):
            if p == "sil" and e - s >= 0.15:
                st["sil_quiet"] += list(db[fr(s + 0.02): fr(e - 0.02)] < -40)
            if 0 < k < len(ph) - 1 and ph[k - 1][2] != "sil" and ph[k + 1][2] != "sil":
                ps, pe, _ = ph[k - 1]
                ns, ne, _ = ph[k + 1]
                inside = db[fr(s): max(fr(e), fr(s) + 1)]
                around = np.concatenate([db[fr(ps): max(fr(pe), fr(ps) + 1)], db[fr(ns): max(fr(ne), fr(ns) + 1)]])
                if p in ("p", "b") and ph[k - 1][2] in vowels and ph[k + 1][2] in vowels:
                    a, b = fr((ps + pe) / 2), fr((ns + ne) / 2)
                    if b > a:
                        i = a + int(np.argmin(db[a:b]))
                        st["pb_min_inside"].append(fr(s) <= i < max(fr(e), fr(s) + 1))
                    st["pb_dip_db"].append(np.median(around) - inside.min())
                if p == "m":
                    st["m_dip_db"].append(np.median(around) - np.median(inside))
            if p in vowels and k > 0 and (ph[k - 1][2] == "sil" or ph[k - 1][2] in ("p", "b", "t", "d", "k", "g")):
                i = fr(s)
                if i >= 2 and i + 2 <= n:
                    st["onset_rise_db"].append(np.mean(db[i: i + 2]) - np.mean(db[i - 2: i]))
    for src, st in sorted(stats.items()):
        print(f"{src}: silence frames quiet {np.mean(st['sil_quiet']):.3f} (n={len(st['sil_quiet'])}); "
              f"vowel-p/b-vowel: energy minimum inside label {np.mean(st['pb_min_inside']):.2f}, "
              f"dip median {np.median(st['pb_dip_db']):.1f} dB (n={len(st['pb_dip_db'])}); "
              f"m dip median {np.median(st['m_dip_db']):.1f} dB; "
              f"vowel onset rise median {np.median(st['onset_rise_db']):.1f} dB, "
              f"share rising {np.mean(np.array(st['onset_rise_db']) > 0):.2f} (n={len(st['onset_rise_db'])})")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    else:
        main()
