#!/usr/bin/env python3
"""End-to-end tests of `datum matchpoints` (docs/methods.md, "Matchpoints"; issue 14).

- a session worked by hand: a tie, an average-plus, a board played fewer times than the others
  (Neuberg to the event's largest field), each pair's percentage;
- random archives (adjusted rows, fields of 1 to 14 results, several events) against a reference
  written here: 2 per result beaten and 1 per tie by direct comparison, Neuberg's formula
  (m + 1) N / r - 1, the awards as shares of the top; with --no-neuberg, --top n-1 and
  --adjusted; the pair totals and percentages; 1 and 2 threads byte for byte;
- a real peer side by side: npm bridge-scorer@2.4.0 (its `matchpoints` and `matchpointsACBL`,
  its cross-IMPs, and its Butler = datum's `--datum mean --trim 1 --trim-min 4 --round up` on
  fields of up to 10 results) on thousands of random fields. The test installs it with npm into a
  cache folder (--peer-only runs this part alone; without npm or a registry it says so and exits
  77, which CTest reports as skipped);
- every matchpoint USEBIO file of ../shared/datasets/real (Compscore3, EBUScore, Pianola,
  RealBridge) through `--compare-published`, with the lines that disagree named by board;
- the refusals.

usage: test_matchpoints.py --datum PATH [--data DIR] [--peer-only]
"""
import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rate import Run  # noqa: E402  (datum's runner)

HEADER = ["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score",
          "adjusted"]
SHARES = {"A+": (0.6, 0.4), "A": (0.5, 0.5), "A-": (0.4, 0.6)}
PEER = "bridge-scorer@2.4.0"


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        w.writerows(rows)


def reference(rows, neuberg=True, half=False, shares=SHARES):
    """{(event, board, table): (top, ns, ew)} and {pair: [mp, top, boards]}, from the rows."""
    fields = {}
    for r in rows:
        fields.setdefault((r[0], r[3]), []).append(r)
    largest = {}
    for (event, _), f in fields.items():
        largest[event] = max(largest.get(event, 0), len(f))
    out, pairs = {}, {}
    for (event, board), f in fields.items():
        real = [r[7] for r in f if not r[8]]
        r_n = len(real)
        size = max(largest[event], len(f)) if neuberg else r_n
        top = 2.0 * (size - 1) if size > 1 else 0.0
        unit = 0.5 if half else 1.0
        for r in f:
            if r[8]:
                ns, ew = (s * top for s in shares[r[8]])
            else:
                m = sum(2 if r[7] > s else 1 if r[7] == s else 0 for s in real) - 1  # itself: a tie
                if neuberg and size != r_n:
                    m = (m + 1) * size / r_n - 1
                ns, ew = m, top - m
            out[(event, board, r[4])] = (top * unit, ns * unit, ew * unit)
            for pair, mp in ((r[5], ns * unit), (r[6], ew * unit)):
                t = pairs.setdefault(pair, [0.0, 0.0, 0])
                t[0] += mp
                t[1] += top * unit
                t[2] += 1
    return out, pairs


def read_results(path):
    with open(path, newline="") as f:
        return {(r["event"], int(r["board"]), int(r["table"])): r for r in csv.DictReader(f)}


def read_pairs(path):
    with open(path, newline="") as f:
        return {r["pair"]: r for r in csv.DictReader(f)}


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def check(run, rows, name, args=(), **ref):
    """datum matchpoints on rows equals the reference, results and pairs."""
    src, h5 = run.path(name + ".csv"), run.path(name + ".h5")
    write_csv(src, rows)
    run("import", src, "-o", h5)
    res, prs = run.path(name + "-results.csv"), run.path(name + "-pairs.csv")
    run("matchpoints", h5, "--results", res, "--pairs", prs, *args)
    want, want_pairs = reference(rows, **ref)
    got = read_results(res)
    assert set(got) == set(want), name
    for key, (top, ns, ew) in want.items():
        g = got[key]
        assert close(float(g["top"]), top), (name, key, g, top)
        assert close(float(g["ns_mp"]), ns), (name, key, g, ns)
        assert close(float(g["ew_mp"]), ew), (name, key, g, ew)
    got_pairs = read_pairs(prs)
    assert set(got_pairs) == set(want_pairs), name
    for pair, (mp, top, boards) in want_pairs.items():
        g = got_pairs[pair]
        assert int(g["boards"]) == boards and close(float(g["matchpoints"]), mp), (name, pair, g)
        if top > 0:
            assert close(float(g["percentage"]), 100 * mp / top), (name, pair, g)
    return h5


