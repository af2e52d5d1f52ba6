#!/usr/bin/env bash
# integration/gst/run.sh - the essence2avatar GStreamer element as users meet it: gst-inspect's documentation,
# the element tests (test_gst elements: caps, timestamps, end-of-stream, other input rates and float, flush, bad
# avatars, live pacing, 20 pipelines with no leak), the README's file pipeline to an MP4 with its sync measured from the file (test_gst
# sync), and the README's live pipelines (to fakesink, and to autovideosink on a virtual display when xvfb-run
# is there). Needs build/gst/libgstessence2.so and build/gst/test_gst (make test-gst builds them); GST_BUILD=DIR
# takes both from DIR instead (make test-gst runs everything again with build/gst-ubsan, the UndefinedBehaviorSanitizer
# build: a report aborts the process, so the check that ran it fails).
# Ends with "gst pipelines: N passed, M failed".
set -u
cd "$(dirname "$0")/../.."
GST_BUILD=${GST_BUILD:-build/gst}
export GST_PLUGIN_PATH="$PWD/$GST_BUILD"
export GST_REGISTRY="${TMPDIR:-/tmp}/essence2-gst-registry-$$.bin"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
work=$(mktemp -d /tmp/essence2-gst.XXXXXX)
trap 'rm -rf "$work" "$GST_REGISTRY"' EXIT
avatar=avatars/grace-hopper.imx
speech=examples/audio/demo.wav

case $GST_BUILD in
  *ubsan*)
    if nm -D "$GST_BUILD/libgstessence2.so" | grep -q __ubsan_handle_ && nm "$GST_BUILD/test_gst" | grep -q __ubsan_handle_
    then ok "$GST_BUILD: the element and test_gst are built with UndefinedBehaviorSanitizer"
    else fail "$GST_BUILD: the element or test_gst is not built with UndefinedBehaviorSanitizer"; fi ;;
esac

inspect=$(gst-inspect-1.0 essence2avatar 2>&1)
missing=""
for word in "SINK template: 'sink'" "SRC template: 'video'" "SRC template: 'audio'" "format: S16LE" "format: BGR" \
            "25/1" "20/1" "avatar  " "mode  " "pacing  " "seed  " "video-delay  " "Essence2FrameMeta"; do
  grep -qF -- "$word" <<<"$inspect" || missing="$missing [$word]"
done
if [ -z "$missing" ]; then ok "gst-inspect-1.0 essence2avatar documents the pads, their caps and every property"
else fail "gst-inspect-1.0 essence2avatar lacks:$missing"; echo "$inspect" | head -40; fi

if "$GST_BUILD/test_gst" elements "$avatar" "$speech"; then ok "element tests (test_gst elements)"
else fail "element tests (test_gst elements)"; fi

# The README's file pipeline, as written there.
if timeout 120 gst-launch-1.0 -q filesrc location="$speech" ! decodebin ! audioconvert ! audioresample ! \
     essence2avatar avatar="$avatar" video-delay=64000000 name=a \
     a.video ! videoconvert ! x264enc ! mp4mux name=m ! filesink location="$work/out.mp4" \
     a.audio ! audioconvert ! avenc_aac ! m. >"$work/launch.log" 2>&1 && [ -s "$work/out.mp4" ]; then
  ok "gst-launch-1.0 filesrc ! decodebin ! ... ! essence2avatar ! x264enc ! mp4mux (+ avenc_aac) writes an MP4"
else
  fail "the README's file pipeline"; cat "$work/launch.log"
fi
streams=$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$work/out.mp4" 2>&1 | paste -sd,)
if [ "$streams" = "h264,aac" ]; then ok "the MP4 plays: ffprobe finds H.264 video and AAC sound ($streams)"
else fail "ffprobe of the MP4: $streams"; fi
if "$GST_BUILD/test_gst" sync "$work/out.mp4" "$avatar" "$speech"; then ok "the MP4's sound and picture are in step"
else fail "the MP4's sound and picture are in step"; fi

# The head mode: square frames. The video caps are required by a capsfilter (the head crop of the test avatar is
# 384x384), so a frame of any other size fails to negotiate: gst-launch's -v printout of caps is not waited for
# (with a reply this short it may exit before printing them).
if timeout 60 gst-launch-1.0 -q audiotestsrc num-buffers=5 samplesperbuffer=320 ! \
     audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar="$avatar" mode=head name=a \
     a.video ! video/x-raw,format=BGR,width=384,height=384 ! fakesink a.audio ! fakesink >"$work/head.log" 2>&1; then
  ok "mode=head gives square frames (384x384 negotiated)"
else
  fail "mode=head caps: not 384x384 ($(tail -n 3 "$work/head.log" | tr '\n' ' '))"
fi

# A character avatar (Expression 2): 416x720 at 20 frames a second, 800 samples of audio a frame. Required by
# capsfilters, so any other size, rate or buffer length fails the pipeline; the file's frame count and rate are
# read back.
if timeout 120 gst-launch-1.0 -q filesrc location="$speech" ! decodebin ! audioconvert ! audioresample ! \
     essence2avatar avatar=avatars/squirrel.imx name=a \
     a.video ! video/x-raw,format=BGR,width=416,height=720,framerate=20/1 ! videoconvert ! x264enc ! mp4mux name=m ! \
     filesink location="$work/character.mp4" a.audio ! audio/x-raw,rate=16000 ! audioconvert ! avenc_aac ! m. \
     >"$work/character.log" 2>&1 && [ -s "$work/character.mp4" ]; then
  rate=$(ffprobe -v error -select_streams v -show_entries stream=r_frame_rate,nb_frames -of csv=p=0 "$work/character.mp4")
  seconds=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/character.mp4")
  if [ "${rate%%,*}" = "20/1" ] && awk -v n="${rate##*,}" -v s="$seconds" 'BEGIN { exit !(n >= 170 && n <= 180 && s > 8.3 && s < 9.2) }'; then
    ok "a character avatar: 416x720 at 20 frames a second ($rate frames, $seconds s for the 8.4 s demo)"
  else
    fail "a character avatar's file: rate,frames $rate, $seconds s"
  fi
else
  fail "a character avatar pipeline ($(tail -n 3 "$work/character.log" | tr '\n' ' '))"
fi

# The README's live pipeline: a live source, one frame every 40 ms, to sinks that sync on the clock.
start=$(date +%s.%N)
if timeout 60 gst-launch-1.0 -q audiotestsrc is-live=true num-buffers=150 samplesperbuffer=320 wave=ticks ! \
     audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar="$avatar" pacing=live name=a \
     a.video ! videoconvert ! fakesink sync=true a.audio ! audioconvert ! fakesink sync=true >"$work/live.log" 2>&1; then
  took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  ok "live pipeline (audiotestsrc is-live=true ! essence2avatar pacing=live ! fakesink sync=true): 3 s of audio in ${took} s"
else
  fail "live pipeline to fakesink"; cat "$work/live.log"
fi
if command -v xvfb-run >/dev/null 2>&1; then
  if timeout 60 xvfb-run -a gst-launch-1.0 -q audiotestsrc is-live=true num-buffers=100 samplesperbuffer=320 ! \
       audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar="$avatar" pacing=live name=a \
       a.video ! videoconvert ! autovideosink a.audio ! audioconvert ! fakesink sync=true >"$work/x.log" 2>&1; then
    ok "live pipeline to autovideosink on a virtual display (xvfb-run)"
  else
    fail "live pipeline to autovideosink"; cat "$work/x.log"
  fi
fi

echo "gst pipelines ($GST_BUILD): $passed passed, $failed failed"
[ "$failed" = 0 ]
