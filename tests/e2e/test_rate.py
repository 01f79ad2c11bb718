#!/usr/bin/env python3
"""End-to-end tests of `datum rate` (methods.md §6, seed 000): CSV in, ratings out.

- the 2-table field solved by hand (docs/methods.md, "Ratings"): 1.5, -1.5, -1.5, 1.5;
- a small well-mixed archive against a reference written here from seed 000's equation for
  each pair (Gaussian elimination; null space = the constant, so the minimum board-weighted
  norm solution is the gauged one shifted to weighted mean 0);
- a strongly mixed generated federation (`generate --mixing high`) against the same reference,
  on every solver path;
- the report, the HDF5 output, the warm start, --evaluate on a generated archive, and the
  refusals (exit 2) with their messages.
Standard library, and h5py (python3-h5py, from scripts/setup) for the generated archive.

usage: test_rate.py --datum PATH
"""
import argparse
import csv
import json
import os
import re
import random
import subprocess
import sys
import tempfile

BOUNDARIES = (15, 45, 85, 125, 165, 215, 265, 315, 365, 425, 495, 595, 745, 895, 1095, 1295,
              1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995)
HEADER = ["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score"]


def wbf(d):
    band = sum(1 for b in BOUNDARIES if abs(d) >= b)
    return band if d >= 0 else -band


