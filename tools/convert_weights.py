#!/usr/bin/env python3
"""Converts weights files of the old formats to E2NW (tools/lib/e2nw.py), value for value: the lip-sync model's
E2LS (version 2: half-precision values, kept as float16) and the character point finder's E2CP (versions 1 and 2:
float32), so a network reads the same numbers and gives the same outputs.

  python3 tools/convert_weights.py OLD NEW      (OLD: .e2ls or .e2cp; NEW: the .e2nw to write)

The library reads E2NW only (CHANGELOG 1.4.0); an engine container made before is exported again instead
(`essence2 engine export`).
"""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import e2nw  # noqa: E402


def from_e2ls(data):
    """E2LS version 2: "E2LS", uint32 version, uint32 members, then per member 8 uint32 sizes and its ten
    half-precision arrays."""
    assert data[:4] == b"E2LS", "not an E2LS file"
    version, count = struct.unpack_from("<2I", data, 4)
    assert version == 2, f"E2LS version {version}"
    off, members = 12, []
    for _ in range(count):
        dims = struct.unpack_from("<8I", data, off)
        off += 32
        bands, extra, embed, context, _, h1, h2, outputs = dims
        inputs = bands + extra
        sizes = [inputs, inputs, inputs * embed, embed, context * embed * h1, h1, h1 * h2, h2, h2 * outputs, outputs]
        arrays = []
        for n in sizes:
            arrays.append(np.frombuffer(data, "<f2", n, off).astype(np.float16))
            off += 2 * n
        members.append((arrays, dims))
    assert off == len(data), "bytes after the last member"
    return e2nw.lipsync_encode(members)


def from_e2cp(data):
    """E2CP: "E2CP", uint32 version, size, outputs, layers, then per layer kind, a, b, c, relu and its float32
    weights and bias (the heads: their uint32 order)."""
    assert data[:4] == b"E2CP", "not an E2CP file"
    _, size, _, count = struct.unpack_from("<4I", data, 4)
    off, layers = 20, []
    for _ in range(count):
        kind, a, b, c, relu = struct.unpack_from("<5I", data, off)
        off += 20
        if kind == 4:
            layers.append((kind, a, b, c, bool(relu), None, np.frombuffer(data, "<u4", b, off).astype(np.int32)))
            off += 4 * b
            continue
        n = b * a * (9 if kind in (1, 3) else 1)
        w = np.frombuffer(data, "<f4", n, off).astype(np.float32)
        off += 4 * n
        bias = np.frombuffer(data, "<f4", b, off).astype(np.float32)
        off += 4 * b
        layers.append((kind, a, b, c, bool(relu), w, bias))
    assert off == len(data), "bytes after the last layer"
    return e2nw.character_encode(size, layers)


def convert(data):
    """The E2NW bytes of an E2LS or E2CP file's bytes."""
    if data[:4] == b"E2LS":
        return from_e2ls(data)
    if data[:4] == b"E2CP":
        return from_e2cp(data)
    raise ValueError("neither an E2LS nor an E2CP file")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = convert(f.read())
    with open(sys.argv[2], "wb") as f:
        f.write(data)
    print(f"wrote {sys.argv[2]} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
