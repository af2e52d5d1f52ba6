#!/bin/sh
# Checks of `essence2 avatar build` and `essence2 avatar detect` finding the face themselves: no landmark
# file, JPEG and PNG, --size (crop) and --fit, --face N with two faces, no face, a detected-landmarks
# round trip through --landmarks/--mesh, damaged or missing model files, JPEG EXIF orientations 1-8 and
# malformed EXIF blocks, too-small images and faces, a missing output directory, and the warning for a
# portrait enlarged to fill --size.
#
#   integration/cli/faces.sh PATH/TO/essence2
#
# Runs from the repository root (models/, avatars/sources/, integration/cli/fixtures/); writes only to a
# temporary directory.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH/TO/essence2" >&2; exit 2; fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 2
SRC=avatars/sources
FIX=integration/cli/fixtures
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-faces-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
. integration/cli/checks.sh
portrait_size() { grep -o 'portrait [0-9]*x[0-9]*' "$T/out" | head -1; }
# point FILE NAME: "x y" of a named point in landmark JSON written by `avatar detect --landmarks-out`.
point() { grep "\"$2\":" "$1" | head -1 | tr -d '[],' | awk '{ print $2, $3 }'; }
FEATURES="right_eye_outer right_eye_inner left_eye_inner left_eye_outer nose_tip mouth_corner_right
          mouth_corner_left upper_lip_outer_center lower_lip_outer_center chin"
# same_place A.json B.json TOLERANCE: each of FEATURES in A within TOLERANCE pixels of B's.
same_place() {
    for name in $FEATURES; do
        a=$(point "$1" "$name"); b=$(point "$2" "$name")
        [ -n "$a" ] && [ -n "$b" ] || return 1
        echo "$a $b" | awk -v tol="$3" '{ dx = $1 - $3; dy = $2 - $4; exit !(dx * dx + dy * dy <= tol * tol) }' \
            || return 1
    done
}
# upright FILE.json: eyes level and above the nose, the nose above the mouth, the mouth above the chin, and the
# subject's right eye on the image's left.
upright() {
    for name in right_eye_outer left_eye_outer nose_tip upper_lip_outer_center chin; do point "$1" "$name"; done |
        awk '{ x[NR] = $1; y[NR] = $2 }
             END { tilt = y[1] - y[2]; if (tilt < 0) tilt = -tilt
                   exit !(NR == 5 && x[1] < x[2] && tilt < (x[2] - x[1]) / 4 && y[2] < y[3] && y[3] < y[4] && y[4] < y[5]) }'
}

run 0 avatar build "$SRC/grace_hopper.jpg" -o "$T/grace.imx" && [ -s "$T/grace.imx" ]
verdict "avatar build finds the face in a JPEG portrait without a landmark file"
grep -q "wrote .*grace.imx: .*, $(wc -c <"$T/grace.imx") bytes," "$T/out"
verdict "avatar build reports the size of the file it wrote ($(wc -c <"$T/grace.imx") bytes)"
# A landmark file over the 16 MiB limit is refused before it is read; a portrait over 256 MiB likewise.
truncate -s 17M "$T/huge.landmarks.json"
fails_with 1 "more than the limit of 16777216" "a landmark JSON over 16 MiB is refused by its size" \
    avatar build "$SRC/grace_hopper.jpg" --landmarks "$T/huge.landmarks.json" -o "$T/huge.imx"
truncate -s 257M "$T/huge.jpg"
fails_with 1 "more than the limit of 268435456" "a portrait over 256 MiB is refused by its size" \
    avatar build "$T/huge.jpg" -o "$T/huge.imx"
rm -f "$T/huge.landmarks.json" "$T/huge.jpg"
run 0 avatar inspect "$T/grace.imx" && [ "$(portrait_size)" = "portrait 512x600" ] && grep -q "found in the portrait" "$T/out"
verdict "the avatar built from the found face is valid and keeps the portrait's 512x600"

run 0 avatar build "$SRC/astronaut.png" -o "$T/astro.imx" --size 1080x1920
run 0 avatar inspect "$T/astro.imx" && [ "$(portrait_size)" = "portrait 1080x1920" ] && grep -q "cropped to" "$T/out"
verdict "--size 1080x1920 crops a PNG portrait around the face to fill the canvas"

run 0 avatar build "$SRC/astronaut.png" -o "$T/astro-fit.imx" --size 640x360 --fit
run 0 avatar inspect "$T/astro-fit.imx" && [ "$(portrait_size)" = "portrait 640x360" ] && grep -q "placed whole" "$T/out"
verdict "--size 640x360 --fit places the whole portrait on the canvas"

fails_with 1 "2 faces found.*--face N" "two faces without --face are refused and listed" \
    avatar build "$FIX/two-faces.jpg" -o "$T/two.imx"
