#!/usr/bin/env python3
"""One synthetic week of club sessions as results CSV, for scripts/bench-append: CLUBS clubs of
the `decade` preset (named as `datum generate` names them, "Club 0001 ...") each play SESSIONS
sessions of 24 boards in the week starting DATE (after the decade's last year, so every event is
new and sorts between the archive's own, club by club). Pairs are mostly the archive's (P0000001
...), some new. Deterministic (seeded).

    week_csv.py OUT.csv [--clubs 200] [--sessions 3] [--tables 21] [--date 2025-01-06] [--seed 1]
"""
import argparse
import csv
import datetime
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--clubs", type=int, default=200)
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--tables", type=int, default=21)
    ap.add_argument("--date", default="2025-01-06")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--known-pairs", type=int, default=31713, help="pairs of the archive to draw from")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    first = datetime.date.fromisoformat(args.date)
    rows = 0
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score"])
        for club in range(1, args.clubs + 1):
            for s in range(args.sessions):
                day = (first + datetime.timedelta(days=2 * s)).isoformat()
                event = f"Club {club:04d} {day}"
                pairs = set()
                while len(pairs) < 2 * args.tables:
                    if rng.random() < 0.05:
                        pairs.add(f"New {club:04d}-{rng.randrange(1000):03d}")
                    else:
                        pairs.add(f"P{rng.randrange(1, args.known_pairs + 1):07d}")
                pairs = sorted(pairs)
                rng.shuffle(pairs)
                for board in range(1, 25):
                    for t in range(args.tables):
                        score = rng.choice([-1430, -650, -620, -200, -100, -50, 90, 110, 140, 170,
                                            400, 420, 450, 620, 650, 1430])
                        w.writerow([event, day, "", board, t + 1, pairs[2 * t], pairs[2 * t + 1],
                                    score])
                        rows += 1
    print(rows)


if __name__ == "__main__":
    main()
