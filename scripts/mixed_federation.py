#!/usr/bin/env python3
"""Writes the CSV of a synthetic federation whose club sessions mix, for
`datum import` (docs/cli.md), until `datum generate` has its own mixing.

Pairs belong to clubs, clubs to regions. Every club session seats `--tables`
tables; each seat is taken by a member of the club, with probability
`--regional` by a pair of another club of the same region, with probability
`--anywhere` by any pair of the federation. A session is `--rounds` rounds of
`--boards-per-round` boards; in every round all tables play the same boards
(one field per board), opponents rotating. Scores: a board's par plus 30
points per unit of strength difference plus noise, in tens.

    scripts/mixed_federation.py --pairs 8000 --results 5500000 \
        --regional 0.3 --anywhere 0.03 -o fed.csv
    datum import fed.csv -o fed.h5

Deterministic for a given --seed. The true strengths go to --truth (pair,strength)
if asked.
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=8000)
    ap.add_argument("--results", type=int, default=5_500_000, help="table results, about")
    ap.add_argument("--club-size", type=int, default=40)
    ap.add_argument("--clubs-per-region", type=int, default=10)
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--boards-per-round", type=int, default=3)
    ap.add_argument("--regional", type=float, default=0.3)
    ap.add_argument("--anywhere", type=float, default=0.03)
    ap.add_argument("--days", type=int, default=3 * 365)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truth")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    n_clubs = max(1, a.pairs // a.club_size)
    club = np.arange(a.pairs) % n_clubs
    region = club // a.clubs_per_region
    members = [np.flatnonzero(club == c) for c in range(n_clubs)]
    in_region = [np.flatnonzero(region == r) for r in range(region.max() + 1)]
    strength = rng.normal(0, 1, a.pairs) + rng.normal(0, 0.5, n_clubs)[club]
    seats = 2 * a.tables
    boards = a.rounds * a.boards_per_round
    sessions = max(1, a.results // (a.tables * boards))
    out = open(a.out, "w", buffering=1 << 20)
    out.write("event,date,section,board,table,ns_pair,ew_pair,ns_score\n")
    base = np.datetime64("2020-01-01")
    for s in range(sessions):
        c = s % n_clubs
        own, reg = members[c], in_region[region[members[c][0]]]
        u = rng.random(seats * 3)
        cand = np.where(u < a.anywhere, rng.integers(0, a.pairs, u.size),
                        np.where(u < a.anywhere + a.regional, rng.choice(reg, u.size),
                                 rng.choice(own, u.size)))
        _, first = np.unique(cand, return_index=True)
        who = cand[np.sort(first)]
        if who.size < seats:
            who = np.concatenate([who, rng.choice(np.setdiff1d(own, who), seats - who.size,
                                                  replace=False)])
        who = who[:seats]
        ns, ew = who[:a.tables], who[a.tables:]
        date = str(base + np.timedelta64(int(s * a.days // sessions), "D"))
        event = f"S{s}"
        lines = []
        for r in range(a.rounds):
            opp = ew[(np.arange(a.tables) + r) % a.tables]
            for k in range(a.boards_per_round):
                b = r * a.boards_per_round + k + 1
                par = rng.normal(0, 300)
                score = 10 * np.rint((par + 30 * (strength[ns] - strength[opp])
                                      + rng.normal(0, 120, a.tables)) / 10).astype(int)
                for t in range(a.tables):
                    lines.append(f"{event},{date},,{b},{t + 1},P{ns[t]},P{opp[t]},{score[t]}\n")
        out.write("".join(lines))
    out.close()
    if a.truth:
        with open(a.truth, "w") as f:
            f.write("pair,strength\n")
            f.writelines(f"P{j},{strength[j]:.6f}\n" for j in range(a.pairs))
    print(f"{sessions} sessions, {sessions * a.tables * boards} results, {a.pairs} pairs",
          file=sys.stderr)


if __name__ == "__main__":
    main()
