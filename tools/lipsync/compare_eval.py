#!/usr/bin/env python3
"""Two eval.py runs side by side (--json-out of the shipped weights and of a candidate, same selection, same
build): per group of clips and meter, closure (and p, b, m apart), pauses, r at lag 0 and best lag.

    python3 tools/lipsync/compare_eval.py --before base.json --after cand.json [--markdown]

Groups: the synthetic validation voices; the project's real clips per split; the Asterisk prompts (asterisk.py,
ids "ast-<speaker>-<band>-...") per held-out speaker and band, per language, and all of them.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import overall  # noqa: E402

METERS = (("pixels", ""), ("landmarks", ":lm"))


def asterisk_key(clip_id: str) -> tuple[str, str] | None:
    """(speaker, band) of an Asterisk clip id, or None."""
    if not clip_id.startswith("ast-"):
        return None
    parts = clip_id.split("-")
    return parts[1], parts[2]


def language_of(speaker: str) -> str:
    return speaker.split("_")[0]


def groups(result: dict) -> dict[str, list[dict]]:
    """{group name: [per-clip figures {column: figs}]} of one eval result."""
    out: dict[str, list[dict]] = {}
    if result.get("utterances"):
        out["synthetic val voices"] = result["utterances"]
    clips = result.get("real", {}).get("clips", [])
    for c in clips:
        key = asterisk_key(c["id"])
        if key is None:
            out.setdefault(f"real clips, {'held-out' if c['split'] == 'val' else 'training'} speakers", []).append(c)
            out.setdefault("real clips, all 22", []).append(c)
            continue
        speaker, band = key
        out.setdefault(f"{speaker} {band}", []).append(c)
        out.setdefault(f"language {language_of(speaker)} (held out)", []).append(c)
        out.setdefault(f"held-out Asterisk speakers, {band}", []).append(c)
        out.setdefault("held-out Asterisk speakers, all", []).append(c)
    return out


def pooled(clips: list[dict], column: str) -> dict | None:
    """measure.overall of the clips' figures in `column` (JSON turned the lags into strings: back to ints)."""
    per = [{**c[column], "r_by_lag": {int(k): v for k, v in c[column]["r_by_lag"].items()}}
           for c in clips if c.get(column)]
    return overall(per) if per else None


def fmt(f: dict | None) -> list[str]:
    if f is None:
        return ["-"] * 7
    bp = f["by_phone"]

    def frac(x):
        return f"{x[0]}/{x[1]}" if x[1] else "-"
    return [f"{f['closure']:.2f}" if f["closure"] is not None else "-", frac(bp["p"]), frac(bp["b"]), frac(bp["m"]),
            f"{f['silence']:.2f}" if f["silence"] is not None else "-", f"{f['r0']:.2f}", f"{f['best_lag']:+d}"]


def table(before: dict, after: dict, model: str = "learned") -> list[str]:
    gb, ga = groups(before), groups(after)
    names = [n for n in gb if n in ga]
    head = ["group", "n", "meter", "closure", "p", "b", "m", "pauses", "r0", "lag"]
    lines = ["| " + " | ".join(head[:3] + [f"before {h}" for h in head[3:]] + [f"after {h}" for h in head[3:]]) + " |",
             "|" + "---|" * (3 + 2 * 7)]
    for name in names:
        for meter, suffix in METERS:
            b, a = pooled(gb[name], model + suffix), pooled(ga[name], model + suffix)
            if b is None and a is None:
                continue
            lines.append("| " + " | ".join([name if meter == "pixels" else "", str(len(gb[name])), meter]
                                           + fmt(b) + fmt(a)) + " |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, action="append", help="eval.py --json-out (repeatable)")
    ap.add_argument("--after", required=True, action="append", help="eval.py --json-out (repeatable)")
    ap.add_argument("--model", default="learned")
    a = ap.parse_args(argv)

    def merged(paths):
        out: dict = {"utterances": [], "real": {"clips": []}}
        for p in paths:
            with open(p) as f:
                r = json.load(f)
            out["utterances"] += r.get("utterances", [])
            out["real"]["clips"] += r.get("real", {}).get("clips", [])
        return out
    print("\n".join(table(merged(a.before), merged(a.after), a.model)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
