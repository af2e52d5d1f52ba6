"""tools/character/export.py's weights file (E2NW, tools/lib/e2nw.py): what encode writes, common.file_layers and
forward read back.

numpy only (no torch): the committed weights files (Sources/CCharacterWeights) decoded and encoded again byte for
byte, their info headers written again, and a small network of every layer kind through the format against a
direct computation.
"""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import common  # noqa: E402
import export  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
WEIGHTS = os.path.join(ROOT, "Sources", "CCharacterWeights")
# name, what, trainer: as train.py (export.py's defaults) and refine.py export write them
COMMITTED = [("character_weights", "the character point finder's weights file", "train.py"),
             ("character_refine", "the character point finder's refinement weights", "refine.py")]


def decode(data):
    """The file's layers as export.layers_of gives them: (kind, a, b, c, relu, weights, bias or order)."""
    return [(kind, a, b, c, relu, None if w is None else w.astype(np.float64),
             bias.astype(np.int64 if kind == 4 else np.float64))
            for kind, a, b, c, relu, w, bias in common.file_layers(data)[1]]


@pytest.mark.parametrize("name, what, trainer", COMMITTED)
def test_the_committed_weights_encode_again_byte_for_byte(name, what, trainer, tmp_path):
    data = open(os.path.join(WEIGHTS, name + ".e2nw"), "rb").read()
    layers = decode(data)
    assert layers[-1][0] == 4, "the heads come last"
    assert export.encode(layers) == data
    export.write(data, str(tmp_path), name, what, trainer)
    header = os.path.join("include", name + "_info.h")
    assert open(tmp_path / header).read() == open(os.path.join(WEIGHTS, header)).read()
    assert open(tmp_path / (name + ".e2nw"), "rb").read() == data


def conv(x, w, bias, stride, dilation):
    """A 3x3 convolution with padding = dilation, computed output pixel by output pixel."""
    cin, side, _ = x.shape
    d = dilation
    p = np.pad(x, ((0, 0), (d, d), (d, d)))
    o = (side - 1) // stride + 1
    y = np.empty((w.shape[0], o, o))
    for i in range(o):
        for j in range(o):
            patch = p[:, i * stride:i * stride + 2 * d + 1:d, j * stride:j * stride + 2 * d + 1:d]
            y[:, i, j] = np.tensordot(w, patch, axes=([1, 2, 3], [0, 1, 2])) + bias
    return y


def test_every_layer_kind_round_trips_and_computes_what_it_says():
    rng = np.random.default_rng(7)
    w1, b1 = rng.normal(0, .3, (6, 4, 3, 3)), rng.normal(0, .1, 6)
    w2, b2 = rng.normal(0, .3, (5, 6, 3, 3)), rng.normal(0, .1, 5)
    order = np.array([4, 5, 0, 1, 2, 3, 6, 7])  # 3 heatmaps (x, y each) and 2 means, permuted
    layers = [(1, 4, 6, 2, True, w1, b1), (3, 6, 5, 2, False, w2, b2), (4, 5, 8, 3, False, None, order)]
    data = export.encode(layers)
    assert data[:4] == b"E2NW"
    kind, tensors = common.e2nw.decode(data)
    assert kind == "essence2-character-points"
    assert [int(tensors[n]) for n in ("size", "outputs", "layers")] == [common.SIZE, 8, 3]
    back = decode(data)
    assert [layer[:5] for layer in back] == [layer[:5] for layer in layers]
    for (_, _, _, _, _, w, b), (_, _, _, _, _, w0, b0) in zip(back, layers):
        if w is not None:
            assert np.allclose(w, w0, atol=1e-6) and np.allclose(b, b0, atol=1e-6)
    assert export.encode(back) == data

    x = rng.uniform(-.5, .5, (4, 8, 8))
    f32 = lambda a: a.astype("<f4").astype(np.float64)  # the file holds float32
    h = conv(np.maximum(conv(x, f32(w1), f32(b1), 2, 1), 0), f32(w2), f32(b2), 1, 2)  # 5 x 4 x 4
    maps = np.exp(h[:3].reshape(3, -1))
    maps = (maps / maps.sum(1, keepdims=True)).reshape(3, 4, 4)
    centres = (np.arange(4) + 0.5) / 4
    values = np.concatenate([np.stack([(maps.sum(1) * centres).sum(1), (maps.sum(2) * centres).sum(1)], 1).ravel(),
                             h[3:].mean((1, 2))])
    assert np.allclose(export.forward(data, x), values[order], atol=1e-9)


def test_a_dense_network_computes_its_product():
    rng = np.random.default_rng(8)
    w, b = rng.normal(0, .3, (3, 4)), rng.normal(0, .1, 3)
    data = export.encode([(2, 4, 3, 0, False, w, b)])
    assert common.file_layers(data)[1][0][:5] == (2, 4, 3, 0, False)
    x = rng.normal(0, 1, 4)
    assert np.allclose(export.forward(data, x), w.astype("<f4") @ x + b.astype("<f4"), atol=1e-6)


def test_a_damaged_or_foreign_file_is_refused():
    data = open(os.path.join(WEIGHTS, "character_refine.e2nw"), "rb").read()
    for bad in (data + b"\0\0\0\0", data[:-4], b"E2CP" + data[4:]):
        with pytest.raises(ValueError):
            common.file_layers(bad)
    lipsync = open(os.path.join(ROOT, "Sources", "CEssence2Weights", "lipsync_weights.e2nw"), "rb").read()
    with pytest.raises(ValueError):
        common.file_layers(lipsync)
