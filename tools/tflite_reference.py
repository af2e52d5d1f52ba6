#!/usr/bin/env python3
"""Reference outputs of the MediaPipe TFLite models for the Swift interpreter's tests.

Runs models/face_detection_short_range.tflite and models/face_landmark.tflite with the official TFLite runtime
(`pip install ai-edge-litert 'numpy<2'`) on deterministic inputs and writes, under
Tests/Essence2Tests/Fixtures/tflite/:

  portrait128.rgb  128x128 RGB bytes: ../shared/portraits/grace_hopper.jpg, centre 512x512 square, resized
  face96.rgb       96x96 RGB bytes: her face (300x300 square around the face box), resized
  reference.json   per case: model, input recipe, and per output its shape, min/max/mean/mean-abs and
                   values sampled every `stride` elements (all values when stride is 1)

Input recipes (the Swift test rebuilds them identically):
  "lcg":  x[i] = lo + (hi - lo) * u_i, u_i = (s >> 8) / 2^24 after s = s * 1664525 + 1013904223 (mod 2^32),
          starting from `seed`;
  "rgb":  bytes of `image` (w x h), nearest-neighbour upscaled to the model size (source = dest * w / size),
          x = lo + (hi - lo) * byte / 255.

Usage: tools/tflite_reference.py [--shared ../shared]   (ImageMagick `convert` makes the .rgb files)
"""
import argparse
import json
import os
import subprocess

import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Essence2Tests", "Fixtures", "tflite")
MAX_SAMPLES = 1500


def lcg(count, seed, lo, hi):
    s = seed & 0xFFFFFFFF
    out = np.empty(count, dtype=np.float32)
    for i in range(count):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        out[i] = np.float32(lo) + np.float32(hi - lo) * np.float32((s >> 8) / 16777216.0)
    return out


def rgb(path, w, h, size, lo, hi):
    data = np.frombuffer(open(path, "rb").read(), dtype=np.uint8).reshape(h, w, 3)
    ys = (np.arange(size) * h) // size
    xs = (np.arange(size) * w) // size
    up = data[ys][:, xs].astype(np.float32)
    return (np.float32(lo) + np.float32(hi - lo) * (up / np.float32(255))).reshape(-1).astype(np.float32)


def make_images(shared):
    portrait = os.path.join(shared, "portraits", "grace_hopper.jpg")
    subprocess.run(["convert", portrait, "-crop", "512x512+0+44", "+repage", "-resize", "128x128!",
                    "-depth", "8", "rgb:" + os.path.join(FIXTURES, "portrait128.rgb")], check=True)
    subprocess.run(["convert", portrait, "-crop", "300x300+114+83", "+repage", "-resize", "96x96!",
                    "-depth", "8", "rgb:" + os.path.join(FIXTURES, "face96.rgb")], check=True)


def run(model, x):
    interp = Interpreter(model_path=os.path.join(ROOT, "models", model), num_threads=1)
    interp.allocate_tensors()
    inp = interp.get_input_details()[0]
    interp.set_tensor(inp["index"], x.reshape(inp["shape"]))
    interp.invoke()
    return [interp.get_tensor(d["index"]) for d in interp.get_output_details()]


def summary(y):
    flat = y.reshape(-1).astype(np.float64)
    stride = max(1, -(-flat.size // MAX_SAMPLES))
    return {
        "shape": list(y.shape), "min": float(flat.min()), "max": float(flat.max()),
        "mean": float(flat.mean()), "meanAbs": float(np.abs(flat).mean()), "stride": stride,
        "samples": [float("%.7g" % v) for v in flat[::stride]],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    args = parser.parse_args()
    os.makedirs(FIXTURES, exist_ok=True)
    make_images(args.shared)
    det, lmk = "face_detection_short_range.tflite", "face_landmark.tflite"
    cases = [
        {"name": "detector_noise", "model": det, "input": {"kind": "lcg", "seed": 1, "lo": -1, "hi": 1}},
        {"name": "detector_portrait", "model": det,
         "input": {"kind": "rgb", "image": "portrait128.rgb", "width": 128, "height": 128, "lo": -1, "hi": 1}},
        {"name": "landmark_noise", "model": lmk, "input": {"kind": "lcg", "seed": 2, "lo": 0, "hi": 1}},
        {"name": "landmark_face", "model": lmk,
         "input": {"kind": "rgb", "image": "face96.rgb", "width": 96, "height": 96, "lo": 0, "hi": 1}},
    ]
    for case in cases:
        size = 128 if case["model"] == det else 192
        spec = case["input"]
        if spec["kind"] == "lcg":
            x = lcg(size * size * 3, spec["seed"], spec["lo"], spec["hi"])
        else:
            x = rgb(os.path.join(FIXTURES, spec["image"]), spec["width"], spec["height"], size, spec["lo"], spec["hi"])
        case["outputs"] = [summary(y) for y in run(case["model"], x)]
        print(case["name"], [(o["shape"], round(o["min"], 3), round(o["max"], 3)) for o in case["outputs"]])
    with open(os.path.join(FIXTURES, "reference.json"), "w") as f:
        json.dump({"source": "tools/tflite_reference.py (ai-edge-litert, one thread)", "cases": cases}, f,
                  separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
