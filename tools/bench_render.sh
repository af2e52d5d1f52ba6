#!/bin/sh
# The whole `essence2 render` command against the engine alone, as `make bench` reports it: for the shipped
# avatar and a 1080x1920 build of the same portrait, the speed (x real time) of rendering 25 s of speech to
# MP4 with x264 presets ultrafast, veryfast (the default) and medium, and to .y4m (no encoder), on this
# machine, one run each, from one run of this script. The difference to the engine's own speed (`essence2
# bench`) is the encoder's share.
#
#   tools/bench_render.sh PATH/TO/essence2
set -u
BIN=$1
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-bench-render.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
for i in 1 2 3; do echo "file '$PWD/examples/audio/demo.wav'"; done >"$T/list.txt"
ffmpeg -v error -y -f concat -safe 0 -i "$T/list.txt" -c copy "$T/speech.wav" || exit 1
"$BIN" avatar build avatars/sources/grace_hopper.jpg --size 1080x1920 --fit -o "$T/tall.imx" >/dev/null 2>&1 || exit 1
seconds=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 "$T/speech.wav")
speed() {  # AVATAR OUTPUT [ARGS...]: x real time of the whole command
    avatar=$1; out=$2; shift 2
    start=$(date +%s.%N)
    "$BIN" render "$T/speech.wav" --avatar "$avatar" -o "$T/$out" --quiet "$@" || { echo "failed"; return; }
    end=$(date +%s.%N)
    awk -v s="$seconds" -v a="$start" -v b="$end" 'BEGIN { printf "%.1fx", s / (b - a) }'
}
printf 'whole render command, %.0f s of speech (x real time, one run each):\n' "$seconds"
printf '  %-34s %12s %12s\n' "" "512x600" "1080x1920 fit"
for case in "MP4, --preset ultrafast:mp4:ultrafast" "MP4, --preset veryfast (default):mp4:veryfast" \
            "MP4, --preset medium:mp4:medium" ".y4m + .wav (no encoder):y4m:"; do
    label=${case%%:*}; rest=${case#*:}; ext=${rest%%:*}; preset=${rest#*:}
    args=""; [ -n "$preset" ] && args="--preset $preset"
    a=$(speed avatars/grace-hopper.imx "a.$ext" $args); b=$(speed "$T/tall.imx" "b.$ext" $args)
    printf '  %-34s %12s %12s\n' "$label" "$a" "$b"
    rm -f "$T"/a.* "$T"/b.*
done
