#!/usr/bin/env bash
# tools/character_look.sh - builds each character picture twice (automatically, and from the hand labels) and
# prints how each build looks against its picture (`essence2 avatar inspect --look`), one JSON line a build:
# {"picture", "build" ("automatic" or "labels"), "sure" (the automatic build's exit 0), "look": {...}}.
#
#   tools/character_look.sh ESSENCE2 PICTURES_DIR LABELS.json [OUT.jsonl]
set -euo pipefail
BIN=$1 PICS=$2 LABELS=$3 OUT=${4:-/dev/stdout}
work=$(mktemp -d /tmp/essence2-look.XXXXXX)
trap 'rm -rf "$work"' EXIT
: > "$work/all.jsonl"
for picture in "$PICS"/*.png; do
  name=$(basename "$picture" .png)
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["pictures"].get(sys.argv[2]); e is not None and json.dump(e, open(sys.argv[3], "w"))' \
    "$LABELS" "$name.png" "$work/$name.points.json"
  sure=false
  if "$BIN" avatar build "$picture" --character -o "$work/$name-auto.imx" >/dev/null 2>&1; then sure=true
  elif [ $? != 7 ]; then echo "essence2: $name: the automatic build failed" >&2; exit 1; fi
  look=$("$BIN" avatar inspect "$work/$name-auto.imx" --look | tr -d "\n")
  printf '{"picture": "%s", "build": "automatic", "sure": %s, "look": %s}\n' "$name" "$sure" "$look" >> "$work/all.jsonl"
  if [ -s "$work/$name.points.json" ]; then
    "$BIN" avatar build "$picture" --character --points "$work/$name.points.json" -o "$work/$name-labels.imx" >/dev/null
    look=$("$BIN" avatar inspect "$work/$name-labels.imx" --look | tr -d "\n")
    printf '{"picture": "%s", "build": "labels", "sure": true, "look": %s}\n' "$name" "$look" >> "$work/all.jsonl"
  fi
done
cat "$work/all.jsonl" > "$OUT"
