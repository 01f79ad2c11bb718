#!/usr/bin/env python3
"""End-to-end tests of `datum rate --every` (the rating history, docs/methods.md "Rating history").

- on a generated archive (6 clubs, 2 years): the history, monthly and quarterly, with and without
  --half-life and --from, and with a --calibration under which auto factorises and later dates
  run on the kept factor, equals separate `datum rate --as-of D` runs at each of its dates (same
  pairs, boards to 1e-12 relative, ratings to 1e-8); its dates are the calendar period ends, the
  last one the archive's last date; the last date equals the plain `datum rate`;
- a hand case: a field played over two months and a pair that appears in the second month
  (absent from the first month's rows, present afterwards);
- 1 and 2 threads give byte-identical tables; the HDF5 /history group holds the same table; the
  report has one entry per date (with auto's choice and the certified null space) and totals;
  the refusals.

usage: test_rate_history.py --datum PATH
"""
import argparse
import calendar
import csv
import datetime
import json
import os
import sys
import tempfile


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rate import Run  # noqa: E402  (datum's runner, shared with test_rate.py)


def read_history(path):
    """{as_of: {pair: (boards, rating)}} and the dates in file order."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and list(rows[0].keys()) == ["pair", "as_of", "boards", "rating"], rows[:1]
    table, order = {}, []
    for r in rows:
        if r["as_of"] not in table:
            order.append(r["as_of"])
            table[r["as_of"]] = {}
        assert r["pair"] not in table[r["as_of"]], r
        table[r["as_of"]][r["pair"]] = (float(r["boards"]), float(r["rating"]))
    return table, order


def read_ratings(path):
    with open(path, newline="") as f:
        return {r["pair"]: (float(r["boards"]), float(r["rating"])) for r in csv.DictReader(f)}


def period_ends(first, last, months):
    """The calendar period ends from first's period to last, then last itself (written here
    from the calendar, independently of datum)."""
    out, y, m = [], first.year, first.month
    m = ((m - 1) // months + 1) * months
    while True:
        end = datetime.date(y, m, calendar.monthrange(y, m)[1])
        if end >= last:
            out.append(last)
            return out
        out.append(end)
        m += months
        if m > 12:
            y, m = y + 1, m - 12


def archive_dates(run, h5):
    info = run("info", h5).stdout
    line = next(l for l in info.splitlines() if l.startswith("dates"))
    a, b = line.split()[1], line.split()[3]
    return datetime.date.fromisoformat(a), datetime.date.fromisoformat(b)


def compare_with_separate(run, h5, every, extra, label):
    out = run.path(f"h-{label}.csv")
    run("rate", h5, "--every", every, "--out", out, *extra)
    table, order = read_history(out)
    first, last = archive_dates(run, h5)
    if "--from" in extra:
        first = max(first, datetime.date.fromisoformat(extra[extra.index("--from") + 1]))
    want = [d.isoformat() for d in period_ends(first, last, {"month": 1, "quarter": 3}[every])]
    # every date with a rated pair appears, in order; dates without one have no rows
    assert order == [d for d in want if d in table], (label, order, want)
    for d in want:
        one = run.path(f"one-{label}.csv")
        run("rate", h5, "--as-of", d, "--out", one, *extra)
        alone = read_ratings(one)
        got = table.get(d, {})
        assert got.keys() == alone.keys(), (label, d, len(got), len(alone))
        for pair, (boards, rating) in alone.items():
            b, r = got[pair]
            assert abs(b - boards) <= 1e-12 * boards, (label, d, pair, b, boards)
            assert abs(r - rating) <= 1e-8, (label, d, pair, r, rating)
    return table, want


def test_generated(run):
    h5 = run.path("gen.h5")
    run("generate", "--clubs", "6", "--years", "2", "-o", h5, "--seed", "11")
    table, want = compare_with_separate(run, h5, "month", [], "month")
    assert len(want) == 24, want
    compare_with_separate(run, h5, "quarter", [], "quarter")
    compare_with_separate(run, h5, "month", ["--half-life", "90", "--solver", "iterative"],
                          "month-decay-iterative")
    compare_with_separate(run, h5, "quarter", ["--half-life", "200", "--from", want[3]],
                          "quarter-decay-from")
    # auto with rates that make conjugate gradients slow and factorisations cheap (--calibration):
    # some dates factorise (auto's choice), later ones run on the kept factor (no choice)
    cal = run.path("slow-cg.txt")
    with open(cal, "w") as f:
        f.write("matvec 1e3\nfactor_flops 1e12\n")
    compare_with_separate(run, h5, "month", ["--calibration", cal], "month-calibrated")
    run("rate", h5, "--every", "month", "--calibration", cal, "--report", run.path("cal.json"))
    entries = json.load(open(run.path("cal.json")))["history"]
    assert any(e["path"] == "direct" and e["auto"] == "direct" for e in entries), entries
    assert any(e["path"] == "iterative" and e["auto"] is None and e["iterations"] > 0
               for e in entries), entries
    # the last date is the plain run (as of the archive's last date)
    plain = run.path("plain.csv")
    run("rate", h5, "--out", plain)
    assert read_ratings(plain).keys() == table[want[-1]].keys()
    # 1 and 2 threads: the same bytes; -o holds the same table; the report
    paths = []
    for threads in (1, 2):
        paths.append(run.path(f"t{threads}.csv"))
        run("rate", h5, "--every", "month", "--half-life", "60", "--threads", threads,
            "--out", paths[-1], "-o", run.path(f"t{threads}.h5"), "--report", run.path("r.json"))
    with open(paths[0], "rb") as a, open(paths[1], "rb") as b:
        assert a.read() == b.read(), "1 and 2 threads differ"
    report = json.load(open(run.path("r.json")))
    assert report["window"]["every"] == "month" and report["window"]["half_life_days"] == 60
    assert [e["as_of"] for e in report["history"]] == want, report["history"][:2]
    assert report["totals"]["as_of_dates"] == len(want)
    assert all(e["converged"] and e["relative_on_range"] <= 1e-10 for e in report["history"])
    assert report["totals"]["rows"] == sum(e["pairs"] for e in report["history"])
    for e in report["history"]:  # the certificate per date (one connected federation)
        ns = e["null_space"]
        assert ns["certified_components"] + ns["searched_components"] <= e["components"], e
        assert ns["search_complete"] == (e["path"] == "direct" or ns["searched_components"] == 0), e
        assert e["auto"] in ("direct", "jacobi", "block", None), e
    try:
        import h5py
    except ImportError:
        print("skip: h5py not installed (HDF5 history)")
        return
    table, _ = read_history(paths[1])
    with h5py.File(run.path("t2.h5"), "r") as f:
        names = f["dict/pairs"].asstr()[:]
        g = f["history"]
        assert sorted(g.keys()) == ["as_of", "boards", "pair", "rating"], list(g.keys())
        epoch = datetime.date(1970, 1, 1)
        n = 0
        for p, day, boards, rating in zip(g["pair"][:], g["as_of"][:], g["boards"][:], g["rating"][:]):
            d = (epoch + datetime.timedelta(days=int(day))).isoformat()
            assert table[d][names[p]] == (boards, rating), (d, names[p])
            n += 1
        assert n == sum(len(v) for v in table.values())


def test_hand(run):
    # Board 1 of event E is played over two months: two tables on 2024-01-30, a third on
    # 2024-02-02 where pair N3 plays its first board. As of January its datum is over the two
    # tables (185), as of February over the three (156.67): the January field is replaced.
    rows = [["E", "2024-01-30", "", 1, 1, "N1", "E1", 420],
            ["E", "2024-01-30", "", 1, 2, "N2", "E2", -50],
            ["E", "2024-02-02", "", 1, 3, "N3", "E3", 100],
            ["F", "2024-01-15", "", 1, 1, "N1", "E2", 200],
            ["F", "2024-01-15", "", 1, 2, "N2", "E1", 110]]
    src = run.path("hand.csv")
    with open(src, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score"])
        w.writerows(rows)
    h5 = run.path("hand.h5")
    run("import", src, "-o", h5)
    table, want = compare_with_separate(run, h5, "month", [], "hand")
    assert want == ["2024-01-31", "2024-02-02"], want
    assert "N3" not in table["2024-01-31"] and "N3" in table["2024-02-02"], table
    assert table["2024-01-31"]["N1"][0] == 2 and table["2024-02-02"]["N1"][0] == 2


def test_refusals(run):
    h5 = run.path("gen.h5")
    for args, message in ((["--every", "week"], "--every takes month, quarter or year"),
                          (["--every", "month", "--evaluate"], "--every goes with"),
                          (["--every", "month", "--from", "2030-01-01"], "--from is after"),
                          (["--every", "month", "--half-life", "0.5"], "below 2^-1000")):
        p = run("rate", h5, "--out", run.path("x.csv"), *args, expect=2)
        assert message in p.stderr, (args, p.stderr)
        assert not os.path.exists(run.path("x.csv"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(os.path.abspath(args.datum), tmp)
        for test in (test_generated, test_hand, test_refusals):
            test(run)
            print(f"ok {test.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
