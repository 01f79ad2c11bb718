#!/usr/bin/env python3
"""`datum compare` end to end (issue 15), against references written here:

- the statistics of every group (--groups): each method's per-event ranking rebuilt from the
  per-result figures of `datum score`, `datum cross` and `datum matchpoints --results`, then
  scipy.stats.spearmanr and kendalltau (tau-b), the winner, the podium and the top-k computed
  here; the correlation with /truth/pair_strength read with h5py;
- properties: a method against itself (tau = 1, no rank change, no winner change);
- continuity: seed 003's field worked by hand (datasets/seeds/bastille-scheveningen.csv), and
  every field of a small generated archive perturbed, recomputed here with the reference datum
  (tests/reference/datum_ref.py) for two Butler methods;
- 1 and 2 threads give byte-identical tables, by event and by year;
- bad method specs are refused with a message naming them, exit 2.

usage: test_compare_cmd.py --datum BUILD/cli/datum --source SOURCE_DIR
"""
import argparse
import csv
import filecmp
import math
import os
import sys
import tempfile
from collections import defaultdict
from fractions import Fraction

import h5py
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_common import Program, ref  # noqa: E402

M64 = (1 << 64) - 1
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def close(a, b, tol=1e-9):
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return abs(a - b) <= tol * max(1.0, abs(b))


def num(text):
    return float(text) if text != "" else None


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------------------------------------
# Per-event rankings from per-result figures


def event_figures(rows, ns_col, ew_col=None, top_col=None):
    """{event: {pair: figure}}: IMPs per board, or 100 * matchpoints / tops."""
    acc = defaultdict(lambda: defaultdict(lambda: [0.0, 0, 0.0]))
    for r in rows:
        ns = num(r[ns_col])
        if ns is None:
            continue
        ew = num(r[ew_col]) if ew_col and r.get(ew_col, "") != "" else -ns
        top = num(r[top_col]) if top_col else 0.0
        for pair, v in ((r["ns_pair"], ns), (r["ew_pair"], ew)):
            a = acc[r["event"]][pair]
            a[0] += v
            a[1] += 1
            a[2] += top
    out = {}
    for event, pairs in acc.items():
        out[event] = {}
        for pair, (s, b, t) in pairs.items():
            if top_col:
                if t > 0:
                    out[event][pair] = 100.0 * s / t
            elif b:
                out[event][pair] = s / b
    return out


def ordering(values: dict):
    """Pairs best first: figure descending, ties by the name's bytes."""
    return sorted(values, key=lambda p: (-values[p], p.encode()))


def group_reference(fa: dict, fb: dict, k: int):
    common = sorted(set(fa) & set(fb), key=lambda p: p.encode())
    n = len(common)
    out = {"common": n}
    if n < 2:
        return out
    x, y = [fa[p] for p in common], [fb[p] for p in common]
    out["spearman"] = stats.spearmanr(x, y)[0] if len(set(x)) > 1 and len(set(y)) > 1 else None
    out["kendall"] = (stats.kendalltau(x, y, variant="b")[0]
                      if len(set(x)) > 1 and len(set(y)) > 1 else None)
    oa = ordering({p: fa[p] for p in common})
    ob = ordering({p: fb[p] for p in common})
    out["winner"] = int(oa[0] != ob[0])
    out["podium"] = int(set(oa[:3]) != set(ob[:3])) if n >= 4 else None
    out["topk"] = len(set(oa[:k]) & set(ob[:k])) / k if n > k else None
    return out


