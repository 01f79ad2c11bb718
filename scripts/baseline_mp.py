#!/usr/bin/python3
"""Matchpoints of a datum archive with numpy, vectorised: what a researcher would
write instead of using datum (docs/methods.md, "Matchpoints"). Reads the archive
with h5py (no datum code); 2 per result beaten and 1 per tie among a field's real
results, Neuberg's formula to the event's largest field, adjusted results as
60/50/40% of the top; each pair's matchpoints, tops and percentage.

No Python loop per board: one sort of field*2^32 + score over the real results,
np.searchsorted for the results below and at each score, np.maximum.reduceat
for each event's largest field, np.bincount for the pair totals.

usage: scripts/baseline_mp.py ARCHIVE.h5 [--pairs OUT.csv]
"""
import argparse
import sys
import time

import h5py
import numpy as np

# Shares of the top for each adjusted code (engine/datum.h; NS, EW).
SHARES = {1: (.6, .4), 2: (.5, .5), 3: (.4, .6), 4: (.6, .4), 5: (.4, .6), 6: (.5, .5),
          7: (.6, .6), 8: (.4, .4), 9: (.6, .5), 10: (.5, .6), 11: (.4, .5), 12: (.5, .4)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive")
    ap.add_argument("--pairs")
    args = ap.parse_args()
    t0 = time.perf_counter()
    with h5py.File(args.archive, "r") as f:
        offset = f["fields/offset"][:].astype(np.int64)
        event = f["fields/event"][:].astype(np.int64)
        score = f["results/ns_score"][:].astype(np.int64)
        adjusted = f["results/adjusted"][:] if "adjusted" in f["results"] else np.zeros(len(score), np.uint8)
        ns_pair = f["results/ns_pair"][:].astype(np.int64)
        ew_pair = f["results/ew_pair"][:].astype(np.int64)
        names = f["dict/pairs"].asstr()[:]
    t_read = time.perf_counter() - t0
    t1 = time.perf_counter()
    sizes = np.diff(offset)
    field = np.repeat(np.arange(len(sizes)), sizes)
    real = adjusted == 0
    r = np.bincount(field[real], minlength=len(sizes))  # real results per field
    # The event's largest field, per field (fields of an event are contiguous).
    starts = np.flatnonzero(np.r_[True, event[1:] != event[:-1]])
    largest = np.repeat(np.maximum.reduceat(sizes, starts), np.diff(np.r_[starts, len(sizes)]))
    size = np.maximum(largest, sizes)
    top = np.where(size > 1, 2.0 * (size - 1), 0.0)
    key = field * (1 << 32) + (score + (1 << 31))
    sorted_keys = np.sort(key[real])
    first = np.r_[0, np.cumsum(r)][field]  # where each field starts among the sorted keys
    lo = np.searchsorted(sorted_keys, key, "left") - first
    hi = np.searchsorted(sorted_keys, key, "right") - first
    m = (lo + hi - 1).astype(np.float64)
    rf = r[field]
    factored = (size[field] != rf) & (rf > 0)
    m = np.where(factored, (m + 1) * size[field] / np.maximum(rf, 1) - 1, m)
    ns = np.where(real, m, 0.0)
    ew = np.where(real, top[field] - m, 0.0)
    for code, (a, b) in SHARES.items():
        sel = adjusted == code
        ns[sel] = a * top[field][sel]
        ew[sel] = b * top[field][sel]
    n_pairs = len(names)
    mp = np.bincount(ns_pair, ns, n_pairs) + np.bincount(ew_pair, ew, n_pairs)
    tops = np.bincount(ns_pair, top[field], n_pairs) + np.bincount(ew_pair, top[field], n_pairs)
    boards = np.bincount(ns_pair, minlength=n_pairs) + np.bincount(ew_pair, minlength=n_pairs)
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = np.where(tops > 0, 100 * mp / tops, np.nan)
    t_compute = time.perf_counter() - t1
    if args.pairs:
        with open(args.pairs, "w") as out:
            out.write("pair,boards,matchpoints,top,percentage\n")
            for q in np.flatnonzero(boards):
                out.write(f"{names[q]},{boards[q]},{mp[q]!r},{tops[q]!r},{pct[q]!r}\n")
    print(f"read {t_read:.2f} s, compute {t_compute:.2f} s, total {time.perf_counter() - t0:.2f} s; "
          f"{len(score)} results, {int((boards > 0).sum())} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
