#!/bin/sh
# Checks of character avatars (Expression 2) through the essence2 command: avatar build --character from a
# points file (the sample squirrel), its inspect and inspect --json (kind, size, rate, points in frame and
# source pixels), --size and --background, bad points files, render at 20 frames a second (frame count and
# rate read back from the MP4), --mode head, render --frames, engine export/inspect, a crafted rig, and the point
# finder: the sample squirrel, a clown (the network's points; its open mouth kept open), a face with filled closed
# lips (head2: built closed though the network reads them open), and a painted astronaut (a human face the network
# is unsure of: Face Mesh's points).
#
#   integration/cli/characters.sh PATH/TO/essence2
#
# Runs from the repository root (avatars/, examples/audio/demo.wav); writes only to a temporary directory.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH/TO/essence2" >&2; exit 2; fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 2
SRC=avatars/sources
DEMO=examples/audio/demo.wav
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-characters-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
. integration/cli/checks.sh
probe() { ffprobe -v error -select_streams "$2" -show_entries "stream=$3" -of default=nw=1:nk=1 "$1" | head -1; }
frames_of() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of default=nw=1:nk=1 "$1"; }
# json_point FILE SECTION NAME: "x y" of a point in inspect --json's "points" or "source_points".
json_point() {
    awk -v section="\"$2\":" -v name="\"$3\":" '
        index($0, section) { inside = 1; next }
        inside && /}/ { inside = 0 }
        inside && index($0, name) { gsub(/[\[\],]/, " "); print $2, $3; exit }' "$1"
}
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }

echo "essence2 character avatar checks ($BIN)"

# ---- build and inspect --------------------------------------------------------------------------------
run 0 avatar build $SRC/squirrel.png --character --points $SRC/squirrel.points.json -o "$T/sq.imx"
verdict "avatar build --character --points writes an avatar"
grep -q "character, 416x720 at 20 frames a second" "$T/out"
verdict "it reports a character, 416x720 at 20 frames a second"
run 0 avatar inspect "$T/sq.imx" && grep -q "kind: character, 20 frames a second" "$T/out" && grep -q "status: valid" "$T/out"
verdict "avatar inspect shows the kind and says valid"
run 0 avatar inspect --json "$T/sq.imx" && cp "$T/out" "$T/sq.json"
verdict "avatar inspect --json exits 0"
grep -q '"kind": "character"' "$T/sq.json" && grep -q '"width": 416' "$T/sq.json" && grep -q '"height": 720' "$T/sq.json" \
    && grep -q '"frames_per_second": 20' "$T/sq.json"
verdict "inspect --json: kind character, 416x720, 20 frames a second"
ok_points=1
for name in left_eye right_eye mouth_left mouth_right mouth_center; do
    [ -n "$(json_point "$T/sq.json" points $name)" ] && [ -n "$(json_point "$T/sq.json" source_points $name)" ] || ok_points=0
done
check "inspect --json names left_eye, right_eye, mouth_left, mouth_right, mouth_center in both pixel spaces" [ $ok_points = 1 ]
set -- $(json_point "$T/sq.json" source_points left_eye)
check "source_points give back the points file's left_eye (140, 127)" near "$1" 140 0.05
check "... its y" near "$2" 127 0.05
set -- $(json_point "$T/sq.json" points left_eye) $(json_point "$T/sq.json" points right_eye)
check "frame points keep the picture's left on the left" [ "$(awk -v a="$1" -v b="$3" 'BEGIN { print (a < b) }')" = 1 ]
run 0 avatar inspect --json avatars/grace-hopper.imx && grep -q '"kind": "photoreal"' "$T/out" \
    && grep -q '"frames_per_second": 25' "$T/out" && grep -q '"mouth_center"' "$T/out"
verdict "inspect --json of a photoreal avatar: kind photoreal, 25 frames a second, its points"
run 4 avatar inspect --json "$T/missing.imx" && grep -q '"valid": false' "$T/out"
verdict "inspect --json of a missing file: valid false, exit 4"

