#!/usr/bin/python3
"""Compensated Butler ratings (methods.md §6, seed 000) of a datum archive with numpy and
scipy: what a researcher would write instead of using `datum rate`. Reads the archive with
h5py (no datum code), computes every real result's Butler IMPs against the field's mean
(exactly, in integers), assembles the same system A v = r with scipy.sparse and solves it.

The archive is read in chunks of whole fields (memory: A and one chunk). Assembly as sparse
products: with E (one row per table: +1 at its NS pair, -1 at its EW pair)
and G (one row per field: the sum of its tables' rows), A = E' C E - G' (C/L) G, C the
weights L/(L-1) of each table's and field's board. Null space: the indicator of every
opponent component (scipy.sparse.csgraph); one pair pinned in each, r projected off them,
the pinned system solved by conjugate gradients with a Jacobi preconditioner (scipy's cg,
relative residual 1e-10) or by SuperLU (spsolve), then each component shifted to board-weighted
mean 0. That covers well-mixed archives (the generator's); datum also handles the other
null directions of methods.md §6.

usage: scripts/baseline_rate.py ARCHIVE.h5 [--solver cg|spsolve] [--out RATINGS.csv]
Prints the timings of each phase on one line: "read R s, assemble A s, solve S s, ...".
"""
import argparse
import sys
import time

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

BOUNDARIES = np.array([15, 45, 85, 125, 165, 215, 265, 315, 365, 425, 495, 595, 745, 895,
                       1095, 1295, 1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995])
# WBF IMPs of any |d| with floor(|d|/5) == q, q capped at 800 (the boundaries are multiples of 5).
IMP_BY_FIFTH = np.searchsorted(BOUNDARIES, 5 * np.arange(801), side="right").astype(np.int64)


def chunks(f, rows=1 << 24):
    """The archive's real results, in chunks of whole fields of about `rows` rows:
    (field index, score, ns, ew) per row, fields numbered from 0 in each chunk."""
    offset = f["fields/offset"][:].astype(np.int64)
    res = f["results"]
    first = 0
    while first < len(offset) - 1:
        last = int(np.searchsorted(offset, offset[first] + rows, side="right")) - 1
        last = max(last, first + 1)
        a, b = int(offset[first]), int(offset[last])
        field = np.repeat(np.arange(last - first, dtype=np.int64), np.diff(offset[first:last + 1]))
        score = res["ns_score"][a:b].astype(np.int64)
        ns = res["ns_pair"][a:b].astype(np.int64)
        ew = res["ew_pair"][a:b].astype(np.int64)
        if "adjusted" in res:
            real = res["adjusted"][a:b] == 0
            field, score, ns, ew = field[real], score[real], ns[real], ew[real]
        yield last - first, field, score, ns, ew
        first = last


