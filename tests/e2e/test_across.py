#!/usr/bin/env python3
"""End-to-end tests of --across-sections (docs/methods.md, "Across the field") on `datum score`,
`cross`, `barking` and `rate`.

Expectations come from outside the program: datasets/example/congress-sections.csv's board 1
worked by hand (below); every figure of the same file from the reference implementation
(tests/reference/datum_ref.py) given the rows with the sections of an event folded into one
field; barking from test_barking.py's literal enumeration; ratings from test_rate.py's dense
reference, and, on a generated archive read with h5py, seed 000's equations (A v - r is
orthogonal to the range of A: A (A v - r) = 0). Also: without the option the figures are the
per-section ones; with one section per event the option changes nothing; 1 and 2 threads write
the same bytes; a PBN whose sections dealt board 2 differently merges board 1 only; the
outputs say what was merged.

usage: test_across.py --datum PATH --source DIR
"""
import argparse
import csv
import json
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_common import close, matches, ref  # noqa: E402
from test_barking import barking_literal, terms  # noqa: E402
import test_rate  # noqa: E402
from test_rate import reference as rate_reference  # noqa: E402

try:
    import h5py
    import numpy as np
except ImportError:  # the checks that need them are skipped (said on stdout)
    h5py = np = None


class Run(test_rate.Run):
    """test_rate.py's runner, and where the example lives."""

    def __init__(self, datum, tmp, source):
        super().__init__(datum, tmp)
        self.source = source

    def example(self):
        return os.path.join(self.source, "datasets", "example", "congress-sections.csv")


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def ref_rows(records, fold):
    """datum_ref rows of CSV records; with fold, the sections of an event are one field: the
    section becomes "" and the table (section rank, table) keeps the rows in merged order."""
    ranks = {s: i for i, s in enumerate(sorted({r["section"] for r in records}))}
    rows, origin = [], {}
    for r in records:
        adj = r.get("adjusted", "")
        table = int(r["table"]) + 1000 * ranks[r["section"]] if fold else int(r["table"])
        row = ref.Row(r["event"], r["date"], "" if fold else r["section"], int(r["board"]), table,
                      r["ns_pair"], r["ew_pair"], None if adj else int(r["ns_score"]), adj)
        rows.append(row)
        origin[row.key] = (r["event"], r["section"], int(r["board"]), int(r["table"]))
    return ref.sort_rows(rows), origin


def key(rec):
    return (rec["event"], rec["section"], int(rec["board"]), int(rec["table"]))


def check_butler(got, results, origin, exact=True):
    assert len(got) == len(results), (len(got), len(results))
    for b in results:
        rec = got[origin[b.row.key]]
        assert matches(rec["datum"], b.datum, True), (rec, b)
        assert matches(rec["ns_imps"], b.ns_imps, exact), (rec, b)
        if "ew_imps" in rec:
            assert matches(rec["ew_imps"], b.ew_imps, exact), (rec, b)


def check_cross(got, results, origin):
    assert len(got) == len(results), (len(got), len(results))
    for x in results:
        rec = got[origin[x.row.key]]
        assert matches(rec["ns_raw"], x.raw, True) and matches(rec["ns_avg"], x.avg, True), (rec, x)
        assert int(rec["terms"]) == x.terms, (rec, x)


def results_of(path):
    return {key(r): r for r in read_rows(path)}


# ---------------------------------------------------------------------------------------------

