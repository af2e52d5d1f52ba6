#!/usr/bin/env python3
"""A copy of a built libessence2 with other lip-sync weights in place of the embedded ones, for the eval only.

    python3 tools/lipsync/swap_weights.py --lib build/lib/libessence2.so.1.4.0 \\
        --old Sources/CEssence2Weights/lipsync_weights.e2nw --new build/lipsync-model/lipsync_weights.e2nw \\
        --out build/lib/libessence2-candidate.so

The library embeds the weights file as bytes (lipsync_weights.c, #embed) and checks it against the SHA-256 of
lipsync_weights_info.h when it first decodes it. A model of the same architecture gives a weights file of the
same size, so a candidate can be measured through the renderer (`eval.py --lib OUT`) without compiling: the old
bytes and the old digest are each found exactly once in the library and overwritten. Anything else (another
size, bytes found not once) is refused. The copy is for measuring; what ships is built from the committed
Sources/CEssence2Weights as always.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys


def swap(lib: bytes, old: bytes, new: bytes) -> bytes:
    """`lib` with the weights `old` and their SHA-256 (lower-case hex) replaced by `new`'s; ValueError when the
    sizes differ or either is not found exactly once."""
    if len(old) != len(new):
        raise ValueError(f"the weights differ in size ({len(old)} and {len(new)} bytes): another architecture")
    out = lib
    for a, b, what in ((old, new, "weights"),
                       (hashlib.sha256(old).hexdigest().encode(), hashlib.sha256(new).hexdigest().encode(), "digest")):
        count = out.count(a)
        if count != 1:
            raise ValueError(f"the old {what} occur {count} times in the library (expected once)")
        out = out.replace(a, b)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="a built libessence2.so")
    ap.add_argument("--old", required=True, help="the weights it was built with (lipsync_weights.e2nw)")
    ap.add_argument("--new", required=True, help="the weights to measure")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    with open(a.lib, "rb") as f:
        lib = f.read()
    with open(a.old, "rb") as f:
        old = f.read()
    with open(a.new, "rb") as f:
        new = f.read()
    try:
        data = swap(lib, old, new)
    except ValueError as e:
        print(f"swap_weights: {e}", file=sys.stderr)
        return 1
    with open(a.out, "wb") as f:
        f.write(data)
    os.chmod(a.out, 0o755)
    print(f"{a.out}: weights sha256 {hashlib.sha256(new).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
