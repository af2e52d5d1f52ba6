"""The E2NW weights format of essence2's own networks (the lip-sync model, the character point finder and its
refinement pass): one reader and one writer for tools/lipsync and tools/character. The runtime's reader is
Sources/Essence2Runtime/Neural/NeuralWeights+Reading.swift; docs/architecture.md ("Weights files") has the layout:

  "E2NW"  uint32 version = 1  uint32 n, n bytes: the network kind (ASCII)  uint32 tensor count, then per tensor:
  uint32 n, n bytes: its name (UTF-8, unique)  uint32 element (1 float32, 2 float16, 3 int32)  uint32 rank (0-6)
  rank x uint32 extents  the values, row-major, little-endian; nothing after the last tensor.

A tensor is a numpy array: float32, float16 and int32 arrays are written as they are (other dtypes: say which with
`element`); reading gives each back with its dtype and shape.
"""
import struct

import numpy as np

MAGIC = b"E2NW"
VERSION = 1
ELEMENTS = {1: "<f4", 2: "<f2", 3: "<i4"}
CODES = {np.dtype("float32"): 1, np.dtype("float16"): 2, np.dtype("int32"): 3}
LIPSYNC = "essence2-lipsync"
CHARACTER = "essence2-character-points"


def encode(kind, tensors):
    """The bytes of a file of `kind` holding `tensors`, a list of (name, numpy array) in file order."""
    names = [name for name, _ in tensors]
    assert len(set(names)) == len(names), "tensor names repeat"
    out = bytearray(MAGIC)
    out += struct.pack("<I", VERSION)
    out += _text(kind)
    out += struct.pack("<I", len(tensors))
    for name, array in tensors:
        array = np.asarray(array)
        code = CODES.get(array.dtype)
        assert code is not None, f"{name}: dtype {array.dtype} (make it float32, float16 or int32)"
        assert array.ndim <= 6 and all(n >= 1 for n in array.shape), f"{name}: shape {array.shape}"
        if code != 3:
            assert np.isfinite(array).all(), f"{name}: values that are not finite"
        out += _text(name)
        out += struct.pack("<II", code, array.ndim)
        out += struct.pack(f"<{array.ndim}I", *array.shape)
        out += np.ascontiguousarray(array, dtype=ELEMENTS[code]).tobytes()
    return bytes(out)


def decode(data):
    """(kind, {name: array}) of a file's bytes (the dict in file order); ValueError when anything is wrong."""
    if data[:4] != MAGIC:
        raise ValueError("not an E2NW file" + (" (an old format: tools/convert_weights.py converts it)"
                                               if data[:4] in (b"E2LS", b"E2CP") else ""))
    off = 4
    version, off = _u32(data, off)
    if version != VERSION:
        raise ValueError(f"E2NW version {version}, not {VERSION}")
    kind, off = _read_text(data, off)
    count, off = _u32(data, off)
    tensors = {}
    for _ in range(count):
        name, off = _read_text(data, off)
        if name in tensors:
            raise ValueError(f"tensor {name!r} appears twice")
        code, off = _u32(data, off)
        rank, off = _u32(data, off)
        if code not in ELEMENTS or rank > 6:
            raise ValueError(f"tensor {name!r}: element {code}, rank {rank}")
        shape = []
        for _ in range(rank):
            n, off = _u32(data, off)
            shape.append(n)
        dtype = np.dtype(ELEMENTS[code])
        n = int(np.prod(shape, dtype=np.int64))
        if n < 1 or off + n * dtype.itemsize > len(data):
            raise ValueError(f"tensor {name!r}: truncated or empty")
        array = np.frombuffer(data, dtype, n, off).reshape(shape).astype(dtype.newbyteorder("="))
        if code != 3 and not np.isfinite(array).all():
            raise ValueError(f"tensor {name!r}: values that are not finite")
        tensors[name] = array
        off += n * dtype.itemsize
    if off != len(data):
        raise ValueError(f"{len(data) - off} bytes after the last tensor")
    return kind, tensors


def read(path, kind=None):
    """The tensors of the file at `path` ({name: array}); with `kind`, a ValueError unless it holds that kind."""
    with open(path, "rb") as f:
        found, tensors = decode(f.read())
    if kind is not None and found != kind:
        raise ValueError(f"{path} holds a {found!r} network, not {kind!r}")
    return tensors


def scalar(value):
    """An int32 tensor of one value (shape (), rank 0)."""
    return np.array(value, dtype=np.int32)


def _text(text):
    raw = text.encode()
    assert 1 <= len(raw) <= 128, f"name {text!r}: 1 to 128 bytes"
    return struct.pack("<I", len(raw)) + raw


