"""tools/lib/e2nw.py (the E2NW weights format) and tools/convert_weights.py: round trips, refusals, the committed
weights files re-encoded byte for byte, and the old formats converted value for value. numpy only."""
import os
import struct
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import convert_weights  # noqa: E402
import e2nw  # noqa: E402

LIPSYNC = os.path.join(ROOT, "Sources", "CEssence2Weights", "lipsync_weights.e2nw")
CHARACTER = [os.path.join(ROOT, "Sources", "CCharacterWeights", n + ".e2nw")
             for n in ("character_weights", "character_refine")]


def test_tensors_round_trip_with_their_types_and_shapes():
    tensors = [("n", e2nw.scalar(3)), ("w", np.arange(6, dtype=np.float32).reshape(2, 3) / 7),
               ("h", np.array([1, -2, 0.5], dtype=np.float16)), ("i", np.array([[-1, 2**31 - 1]], dtype=np.int32))]
    data = e2nw.encode("essence2-test", tensors)
    kind, back = e2nw.decode(data)
    assert kind == "essence2-test" and list(back) == ["n", "w", "h", "i"]
    for name, array in tensors:
        assert back[name].dtype == array.dtype and back[name].shape == array.shape
        assert np.array_equal(back[name], array)
    assert e2nw.encode(kind, list(back.items())) == data


def test_damaged_files_are_refused():
    data = e2nw.encode("k", [("w", np.ones(4, dtype=np.float32))])
    for end in range(len(data)):
        with pytest.raises(ValueError):
            e2nw.decode(data[:end])
    with pytest.raises(ValueError):
        e2nw.decode(data + b"\0")
    nan = bytearray(data)
    nan[-4:] = struct.pack("<f", float("nan"))
    with pytest.raises(ValueError):
        e2nw.decode(bytes(nan))
    with pytest.raises(ValueError, match="convert_weights"):
        e2nw.decode(b"E2LS" + data[4:])
    with pytest.raises(AssertionError):
        e2nw.encode("k", [("w", np.array([np.inf], dtype=np.float32))])


def test_the_committed_files_encode_again_byte_for_byte():
    data = open(LIPSYNC, "rb").read()
    members = e2nw.lipsync_decode(data)
    assert len(members) == 3 and all(dims[0] == 32 and dims[7] == 3 for _, dims in members)
    assert e2nw.lipsync_encode(members) == data
    for path in CHARACTER:
        data = open(path, "rb").read()
        assert e2nw.character_encode(*e2nw.character_decode(data)) == data


def test_the_old_formats_convert_value_for_value():
    rng = np.random.default_rng(3)
    dims = (2, 1, 4, 12, 1, 5, 3, 3)  # bands, extra, embedding, context (1 + 4 + 7), past, h1, h2, outputs
    sizes = [3, 3, 12, 4, 12 * 4 * 5, 5, 15, 3, 9, 3]
    halves = [rng.normal(0, 1, n).astype(np.float16) for n in sizes]
    old = b"E2LS" + struct.pack("<2I", 2, 1) + struct.pack("<8I", *dims) + b"".join(h.tobytes() for h in halves)
    (arrays, back_dims), = e2nw.lipsync_decode(convert_weights.convert(old))
    assert back_dims == dims
    assert all(np.array_equal(a.reshape(-1).view(np.uint16), h.view(np.uint16)) for a, h in zip(arrays, halves))
    w, b = rng.normal(0, 1, (3, 4, 3, 3)).astype(np.float32), rng.normal(0, 1, 3).astype(np.float32)
    old = (b"E2CP" + struct.pack("<4I", 2, 96, 2, 2) + struct.pack("<5I", 1, 4, 3, 2, 1) + w.tobytes() + b.tobytes()
           + struct.pack("<5I", 4, 3, 2, 1, 0) + struct.pack("<2I", 1, 0))
    size, layers = e2nw.character_decode(convert_weights.convert(old))
    assert size == 96 and [layer[:5] for layer in layers] == [(1, 4, 3, 2, True), (4, 3, 2, 1, False)]
    assert np.array_equal(layers[0][5].view(np.uint32), w.view(np.uint32))
    assert np.array_equal(layers[0][6], b) and layers[1][6].tolist() == [1, 0]
