#!/usr/bin/env bash
# tools/test_stages.sh STAGE...: runs each `make STAGE` in turn (what `make test` does), timing each, and ends with
# one line per stage (its time in seconds, the CPU seconds its processes used, and ok or FAILED) and the total. A
# stage written STAGE& starts in the background at its place in the list (its output kept and printed when it
# ends) while the next ones run: for a stage that mostly waits (the soak renders in real time and judges leaks,
# threads and descriptors, not speed).
# Every stage runs even when an earlier one failed, so one run reports them all; the exit status is 1 when any
# failed. MAKE (default make) and MAKEFLAGS pass through.
#
#   tools/test_stages.sh test-format api-check test-soak\& test-swift      (make test runs them all)
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || { echo "usage: $0 STAGE..." >&2; exit 2; }
MAKE=${MAKE:-make}
logs=$(mktemp -d "${TMPDIR:-/tmp}/essence2-test-stages.XXXXXX") || exit 2
trap 'rm -rf "$logs"' EXIT
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
# cpu: sets CPU to the user and system seconds of every process this shell has waited for (bash's `times`, its
# second line; run in this shell, not a command substitution, whose fork starts from zero).
cpu() {
    local f="$logs/times.$BASHPID"
    times >"$f"
    CPU=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f", t }' "$f")
}
names=() times=() cpus=() results=() background=()
failed=0
start_all=$(now)

# run STAGE: one stage in the foreground; its time and result appended to the table.
run() {
    local start end c0 result=ok
    echo "=== make $1"
    start=$(now); cpu; c0=$CPU
    $MAKE --no-print-directory "$1" || { result=FAILED; failed=1; }
    end=$(now); cpu
    names+=("$1") times+=("$(seconds "$start" "$end")") cpus+=("$(seconds "$c0" "$CPU")") results+=("$result")
}

for stage in "$@"; do
    case "$stage" in
        *\&)
            name=${stage%&}
            echo "=== make $name (in the background; its output follows when the other stages are done)"
            ( start=$(now); cpu; c0=$CPU
              if $MAKE --no-print-directory "$name" >"$logs/$name.log" 2>&1; then r=ok; else r=FAILED; fi
              cpu; echo "$(seconds "$start" "$(now)") $(seconds "$c0" "$CPU") $r" >"$logs/$name.result" ) &
            background+=("$name:$!")
            ;;
        *) run "$stage" ;;
    esac
done
for entry in "${background[@]+"${background[@]}"}"; do
    name=${entry%%:*}
    wait "${entry##*:}"
    echo "=== make $name (ran in the background)"
    cat "$logs/$name.log"
    read -r t c r <"$logs/$name.result" 2>/dev/null || { t=0 c=0 r=FAILED; }
    [ "$r" = ok ] || failed=1
    names+=("$name (background)") times+=("$t") cpus+=("$c") results+=("$r")
done
total=$(seconds "$start_all" "$(now)"); cpu
echo
echo "make test: time per stage (seconds of wall clock, and of CPU: user and system, all its processes)"
printf '  %-26s %5s  %5s\n' stage wall cpu
for i in "${!names[@]}"; do
    printf '  %-26s %5s  %5s  %s\n' "${names[$i]}" "${times[$i]}" "${cpus[$i]}" "${results[$i]}"
done
printf '  %-26s %5s  %5s  (%d:%02d)\n' total "$total" "$(seconds 0 "$CPU")" $((total / 60)) $((total % 60))
if [ $failed -ne 0 ]; then
    list=$(for i in "${!names[@]}"; do [ "${results[$i]}" = ok ] || printf '%s, ' "${names[$i]}"; done)
    echo "make test: FAILED: ${list%, }"
    exit 1
fi
echo "make test: every stage passed"
