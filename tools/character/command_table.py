"""The character point finder as users meet it: `essence2 avatar build PICTURE --character` on each hand-labelled
picture, then `avatar inspect --json`'s source_points against the labels (avatars/characters/labels.json).

  python tools/character/command_table.py [--bin build/essence2] [--pictures /work/shared/characters]
  python tools/character/command_table.py --drawn 150 [--mouths] [--dump FILE.json] [--keep DIR]

Per picture, scored as tools/character/scoring.py says (only the points the picture shows; the tolerance the larger
of a quarter of the eye distance and 6 % of the head's height; a mouth not drawn within 0.6 eye distances): whether
the command was sure (exit 0; 7: unsure, a best guess written), the worst shown point and its error, the verdict
(sure and right, SURE AND WRONG, unsure within tolerance or off), the mouth state built against the label's, and
where the points came from (the avatar's info). --drawn N: instead, the command on N drawn scenes never trained on
(seed 999, as evaluate.py's; --mouths: with draw.py's mouth styles and extras): how often the mouth state it builds
is the drawn one, and the two ways it can be wrong; --dump writes each scene's figures with its found and drawn
points, --keep keeps each scene's picture (N.png), so a second reading can be tried on them offline.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scoring  # noqa: E402


def build(binary, picture, out, said=None):
    """Builds without points; returns (exit status, inspect --json's object or None). `said`, a list, gets what the
    command printed on stderr."""
    done = subprocess.run([binary, "avatar", "build", picture, "--character", "-o", out], capture_output=True, text=True)
    status = done.returncode
    if said is not None:
        said.append(done.stderr)
    if not os.path.exists(out):
        return status, None
    info = json.loads(subprocess.run([binary, "avatar", "inspect", "--json", out], capture_output=True,
                                     check=True).stdout)
    return status, info


def confidence(binary, imx):
    """The finder's confidence as the avatar's info records it (None when the points came from elsewhere)."""
    text = subprocess.run([binary, "avatar", "inspect", imx], capture_output=True, text=True).stdout
    m = re.search(r"confidence ([0-9.]+)\)", text)
    return float(m.group(1)) if m else None


def calibration(rows, edges=(0.0, 0.2, 0.35, 0.5, 0.65, 0.8, 1.01)):
    """Lines of the share of right answers per confidence band, from (confidence, sure, right) rows."""
    lines = []
    for lo, hi in zip(edges, edges[1:]):
        band = [r for r in rows if r[0] is not None and lo <= r[0] < hi]
        if band:
            lines.append(f"  confidence {lo:.2f}-{min(hi, 1):.2f}: {len(band):3d} answers, "
                         f"{sum(r[2] for r in band) / len(band) * 100:5.1f} % right, "
                         f"{sum(r[1] for r in band) / len(band) * 100:5.1f} % sure")
    return lines


def plain(value):
    """`value` with NumPy arrays and numbers as lists and floats (for JSON)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value.tolist() if hasattr(value, "tolist") else value


def drawn(binary, count, mouths, dump=None, keep=None):
    """The command on `count` drawn scenes; `dump`, a list, gets one dict per scene (with the found points and the
    drawn ones); `keep`, a folder, gets each scene's picture (`N.png`)."""
    import numpy as np
    import draw
    right = open_wrong = shut_wrong = 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            img, p = draw.draw_scene(np.random.default_rng([999, 1000 + i]), negative=False, extras=mouths,
                                     mouths=mouths)
            picture, out = os.path.join(keep or tmp, f"{i}.png"), os.path.join(tmp, f"{i}.imx")
            img.save(picture)
            said = []
            status, info = build(binary, picture, out, said)
            found = info["mouth"] if info else None
            right += found == p["mouth"]
            open_wrong += found == "open" and p["mouth"] != "open"
            shut_wrong += found != "open" and p["mouth"] == "open"
            judged = scoring.judge(info["source_points"], p) if info else (False, "", 0.0, 0.0)
            rows.append((confidence(binary, out) if info else None, status == 0, judged[0]))
            if dump is not None:
                dump.append({"scene": i, "confidence": rows[-1][0], "sure": status == 0, "right": judged[0],
                             "worst": judged[1], "error": judged[2], "mouth": found, "drawn_mouth": p["mouth"],
                             "said": said[0].strip(), "found": info["source_points"] if info else None,
                             "drawn": plain(p)})
    what = "drawn scenes with mouth styles" if mouths else "drawn scenes"
    print(f"{count} {what} (seed 999): mouth state as drawn {right / count * 100:.0f} %, closed or absent built "
          f"open {open_wrong / count * 100:.0f} %, open built closed or absent {shut_wrong / count * 100:.0f} %")
    print(f"points (scoring.py): {scoring.shares([(r[1], r[2]) for r in rows])}")
    print("\n".join(calibration(rows)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/essence2")
    ap.add_argument("--pictures", default="avatars/characters/pictures")
    ap.add_argument("--labels", default="avatars/characters/labels.json")
    ap.add_argument("--drawn", type=int, default=0, help="the mouth states built on this many drawn scenes instead")
    ap.add_argument("--mouths", action="store_true", help="with --drawn: scenes with draw.py's mouth styles")
    ap.add_argument("--dump", help="with --drawn: write each scene's figures to this JSON file")
    ap.add_argument("--keep", help="with --drawn: keep each scene's picture in this folder")
    args = ap.parse_args()
    if args.drawn:
        rows = [] if args.dump else None
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
        drawn(args.bin, args.drawn, args.mouths, rows, args.keep)
        if args.dump:
            json.dump(rows, open(args.dump, "w"), indent=1)
        return
    everything = json.load(open(args.labels))
    labels, hidden = everything["pictures"], everything.get("hidden_eyes", {})
    print(f"{'picture':34s} {'sure':4s} {'worst point':13s} {'error':>6s} {'/tol':>5s}  {'verdict':25s} "
          f"{'mouth (built/label)':19s} points from")
    verdicts = []
    mouths = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(labels):
            out = os.path.join(tmp, name + ".imx")
            status, info = build(args.bin, os.path.join(args.pictures, name), out)
            if info is None:
                print(f"{name:34s} {'(no avatar)':>14s}  exit {status}")
                continue
            right, worst, error, ratio = scoring.judge(info["source_points"], labels[name], hidden.get(name, []))
            verdict = scoring.verdict(status == 0, right)
            verdicts.append(verdict)
            mouths += info["mouth"] == labels[name]["mouth"]
            text = subprocess.run([args.bin, "avatar", "inspect", out], capture_output=True, text=True).stdout
            m = re.search(r'"points": "([^"]*)"', text)
            source = m.group(1) if m else "?"
            source = source.replace("found by essence2's character point finder", "network") \
                .replace("found by MediaPipe Face Mesh", "Face Mesh")
            mouth = f"{info['mouth']}/{labels[name]['mouth']}"
            print(f"{name:34s} {'yes' if status == 0 else 'no':4s} {worst:13s} {error:6.3f} {ratio:5.2f}  {verdict:25s} "
                  f"{mouth:19s} {source}")
    print(scoring.tally(verdicts) + f" (of {len(labels)}); {mouths} mouth states as labelled")
    print("error: the worst shown point's distance in eye distances; /tol: over its tolerance (scoring.py)")

if __name__ == "__main__":
    main()