def test_by_hand(run):
    # Board 1, 4 tables: 420, 420, 450, -50: 450 beats 3 (6 of 6), each 420 beats 1 and ties 1
    # (3), -50 nothing. Board 2, 3 tables of the event's 4 (Neuberg to 4): 100, 200, 300 score
    # 0, 2, 4 among 3, then (m + 1) 4/3 - 1 = 1/3, 3, 17/3 of 6. Board 3: an average-plus
    # (NS 60% of 6 = 3.6, EW 2.4) and 3 real results factored to the field's 4 rows.
    rows = [["S", "2024-05-01", "", 1, 1, "N1", "E1", 420, ""],
            ["S", "2024-05-01", "", 1, 2, "N2", "E2", 420, ""],
            ["S", "2024-05-01", "", 1, 3, "N3", "E3", 450, ""],
            ["S", "2024-05-01", "", 1, 4, "N4", "E4", -50, ""],
            ["S", "2024-05-01", "", 2, 1, "N1", "E2", 100, ""],
            ["S", "2024-05-01", "", 2, 2, "N2", "E3", 200, ""],
            ["S", "2024-05-01", "", 2, 3, "N3", "E4", 300, ""],
            ["S", "2024-05-01", "", 3, 1, "N1", "E3", 420, ""],
            ["S", "2024-05-01", "", 3, 2, "N2", "E4", "", "A+"],
            ["S", "2024-05-01", "", 3, 3, "N3", "E1", 100, ""],
            ["S", "2024-05-01", "", 3, 4, "N4", "E2", 400, ""]]
    check(run, rows, "hand")
    got = read_results(run.path("hand-results.csv"))
    by_hand = {(1, 1): 3, (1, 3): 6, (1, 4): 0, (2, 1): 1 / 3, (2, 3): 17 / 3, (3, 1): 17 / 3,
               (3, 2): 3.6, (3, 3): 1 / 3, (3, 4): 3}
    for (board, table), ns in by_hand.items():
        assert close(float(got[("S", board, table)]["ns_mp"]), ns), (board, table, got)
    assert close(float(got[("S", 3, 2)]["ew_mp"]), 2.4)
    pairs = read_pairs(run.path("hand-pairs.csv"))  # N3: 6 + 17/3 + 1/3 = 12 of 18
    assert close(float(pairs["N3"]["percentage"]), 100 * 12 / 18), pairs["N3"]
    # Every pair keeps its direction (a Mitchell): two rankings. East-West's first is E1, two
    # boards: 6 - 3 = 3 on board 1 and 6 - 1/3 on board 3, 8 2/3 of 12; North-South's N3.
    ranking = run("matchpoints", run.path("hand.h5")).stdout
    ns, ew = ranking.split("\n\n")
    assert ns.splitlines()[0].endswith("North-South") and ew.splitlines()[0].endswith("East-West")
    first = ew.splitlines()[2].split()
    assert first[1] == "E1" and abs(float(first[-1]) - 100 * (26 / 3) / 12) < 0.005, ranking
    assert ns.splitlines()[2].split()[1] == "N3" and all("E" not in l.split()[1]
                                                         for l in ns.splitlines()[2:]), ranking


def random_rows(rng, events=12, adjusted=0.08):
    rows = []
    for e in range(events):
        tables = rng.randint(1, 14)
        for board in range(1, rng.randint(2, 6)):
            played = tables if rng.random() < 0.7 else rng.randint(1, tables)
            for t in range(1, played + 1):
                code = rng.choice(["A+", "A", "A-"]) if rng.random() < adjusted else ""
                score = "" if code else 10 * rng.randint(-40, 40) * rng.choice([1, 1, 5])
                rows.append([f"E{e}", "2024-06-01", "", board, t, f"E{e}N{t}",
                             f"E{e}W{(t + board) % played + 1}", score, code])
    return rows


