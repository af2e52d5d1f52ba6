#!/bin/sh
# Checks of `essence2 avatar rig` as a user runs it: --points builds a valid character avatar at once (the same
# rig and frame as `avatar build --character --points`), bad command lines and points files are refused, and the
# editor's server (no --points) answers its page, refuses requests without the run's token, with another Host
# or Origin (403), bad JSON (400, with the reason), an oversized body (413), a client that sends too slowly
# (408, and the server answers the next one), twenty clients trickling a byte a second beside a normal request
# (answered within a second), the exact 16 KB head limit (16384 bytes read, 16385 refused with 431), saves X.imx and X.points.json and exits 0, and ends on Ctrl-C
# (exit 130, nothing written). The page itself in a browser: integration/rig/test_page.py.
#
#   integration/rig/run.sh PATH/TO/essence2
#
# Needs python3 (the test character, integration/rig/make_character.py, and a slow client) and curl. Writes
# only to a temporary directory.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH/TO/essence2" >&2; exit 2; fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 2
for tool in python3 curl; do
    command -v $tool >/dev/null 2>&1 || { echo "integration/rig: $tool is needed" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-rig-test.XXXXXX") || exit 2
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
. integration/cli/checks.sh

echo "essence2 avatar rig checks ($BIN)"
python3 integration/rig/make_character.py "$T/bear.png" --points "$T/bear.points.json" || exit 2
# section NAME FILE: the sha256 `avatar inspect` lists for that section.
section() { "$BIN" avatar inspect "$2" | awk -v s="$1" '$1 == s { print $6 }'; }

# ---- help and command line ------------------------------------------------------------------------------
run 0 avatar --help && grep -q "essence2 avatar rig PICTURE" "$T/out" && grep -q -- "--points FILE.json" "$T/out"
verdict "avatar --help describes rig"
run 0 --help && grep -q "build|detect|inspect|get|rig" "$T/out"
verdict "essence2 --help lists avatar rig"
fails_with 2 "a picture is required" "rig without a picture" avatar rig
fails_with 2 "--port is for the editor" "--port goes with the editor, not --points" \
    avatar rig "$T/bear.png" --points "$T/bear.points.json" --port 8080 -o "$T/x.imx"
fails_with 2 "not a port number" "--port 70000" avatar rig "$T/bear.png" --port 70000 -o "$T/x.imx"
fails_with 2 "not an IPv4 address" "--host nonsense" avatar rig "$T/bear.png" --host nonsense -o "$T/x.imx"
fails_with 2 "unknown option" "an unknown option" avatar rig "$T/bear.png" --frobnicate

# ---- --points: the avatar at once -----------------------------------------------------------------------
run 0 avatar rig "$T/bear.png" --points "$T/bear.points.json" -o "$T/bear.imx" && grep -q "^wrote $T/bear.imx: bear, character" "$T/out"
verdict "rig --points writes the avatar and says so"
run 0 avatar inspect "$T/bear.imx" && grep -q '"kind": "character"' "$T/out" && grep -q '"builder": "essence2 avatar rig --points"' "$T/out"
verdict "avatar inspect reads it: a valid character avatar"
run 0 avatar build "$T/bear.png" --character --points "$T/bear.points.json" -o "$T/built.imx"
check "avatar build --character --points builds the same picture" [ $? = 0 ]
check "rig --points and build --character --points make the same rig and frame" \
    [ -n "$(section rig "$T/bear.imx")" ] && [ "$(section rig "$T/bear.imx")/$(section image "$T/bear.imx")" = "$(section rig "$T/built.imx")/$(section image "$T/built.imx")" ]
run 0 avatar build "$T/bear.png" --character --points "$T/bear.points.json" -o "$T/saved.imx" --save-points "$T/saved.json" &&
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$T/saved.json" "$T/bear.points.json"
verdict "build --character --save-points (the shared build) writes the points it used"
run 0 avatar rig "$T/bear.png" --points "$T/bear.points.json" -o "$T/big.imx" --size 300x400 --background '#204060' --name Bruno &&
    "$BIN" avatar inspect "$T/big.imx" | grep -q '"name": "Bruno"' && "$BIN" avatar inspect "$T/big.imx" | grep -q "portrait 300x400"
verdict "--size, --background and --name are used"
sed 's/"mouth": "closed"/"mouth": "wide"/' "$T/bear.points.json" > "$T/badmouth.json"
fails_with 2 '"mouth" is not' "a points file with a bad mouth style" avatar rig "$T/bear.png" --points "$T/badmouth.json" -o "$T/bad.imx"
check "nothing written for bad points" [ ! -e "$T/bad.imx" ]
printf '{"left_eye": [90, 105],' > "$T/broken.json"
fails_with 2 "invalid JSON" "a points file that is not JSON" avatar rig "$T/bear.png" --points "$T/broken.json" -o "$T/bad.imx"
fails_with 2 "outside the 240x240 picture" "a point outside the picture" avatar rig "$T/bear.png" \
    --points "$(sed 's/\[90.0, 105.0\]/[900, 105]/' "$T/bear.points.json" > "$T/out.json"; echo "$T/out.json")" -o "$T/bad.imx"

# ---- the editor's server --------------------------------------------------------------------------------
# start_editor ARGS...: runs the editor in the background ($SERVER), its output in $T/server.out and .err; sets
# URL, PORT and TOKEN from the address it prints.
start_editor() {
    "$BIN" avatar rig "$T/bear.png" "$@" >"$T/server.out" 2>"$T/server.err" &
    SERVER=$!
    i=0
    while [ $i -lt 100 ] && ! grep -q "http://" "$T/server.out"; do sleep 0.1; i=$((i + 1)); done
    URL=$(grep -o 'http://[^ ]*' "$T/server.out" | head -1)
    PORT=$(echo "$URL" | sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/?token=[0-9a-f]*$|\1|p')
    TOKEN=${URL##*token=}
}
# http WANT DESC CURL-ARGS...: a request whose status must be WANT; the answer's body in $T/body.
http() {
    want=$1; desc=$2; shift 2
    got=$(curl -s -m 20 -o "$T/body" -w '%{http_code}' "$@")
    if [ "$got" = "$want" ]; then ok "$desc ($want)"; else bad "$desc: want $want, got $got: $(head -c 200 "$T/body")"; fi
}
start_editor -o "$T/edited.imx" --port 0
check "the editor prints http://127.0.0.1:PORT/?token=TOKEN (got '$URL')" [ -n "$PORT" ] && [ "$PORT" != 0 ] && [ ${#TOKEN} = 32 ]
B="http://127.0.0.1:$PORT"
H="X-Essence2-Token: $TOKEN"
http 200 "the page with the token" "$URL"
grep -q "essence2 rig editor" "$T/body" && ! grep -Eqi '(src|href)="?(https?:)?//' "$T/body"
verdict "the page is self-contained (no outside addresses)"
http 200 "the page at localhost:PORT" "http://localhost:$PORT/?token=$TOKEN"
http 403 "no token" "$B/"
http 403 "a wrong token" "$B/?token=0123456789abcdef0123456789abcdef"
http 403 "no token on a POST" --data-binary @"$T/bear.points.json" "$B/preview"
http 403 "another Host (DNS rebinding)" -H "Host: attacker.example:$PORT" "$URL"
http 403 "another port in Host" -H "Host: 127.0.0.1:1" "$URL"
http 403 "another Origin" -H "$H" -H "Origin: http://attacker.example" --data-binary @"$T/bear.points.json" "$B/save"
http 403 "Origin null" -H "$H" -H "Origin: null" --data-binary @"$T/bear.points.json" "$B/preview"
http 200 "the page's own Origin" -H "$H" -H "Origin: http://127.0.0.1:$PORT" "$B/state"
# Without a point finder's proposal the editor starts from its default layout.
grep -q '"width":240,"height":240' "$T/body" && { ! grep -q "default layout" "$T/body" ||
    { grep -q '"left_eye": \[84.0, 96.0\]' "$T/body" && grep -q '"mouth": "closed"' "$T/body"; }; }
verdict "the starting points: the picture's size, and the default layout when nothing was proposed"
http 200 "the picture" -H "$H" "$B/picture"
check "the picture is a PNG" [ "$(head -c 4 "$T/body" | od -An -c | tr -d ' ')" = "211PNG" ]
http 400 "bad JSON" -H "$H" --data-binary '{"left_eye": [90, ' "$B/preview"
grep -q "invalid JSON" "$T/body"
verdict "bad JSON: the answer says why"
http 400 "a point outside the picture" -H "$H" --data-binary @"$T/out.json" "$B/preview"
grep -q "outside the 240x240 picture" "$T/body"
verdict "a point outside: the answer says which"
http 400 "no body" -H "$H" -X POST "$B/save"
http 400 "jaw out of range" -H "$H" --data-binary "$(sed 's/"mouth":/"jaw": 7, "mouth":/' "$T/bear.points.json")" "$B/preview"
head -c 70000 /dev/zero | tr '\0' ' ' > "$T/big.json"
http 413 "a body over 64 KB" -H "$H" --data-binary @"$T/big.json" "$B/preview"
http 404 "an unknown path" -H "$H" "$B/etc/passwd"
http 405 "GET /save" -H "$H" "$B/save"
http 200 "a preview" -H "$H" --data-binary @"$T/bear.points.json" "$B/preview"
check "the preview is a PNG" [ "$(head -c 4 "$T/body" | od -An -c | tr -d ' ')" = "211PNG" ]
# A client that sends half a head and waits: 408 after the header timeout; the server answers the next one.
python3 - "$PORT" >"$T/slow" 2>&1 <<'PY' &
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:" + sys.argv[1].encode() + b"\r\n")
s.settimeout(30)
print(s.recv(100).decode("latin-1").split("\r\n")[0])
PY
SLOW=$!
sleep 0.5
http 200 "a request behind a slow client is answered" -H "$H" "$B/state"
wait $SLOW
check "the slow client gets 408 ($(cat "$T/slow"))" grep -q "^HTTP/1.1 408" "$T/slow"
# Twenty local connections trickling a byte a second, without the token: a normal request is answered within a
# second beside them (connections are served side by side).
python3 - "$PORT" >"$T/trickle" 2>&1 <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
for byte in b"GET /state HTTP/1.1\r\n":
    for s in socks:
        try:
            s.sendall(bytes([byte]))
        except OSError:
            pass
    time.sleep(1)
PY
TRICKLE=$!
sleep 1
start=$(date +%s%N)
http 200 "a request beside 20 slow connections is answered" -H "$H" "$B/state"
took=$(( ($(date +%s%N) - start) / 1000000 ))
check "within a second of 20 slow connections (took $took ms)" [ "$took" -lt 1000 ]
kill $TRICKLE 2>/dev/null; wait $TRICKLE 2>/dev/null
# The head limit is exact: a head of 16384 bytes, its blank line included, is read (and here refused for want
# of the token: 403); one of 16385 is too large (431).
for size in 16384 16385; do
    python3 - "$PORT" "$size" >"$T/head$size" 2>&1 <<'PY'
import socket, sys
port, size = int(sys.argv[1]), int(sys.argv[2])
start = b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Pad: " % port
head = start + b"a" * (size - len(start) - 4) + b"\r\n\r\n"
assert len(head) == size
s = socket.create_connection(("127.0.0.1", port))
s.sendall(head)
s.settimeout(10)
print(s.recv(100).decode("latin-1").split("\r\n")[0])
PY
done
check "a 16384-byte head is read ($(cat "$T/head16384"))" grep -q "^HTTP/1.1 403" "$T/head16384"
check "a 16385-byte head is refused ($(cat "$T/head16385"))" grep -q "^HTTP/1.1 431" "$T/head16385"
check "the editor still runs after the bad requests" kill -0 "$SERVER"
sed 's/\[90.0, 105.0\]/[92.5, 101.25]/; s/"closed"/"open"/' "$T/bear.points.json" > "$T/moved.json"
http 200 "Save" -H "$H" -H "Origin: http://127.0.0.1:$PORT" --data-binary @"$T/moved.json" "$B/save"
wait "$SERVER"; status=$?; SERVER=""
check "after Save the editor exits 0 (got $status)" [ "$status" = 0 ]
grep -q "^wrote $T/edited.imx: bear, character" "$T/server.out" && grep -q "^wrote $T/edited.points.json" "$T/server.out"
verdict "the editor says what it wrote"
"$BIN" avatar inspect "$T/edited.imx" >/dev/null 2>&1
check "the saved avatar is valid" [ $? = 0 ]
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); sys.exit(not (p["left_eye"] == [92.5, 101.25] and p["mouth"] == "open"))' "$T/edited.points.json"
check "the saved points are the ones sent" [ $? = 0 ]
run 0 avatar rig "$T/bear.png" --points "$T/edited.points.json" -o "$T/rebuilt.imx"
check "the saved avatar's rig is what its points file builds" [ "$(section rig "$T/edited.imx")" = "$(section rig "$T/rebuilt.imx")" ]

# ---- Ctrl-C ---------------------------------------------------------------------------------------------
start_editor -o "$T/interrupted.imx"
kill -INT "$SERVER"; wait "$SERVER"; status=$?; SERVER=""
check "Ctrl-C ends the editor with exit 130 (got $status) and writes nothing" \
    [ "$status" = 130 ] && [ ! -e "$T/interrupted.imx" ] && [ ! -e "$T/interrupted.points.json" ]
grep -q "stopped; nothing saved" "$T/server.err"
verdict "Ctrl-C: the editor says it stopped"

echo "avatar rig: $passed passed, $failed failed"
[ "$failed" = 0 ]
