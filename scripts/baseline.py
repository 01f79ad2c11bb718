#!/usr/bin/python3
"""Butler scoring of a datum archive with numpy, vectorised: what a researcher
would write instead of using datum. Reads the archive with h5py (no datum code),
computes every field's datum (mean, nbb or bastille), every result's WBF IMPs and
every pair's totals, and prints timings and a checksum comparable with datum's.

No Python loop per board: one grouped sort (fields are contiguous, so a single
sort of field*2^32 + score orders every field), ranks from the field offsets,
trimming masks, np.add.reduceat for the per-field sums, exact integer rounding,
a lookup table for the IMPs and np.bincount for the pair totals.

usage: scripts/baseline.py ARCHIVE.h5 [--datum mean|nbb|bastille] [--pairs OUT.csv]
"""
import argparse
import sys
import time

import h5py
import numpy as np

BOUNDARIES = np.array([15, 45, 85, 125, 165, 215, 265, 315, 365, 425, 495, 595, 745, 895,
                       1095, 1295, 1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995])
# WBF IMPs of any |d| with floor(|d|/5) == q, q capped at 800.
IMP_BY_FIFTH = np.searchsorted(BOUNDARIES, 5 * np.arange(801), side="right").astype(np.int64)


def read(path):
    with h5py.File(path, "r") as f:
        offset = f["fields/offset"][:].astype(np.int64)
        score = f["results/ns_score"][:].astype(np.int64)
        adjusted = f["results/adjusted"][:] if "adjusted" in f["results"] else None
        ns_pair = f["results/ns_pair"][:].astype(np.int64)
        ew_pair = f["results/ew_pair"][:].astype(np.int64)
        n_pairs = f["dict/pairs"].shape[0]
    return offset, score, adjusted, ns_pair, ew_pair, n_pairs


def butler(offset, score, adjusted, ns_pair, ew_pair, n_pairs, rule):
    n_fields = len(offset) - 1
    sizes = np.diff(offset)
    field = np.repeat(np.arange(n_fields, dtype=np.int64), sizes)
    real = np.ones(len(score), bool) if adjusted is None else adjusted == 0
    # Real scores first within each field, sorted: adjusted rows sort last.
    key = (field << 32) + np.where(real, score + (1 << 30), (1 << 32) - 1)
    sorted_scores = (np.sort(key) & 0xFFFFFFFF) - (1 << 30)
    n = np.bincount(field[real], minlength=n_fields)  # real results per field
    rank = np.arange(len(score), dtype=np.int64) - offset[field]
    nf = n[field]
    inside = rank < nf
    if rule == "mean":
        k = np.zeros(n_fields, np.int64)
    elif rule == "nbb":
        k = np.where(n >= 6, -(-n // 10), 0)
    else:  # bastille
        k = np.minimum(-(-n // 10), (n - 1) // 2)
    kf = k[field]
    weight = (inside & (rank >= kf) & (rank < nf - kf)).astype(np.int64)
    if rule == "nbb":  # 3..5 scores: the single extremes weigh 1, the others 2
        small = (nf >= 3) & (nf <= 5) & inside
        weight = np.where(small, np.where((rank == 0) | (rank == nf - 1), 1, 2), weight)
    starts = offset[:-1]
    nonempty = sizes > 0
    num = np.zeros(n_fields, np.int64)
    den = np.zeros(n_fields, np.int64)
    num[nonempty] = np.add.reduceat(weight * np.where(inside, sorted_scores, 0), starts[nonempty])
    den[nonempty] = np.add.reduceat(weight, starts[nonempty])
    has = den > 0
    if rule == "nbb":  # nearest multiple of 10, exact halves toward zero
        step = 10 * np.where(has, den, 1)
        q = np.floor_divide(num, step)
        twice = 2 * (num - q * step)
        q = q + ((twice > step) | ((twice == step) & (q < 0)))
        num, den = q * 10, np.ones(n_fields, np.int64)
    d_num, d_den = num[field], np.where(has, den, 1)[field]
    diff = score * d_den - d_num
    imps = np.sign(diff) * IMP_BY_FIFTH[np.minimum(np.abs(diff) // (5 * d_den), 800)]
    imps = np.where(real, imps, 0).astype(np.float64)
    adj_ns = np.zeros(len(score))  # adjusted awards (A+ 3 / A 0 / A- -3, NS side)
    if adjusted is not None:
        ns_award = np.array([0, 3, 0, -3, 3, -3, 0, 3, -3, 3, 0, -3, 0], float)  # codes 0..12
        ew_award = np.array([0, -3, 0, 3, -3, 3, 0, 3, -3, 0, 3, 0, -3], float)
        adj_ns = ns_award[adjusted]
        ew_imps = np.where(real, -imps, ew_award[adjusted])
        imps = np.where(real, imps, adj_ns)
    else:
        ew_imps = -imps
    pair_imps = np.bincount(ns_pair, imps, n_pairs) + np.bincount(ew_pair, ew_imps, n_pairs)
    boards = np.bincount(ns_pair, minlength=n_pairs) + np.bincount(ew_pair, minlength=n_pairs)
    datum = np.where(has, num / np.where(has, den, 1), np.nan)
    return datum, imps, pair_imps, boards


def shortest(x):
    """Shortest round-trip text, as datum writes it (no ".0" on integers)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive")
    ap.add_argument("--datum", default="nbb", choices=["mean", "nbb", "bastille"])
    ap.add_argument("--pairs", help="write pair,boards,imps,imps_per_board here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    data = read(args.archive)
    t1 = time.perf_counter()
    datum, imps, pair_imps, boards = butler(*data, args.datum)
    t2 = time.perf_counter()
    n = len(imps)
    print(f"baseline: read {t1 - t0:.3f} s, compute {t2 - t1:.3f} s, {n} results, "
          f"{n / (t2 - t1) / 1e6:.1f} M results/s (compute), "
          f"checksum imps {float(np.abs(imps).sum()):.17g} pairs {float(np.abs(pair_imps).sum()):.17g}")
    if args.pairs:
        with h5py.File(args.archive, "r") as f:
            names = f["dict/pairs"].asstr()[:]
        with open(args.pairs, "w") as out:
            out.write("pair,boards,imps,imps_per_board\n")
            for p in np.argsort(names, kind="stable"):
                if boards[p]:
                    out.write(f"{names[p]},{boards[p]},{shortest(pair_imps[p])},"
                              f"{shortest(pair_imps[p] / boards[p])}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
