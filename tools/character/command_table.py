"""The character point finder as users meet it: `essence2 avatar build PICTURE --character` on each hand-labelled
picture, then `avatar inspect --json`'s source_points against the labels (avatars/characters/labels.json).

  python tools/character/command_table.py [--bin build/essence2] [--pictures /work/shared/characters]

Per picture: the largest error of the eye and mouth points over the labelled eye distance, the worst point, the
command's exit status (0 sure, 7 unsure: a best guess written) and where the points came from (the avatar's info).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import score  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/essence2")
    ap.add_argument("--pictures", default="/work/shared/characters")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    args = ap.parse_args()
    labels = json.load(open(args.labels))["pictures"]
    print(f"{'picture':34s} {'error/eye dist':>14s}  {'worst point':14s} exit  points from")
    ok = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(labels):
            out = os.path.join(tmp, name + ".imx")
            status = subprocess.run([args.bin, "avatar", "build", os.path.join(args.pictures, name), "--character",
                                     "-o", out], capture_output=True).returncode
            if not os.path.exists(out):
                print(f"{name:34s} {'(no avatar)':>14s}  {'':14s} {status:4d}")
                continue
            info = json.loads(subprocess.run([args.bin, "avatar", "inspect", "--json", out], capture_output=True,
                                             check=True).stdout)
            e, worst = score(info["source_points"], labels[name])
            ok += e <= 0.25
            text = subprocess.run([args.bin, "avatar", "inspect", out], capture_output=True, text=True).stdout
            m = re.search(r'"points": "([^"]*)"', text)
            source = m.group(1) if m else "?"
            source = source.replace("found by essence2's character point finder", "network") \
                .replace("found by MediaPipe Face Mesh", "Face Mesh")
            print(f"{name:34s} {e:14.3f}  {worst:14s} {status:4d}  {source}")
    print(f"{ok} of {len(labels)} within 0.25 of the eye distance")


if __name__ == "__main__":
    main()
