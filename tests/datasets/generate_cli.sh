#!/bin/sh
# `datum generate --preset small`, then `datum info` and `datum score` on it, in a
# fresh folder; usage errors exit with 2. Usage: generate_cli.sh PATH/TO/datum
set -eu
datum=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/datum-generate-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$datum" generate --preset small --seed 3 --threads 2 -o small.h5 | grep -q '^generated .* results'
"$datum" info small.h5 > info.txt
grep -q '^truth ' info.txt
grep -q '^matches ' info.txt
grep -q '^divisions ' info.txt
"$datum" score small.h5 --datum nbb --pairs pairs.csv --results results.csv
test "$(head -n 1 pairs.csv)" = "pair,boards,imps,imps_per_board"
test "$(wc -l < pairs.csv)" -gt 100
set +e
"$datum" generate --preset huge -o x.h5 2> err.txt
status=$?
set -e
test "$status" -eq 2
grep -q "preset is small, decade or national" err.txt
test ! -e x.h5
echo "generate, info and score: ok"