run 0 avatar build $SRC/squirrel.png --character --points $SRC/squirrel.points.json --size 480x640 --background '#204060' \
    -o "$T/sized.imx" && run 0 avatar inspect --json "$T/sized.imx" && grep -q '"width": 480' "$T/out" && grep -q '"height": 640' "$T/out"
verdict "--size 480x640 --background #204060 builds a 480x640 character"

# ---- the point finder ---------------------------------------------------------------------------------------
"$BIN" avatar build $SRC/squirrel.png --character -o "$T/auto.imx" >"$T/out" 2>"$T/err"; status=$?
if [ $status = 0 ]; then
    ok "avatar build --character without points finds them (exit 0)"
elif [ $status = 7 ] && grep -q "essence2 avatar rig" "$T/err" && [ -s "$T/auto.imx" ]; then
    ok "avatar build --character without points: not sure, writes its best guess, names the rig editor (exit 7)"
else
    bad "avatar build --character without points: exit $status"
fi
run 0 avatar inspect "$T/auto.imx"
verdict "the found avatar is valid"
# A clown (a human-like character): within a quarter of the eye distance of the hand labels
# (avatars/characters/labels.json: eyes (255,177) (317,179), mouth (250,240) (308,243) (278,253)).
run 0 avatar build integration/cli/fixtures/clown.png --character -o "$T/clown.imx"
verdict "avatar build --character of a clown finds its points (exit 0)"
run 0 avatar inspect --json "$T/clown.imx" && cp "$T/out" "$T/clown.json"
worst=$(for pair in "left_eye 255 177" "right_eye 317 179" "mouth_left 250 240" "mouth_right 308 243" "mouth_center 278 253"; do
    set -- $pair; p=$(json_point "$T/clown.json" source_points "$1")
    echo "$p $2 $3" | awk '{ d = sqrt(($1 - $3) ^ 2 + ($2 - $4) ^ 2) / sqrt(62 ^ 2 + 2 ^ 2); print d }'
done | sort -g | tail -1)
check "every eye and mouth point within 0.25 eye distances of the labels (worst $worst)" \
    awk -v w="${worst:-9}" 'BEGIN { exit !(w <= 0.25) }'

check "the clown's mouth, drawn open, is built open" grep -q '"mouth": "open"' "$T/clown.json"
# Filled closed lips (head2 of the development characters): the network reads them as open, the picture shows no
# opening between them, so the avatar's mouth is closed (built open, its lips would be painted over at rest).
run 0 avatar build integration/cli/fixtures/head2.png --character -o "$T/head2.imx"
verdict "avatar build --character of a face with filled lips finds its points (exit 0)"
run 0 avatar inspect --json "$T/head2.imx"
check "its mouth, filled lips closed, is built closed" grep -q '"mouth": "closed"' "$T/out"

# A human face the network is unsure of (the painted astronaut): Face Mesh's points, within a quarter of the eye
# distance of MediaPipe's own landmarks (avatars/sources/astronaut.landmarks.json: irises (203.5,101.1)
# (246.6,103.5), mouth corners (201.8,139.2) (245.0,141.0)).
run 0 avatar build $SRC/astronaut.png --character -o "$T/astronaut.imx"
verdict "avatar build --character of a painted face finds its points (exit 0)"
run 0 avatar inspect --json "$T/astronaut.imx" && cp "$T/out" "$T/astronaut.json"
run 0 avatar inspect "$T/astronaut.imx" && grep -q "found by MediaPipe Face Mesh" "$T/out"
verdict "its points come from Face Mesh (the avatar's info says so)"
worst=$(for pair in "left_eye 203.5 101.1" "right_eye 246.6 103.5" "mouth_left 201.8 139.2" "mouth_right 245.0 141.0"; do
    set -- $pair; p=$(json_point "$T/astronaut.json" source_points "$1")
    echo "$p $2 $3" | awk '{ d = sqrt(($1 - $3) ^ 2 + ($2 - $4) ^ 2) / sqrt(43.1 ^ 2 + 2.4 ^ 2); print d }'
done | sort -g | tail -1)
check "every eye and mouth point within 0.25 eye distances of MediaPipe's (worst $worst)" \
    awk -v w="${worst:-9}" 'BEGIN { exit !(w <= 0.25) }'

