"""press_by_phone.py: frames labelled by the phone at their middle, frication measured against voicing."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import press_by_phone as pbp  # noqa: E402


def test_a_frame_takes_the_phone_at_its_middle_and_its_class():
    phones = [[0.0, 0.05, "sil"], [0.05, 0.1, "f"], [0.1, 0.2, "m"]]
    assert pbp.phone_at(phones, 0.06) == "f" and pbp.phone_at(phones, 0.3) is None
    assert pbp.phone_class("v") == "f/v" and pbp.phone_class("b") == "p/b/m" and pbp.phone_class("aa") == "other"


def test_noise_reads_as_frication_and_a_low_tone_does_not():
    rng = np.random.default_rng(1)
    noise = rng.standard_normal(640).astype(np.float32)
    tone = np.sin(2 * np.pi * 200 * np.arange(640) / 16000).astype(np.float32)
    assert pbp.high_low_db(noise) > 0 > pbp.high_low_db(tone) + 30


def test_the_summary_counts_frames_and_pressed_ones_per_class():
    rng = np.random.default_rng(2)
    noise = (rng.standard_normal(640 * 2) * 3000).astype(np.int16)
    tone = (np.sin(2 * np.pi * 200 * np.arange(640 * 2) / 16000) * 3000).astype(np.int16)
    pcm = np.concatenate([noise, tone])
    phones = [[0.0, 0.08, "f"], [0.08, 0.16, "m"]]
    artic = [[0, 0, 0.5, 0, 0], [0, 0, 0.2, 0, 0], [0, 0, 0.9, 0, 0], [0, 0, 0.8, 0, 0]]
    s = pbp.summary(pbp.frames(artic, phones, pcm))
    assert s["f/v"]["frames"] == 2 and s["f/v"]["pressed"] == 1 and s["f/v"]["tuck_range"] == 1.0
    assert s["p/b/m"]["pressed"] == 2 and s["p/b/m"]["pressed_high_low_db"] < s["f/v"]["pressed_high_low_db"]