run 0 avatar build "$FIX/two-faces.jpg" -o "$T/two.imx" --face 2 --size 300x300
run 0 avatar inspect "$T/two.imx" && grep -q '"face": "face 2 of 2' "$T/out"
verdict "--face 2 builds the right-hand face"
fails_with 1 "no face 3" "--face 3 of two faces is refused" avatar build "$FIX/two-faces.jpg" -o "$T/x.imx" --face 3
fails_with 2 "not a face number" "--face 0 is a usage error" avatar build "$FIX/two-faces.jpg" -o "$T/x.imx" --face 0
fails_with 1 "no face found" "a portrait with no face is refused with a reason" avatar build "$FIX/no-face.png" -o "$T/x.imx"
check "nothing is written when no face is found" [ ! -e "$T/x.imx" ]

run 0 avatar detect "$FIX/two-faces.jpg" && grep -q "2 faces" "$T/out" && grep -q "face 2: box" "$T/out"
verdict "avatar detect lists both faces left to right"
run 0 avatar detect "$SRC/grace_hopper.jpg" --landmarks-out "$T/g.landmarks.json" --mesh-out "$T/g.mesh.json" --time 3 \
    && [ -s "$T/g.landmarks.json" ] && [ -s "$T/g.mesh.json" ] && grep -q "detection + landmarks" "$T/out"
verdict "avatar detect writes landmark and mesh JSON and times itself"
run 0 avatar build "$SRC/grace_hopper.jpg" --landmarks "$T/g.landmarks.json" --mesh "$T/g.mesh.json" -o "$T/g2.imx" \
    && [ -s "$T/g2.imx" ]
verdict "landmark and mesh JSON written by detect are read back by build --landmarks/--mesh"

mkdir -p "$T/models"
cp models/face_detection_short_range.tflite models/face_landmark.tflite "$T/models/"
printf '\001' | dd of="$T/models/face_landmark.tflite" bs=1 seek=5000 conv=notrunc 2>/dev/null
fails_with 1 "sha256.*differs" "a damaged model file is refused by its sha256" \
    avatar build "$SRC/grace_hopper.jpg" -o "$T/x.imx" --models "$T/models"
fails_with 1 "not found" "a missing model directory is named in the error" \
    avatar build "$SRC/grace_hopper.jpg" -o "$T/x.imx" --models "$T/nowhere"
ESSENCE2_MODELS="$T/models" "$BIN" avatar detect "$SRC/grace_hopper.jpg" >"$T/out" 2>"$T/err"
[ $? = 1 ] && grep -q "sha256" "$T/err"
verdict "ESSENCE2_MODELS is searched first"

# ---- JPEG EXIF orientation: eight fixtures that all display upright (tools/make_exif_fixtures.py) -----------
EXIF=$FIX/exif
run 0 avatar detect "$EXIF/orientation-1.jpg" --landmarks-out "$T/o1.json" \
    && grep -q ": 256x300, 1 face" "$T/out" && ! grep -q "EXIF" "$T/err" && upright "$T/o1.json"
verdict "EXIF orientation 1 is used as stored (256x300, no rotation reported) and its face is upright"
for n in 2 3 4 5 6 7 8; do
    run 0 avatar detect "$EXIF/orientation-$n.jpg" --landmarks-out "$T/o$n.json" \
        && grep -q ": 256x300, 1 face" "$T/out" && [ "$(grep -c "EXIF" "$T/err")" = 1 ] \
        && grep -q "^essence2: applied the JPEG's EXIF orientation $n (" "$T/err" \
        && upright "$T/o$n.json" && same_place "$T/o$n.json" "$T/o1.json" 3
    verdict "EXIF orientation $n is applied and said in one line: the face is upright, where orientation 1 has it (3 px)"
done
run 0 avatar build "$EXIF/orientation-6.jpg" -o "$T/o6.imx" \
    && grep -q "portrait 256x300" "$T/out" && grep -q "EXIF orientation 6 (rotated 90° clockwise)" "$T/err"
verdict "avatar build applies EXIF orientation 6 (rotated 90 degrees clockwise): the portrait is the upright 256x300"
run 0 avatar inspect "$T/o6.imx" && [ "$(portrait_size)" = "portrait 256x300" ]
verdict "the avatar built from the orientation-6 JPEG is valid and 256x300"
for bad in bad-offset truncated-ifd; do
    run 0 avatar detect "$EXIF/$bad.jpg" --landmarks-out "$T/$bad.json" \
        && grep -q ": 256x300, 1 face" "$T/out" && ! grep -q "EXIF" "$T/err" && same_place "$T/$bad.json" "$T/o1.json" 3
    verdict "a malformed EXIF block ($bad) is ignored: no crash, no rotation, the face where orientation 1 has it"
done

# ---- messages that say what to do --------------------------------------------------------------------------
fails_with 1 "image is 32x32 pixels.*at least 64x64.*use a larger photo" \
    "avatar detect refuses a 32x32 image as too small, naming the size that works" avatar detect "$FIX/tiny-32x32.png"
