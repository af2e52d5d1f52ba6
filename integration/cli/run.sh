#!/bin/sh
# Checks of the essence2 command as a user runs it: audio conversion (rates, channels, levels), render to
# MP4, --mode head, --frames, the .y4m + .wav fallback without ffmpeg, reproducible output with --seed,
# the avatar search, and clear messages with the documented exit status for bad input.
#
#   integration/cli/run.sh PATH/TO/essence2
#
# Needs ffmpeg and ffprobe (make deps installs them), od and awk. Runs from the repository root (for
# avatars/grace-hopper.imx and examples/audio/demo.wav); writes only to a temporary directory.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH/TO/essence2" >&2; exit 2; fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 2
AVATAR=avatars/grace-hopper.imx
DEMO=examples/audio/demo.wav
for tool in ffmpeg ffprobe od awk; do
    command -v $tool >/dev/null 2>&1 || { echo "integration/cli: $tool is needed (make deps)" >&2; exit 2; }
done
[ -f "$AVATAR" ] || { echo "integration/cli: $AVATAR is missing" >&2; exit 2; }
[ -f "$DEMO" ] || { echo "integration/cli: $DEMO is missing" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-cli-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
. integration/cli/checks.sh

# Numbers from a 16-bit WAV written by essence2 (44-byte header): samples, RMS, frequency by zero crossings.
wav_u16() { od -An -v -t u2 -j "$2" -N 2 "$1" | tr -d ' '; }
wav_u32() { od -An -v -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
wav_stats() {
    od -An -v -t d2 -j 44 "$1" | awk -v rate="$2" '
        { for (i = 1; i <= NF; i++) { x = $i; n++; sum += x * x; if (prev < 0 && x >= 0) up++; prev = x } }
        END { printf "%d %.1f %.1f\n", n, sqrt(sum / n), up * rate / n }'
}
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }
probe() { ffprobe -v error -select_streams "$2" -show_entries "stream=$3" -of default=nw=1:nk=1 "$1" | head -1; }
frames_of() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of default=nw=1:nk=1 "$1"; }

echo "essence2 command checks ($BIN)"

# ---- program information ------------------------------------------------------------------------------
run 0 --version && grep -Eq '^essence2 [0-9]+\.[0-9]+\.[0-9]+$' "$T/out"
check "--version prints 'essence2 X.Y.Z'" [ $? = 0 ]
run 0 --help && grep -q "essence2 render SPEECH" "$T/out" && grep -q "exit status" "$T/out"
check "--help lists the commands and the exit statuses" [ $? = 0 ]
run 0 render --help && grep -q -- "--frames DIR" "$T/out" && "$BIN" help render | cmp -s - "$T/out"
check "render --help (and help render) describe the render options" [ $? = 0 ]
run 0 bench --help && grep -q -- "--json" "$T/out"
check "bench --help describes the bench options" [ $? = 0 ]
run 2
[ $? = 0 ] && [ -s "$T/err" ]
verdict "no command: usage on stderr, exit 2"

# ---- audio conversion: any rate and channel count to 16 kHz mono -----------------------------------------
# 48 kHz stereo: 440 Hz at half scale on the left, silence on the right -> mono is the channel average.
ffmpeg -v error -y -f lavfi -i "aevalsrc=0.5*sin(2*PI*440*t)|0:s=48000:d=2" -c:a pcm_s16le "$T/sine48s.wav"
run 0 audio "$T/sine48s.wav" -o "$T/sine16.wav"
check "audio converts a 48 kHz stereo WAV" [ $? = 0 ]
check "converted WAV is 16000 Hz, 1 channel, 16 bit" \
    [ "$(wav_u16 "$T/sine16.wav" 22)/$(wav_u32 "$T/sine16.wav" 24)/$(wav_u16 "$T/sine16.wav" 34)" = "1/16000/16" ]
