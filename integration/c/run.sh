#!/usr/bin/env bash
# integration/c/run.sh - the C side of `make test`: the ABI tests (plain, and under AddressSanitizer with
# UndefinedBehaviorSanitizer), then the examples (minimal_loop, expression2_loop, render_file, plugin_host) on
# examples/audio/demo.wav, with their outputs checked,
# plain and again built with AddressSanitizer and UndefinedBehaviorSanitizer (build/asan).
#
# Run from anywhere, after `make all build/test_abi build/test_abi_asan build/asan/{minimal_loop,expression2_loop,render_file,plugin_host}`
# (what `make test-c` does).
# Environment: BUILD (where the binaries are, default build), ESSENCE2_LIB (the library for plugin_host,
# default build/lib/libessence2.so.1), AVATAR (default avatars/grace-hopper.imx).
# Prints one line per check and ends with "c-tests: N passed, M failed"; exits 1 when anything failed.
set -u
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
LIB=${ESSENCE2_LIB:-build/lib/libessence2.so.1}
AVATAR=${AVATAR:-avatars/grace-hopper.imx}
DEMO=examples/audio/demo.wav
FRAME_SAMPLES=640

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }

tmp=$(mktemp -d /tmp/essence2-c-tests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for bin in test_abi test_abi_asan minimal_loop expression2_loop render_file plugin_host asan/minimal_loop asan/expression2_loop \
           asan/render_file asan/plugin_host; do
  if [ ! -x "$BUILD/$bin" ]; then
    echo "run.sh: $BUILD/$bin is missing: run 'make test-c'" >&2
    echo "c-tests: 0 passed, 1 failed"
    exit 1
  fi
done

# A large character with large eyes (2048x2880, eye radii of 180 of the squirrel's pixels), for
# test_expression2_destroy_stops_the_work: made by the command, as a user would.
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); p["left_eye_radius"] = p["right_eye_radius"] = 180; json.dump(p, open(sys.argv[2], "w"))' \
  avatars/sources/squirrel.points.json "$tmp/large.points.json"
if "$BUILD/essence2" avatar build avatars/sources/squirrel.png --character --points "$tmp/large.points.json" \
     --size 2048x2880 -o "$tmp/large.imx" >/dev/null; then
  export E2_LARGE_CHARACTER="$tmp/large.imx"
else
  fail "the large character for the destroy test could not be built"
fi

# --- the ABI tests ---------------------------------------------------------------------------------
if "$BUILD/test_abi" "$AVATAR"; then ok "test_abi"; else fail "test_abi"; fi
# detect_leaks=0: the Swift runtime keeps global allocations (metadata caches, the render threads' state
# of engines whose threads finish after the check) that LeakSanitizer would report as leaks at exit.
if ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 "$BUILD/test_abi_asan" "$AVATAR"; then
  ok "test_abi_asan"
else
  fail "test_abi_asan"
fi

# LeakSanitizer, in-process: the forked children above leave with _exit(), which skips the leak check, so
# the lifecycle tests run once more in one process with leak detection on (create/destroy, refused files,
# quiesce, threads). At present the Swift runtime's global allocations stay reachable and report nothing.
if ASAN_OPTIONS=detect_leaks=1 "$BUILD/test_abi_asan" --no-fork "$AVATAR" create_rejects corrupt destroyed \
     quiesce four_pushers engines_are >"$tmp/lsan.log" 2>&1; then
  ok "test_abi_asan: no leaks in create/destroy, refused avatars, quiesce_all, threads"
else
  grep -E "^(FAIL|    )|SUMMARY|leak of" "$tmp/lsan.log" | head -n 40
  fail "test_abi_asan --no-fork with leak detection (see above)"
fi