fails_with 1 "image is 32x32 pixels.*at least 64x64.*use a larger photo" \
    "avatar build refuses a 32x32 image as too small before loading the models" \
    avatar build "$FIX/tiny-32x32.png" -o "$T/tiny.imx" --models "$T/nowhere"
check "nothing is written for a too-small image" [ ! -e "$T/tiny.imx" ]
fails_with 1 "face is only 13 pixels across.*use a larger photo" \
    "a face too small for the landmark model is named as such, with what to do" avatar detect "$FIX/small-face-64x64.png"

fails_with 1 "the directory $T/no/such/dir does not exist" \
    "an -o in a missing directory names that directory, checked before any work (models not looked for)" \
    avatar build "$SRC/grace_hopper.jpg" -o "$T/no/such/dir/g.imx" --models "$T/nowhere"
! grep -q '\.tmp' "$T/err"
verdict "the missing-directory message names no temporary file"
fails_with 1 "the directory $T/no/such/dir does not exist" "avatar detect --landmarks-out in a missing directory names it" \
    avatar detect "$SRC/grace_hopper.jpg" --landmarks-out "$T/no/such/dir/g.json"
mkdir -p "$T/outdir"
fails_with 2 "is a directory" "an -o naming a directory is refused" avatar build "$SRC/grace_hopper.jpg" -o "$T/outdir"
check "no temporary file is left behind by refused outputs" [ -z "$(find "$T" -name '*.tmp*')" ]

warning="^essence2: warning: the portrait's face region (338x600 pixels) is enlarged 3.2 times to fill 1080x1920; "
run 0 avatar build "$SRC/grace_hopper.jpg" -o "$T/tall.imx" --size 1080x1920 && [ -s "$T/tall.imx" ] \
    && grep -q "$warning.*use a larger photo, or --fit" "$T/err"
verdict "--size 1080x1920 on the 512x600 portrait warns that its 338x600 face region is enlarged 3.2 times, and builds"
run 0 avatar build "$SRC/grace_hopper.jpg" -o "$T/tall-fit.imx" --size 1080x1920 --fit && [ -s "$T/tall-fit.imx" ] \
    && grep -q "^essence2: warning: the portrait (512x600 pixels) is enlarged 2.1 times to fit 1080x1920" "$T/err"
verdict "--size 1080x1920 --fit warns that the whole 512x600 portrait is enlarged 2.1 times, and builds"
run 0 avatar build "$SRC/grace_hopper.jpg" -o "$T/square.imx" --size 300x300 && [ -s "$T/square.imx" ] \
    && ! grep -q "warning" "$T/err"
verdict "--size 300x300 (the portrait shrunk) builds without a warning"

# avatar poses: still frames to look at an avatar closely.
run 0 avatar poses avatars/grace-hopper.imx --frames "$T/poses" && grep -q "wrote 11 poses (rest a e i o u m fv lth blink_half blink; 512x600)" "$T/out" \
    && [ "$(ls "$T/poses" | wc -l)" = 11 ] && [ "$(identify -format '%wx%h' "$T/poses/pose_a.png")" = 512x600 ]
verdict "avatar poses writes the 9 mouth shapes and 2 blinks as 512x600 PNGs"
check "the open 'a' differs from 'rest' in more than 500 pixels" \
    [ "$(compare -metric AE "$T/poses/pose_a.png" "$T/poses/pose_rest.png" null: 2>&1)" -gt 500 ]
run 0 avatar poses avatars/astronaut.imx --region mouth --frames "$T/mouth" && mouth=$(identify -format '%wx%h' "$T/mouth/pose_o.png") \
    && [ "${mouth%x*}" -lt 171 ] && [ "${mouth%x*}" -gt 20 ]
verdict "--region mouth crops around the mouth ($mouth of the 512x512 frame)"
run 0 avatar poses avatars/astronaut.imx --region face --idle 2 --frames "$T/idle" && [ "$(ls "$T/idle" | wc -l)" = 50 ] \
    && head=$(sed -n 's/.*(\([0-9]*x[0-9]*\)).*/\1/p' "$T/out") && [ "$(identify -format '%wx%h' "$T/idle/idle_00049.png")" = "$head" ] \
    && [ "$(compare -metric AE "$T/idle/idle_00000.png" "$T/idle/idle_00049.png" null: 2>&1)" -gt 0 ]
verdict "--idle 2 writes 50 idle frames of the head box ($head), which move"
fails_with 2 "--region" "--region elsewhere is refused" avatar poses avatars/astronaut.imx --region elsewhere --frames "$T/x"
fails_with 2 "--frames" "poses without --frames is refused" avatar poses avatars/astronaut.imx
fails_with 2 "--idle" "--idle -1 is refused" avatar poses avatars/astronaut.imx --idle -1 --frames "$T/x"
fails_with 4 "no-such" "a missing avatar is refused with its name" avatar poses "$T/no-such.imx" --frames "$T/x"
check "refused runs leave no frames directory" [ ! -e "$T/x" ]

echo "integration/cli/faces: $passed passed, $failed failed"
[ "$failed" = 0 ]
