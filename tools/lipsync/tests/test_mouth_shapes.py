"""Issue 46's mouth-shape figures (tools/lipsync/mouth_shapes.py) on synthetic landmarks: no mediapipe needed."""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import mouth_shapes as ms  # noqa: E402


def face(width, inner, opening, lower_lip, eyes=100.0, scale=1.0, tilt=0.0):
    """468 points whose mouth has these distances over the eye distance; scaled and rotated as a whole."""
    p = np.zeros((468, 2))
    p[ms.EYE_RIGHT] = (-eyes / 2, 0)
    p[ms.EYE_LEFT] = (eyes / 2, 0)
    y = 1.1 * eyes
    p[ms.MOUTH_RIGHT] = (-width * eyes / 2, y)
    p[ms.MOUTH_LEFT] = (width * eyes / 2, y)
    p[ms.INNER_RIGHT] = (-inner * eyes / 2, y)
    p[ms.INNER_LEFT] = (inner * eyes / 2, y)
    p[ms.LIP_UPPER] = (0, y - opening * eyes / 2)
    p[ms.LIP_LOWER] = (0, y + opening * eyes / 2)
    p[ms.LOWER_OUTER] = (0, y + opening * eyes / 2 + lower_lip * eyes)
    c, s = np.cos(tilt), np.sin(tilt)
    return scale * (p @ np.array([[c, s], [-s, c]])) + (200, 100)


def test_figures_are_over_the_eye_distance_whatever_the_scale_and_tilt():
    for scale, tilt in ((1, 0), (2.5, 0), (0.7, 0.3)):
        f = ms.figures(face(0.6, 0.5, 0.1, 0.12, scale=scale, tilt=tilt))
        assert f["width"] == pytest.approx(0.6)
        assert f["inner_width"] == pytest.approx(0.5)
        assert f["opening"] == pytest.approx(0.1)
        assert f["lower_lip"] == pytest.approx(0.12)


def poses(o=(0.42, 0.2, 0.12), u=(0.38, 0.1, 0.05), fv=(0.02, 0.065), m=0.0, a=0.25):
    rest = ms.figures(face(0.6, 0.55, 0.0, 0.1))
    return {
        "rest": rest,
        "o": ms.figures(face(o[0], o[1], o[2], 0.11)),
        "u": ms.figures(face(u[0], u[1], u[2], 0.11)),
        "fv": ms.figures(face(0.58, 0.5, fv[0], fv[1])),
        "m": ms.figures(face(0.6, 0.55, m, 0.09)),
        "a": ms.figures(face(0.55, 0.45, a, 0.09)),
    }


def test_a_mouth_that_meets_the_issue_passes():
    tab = ms.table(poses())
    assert tab["o_width"] == pytest.approx(0.7)
    assert tab["o_round"] == pytest.approx(0.6)
    assert tab["u_width"] == pytest.approx(0.38 / 0.6)
    assert tab["u_round"] == pytest.approx(0.5)
    assert tab["fv_lower_lip"] == pytest.approx(0.65)
    assert ms.misses(tab) == []
    assert ms.row("x", tab).startswith("| x | 0.70, 0.60 |")


@pytest.mark.parametrize("kw, name", [
    (dict(o=(0.48, 0.2, 0.12)), "o_width"),          # a narrowed smile, not drawn in
    (dict(o=(0.42, 0.3, 0.08)), "o_round"),          # a slot, not a round opening
    (dict(u=(0.45, 0.1, 0.05)), "u_width"),
    (dict(u=(0.38, 0.2, 0.05)), "u_round"),
    (dict(fv=(0.02, 0.09)), "fv_lower_lip"),         # the lower lip not tucked
    (dict(fv=(0.05, 0.06)), "fv_opening"),
    (dict(m=0.04), "m_opening"),
    (dict(a=0.15), "a_opening"),
])
def test_each_figure_that_misses_is_named(kw, name):
    assert [m[0] for m in ms.misses(ms.table(poses(**kw)))] == [name]


def test_a_missing_figure_misses():
    tab = ms.table(poses())
    tab["o_round"] = float("nan")
    assert [m[0] for m in ms.misses(tab)] == ["o_round"]


def test_speech_frames_are_gathered_by_the_phone_at_their_middle():
    phones = [(0.0, 0.1, "sil"), (0.1, 0.2, "ow"), (0.2, 0.26, "f"), (0.26, 0.4, "uw"), (0.4, 0.5, "aa")]
    got = ms.phone_frames(phones, 13)  # frame k's middle at (k + 0.5) / 25 s
    assert got == {"o": [2, 3, 4], "u": [6, 7, 8, 9], "fv": [5]}


def test_the_speech_table_averages_the_frames_at_each_shape():
    rest = ms.figures(face(0.6, 0.55, 0.0, 0.1))
    frames = {"o": [ms.figures(face(0.42, 0.2, 0.12, 0.1)), ms.figures(face(0.48, 0.2, 0.08, 0.1))],
              "u": [ms.figures(face(0.36, 0.1, 0.05, 0.1))],
              "fv": [ms.figures(face(0.6, 0.5, 0.01, 0.06))]}
    t = ms.speech_table(rest, frames)
    assert t["o_width"] == pytest.approx(0.75)
    assert t["o_round"] == pytest.approx((0.6 + 0.4) / 2)
    assert t["u_width"] == pytest.approx(0.6) and t["u_round"] == pytest.approx(0.5)
    assert t["fv_lower_lip"] == pytest.approx(0.6) and t["fv_opening"] == pytest.approx(0.01)
    assert t["counts"] == {"o": 2, "u": 1, "fv": 1}
    assert np.isnan(ms.speech_table(rest, {"o": [], "u": [], "fv": []})["o_width"])


def test_the_speech_row_and_bounds_cover_o_u_and_fv():
    rest = ms.figures(face(0.5, 0.4, 0.0, 0.1))
    frames = {"o": [ms.figures(face(0.35, 0.2, 0.12, 0.1))], "u": [ms.figures(face(0.3, 0.15, 0.08, 0.1))],
              "fv": [ms.figures(face(0.5, 0.4, 0.01, 0.06))]}
    t = ms.speech_table(rest, frames)
    row = ms.speech_row("x", t)
    assert row.startswith("| x | 0.70, 0.60 | 0.60, 0.53 | 0.60, 0.010 | 1 / 1 / 1 |")
    assert {b[0] for b in ms.SPEECH_BOUNDS} == {"o_width", "o_round", "u_width", "u_round", "fv_lower_lip",
                                                "fv_opening"}


def test_speech_wants_avatar_and_poses_pairs():
    with pytest.raises(SystemExit):
        ms.main(["speech", "--cli", "essence2", "--clips", ".", "avatar.imx"])
