#!/bin/sh
# make fuzz / make test-fuzz: builds the libFuzzer harnesses (fuzz/, docs/fuzzing.md) and runs each for
# FUZZ_SECONDS, starting from its corpus in fuzz/corpus/<harness> (replayed first, every file), then prints
# per harness: seconds, executions, executions a second, libFuzzer's coverage (cov: edges, ft: features),
# corpus size and crashes, and the harness's own counters. Exit status 0 only when no harness crashed.
#
#   FUZZ_SECONDS=300 tools/fuzz.sh [HARNESS...]      (default: every harness; names: imx json audio tflite)
#
# The build is `-c release` (-O: every bounds and overflow check stays on) with libFuzzer and AddressSanitizer,
# in its own scratch path (.build/fuzz), with ESSENCE2_FUZZ=1 (Package.swift declares the harnesses only then).
# New inputs go to .build/fuzz/corpus/<harness>, kept from run to run unless FUZZ_FRESH=1 (the repository's
# corpus is only read; FUZZ_MERGE=1 merges what a run found into it, minimised); a crash's input is written to
# .build/fuzz/crashes/<harness>/ (emptied at the start of each run) and the log to .build/fuzz/logs/<harness>.log.
# FUZZ_JOBS (default 2) harnesses run at a time. FUZZ_BUILD_ONLY=1 builds them and stops (make fuzz-build).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-300}
JOBS=${FUZZ_JOBS:-2}
SCRATCH=.build/fuzz
HARNESSES=${*:-imx json audio tflite}

for h in $HARNESSES; do
    ESSENCE2_FUZZ=1 $SWIFT build -c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address \
        --scratch-path "$SCRATCH" --product "fuzz-$h" 2>&1 | grep -v 'ld.gold: warning: Cannot export local symbol' || exit 1
done
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
BIN=$("$SWIFT" build -c release --scratch-path "$SCRATCH" --show-bin-path)

# One harness: its corpus, its dictionary when it has one, a time box; the summary line comes from libFuzzer's
# final statistics and its last status line.
run_one() {
    h=$1
    [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$SCRATCH/corpus/$h"
    rm -rf "$SCRATCH/crashes/$h"
    mkdir -p "$SCRATCH/corpus/$h" "$SCRATCH/crashes/$h" "$SCRATCH/logs"
    log="$SCRATCH/logs/$h.log"
    # A harness's own libFuzzer flags (fuzz/NAME.flags) and dictionary (fuzz/NAME.dict), when it has them.
    flags=""
    [ -f "fuzz/$h.flags" ] && flags=$(grep -v '^#' "fuzz/$h.flags" | tr '\n' ' ')
    [ -f "fuzz/$h.dict" ] && flags="$flags -dict=fuzz/$h.dict"
    status=0
    # Leaks are not judged here (ASan's leak check is off: the Swift runtime's metadata caches would read as
    # leaks; memory that grows is the soak's and the C tests' to find), so libFuzzer's -detect_leaks is off
    # too: it re-ran every new input that mallocs more than it frees (8% of fuzz-imx's time).
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ESSENCE2_ROOT="$ROOT" \
        "$BIN/fuzz-$h" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=60 -rss_limit_mb=4096 -detect_leaks=0 \
        -artifact_prefix="$SCRATCH/crashes/$h/" $flags "$SCRATCH/corpus/$h" "fuzz/corpus/$h" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+[[:space:]].* cov: ' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    crashes=$(find "$SCRATCH/crashes/$h" -type f | wc -l)
    counters=$(grep -E '^(imx|json|audio|tflite) ' "$log" | paste -sd, | sed 's/,/, /g')
    printf 'fuzz-%-7s %5ss  %10s runs  %6s/s  cov %6s  ft %6s  corpus %5s  crashes %s  exit %s  (%s)\n' \
        "$h" "$SECONDS_EACH" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$status" "$counters" \
        >"$SCRATCH/logs/$h.summary"
    [ "$status" = 0 ] && [ "$crashes" = 0 ]
}

failed=0
pids=""
running=0
for h in $HARNESSES; do
    run_one "$h" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        for p in $pids; do wait "$p" || failed=1; done
        pids=""
        running=0
    fi
done
for p in $pids; do wait "$p" || failed=1; done

for h in $HARNESSES; do cat "$SCRATCH/logs/$h.summary"; done
if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    for h in $HARNESSES; do
        SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 ESSENCE2_ROOT="$ROOT" "$BIN/fuzz-$h" -merge=1 \
            "fuzz/corpus/$h" "$SCRATCH/corpus/$h" >"$SCRATCH/logs/$h.merge.log" 2>&1
        echo "fuzz-$h: corpus $(ls "fuzz/corpus/$h" | wc -l) files, $(du -sk "fuzz/corpus/$h" | cut -f1) KiB"
    done
fi
if [ "$failed" != 0 ]; then
    echo "fuzz: a harness crashed; inputs in $SCRATCH/crashes/, logs in $SCRATCH/logs/ (replay: $BIN/fuzz-NAME FILE)" >&2
    exit 1
fi
