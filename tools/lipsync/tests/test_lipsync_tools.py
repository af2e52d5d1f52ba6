"""Tests of the lip-sync tools' pure parts and of the committed real-speech alignments (`make test-tools`)."""

import json
import os
import shutil
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
sys.path.insert(0, TOOLS)

import align_real  # noqa: E402
import channel  # noqa: E402
import eval as ev  # noqa: E402
import phones  # noqa: E402
import wavio  # noqa: E402

REAL = os.path.join(TOOLS, "real")


def test_ipa_names_map_lips_vowels_and_pauses_into_the_common_set():
    assert [phones.from_ipa(x) for x in ("p", "bʰ", "mʲ", "m")] == ["p", "b", "m", "m"]
    assert phones.from_ipa("β") == "v"  # Spanish b between vowels narrows the lips, does not close them
    assert phones.from_ipa("ɐ̃ʊ̃") == "aw"
    assert phones.from_ipa("aː") == "aa" and phones.from_ipa("œ̃") == "ao" and phones.from_ipa("ə-") == "ax"
    assert phones.from_ipa("ts") == "ch" and phones.from_ipa("tʃʲ") == "ch"
    assert phones.from_ipa("") == "sil"
    assert phones.from_ipa("ʲ") == "y"
    with pytest.raises(KeyError):
        phones.from_ipa("☃")


def test_contiguous_fills_gaps_with_silence_and_merges_it():
    segs = [(0.0, 0.2, "sil"), (0.25, 0.3, "p"), (0.3, 0.5, "aa"), (0.5, 0.6, "sil"), (0.6, 0.7, "sil")]
    out = align_real.contiguous(segs, 1.0)
    assert out == [[0.0, 0.25, "sil"], [0.25, 0.3, "p"], [0.3, 0.5, "aa"], [0.5, 1.0, "sil"]]


def test_realign_undoes_a_codec_delay():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(16000) * 3000
    delayed = np.concatenate([np.zeros(700), x])[:16000]
    assert np.allclose(channel.realign(x, delayed)[:15000], x[:15000])
    early = x[400:]
    assert np.allclose(channel.realign(x, early)[400:15000], x[400:15000])


def test_agc_keeps_length_and_lifts_quiet_speech():
    x, _ = wavio.read_pcm(os.path.join(REAL, "mfa_thoughts.wav"))
    quiet = (x.astype(np.float64) * 0.05).astype(np.int16)
    y = channel.apply(quiet, np.random.default_rng(1), "agc")
    assert len(y) == len(quiet) and y.dtype == np.int16
    assert np.abs(y).max() > 3 * np.abs(quiet).max()


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
@pytest.mark.parametrize("kind", ["mp3", "opus", "phone", "g722"])
def test_codecs_keep_the_timing(kind):
    x, _ = wavio.read_pcm(os.path.join(REAL, "mfa_thoughts.wav"))
    y = channel.apply(x, np.random.default_rng(2), kind)
    assert len(y) == len(x) and y.dtype == np.int16
    # envelopes line up at lag 0 (within 2 ms)
    ex = np.convolve(np.abs(x.astype(float)), np.ones(80), "same")
    ey = np.convolve(np.abs(y.astype(float)), np.ones(80), "same")
    lags = range(-64, 65)
    best = max(lags, key=lambda d: np.dot(ex[200 + d:-200 + d], ey[200:-200]))
    assert abs(best) <= 32


def test_excluded_laughter_counts_in_neither_silence_nor_r():
    n = 50
    ph = [(0.0, 0.4, "sil"), (0.4, 0.8, "aa"), (0.8, 2.0, "sil")]
    raw = np.zeros(n)
    raw[10:20] = 1.0        # speech
    raw[30:40] = 1.0        # laughter inside the pause
    without = ev.utterance_figures(raw, ph, 32000)
    with_ex = ev.utterance_figures(raw, ph, 32000, exclude=[(1.2, 1.6)])
    assert without["silence"] < 0.8
    assert with_ex["silence"] == 1.0
    assert with_ex["r0"] > without["r0"]


def test_every_real_recording_is_aligned_and_speakers_never_cross_splits():
    wavs = sorted(x[:-4] for x in os.listdir(REAL) if x.endswith(".wav"))
    assert len(wavs) == 22
    speakers = {"train": set(), "val": set()}
    for clip in wavs:
        meta = json.load(open(os.path.join(REAL, clip + ".json")))
        pcm, rate = wavio.read_pcm(os.path.join(REAL, clip + ".wav"))
        assert rate == 16000 and meta["samples"] == len(pcm)
        ph = meta["phones"]
        assert ph[0][0] == 0 and abs(ph[-1][1] - len(pcm) / 16000) < 1e-3
        assert all(abs(a[1] - b[0]) < 1e-6 for a, b in zip(ph, ph[1:]))
        assert all(p in phones.CLASSES for _, _, p in ph)
        assert any(p != "sil" for _, _, p in ph)
        speakers[meta["split"]].add(meta["speaker"])
        assert align_real.CLIPS[clip][2] == meta["split"]
    assert not speakers["train"] & speakers["val"]
    assert len(speakers["val"]) >= 4


