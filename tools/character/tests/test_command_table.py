"""tools/character/command_table.py: what its dump holds (no essence2 command needed)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import command_table  # noqa: E402


def test_plain_turns_numpy_values_into_json():
    value = {"left_eye": np.array([1.5, 2.0]), "radius": np.float32(3.25), "outline": [(np.int64(1), 2.0)],
             "mouth": "open", "nested": {"k": np.arange(3)}}
    out = command_table.plain(value)
    assert json.loads(json.dumps(out)) == {"left_eye": [1.5, 2.0], "radius": 3.25, "outline": [[1, 2.0]],
                                           "mouth": "open", "nested": {"k": [0, 1, 2]}}


def test_the_calibration_lines_count_answers_per_band():
    rows = [(0.1, False, False), (0.6, True, True), (0.7, True, False), (None, False, False)]
    lines = command_table.calibration(rows)
    assert len(lines) == 3
    assert "1 answers,   0.0 % right,   0.0 % sure" in lines[0]
    assert lines[1].strip().startswith("confidence 0.50-0.65:   1 answers, 100.0 % right, 100.0 % sure")
