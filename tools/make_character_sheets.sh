#!/usr/bin/env bash
# tools/make_character_sheets.sh - contact sheets of character avatars (Expression 2), to look at them up close:
# for each picture, one PNG of three rows cropped to the head (HEAD mode's square), 10 tiles each:
#   1. the source picture, then (essence2 avatar poses) the rest frame, the eyes half closed and closed (the most
#      closed frame of a blink), and the mouth shapes a, e, i, o, u, m,
#   2. idle motion, every 8th frame of 4 s (blinks, sway, breathing),
#   3. a clip: every 4th frame of examples/audio/demo.wav from 1.0 s (speech, 0.2 s apart).
#
#   tools/make_character_sheets.sh ESSENCE2 PICTURES_DIR LABELS.json OUT_DIR
#
# LABELS.json holds each picture's points ({"pictures": {"name.png": {points...}}}, the format of
# `avatar build --points`); pictures without points are built by the point finder. Needs ffmpeg and python3.
set -euo pipefail
BIN=$1 PICS=$2 LABELS=$3 OUT=$4
mkdir -p "$OUT"
work=$(mktemp -d /tmp/essence2-sheets.XXXXXX)
trap 'rm -rf "$work"' EXIT
for picture in "$PICS"/*.png; do
  name=$(basename "$picture" .png)
  python3 - "$LABELS" "$name.png" "$work/$name.points.json" <<'PY'
import json, sys
labels = json.load(open(sys.argv[1]))["pictures"]
entry = labels.get(sys.argv[2])
if entry is not None:
    json.dump(entry, open(sys.argv[3], "w"))
PY
  if [ -s "$work/$name.points.json" ]; then
    "$BIN" avatar build "$picture" --character --points "$work/$name.points.json" -o "$work/$name.imx" >/dev/null
  else
    "$BIN" avatar build "$picture" --character -o "$work/$name.imx" >/dev/null || [ $? = 7 ]
  fi
  "$BIN" avatar poses "$work/$name.imx" --region face --frames "$work/$name-poses" >/dev/null
  "$BIN" avatar poses "$work/$name.imx" --region face --idle 4.5 --frames "$work/$name-idle" >/dev/null
  "$BIN" render examples/audio/demo.wav --avatar "$work/$name.imx" --mode head --seed 5 -o "$work/$name.mp4" \
    --frames "$work/$name-clip" -q
  row() {  # row OUT FILE...: 10 files side by side, 150 px squares
    local out=$1 list=() i
    shift
    for i in "$@"; do list+=(-i "$i"); done
    ffmpeg -loglevel error -y "${list[@]}" -filter_complex \
      "$(for i in $(seq 0 9); do printf '[%d]scale=150:150:force_original_aspect_ratio=decrease,pad=150:150:(ow-iw)/2:(oh-ih)/2:white,format=rgb24[t%d];' $i $i; done)[t0][t1][t2][t3][t4][t5][t6][t7][t8][t9]hstack=inputs=10" "$out"
  }
  tile() {  # tile DIR PATTERN START STEP OUT: 10 frames of DIR, every STEP-th from START
    local list=() i
    for i in $(seq 0 9); do list+=("$(printf "$1/$2" $(( $3 + i * $4 )))"); done
    row "$5" "${list[@]}"
  }
  ffmpeg -loglevel error -y -i "$picture" -filter_complex \
    "color=white:s=16x16[w];[w][0]scale2ref[w][p];[w][p]overlay=format=auto,format=rgb24" -frames:v 1 "$work/$name-source.png"
  poses=("$work/$name-source.png")
  for p in rest blink_half blink a e i o u m; do poses+=("$work/$name-poses/pose_$p.png"); done
  row "$work/$name-row1.png" "${poses[@]}"
  tile "$work/$name-idle" "idle_%05d.png" 0 8 "$work/$name-row2.png"
  tile "$work/$name-clip" "frame_%05d.png" 20 4 "$work/$name-row3.png"
  ffmpeg -loglevel error -y -i "$work/$name-row1.png" -i "$work/$name-row2.png" -i "$work/$name-row3.png" \
    -filter_complex "[0][1][2]vstack=inputs=3" "$OUT/$name.png"
  echo "$OUT/$name.png"
done