@pytest.mark.skipif(not os.path.exists("/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1"),
                    reason="libespeak-ng1 is not installed")
def test_every_language_speaks_with_mapped_phones_and_lip_closures(tmp_path):
    import subprocess
    out = tmp_path / "lang"
    subprocess.run([sys.executable, os.path.join(TOOLS, "languages.py"), "--out", str(out), "--jobs", "2"],
                   check=True, capture_output=True)
    import languages
    for lang in languages.LANGUAGES:
        items = sorted((out / lang).glob("*.json"))
        assert len(items) >= 6, lang
        labels = [p for it in items for _, _, p in json.load(open(it))["phones"]]
        assert sum(p in ("p", "b", "m") for p in labels) >= 60, lang
        assert all(p in phones.CLASSES for p in labels)


def test_other_languages_close_the_lips_only_on_their_bilabials():
    # Only labial stops and nasals (plain, long, palatalised, aspirated) close the lips; labiodental nasals and
    # trills do not, whatever language the phone set belongs to.
    bilabial = {"p", "b", "m", "pp", "bb", "mm", "p:", "b:", "m:", "bh"}
    for phoneset, table in phones.FESTIVAL_LANGUAGE.items():
        for name, common in table.items():
            assert common in phones.CLASSES, (phoneset, name)
            assert (phones.phone_class(common) == "bilabial") == (name in bilabial), (phoneset, name)
    assert phones.from_festival("nf", "italian") == "f"
    assert phones.from_festival("r", "czech") == "l" and phones.from_festival("r", "english") == "r"
    with pytest.raises(KeyError):
        phones.from_festival("kal", "italian")


def _festival_voice_installed(voice):
    return any(os.path.isdir(os.path.join(root, voice)) for root in
               (os.path.join("/usr/share/festival/voices", d) for d in
                (os.listdir("/usr/share/festival/voices") if os.path.isdir("/usr/share/festival/voices") else [])))


@pytest.mark.parametrize("voice", sorted(__import__("synth_festival").OTHER_VOICES))
def test_other_language_voices_speak_their_sentences_with_mapped_phones(voice):
    import make_data
    import synth_festival
    if shutil.which("festival") is None or not _festival_voice_installed(voice):
        pytest.skip(f"festival or its voice {voice} is not installed (make lipsync-deps)")
    lang = synth_festival.OTHER_VOICES[voice][0]
    sentences = make_data.load_language_sentences(lang)[:4]
    out = synth_festival.synth_batch([(s, voice, 1.0, None) for s in sentences])
    for (y, ph), text in zip(out, sentences):
        assert len(y) > 16000 * 0.8, (voice, text)
        assert ph[0][0] == 0.0 and abs(ph[-1][1] - len(y) / 16000) < 1e-6
        assert sum(p not in ("sil",) for _, _, p in ph) >= 0.5 * len(text.split()), (voice, text)
    labels = [p for _, ph in out for _, _, p in ph]
    assert sum(p in phones.BILABIALS for p in labels) >= 4, voice


def test_targets_rules_hold_and_the_learned_targets_split_press_from_tuck():
    import targets as tg

    tg.selftest()  # raises on a broken rule
    phones_ = [(0.0, 0.1, "sil"), (0.1, 0.2, "ah"), (0.2, 0.3, "v"), (0.3, 0.4, "ah"), (0.4, 0.5, "b"),
               (0.5, 0.7, "sil")]
    renderer = tg.targets(phones_, 18, 25.0)
    learned = tg.learned_targets(phones_, 18, 25.0)
    assert learned.shape == (18, 4) and renderer.shape == (18, 3)
    # Combined, the learned targets are the renderer's press wherever one gesture is held alone.
    both = tg.combined_press(learned[:, 2], learned[:, 3])
    held = [6, 11]  # the middles of the v and the b
    assert np.allclose(both[held], renderer[held, 2]) and np.allclose(learned[:, :2], renderer[:, :2])
    assert learned[6, 3] == 1 and learned[6, 2] == 0 and learned[11, 2] == 1 and learned[11, 3] == 0
