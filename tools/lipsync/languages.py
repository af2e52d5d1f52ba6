"""Speech in other languages with exact phone timings (espeak-ng, IPA phoneme events), for the lip-sync eval.

    python3 tools/lipsync/languages.py --out build/lipsync-lang            # every language below
    python3 tools/lipsync/languages.py --out build/lipsync-lang --langs de,fr

The reference's mouth does not depend on the language; neither may ours. For each language, two espeak-ng
voices (a male and a female variant, never used for English training) speak the sentences of
`tools/lipsync/sentences-<lang>.txt` two or three to an utterance, joined by pauses, exactly as the English
validation data is made (`make_data._assemble`: 150-700 ms pauses, lead and trail silence, -1 dBFS peak). The
phonemes come from espeak-ng's events in IPA and map into the common phone set with `phones.from_ipa`; stop
closures are attached as for English (`synth_espeak.attach_closures`). Output: `<out>/<lang>/<id>.wav|json`
in the data set's item format (tools/lipsync/README.md). Deterministic for a seed.
"""

import argparse
import json
import multiprocessing as mp
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_data  # noqa: E402
import wavio  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 16000
# language -> (espeak-ng voice, its name in the report)
LANGUAGES = {
    "de": ("de", "German"),
    "es": ("es", "Spanish"),
    "fr": ("fr", "French"),
    "it": ("it", "Italian"),
    "pt": ("pt", "Portuguese"),
    "hi": ("hi", "Hindi"),
    "pl": ("pl", "Polish"),
    "ru": ("ru", "Russian"),
}
VARIANTS = ("m3", "f2")  # one male, one female variant per language


def sentences(lang):
    path = os.path.join(HERE, f"sentences-{lang}.txt")
    with open(path, encoding="utf-8") as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def plan(lang, seed):
    """Utterance specs for one language: every sentence once per variant, 2-3 sentences per utterance."""
    rng = np.random.default_rng([seed, 7, sum(map(ord, lang))])
    sents = sentences(lang)
    specs = []
    for v, variant in enumerate(VARIANTS):
        order = list(rng.permutation(len(sents)))
        k = 0
        while k < len(order):
            n = min(int(rng.integers(2, 4)), len(order) - k)
            group = [sents[i] for i in order[k:k + n]]
            k += n
            specs.append({
                "id": f"{lang}-{len(specs):03d}", "lang": lang, "voice": f"{LANGUAGES[lang][0]}+{variant}",
                "sentences": group, "rate": int(rng.integers(150, 200)), "pitch": int(rng.integers(35, 65)),
                "range": int(rng.integers(40, 70)), "lead": float(rng.uniform(0.15, 0.5)),
                "trail": float(rng.uniform(0.15, 0.5)),
                "pauses": [float(rng.uniform(0.15, 0.7)) for _ in range(n - 1)],
            })
    return specs


def _synth_language(args):
    """Worker (one process per language: libespeak-ng is a per-process singleton)."""
    lang, seed, out = args
    import synth_espeak
    engine = synth_espeak.Espeak(ipa=True)
    directory = os.path.join(out, lang)
    os.makedirs(directory, exist_ok=True)
    n_items, seconds, counts = 0, 0.0, {}
    for spec in plan(lang, seed):
        parts = [engine.synth(s, spec["voice"], spec["rate"], spec["pitch"], spec["range"])
                 for s in spec["sentences"]]
        y, phones = make_data._assemble(spec, parts)
        y = make_data._normalize_clean(y)
        n = make_data._write_wav(os.path.join(directory, spec["id"] + ".wav"), y)
        item = {"id": spec["id"], "split": "val", "voice": spec["voice"], "lang": lang, "source": "espeak",
                "sample_rate": RATE, "samples": n, "text": " ".join(spec["sentences"]),
                "synth": {k: spec[k] for k in ("rate", "pitch", "range")}, "augment": None,
                "phones": [[round(s, 5), round(e, 5), p] for s, e, p in phones]}
        with open(os.path.join(directory, spec["id"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(item, f, ensure_ascii=False)
        for _, _, p in phones:
            counts[p] = counts.get(p, 0) + 1
        n_items += 1
        seconds += n / RATE
    return lang, n_items, seconds, sum(counts.get(p, 0) for p in ("p", "b", "m"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="build/lipsync-lang")
    ap.add_argument("--langs", default=",".join(LANGUAGES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    langs = [x for x in a.langs.split(",") if x]
    for x in langs:
        if x not in LANGUAGES:
            ap.error(f"unknown language {x!r} (known: {', '.join(LANGUAGES)})")
    ctx = mp.get_context("fork")
    with ctx.Pool(a.jobs, maxtasksperchild=1) as pool:
        for lang, n, secs, nb in pool.imap(_synth_language, [(x, a.seed, a.out) for x in langs]):
            print(f"{lang} ({LANGUAGES[lang][1]}): {n} utterances, {secs:.0f} s, {nb} p/b/m")
    return 0


if __name__ == "__main__":
    sys.exit(main())
