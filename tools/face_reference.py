#!/usr/bin/env python3
"""Reference outputs of MediaPipe 0.10.21 face detection and Face Mesh, for the Swift port's tests.

Needs `pip install mediapipe==0.10.21 'numpy<2'` (offline once installed). Never used at run time.

    python tools/face_reference.py [--portraits DIR] [--avatars DIR] [-o Tests/Essence2Tests/Fixtures/face]

For each sample portrait and each variant below it runs
  - mediapipe.solutions.face_detection (model_selection=0, min_detection_confidence=0.5), and
  - mediapipe.solutions.face_mesh (static_image_mode=True, refine_landmarks=False, max_num_faces=1),
and writes one JSON file per portrait (`<name>.json`) with, per case: the image size, every detection
(box [xmin, ymin, width, height] and 6 keypoints [x, y] in pixels, score) and the 468 landmarks
[x, y, z] in pixels (z on x's scale), all rounded to 0.01.

The variant images are not stored: each is an exact function of the decoded RGB portrait, which the Swift
tests rebuild the same way (Tests/Essence2Tests/FaceTestImages.swift). Arithmetic is float64; a result
value v is stored as the byte min(255, max(0, floor(v + 0.5))). Pixel (x, y) has integer coordinates.
  - "original": the portrait.
  - "flip": out(x, y) = in(W - 1 - x, y).
  - "rotate+20", "rotate-20": same canvas, black fill. With c = ((W - 1) / 2, (H - 1) / 2) and a in radians,
    out(x, y) samples in at  sx = cx + cos(a) (x - cx) - sin(a) (y - cy),  sy = cy + sin(a) (x - cx) + cos(a) (y - cy)
    (positive a turns the picture counter-clockwise on screen), bilinearly: x0 = floor(sx), fx = sx - x0
    (same for y), the four neighbours weighted (1 - fx)(1 - fy), fx(1 - fy), (1 - fx)fy, fx fy, and a
    neighbour outside the image counts as 0.
  - "scale WxH": resize to W x H, pixel centres aligned: sx = (x + 0.5) * Win / W - 0.5 (same for y),
    bilinear as above but neighbour indices clamped to the image (edge replicate).

The portraits are decoded with Pillow; the script checks that the decode equals the pixels stored in the
shipped avatars (avatars/*.imx, stored B,G,R), which are what the Swift tests start from.
"""

import argparse
import hashlib
import json
import math
import os
import struct
import sys

import numpy as np
from PIL import Image

PORTRAITS = [
    # (fixture name, portrait file, avatar file, rescaled sizes)
    ("grace_hopper", "grace_hopper.jpg", "grace-hopper.imx", [(256, 300), (1024, 1200)]),
    ("astronaut", "astronaut.png", "astronaut.imx", [(256, 256), (1024, 1024)]),
]