# ---- bad points -------------------------------------------------------------------------------------------
printf '{"left_eye": [10, 10], "mouth": "closed"}' > "$T/short.json"
fails_with 2 "right_eye" "a points file without right_eye is refused, naming it" \
    avatar build $SRC/squirrel.png --character --points "$T/short.json" -o "$T/bad.imx"
sed 's/"left_eye": \[140, 127\]/"left_eye": [99999, 127]/' $SRC/squirrel.points.json > "$T/outside.json"
fails_with 2 "outside" "a point outside the picture is refused" \
    avatar build $SRC/squirrel.png --character --points "$T/outside.json" -o "$T/bad.imx"
sed 's/"mouth": "open"/"mouth": "singing"/' $SRC/squirrel.points.json > "$T/style.json"
fails_with 2 "mouth" "an unknown mouth style is refused" \
    avatar build $SRC/squirrel.png --character --points "$T/style.json" -o "$T/bad.imx"
printf 'not json' > "$T/garbage.json"
fails_with 2 "JSON" "a points file that is not JSON is refused" \
    avatar build $SRC/squirrel.png --character --points "$T/garbage.json" -o "$T/bad.imx"
check "nothing is written for refused points" [ ! -e "$T/bad.imx" ]
fails_with 2 "character" "--background without --character is a usage error" \
    avatar build avatars/sources/grace_hopper.jpg --background '#000000' -o "$T/bad.imx"

# ---- render -----------------------------------------------------------------------------------------------
run 0 render $DEMO --avatar "$T/sq.imx" -o "$T/sq.mp4" --frames "$T/frames"
verdict "render with a character avatar exits 0"
check "the MP4 is 416 wide" [ "$(probe "$T/sq.mp4" v:0 width)" = 416 ]
check "... and 720 high" [ "$(probe "$T/sq.mp4" v:0 height)" = 720 ]
check "... at 20 frames a second" [ "$(probe "$T/sq.mp4" v:0 r_frame_rate)" = 20/1 ]
# demo.wav: 133680 samples = 168 frames of 800 samples, and 5 frames easing to rest.
check "... with 173 frames (168 speech of 800 samples, 5 easing to rest)" [ "$(frames_of "$T/sq.mp4")" = 173 ]
check "render --frames writes the 173 frames as PNG" [ "$(ls "$T/frames" | wc -l)" = 173 ]
run 0 render $DEMO --avatar "$T/sq.imx" -o "$T/head.mp4" --mode head
verdict "render --mode head with a character exits 0"
check "head mode is square" [ "$(probe "$T/head.mp4" v:0 width)" = "$(probe "$T/head.mp4" v:0 height)" ]
run 0 render $DEMO --avatar "$T/sq.imx" -o "$T/sq.y4m"
verdict "render to .y4m with a character exits 0"
check "the .y4m stream says 20 frames a second" [ "$(head -c 64 "$T/sq.y4m" | grep -c 'F20:1')" = 1 ]

# ---- the shared engine container --------------------------------------------------------------------------
run 0 engine export -o "$T/shared.engine" && run 0 engine inspect "$T/shared.engine" && grep -q "valid shared engine container" "$T/out"
verdict "engine export writes a container that engine inspect checks"
fails_with 4 "INVALID" "engine inspect of an avatar says it is not a container" engine inspect "$T/sq.imx"

# ---- a crafted rig: valid checksums, a point far outside the frame ---------------------------------------
python3 - "$T/sq.imx" "$T/crafted.imx" <<'PY'
import hashlib, struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
count = struct.unpack_from("<I", data, 12)[0]
sections = []
for i in range(count):
    e = 64 + 80 * i
    name = data[e:e + 16].rstrip(b"\0").decode()
    enc, _, off, stored, length = struct.unpack_from("<IIQQQ", data, e + 16)
    sections.append([name, enc, bytes(data[off:off + stored]), length])