def test_statistics(prog, tmp):
    h5 = os.path.join(tmp, "small.h5")
    prog.ok("generate", "-o", h5)
    methods = ["nbb:wbf", "bastille:linear", "cross", "mp"]
    groups = os.path.join(tmp, "groups.csv")
    out = prog.ok("compare", h5, *sum((["--method", m] for m in methods), []), "--sample", "0",
                  "--top-k", "5", "--groups", groups).stdout
    # The summary shows a figure that is not defined as the report does ("–"): IMPs against
    # matchpoints have no difference per board, and --sample 0 perturbs nothing.
    check("nan" not in out, f"the summary prints nan:\n{out}")
    row = [ln.split() for ln in out.splitlines() if ln.split()[:2] == ["nbb:wbf", "mp"]]
    check(len(row) == 1 and row[0][-1] == "\u2013" and row[0][3] != "\u2013",
          f"nbb:wbf against mp: {row}, want |A-B| '\u2013' beside the correlations")
    res = {}
    for name, args, cols in (
            ("nbb:wbf", ("score", h5, "--datum", "nbb"), ("ns_imps", "ew_imps", None)),
            ("bastille:linear", ("score", h5, "--datum", "bastille", "--scale", "linear"),
             ("ns_imps", "ew_imps", None)),
            ("cross", ("cross", h5), ("ns_avg", None, None)),
            ("mp", ("matchpoints", h5), ("ns_mp", "ew_mp", "top"))):
        path = os.path.join(tmp, name.replace(":", "_") + ".csv")
        prog.ok(*args, "--results", path)
        res[name] = event_figures(read_csv(path), *cols)
    with h5py.File(h5, "r") as f:
        names = [p.decode() for p in f["dict/pairs"][:]]
        truth = dict(zip(names, f["truth/pair_strength"][:]))
    rows = read_csv(groups)
    seen = 0
    for r in rows:
        event, a, b = r["group"], r["method_a"], r["method_b"]
        if b == "truth":
            fa = res[a].get(event, {})
            pairs = [p for p in sorted(fa) if not math.isnan(truth[p])]
            x, y = [fa[p] for p in pairs], [truth[p] for p in pairs]
            ok = len(pairs) >= 2 and len(set(x)) > 1
            want_s = stats.spearmanr(x, y)[0] if ok else None
            want_k = stats.kendalltau(x, y, variant="b")[0] if ok else None
            check(close(num(r["spearman"]), want_s) and close(num(r["kendall_tau_b"]), want_k),
                  f"{event} {a} against the truth: {r['spearman']} {r['kendall_tau_b']}, "
                  f"want {want_s} {want_k}")
            continue
        want = group_reference(res[a].get(event, {}), res[b].get(event, {}), 5)
        got = {"common": int(r["common"]), "spearman": num(r["spearman"]),
               "kendall": num(r["kendall_tau_b"]), "winner": num(r["winner_changed"]),
               "podium": num(r["podium_changed"]), "topk": num(r["topk_overlap"])}
        for key, w in want.items():
            g = got[key]
            check(close(g, w) if key in ("spearman", "kendall", "topk") else g == w,
                  f"{event} {a}/{b} {key}: {g}, want {w}")
        seen += 1
    events = len(res["nbb:wbf"])
    check(seen == events * 6, f"groups.csv: {seen} method pairs, want {events * 6}")
    print(f"statistics: {seen} group rows and {len(rows) - seen} truth rows checked")
    # --by all: one group, every pair's figure over the whole archive (the same code path as
    # --by year, whose groups are years instead of the archive).
    prog.ok("compare", h5, *sum((["--method", m] for m in methods), []), "--sample", "0",
            "--top-k", "5", "--by", "all", "--groups", groups)
    whole = {}
    for name, args, cols in (
            ("nbb:wbf", None, ("ns_imps", "ew_imps", None)), ("cross", None, ("ns_avg", None, None)),
            ("mp", None, ("ns_mp", "ew_mp", "top"))):
        path = os.path.join(tmp, name.replace(":", "_") + ".csv")
        whole[name] = event_figures([{**r, "event": "all"} for r in read_csv(path)], *cols)["all"]
    checked = 0
    for r in read_csv(groups):
        a, b = r["method_a"], r["method_b"]
        if r["group"] != "all" or a not in whole or b not in whole:
            continue
        checked += 1
        want = group_reference(whole[a], whole[b], 5)
        got = {"common": int(r["common"]), "spearman": num(r["spearman"]),
               "kendall": num(r["kendall_tau_b"]), "winner": num(r["winner_changed"]),
               "podium": num(r["podium_changed"]), "topk": num(r["topk_overlap"])}
        for key, w in want.items():
            check(close(got[key], w) if key in ("spearman", "kendall", "topk") else got[key] == w,
                  f"--by all {a}/{b} {key}: {got[key]}, want {w}")
    check(checked == 3, f"--by all: {checked} pairs of methods checked, want 3")
    print("statistics: --by all checked (Knight's tau-b: more than 64 pairs)")


