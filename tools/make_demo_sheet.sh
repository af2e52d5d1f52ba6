#!/bin/sh
# Renders docs/demo-sheet.png: every 4th frame (0.16 s apart) of the first 1.9 s of `make demo`, cropped to
# the head, from the default avatar speaking examples/audio/demo.wav with the default (learned) lip sync.
#
#   tools/make_demo_sheet.sh [PATH/TO/essence2]     (default build/essence2; needs ImageMagick)
set -eu
BIN=${1:-build/essence2}
cd "$(dirname "$0")/.."
T=$(mktemp -d /tmp/essence2-demo-sheet.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$BIN" render examples/audio/demo.wav --avatar avatars/grace-hopper.imx --frames "$T/frames" -o "$T/demo.y4m" >/dev/null 2>&1
files=""
for i in 0 4 8 12 16 20 24 28 32 36 40 44; do files="$files $(printf '%s/frames/frame_%05d.png' "$T" "$i")"; done
# shellcheck disable=SC2086
montage $files -crop 300x300+110+20 +repage -resize 180x180 -tile 6x2 -geometry +2+2 -colors 256 PNG8:docs/demo-sheet.png
echo "wrote docs/demo-sheet.png"
