#!/bin/sh
# Checks of `essence2 avatar build` and `essence2 avatar detect` finding the face themselves: no landmark
# file, JPEG and PNG, --size (crop) and --fit, --face N with two faces, no face, a detected-landmarks
# round trip through --landmarks/--mesh, and damaged or missing model files.
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
passed=0; failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -s "$T/err" ] && sed 's/^/     | /' "$T/err" | head -8; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else bad "$desc"; fi; }
run() { want=$1; shift; "$BIN" "$@" >"$T/out" 2>"$T/err"; status=$?; [ "$status" = "$want" ]; }
# fails_with STATUS PATTERN DESC ARGS...
fails_with() {
    want=$1; pattern=$2; desc=$3; shift 3
    if run "$want" "$@" && grep -qi -- "$pattern" "$T/err"; then ok "$desc (exit $want)"
    else bad "$desc: want exit $want and a message matching '$pattern', got exit $status"; fi
}
portrait_size() { grep -o 'portrait [0-9]*x[0-9]*' "$T/out" | head -1; }

run 0 avatar build "$SRC/grace_hopper.jpg" -o "$T/grace.imx"
check "avatar build finds the face in a JPEG portrait without a landmark file" [ $? = 0 ] && [ -s "$T/grace.imx" ]
run 0 avatar inspect "$T/grace.imx"
check "the avatar built from the found face is valid and keeps the portrait's 512x600" \
    [ $? = 0 ] && [ "$(portrait_size)" = "portrait 512x600" ] && grep -q "found in the portrait" "$T/out"

run 0 avatar build "$SRC/astronaut.png" -o "$T/astro.imx" --size 1080x1920
run 0 avatar inspect "$T/astro.imx"
check "--size 1080x1920 crops a PNG portrait around the face to fill the canvas" \
    [ $? = 0 ] && [ "$(portrait_size)" = "portrait 1080x1920" ] && grep -q "cropped to" "$T/out"

run 0 avatar build "$SRC/astronaut.png" -o "$T/astro-fit.imx" --size 640x360 --fit
run 0 avatar inspect "$T/astro-fit.imx"
check "--size 640x360 --fit places the whole portrait on the canvas" \
    [ $? = 0 ] && [ "$(portrait_size)" = "portrait 640x360" ] && grep -q "placed whole" "$T/out"

fails_with 1 "2 faces found.*--face N" "two faces without --face are refused and listed" \
    avatar build "$FIX/two-faces.jpg" -o "$T/two.imx"
run 0 avatar build "$FIX/two-faces.jpg" -o "$T/two.imx" --face 2 --size 300x300
run 0 avatar inspect "$T/two.imx"
check "--face 2 builds the right-hand face" [ $? = 0 ] && grep -q '"face": "face 2 of 2' "$T/out"
fails_with 1 "no face 3" "--face 3 of two faces is refused" avatar build "$FIX/two-faces.jpg" -o "$T/x.imx" --face 3
fails_with 2 "not a face number" "--face 0 is a usage error" avatar build "$FIX/two-faces.jpg" -o "$T/x.imx" --face 0
fails_with 1 "no face found" "a portrait with no face is refused with a reason" avatar build "$FIX/no-face.png" -o "$T/x.imx"
check "nothing is written when no face is found" [ ! -e "$T/x.imx" ]

run 0 avatar detect "$FIX/two-faces.jpg"
check "avatar detect lists both faces left to right" [ $? = 0 ] && grep -q "2 faces" "$T/out" && grep -q "face 2: box" "$T/out"
run 0 avatar detect "$SRC/grace_hopper.jpg" --landmarks-out "$T/g.landmarks.json" --mesh-out "$T/g.mesh.json" --time 3
check "avatar detect writes landmark and mesh JSON and times itself" \
    [ $? = 0 ] && [ -s "$T/g.landmarks.json" ] && [ -s "$T/g.mesh.json" ] && grep -q "detection + landmarks" "$T/out"
run 0 avatar build "$SRC/grace_hopper.jpg" --landmarks "$T/g.landmarks.json" --mesh "$T/g.mesh.json" -o "$T/g2.imx"
check "landmark and mesh JSON written by detect are read back by build --landmarks/--mesh" [ $? = 0 ] && [ -s "$T/g2.imx" ]

mkdir -p "$T/models"
cp models/face_detection_short_range.tflite models/face_landmark.tflite "$T/models/"
printf '\001' | dd of="$T/models/face_landmark.tflite" bs=1 seek=5000 conv=notrunc 2>/dev/null
fails_with 1 "sha256.*differs" "a damaged model file is refused by its sha256" \
    avatar build "$SRC/grace_hopper.jpg" -o "$T/x.imx" --models "$T/models"
fails_with 1 "not found" "a missing model directory is named in the error" \
    avatar build "$SRC/grace_hopper.jpg" -o "$T/x.imx" --models "$T/nowhere"
ESSENCE2_MODELS="$T/models" "$BIN" avatar detect "$SRC/grace_hopper.jpg" >"$T/out" 2>"$T/err"
check "ESSENCE2_MODELS is searched first" [ $? = 1 ] && grep -q "sha256" "$T/err"

echo "integration/cli/faces: $passed passed, $failed failed"
[ "$failed" = 0 ]
