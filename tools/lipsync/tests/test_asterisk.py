"""Tests of the Asterisk prompts' pipeline (asterisk.py) and the eval's weight swap (swap_weights.py): the pure
parts only (no packages, no espeak-ng), fast."""

import hashlib
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import asterisk as ast_  # noqa: E402
import swap_weights  # noqa: E402


def test_texts_parse_names_with_directories_and_skip_comments():
    lines = ["\ufeff; Core Asterisk Sounds in Italian", "", "activated: Attivato.",
             "digits/1: uno", "vm-intro: Lasciate un messaggio [pausa] dopo il segnale.", "; a comment: no",
             "no colon here", "conf-x:   spaced   out  "]
    texts = ast_.parse_texts(lines)
    assert texts == {"activated": "Attivato.", "digits/1": "uno",
                     "vm-intro": "Lasciate un messaggio dopo il segnale.", "conf-x": "spaced out"}


def test_packages_never_include_the_english_core_sounds_and_speakers_are_split_whole():
    names = ast_.packages()
    assert not any(n.startswith("asterisk-core-sounds-en") for n in names)
    assert "asterisk-core-sounds-fr" in names and "asterisk-core-sounds-it-wav" in names
    splits = {}
    for v in ast_.VOICES:
        splits.setdefault(v.speaker, set()).add(v.split)
    assert all(len(s) == 1 for s in splits.values())
    # the GPL prompt packages are never trained on; Allison Smith (an English held-out speaker) is held out
    for v in ast_.VOICES:
        if v.licence.startswith("GPL") or "Allison" in v.speaker:
            assert v.split == "val"
    assert {v.language for v in ast_.VOICES if v.split == "val"} >= {"es", "fr", "it"}


