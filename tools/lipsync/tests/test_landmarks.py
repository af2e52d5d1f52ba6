"""The landmark meter's pure parts (tools/lipsync/landmarks.py) on a synthetic face: no mediapipe needed."""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import landmarks as lmk  # noqa: E402
import measure  # noqa: E402
import targets as tg  # noqa: E402

# "sil aa m aa p aa b iy sil aa sil": three bilabials, a 400 ms pause in the middle
PHONES = [(0.0, 0.3, "sil"), (0.3, 0.5, "aa"), (0.5, 0.6, "m"), (0.6, 0.8, "aa"), (0.8, 0.88, "p"),
          (0.88, 1.1, "aa"), (1.1, 1.18, "b"), (1.18, 1.4, "iy"), (1.4, 1.8, "sil"), (1.8, 2.1, "aa"),
          (2.1, 2.4, "sil")]
SAMPLES = int(2.4 * 16000)
N = 60


def face(gap, eyes=100.0, x=150.0, y=200.0, tilt=0.0):
    """468 Face Mesh points (pixels) of a face whose eye corners are `eyes` apart and inner lips `gap` apart,
    rotated by `tilt` radians about (x, y)."""
    pts = np.zeros((468, 3))
    pts[lmk.EYE_RIGHT, :2] = (-eyes / 2, 0)
    pts[lmk.EYE_LEFT, :2] = (eyes / 2, 0)
    pts[lmk.LIP_UPPER, :2] = (0, 1.1 * eyes)
    pts[lmk.LIP_LOWER, :2] = (0, 1.1 * eyes + gap)
    c, s = np.cos(tilt), np.sin(tilt)
    pts[:, :2] = pts[:, :2] @ np.array([[c, s], [-s, c]]) + (x, y)
    return pts


def clip(gaps, scale=1.0):
    """Landmarks of a clip whose face moves and zooms (head motion) while the lips open by `gaps` (ratio)."""
    k = np.arange(len(gaps))
    eyes = 100.0 * scale * (1 + 0.1 * np.sin(k / 7))
    return np.stack([face(g * e, eyes=e, x=150 + 5 * np.sin(k[i] / 5), tilt=0.05 * np.sin(k[i] / 9))
                     for i, (g, e) in enumerate(zip(gaps, eyes))])


def test_gap_ratio_is_the_inner_lip_gap_over_the_eye_corners_whatever_the_head_does():
    assert np.isclose(lmk.gap_ratio(face(10.0)), 0.1)
    assert np.isclose(lmk.gap_ratio(face(20.0, eyes=200.0, x=30, y=40, tilt=0.3)), 0.1)
    gaps = np.linspace(0, 0.4, 20)
    assert np.allclose(lmk.gap_ratio(clip(gaps)), gaps)
    assert np.isnan(lmk.gap_ratio(face(10.0, eyes=0.0)))


def test_missing_frames_are_interpolated_and_counted():
    filled, missing = lmk.fill_missing([np.nan, 1.0, np.nan, 3.0, np.nan])
    assert missing == 3 and np.allclose(filled, [1, 1, 2, 3, 3])
    assert lmk.fill_missing([np.nan, np.nan])[1] == 2


def test_a_face_that_follows_the_phones_meets_every_figure():
    expected = tg.expected_openness(PHONES, N, measure.FPS).astype(float)
    raw = lmk.gap_ratio(clip(0.02 + 0.35 * expected))   # closed lips still read a small gap
    f = measure.utterance_figures(raw, PHONES, SAMPLES)
    assert f["closure"] == 1.0 and f["by_phone"] == {"p": [1, 1], "b": [1, 1], "m": [1, 1]}
    assert f["silence"] == 1.0 and f["pause_frames"] > 0
    assert f["r0"] > 0.99 and f["best_lag"] == 0


def test_an_unsealed_m_and_parted_lips_in_the_pause_are_where_the_meters_disagree():
    expected = tg.expected_openness(PHONES, N, measure.FPS).astype(float)
    gaps = 0.02 + 0.35 * expected
    m_frames = range(int(0.5 * 25) - 1, int(0.6 * 25) + 2)
    gaps[list(m_frames)] = 0.12                           # the m: lips parted (teeth between them)
    gaps[int(1.5 * 25)] = 0.15                            # one pause frame: lips apart
    lm = lmk.gap_ratio(clip(gaps))
    px = 1300 * expected                                  # a pixel meter that saw both closed
    f_lm = measure.utterance_figures(lm, PHONES, SAMPLES)
    f_px = measure.utterance_figures(px, PHONES, SAMPLES)
    assert f_px["closure"] == 1.0 and f_lm["by_phone"]["m"] == [0, 1] and f_lm["by_phone"]["p"] == [1, 1]
    cmp = lmk.compare(px, lm, f_px, f_lm)
    assert [(e["phone"], e["pixel_closed"], e["landmark_closed"]) for e in cmp["bilabials"]] == [("m", True, False)]
    assert [e["frame"] for e in cmp["pause"]] == [int(1.5 * 25)]
    s = lmk.summarise([cmp, cmp])
    assert s["bilabials"]["pixel_only"]["m"] == 2 and s["pause"]["pixel_only"] == 2
    assert s["bilabials"]["landmark_only"] == {"p": 0, "b": 0, "m": 0}
    assert 0.5 < s["r_meters"] < 1.0


def test_overall_pools_closures_per_phone():
    expected = tg.expected_openness(PHONES, N, measure.FPS).astype(float)
    f = measure.utterance_figures(expected, PHONES, SAMPLES)
    o = measure.overall([f, f, None])
    assert o["by_phone"] == {"p": [2, 2], "b": [2, 2], "m": [2, 2]} and o["closure"] == 1.0


def test_face_box_widens_and_stays_inside_the_frame():
    x0, y0, x1, y1 = lmk.face_box(face(10.0)[:, :2], (300, 260))
    assert x0 % 2 == 0 and y0 % 2 == 0 and 0 <= x0 < 100 and 0 <= y0 < 200 and x1 <= 260 and y1 <= 300
    assert x1 - x0 == y1 - y0 > 110