def read_imx_pixels(path):
    """The decoded `image` section (B,G,R) of an .imx avatar file, as an H x W x 3 RGB array."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89IMX\r\n\x1a\n", "not an .imx file"
    count, = struct.unpack_from("<I", data, 12)
    width, height = struct.unpack_from("<II", data, 24)
    for i in range(count):
        entry = 64 + 80 * i
        name = data[entry:entry + 16].rstrip(b"\0").decode()
        encoding, _ = struct.unpack_from("<II", data, entry + 16)
        offset, stored, length = struct.unpack_from("<QQQ", data, entry + 24)
        if name != "image":
            continue
        raw = data[offset:offset + stored]
        if encoding == 1:
            out = bytearray()
            j = 0
            while j < len(raw):
                c = raw[j]
                if c < 128:
                    out += raw[j + 1:j + 2 + c]
                    j += 2 + c
                else:
                    out += bytes([raw[j + 1]]) * (c - 125)
                    j += 2
            raw = bytes(out)
        assert len(raw) == length == width * height * 3
        bgr = np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 3)
        return bgr[:, :, ::-1].copy()
    raise ValueError(f"{path}: no image section")


def to_bytes(values):
    return np.clip(np.floor(values + 0.5), 0, 255).astype(np.uint8)


def bilinear(image, sx, sy, clamp):
    """Samples image (H x W x 3 uint8) at float64 coordinates sx, sy (arrays of one shape)."""
    h, w = image.shape[:2]
    src = image.astype(np.float64)
    x0 = np.floor(sx).astype(np.int64)
    y0 = np.floor(sy).astype(np.int64)
    fx = (sx - x0)[..., None]
    fy = (sy - y0)[..., None]
    out = np.zeros(sx.shape + (3,), dtype=np.float64)
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            xi, yi = x0 + dx, y0 + dy
            if clamp:
                value = src[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
            else:
                inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
                value = src[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)] * inside[..., None]
            out += wx * wy * value
    return to_bytes(out)


def rotated(image, degrees):
    h, w = image.shape[:2]
    a = math.radians(degrees)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    sx = cx + math.cos(a) * (x - cx) - math.sin(a) * (y - cy)
    sy = cy + math.sin(a) * (x - cx) + math.cos(a) * (y - cy)
    return bilinear(image, sx, sy, clamp=False)


def rescaled(image, width, height):
    h, w = image.shape[:2]
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    sx = (x + 0.5) * w / width - 0.5
    sy = (y + 0.5) * h / height - 0.5
    return bilinear(image, sx, sy, clamp=True)


def variants(image, sizes):
    yield "original", {"kind": "original"}, image
    yield "flip", {"kind": "flip"}, image[:, ::-1].copy()
    for degrees in (20, -20):
        yield f"rotate{degrees:+d}", {"kind": "rotate", "degrees": degrees}, rotated(image, degrees)
    for width, height in sizes:
        yield f"scale{width}x{height}", {"kind": "scale", "width": width, "height": height}, rescaled(image, width, height)


def r2(v):
    return round(float(v), 2)


def reference(image, face_detection, face_mesh):
    h, w = image.shape[:2]
    detections = []
    result = face_detection.process(image)
    for d in result.detections or []:
        box = d.location_data.relative_bounding_box
        detections.append({
            "box": [r2(box.xmin * w), r2(box.ymin * h), r2(box.width * w), r2(box.height * h)],
            "score": round(float(d.score[0]), 4),
            "keypoints": [[r2(k.x * w), r2(k.y * h)] for k in d.location_data.relative_keypoints],
        })
    landmarks = []
    result = face_mesh.process(image)
    if result.multi_face_landmarks:
        landmarks = [[r2(p.x * w), r2(p.y * h), r2(p.z * w)] for p in result.multi_face_landmarks[0].landmark]
    return detections, landmarks


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--portraits", default=os.path.join(root, "avatars", "sources"))
    parser.add_argument("--avatars", default=os.path.join(root, "avatars"))
    parser.add_argument("-o", "--output", default=os.path.join(root, "Tests", "Essence2Tests", "Fixtures", "face"))
    args = parser.parse_args()

    import mediapipe as mp
    os.makedirs(args.output, exist_ok=True)
    for name, portrait, avatar, sizes in PORTRAITS:
        image = np.asarray(Image.open(os.path.join(args.portraits, portrait)).convert("RGB"))
        stored = read_imx_pixels(os.path.join(args.avatars, avatar))
        if stored.shape != image.shape:
            sys.exit(f"{avatar}: size {stored.shape} differs from {portrait}'s {image.shape}")
        differing = int(np.count_nonzero(np.any(stored != image, axis=2)))
        if differing:
            print(f"{name}: {differing} pixels of {portrait} differ from {avatar}; using {avatar}'s pixels")
            image = stored
        cases = []
        for case, transform, pixels in variants(image, sizes):
            # Fresh solution objects per image: static mode, nothing carried between images.
            with mp.solutions.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5) as fd, \
                 mp.solutions.face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=False, max_num_faces=1,
                                                 min_detection_confidence=0.5) as fm:
                detections, landmarks = reference(np.ascontiguousarray(pixels), fd, fm)
            digest = hashlib.sha256(pixels.tobytes()).hexdigest()
            cases.append({
                "case": case, "transform": transform,
                "width": int(pixels.shape[1]), "height": int(pixels.shape[0]),
                "rgbSHA256": digest,
                "detections": detections, "landmarks": landmarks,
            })
            print(f"{name} {case}: {pixels.shape[1]}x{pixels.shape[0]}, {len(detections)} detection(s), "
                  f"{len(landmarks)} landmarks")
        document = {
            "source": portrait, "avatar": f"avatars/{avatar}",
            "generator": "tools/face_reference.py, mediapipe 0.10.21 solutions.face_detection (model_selection=0, "
                         "min_detection_confidence=0.5) and solutions.face_mesh (static_image_mode=True, "
                         "refine_landmarks=False, max_num_faces=1)",
            "coords": "pixels, x right, y down; box = [xmin, ymin, width, height]; landmark z on x's scale",
            "cases": cases,
        }
        with open(os.path.join(args.output, f"{name}.json"), "w") as f:
            json.dump(document, f, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