def test_by_hand(run):
    """Board 1 of the Spring Congress, worked by hand. Scores: A 420 450 420 -50, B 420 170 420
    450, C 420 420 400 -100. Across the field the mean is 3840/12 = 320; 420 is +100 (3 IMPs), 450
    +130 (4), -50 -370 (-9), 170 -150 (-4), 400 +80 (2), -100 -420 (-9). Cross-IMPs of a 420:
    against 450 twice -1 each, -50 +10, 170 +6, 400 +1, -100 +11, the five other 420s 0: 26 over
    11 comparisons. Section A alone: mean 1240/4 = 310."""
    h5 = run.path("congress.h5")
    run("import", run.example(), "-o", h5)
    out = run.path("hand.csv")
    p = run("score", h5, "--datum", "mean", "--across-sections", "--results", out)
    want = {420: 3, 450: 4, -50: -9, 170: -4, 400: 2, -100: -9}
    board1 = [r for r in read_rows(out) if r["event"] == "Spring Congress" and r["board"] == "1"]
    assert len(board1) == 12, board1
    for r in board1:
        assert r["datum"] == "320" and int(r["ns_imps"]) == want[int(r["ns_score"])], r
        assert r["field_sections"] == "A+B+C", r
    assert "11 board fields scored as 5" in p.stderr, p.stderr  # Congress 9 as 3, Club 2
    run("cross", h5, "--across-sections", "--results", out)
    for r in read_rows(out):
        if r["event"] == "Spring Congress" and r["board"] == "1" and r["ns_score"] == "420":
            assert r["ns_raw"] == "26" and r["terms"] == "11", r
            assert float(r["ns_avg"]) == 26 / 11, r
    run("score", h5, "--datum", "mean", "--results", out)
    for r in read_rows(out):
        if r["event"] == "Spring Congress" and r["board"] == "1" and r["section"] == "A":
            assert r["datum"] == "310", r
        assert "field_sections" not in r, r


def test_against_reference(run):
    """Every figure of the example, Butler for several datums and scales, cross-IMPs for every
    divisor, against the reference on the folded rows; without the option, on the rows as
    they are."""
    h5 = run.path("congress.h5")
    records = read_rows(run.example())
    for fold in (True, False):
        rows, origin = ref_rows(records, fold)
        extra = ["--across-sections"] if fold else []
        for args in (["--datum", "mean"], ["--datum", "nbb"], ["--datum", "bastille"],
                     ["--datum", "mean", "--scale", "linear"], ["--datum", "acbl"],
                     ["--datum", "mean", "--trim", "1", "--round", "away"],
                     ["--datum", "par"]):
            o = ref.options("score", args)
            out = run.path("ref-score.csv")
            run("score", h5, *args, *extra, "--results", out)
            got = results_of(out)
            check_butler(got, ref.score(rows, o.recipe, o.scale_), origin,
                         exact=o.scale_.exact)
        for divisor in ("n-1", "n", "none", "tables"):
            o = ref.options("cross", ["--divisor", divisor])
            out = run.path("ref-cross.csv")
            run("cross", h5, "--divisor", divisor, *extra, "--results", out)
            check_cross(results_of(out), ref.cross(rows, o.scale_, divisor), origin)


def test_barking(run):
    """Barking across the field: every term enumerated over the merged field's real scores."""
    h5 = run.path("congress.h5")
    records = read_rows(run.example())
    out = run.path("barking.csv")
    run("barking", h5, "--across-sections", "--results", out)
    got = results_of(out)
    fields = {}
    for r in records:
        if not r["adjusted"]:
            fields.setdefault((r["event"], int(r["board"])), []).append(r)
    scored = 0
    for rows in fields.values():
        rows.sort(key=lambda r: (r["section"], int(r["table"])))
        if len(rows) < 4:
            continue
        raw = barking_literal([int(r["ns_score"]) for r in rows])
        for r, v in zip(rows, raw):
            g = got[key(r)]
            assert int(g["ns_raw"]) == v and int(g["terms"]) == terms(len(rows)), (g, v)
            assert float(g["ns_avg"]) == v / terms(len(rows)), g
            scored += 1
    assert scored == len(got) == 35, (scored, len(got))  # 36 congress rows but the A+ (Club: 3
    # results a board, too few)


