#!/bin/sh
# Renders docs/avatar-build-sheet.png: for each sample portrait, the avatar built from the shared MediaPipe
# landmark and mesh files (avatars/*.imx, top row) beside the avatar `essence2 avatar build` makes from the
# portrait alone (bottom row), both speaking examples/audio/demo.wav, the same frames picked from each.
#
#   tools/make_face_sheet.sh [PATH/TO/essence2]     (default build/essence2; needs ImageMagick)
set -eu
BIN=${1:-build/essence2}
cd "$(dirname "$0")/.."
T=$(mktemp -d /tmp/essence2-sheet.XXXXXX)
trap 'rm -rf "$T"' EXIT
FRAMES="00000 00030 00060 00095 00130 00170"
rows=""
# name:portrait:crop (the face region shown, in avatar pixels)
for entry in grace-hopper:grace_hopper.jpg:230x250+150+110 astronaut:astronaut.png:130x140+165+60; do
    name=${entry%%:*}; rest=${entry#*:}; source=${rest%%:*}; crop=${rest#*:}
    "$BIN" avatar build "avatars/sources/$source" -o "$T/$name-found.imx" >/dev/null
    for kind in shipped found; do
        avatar="avatars/$name.imx"; [ "$kind" = found ] && avatar="$T/$name-found.imx"
        mkdir -p "$T/$name-$kind"
        "$BIN" render examples/audio/demo.wav --avatar "$avatar" --seed 7 --frames "$T/$name-$kind" \
            -o "$T/$name-$kind.y4m" >/dev/null 2>&1
        label="$name, landmarks from the shared files"
        [ "$kind" = found ] && label="$name, landmarks found by essence2 avatar build"
        files=""
        for f in $FRAMES; do files="$files $T/$name-$kind/frame_$f.png"; done
        # shellcheck disable=SC2086
        montage $files -crop "$crop" +repage -resize 200x -tile x1 -geometry +2+2 "$T/$name-$kind-row.png"
        convert "$T/$name-$kind-row.png" -gravity north -background white -splice 0x22 \
            -pointsize 15 -annotate +0+3 "$label (frames ${FRAMES}, face region)" "$T/$name-$kind-labelled.png"
        rows="$rows $T/$name-$kind-labelled.png"
    done
done
# shellcheck disable=SC2086
convert $rows -append -colors 256 PNG8:docs/avatar-build-sheet.png
echo "wrote docs/avatar-build-sheet.png"
