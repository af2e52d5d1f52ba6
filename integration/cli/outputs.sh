#!/bin/sh
# Checks of what `essence2 render` leaves on disk and says, as a user meets it: an output appears only when
# complete (an existing file stays until then, also after kill -9, and nothing large is left in $TMPDIR), an
# interrupted --frames render takes its PNGs back, the video carries the speech file's own audio (rate,
# channels), progress says elapsed time and time left (a plain line when not on a terminal), --quiet, the
# containers render writes, and messages that say what happened and what to do.
#
#   integration/cli/outputs.sh PATH/TO/essence2
#
# Needs ffmpeg and ffprobe. Runs from the repository root; writes only to a temporary directory.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH/TO/essence2" >&2; exit 2; fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 2
AVATAR=avatars/grace-hopper.imx
DEMO=examples/audio/demo.wav
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-outputs-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
. integration/cli/checks.sh
probe() { ffprobe -v error -select_streams "$2" -show_entries "stream=$3" -of default=nw=1:nk=1 "$1" | head -1; }
# Files in a directory other than the ones named (one per line in $2).
others() { ls -A "$1" | grep -vxF -f "$2"; }

echo "essence2 render output checks ($BIN)"
mkdir -p "$T/work" "$T/tmp"
ffmpeg -v error -y -i "$DEMO" -ar 44100 -ac 2 -c:a pcm_s16le "$T/work/s44.wav"
# About 50 s of speech: long enough to interrupt.
for i in 1 2 3 4 5 6; do echo "file '$PWD/$DEMO'"; done >"$T/list.txt"
ffmpeg -v error -y -f concat -safe 0 -i "$T/list.txt" -c copy "$T/work/long.wav"

# ---- the MP4 carries the speech file's own audio -----------------------------------------------------
run 0 render "$T/work/s44.wav" --avatar "$AVATAR" -o "$T/work/keep.mp4"
check "render of a 44.1 kHz stereo WAV exits 0" [ $? = 0 ]
check "the MP4's audio keeps 44100 Hz" [ "$(probe "$T/work/keep.mp4" a:0 sample_rate)" = 44100 ]
check "the MP4's audio keeps 2 channels" [ "$(probe "$T/work/keep.mp4" a:0 channels)" = 2 ]
rate=$(probe "$T/work/keep.mp4" a:0 bit_rate)
check "the MP4's AAC is at least 160 kbit/s for stereo ($rate)" [ "${rate:-0}" -ge 160000 ]
printf 'keep.mp4\ns44.wav\nlong.wav\n' >"$T/names"
check "render leaves nothing else in the output directory" [ -z "$(others "$T/work" "$T/names")" ]
cp "$T/work/keep.mp4" "$T/keep.orig"

# ---- progress and --quiet --------------------------------------------------------------------------------
check "progress on a non-terminal is a plain line with elapsed time, time left and speed" \
    grep -Eq "^render: +100%  [0-9]+/[0-9]+ frames  [0-9]+:[0-9][0-9] elapsed, 0:00 left  [0-9.]+x real time$" "$T/err"
run 0 render "$T/work/s44.wav" --avatar "$AVATAR" -o "$T/work/quiet.mp4" --quiet
[ ! -s "$T/out" ] && [ ! -s "$T/err" ] && [ -s "$T/work/quiet.mp4" ]
verdict "--quiet prints nothing on success"
rm -f "$T/work/quiet.mp4"

# ---- kill -9 in the middle: the old file is intact, nothing finished-looking, nothing large left ---------
TMPDIR="$T/tmp" "$BIN" render "$T/work/long.wav" --avatar "$AVATAR" -o "$T/work/keep.mp4" >/dev/null 2>&1 &
pid=$!
sleep 2
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
sleep 1  # ffmpeg sees the end of its input and exits; its anonymous output file goes with it
check "after kill -9 mid-render the existing keep.mp4 is byte for byte the old one" cmp -s "$T/work/keep.mp4" "$T/keep.orig"
check "after kill -9 no other file is left beside it" [ -z "$(others "$T/work" "$T/names")" ]
check "after kill -9 nothing is left in TMPDIR" [ -z "$(ls -A "$T/tmp")" ]