class Run:
    def __init__(self, datum, tmp):
        self.datum, self.tmp = datum, tmp

    def __call__(self, *args, expect=0):
        p = subprocess.run([self.datum, *map(str, args)], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=600)
        if p.returncode != expect:
            raise AssertionError(f"datum {' '.join(map(str, args))} exited {p.returncode}, "
                                 f"expected {expect}:\n{p.stdout}{p.stderr}")
        return p

    def path(self, name):
        return os.path.join(self.tmp, name)

    def archive(self, name, rows):
        csv_path = self.path(name + ".csv")
        with open(csv_path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(HEADER)
            w.writerows(rows)
        h5 = self.path(name + ".h5")
        self("import", csv_path, "-o", h5)
        return h5


def read_ratings(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and list(rows[0].keys()) == ["pair", "boards", "rating", "butler_per_board",
                                             "component"], rows[:1]
    return {r["pair"]: r for r in rows}


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(b))


def test_two_tables_by_hand(run):
    # Datum 185: N1 and E2 win imp(235) = 6, E1 and N2 lose 6. A = u u', u = (1,-1,-1,1),
    # r = 6u, so the minimum-norm solution is 6u/4.
    h5 = run.archive("hand", [["Match", "2024-03-02", "", 1, 1, "N1", "E1", 420],
                              ["Match", "2024-03-02", "", 1, 2, "N2", "E2", -50]])
    out = run.path("hand.csv")
    run("rate", h5, "--out", out)
    got = read_ratings(out)
    want = {"N1": 1.5, "E1": -1.5, "N2": -1.5, "E2": 1.5}
    for pair, v in want.items():
        assert close(float(got[pair]["rating"]), v, 1e-12), (pair, got[pair])
        assert float(got[pair]["butler_per_board"]) == 4 * v, got[pair]
        assert got[pair]["boards"] == "1" and got[pair]["component"] == "0", got[pair]


def mixed_rows(rng, n_pairs=12, rounds=30, tables=3, boards=2):
    """Barometer rounds of a club: a fresh seating and fresh directions every round."""
    strength = [rng.uniform(-2, 2) for _ in range(n_pairs)]
    rows, board = [], 0
    for k in range(rounds):
        seat = rng.sample(range(n_pairs), 2 * tables)
        for _ in range(boards):
            board += 1
            for t in range(tables):
                ns, ew = seat[2 * t], seat[2 * t + 1]
                if rng.random() < 0.5:
                    ns, ew = ew, ns
                score = 10 * round(10 * (strength[ns] - strength[ew]) + rng.randint(-30, 30))
                rows.append(["Club", "2024-01-%02d" % (1 + k % 28), "", board, t + 1,
                             "P%02d" % ns, "P%02d" % ew, score])
    return rows


def reference(rows):
    """Seed 000's equation for each pair, n_j v_j = sum_b [bb + v(a) - mean_ao v + mean_mo v],
    moved to the left; min sum n_j v_j^2 solution of a connected, mixed archive (null = 1)."""
    fields = {}
    for r in rows:
        fields.setdefault((r[0], r[2], r[3]), []).append((r[5], r[6], r[7]))
    pairs = sorted({p for f in fields.values() for t in f for p in t[:2]})
    idx = {p: i for i, p in enumerate(pairs)}
    n = len(pairs)
    A = [[0.0] * n for _ in range(n)]
    r = [0.0] * n
    w = [0.0] * n
    for tables in fields.values():
        L = len(tables)
        if L < 2:
            continue
        mean = sum(s for _, _, s in tables) / L
        for x, (ns, ew, s) in enumerate(tables):
            bb = wbf(s - mean)
            for j, opp, sign in ((ns, ew, 1), (ew, ns, -1)):
                i = idx[j]
                r[i] += sign * bb
                w[i] += 1
                A[i][i] += 1
                A[i][idx[opp]] -= 1
                for y, (ns2, ew2, _) in enumerate(tables):
                    if y == x:
                        continue
                    same, other = (ns2, ew2) if sign == 1 else (ew2, ns2)
                    A[i][idx[other]] += 1 / (L - 1)
                    A[i][idx[same]] -= 1 / (L - 1)
    # r_c: r minus its projection on null(A) = the constant; pin pair 0; Gaussian elimination.
    mean_r = sum(r) / n
    rc = [x - mean_r for x in r]
    m = n - 1
    M = [[A[i][j] for j in range(1, n)] + [rc[i]] for i in range(1, n)]
    for c in range(m):
        piv = max(range(c, m), key=lambda k: abs(M[k][c]))
        M[c], M[piv] = M[piv], M[c]
        for k in range(m):
            if k != c and M[k][c] != 0:
                f = M[k][c] / M[c][c]
                M[k] = [a - f * b for a, b in zip(M[k], M[c])]
    y = [0.0] + [M[c][m] / M[c][c] for c in range(m)]
    shift = sum(wj * yj for wj, yj in zip(w, y)) / sum(w)
    return {p: y[idx[p]] - shift for p in pairs}


def test_against_reference(run):
    rows = mixed_rows(random.Random(20240607))
    h5 = run.archive("club", rows)
    want = reference(rows)
    for solver in ("direct", "iterative"):
        out = run.path(f"club-{solver}.csv")
        report = run.path(f"club-{solver}.json")
        run("rate", h5, "--out", out, "--report", report, "--solver", solver, "--block-size", 4,
            "--threads", 2)
        got = read_ratings(out)
        assert set(got) == set(want), (sorted(got), sorted(want))
        for p, v in want.items():
            assert close(float(got[p]["rating"]), v, 1e-8), (solver, p, got[p]["rating"], v)
        rep = json.load(open(report))
        assert rep["solver"]["path"] == solver, rep["solver"]
        assert rep["null_directions"]["total"] == 1 and rep["components"]["total"] == 1, rep
        assert rep["residual"]["converged"] and rep["residual"]["relative_on_range"] <= 1e-10, rep
        for phase in ("read", "assemble", "factorise", "solve", "write", "total"):
            assert rep["time_seconds"][phase] >= 0, rep["time_seconds"]
    # The warm start from the solution itself: nothing left to iterate.
    out, report = run.path("club-warm.csv"), run.path("club-warm.json")
    run("rate", h5, "--out", out, "--report", report, "--solver", "iterative",
        "--warm-start", run.path("club-direct.csv"))
    assert json.load(open(report))["solver"]["warm_start_pairs"] == len(want)
    assert json.load(open(report))["solver"]["iterations"] <= 1
    # The HDF5 output holds the same ratings.
    try:
        import h5py
    except ImportError:
        return
    out_h5 = run.path("club-out.h5")
    run("rate", h5, "-o", out_h5)
    with h5py.File(out_h5, "r") as f:
        names = f["dict/pairs"].asstr()[:]
        rating = f["pairs/rating"][:]
        assert f.attrs["command"] == "rate"
        for p, v in zip(names, rating):
            assert close(float(v), want[p], 1e-8), (p, v, want[p])


def test_evaluate(run):
    h5 = run.path("gen.h5")
    run("generate", "-o", h5, "--clubs", 2, "--years", 1)
    report = run.path("gen.json")
    p = run("rate", h5, "--report", report, "--evaluate", "--fit-until", "2024-09-01")
    ev = json.load(open(report))["evaluation"]
    assert ev["truth"]["pearson_rating"] > ev["truth"]["pearson_raw_butler"], ev
    assert ev["prediction"]["predictions"] > 0, ev
    assert "correlation with the true strengths" in p.stdout, p.stdout


def test_certified_null_space(run):
    """A generated archive of clubs, years of sessions: one component whose null space the
    structure certifies (the constant): the iterative path says its search is complete without
    a numerical null direction, and its ratings are the direct path's."""
    h5 = run.path("six.h5")
    run("generate", "-o", h5, "--clubs", 6, "--years", 2)
    got = {}
    for solver in ("direct", "iterative"):
        out, report = run.path(f"six-{solver}.csv"), run.path(f"six-{solver}.json")
        p = run("rate", h5, "--out", out, "--report", report, "--solver", solver,
                "--block-size", 1)
        rep = json.load(open(report))
        nulls, comps = rep["null_space"], rep["components"]
        assert rep["null_directions"]["search_complete"] is True, rep["null_directions"]
        assert rep["null_directions"]["total"] == 1 and rep["null_directions"]["numerical"] == 0, rep
        assert nulls["certified_components"] == comps["total"] - comps["dense"] == 1, nulls
        assert nulls["certified_pairs"] == rep["data"]["rated_pairs"], (nulls, rep["data"])
        assert nulls["searched_components"] == 0 and nulls["searched"] == [], nulls
        assert nulls["certificate_rounds"] >= 1, nulls
        assert "certified by the structure" in p.stdout, p.stdout
        got[solver] = read_ratings(out)
    assert set(got["direct"]) == set(got["iterative"])
    for pair, row in got["direct"].items():
        assert close(float(got["iterative"][pair]["rating"]), float(row["rating"]), 1e-8), pair


def test_searched_component_listed(run):
    """A Mitchell of 65 tables (130 pairs: past the dense path), every round on its own board:
    its null space is the structural one (the indicator and the group: an odd number of tables)
    but arithmetic decides it, not the structure's closure (docs/methods.md): the component is
    searched numerically, and the report lists it, complete on the direct path only."""
    tables, rng = 65, random.Random(65)
    rows = [["Mitchell", "2024-03-02", "", k + 1, t + 1, f"N{t}", f"E{(t + k) % tables}",
             10 * rng.randint(-60, 60)] for k in range(tables) for t in range(tables)]
    h5 = run.archive("mitchell", rows)
    for solver, how, complete in (("direct", "whole factor", True),
                                  ("iterative", "pieces and blocks", False)):
        report = run.path(f"mitchell-{solver}.json")
        run("rate", h5, "--report", report, "--solver", solver)
        rep = json.load(open(report))
        assert rep["null_space"]["searched"] == [{"component": 0, "pairs": 130, "how": how}], rep
        assert rep["null_space"]["certified_components"] == 0, rep["null_space"]
        assert rep["null_space"]["searched_pairs"] == 130, rep["null_space"]
        assert rep["null_directions"]["search_complete"] is complete, rep["null_directions"]
        assert rep["null_directions"]["total"] == 2, rep["null_directions"]


def test_ordering_named(run):
    """The report names the ordering of the direct factor as --ordering does."""
    h5 = run.path("ten.h5")
    run("generate", "-o", h5, "--clubs", 10, "--years", 1)  # one component of 500 pairs or so
    report = run.path("ten.json")
    # default: AMD, CHOLMOD's first choice, kept when it fills in little (a club league does not)
    for asked, want in (("default", "amd"), ("amd", "amd"), ("metis", "metis"), ("nesdis", "nesdis")):
        run("rate", h5, "--report", report, "--solver", "direct", "--ordering", asked)
        solver = json.load(open(report))["solver"]
        assert solver["ordering"] == want and solver["factorizations"] > 0, (asked, solver)
    run("rate", h5, "--report", report, "--solver", "iterative")
    assert json.load(open(report))["solver"]["ordering"] == "none"


def test_refusals(run):
    h5 = run.archive("refuse", [["Match", "2024-03-02", "", 1, 1, "N1", "E1", 420],
                                ["Match", "2024-03-02", "", 1, 2, "N2", "E2", -50]])
    p = run("rate", h5, "--evaluate", expect=2)
    assert "no true strengths" in p.stderr, p.stderr
    p = run("rate", h5, "--out", run.path("x.csv"), "--fit-until", "2024-01-01", expect=2)
    assert "--fit-until goes with --evaluate" in p.stderr, p.stderr
    p = run("rate", h5, "--out", run.path("x.csv"), "--as-of", "2024-02-30", expect=2)
    assert "--as-of takes a date" in p.stderr, p.stderr
    p = run("rate", h5, "--out", run.path("x.csv"), "--memory", "lots", expect=2)
    assert "--memory" in p.stderr, p.stderr
    p = run("rate", h5, expect=2)
    assert "nothing to write" in p.stderr, p.stderr
    assert not os.path.exists(run.path("x.csv"))
    # The usage line: every output option in brackets (none required), and each one alone runs.
    usage = run("rate", "--help").stdout.split("\n\n")[0]
    outputs = re.findall(r"\[(--out|-o|--report) (\S+)\]", usage)
    assert [o for o, _ in outputs] == ["--out", "-o", "--report"], usage
    assert "[--evaluate]" in usage, usage
    for option, value in outputs:
        path = run.path("alone-" + value.lower())
        run("rate", h5, option, path)
        assert os.path.exists(path), (option, path)


def federation(run, name, pairs, clubs, mixing, sessions, seed):
    """A federation of `clubs` clubs whose sessions (6 tables, 5 rounds of 2
    boards, opponents rotating) seat a pair of another club with probability
    `mixing`: strong mixing makes CG converge fast, weak mixing slowly."""
    rng = random.Random(seed)
    strength = [rng.gauss(0, 1) for _ in range(pairs)]
    members = [[j for j in range(pairs) if j % clubs == c] for c in range(clubs)]
    rows, tables = [], 6
    for s in range(sessions):
        club, seated = members[s % clubs], []
        while len(seated) < 2 * tables:
            j = rng.randrange(pairs) if rng.random() < mixing else rng.choice(club)
            if j not in seated:
                seated.append(j)
        ns, ew = seated[:tables], seated[tables:]
        date = f"2024-{1 + s * 12 // sessions:02d}-{1 + s % 28:02d}"
        for r in range(5):
            for k in range(2):
                board, par = 2 * r + k + 1, rng.gauss(0, 300)
                for t in range(tables):
                    e = ew[(t + r) % tables]
                    score = 10 * round((par + 30 * (strength[ns[t]] - strength[e])
                                        + rng.gauss(0, 120)) / 10)
                    rows.append([f"S{s}", date, "", board, t + 1, f"P{ns[t]}", f"P{e}", score])
    return run.archive(name, rows)


def test_strongly_mixed_reference(run):
    """Issue 12: the ratings of a strongly mixed generated federation (`datum generate --preset
    small --mixing high`: members of several clubs, visitors, congresses; adjusted results) equal
    the dense reference above, built from the archive's rows read with h5py, on every path."""
    import h5py
    h5 = run.path("mixed-high.h5")
    run("generate", "--preset", "small", "--mixing", "high", "--seed", 5, "-o", h5)
    rows = []
    with h5py.File(h5, "r") as f:
        fl, res = f["fields"], f["results"]
        offset, event, section, board = (fl[k][:] for k in ("offset", "event", "section", "board"))
        ns, ew, score = (res[k][:] for k in ("ns_pair", "ew_pair", "ns_score"))
        adjusted = res["adjusted"][:] if "adjusted" in res else [0] * len(score)
        for i in range(len(board)):
            for r in range(offset[i], offset[i + 1]):
                if adjusted[r] == 0:  # adjusted results are no comparison (methods.md §6)
                    rows.append([int(event[i]), None, int(section[i]), int(board[i]), None,
                                 int(ns[r]), int(ew[r]), int(score[r])])
    want = reference(rows)
    assert len(want) > 100, len(want)
    for args in (["--solver", "direct"], ["--solver", "iterative", "--block-size", "1"],
                 ["--solver", "iterative", "--block-size", "16"], []):
        out, report = run.path("mixed-high.csv"), run.path("mixed-high.json")
        run("rate", h5, "--out", out, "--report", report, "--threads", 2, *args)
        rep = json.load(open(report))
        assert rep["components"]["total"] == 1 and rep["null_directions"]["total"] == 1, rep
        got = read_ratings(out)
        with h5py.File(h5, "r") as f:
            names = list(f["dict/pairs"].asstr()[:])
        assert {names[p] for p in want} == set(got), args
        for p, v in want.items():
            assert close(float(got[names[p]]["rating"]), v, 1e-8), (args, names[p], v)


def test_auto_choice(run):
    """--solver auto on archives built to favour each path, with fixed rates
    (--calibration) so that the choice never depends on this machine: it
    picks the path, says why in the report, and its ratings are byte for
    byte those of the path run by hand, on 1 and 2 threads."""
    mixed = federation(run, "mixed", 300, 5, 0.5, 200, 7)  # CG converges in a few dozen
    weak = federation(run, "weak", 300, 2, 0.02, 200, 8)   # two clubs that rarely meet
    cal = run.path("rates.txt")
    cases = [
        # An analysis as slow as 5000 iterations: Jacobi's trial converges, nothing analysed.
        (mixed, "factor_flops 1e9\nmatvec 1e9\nanalyse 1\n", "jacobi",
         ["--solver", "iterative", "--block-size", "1"]),
        # A 20-iteration trial (the least) that cannot converge; a fast factorisation.
        (weak, "factor_flops 1e12\nmatvec 1e6\nanalyse 1e15\n", "direct", ["--solver", "direct"]),
        # Slow mat-vecs, slow whole factorisation, fast block factors and solves.
        (weak, "factor_flops 1e3\nblock_flops 1e15\nsolve 1e15\nmatvec 1e6\nanalyse 1e15\n",
         "block", ["--solver", "iterative"]),
    ]
    for h5, rates, want, by_hand in cases:
        with open(cal, "w") as f:
            f.write(rates)
        report, out = run.path("auto.json"), {}
        for threads in (1, 2):
            out[threads] = run.path(f"auto{threads}.csv")
            run("rate", h5, "--calibration", cal, "--threads", threads, "--out", out[threads],
                "--report", report)
        r = json.load(open(report))
        auto = r["auto"]
        assert auto["chosen"] == want, (want, auto)
        assert auto["calibration"]["source"] == "file " + cal, auto
        assert r["solver"]["path"] == ("direct" if want == "direct" else "iterative"), r["solver"]
        assert auto["forecast"]["analysed"] == (want != "jacobi"), auto
        if want != "jacobi":  # every path predicted; the one chosen the least
            secs = auto["predicted_seconds"]
            assert secs[want] == min(v for v in secs.values() if v is not None), auto
            assert auto["forecast"]["trial_iterations"] == 20, auto
        hand = run.path("hand.csv")
        run("rate", h5, "--out", hand, *by_hand)
        for threads in (1, 2):
            with open(out[threads], "rb") as a, open(hand, "rb") as b:
                assert a.read() == b.read(), (want, threads)
    p = run("rate", mixed, "--calibration", run.path("missing.txt"), "--out", run.path("x.csv"),
            expect=1)
    assert "missing.txt" in p.stderr, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(os.path.abspath(args.datum), tmp)
        for test in (test_two_tables_by_hand, test_against_reference, test_evaluate,
                     test_certified_null_space, test_searched_component_listed,
                     test_ordering_named, test_refusals, test_auto_choice,
                     test_strongly_mixed_reference):
            test(run)
            print(f"ok {test.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
