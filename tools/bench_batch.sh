#!/bin/sh
# Batch rendering throughput: python -m essence2.batch on a local Ray instance with 2 CPUs, 20 copies of
# examples/audio/demo.wav (8.4 s each) to MP4 (H.264 + AAC). Prints the batch's own summary (files per minute).
#
#   tools/bench_batch.sh PYTHON       (a Python with the essence2 wheel, ray and av installed)
set -eu
PY=${1:?usage: tools/bench_batch.sh PYTHON}
cd "$(dirname "$0")/.."
T=$(mktemp -d "${TMPDIR:-/tmp}/essence2-bench-batch.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
demo=$(pwd)/examples/audio/demo.wav
{
    echo "speech,output"
    for k in $(seq -w 1 20); do echo "$demo,$T/out/demo$k.mp4"; done
} > "$T/manifest.csv"
echo "batch: python -m essence2.batch, 20 files of 8.4 s speech to MP4, local Ray with 2 CPUs:"
"$PY" -m essence2.batch "$T/manifest.csv" --out "$T/out" --num-cpus 2 | tail -n 1
