"""How a character's found points are judged against hand labels (issue 45's scoring; standard library only).

- Only the points the picture shows are scored: an eye the labels mark hidden (a profile's or a three-quarter
  view's far eye, labelled where it would project) is not.
- The tolerance is the larger of a quarter of the labelled eye distance and 6 % of the head's height (the
  labelled outline's), so that profiles, whose eyes are close together, are judged at the picture's scale.
- A mouth that is not drawn (label "absent") is scored loosely: its points within 0.6 eye distances.
- An answer the command is sure of (exit 0) that misses is "sure and wrong", a failure in its own right; unsure
  answers (exit 7, the best guess written) are counted apart.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

KEYS = ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center")
MOUTH = ("mouth_left", "mouth_right", "mouth_center")


def eye_distance(label: Mapping) -> float:
    (ax, ay), (bx, by) = label["left_eye"], label["right_eye"]
    return max(1e-6, math.hypot(bx - ax, by - ay))


def head_height(label: Mapping) -> float:
    """The labelled outline's height in pixels (0 without an outline)."""
    outline: Sequence[Sequence[float]] = label.get("outline") or []
    ys = [p[1] for p in outline]
    return max(ys) - min(ys) if ys else 0.0


def tolerance(label: Mapping) -> float:
    """Pixels within which a shown point counts as right."""
    return max(0.25 * eye_distance(label), 0.06 * head_height(label))


def judge(found: Mapping, label: Mapping, hidden: Iterable[str] = ()) -> tuple[bool, str, float, float]:
    """(right, the worst point, its error in eye distances, its error over its own tolerance) for the points
    `found` (source pixels) against `label`, leaving out the `hidden` ones."""
    ed = eye_distance(label)
    loose = label.get("mouth") == "absent"
    hidden = set(hidden)
    worst, worst_ratio, worst_error = "", -1.0, 0.0
    for key in KEYS:
        if key in hidden:
            continue
        error = math.hypot(found[key][0] - label[key][0], found[key][1] - label[key][1])
        limit = 0.6 * ed if loose and key in MOUTH else tolerance(label)
        ratio = error / limit
        if ratio > worst_ratio:
            worst, worst_ratio, worst_error = key, ratio, error / ed
    return worst_ratio <= 1.0, worst, worst_error, worst_ratio


VERDICTS = ("sure and right", "SURE AND WRONG", "unsure, within tolerance", "unsure, off")


def tally(verdicts: Iterable[str]) -> str:
    """The line counting each of VERDICTS among `verdicts` (verdict's strings)."""
    verdicts = list(verdicts)
    return "; ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS)


def verdict(sure: bool, right: bool) -> str:
    if sure:
        return "sure and right" if right else "SURE AND WRONG"
    return "unsure, within tolerance" if right else "unsure, off"


def shares(rows: Sequence[tuple[bool, bool]]) -> str:
    """The line of (sure, right) answers: the share sure, the share of those right (and how many are sure and
    wrong), the share right in all."""
    n = max(1, len(rows))
    sure = [right for is_sure, right in rows if is_sure]
    return (f"{len(sure) / n * 100:.1f} % of answers sure, {sum(sure) / max(1, len(sure)) * 100:.1f} % of sure "
            f"answers right ({len(sure) - sum(sure)} sure and wrong), "
            f"{sum(right for _, right in rows) / n * 100:.1f} % right in all")