# ---- SIGINT: the render stops, removes what it wrote, the old file stays ---------------------------------
mkdir -p "$T/work/frames"
"$BIN" render "$T/work/long.wav" --avatar "$AVATAR" -o "$T/work/keep.mp4" --frames "$T/work/frames" >/dev/null 2>"$T/err" &
pid=$!
sleep 2
kill -INT $pid; wait $pid; status=$?
check "Ctrl-C (SIGINT) stops the render with status 130" [ "$status" = 130 ]
check "an interrupted render says it removed its partial output" grep -q "interrupted; partial output removed" "$T/err"
check "an interrupted --frames render removes the PNGs it wrote" [ -z "$(ls -A "$T/work/frames")" ]
check "an interrupted render leaves the existing keep.mp4 as it was" cmp -s "$T/work/keep.mp4" "$T/keep.orig"
rmdir "$T/work/frames"
check "an interrupted render leaves no other file" [ -z "$(others "$T/work" "$T/names")" ]
"$BIN" render "$T/work/long.wav" --avatar "$AVATAR" -o "$T/work/new.y4m" --frames "$T/work/newframes" >/dev/null 2>&1 &
pid=$!
sleep 2
kill -TERM $pid; wait $pid
[ ! -e "$T/work/newframes" ] && [ ! -e "$T/work/new.y4m" ] && [ ! -e "$T/work/new.wav" ]
verdict "an interrupted render removes the --frames directory it created, and writes no .y4m or .wav"

# ---- a finished render replaces the old file --------------------------------------------------------------
run 0 render "$DEMO" --avatar "$AVATAR" -o "$T/work/keep.mp4" --preset ultrafast
[ "$(probe "$T/work/keep.mp4" a:0 sample_rate)" = 16000 ] && [ "$(probe "$T/work/keep.mp4" a:0 channels)" = 1 ]
verdict "a finished render replaces the existing file (16 kHz mono now)"

# ---- containers ---------------------------------------------------------------------------------------
run 0 render "$DEMO" --avatar "$AVATAR" -o "$T/work/talk.webm"
[ "$(probe "$T/work/talk.webm" v:0 codec_name)" = vp9 ] && [ "$(probe "$T/work/talk.webm" a:0 codec_name)" = opus ]
verdict "-o FILE.webm writes VP9 video and Opus audio"
run 0 render "$DEMO" --avatar "$AVATAR" -o "$T/work/talk.mkv"
[ "$(probe "$T/work/talk.mkv" v:0 codec_name)" = h264 ] && [ "$(probe "$T/work/talk.mkv" a:0 codec_name)" = aac ]
verdict "-o FILE.mkv writes H.264 and AAC"
fails_with 2 "cannot write '.avi' files.*use .mp4" "-o FILE.avi names the formats render writes" \
    render "$DEMO" --avatar "$AVATAR" -o "$T/work/talk.avi"
fails_with 2 "unknown --preset 'quick'.*veryfast" "a bad --preset lists the presets" \
    render "$DEMO" --avatar "$AVATAR" -o "$T/work/x.mp4" --preset quick

# ---- messages that say what to do ------------------------------------------------------------------------
: >"$T/empty.wav"
fails_with 3 "is empty (0 bytes)" "an empty speech file is called empty" render "$T/empty.wav" --avatar "$AVATAR" -o "$T/work/x.mp4"
printf 'this is not audio at all, just text\n' >"$T/text.wav"
fails_with 3 "convert others first.*ffmpeg -i" "an unreadable speech file says what essence2 reads and how to convert" \
    render "$T/text.wav" --avatar "$AVATAR" -o "$T/work/x.mp4"
fails_with 4 "looked for grace-hoper, avatars/grace-hoper, avatars/grace-hoper.imx" \
    "--avatar with a misspelt name says where it looked" render "$DEMO" --avatar grace-hoper -o "$T/work/x.mp4"
check "failed renders leave nothing in the output directory" [ -z "$(others "$T/work" "$T/names" | grep -v '^talk\.')" ]

# ---- essence2 audio replaces its output atomically -----------------------------------------------------
# The old file is replaced by a finished new one (a new inode: a hard link to the old one keeps the old bytes),
# and nothing is left beside it.
mkdir -p "$T/audio"
printf 'not yet a wav' >"$T/audio/out.wav"
ln "$T/audio/out.wav" "$T/audio/old-link"
run 0 audio "$DEMO" -o "$T/audio/out.wav"
check "essence2 audio writes a 16 kHz WAV" [ "$(probe "$T/audio/out.wav" a:0 sample_rate)" = 16000 ]
check "essence2 audio replaces the old file whole, not in place (a hard link keeps the old bytes)" \
    [ "$(cat "$T/audio/old-link")" = "not yet a wav" ]
check "essence2 audio leaves nothing else beside its output" [ "$(ls -A "$T/audio" | tr '\n' ' ')" = "old-link out.wav " ]

echo "integration/cli/outputs: $passed passed, $failed failed"
[ "$failed" = 0 ]