def butler(field, score, n_fields):
    """L per field and each row's NS Butler IMPs against the field's mean, exactly."""
    L = np.bincount(field, minlength=n_fields)
    total = np.bincount(field, weights=score, minlength=n_fields).astype(np.int64)
    diff = score * L[field] - total[field]  # (s - mean) * L
    imps = np.sign(diff) * IMP_BY_FIFTH[np.minimum(np.abs(diff) // (5 * L[field]), 800)]
    return L, imps.astype(np.float64)


def assemble_chunk(field, ns, ew, L, n_pairs):
    """This chunk's part of A: E' C E - G' (C/L) G over its fields of 2 tables or more."""
    t = len(field)
    rows = np.repeat(np.arange(t), 2)
    cols = np.stack([ns, ew], axis=1).ravel()
    vals = np.tile([1.0, -1.0], t)
    E = sp.csr_matrix((vals, (rows, cols)), shape=(t, n_pairs))
    c = L[field] / (L[field] - 1.0)
    G = sp.csr_matrix((vals, (np.repeat(field, 2), cols)), shape=(len(L), n_pairs))
    cf = np.where(L >= 2, 1.0 / np.maximum(L - 1.0, 1.0), 0.0)  # c_b / L_b
    return E.T @ sp.diags(c) @ E - G.T @ sp.diags(cf) @ G


def solve(A, r, n, opponents, method):
    rated = n > 0
    P = len(n)
    n_comp, label = csgraph.connected_components(opponents, directed=False)
    # r_c: r minus its projection on the indicators (Euclidean).
    size = np.bincount(label, weights=rated.astype(float), minlength=n_comp)
    mean_r = np.bincount(label, weights=r, minlength=n_comp) / np.maximum(size, 1)
    rc = np.where(rated, r - mean_r[label], 0.0)
    # Pin the first rated pair of every component.
    first = np.full(n_comp, -1)
    order = np.flatnonzero(rated)[::-1]
    first[label[order]] = order
    free = rated.copy()
    free[first[first >= 0]] = False
    idx = np.flatnonzero(free)
    Arr = A[idx][:, idx].tocsr()
    b = rc[idx]
    if method == "spsolve":
        y = spla.spsolve(Arr.tocsc(), b)
        iterations = 0
    else:
        inv_diag = 1.0 / Arr.diagonal()
        Mop = spla.LinearOperator(Arr.shape, matvec=lambda x: inv_diag * x)
        count = [0]
        y, info = spla.cg(Arr, b, tol=1e-10, maxiter=20000, M=Mop,
                          callback=lambda _: count.__setitem__(0, count[0] + 1))
        if info != 0:
            print(f"baseline: cg did not converge (info {info})", file=sys.stderr)
        iterations = count[0]
    v = np.zeros(P)
    v[idx] = y
    # The minimum board-weighted norm: weighted mean 0 in every component.
    wsum = np.bincount(label, weights=n, minlength=n_comp)
    shift = np.bincount(label, weights=n * v, minlength=n_comp) / np.maximum(wsum, 1e-300)
    v = np.where(rated, v - shift[label], np.nan)
    res = np.linalg.norm(A @ np.nan_to_num(v) - rc) / np.linalg.norm(rc)
    return v, iterations, res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("--solver", choices=("cg", "spsolve"), default="cg")
    ap.add_argument("--out", help="ratings CSV (pair,boards,rating)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    with h5py.File(args.archive, "r", rdcc_nbytes=64 << 20) as f:
        pairs = f["dict/pairs"].asstr()[:]
        P = len(pairs)
        A = sp.csr_matrix((P, P))
        opponents = sp.csr_matrix((P, P))
        r, n = np.zeros(P), np.zeros(P)
        t_read = 0.0
        t = time.perf_counter()
        for n_fields, field, score, ns, ew in chunks(f):
            t_read += time.perf_counter() - t
            L, imps = butler(field, score, n_fields)
            keep = L[field] >= 2  # one-table fields compare with nothing
            field, ns, ew, imps = field[keep], ns[keep], ew[keep], imps[keep]
            A = A + assemble_chunk(field, ns, ew, L, P)
            opponents = opponents + sp.csr_matrix((np.ones(len(ns)), (ns, ew)), shape=(P, P))
            r += np.bincount(ns, weights=imps, minlength=P) - np.bincount(ew, weights=imps, minlength=P)
            n += np.bincount(ns, minlength=P) + np.bincount(ew, minlength=P)
            t = time.perf_counter()
    t1 = t0 + t_read
    t2 = time.perf_counter()
    v, iterations, res = solve(A, r, n, opponents, args.solver)
    t3 = time.perf_counter()
    if args.out:
        with open(args.out, "w") as f:
            f.write("pair,boards,rating\n")
            for p in np.flatnonzero(n > 0):
                f.write(f"{pairs[p]},{n[p]:.17g},{v[p]:.17g}\n")
    t4 = time.perf_counter()
    print(f"read {t1 - t0:.2f} s, score and assemble {t2 - t1:.2f} s, solve {t3 - t2:.2f} s "
          f"({args.solver}, {iterations} iterations, relative residual {res:.2e}), "
          f"write {t4 - t3:.2f} s, compute {t3 - t1:.2f} s, total {t4 - t0:.2f} s; "
          f"{int((n > 0).sum())} pairs, nnz(A) {A.nnz}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