def _u32(data, off):
    if off + 4 > len(data):
        raise ValueError("truncated")
    return struct.unpack_from("<I", data, off)[0], off + 4


def _read_text(data, off):
    n, off = _u32(data, off)
    if not 1 <= n <= 128 or off + n > len(data):
        raise ValueError("a bad or truncated name")
    return data[off:off + n].decode(), off + n


# The lip-sync model (kind LIPSYNC; Sources/Essence2Runtime/Audio/ArticulationNetwork+Decoding.swift): `members`,
# then per member i, names prefixed "i.": `geometry` (int32 [8]) and its half-precision arrays, weights input-major.
LIPSYNC_ARRAYS = ["inputMean", "inputScale", "embed.weights", "embed.bias", "layer1.weights", "layer1.bias",
                  "layer2.weights", "layer2.bias", "output.weights", "output.bias"]


def lipsync_encode(members):
    """The lip-sync weights file of `members`: per member (arrays, geometry), the ten arrays in LIPSYNC_ARRAYS'
    order (any shape, stored as float16 with the shapes the runtime reads) and the eight sizes (bands, extra
    inputs, embedding, context hops, past hops, hidden 1, hidden 2, outputs: 3, or 4 with the lip tuck)."""
    tensors = [("members", scalar(len(members)))]
    for i, (arrays, dims) in enumerate(members):
        bands, extra, embed, context, _, h1, h2, outputs = dims
        inputs = bands + extra
        shapes = [(inputs,), (inputs,), (inputs, embed), (embed,), (context * embed, h1), (h1,), (h1, h2), (h2,),
                  (h2, outputs), (outputs,)]
        tensors.append((f"{i}.geometry", np.array(dims, dtype=np.int32)))
        for name, array, shape in zip(LIPSYNC_ARRAYS, arrays, shapes):
            tensors.append((f"{i}.{name}", np.asarray(array, dtype=np.float16).reshape(shape)))
    return encode(LIPSYNC, tensors)


def lipsync_decode(data):
    """[(arrays, geometry)] per member of a lip-sync weights file (arrays float16, as stored)."""
    kind, t = decode(data)
    if kind != LIPSYNC:
        raise ValueError(f"a {kind!r} network, not {LIPSYNC!r}")
    return [([t[f"{i}.{name}"] for name in LIPSYNC_ARRAYS], tuple(int(v) for v in t[f"{i}.geometry"]))
            for i in range(int(t["members"]))]


# The character point finder and its refinement pass (kind CHARACTER; Sources/Essence2Authoring/
# CharacterPointFinder+Weights.swift): `size`, `outputs`, `layers`, then per layer i, names prefixed "i.": `layer`
# (int32 [kind, a, b, c, relu]) and `weights` (float32 [b, a, 3, 3] for the convolutions, kinds 1 and 3; [b, a]
# for a dense layer, kind 2) and `bias` [b], or for the heads (kind 4) `order` (int32 [b]).
def character_encode(size, layers):
    """The weights file of `layers`, each (kind, a, b, c, relu, weights, bias), the heads' order in place of their
    bias (weights None); the outputs are the last layer's b."""
    tensors = [("size", scalar(size)), ("outputs", scalar(layers[-1][2])), ("layers", scalar(len(layers)))]
    for i, (kind, a, b, c, relu, w, bias) in enumerate(layers):
        tensors.append((f"{i}.layer", np.array([kind, a, b, c, int(relu)], dtype=np.int32)))
        if kind == 4:
            tensors.append((f"{i}.order", np.asarray(bias, dtype=np.int32).reshape(b)))
            continue
        shape = (b, a, 3, 3) if kind in (1, 3) else (b, a)
        tensors.append((f"{i}.weights", np.asarray(w, dtype=np.float32).reshape(shape)))
        tensors.append((f"{i}.bias", np.asarray(bias, dtype=np.float32).reshape(b)))
    return encode(CHARACTER, tensors)


def character_decode(data):
    """(size, layers) of a character weights file, each layer (kind, a, b, c, relu, weights, bias) as
    character_encode takes them (weights float32 arrays shaped as stored; the heads: None and their order)."""
    kind, t = decode(data)
    if kind != CHARACTER:
        raise ValueError(f"a {kind!r} network, not {CHARACTER!r}")
    layers = []
    for i in range(int(t["layers"])):
        k, a, b, c, relu = (int(v) for v in t[f"{i}.layer"])
        if k == 4:
            layers.append((k, a, b, c, bool(relu), None, t[f"{i}.order"]))
        else:
            layers.append((k, a, b, c, bool(relu), t[f"{i}.weights"], t[f"{i}.bias"]))
    return int(t["size"]), layers