set -- $(wav_stats "$T/sine16.wav" 16000)
check "2 s at 48 kHz gives exactly 32000 samples at 16 kHz (got $1)" [ "$1" = 32000 ]
# Expected RMS: 0.5 / sqrt(2) full scale, halved by the average with the silent channel = 5792.6.
check "level kept: RMS $2 within 1% of 5792.6 (channel average)" near "$2" 5792.6 58
check "frequency kept: $3 Hz within 2 Hz of 440" near "$3" 440 2
# FLAC at 44.1 kHz mono.
ffmpeg -v error -y -f lavfi -i "aevalsrc=0.25*sin(2*PI*1000*t):s=44100:d=1.5" "$T/tone.flac"
run 0 audio "$T/tone.flac" -o "$T/tone16.wav"
set -- $(wav_stats "$T/tone16.wav" 16000)
sh -c "[ $1 = 24000 ] && awk 'BEGIN { exit !($3 > 997 && $3 < 1003 && $2 > 5734 && $2 < 5851) }'"
verdict "FLAC 44.1 kHz: 24000 samples (got $1), 1000 Hz (got $3), RMS 5792.6 (got $2)"
# 16 kHz mono 16-bit input passes through bit for bit.
ffmpeg -v error -y -i "$DEMO" -c:a pcm_s16le -ar 16000 -ac 1 -fflags +bitexact -map_metadata -1 "$T/demo16.wav"
run 0 audio "$T/demo16.wav" -o "$T/demo16b.wav"
cmp -s "$T/demo16.wav" "$T/demo16b.wav" || {
    # ffmpeg may write a longer header; compare the samples.
    ffmpeg -v error -y -i "$T/demo16.wav" -f s16le "$T/a.raw"; ffmpeg -v error -y -i "$T/demo16b.wav" -f s16le "$T/b.raw"
    cmp -s "$T/a.raw" "$T/b.raw"; }
check "16 kHz mono 16-bit audio is kept bit for bit" [ $? = 0 ]

# ---- render --------------------------------------------------------------------------------------------
# 2.5 s of the demo speech as 48 kHz stereo.
ffmpeg -v error -y -i "$DEMO" -t 2.5 -ar 48000 -ac 2 -c:a pcm_s16le "$T/speech48s.wav"
run 0 audio "$T/speech48s.wav" -o "$T/speech16.wav"
samples=$(wav_stats "$T/speech16.wav" 16000 | cut -d' ' -f1)
speech_frames=$(( (samples + 639) / 640 ))
run 0 render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 -o "$T/out.mp4" --frames "$T/frames"
check "render of a 48 kHz stereo file exits 0" [ $? = 0 ]
check "render reports what it wrote" grep -q "wrote .*out.mp4" "$T/out"
check "the MP4 has H.264 video" [ "$(probe "$T/out.mp4" v:0 codec_name)" = h264 ]
check "the MP4 has AAC audio" [ "$(probe "$T/out.mp4" a:0 codec_name)" = aac ]
width=$(probe "$T/out.mp4" v:0 width); height=$(probe "$T/out.mp4" v:0 height)
frames=$(frames_of "$T/out.mp4")
[ "$frames" -ge "$speech_frames" ] && [ "$frames" -le $((speech_frames + 25)) ]
verdict "video frames ($frames) = $speech_frames speech frames + a few easing to rest"
vdur=$(probe "$T/out.mp4" v:0 duration); adur=$(probe "$T/out.mp4" a:0 duration)
check "audio ($adur s) lasts as long as the video ($vdur s)" near "$adur" "$vdur" 0.1
check "video is $frames frames at 25 fps" near "$vdur" "$(awk -v f="$frames" 'BEGIN { print f / 25 }')" 0.05
pngs=$(ls "$T/frames" | grep -c '^frame_[0-9]\{5\}\.png$')
check "--frames wrote one PNG per video frame ($pngs)" [ "$pngs" = "$frames" ]
check "PNG frames have the video's size (${width}x$height)" \
    [ "$(probe "$T/frames/frame_00000.png" v:0 width)x$(probe "$T/frames/frame_00000.png" v:0 height)" = "${width}x$height" ]
last=$(printf 'frame_%05d.png' $((frames - 1)))
check "PNG frames are numbered from frame_00000 to $last" [ -f "$T/frames/$last" ]

# --mode head: a square crop, smaller than the full portrait (4:2:0 may drop an odd column or row).
run 0 render "$T/speech48s.wav" --avatar "$AVATAR" --mode head -o "$T/head.mp4"
check "render --mode head exits 0" [ $? = 0 ]
hw=$(probe "$T/head.mp4" v:0 width); hh=$(probe "$T/head.mp4" v:0 height)
sh -c "[ $hw -le $((hh + 1)) ] && [ $hh -le $((hw + 1)) ] && [ $hw -lt $width ] && [ $hh -lt $height ]"
verdict "--mode head video is square (${hw}x$hh) and smaller than ${width}x$height"

