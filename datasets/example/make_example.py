#!/usr/bin/env python3
"""Writes club-session.csv beside this script: a made-up but realistic club evening.

16 pairs at 8 tables, 8 rounds of 3 boards (24 boards, each played once a round, so 8 results a
board), a Mitchell with a skip and arrow switches, so that pairs switch direction as in a Howell.
Every score is a legal duplicate score computed from contract, doubling, tricks and the board's
vulnerability; two results are adjusted. Deterministic: running it again gives the same file.
"""
import csv
import os
import random

EVENT, DATE, SECTION = "Tuesday club pairs", "2024-03-12", "A"
PAIRS, ROUNDS, BOARDS_PER_ROUND = 16, 8, 3
TABLES = PAIRS // 2
ADJUSTED = {(5, 2): "A+", (17, 6): "A/A"}  # (board, table) -> token
# Vulnerability of boards 1..16, repeating: who is vulnerable.
VULNERABLE = ("", "NS", "EW", "NSEW", "NS", "EW", "NSEW", "", "EW", "NSEW", "", "NS", "NSEW", "",
              "NS", "EW")


def duplicate_score(level, strain, doubled, vulnerable, tricks):
    """Declarer's score: level 1-7, strain C D H S N, doubled 0/1/2 (X, XX), tricks taken 0-13."""
    need = level + 6
    if tricks < need:
        if not doubled:
            return -(need - tricks) * (100 if vulnerable else 50)
        first, later = (200, 300) if vulnerable else (100, 200)
        penalty = sum(first if i == 0 else later if vulnerable or i < 3 else 300
                      for i in range(need - tricks))
        return -penalty * doubled
    per_trick = 20 if strain in "CD" else 30
    contract = (per_trick * level + (10 if strain == "N" else 0)) * (1, 2, 4)[doubled]
    score = contract + ((500 if vulnerable else 300) if contract >= 100 else 50)
    score += {6: 750 if vulnerable else 500, 7: 1500 if vulnerable else 1000}.get(level, 0)
    over = tricks - need
    if doubled:
        return score + 50 * doubled + over * (200 if vulnerable else 100) * doubled
    return score + over * per_trick


def movement():
    """(table, ns_pair, ew_pair, board set) of every round of a Mitchell with a skip after round 4
    (so no pair meets a board set twice), arrow-switched at every other table so that all pairs
    sit both ways. Pairs 1-8 start North-South at their table, pairs 9-16 East-West."""
    out = []
    for rnd in range(ROUNDS):
        skip = rnd >= ROUNDS // 2
        for t in range(TABLES):
            home, visitor = t + 1, TABLES + 1 + (t - rnd - skip) % TABLES
            ns, ew = (home, visitor) if (rnd + t) % 2 == 0 else (visitor, home)
            out.append((t + 1, ns, ew, (t + rnd) % TABLES))
    return out


def deal(rng, board):
    """The board's normal contract: (declaring side, level, strain, expected tricks)."""
    side = rng.choice(("NS", "EW"))
    level, strain = rng.choice(((1, "N"), (2, "H"), (2, "S"), (3, "C"), (3, "N"), (4, "H"),
                                (4, "S"), (4, "S"), (3, "N"), (5, "D"), (6, "H"), (6, "N")))
    return side, level, strain, level + 6 + rng.choice((-1, 0, 0, 0, 1))


def table_result(rng, board, normal):
    """NS score at one table: usually the normal contract, sometimes a variation."""
    side, level, strain, tricks = normal
    doubled = 0
    roll = rng.random()
    if roll < 0.15 and level > 1:
        level -= 1  # stopped low
    elif roll < 0.25 and level < 6:
        level += 1  # overbid
    elif roll < 0.32 and level < 6:  # the other side sacrifices, doubled
        side, level, doubled = "EW" if side == "NS" else "NS", level + 1, 1
        tricks = level + 6 - rng.choice((1, 2, 2, 3))
    elif roll < 0.36:
        strain = "N" if strain != "N" else "S"
    tricks = max(0, min(13, tricks + rng.choice((-1, 0, 0, 0, 0, 1))))
    vulnerable = side in VULNERABLE[(board - 1) % 16]
    points = duplicate_score(level, strain, doubled, vulnerable, tricks)
    return points if side == "NS" else -points


def rows():
    rng = random.Random(20240312)
    normal = {b: deal(rng, b) for b in range(1, ROUNDS * BOARDS_PER_ROUND + 1)}
    out = []
    for table, ns, ew, board_set in movement():
        for i in range(BOARDS_PER_ROUND):
            board = board_set * BOARDS_PER_ROUND + i + 1
            adjusted = ADJUSTED.get((board, table), "")
            score = "" if adjusted else table_result(rng, board, normal[board])
            out.append([EVENT, DATE, SECTION, board, table, ns, ew, score, adjusted])
    return sorted(out, key=lambda r: (r[3], r[4]))


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "club-session.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["event", "date", "section", "board", "table", "ns_pair", "ew_pair",
                    "ns_score", "adjusted"])
        w.writerows(rows())


if __name__ == "__main__":
    main()