def test_one_section_unchanged(run):
    """An archive with one section per event (the example's section A and Club Night): the same
    pairs file, the same results (and one more column), for every method."""
    club = [r for r in read_rows(run.example()) if r["section"] in ("", "A")]
    src = run.path("club.csv")
    with open(src, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(club[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(club)
    h5 = run.path("club.h5")
    run("import", src, "-o", h5)
    for command, args in (("score", ["--datum", "nbb"]), ("cross", []), ("barking", [])):
        files = {}
        for across in (0, 1):
            res, pairs = run.path(f"one-{across}.csv"), run.path(f"one-{across}-pairs.csv")
            run(command, h5, *args, *(["--across-sections"] if across else []), "--results", res,
                "--pairs", pairs)
            files[across] = (open(res).read().splitlines(), open(pairs).read())
        assert files[0][1] == files[1][1], command
        assert len(files[0][0]) == len(files[1][0]) > 1, command
        for plain, across in zip(*(files[k][0] for k in (0, 1))):
            assert across in (plain + ",field_sections", plain + ",", plain + ",A"), (plain, across)


def test_threads(run):
    """1 and 2 threads: the same bytes, CSV and HDF5 datasets."""
    h5 = run.path("congress.h5")
    for command, args in (("score", ["--datum", "nbb"]), ("cross", ["--divisor", "tables"]),
                          ("barking", [])):
        got = []
        for threads in (1, 2):
            base = run.path(f"t{threads}")
            run(command, h5, *args, "--across-sections", "--threads", threads, "--results",
                base + ".csv", "--pairs", base + "-pairs.csv", "-o", base + ".h5")
            data = [open(base + ".csv", "rb").read(), open(base + "-pairs.csv", "rb").read()]
            if h5py:
                with h5py.File(base + ".h5", "r") as f:
                    data += [f[g][n][:].tobytes() for g in ("fields", "results", "pairs")
                             for n in sorted(f[g])]
            got.append(data)
        assert got[0] == got[1], command


def test_outputs_say_so(run):
    """The ranking's title, the counts and the note on stderr (a CSV import), the HDF5 output's
    attribute and /fields/across_field."""
    h5 = run.path("congress.h5")
    p = run("cross", h5, "--across-sections")
    assert p.stdout.splitlines()[0] == "Cross-IMPs, datum -, scale wbf, across sections", p.stdout
    assert "datum cross: across sections: 11 board fields scored as 5" in p.stderr, p.stderr
    assert "does not record which sections played the same deals" in p.stderr, p.stderr
    p = run("cross", h5)
    assert p.stderr == "" and "across" not in p.stdout, p
    if not h5py:
        print("skip: h5py missing (HDF5 output)")
        return
    out = run.path("say.h5")
    run("score", h5, "--datum", "mean", "--across-sections", "-o", out)
    with h5py.File(out, "r") as f:
        assert f.attrs["across_sections"] == "yes", dict(f.attrs)
        section = f["dict/sections"].asstr()[:]
        board, sec = f["fields/board"][:], f["fields/section"][:]
        across, datum = f["fields/across_field"][:], f["fields/datum"][:]
        for i in range(len(board)):
            first = across[i]
            # the merged field's first field: same board, the first section, the same datum
            assert board[first] == board[i] and first <= i, (i, first)
            assert datum[first] == datum[i], (i, datum[first], datum[i])
            if section[sec[i]] in ("A", "B", "C"):
                assert section[sec[first]] == "A", (i, first)
            else:
                assert first == i, (i, first)


PBN_GAME = """[Event "Cup"]
[Section "{section}"]
[Board "{board}"]
[Deal "{deal}"]
[ScoreTable "PairId_NS;PairId_EW;Score_NS"]
1 2 {s1}
3 4 {s2}
5 6 {s3}

"""
DEAL_1 = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
DEAL_1_WEST = "W:432.AKQJ.T98.765 AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98"
DEAL_2 = "N:AKQJ.T98.765.432 765.432.AKQJ.T98 T98.765.432.AKQJ 432.AKQJ.T98.765"


def test_pbn_deals(run):
    """Two sections play board 1 with the same deal (written from another seat in B) and board 2
    with different deals: across the field, board 1 is one field of six results, board 2 two
    fields of three, as without the option."""
    games = [("A", 1, DEAL_1, (420, 450, 170)), ("B", 1, DEAL_1_WEST, (420, -50, 400)),
             ("A", 2, DEAL_1, (110, 140, -100)), ("B", 2, DEAL_2, (600, 630, 600))]
    pbn = run.path("two.pbn")
    with open(pbn, "w") as f:
        for section, board, deal, (s1, s2, s3) in games:
            f.write(PBN_GAME.format(section=section, board=board, deal=deal, s1=s1, s2=s2, s3=s3))
    h5 = run.path("two.h5")
    run("import", "--format", "pbn", pbn, "-o", h5)
    out = run.path("two.csv")
    p = run("score", h5, "--datum", "mean", "--across-sections", "--results", out)
    assert "board fields scored as 3" in p.stderr and "note" not in p.stderr, p.stderr
    datum = {(r["section"], r["board"]): r["datum"] for r in read_rows(out)}
    sections = {(r["section"], r["board"]): r["field_sections"] for r in read_rows(out)}
    # board 1: (420 + 450 + 170 + 420 - 50 + 400) / 6 = 1810 / 6; board 2 as in each section
    assert float(datum[("A", "1")]) == float(datum[("B", "1")]) == 1810 / 6, datum
    assert float(datum[("A", "2")]) == 50 and float(datum[("B", "2")]) == 610, datum
    assert sections[("A", "1")] == "A+B" and sections[("A", "2")] == "A", sections
    assert sections[("B", "2")] == "B", sections


def federation_rows(rng):
    """Congress sessions of 2 or 3 sections (Mitchell, 3-4 tables, 2 boards a round, the same
    deals in every section) and club sessions of one, over 30 pairs: mixed enough to be connected
    with a one-dimensional null space."""
    strength = [rng.gauss(0, 1) for _ in range(30)]
    rows = []
    for s in range(40):
        n_sec = 1 if s % 3 == 0 else rng.choice((2, 3))
        seated = rng.sample(range(30), 2 * 4 * n_sec)
        par = [rng.gauss(0, 300) for _ in range(6)]
        for k in range(n_sec):
            tables = rng.choice((3, 4))
            ns, ew = seated[8 * k:8 * k + tables], seated[8 * k + 4:8 * k + 4 + tables]
            for b in range(6):
                for t in range(tables):
                    e = ew[(t + b // 2) % tables]
                    score = 10 * round((par[b] + 40 * (strength[ns[t]] - strength[e])
                                        + rng.gauss(0, 100)) / 10)
                    rows.append([f"S{s:02d}", f"2024-{1 + s // 4:02d}-{1 + s % 28:02d}", "ABC"[k],
                                 b + 1, t + 1, f"P{ns[t]}", f"P{e}", score])
    return rows


def test_rate_reference(run):
    """rate --across-sections: the ratings of test_rate.py's dense reference over the fields of
    (event, board); not those of the per-section fields."""
    rows = federation_rows(random.Random(20240613))
    src = run.path("fed.csv")
    with open(src, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score"])
        w.writerows(rows)
    h5 = run.path("fed.h5")
    run("import", src, "-o", h5)
    folded = [[r[0], r[1], "", *r[3:]] for r in rows]
    want, apart = rate_reference(folded), rate_reference(rows)
    for solver in ("direct", "iterative"):
        out, report = run.path(f"fed-{solver}.csv"), run.path(f"fed-{solver}.json")
        run("rate", h5, "--across-sections", "--solver", solver, "--out", out, "--report", report)
        got = {r["pair"]: float(r["rating"]) for r in read_rows(out)}
        assert set(got) == set(want), (sorted(got), sorted(want))
        for pair, v in want.items():
            assert close(got[pair], v, 1e-8), (solver, pair, got[pair], v)
        rep = json.load(open(report))
        assert rep["null_directions"]["total"] == 1, rep["null_directions"]  # as the reference
        assert rep["across_sections"]["fields_scored"] < rep["across_sections"]["fields_read"], rep
        assert rep["data"]["fields"] == rep["across_sections"]["fields_scored"], rep
    assert max(abs(want[p] - apart[p]) for p in want) > 0.01  # the option matters here
    out = run.path("fed-plain.csv")
    run("rate", h5, "--out", out, "--report", run.path("fed-plain.json"))
    got = {r["pair"]: float(r["rating"]) for r in read_rows(out)}
    assert all(close(got[p], apart[p], 1e-8) for p in apart)
    assert "across_sections" not in json.load(open(run.path("fed-plain.json")))


def wbf_array(d):
    bounds = np.array(ref.WBF_MIDPOINTS)
    return np.sign(d) * np.searchsorted(bounds, np.abs(d), side="right")


def rating_system(fields, n_pairs):
    """A and r of seed 000's equations (test_rate.py's reference, in numpy) over the fields:
    lists of (ns, ew, score) of real results, mean datum, WBF IMPs."""
    A = np.zeros((n_pairs, n_pairs))
    r = np.zeros(n_pairs)
    for tables in fields:
        L = len(tables)
        if L < 2:
            continue
        ns, ew, s = (np.array(c) for c in zip(*tables))
        bb = wbf_array(s - s.mean())
        for side, same, other, sign in ((ns, ns, ew, 1), (ew, ew, ns, -1)):
            np.add.at(r, side, sign * bb)
            np.add.at(A, (side, side), 1)
            np.add.at(A, (side, other), -1)
            # the other tables: +1/(L-1) for their pair of the other direction, -1/(L-1) for the
            # same direction's (each table's own pairs taken out again)
            for x in range(L):
                A[side[x], other] += 1 / (L - 1)
                A[side[x], same] -= 1 / (L - 1)
                A[side[x], other[x]] -= 1 / (L - 1)
                A[side[x], same[x]] += 1 / (L - 1)
    return A, r


def test_rate_generated(run):
    """rate --across-sections on a generated archive (congresses of two sections on the same
    deals): its ratings solve seed 000's equations over the merged fields, A (A v - r) = 0, and
    not over the per-section fields."""
    if not h5py:
        print("skip: h5py or numpy missing (generated archive)")
        return
    h5 = run.path("gen.h5")
    run("generate", "-o", h5, "--clubs", 3, "--years", 1)
    out = run.path("gen.csv")
    p = run("rate", h5, "--across-sections", "--out", out)
    assert "across sections:" in p.stderr, p.stderr
    with h5py.File(h5, "r") as f:
        pairs = list(f["dict/pairs"].asstr()[:])
        fe, fs, fb = (f["fields"][n][:].astype(np.int64) for n in ("event", "section", "board"))
        off = f["fields/offset"][:].astype(np.int64)
        ns, ew, score = (f["results"][n][:].astype(np.int64) for n in ("ns_pair", "ew_pair",
                                                                         "ns_score"))
        adjusted = f["results/adjusted"][:] if "adjusted" in f["results"] else np.zeros_like(ns)
    merged, apart = {}, []
    for i in range(len(fb)):
        rows = [(ns[k], ew[k], score[k]) for k in range(off[i], off[i + 1]) if adjusted[k] == 0]
        merged.setdefault((fe[i], fb[i]), []).extend(rows)
        apart.append(rows)
    assert len(merged) < len(apart)  # sections were merged
    v = np.full(len(pairs), np.nan)
    index = {name: j for j, name in enumerate(pairs)}
    for rec in read_rows(out):
        v[index[rec["pair"]]] = float(rec["rating"])
    rated = ~np.isnan(v)
    v = np.where(rated, v, 0)
    for fields, should_hold in ((list(merged.values()), True), (apart, False)):
        A, r = rating_system(fields, len(pairs))
        res = A @ (A @ v - r)
        rel = np.linalg.norm(res) / (np.linalg.norm(A) * np.linalg.norm(r))
        assert (rel < 1e-9) == should_hold, (should_hold, rel)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(os.path.abspath(args.datum), tmp, os.path.abspath(args.source))
        for test in (test_by_hand, test_against_reference, test_barking,
                     test_one_section_unchanged, test_threads, test_outputs_say_so,
                     test_pbn_deals, test_rate_reference, test_rate_generated):
            test(run)
            print(f"ok {test.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