# Without ffmpeg an MP4 cannot be made: render says so and what to do, and writes nothing; -o FILE.y4m works.
mkdir -p "$T/nobin"
PATH="$T/nobin" "$BIN" render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 -o "$T/nof.mp4" >"$T/out" 2>"$T/err"
check "without ffmpeg, -o FILE.mp4 fails (exit 1)" [ $? = 1 ]
check "without ffmpeg the user is told to install it or to write .y4m" \
    grep -q "ffmpeg.*not installed.*apt install ffmpeg.*-o .*nof.y4m" "$T/err"
[ ! -e "$T/nof.mp4" ] && [ ! -e "$T/nof.y4m" ] && [ ! -e "$T/nof.wav" ]
verdict "without ffmpeg nothing is written"
PATH="$T/nobin" "$BIN" render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 -o "$T/nof.y4m" >"$T/out" 2>"$T/err"
[ $? = 0 ] && [ -s "$T/nof.y4m" ] && [ -s "$T/nof.wav" ]
verdict "without ffmpeg, -o FILE.y4m writes FILE.y4m and FILE.wav (exit 0)"
header=$(head -1 "$T/nof.y4m")
check "y4m header: '$header'" [ "$header" = "YUV4MPEG2 W$width H$height F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG" ]
frame_size=$((6 + width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)))
body=$(( $(wc -c <"$T/nof.y4m") - ${#header} - 1 ))
[ $((body % frame_size)) = 0 ] && [ $((body / frame_size)) = "$frames" ]
verdict "y4m holds $frames whole frames"
check "y4m frames are read back by ffmpeg ($frames)" [ "$(frames_of "$T/nof.y4m")" = "$frames" ]
set -- $(wav_stats "$T/nof.wav" 16000)
[ "$1" = $((frames * 640)) ] && [ "$(wav_u32 "$T/nof.wav" 24)" = 16000 ]
verdict "the .wav is 16 kHz mono padded to the video: $1 = $frames x 640 samples"

# The same avatar, audio and seed give the same frames (an explicit .y4m output, with ffmpeg present).
run 0 render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 -o "$T/again.y4m"
[ -f "$T/again.y4m" ] && [ -f "$T/again.wav" ]
verdict "-o FILE.y4m writes FILE.y4m and FILE.wav"
check "same audio and --seed give byte-identical video" cmp -s "$T/nof.y4m" "$T/again.y4m"
# --lipsync: both models render (deterministically); the option is named in the help.
run 0 render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 --lipsync v1 -o "$T/v1.y4m"
v1_status=$?
check "render --lipsync v1 exits 0 and writes as many frames as the default" \
    [ "$v1_status:$(wc -c <"$T/v1.y4m")" = "0:$(wc -c <"$T/again.y4m")" ]
run 0 render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 --lipsync v1 -o "$T/v1b.y4m"
check "--lipsync v1 output is byte-identical for the same audio and seed" cmp -s "$T/v1.y4m" "$T/v1b.y4m"
run 0 render "$T/speech48s.wav" --avatar "$AVATAR" --seed 7 --lipsync learned -o "$T/learned.y4m"
check "--lipsync learned is the default (byte-identical to no --lipsync)" cmp -s "$T/learned.y4m" "$T/again.y4m"
run 0 render --help
check "render --help names --lipsync learned|v1" grep -q -- "--lipsync" "$T/out"

# Avatar search: the default avatar from the current directory, a bare name, and the install's share dir.
run 0 render "$T/speech48s.wav" -o "$T/default.y4m"
check "without --avatar, avatars/grace-hopper.imx is used" grep -q "avatar avatars/grace-hopper.imx" "$T/out"
run 0 render "$T/speech48s.wav" --avatar grace-hopper -o "$T/bare.y4m"
check "--avatar grace-hopper finds avatars/grace-hopper.imx" grep -q "avatar avatars/grace-hopper.imx" "$T/out"
mkdir -p "$T/prefix/bin" "$T/prefix/share/essence2/avatars" "$T/elsewhere"
cp "$BIN" "$T/prefix/bin/essence2"
cp "$AVATAR" "$T/prefix/share/essence2/avatars/grace-hopper.imx"
(cd "$T/elsewhere" && "$T/prefix/bin/essence2" render "$T/speech48s.wav" -o installed.y4m >"$T/out" 2>"$T/err")
check "an installed essence2 finds PREFIX/share/essence2/avatars/grace-hopper.imx" \
    grep -q "avatar $T/prefix/share/essence2/avatars/grace-hopper.imx" "$T/out"

# ---- bad input: a message and the documented exit status ---------------------------------------------------
head -c 4000 /dev/urandom >"$T/noise.wav"
printf 'RIFF\044\000\000\000WAVEfmt \020\000\000\000\001\000\001\000\200\076\000\000\000\175\000\000\002\000\020\000data\000\000\000\000' >"$T/empty.wav"
head -c 2000 "$AVATAR" >"$T/truncated.imx"
fails_with 3 "nope.wav" "missing speech file" render "$T/nope.wav" --avatar "$AVATAR" -o "$T/x.mp4"
fails_with 3 "cannot read audio" "unreadable speech file" render "$T/noise.wav" --avatar "$AVATAR" -o "$T/x.mp4"
fails_with 3 "no samples" "speech file without samples" render "$T/empty.wav" --avatar "$AVATAR" -o "$T/x.mp4"
fails_with 3 "directory" "speech path is a directory" render "$T" --avatar "$AVATAR" -o "$T/x.mp4"
fails_with 4 "not found" "missing avatar" render "$T/speech48s.wav" --avatar "$T/none.imx" -o "$T/x.mp4"
fails_with 4 "bad avatar file" "truncated avatar, with the reader's reason" render "$T/speech48s.wav" --avatar "$T/truncated.imx" -o "$T/x.mp4"
fails_with 4 "bad avatar file" "a WAV given as avatar" render "$T/speech48s.wav" --avatar "$T/speech48s.wav" -o "$T/x.mp4"
fails_with 2 "unknown option '--bogus'" "unknown option" render "$T/speech48s.wav" --bogus
fails_with 2 "unknown mode 'side'" "bad --mode" render "$T/speech48s.wav" --mode side
fails_with 2 "bad seed" "bad --seed" render "$T/speech48s.wav" --seed twelve
fails_with 2 "unknown lip-sync model 'v2'" "bad --lipsync" render "$T/speech48s.wav" --lipsync v2
fails_with 2 "needs a value" "option without its value" render "$T/speech48s.wav" --avatar
fails_with 2 "needs a speech file" "render without a speech file" render
fails_with 2 "unknown command" "unknown command" transmogrify
fails_with 2 "overwrite" "output that would overwrite the speech" render "$T/speech48s.wav" --avatar "$AVATAR" -o "$T/speech48s.wav"
fails_with 2 "no extension" "output without an extension" render "$T/speech48s.wav" --avatar "$AVATAR" -o "$T/x"
fails_with 1 "does not exist" "output in a missing directory" render "$T/speech48s.wav" --avatar "$AVATAR" -o "$T/no/such/dir/x.mp4"
fails_with 2 "--reps" "bad bench --reps" bench --reps 0
# avatar build from a portrait and its landmarks; damaged JPEGs are refused with the decoder's reason
SRC=avatars/sources
run 0 avatar build --portrait "$SRC/grace_hopper.jpg" --landmarks "$SRC/grace_hopper.landmarks.json" -o "$T/built.imx"
[ $? = 0 ] && [ -s "$T/built.imx" ]
verdict "avatar build from a JPEG and landmark JSON (mesh fitted)"
run 0 avatar inspect "$T/built.imx"
[ $? = 0 ] && grep -q "512" "$T/out"
verdict "avatar inspect reads the built file"
head -c 20000 "$SRC/grace_hopper.jpg" > "$T/trunc.jpg"
run 1 avatar build --portrait "$T/trunc.jpg" --landmarks "$SRC/grace_hopper.landmarks.json" -o "$T/trunc.imx"
[ $? = 0 ] && grep -qi "corrupt\|premature" "$T/err"
verdict "a truncated JPEG is refused (exit 1) with libjpeg's reason"
printf '\377\330\377\340 not a picture' > "$T/garbage.jpg"
run 1 avatar build --portrait "$T/garbage.jpg" --landmarks "$SRC/grace_hopper.landmarks.json" -o "$T/garbage.imx"
[ $? = 0 ] && grep -q "cannot decode JPEG" "$T/err"
verdict "a JPEG without an image is refused (exit 1), the process survives"
[ ! -e "$T/trunc.imx" ] && [ ! -e "$T/garbage.imx" ]
verdict "refused portraits leave no avatar behind"
[ ! -e "$T/x.mp4" ] && [ ! -e "$T/x.y4m" ] && [ ! -e "$T/x" ]
verdict "failed renders leave no output behind"

echo "integration/cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