for s in sections:
    if s[0] == "rig":
        s[2] = s[2].replace(b'"mouth_left": [', b'"mouth_left": [-9e15, 1], "x": [', 1)
        s[3] = len(s[2])
table_end = 64 + 80 * len(sections)
out = bytearray(data[:64])
table = bytearray()
offset = table_end
for name, enc, body, length in sections:
    table += name.encode().ljust(16, b"\0") + struct.pack("<IIQQQ", enc, 0, offset, len(body), length) + hashlib.sha256(body).digest()
    offset += len(body)
struct.pack_into("<Q", out, 16, offset)
out[32:64] = hashlib.sha256(bytes(out[:32]) + bytes(table)).digest()
open(sys.argv[2], "wb").write(bytes(out + table + b"".join(s[2] for s in sections)))
PY
fails_with 4 "outside" "render of a crafted character (valid checksums, a point far outside) is refused" \
    render $DEMO --avatar "$T/crafted.imx" -o "$T/crafted.mp4"
run 4 avatar inspect "$T/crafted.imx" && grep -q "INVALID" "$T/out"
verdict "avatar inspect says INVALID for it, exit 4"

# ---- pictures and rigs too large for a character ----------------------------------------------------------
python3 - "$T/huge.png" <<'PY'
import struct, sys, zlib
w = h = 8192
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
raw = zlib.compress((b"\0" + b"\xff" * (w * 4)) * h, 9)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
                             + chunk(b"IDAT", raw) + chunk(b"IEND", b""))
PY
fails_with 1 "more than 16777216 pixels" "an 8192x8192 picture is refused from its header (a character's picture: at most 4096x4096)" \
    avatar build "$T/huge.png" --character -o "$T/huge.imx"
fails_with 1 "3072x3072" "a character frame over 3072x3072 is refused with the reason" \
    avatar build $SRC/squirrel.png --character --points $SRC/squirrel.points.json --size 4096x4096 -o "$T/big.imx"

# ---- characters as they are drawn -------------------------------------------------------------------
# Every build of the 14 development pictures the command is sure of, and every build from the hand labels: the
# rest frame is the picture, a full blink keeps 0.15 of the open eye box's contrast and leaves none of the eye's
# white or iris, the mouth's motion is centred within 0.6 eye distances of its point, nothing outside the head
# changes (tools/character_look.sh, avatar inspect --look).
tools/character_look.sh "$BIN" avatars/characters/pictures avatars/characters/labels.json "$T/look.jsonl" 2>"$T/look.err"
verdict "tools/character_look.sh builds and measures the 14 pictures"
python3 - "$T/look.jsonl" >"$T/look.out" 2>&1 <<'PY'
import json, sys
bad = []
for line in open(sys.argv[1]):
    build = json.loads(line)
    if not build["sure"]:
        continue
    look, name = build["look"], "%s (%s)" % (build["picture"], build["build"])
    if look["rest_differing"]:
        bad.append("%s: the rest frame differs from the picture in %d pixels" % (name, look["rest_differing"]))
    for side, eye in zip(("left", "right"), look["eyes"]):
        if eye["drawing"] == "open" and (eye["closed_contrast"] < 0.15 or eye["eye_left"]):
            bad.append("%s: %s eye closed contrast %.2f, %d eye pixels left" % (name, side, eye["closed_contrast"], eye["eye_left"]))
    if look["motion_centre"] > 0.6 or look["outside_head"]:
        bad.append("%s: motion centred %.2f away, %d pixels outside the head" % (name, look["motion_centre"], look["outside_head"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
verdict "sure and labelled builds of the 14: rest is the picture, blinks close to a lid line, the mouth moves at the mouth"     || cat "$T/look.out"

echo "characters: $passed passed, $failed failed"
[ "$failed" = 0 ]