def test_random_against_reference(run):
    rng = random.Random(20261125)
    rows = random_rows(rng)
    h5 = check(run, rows, "random")
    check(run, rows, "random-plain", ["--no-neuberg"], neuberg=False)
    check(run, rows, "random-half", ["--top", "n-1"], half=True)
    shares = {"A+": (0.65, 0.35), "A": (0.5, 0.5), "A-": (0.35, 0.65)}
    check(run, rows, "random-awards", ["--adjusted", "65,50,35"], shares=shares)
    outs = []
    for threads in (1, 2):
        out, res = run.path(f"t{threads}.h5"), run.path(f"t{threads}.csv")
        run("matchpoints", h5, "-o", out, "--results", res, "--threads", threads)
        outs.append(open(res, "rb").read())
    assert outs[0] == outs[1]
    import h5py
    files = [h5py.File(run.path(f"t{t}.h5"), "r") for t in (1, 2)]
    for d in ("fields/top", "results/ns_mp", "results/ew_mp", "pairs/matchpoints",
              "pairs/percentage"):
        a, b = (f[d][:] for f in files)
        assert a.tobytes() == b.tobytes() and len(a), d
    assert files[0].attrs["method"] == "matchpoints" and files[0].attrs["neuberg"] == "yes"


def test_refusals(run):
    h5 = run.path("hand.h5")
    for args, text in ((["--top", "2"], "--top"), (["--adjusted", "60,50"], "--adjusted"),
                       (["--adjusted", "160,50,40"], "--adjusted"),
                       (["--neuberg", "--no-neuberg"], "contradict")):
        p = run("matchpoints", h5, *args, expect=2)
        assert text in p.stderr, (args, p.stderr)


