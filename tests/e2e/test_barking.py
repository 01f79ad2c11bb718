#!/usr/bin/env python3
"""End-to-end tests of `datum barking` and `datum teams` (methods.md §5, seed 002).

Every figure is checked against a literal enumeration written here, independently of the
engine: barking sums wbf(s_i + s_j - s_k - s_l) over every same-direction partner j and every
unordered pair {k, l} of other-direction tables, and the teams match is wbf of a team's
own-perspective aggregate. Standard library only.

usage: test_barking.py --datum PATH [--seed N]
"""
import argparse
import csv
import itertools
import os
import random
import subprocess
import sys
import tempfile

# WBF band boundaries (methods.md §1): |d| >= B[t] gives at least t + 1 IMPs.
BOUNDARIES = (15, 45, 85, 125, 165, 215, 265, 315, 365, 425, 495, 595, 745, 895, 1095, 1295,
              1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995)


def wbf(d):
    band = sum(1 for b in BOUNDARIES if abs(d) >= b)
    return band if d >= 0 else -band


def imp(d, doubled=False, halved=False):
    v = wbf(2 * d if doubled else d)
    return v / 2 if halved else v


def barking_literal(scores, doubled=False, halved=False):
    """NS raw barking sum of every table, by enumerating every term."""
    n = len(scores)
    out = []
    for i in range(n):
        total = 0
        for j in range(n):
            if j == i:
                continue
            rest = [k for k in range(n) if k not in (i, j)]
            for k, l in itertools.combinations(rest, 2):
                total += imp(scores[i] + scores[j] - scores[k] - scores[l], doubled, halved)
        out.append(total)
    return out


def terms(n):
    return (n - 1) * (n - 2) * (n - 3) // 2 if n >= 4 else 0


HEADER = ["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score",
          "adjusted", "ns_team", "ew_team", "match"]


def league(rng):
    """Rows of a teams league (two divisions of 2 and 3 matches: 8 and 12 tables per board) and of
    a pairs event (fields of 2 to 20 tables), with a few adjusted results."""
    pool = [-800, -500, -200, -100, -50, 90, 110, 140, 170, 420, 450, 620, 650, 680, 1430]
    rows = []

    def score():
        return rng.choice(pool) if rng.random() < 0.8 else 10 * rng.randint(-150, 150)

    for division, n_matches in (("D1", 2), ("D2", 3)):
        for board in range(1, 7):
            for m in range(n_matches):
                x, y = f"{division}-T{2 * m + 1}", f"{division}-T{2 * m + 2}"
                for t in range(4):
                    table = 4 * m + t + 1
                    ns, ew = (x, y) if t < 2 else (y, x)
                    adjusted = "A" if rng.random() < 0.03 else ""
                    rows.append(["League", "2024-02-01", division, board, table,
                                 f"{ns}-{t + 1}", f"{ew}-{t + 1}",
                                 "" if adjusted else score(), adjusted, ns, ew,
                                 f"{division}-M{m + 1}"])
    for board in range(1, 9):
        n = (2, 3, 4, 5, 7, 9, 13, 20)[board - 1]
        for t in range(1, n + 1):
            adjusted = "A+" if rng.random() < 0.05 else ""
            rows.append(["Pairs", "2024-02-03", "A", board, t, f"P{t}", f"P{100 + t}",
                         "" if adjusted else score(), adjusted, "", "", ""])
    return rows


SEED_CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "datasets",
                        "seeds", "barking-one-match.csv")


