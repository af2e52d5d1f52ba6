#!/usr/bin/env python3
"""Draws the rig tests' character: a plush bear's head on a transparent 240x240 PNG (round head, ears, two
button eyes, a muzzle with a nose and a closed smile), and, with --points FILE, the points file that fits it;
with --pair, two bears on one transparent PAIR_W x PAIR_H picture: the bear as it is and one at half its size
(`PAIR_OFFSETS`, `PAIR_SCALES`). Python's standard library only (zlib, struct).

    python3 integration/rig/make_character.py OUT.png [--points OUT.points.json | --pair]
"""

from __future__ import annotations

import json
import math
import struct
import sys
import zlib

W = H = 240
EYES = ((90.0, 105.0), (150.0, 105.0))
EYE_RADIUS = 9.0
MOUTH = {"left": (103.0, 168.0), "right": (137.0, 168.0), "center": (120.0, 173.0)}
PAIR_W, PAIR_H = 520, 300
PAIR_OFFSETS = ((20, 30), (330, 100))
PAIR_SCALES = (1, 2)  # each bear's pixels are this many of the drawing's, across and down


def draw() -> list[list[tuple[int, int, int, int]]]:
    px = [[(0, 0, 0, 0)] * W for _ in range(H)]

    def disc(cx: float, cy: float, r: float, rgba: tuple[int, int, int, int], ry: float | None = None) -> None:
        ry = ry or r
        for y in range(max(0, int(cy - ry - 2)), min(H, int(cy + ry + 3))):
            for x in range(max(0, int(cx - r - 2)), min(W, int(cx + r + 3))):
                d = math.hypot((x + 0.5 - cx) / r, (y + 0.5 - cy) / ry)
                cover = max(0.0, min(1.0, (1 - d) * min(r, ry) + 0.5))
                if cover > 0:
                    old = px[y][x]
                    a = cover * rgba[3] / 255
                    out_a = a + old[3] / 255 * (1 - a)
                    mix = [int(round((rgba[i] * a + old[i] * old[3] / 255 * (1 - a)) / out_a)) if out_a else 0 for i in range(3)]
                    px[y][x] = (mix[0], mix[1], mix[2], int(round(out_a * 255)))

    fur, inner, dark = (176, 118, 70, 255), (228, 190, 150, 255), (40, 26, 20, 255)
    disc(62, 58, 26, fur)
    disc(178, 58, 26, fur)
    disc(62, 58, 14, inner)
    disc(178, 58, 14, inner)
    disc(120, 130, 92, fur, 86)
    disc(120, 162, 36, inner, 28)
    for x, y in EYES:
        disc(x, y, EYE_RADIUS, dark)
        disc(x - 3, y - 3, 2.5, (255, 255, 255, 255))
    disc(120, 150, 8, dark, 6)
    # The closed smile: a dark arc through the mouth's corners and centre.
    (lx, ly), (rx, ry), (cx, cy) = MOUTH["left"], MOUTH["right"], MOUTH["center"]
    for i in range(41):
        t = i / 40
        x = (1 - t) ** 2 * lx + 2 * (1 - t) * t * cx + t * t * rx
        y = (1 - t) ** 2 * ly + 2 * (1 - t) * t * (2 * cy - (ly + ry) / 2) + t * t * ry
        disc(x, y, 1.6, dark)
    disc(120, 156, 1.2, dark, 10)
    return px


def pair(px: list[list[tuple[int, int, int, int]]]) -> list[list[tuple[int, int, int, int]]]:
    """The bear at each of PAIR_OFFSETS, shrunk by PAIR_SCALES (mean of each square of pixels), on a transparent
    PAIR_W x PAIR_H picture."""
    out = [[(0, 0, 0, 0)] * PAIR_W for _ in range(PAIR_H)]
    for (ox, oy), k in zip(PAIR_OFFSETS, PAIR_SCALES):
        for y in range(H // k):
            for x in range(W // k):
                block = [px[y * k + j][x * k + i] for j in range(k) for i in range(k)]
                out[oy + y][ox + x] = tuple(int(round(sum(p[c] for p in block) / len(block))) for c in range(4))
    return out


def pair_eyes(index: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The eye centres of the pair's bear `index` in the pair picture's pixels."""
    (ox, oy), k = PAIR_OFFSETS[index], PAIR_SCALES[index]
    return tuple((ox + x / k, oy + y / k) for x, y in EYES)  # type: ignore[return-value]


def png(px: list[list[tuple[int, int, int, int]]]) -> bytes:
    W, H = len(px[0]), len(px)
    raw = b"".join(b"\0" + bytes(c for p in row for c in p) for row in px)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def points() -> dict:
    return {"left_eye": list(EYES[0]), "right_eye": list(EYES[1]), "left_eye_radius": EYE_RADIUS,
            "right_eye_radius": EYE_RADIUS, "mouth_left": list(MOUTH["left"]), "mouth_right": list(MOUTH["right"]),
            "mouth_center": list(MOUTH["center"]), "mouth": "closed"}


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2, 3) or (len(argv) == 3 and argv[1] != "--points") or (len(argv) == 2 and argv[1] != "--pair"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[0], "wb") as f:
        f.write(png(pair(draw()) if len(argv) == 2 else draw()))
    if len(argv) == 3:
        with open(argv[2], "w") as f:
            json.dump(points(), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