# --- helpers ---------------------------------------------------------------------------------------
# y4m_frames FILE [RATE]: prints the frame count of a YUV4MPEG2 4:4:4 file at RATE (default F25:1; checking its
# header and size), or
# nothing when the file is malformed.
y4m_frames() {
  local file=$1 rate=${2:-F25:1} header w h size hlen fsize
  header=$(head -c 200 "$file" | head -n 1)
  case "$header" in
    "YUV4MPEG2 W"*" H"*" $rate Ip A1:1 C444") ;;
    *) echo "malformed header: $header" >&2; return ;;
  esac
  w=$(echo "$header" | sed -E 's/.* W([0-9]+) .*/\1/')
  h=$(echo "$header" | sed -E 's/.* H([0-9]+) .*/\1/')
  size=$(stat -c %s "$file")
  hlen=$(( ${#header} + 1 ))
  fsize=$(( 6 + w * h * 3 ))
  if [ $(( (size - hlen) % fsize )) -ne 0 ]; then
    echo "size $size is not a header plus whole frames of $fsize bytes" >&2
    return
  fi
  echo $(( (size - hlen) / fsize ))
}

# wav_samples FILE: samples of a 16 kHz mono WAV (via ffprobe), or nothing.
wav_samples() {
  ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate,channels,duration_ts -of default=nw=1 "$1" \
    | awk -F= '/^sample_rate/{r=$2} /^channels/{c=$2} /^duration_ts/{d=$2} END{ if (r==16000 && c==1) print d }'
}

demo_samples=$(( ($(stat -c %s "$DEMO") - 44) / 2 ))   # a plain 44-byte-header PCM WAV (see examples/audio)
if command -v ffprobe >/dev/null; then demo_samples=$(wav_samples "$DEMO"); fi
speech_frames=$(( (demo_samples + FRAME_SAMPLES - 1) / FRAME_SAMPLES ))

# --- the examples -----------------------------------------------------------------------------------
# run_examples DIR TAG: minimal_loop, expression2_loop, render_file and plugin_host from DIR, each check's name
# followed by TAG.
run_examples() {
  local bin=$1 tag=$2 st n s run
  # --- minimal_loop (realtime) -------------------------------------------------------------------------
  "$bin/minimal_loop" "$AVATAR" "$DEMO" "$tmp/live.y4m" >"$tmp/live.log" 2>&1
  st=$?
  cat "$tmp/live.log"
  if [ $st -eq 0 ]; then
    n=$(y4m_frames "$tmp/live.y4m")
    # realtime: the reply's frames (some may be skipped when late), a little idle before, the ramp after
    if [ -n "$n" ] && [ "$n" -ge $(( speech_frames * 9 / 10 )) ] && [ "$n" -le $(( speech_frames + 125 )) ]; then
      ok "minimal_loop$tag: $n frames for $speech_frames frames of speech"
    else
      fail "minimal_loop$tag: ${n:-no} frames in the y4m, expected about $speech_frames (speech) + ramp"
    fi
    if command -v ffmpeg >/dev/null; then
      if ffmpeg -v error -i "$tmp/live.y4m" -f null - 2>"$tmp/ffmpeg.log" && [ ! -s "$tmp/ffmpeg.log" ]; then
        ok "minimal_loop$tag: ffmpeg decodes the y4m"
      else
        fail "minimal_loop$tag: ffmpeg cannot decode the y4m: $(head -c 300 "$tmp/ffmpeg.log")"
      fi
    fi
  else
    fail "minimal_loop$tag exited with status $st"
  fi

  # refuses audio that is not 16 kHz mono, with a clear message and a non-zero status
  if command -v sox >/dev/null; then
    rm -f "$tmp/44k.wav"; sox "$DEMO" -r 44100 "$tmp/44k.wav"
  else
    ffmpeg -v error -y -i "$DEMO" -ar 44100 "$tmp/44k.wav"
  fi
  "$bin/minimal_loop" "$AVATAR" "$tmp/44k.wav" "$tmp/never.y4m" >"$tmp/44k.log" 2>&1
  st=$?
  if [ $st -ne 0 ] && grep -q "44100 Hz" "$tmp/44k.log" && grep -q "16 kHz mono" "$tmp/44k.log" \
     && grep -q "essence2 audio" "$tmp/44k.log"; then
    ok "minimal_loop$tag refuses 44.1 kHz audio (status $st): $(head -n 1 "$tmp/44k.log")"
  else
    fail "minimal_loop$tag on 44.1 kHz audio: status $st, message: $(cat "$tmp/44k.log")"
  fi
  "$bin/minimal_loop" >/dev/null 2>"$tmp/usage.log"
  st=$?
  if [ $st -ne 0 ] && grep -q "^usage: minimal_loop" "$tmp/usage.log"; then ok "minimal_loop$tag prints its usage"; else fail "minimal_loop$tag without arguments: status $st"; fi
  "$bin/minimal_loop" "$tmp/none.imx" "$DEMO" "$tmp/never.y4m" >/dev/null 2>"$tmp/noavatar.log"
  st=$?
  if [ $st -ne 0 ] && grep -q "be_essence2_create failed (-2): no such file" "$tmp/noavatar.log"; then
    ok "minimal_loop$tag reports a missing avatar: $(head -n 1 "$tmp/noavatar.log")"
  else
    fail "minimal_loop$tag with a missing avatar: status $st, message: $(cat "$tmp/noavatar.log")"
  fi
  # A damaged avatar: the examples print the library's own reason (a checksum mismatch), not the code's meaning.
  cp "$AVATAR" "$tmp/damaged.imx"
  printf '\377' | dd of="$tmp/damaged.imx" bs=1 seek=100000 conv=notrunc 2>/dev/null
  "$bin/minimal_loop" "$tmp/damaged.imx" "$DEMO" "$tmp/never.y4m" >/dev/null 2>"$tmp/damaged.log"
  st=$?
  if [ $st -ne 0 ] && grep -q "be_essence2_create failed (-2): checksum mismatch in section" "$tmp/damaged.log" \
     && ! grep -q "audio ring full" "$tmp/damaged.log"; then
    ok "minimal_loop$tag reports a damaged avatar with the library's reason: $(head -n 1 "$tmp/damaged.log")"
  else
    fail "minimal_loop$tag with a damaged avatar: status $st, message: $(cat "$tmp/damaged.log")"
  fi

  # --- expression2_loop (a character, realtime at 20 a second) ------------------------------------------
  "$bin/expression2_loop" "$DEMO" "$tmp/e2.y4m" avatars/squirrel.imx >"$tmp/e2.log" 2>&1
  st=$?
  cat "$tmp/e2.log"
  if [ $st -eq 0 ]; then
    n=$(y4m_frames "$tmp/e2.y4m" F20:1)
    e2_speech=$(( (demo_samples + 799) / 800 ))
    # realtime: the reply's frames at 800 samples each (some may be skipped when late), then the ramp
    if [ -n "$n" ] && [ "$n" -ge $(( e2_speech * 9 / 10 )) ] && [ "$n" -le $(( e2_speech + 100 )) ] \
       && grep -q "samples of speech" "$tmp/e2.log"; then
      ok "expression2_loop$tag: $n frames at 20 fps for $e2_speech frames of speech"
    else
      fail "expression2_loop$tag: ${n:-no} frames in the y4m, expected about $e2_speech (speech) + ramp"
    fi
  else
    fail "expression2_loop$tag exited with status $st"
  fi
  "$bin/expression2_loop" "$DEMO" - "$AVATAR" >/dev/null 2>"$tmp/e2photo.log"
  st=$?
  if [ $st -eq 1 ] && grep -q "be_expression2_create failed (-2): .*be_essence2_create" "$tmp/e2photo.log"; then
    ok "expression2_loop$tag refuses a photoreal avatar with the library's reason: $(head -n 1 "$tmp/e2photo.log")"
  else
    fail "expression2_loop$tag with a photoreal avatar: status $st, message: $(cat "$tmp/e2photo.log")"
  fi
  "$bin/expression2_loop" >/dev/null 2>"$tmp/e2usage.log"
  st=$?
  if [ $st -eq 2 ] && grep -q "^usage: expression2_loop" "$tmp/e2usage.log"; then ok "expression2_loop$tag prints its usage"
  else fail "expression2_loop$tag without arguments: status $st"; fi

  # --- render_file (unpaced) ---------------------------------------------------------------------------
  for run in 1 2; do
    "$bin/render_file" "$AVATAR" "$DEMO" "$tmp/file$run.y4m" "$tmp/file$run.wav" --seed 7 >"$tmp/file$run.log" 2>&1
    st=$?
    cat "$tmp/file$run.log"
    if [ $st -ne 0 ]; then
      fail "render_file$tag (run $run) exited with status $st"
      rm -f "$tmp/file$run.y4m"
      continue
    fi
    if [ $run -eq 1 ]; then
      n=$(y4m_frames "$tmp/file1.y4m")
      s=""
      if command -v ffprobe >/dev/null; then s=$(wav_samples "$tmp/file1.wav"); fi
      # the reply: exactly ceil(samples/640) speech frames, then at least one ramp frame and one idle frame
      if [ -n "$n" ] && [ "$n" -ge $(( speech_frames + 2 )) ] && [ "$n" -le $(( speech_frames + 100 )) ]; then
        ok "render_file$tag: $n frames for $speech_frames frames of speech"
      else
        fail "render_file$tag: ${n:-no} frames in the y4m, expected $speech_frames speech frames + ramp + idle"
      fi
      if grep -q "($speech_frames speech," "$tmp/file1.log"; then
        ok "render_file$tag: exactly $speech_frames speech frames for $demo_samples samples"
      else
        fail "render_file$tag: expected exactly $speech_frames speech frames: $(cat "$tmp/file1.log")"
      fi
      if [ -n "$s" ] && [ -n "$n" ] && [ "$s" -eq $(( n * FRAME_SAMPLES )) ]; then
        ok "render_file$tag: the wav has exactly frames x 640 = $s samples"
      else
        fail "render_file$tag: the wav has ${s:-unknown} samples, expected ${n:-?} x 640"
      fi
    fi
  done
  if [ -f "$tmp/file1.y4m" ] && [ -f "$tmp/file2.y4m" ]; then
    if cmp -s "$tmp/file1.y4m" "$tmp/file2.y4m" && cmp -s "$tmp/file1.wav" "$tmp/file2.wav"; then
      ok "render_file$tag: two runs with --seed 7 are byte-identical"
    else
      fail "render_file$tag: two runs with --seed 7 differ ($(cmp "$tmp/file1.y4m" "$tmp/file2.y4m" 2>&1 | head -n 1))"
    fi
  fi

  # plugin_host: dlopen, a reply, quiesce_all, dlclose, three times
  "$bin/plugin_host" "$LIB" "$AVATAR" >"$tmp/plugin.log" 2>&1
  st=$?
  cat "$tmp/plugin.log"
  if [ $st -eq 0 ]; then
    ok "plugin_host$tag: 3 rounds of dlopen, reply, quiesce_all, dlclose"
  else
    fail "plugin_host$tag exited with status $st"
  fi
}

# --- plugin_host (dlopen) ----------------------------------------------------------------------------
# its list of functions must be the header's
header_fns=$(grep -oE '\bbe_essence2_[a-z_]+\(' include/essence2.h | tr -d '(' | sort -u)
host_fns=$(grep -oE 'X\(be_essence2_[a-z_]+\)' examples/plugin_host.c | sed 's/X(//; s/)//' | sort -u)
if [ "$header_fns" = "$host_fns" ]; then
  ok "plugin_host looks up all $(echo "$header_fns" | wc -l) functions of essence2.h"
else
  fail "plugin_host's function list differs from essence2.h: $(diff <(echo "$header_fns") <(echo "$host_fns") | tr '\n' ' ')"
fi
if [ -f "$LIB" ]; then
  exported=$(nm -D --defined-only "$LIB" | awk '{print $3}' | sed 's/@.*//' | sort -u)
  all_fns=$( (echo "$header_fns"; grep -oE '\bbe_expression2_[a-z_]+\(' include/expression2.h | tr -d '(') | sort -u)
  if [ "$exported" = "$all_fns" ]; then
    ok "the library exports exactly the functions of essence2.h and expression2.h"
  else
    fail "exports differ from essence2.h and expression2.h (< headers, > library): $(diff <(echo "$all_fns") <(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
  fi
  unversioned=$(nm -D --defined-only "$LIB" | awk '{print $3}' | grep -v '@@ESSENCE2_1$')
  if [ -z "$unversioned" ]; then
    ok "every export is in the version node ESSENCE2_1"
  else
    fail "exports outside the version node ESSENCE2_1: $(echo $unversioned)"
  fi
  soname=$(readelf -d "$LIB" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
  if [ "$soname" = "libessence2.so.1" ]; then ok "SONAME libessence2.so.1"; else fail "SONAME is '$soname', not libessence2.so.1"; fi
  if readelf -d "$LIB" | grep -q 'Flags:.*NODELETE'; then ok "linked -z nodelete (dlclose never unmaps it)"; else fail "no NODELETE flag"; fi
fi
run_examples "$BUILD" ""
# Again built with AddressSanitizer and UndefinedBehaviorSanitizer (make test-c: build/asan): a report fails the
# example that made it (a non-zero status). Leak detection stays on: the examples free what they create, and the
# library's and the Swift runtime's global allocations stay reachable (nothing is reported; see test_abi_asan).
instrumented=""
for b in minimal_loop expression2_loop render_file plugin_host; do
  nm "$BUILD/asan/$b" | grep -q " __asan_init" && nm "$BUILD/asan/$b" | grep -q " __ubsan_handle_" \
    || instrumented="$instrumented $b"
done
if [ -z "$instrumented" ]; then ok "the examples in $BUILD/asan are built with AddressSanitizer and UBSan"
else fail "not instrumented in $BUILD/asan:$instrumented"; fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23 UBSAN_OPTIONS=print_stacktrace=1 \
  run_examples "$BUILD/asan" " (asan)"

echo "c-tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
