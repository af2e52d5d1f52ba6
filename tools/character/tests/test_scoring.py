"""tools/character/scoring.py: issue 45's scoring of found points against labels."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import scoring  # noqa: E402

LABEL = {"left_eye": [100, 100], "right_eye": [200, 100], "mouth_left": [120, 200], "mouth_right": [180, 200],
         "mouth_center": [150, 205], "mouth": "closed",
         "outline": [[150, 0], [250, 150], [150, 300], [50, 150]]}


def moved(key, dx, dy, base=LABEL):
    found = {k: list(base[k]) for k in scoring.KEYS}
    found[key] = [found[key][0] + dx, found[key][1] + dy]
    return found


def test_the_tolerance_is_the_larger_of_a_quarter_eye_distance_and_6_percent_of_the_head():
    assert scoring.tolerance(LABEL) == 25.0  # eye distance 100, head 300 high: 25 > 18
    profile = dict(LABEL, right_eye=[130, 100])  # eyes 30 apart: 7.5 < 18
    assert scoring.tolerance(profile) == 18.0


def test_a_point_is_right_within_the_tolerance_and_wrong_beyond():
    assert scoring.judge(moved("mouth_left", 24, 0), LABEL)[0]
    right, worst, error, ratio = scoring.judge(moved("mouth_left", 26, 0), LABEL)
    assert not right and worst == "mouth_left" and abs(error - 0.26) < 1e-9 and ratio > 1


def test_a_hidden_eye_is_not_scored():
    found = moved("right_eye", 90, 0)
    assert not scoring.judge(found, LABEL)[0]
    assert scoring.judge(found, LABEL, hidden=["right_eye"])[0]


def test_a_mouth_not_drawn_is_scored_within_0_6_eye_distances():
    absent = dict(LABEL, mouth="absent")
    assert scoring.judge(moved("mouth_center", 0, 55), absent)[0]
    assert not scoring.judge(moved("mouth_center", 0, 65), absent)[0]
    assert not scoring.judge(moved("mouth_center", 0, 55), LABEL)[0]


def test_sure_and_wrong_is_named_apart():
    assert scoring.verdict(True, False) == "SURE AND WRONG"
    assert scoring.verdict(False, True) == "unsure, within tolerance"


def test_the_shares_line_counts_sure_right_and_sure_wrong_answers():
    line = scoring.shares([(True, True), (True, False), (False, True), (False, False)])
    assert line == ("50.0 % of answers sure, 50.0 % of sure answers right (1 sure and wrong), "
                    "50.0 % right in all")
    assert scoring.shares([]).startswith("0.0 % of answers sure")


def test_the_tally_counts_each_verdict_in_order():
    line = scoring.tally(["sure and right", "unsure, off", "sure and right"])
    assert line == "2 sure and right; 0 SURE AND WRONG; 0 unsure, within tolerance; 1 unsure, off"