def peer_dir():
    """A folder with node_modules/bridge-scorer, or None (no npm, no registry)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        return None
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                         "datum-peer")
    if not os.path.exists(os.path.join(cache, "node_modules", "bridge-scorer", "package.json")):
        os.makedirs(cache, exist_ok=True)
        p = subprocess.run([npm, "install", "--no-save", "--silent", "--prefix", cache, PEER],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            print(f"npm install {PEER} failed: {p.stderr.strip()[:200]}")
            return None
    return cache


PEER_JS = r"""
const scorer = require(process.argv[2]);
const fields = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
const out = fields.map(scores => {
  const games = scale => scores.map(s => ({score: s, contract: {declaror: 'N'}}));
  const std = scorer.matchpoints(games()), acbl = scorer.matchpointsACBL(games());
  const cross = games(); scorer.crossImps(cross);
  const butler = games(); scorer.butler(butler);
  return scores.map((_, i) => [std[i].matchpointsNS.value, acbl[i].matchpointsNS.value,
                               cross[i].impsNS.value, butler[i].impsNS.value]);
});
process.stdout.write(JSON.stringify(out));
"""


def test_peer(run):
    """bridge-scorer's matchpoints (2/1 and ACBL's 1/0.5) and cross-IMPs on thousands of random
    fields of 2 to 20 results (multiples of 10: its IMP table is the WBF's there), each field an
    event of its own and fully played, so that Neuberg has nothing to do."""
    where = peer_dir()
    if where is None:
        print(f"skipped: the peer {PEER} (npm cannot install it here)")
        return False
    rng = random.Random(77)
    fields, rows = [], []
    for f in range(3000):
        n = rng.randint(2, 20)
        scores = [10 * rng.randint(-60, 60) * rng.choice([1, 1, 1, 7]) for _ in range(n)]
        scores = [s if s else 10 for s in scores]  # bridge-scorer reads 0 as passed out
        fields.append(scores)
        for t, s in enumerate(scores, 1):
            rows.append([f"F{f:04d}", "2024-07-01", "", 1, t, f"F{f}N{t}", f"F{f}E{t}", s, ""])
    src, h5 = run.path("peer.csv"), run.path("peer.h5")
    write_csv(src, rows)
    run("import", src, "-o", h5)
    with open(run.path("peer.json"), "w") as f:
        json.dump(fields, f)
    with open(run.path("peer.js"), "w") as f:
        f.write(PEER_JS)
    p = subprocess.run(["node", run.path("peer.js"), os.path.join(where, "node_modules",
                                                                  "bridge-scorer"),
                        run.path("peer.json")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    peer = json.loads(p.stdout)
    outs = {}
    for name, args in (("std", []), ("acbl", ["--top", "n-1"])):
        outs[name] = run.path(f"peer-{name}.csv")
        run("matchpoints", h5, "--results", outs[name], *args)
    cross, butler = run.path("peer-cross.csv"), run.path("peer-butler.csv")
    run("cross", h5, "--results", cross)
    # Its Butler: the mean without the best and worst score from 4 results on (one each up to
    # 10 results), rounded to 10 with halves up (JavaScript's Math.round).
    run("score", h5, "--datum", "mean", "--trim", 1, "--trim-min", 4, "--round", "up",
        "--results", butler)
    std, acbl, cr, bu = (read_results(p) for p in (outs["std"], outs["acbl"], cross, butler))
    compared = butlers = 0
    for f, scores in enumerate(fields):
        for t in range(1, len(scores) + 1):
            key = (f"F{f:04d}", 1, t)
            mine_std, mine_acbl, theirs = float(std[key]["ns_mp"]), float(acbl[key]["ns_mp"]), peer[f][t - 1]
            assert mine_std == theirs[0], (key, mine_std, theirs)
            assert mine_acbl == theirs[1], (key, mine_acbl, theirs)
            assert close(float(cr[key]["ns_avg"]), theirs[2]), (key, cr[key], theirs)
            if len(scores) <= 10:  # past 10 results it drops more than one score at each end
                assert float(bu[key]["ns_imps"]) == theirs[3], (key, bu[key], theirs)
                butlers += 1
            compared += 1
    print(f"peer {PEER}: {compared} results in {len(fields)} fields agree "
          f"(matchpoints 2/1 and 1/0.5, cross-IMPs; Butler on the {butlers} results of fields of at most "
          "10 results)")
    return True


# Every matchpoint USEBIO file of ../shared/datasets/real: its command (docs/peers.md), the
# lines of the file whose published matchpoints (NS and EW) datum reproduces, and the lines it
# does not, each read in the file: a director's score the file does not record as one.
COBALT, UK = "usebio-abftech-cobalt", "usebio-ukbridge-club-website"
REAL = [
    # Compscore3: Neuberg only where a field has an adjusted line; factored figures in tenths.
    (f"{COBALT}/mp_pairs_howell.xml", ["--neuberg-to", "field"], 0.005, 161, []),
    (f"{COBALT}/mp_pairs_mitchell.xml", ["--neuberg-to", "field"], 0.005, 512, []),
    # Board 1, table 1: 2S making 8 (+110), published 20/20, an average the file does not mark:
    # its 21 lines (the 20 others factored by Compscore3 to 21 results) are the exceptions.
    (f"{COBALT}/mp_pairs_mitchell_02.xml", ["--neuberg-to", "field"], 0.05, 567, [1] * 21),
    (f"{COBALT}/mp_pairs_mitchell_03.xml", ["--neuberg-to", "field"], 0.005, 126, []),
    (f"{COBALT}/mp_pairs_mitchell_04.xml", ["--neuberg-to", "field"], 0.005, 134, []),
    # Board 3 table 1: A5050 published 23/11 (not an average); board 4 table 1: -650 published
    # 21/19 where the field gives 19/21: director's scores the file does not record.
    (f"{COBALT}/mp_pairs_mitchell_adjusted_02.xml", ["--neuberg-to", "field"], 0.05, 567, [3, 4]),
    (f"{UK}/test-payloads/usebio-and-pbn/usebio.xml", ["--no-neuberg"], 0.005, 144, []),
    (f"{UK}/test-payloads/realbridge/usebio.xml", [], 0.005, 168, []),
    # EBUScore: across the field (two sections), Neuberg to the event's largest field.
    (f"{UK}/public-usebio/multi-section-pairs.xml", ["--across-sections"], 0.005, 335, []),
    (f"{UK}/public-usebio/mp-pairs.xml", [], 0.005, 242, []),
    (f"{UK}/public-usebio-2025-commit-828a7af/00201600+002321.xml", ["--across-sections"], 0.005,
     305, []),
    (f"{UK}/public-usebio-2025-commit-828a7af/00201789+001571.xml", [], 0.005, 144, []),
    (f"{UK}/public-usebio-2025-commit-828a7af/00202131+001686.xml", [], 0.05, 176, []),
    (f"{UK}/public-usebio-2025-commit-828a7af/00202217+001532.xml", [], 0.005, 180, []),
    (f"{UK}/public-usebio-2025-commit-828a7af/00202711+000827.xml", [], 0.005, 234, []),
    (f"{UK}/public-usebio-2025-commit-828a7af/00210009+002061.xml", [], 0.005, 216, []),
]


# The pairs' percentages the files publish (PARTICIPANTS/PAIR/PERCENTAGE, two decimals),
# against datum's --pairs. Compscore3 totals with Neuberg to the event's largest field (its
# lines are not factored, its totals are: mp_pairs_howell.xml's board 12); EBUScore's
# percentages of congresses are of figures rounded to tenths, hence within 0.01.
PERCENTAGES = [
    (f"{COBALT}/mp_pairs_howell.xml", [], 0.005),
    (f"{COBALT}/mp_pairs_mitchell.xml", [], 0.005),
    (f"{COBALT}/mp_pairs_mitchell_03.xml", [], 0.005),
    (f"{COBALT}/mp_pairs_mitchell_04.xml", [], 0.005),
    (f"{UK}/public-usebio/mp-pairs.xml", [], 0.005),
    (f"{UK}/test-payloads/realbridge/usebio.xml", [], 0.005),
    (f"{UK}/test-payloads/usebio-and-pbn/usebio.xml", ["--no-neuberg"], 0.005),
    (f"{UK}/public-usebio/multi-section-pairs.xml", ["--across-sections"], 0.01),
    (f"{UK}/public-usebio-2025-commit-828a7af/00201600+002321.xml", ["--across-sections"], 0.01),
]


def published_percentages(path):
    """{(pair number, direction or ''): percentage} from a USEBIO file's participants."""
    import xml.etree.ElementTree as ET
    out = {}
    for pair in ET.parse(path).getroot().iter("PAIR"):
        number, pct = pair.findtext("PAIR_NUMBER"), pair.findtext("PERCENTAGE")
        if number and pct:
            out[(number.strip(), (pair.findtext("DIRECTION") or "").strip())] = float(pct)
    return out


def test_real_percentages(run, data):
    for rel, args, tolerance in PERCENTAGES:
        h5 = run.path(os.path.basename(rel) + ".h5")
        run("import", "--format", "usebio", os.path.join(data, rel), "-o", h5)
        pairs = run.path("real-pct.csv")
        run("matchpoints", h5, *args, "--pairs", pairs)
        got = read_pairs(pairs)
        want = published_percentages(os.path.join(data, rel))
        assert want, rel
        for (number, direction), pct in want.items():
            names = [k for k in got if k.endswith("/" + number + direction) or k.endswith("/" + number)]
            assert len(names) == 1, (rel, number, direction, names)
            mine = float(got[names[0]]["percentage"])
            assert abs(mine - pct) <= tolerance + 1e-9, (rel, number, direction, mine, pct)


def test_real_files(run, data):
    """`datum matchpoints --compare-published` on every matchpoint USEBIO file: the counts it
    prints, NS and EW, and the boards of the lines that disagree (the exceptions above)."""
    import re
    for rel, args, tolerance, lines, exceptions in REAL:
        h5 = run.path(os.path.basename(rel) + ".h5")
        run("import", "--format", "usebio", os.path.join(data, rel), "-o", h5)
        p = run("matchpoints", h5, *args, "--compare-published", "--published-tolerance",
                tolerance, "--pairs", run.path("real-pairs.csv"))
        agree = lines - len(exceptions)
        assert f"published: {agree} of {lines} lines agree" in p.stderr, (rel, p.stderr)
        assert f"published: East-West: {agree} of {lines} lines agree" in p.stderr, (rel, p.stderr)
        boards = [int(m) for m in re.findall(r'^published:   "[^"]*", "[^"]*", (\d+),', p.stderr, re.M)]
        assert boards == exceptions[:10], (rel, boards)  # the first ten are listed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--peer-only", action="store_true")
    ap.add_argument("--data", help="../shared/datasets/real (absent: its files are skipped)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(os.path.abspath(args.datum), tmp)
        if args.peer_only:
            return 0 if test_peer(run) else 77
        for test in (test_by_hand, test_random_against_reference, test_refusals):
            test(run)
            print(f"ok {test.__name__}")
        if args.data and os.path.isdir(args.data):
            test_real_files(run, args.data)
            print("ok test_real_files")
            test_real_percentages(run, args.data)
            print("ok test_real_percentages")
        else:
            print(f"SKIP real files: {args.data} not found (../shared beside the clone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