class Runner:
    def __init__(self, datum, tmp):
        self.datum, self.tmp = datum, tmp

    def run(self, *args):
        return subprocess.run([self.datum, *map(str, args)], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=600)

    def ok(self, *args):
        p = self.run(*args)
        if p.returncode != 0:
            raise AssertionError(f"datum {' '.join(map(str, args))} exited {p.returncode}:\n"
                                 f"{p.stderr}")
        return p

    def path(self, name):
        return os.path.join(self.tmp, name)

    def archive(self, name, rows):
        """Teams rows in one CSV, the others in a second one without the teams columns."""
        sources = []
        for part, subset, width in (("teams", [r for r in rows if r[11]], 12),
                                    ("pairs", [r for r in rows if not r[11]], 9)):
            if not subset:
                continue
            sources.append(self.path(f"{name}-{part}.csv"))
            with open(sources[-1], "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(HEADER[:width])
                w.writerows(r[:width] for r in subset)
        self.ok("import", *sources, "-o", self.path(name + ".h5"))
        return self.path(name + ".h5")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def fields_of(rows):
    fields = {}
    for r in rows:
        fields.setdefault((r[0], r[2], int(r[3])), []).append(r)
    return fields


def check_barking(runner, archive, rows, options, label):
    """Per result and per pair against the literal enumeration; 1 and 2 threads identical."""
    doubled, halved = "--double" in options, "--half" in options
    outs = []
    for threads in (1, 2):
        res, pairs = runner.path(f"{label}-r{threads}.csv"), runner.path(f"{label}-p{threads}.csv")
        runner.ok("barking", archive, *options, "--threads", threads, "--results", res,
                  "--pairs", pairs)
        outs.append((open(res, "rb").read(), open(pairs, "rb").read()))
    assert outs[0] == outs[1], f"{label}: 1 and 2 threads differ"
    got = {(r["event"], r["section"], int(r["board"]), int(r["table"])): r
           for r in read_csv(runner.path(f"{label}-r1.csv"))}
    expected_rows, totals = 0, {}
    for key, field in sorted(fields_of(rows).items()):
        real = [r for r in field if not r[8]]
        if len(real) < 4:
            for r in field:
                assert (key + (r[4],)) not in got, f"{label}: {key} table {r[4]} has a score"
            continue
        raw = barking_literal([int(r[7]) for r in real], doubled, halved)
        n_terms = terms(len(real))
        for r, x in zip(real, raw):
            g = got[key + (r[4],)]
            expected_rows += 1
            assert float(g["ns_raw"]) == x, f"{label}: {key} table {r[4]}: {g['ns_raw']} != {x}"
            assert float(g["ns_avg"]) == x / n_terms
            assert int(g["terms"]) == n_terms
            assert float(g["ew_raw"]) == -x and float(g["ew_avg"]) == -(x / n_terms)
            for pair, sign in ((r[5], 1), (r[6], -1)):
                t = totals.setdefault(pair, [0, 0.0, 0.0])
                t[0] += 1
                t[1] += sign * x / n_terms
                t[2] += sign * x
    assert len(got) == expected_rows, f"{label}: {len(got)} rows, expected {expected_rows}"
    pairs = {p["pair"]: p for p in read_csv(runner.path(f"{label}-p1.csv"))}
    assert set(pairs) == set(totals), f"{label}: pairs {sorted(set(pairs) ^ set(totals))}"
    for pair, (boards, imps, raw) in totals.items():
        p = pairs[pair]
        assert int(p["boards"]) == boards
        assert abs(float(p["imps"]) - imps) <= 1e-9 * max(1.0, abs(imps)), (pair, p, imps)
        assert float(p["raw_imps"]) == raw
    return expected_rows


def check_teams(runner, archive, rows):
    """Per match and board and per match against the teams' aggregates."""
    m_csv, t_csv = runner.path("matches.csv"), runner.path("totals.csv")
    runner.ok("teams", archive, "--matches", m_csv, "--totals", t_csv, "--threads", 2)
    boards, totals = {}, {}
    for r in rows:
        if not r[11]:
            continue
        key = (r[0], r[2], int(r[3]), r[11])
        b = boards.setdefault(key, {"teams": set(), "agg": {}, "tables": 0, "adjusted": False})
        b["teams"].update((r[9], r[10]))
        b["tables"] += 1
        if r[8]:
            b["adjusted"] = True
            continue
        s = int(r[7])
        b["agg"][r[9]] = b["agg"].get(r[9], 0) + s  # NS team: +score
        b["agg"][r[10]] = b["agg"].get(r[10], 0) - s  # EW team: -score
    got = {(r["event"], r["section"], int(r["board"]), r["match"]): r for r in read_csv(m_csv)}
    assert set(got) == set(boards), sorted(set(got) ^ set(boards))
    for key, b in boards.items():
        a, z = sorted(b["teams"])
        g = got[key]
        assert (g["team"], g["opponent"], int(g["tables"])) == (a, z, b["tables"]), (key, g)
        if b["adjusted"]:
            assert g["aggregate"] == "" and g["imps"] == "", (key, g)
            continue
        assert b["agg"][a] == -b["agg"][z]  # the two teams' aggregates are negations
        assert int(float(g["aggregate"])) == b["agg"][a] and float(g["imps"]) == wbf(b["agg"][a])
        t = totals.setdefault(key[:2] + (key[3],), {a: [0, 0.0, 0.0], z: [0, 0.0, 0.0]})
        for team, sign in ((a, 1), (z, -1)):
            v = sign * wbf(b["agg"][a])
            t[team][0] += 1
            t[team][1 if v > 0 else 2] += abs(v)
    got_totals = {(r["event"], r["section"], r["match"], r["team"]): r for r in read_csv(t_csv)}
    assert len(got_totals) == 2 * len(totals)
    for key, teams in totals.items():
        for team, (n, won, lost) in teams.items():
            g = got_totals[key + (team,)]
            assert (int(g["boards"]), float(g["imps_won"]), float(g["imps_lost"])) == (n, won, lost)
            assert float(g["net"]) == won - lost
    return len(boards)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datum", required=True)
    ap.add_argument("--seed", type=int, default=20090531)
    args = ap.parse_args()
    print(f"# seed {args.seed} (--seed to replay)")
    rng = random.Random(args.seed)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="datum-barking-") as tmp:
        runner = Runner(os.path.abspath(args.datum), tmp)
        league_rows = league(rng)
        checks = [
            ("seed 002 match (datasets/seeds/barking-one-match.csv): 22, -2, 6, -26",
             lambda: check_seed(runner)),
            ("league, wbf", lambda: check_barking(
                runner, runner.archive("league", league_rows), league_rows, [], "wbf")),
            ("league, --double --half", lambda: check_barking(
                runner, runner.path("league.h5"), league_rows, ["--double", "--half"], "dh")),
            ("league, teams matches", lambda: check_teams(runner, runner.path("league.h5"),
                                                          league_rows)),
            ("errors", lambda: check_errors(runner)),
        ]
        for name, check in checks:
            try:
                out = check()
                print(f"ok   {name}{f' ({out} checked)' if out is not None else ''}")
                passed += 1
            except AssertionError as e:
                print(f"FAIL {name}: {e}")
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def check_seed(runner):
    archive = runner.path("seed.h5")
    runner.ok("import", SEED_CSV, "-o", archive)
    res = runner.path("seed.csv")
    runner.ok("barking", archive, "--results", res)
    rows = read_csv(res)
    got = [(float(r["ns_raw"]), float(r["ew_raw"]), int(r["terms"])) for r in rows]
    assert got == [(22, -22, 3), (-2, 2, 3), (6, -6, 3), (-26, 26, 3)], got
    # Seed 002: IMP(A+B+C+D) + IMP(A-B+C-D) + IMP(A-B-C+D) from X1's seat, own perspectives.
    a, b, c, d = 620, 170, -420, 100
    assert wbf(a + b + c + d) + wbf(a - b + c - d) + wbf(a - b - c + d) == 22
    m = read_csv_after(runner, "teams", archive, "--matches")
    assert (m[0]["team"], m[0]["aggregate"], m[0]["imps"]) == ("X", "470", "10"), m
    return 4


def read_csv_after(runner, command, archive, option):
    out = runner.path(f"{command}-out.csv")
    runner.ok(command, archive, option, out)
    return read_csv(out)


def check_errors(runner):
    p = runner.run("barking", runner.path("league.h5"), "--scale", "linear")
    assert p.returncode == 2 and "wbf" in p.stderr, p
    plain = runner.archive("plain", [["E", "2024-01-01", "", 1, t, f"N{t}", f"S{t}", 10 * t, "",
                                      "", "", ""] for t in range(1, 5)])
    p = runner.run("teams", plain)
    assert p.returncode == 2 and "teams" in p.stderr, p
    return None


if __name__ == "__main__":
    sys.exit(main())
