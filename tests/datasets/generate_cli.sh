#!/bin/sh
# `datum generate --preset small`, then `datum info` and `datum score` on it, in a
# fresh folder; the mixing options (a level overridden by numeric options, read
# back from /truth's attributes with h5dump); usage errors exit with 2.
# Usage: generate_cli.sh PATH/TO/datum
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
# Mixing: the level first, then the numeric options override it (whatever
# their order on the line); recorded as attributes of /truth.
"$datum" generate --clubs 3 --years 1 --visitors-region 0.05 --mixing high --regionals 7 \
    -o mixed.h5 > /dev/null
attr() { h5dump -a "/truth/$1" mixed.h5 | grep -q "(0): \"$2\""; }
attr visitors_region 0.05
attr regionals 7
attr multi_club 0.35   # high's
attr nationals 4       # high's
attr attendance 0.44   # the preset's
# Bad values: exit 2, the option and its range named, no archive.
refuse() {
    want=$1
    shift
    set +e
    "$datum" generate -o x.h5 "$@" 2> err.txt
    status=$?
    set -e
    test "$status" -eq 2
    grep -qF -- "$want" err.txt || { cat err.txt; exit 1; }
    test ! -e x.h5
}
refuse "--mixing is low, medium or high, not 'extreme'" --mixing extreme
refuse "--visitors-region takes a number from 0 to 0.9, not '0.95'" --visitors-region 0.95
refuse "--visitors-nation takes a number from 0 to 0.9, not 'some'" --visitors-nation some
refuse "add up to at most 0.9, not 1.1" --visitors-region 0.6 --visitors-nation 0.5
refuse "--multi-club takes a number from 0 to 1, not '-0.5'" --multi-club -0.5
refuse "--regionals takes a whole number from 0 to 52, not '60'" --regionals 60
refuse "--nationals takes a whole number from 0 to 12, not '1.5'" --nationals 1.5
refuse "--attendance takes a number from 0.01 to 1, not '0'" --attendance 0
refuse "--leave-rate takes a number from 0 to 1, not '2'" --leave-rate 2
refuse "--partnership-keep takes a number from 0 to 1, not 'nan'" --partnership-keep nan
refuse "--regional-share takes a number from 0 to 1, not '1.5'" --regional-share 1.5
refuse "--national-share takes a number from 0 to 1, not '-1'" --national-share -1
echo "generate, info and score: ok"
