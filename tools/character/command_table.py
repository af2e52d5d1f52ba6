"""The character point finder as users meet it: `essence2 avatar build PICTURE --character` on each hand-labelled
picture, then `avatar inspect --json`'s source_points against the labels (avatars/characters/labels.json).

  python tools/character/command_table.py [--bin build/essence2] [--pictures /work/shared/characters]
  python tools/character/command_table.py --drawn 150 [--mouths]

Per picture: the largest error of the eye and mouth points over the labelled eye distance, the worst point, the
command's exit status (0 sure, 7 unsure: a best guess written), the mouth state built against the label's, and
where the points came from (the avatar's info). --drawn N: instead, the command on N drawn scenes never trained on
(seed 999, as evaluate.py's; --mouths: with draw.py's mouth styles and extras): how often the mouth state it builds
is the drawn one, and the two ways it can be wrong.
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


def build(binary, picture, out):
    """Builds without points; returns (exit status, inspect --json's object or None)."""
    status = subprocess.run([binary, "avatar", "build", picture, "--character", "-o", out], capture_output=True).returncode
    if not os.path.exists(out):
        return status, None
    info = json.loads(subprocess.run([binary, "avatar", "inspect", "--json", out], capture_output=True,
                                     check=True).stdout)
    return status, info


def drawn(binary, count, mouths):
    import numpy as np
    import draw
    right = open_wrong = shut_wrong = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            img, p = draw.draw_scene(np.random.default_rng([999, 1000 + i]), negative=False, extras=mouths,
                                     mouths=mouths)
            picture, out = os.path.join(tmp, f"{i}.png"), os.path.join(tmp, f"{i}.imx")
            img.save(picture)
            _, info = build(binary, picture, out)
            found = info["mouth"] if info else None
            right += found == p["mouth"]
            open_wrong += found == "open" and p["mouth"] != "open"
            shut_wrong += found != "open" and p["mouth"] == "open"
    what = "drawn scenes with mouth styles" if mouths else "drawn scenes"
    print(f"{count} {what} (seed 999): mouth state as drawn {right / count * 100:.0f} %, closed or absent built "
          f"open {open_wrong / count * 100:.0f} %, open built closed or absent {shut_wrong / count * 100:.0f} %")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/essence2")
    ap.add_argument("--pictures", default="/work/shared/characters")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    ap.add_argument("--drawn", type=int, default=0, help="the mouth states built on this many drawn scenes instead")
    ap.add_argument("--mouths", action="store_true", help="with --drawn: scenes with draw.py's mouth styles")
    args = ap.parse_args()
    if args.drawn:
        drawn(args.bin, args.drawn, args.mouths)
        return
    labels = json.load(open(args.labels))["pictures"]
    print(f"{'picture':34s} {'error/eye dist':>14s}  {'worst point':14s} exit  {'mouth (built/label)':19s} points from")
    ok = mouths = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(labels):
            out = os.path.join(tmp, name + ".imx")
            status, info = build(args.bin, os.path.join(args.pictures, name), out)
            if info is None:
                print(f"{name:34s} {'(no avatar)':>14s}  {'':14s} {status:4d}")
                continue
            e, worst = score(info["source_points"], labels[name])
            ok += e <= 0.25
            mouths += info["mouth"] == labels[name]["mouth"]
            text = subprocess.run([args.bin, "avatar", "inspect", out], capture_output=True, text=True).stdout
            m = re.search(r'"points": "([^"]*)"', text)
            source = m.group(1) if m else "?"
            source = source.replace("found by essence2's character point finder", "network") \
                .replace("found by MediaPipe Face Mesh", "Face Mesh")
            mouth = f"{info['mouth']}/{labels[name]['mouth']}"
            print(f"{name:34s} {e:14.3f}  {worst:14s} {status:4d}  {mouth:19s} {source}")
    print(f"{ok} of {len(labels)} within 0.25 of the eye distance; {mouths} of {len(labels)} mouth states as labelled")


if __name__ == "__main__":
    main()
