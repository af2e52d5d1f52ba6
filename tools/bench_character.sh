#!/bin/sh
# The whole `essence2 avatar build --character` command as `make bench` reports it: finding the character's
# points (the point finder's network passes, Face Mesh when the network is unsure) and writing the avatar, on the
# repository's character picture (avatars/sources/squirrel.png, 516 x 720) and on the same picture scaled to
# 1440 x 2010; the median of 5 runs each, in milliseconds, on this machine.
#
#   tools/bench_character.sh PATH/TO/essence2
set -u
BIN=$1
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-bench-character.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
ffmpeg -v error -y -i avatars/sources/squirrel.png -vf scale=1440:2010 "$T/large.png" || exit 1
median_ms() {  # PICTURE: the median wall time of 5 builds (the exit status is not judged: an unsure finder
    # exits 7 after writing its best guess, which is the work being timed; no avatar written is a failure)
    times=""
    for i in 1 2 3 4 5; do
        start=$(date +%s%N)
        "$BIN" avatar build "$1" --character -o "$T/out.imx" >/dev/null 2>&1
        end=$(date +%s%N)
        [ -s "$T/out.imx" ] || { echo "failed (no avatar written)"; return; }
        rm -f "$T/out.imx"
        times="$times $(((end - start) / 1000000))"
    done
    echo $times | tr ' ' '\n' | sort -n | sed -n 3p
}
printf 'avatar build --character, whole command (median of 5, ms):\n'
printf '  %-44s %8s\n' "avatars/sources/squirrel.png (516x720)" "$(median_ms avatars/sources/squirrel.png)"
printf '  %-44s %8s\n' "the same scaled to 1440x2010" "$(median_ms "$T/large.png")"
# Peak memory (the child's maximum resident set) of the largest character builds accepted: the squirrel scaled to
# the largest picture (4096 pixels high; its points scaled with it), built at the default 416x720 and at the
# largest frame, 3072x3072.
ffmpeg -v error -y -i avatars/sources/squirrel.png -vf scale=-2:4096 "$T/largest.png" || exit 1
python3 - avatars/sources/squirrel.points.json "$T/largest.points.json" <<'PY'
import json, sys
points = json.load(open(sys.argv[1]))
k = 4096 / 720
def scale(v):
    return [scale(x) for x in v] if isinstance(v, list) else v * k if isinstance(v, (int, float)) else v
json.dump({name: scale(value) for name, value in points.items()}, open(sys.argv[2], "w"))
PY
peak_mib() {  # ARGS...: the essence2 command's peak memory in MiB (python3's resource module reads it)
    python3 -c 'import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024) if done.returncode == 0 else "failed")' "$BIN" "$@"
}
size=$(ffprobe -v error -show_entries stream=width,height -of csv=p=0:s=x "$T/largest.png")
printf 'avatar build --character --points, peak memory (MiB):\n'
for frame in 416x720 3072x3072; do
    printf '  %-44s %8s\n' "the squirrel at $size, built at $frame" \
        "$(peak_mib avatar build "$T/largest.png" --character --points "$T/largest.points.json" --size $frame -o "$T/a.imx")"
done