def test_self(prog, tmp):
    h5 = os.path.join(tmp, "small.h5")
    rep = os.path.join(tmp, "self")
    prog.ok("compare", h5, "--method", "nbb:wbf", "--method", "nbb:wbf", "--report", rep,
            "--sample", "100")
    (row,) = read_csv(os.path.join(rep, "pairs.csv"))
    check(float(row["spearman"]) == 1 and float(row["kendall_tau_b"]) == 1,
          f"a method against itself: {row['spearman']} {row['kendall_tau_b']}")
    check(row["winner_changes"] == "0" and row["podium_changes"] == "0", "no winner change")
    check(float(row["mean_abs_diff_per_board"]) == 0, "no difference per board")
    (hist,) = read_csv(os.path.join(rep, "rank_changes.csv"))
    check(all(hist[b] == "0" for b in ("1", "2", "3", "4-5", "6-10", "11-20", "21+"))
          and int(hist["0"]) > 0, f"no rank change: {hist}")
    cont = read_csv(os.path.join(rep, "continuity.csv"))
    check(cont[0:3] == [{**c, "method": cont[0]["method"]} for c in cont[3:6]],
          "the same continuity for the same method twice")


# ---------------------------------------------------------------------------------------------
# Continuity


def mix(x):
    """SplitMix64's finaliser of x + the golden ratio (docs/methods.md, "Comparing methods")."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


RECIPES = {"nbb:wbf": ref.PRESETS["nbb"],
           "mean:trim=1:round=away": ref.Recipe(trim="1", rounding="away")}


def continuity_reference(rows, method, kind, seed=1):
    """(made, others, moved, sum of moves, max move, perturbations with a rank change, rank
    changes, perturbations where another pair moved more than the NS pair) over every field,
    for a Butler method and kind 'ten' or 'adjusted'; rows from `datum score --results`."""
    recipe = RECIPES[method]
    fields = []
    for r in rows:  # archive order: one field per (event, section, board)
        key = (r["event"], r["section"], r["board"])
        if not fields or fields[-1][0] != key:
            fields.append((key, []))
        fields[-1][1].append(r)

    def imps(field_rows):
        """Per row (NS, EW) Butler IMPs; rows: (score or None for an adjusted A)."""
        real = [s for s in field_rows if s is not None]
        d = ref.datum(real, recipe)
        return [(Fraction(0), Fraction(0)) if s is None else
                (Fraction(ref.wbf(s - d)), -Fraction(ref.wbf(s - d))) for s in field_rows]

    by_event = defaultdict(list)
    for g, (key, fr) in enumerate(fields):
        by_event[key[0]].append((g, fr))
    totals = {}
    for event, fl in by_event.items():
        t = defaultdict(lambda: [Fraction(0), 0])
        for g, fr in fl:
            for r, (a, b) in zip(fr, imps([int(r["ns_score"]) if r.get("adjusted", "") == "" else None
                                           for r in fr])):
                if r.get("adjusted", "") not in ("", "A"):
                    a, b = Fraction(num(r["ns_imps"])), Fraction(num(r["ew_imps"]))
                t[r["ns_pair"]][0] += a
                t[r["ns_pair"]][1] += 1
                t[r["ew_pair"]][0] += b
                t[r["ew_pair"]][1] += 1
        totals[event] = t
    out = [0, 0, 0, Fraction(0), Fraction(0), 0, 0, 0]
    for event, fl in by_event.items():
        t = totals[event]
        before = {p: v[0] / v[1] for p, v in t.items()}
        rank_before = {p: i for i, p in enumerate(ordering(before))}
        for g, fr in fl:
            if mix(seed ^ mix(g)) >= M64:
                continue
            real_at = [i for i, r in enumerate(fr) if r.get("adjusted", "") == ""]
            if not real_at:
                continue
            row = real_at[mix((seed + 0x5BD1E995 * g) & M64) % len(real_at)]
            scores = [int(r["ns_score"]) if r.get("adjusted", "") == "" else None for r in fr]
            old = imps(scores)
            if kind == "ten":
                scores[row] += 10
            else:
                scores[row] = None
            new = imps(scores)
            moved = dict()
            for r, (a0, b0), (a1, b1) in zip(fr, old, new):
                if r.get("adjusted", "") not in ("", "A"):
                    continue  # other awards do not change
                moved[r["ns_pair"]] = a1 - a0
                moved[r["ew_pair"]] = b1 - b0
            self_ns, self_ew = fr[row]["ns_pair"], fr[row]["ew_pair"]
            after = {p: (t[p][0] + moved.get(p, 0)) / t[p][1] for p in t}
            rank_after = {p: i for i, p in enumerate(ordering(after))}
            out[0] += 1
            changed = gain = 0
            for p in t:
                if p in (self_ns, self_ew):
                    continue
                m = abs(moved.get(p, 0))
                out[1] += 1
                out[2] += m != 0
                out[3] += m
                out[4] = max(out[4], m)
                gain |= m > abs(moved.get(self_ns, 0))
                if rank_after[p] != rank_before[p]:
                    out[6] += 1
                    changed = 1
            out[5] += changed
            out[7] += gain
    return out


def test_continuity_generated(prog, tmp):
    h5 = os.path.join(tmp, "tiny.h5")
    prog.ok("generate", "-o", h5, "--clubs", "1", "--years", "1", "--sessions-per-week", "1")
    rep = os.path.join(tmp, "cont")
    methods = list(RECIPES)
    prog.ok("compare", h5, "--method", methods[0], "--method", methods[1], "--sample", "1000000",
            "--report", rep)
    got = {(r["method"], r["perturbation"]): r for r in read_csv(os.path.join(rep, "continuity.csv"))}
    for method in methods:
        path = os.path.join(tmp, "tiny-results.csv")
        datum_rule = "nbb" if method == "nbb:wbf" else "mean"
        extra = () if method == "nbb:wbf" else ("--trim", "1", "--round", "away")
        prog.ok("score", h5, "--datum", datum_rule, *extra, "--results", path)
        rows = read_csv(path)
        for kind, name in (("ten", "ten_points"), ("adjusted", "adjusted")):
            want = continuity_reference(rows, method, kind)
            g = got[(method, name)]
            have = [int(g["made"]), int(g["others"]), int(g["moved"]),
                    float(g["mean_move"]) * int(g["others"]), float(g["max_move"]),
                    int(g["rank_perturbations"]), int(g["rank_changes"]), int(g["gain_more"])]
            ok = (have[:3] == want[:3] and close(have[3], float(want[3]), 1e-9)
                  and close(have[4], float(want[4])) and have[5:] == want[5:])
            check(ok, f"continuity {method} {name}: {have}, want {[float(x) for x in want]}")
        trick = got[(method, "one_trick")]
        check(int(trick["made"]) + int(trick["skipped"]) == int(got[(method, "ten_points")]["made"]),
              "one more trick: made + not applicable = the fields sampled")
    print("continuity: every field of a generated archive against the reference")


def test_continuity_seed003(prog, tmp, source):
    """Seed 003's field, perturbed at the row the sample picks with seed 1: table 2,
    Leufkens-Westra's +400, to +410. Worked by hand:
    nbb: the six middle scores 100 112 180 210 400 420 average 237, rounded 240; with 410
    they average 238.67, still 240: no other pair's total moves. But LW's 160 -> 170 takes
    them from 4 to 5 IMPs, level with NS-4 and ahead of it by name: NS-4, EW-6 and EW-7
    (4 IMPs) lose a place; their opponents EW-2 go from -4 to -5, behind NS-6 and NS-7, who
    gain one: 5 other pairs change rank in the one perturbation.
    bastille:linear: the datum moves from 237 to 238 2/3 (+10/6); every other NS and EW
    pair's linear IMPs move by 5/3 times the slope of its segment: tables 1 (-337) and 4
    (+183) 1/50, tables 3 (-57), 6 (-137) and 7 (-125) 1/40, table 5 (-27) 1/30, table 8
    (+753) 1/150, 31/200 in all: 2 x (5/3)(31/200) = 31/60 over 14 pairs, mean 31/840, max
    (5/3)/30 = 1/18; LW gains 4.45 -> 4.6267, more than anyone else moves; no rank changes
    (no two of the 16 figures come within 0.1)."""
    h5 = os.path.join(tmp, "seed003.h5")
    prog.ok("import", os.path.join(source, "datasets", "seeds", "bastille-scheveningen.csv"),
            "-o", h5)
    rep = os.path.join(tmp, "seed003")
    prog.ok("compare", h5, "--method", "nbb:wbf", "--method", "bastille:linear", "--sample", "1",
            "--seed", "1", "--report", rep)
    got = {(r["method"], r["perturbation"]): r for r in read_csv(os.path.join(rep, "continuity.csv"))}
    nbb, bas = got[("nbb:wbf", "ten_points")], got[("bastille:linear", "ten_points")]
    check([nbb[k] for k in ("made", "others", "moved", "max_move", "rank_perturbations",
                            "rank_changes", "gain_more")] == ["1", "14", "0", "0", "1", "5", "0"],
          f"seed 003, nbb, +10: {nbb}")
    check([bas[k] for k in ("made", "others", "moved", "rank_perturbations", "gain_more")]
          == ["1", "14", "14", "0", "0"], f"seed 003, bastille, +10: {bas}")
    check(close(float(bas["mean_move"]), 31 / 840, 1e-12) and
          close(float(bas["max_move"]), 1 / 18, 1e-12), f"seed 003, bastille moves: {bas}")
    print("continuity: seed 003 by hand")


# ---------------------------------------------------------------------------------------------


def test_threads(prog, tmp):
    h5 = os.path.join(tmp, "small.h5")
    methods = ["--method", "nbb:wbf", "--method", "par:wbf", "--method", "cross",
               "--method", "mp", "--method", "rate", "--method", "barking"]
    for by in ("event", "year"):
        dirs = []
        for threads in ("1", "2"):
            d = os.path.join(tmp, f"t{threads}-{by}")
            prog.ok("compare", h5, *methods, "--by", by, "--threads", threads, "--report", d,
                    "--groups", d + "-groups.csv", "--sample", "3000")
            dirs.append(d)
        for name in ("pairs.csv", "rank_changes.csv", "methods.csv", "continuity.csv"):
            check(filecmp.cmp(os.path.join(dirs[0], name), os.path.join(dirs[1], name),
                              shallow=False), f"--by {by}: {name} differs between 1 and 2 threads")
        check(filecmp.cmp(dirs[0] + "-groups.csv", dirs[1] + "-groups.csv", shallow=False),
              f"--by {by}: the groups differ between 1 and 2 threads")
    print("threads: 1 and 2 give the same bytes")


def test_bad_specs(prog, tmp):
    h5 = os.path.join(tmp, "small.h5")
    for spec, says in (("foo", "unknown method 'foo'"),
                       ("mean:trim=x", "--trim takes none, tenth"),
                       ("barking:linear", "barking is defined on the wbf scale only"),
                       ("nbb:bogus=1", "unknown option 'bogus'"),
                       ("mp:top=3", "--top takes 2(n-1) or n-1"),
                       ("cross:round=away", "unknown option 'round'"),
                       ("mean:trim", "trim needs a value"),
                       ("nbb::wbf", "an empty option")):
        p = prog.run("compare", h5, "--method", "nbb:wbf", "--method", spec)
        check(p.returncode == 2 and says in p.stderr and spec in p.stderr,
              f"--method {spec}: exit {p.returncode}, {p.stderr!r}")
    p = prog.run("compare", h5, "--method", "nbb:wbf")
    check(p.returncode == 2 and "two --method at least" in p.stderr, f"one method: {p.stderr!r}")
    p = prog.run("compare", h5, "--method", "rate", "--method", "rate:datum=nbb")
    check(p.returncode == 2 and "once" in p.stderr, f"rate twice: {p.stderr!r}")
    out = os.path.join(tmp, "never")
    p = prog.run("compare", os.path.join(tmp, "missing.h5"), "--method", "nbb", "--method",
                 "cross", "--report", out)
    check(p.returncode != 0 and not os.path.exists(out), "a missing archive: nothing written")
    print("bad specs refused")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    prog = Program(a.datum)
    with tempfile.TemporaryDirectory() as tmp:
        test_statistics(prog, tmp)
        test_self(prog, tmp)
        test_continuity_seed003(prog, tmp, a.source)
        test_continuity_generated(prog, tmp)
        test_threads(prog, tmp)
        test_bad_specs(prog, tmp)
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