def test_dtw_follows_a_diagonal_and_a_stretch():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((40, 5))
    b = np.repeat(a, 2, axis=0)  # b is a, twice as slow
    path, cost = ast_.dtw(ast_.distances(a, b), penalty=0.05)
    assert tuple(path[0]) == (0, 0) and tuple(path[-1]) == (39, 79)
    assert np.all(np.diff(path, axis=0) >= 0) and np.all(np.abs(np.diff(path, axis=0)).sum(1) >= 1)
    assert all(abs(j // 2 - i) <= 1 for i, j in path)
    assert cost < 0.1


def test_dtw_is_the_exact_minimum_on_a_small_matrix():
    rng = np.random.default_rng(2)
    cost = rng.uniform(0, 1, (6, 7))
    pen = 0.2
    best = np.full((6, 7), np.inf)
    best[0, 0] = cost[0, 0]
    for i in range(6):
        for j in range(7):
            if i == j == 0:
                continue
            cands = []
            if i and j:
                cands.append(best[i - 1, j - 1])
            if i:
                cands.append(best[i - 1, j] + pen)
            if j:
                cands.append(best[i, j - 1] + pen)
            best[i, j] = cost[i, j] + min(cands)
    path, mean = ast_.dtw(cost, penalty=pen)
    total = sum(cost[i, j] for i, j in path) + pen * sum(1 for d in np.diff(path, axis=0) if d.sum() == 1)
    assert total == pytest.approx(best[-1, -1])
    assert mean == pytest.approx(best[-1, -1] / len(path))


def _tone_bursts(spec, rate=16000):
    """Concatenated segments of (seconds, frequency or 0 for silence), as int16."""
    out = []
    for seconds, f in spec:
        t = np.arange(int(seconds * rate)) / rate
        out.append(np.sin(2 * np.pi * f * t) * 8000 if f else np.zeros(len(t)))
    return np.concatenate(out).astype(np.int16)


def test_align_carries_boundaries_over_a_slower_recording():
    # "synthesis": 3 sounds of 0.2 s between silences; "recording": the same sounds, slower and shifted
    syn = _tone_bursts([(0.2, 0), (0.2, 500), (0.2, 1500), (0.2, 3000), (0.2, 0)])
    phones = [(0.0, 0.2, "sil"), (0.2, 0.4, "aa"), (0.4, 0.6, "m"), (0.6, 0.8, "iy"), (0.8, 1.0, "sil")]
    rec = _tone_bursts([(0.5, 0), (0.3, 500), (0.25, 1500), (0.35, 3000), (0.3, 0)])
    out, info = ast_.align(rec, syn, phones, snap=None)  # tones, no closures: the DTW's boundaries alone
    assert out[0][0] == 0.0 and out[-1][1] == pytest.approx(len(rec) / 16000)
    assert all(out[k][1] == out[k + 1][0] for k in range(len(out) - 1))
    names = [p for _, _, p in out]
    assert names == ["sil", "aa", "m", "iy", "sil"]
    want = [0.5, 0.8, 1.05, 1.4]
    got = [out[k][1] for k in range(4)]
    assert np.max(np.abs(np.array(got) - want)) <= 0.03
    assert 1.2 <= info["ratio"] <= 1.6


def test_carve_pauses_labels_silence_and_keeps_a_closure_before_the_release():
    phones = [(0.0, 0.1, "sil"), (0.1, 0.5, "aa"), (0.5, 0.9, "p"), (0.9, 1.2, "iy"), (1.2, 1.3, "sil")]
    out = ast_.carve_pauses(phones, [(0.3, 0.7)])
    assert out == [(0.0, 0.1, "sil"), (0.1, 0.3, "aa"), (0.3, 0.62, "sil"), (0.62, 0.9, "p"),
                   (0.9, 1.2, "iy"), (1.2, 1.3, "sil")]
    out = ast_.carve_pauses([(0.0, 1.0, "aa"), (1.0, 2.0, "iy")], [(0.8, 1.2)])
    assert out == [(0.0, 0.8, "aa"), (0.8, 1.2, "sil"), (1.2, 2.0, "iy")]


def test_alignment_check_measures():
    ref = [(0.0, 0.2, "sil"), (0.2, 0.3, "m"), (0.3, 0.5, "aa"), (0.5, 0.9, "sil"), (0.9, 1.0, "p")]
    hyp = [(0.0, 0.22, "sil"), (0.22, 0.31, "m"), (0.31, 0.55, "aa"), (0.55, 0.95, "sil"), (0.95, 1.0, "b")]
    errs = ast_.boundary_errors(ref, hyp)
    assert errs == pytest.approx([0.02, 0.01, 0.05, 0.05])
    assert ast_.bilabial_hits(ref, hyp) == (2, 2)
    agree, total = ast_.pause_agreement(ref, hyp)
    assert total == 60 and agree == 55  # the leading pause too


def _dip(n=100, at=(47,), depth=30.0):
    level = np.full(n, 60.0)
    for i in at:
        level[i] = depth
        level[i - 1] = level[i + 1] = depth + 10.0
    return level


def test_snap_moves_a_bilabial_onto_the_recordings_closure():
    phones = [(0.0, 0.2, "sil"), (0.2, 0.4, "aa"), (0.4, 0.5, "m"), (0.5, 0.7, "iy"), (0.7, 1.0, "sil")]
    level = _dip()  # the quietest frame 47, centred at 0.4825 s; the DTW carried the synthesis' closure to 0.45 s
    out = ast_.snap_bilabials(phones, level, "anchor", [0.45])
    assert out == [(0.0, 0.2, "sil"), (0.2, 0.4325, "aa"), (0.4325, 0.5325, "m"), (0.5325, 0.7, "iy"),
                   (0.7, 1.0, "sil")]
    assert ast_.snap_bilabials(phones, level, "anchor", []) == phones          # no anchor: left as it is
    assert ast_.snap_bilabials(phones, np.full(100, 60.0), "anchor", [0.45]) == phones   # nothing quieter
    assert ast_.snap_bilabials(phones, level, "centre")[2] == (0.4325, 0.5325, "m")
    assert ast_.snap_bilabials(phones, level, "stretch")[2] == (0.4625, 0.5025, "m")   # 30 ms run -> 40 ms
    # after a pause: left where carve_pauses put it
    after = [(0.0, 0.4, "sil"), (0.4, 0.5, "p"), (0.5, 1.0, "aa")]
    assert ast_.snap_bilabials(after, level, "anchor", [0.45]) == after


def test_snap_never_grows_a_bilabial_into_the_pause_after_it():
    phones = [(0.0, 0.5, "sil"), (0.5, 0.6, "aa"), (0.6, 0.7, "p"), (0.7, 1.0, "sil")]
    out = ast_.snap_bilabials(phones, _dip(at=(68,)), "anchor", [0.65])
    assert out == [(0.0, 0.5, "sil"), (0.5, 0.6425, "aa"), (0.6425, 0.7, "p"), (0.7, 1.0, "sil")]


def test_bilabial_offsets_measure_midpoints():
    ref = [(0.0, 0.2, "sil"), (0.2, 0.3, "m"), (0.3, 0.5, "aa"), (0.5, 0.6, "b")]
    hyp = [(0.0, 0.23, "sil"), (0.23, 0.33, "m"), (0.33, 0.52, "aa"), (0.52, 0.6, "p")]
    assert ast_.bilabial_offsets(ref, hyp) == pytest.approx([0.03, 0.01])
    assert ast_.bilabial_offsets(ref, [(0.0, 0.6, "aa")]) == [float("inf")] * 2


def test_swap_replaces_weights_and_digest_once():
    old = bytes(range(256)) * 4
    new = bytes(reversed(range(256))) * 4
    lib = b"head" + old + b"mid" + hashlib.sha256(old).hexdigest().encode() + b"tail"
    out = swap_weights.swap(lib, old, new)
    assert out == b"head" + new + b"mid" + hashlib.sha256(new).hexdigest().encode() + b"tail"
    with pytest.raises(ValueError):
        swap_weights.swap(lib, old, new[:-1])
    with pytest.raises(ValueError):
        swap_weights.swap(lib + old, old, new)
