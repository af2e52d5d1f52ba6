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


@pytest.mark.parametrize("index", [3, 8])
def test_a_scene_drawn_at_a_larger_scale_is_the_same_scene_larger(index):
    """draw_scene(scale=k) draws the scene the seed draws at scale 1, k times as large: the points times k, and
    the picture, box-filtered back to 256 pixels, close to the small one (edges differ: they are smooth now)."""
    small, p1 = drawn(draw.draw_scene, 21, index, negative=False, extras=True, mouths=True)
    large, p3 = drawn(draw.draw_scene, 21, index, negative=False, extras=True, mouths=True, scale=3, lines=1.0)
    assert large.shape == (3 * small.shape[0], 3 * small.shape[1], 4)
    for key in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center", "left_brow", "right_brow"):
        if p1[key] is None:
            assert p3[key] is None
        else:
            assert np.allclose(np.multiply(p1[key], 3), p3[key]), key
    assert np.allclose(np.multiply(p1["outline"], 3), p3["outline"])
    assert np.isclose(p1["left_eye_radius"] * 3, p3["left_eye_radius"]) and p1["mouth"] == p3["mouth"]
    shrunk = large.astype(np.float64).reshape(small.shape[0], 3, small.shape[1], 3, 4).mean((1, 3))
    opaque = (small[..., 3] == 255) & (shrunk[..., 3] > 250)
    assert opaque.mean() > 0.3
    # the same colours where both are opaque (textures, rotation and blur resampled at another size: loosely)
    assert np.median(np.abs(shrunk[..., :3][opaque] - small[..., :3][opaque].astype(np.float64))) < 12


@pytest.mark.parametrize("scale, lines", [(0, 1.0), (1.5, 1.0), (2, 0.0), (2, float("nan"))])
def test_a_scale_that_is_not_a_whole_number_from_1_is_refused(scale, lines):
    with pytest.raises(ValueError, match="scale must be"):
        draw.draw_scene(np.random.default_rng(1), negative=False, scale=scale, lines=lines)
    assert draw._K == 1 and draw._LINES == 1.0


def test_the_large_scenes_sizes_come_from_a_stream_of_their_own():
    sizes = [train.large_scale(6, i) for i in range(40)]
    assert sizes == [train.large_scale(6, i) for i in range(40)]
    assert {s["scale"] for s in sizes} == set(train.LARGE_SCALES)
    assert all(0.35 <= s["lines"] <= 1.0 for s in sizes)


def test_a_crop_sampled_without_a_cap_is_a_box_filter():
    """sample_crop with no cap on k averages each crop pixel's whole footprint: a picture of noise, cropped whole
    into 96 pixels from 1152, gives the mean of each 12 x 12 block; capped at 4 samples a side it aliases."""
    from common import sample_crop
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 256, (1152, 1152, 3)).astype(np.uint8)
    picture = np.concatenate([noise, np.full((1152, 1152, 1), 255, np.uint8)], 2)
    means = noise.astype(np.float64).reshape(96, 12, 96, 12, 3).mean((1, 3))
    exact = sample_crop(picture, 0, 0, 1152, cap=0)
    assert np.abs(exact[..., :3] * 255 - means).max() < 1e-2 and np.allclose(exact[..., 3], 1)
    capped = sample_crop(picture, 0, 0, 1152, cap=4)
    assert np.abs(capped[..., :3] * 255 - means).max() > 5
