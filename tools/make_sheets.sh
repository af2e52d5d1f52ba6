#!/bin/sh
# `make sheet`: renders the contact sheets in docs/sheets/ for each shipped avatar and for a 1080x1920 avatar
# built from avatars/sources/grace_hopper.jpg (`--size 1080x1920 --fit`):
#
#   NAME-articulation.png  the mouth shapes rest, a, e, i, o, u, m, f/v, l/th: the whole frame, the head, and
#                          the mouth zoomed to 270 px across without smoothing (its own pixels, enlarged)
#   NAME-clip.png          every 5th frame of the first 6 s of examples/audio/demo.wav, the head
#   NAME-idle.png          every 5th frame of 10 s of idle motion (head, breathing, blinks, gaze, brows), the head
#
#   tools/make_sheets.sh [PATH/TO/essence2]     (default build/essence2; needs ImageMagick)
set -eu
BIN=${1:-build/essence2}
cd "$(dirname "$0")/.."
if ! command -v montage >/dev/null 2>&1; then
    echo "make sheet: needs ImageMagick's montage (apt-get install imagemagick)" >&2
    exit 1
fi
T=$(mktemp -d /tmp/essence2-sheets.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p docs/sheets
POSES="rest a e i o u m fv lth"
"$BIN" avatar build avatars/sources/grace_hopper.jpg --size 1080x1920 --fit -o "$T/grace-1080x1920.imx" >/dev/null

# labelled NAME TITLE FILE...: a montage of FILE... (each labelled with its base name) with a title line.
labelled() {
    out=$1; title=$2; shift 2
    montage -font DejaVu-Sans -pointsize 13 "$@" -tile "${TILE}" -geometry "${GEOMETRY}" -background white "$T/body.png"
    convert "$T/body.png" -gravity north -background white -splice 0x24 -font DejaVu-Sans -pointsize 15 \
        -annotate +0+4 "$title" -colors 256 "PNG8:$out"
    echo "wrote $out"
}

# thumbnails DIR PREFIX LAST SIZE: every 5th frame DIR/PREFIX_NNNNN.png from 0 to LAST, shrunk to SIZE, each
# labelled with its time; the montage arguments are left in $args.
thumbnails() {
    args=""
    for i in $(seq 0 5 "$3"); do
        f=$(printf '%s/%s_%05d.png' "$1" "$2" "$i")
        convert "$f" -resize "$4" "$f.small.png"
        args="$args -label $(awk "BEGIN { printf \"%.1fs\", $i / 25 }") $f.small.png"
    done
}

for entry in grace-hopper:avatars/grace-hopper.imx astronaut:avatars/astronaut.imx \
             grace-1080x1920:"$T/grace-1080x1920.imx"; do
    name=${entry%%:*}; avatar=${entry#*:}
    for region in full face mouth; do
        "$BIN" avatar poses "$avatar" --region "$region" --frames "$T/$name/$region" >/dev/null
    done
    rows=""
    for region in full face mouth; do
        args=""
        for p in $POSES; do
            label=$p; [ "$p" = fv ] && label=f/v; [ "$p" = lth ] && label=l/th
            case $region in
                full) size=x300 ;;
                face) size=240x240 ;;
                mouth) size=270x ;;
            esac
            convert "$T/$name/$region/pose_$p.png" -filter point -resize "$size" "$T/$name/$region-$p.png"
            args="$args -label $label $T/$name/$region-$p.png"
        done
        # shellcheck disable=SC2086
        montage -font DejaVu-Sans -pointsize 13 $args -tile 9x1 -geometry +3+3 -background white "$T/$name-row-$region.png"
        rows="$rows $T/$name-row-$region.png"
    done
    # shellcheck disable=SC2086
    convert $rows -background white -gravity west -append "$T/body.png"
    convert "$T/body.png" -gravity north -background white -splice 0x24 -font DejaVu-Sans -pointsize 15 \
        -annotate +0+4 "$name: mouth shapes (rows: whole frame, head, mouth enlarged without smoothing)" \
        -colors 256 "PNG8:docs/sheets/$name-articulation.png"
    echo "wrote docs/sheets/$name-articulation.png"

    "$BIN" render examples/audio/demo.wav --avatar "$avatar" --mode head --frames "$T/$name/clip" \
        -o "$T/$name-clip.y4m" >/dev/null 2>&1
    thumbnails "$T/$name/clip" frame 145 200x200
    TILE=10x3; GEOMETRY=+2+2
    # shellcheck disable=SC2086
    labelled "docs/sheets/$name-clip.png" "$name: every 5th frame of the first 6 s of examples/audio/demo.wav (head)" $args

    "$BIN" avatar poses "$avatar" --region face --idle 10 --frames "$T/$name/idle" >/dev/null
    thumbnails "$T/$name/idle" idle 245 160x160
    TILE=10x5; GEOMETRY=+2+2
    # shellcheck disable=SC2086
    labelled "docs/sheets/$name-idle.png" "$name: every 5th frame of 10 s of idle motion (head)" $args
done
