"""tools/character's data maker: the drawn scenes and the training crops are a function of the seed alone.

numpy and Pillow only (no torch): draw.py, draw_styles.py, train.make_samples, refine.make_samples, and the Swift
test's committed fixtures (make_fixtures.py: seed 999) drawn again.
"""
import json
import os
import sys

import numpy as np
import pytest
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import draw  # noqa: E402
import draw_styles  # noqa: E402
import make_fixtures  # noqa: E402
import refine  # noqa: E402
import train  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.join(ROOT, make_fixtures.OUT)


def drawn(maker, seed, index, **kw):
    img, points = maker(np.random.default_rng([seed, index]), **kw)
    return np.asarray(img), points


def same_points(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(np.asarray(a[k], dtype=object), np.asarray(b[k], dtype=object)), k


@pytest.mark.parametrize("maker, kw", [
    (draw.draw_scene, dict(negative=False)),
    (draw.draw_scene, dict(negative=False, extras=True, mouths=True)),
    (draw.draw_scene, dict(figure=True, negative=False)),
    (draw_styles.draw_styled, {}),
    (draw_styles.draw_face_profile, {}),
])
def test_a_seed_draws_the_same_scene_twice(maker, kw):
    a, pa = drawn(maker, 11, 3, **kw)
    b, pb = drawn(maker, 11, 3, **kw)
    assert a.dtype == np.uint8 and a.shape[2] == 4
    assert np.array_equal(a, b)
    same_points(pa, pb)
    c, _ = drawn(maker, 12, 3, **kw)
    assert not np.array_equal(a, c), "another seed should draw another scene"


def test_the_training_crops_are_the_same_for_a_seed():
    first = train.make_samples((5, 0, 2, "plain"))
    again = train.make_samples((5, 0, 2, "plain"))
    assert [x.shape for x in first] == [(4, 96, 96, 4), (4, 48), (4,), (4,), (4,)]
    for x, y in zip(first, again):
        assert np.array_equal(x, y)
    other = train.make_samples((6, 0, 2, "plain"))
    assert not np.array_equal(first[0], other[0])


def test_the_refinement_crops_are_the_same_for_a_seed():
    x, t, k = refine.make_samples((11, 0, 2))
    x2, t2, k2 = refine.make_samples((11, 0, 2))
    assert x.shape[1:] == (96, 96, 4) and len(x) == len(t) == len(k) and len(x) % len(refine.KEYS) == 0
    assert np.array_equal(x, x2) and np.array_equal(t, t2) and np.array_equal(k, k2)


@pytest.mark.parametrize("index", [0, 2, 9, 13])
def test_the_swift_tests_fixtures_are_drawn_again(index):
    """make_fixtures.py's committed pictures and points (Tests/Essence2Tests/Fixtures/characters) come from seed
    999 again, to the byte (with requirements.txt's Pillow)."""
    committed = json.load(open(os.path.join(FIXTURES, f"drawn_{index}.json")))
    img, p = make_fixtures.scene(index)
    f = make_fixtures.SIDE / img.size[0]
    side = make_fixtures.SIDE
    pixels = np.asarray(img.resize((side, side), Image.LANCZOS))
    assert np.array_equal(pixels, np.fromfile(os.path.join(FIXTURES, f"drawn_{index}.rgba"), np.uint8)
                          .reshape(side, side, 4))

    def s(q):
        return None if q is None else [round(q[0] * f, 2), round(q[1] * f, 2)]
    for key in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center", "left_brow", "right_brow"):
        assert s(p[key]) == committed[key], key
    assert p["mouth"] == committed["mouth"]
    assert [s(q) for q in p["outline"]] == committed["outline"]
