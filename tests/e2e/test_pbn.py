"""`datum import --format pbn` end to end: small handmade PBN files (written to a temporary
directory) with given, computed, `-`/`?` and adjusted scores, suspect scores (a warning, an error
with --strict), malformed files (exit 2, FILE:LINE, no archive left), and the real BridgeWebs
hands.pbn, whose computed scores must equal the SCORE values of its USEBIO twin (usebio.xml, read
here with xml.etree, independently of the C readers); PbnTools' conversions imported; and BBO's
Sky Club IMP pairs, whose published IMPs (read here from its HTML travellers) `datum cross`
reproduces; sit-out rows (a pair against "-", no result) skipped with their count on stderr and the
pairs' boards counted without them; the figures a table publishes (IMP_NS/IMP_EW, MP_NS/MP_EW)
compared by `datum score --compare-published`, the agreement expected computed here from the
file's own cells (Butler IMPs against the mean, WBF scale); and no real PBN file publishing
figures without a test here. The real files are skipped cleanly when --real is absent."""
import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from fractions import Fraction

from e2e_common import FAILURES, check


def run(datum, *args):
    return subprocess.run([datum, *map(str, args)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


def results(datum, archive):
    """(board, table) -> (ns_pair, ew_pair, ns_score or None, adjusted) of an archive."""
    p = run(datum, "score", archive, "--datum", "mean", "--results", "-")
    assert p.returncode == 0, p.stderr
    out = {}
    for r in csv.DictReader(io.StringIO(p.stdout)):
        out[(r["section"], int(r["board"]), int(r["table"]))] = (
            r["ns_pair"], r["ew_pair"], int(r["ns_score"]) if not r["adjusted"] else None,
            r["adjusted"])
    return out


GIVEN = """% PBN 2.1
% EXPORT
[Event "Handmade"]
[Section "A"]
[Date "2024.03.12"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
{ a comment
  over two lines }
[ScoreTable "Table\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R;Score_NS\\6R;Score_EW\\6R"]
 1  1  2 4S    N 10    420      -
 2  3  4 3NTX  E  7      -   -300
 3  5  6 "2H"  S  ?     ?      ?
 4  7  8 A     -  -      -      -

[Event "#"]
[Board "2"]
[Vulnerable "NS"]
[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]
1 2 4S N =
3 4 3NT S +1
5 6 2HXX W -2
7 8 Pass - -
"""


def handmade(datum, tmp):
    pbn = os.path.join(tmp, "given.pbn")
    with open(pbn, "w") as f:
        f.write(GIVEN)
    out = os.path.join(tmp, "given.h5")
    p = run(datum, "import", "--format", "pbn", pbn, "-o", out)
    # Row 3 has a contract but no result and no score: an error naming the line.
    check(p.returncode == 2 and "given.pbn:14:" in p.stderr and not os.path.exists(out),
          f"row without score nor result: exit 2 at line 14 ({p.returncode}: {p.stderr!r})")
    with open(pbn, "w") as f:
        f.write(GIVEN.replace(' 3  5  6 "2H"  S  ?     ?      ?', ' 3  5  6 "2H"  S  ?   110      ?'))
    p = run(datum, "import", "--format", "pbn", pbn, "-o", out)
    check(p.returncode == 0 and p.stderr == "", f"import: {p.returncode} {p.stderr!r}")
    got = results(datum, out)
    want = {("A", 1, 1): ("Handmade/A/1", "Handmade/A/2", 420, ""),
            ("A", 1, 2): ("Handmade/A/3", "Handmade/A/4", 300, ""),
            ("A", 1, 3): ("Handmade/A/5", "Handmade/A/6", 110, ""),
            ("A", 1, 4): ("Handmade/A/7", "Handmade/A/8", None, "A"),
            # board 2, NS vulnerable, scores computed; table = row number
            ("A", 2, 1): ("Handmade/A/1", "Handmade/A/2", 620, ""),
            ("A", 2, 2): ("Handmade/A/3", "Handmade/A/4", 630, ""),
            ("A", 2, 3): ("Handmade/A/5", "Handmade/A/6", 600, ""),
            ("A", 2, 4): ("Handmade/A/7", "Handmade/A/8", 0, "")}
    check(got == want, f"handmade scores:\n{got}\n!=\n{want}")

    # Suspect scores: 30 is impossible; 140 is legal but 2H by S taking 8 makes 110.
    with open(pbn, "w") as f:
        f.write(GIVEN.replace("420      -", " 30      -")
                .replace(' 3  5  6 "2H"  S  ?     ?      ?', ' 3  5  6 "2H"  S  8   140      ?'))
    p = run(datum, "import", "--format", "pbn", pbn, "-o", out)
    check(p.returncode == 0 and "given.pbn:12:" in p.stderr and "impossible" in p.stderr
          and "given.pbn:14:" in p.stderr and "scores 110" in p.stderr
          and "2 warnings" in p.stdout,
          f"warnings: {p.returncode} {p.stderr!r} {p.stdout!r}")
    os.remove(out)
    p = run(datum, "import", "--format", "pbn", pbn, "-o", out, "--strict")
    check(p.returncode == 2 and "given.pbn:12:" in p.stderr and not os.path.exists(out)
          and not [n for n in os.listdir(tmp) if ".tmp" in n],
          f"--strict: {p.returncode} {p.stderr!r}")

    # Malformed files: exit 2, FILE:LINE, nothing written.
    bad = {
        "unterminated tag": ('[Event "x]\n[Board "1"]\n', 1),
        "no closing bracket": ('[Event "x"\n', 1),
        "text outside": ('[Event "x"]\n\nhello\n', 3),
        "cells": ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2\n', 3),
        "bad contract": ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n'
                         '1 2 8S N 10\n', 3),
        "bad declarer": ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n'
                         '1 2 4S Q 10\n', 3),
        "bad result": ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n'
                       '1 2 4S N 14\n', 3),
        "no board": ('[Event "x"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n', 2),
        "no pairs": ('[Board "1"]\n[ScoreTable "Table;Score_NS"]\n1 420\n', 2),
        "bad vulnerable": ('[Board "1"]\n[Vulnerable "Some"]\n'
                           '[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n', 3),
        "same pair twice": ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n'
                            '1 2 420\n1 3 420\n', 4),
        "unterminated comment": ('[Board "1"]\n{ never closed\n', 2),
    }
    for what, (text, line) in bad.items():
        path = os.path.join(tmp, "bad.pbn")
        with open(path, "w") as f:
            f.write(text)
        p = run(datum, "import", "--format", "pbn", path, "-o", out)
        check(p.returncode == 2 and f"bad.pbn:{line}" in p.stderr and not os.path.exists(out)
              and "Sanitizer" not in p.stderr,
              f"malformed ({what}): want exit 2 at line {line}, got {p.returncode} {p.stderr!r}")
    p = run(datum, "import", "--format", "pbn", os.path.join(tmp, "missing.pbn"), "-o", out)
    check(p.returncode != 0 and not os.path.exists(out), "missing file")
    p = run(datum, "import", "--strict", os.path.join(tmp, "given.pbn"), "-o", out)
    check(p.returncode == 2, "--strict without --format pbn is a usage error")


# A Butler session as Ruter or Magic Contest write it: IMP_NS/IMP_EW beside the scores, the
# method in [Scoring], a bye ("-" for the missing pair, no result) on each board. The figures
# were worked out by hand: Butler IMPs against the plain mean (board 1: 240, board 2: 315), WBF
# scale; the last line of board 2 is published one IMP short (-4 and 4 for -5 and 5), and one
# EW figure is not published ("-").
BUTLER = """% PBN 2.1
[Event "Handmade Butler"]
[Date "2024.05.06"]
[Board "1"]
[Vulnerable "None"]
[Scoring "IMP;Butler"]
[ScoreTable "Table\\2R;Round\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\6R;Score_EW\\6R;IMP_NS\\6R;IMP_EW\\6R"]
 1  1  1  2 4S   N 10  "420"      -     5    -5
 2  1  3  4 4S   N 10  "420"      -     5    -5
 3  1  5  6 2S   N 10  "170"      -    -2     2
 4  1  7  8 4S   N  9      -   "50"    -7     7
 5  1  9  -  -   -  -      -      -     -     -

[Event "Handmade Butler"]
[Board "2"]
[Vulnerable "NS"]
[Scoring "IMP;Butler"]
[ScoreTable "Table\\2R;Round\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\6R;Score_EW\\6R;IMP_NS\\6R;IMP_EW\\6R"]
 1  2  2  9 4S   N 10  "620"      -     7    -7
 2  2  4  1 3NT  S  9  "600"      -     7     -
 3  2  6  3 4S   N  9      -  "100"    -9     9
 4  2  8  5 2S   S  9  "140"      -    -4     4
 5  2  -  7  -   -  -      -      -     -     -
"""

# The same four results of board 1 matchpointed, as Magic Contest publishes them (MP_NS/MP_EW:
# 2 per result beaten, 1 per tie; Percentage_NS/EW), with a bye.
MATCHPOINTS = """% PBN 2.1
[Event "Handmade MP"]
[Date "2024.05.07"]
[Board "1"]
[Vulnerable "None"]
[Scoring "MatchPoints;MP1"]
[ScoreTable "Table\\2R;Round\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Lead\\3L;Score_NS\\6R;Score_EW\\6R;MP_NS\\4R;MP_EW\\4R;Percentage_NS\\3R;Percentage_EW\\3R"]
 1  1  1  2 4S   N 10 H2   "420"      -  5.0  1.0  83  17
 2  1  3  4 4S   N 10 D3   "420"      -  5.0  1.0  83  17
 3  1  5  6 2S   N 10 C4   "170"      -  2.0  4.0  33  67
 4  1  7  8 4S   N  9 SA       -   "50"  0.0  6.0   0 100
 5  1  9  -  -   -  - -        -      -    -    -   -   -
"""

WBF = (20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500,
       1750, 2000, 2250, 2500, 3000, 3500, 4000)


def score_tables(text):
    """The [ScoreTable] rows of a PBN text, read here independently of datum: per board a list of
    {column: cell} (quotes removed), and the boards' [Vulnerable]."""
    boards, board, columns = {}, None, None
    for line in text.splitlines():
        if line.startswith("[Board "):
            board, columns = int(line.split('"')[1]), None
        elif line.startswith("[ScoreTable "):
            columns = [c.split("\\")[0] for c in line.split('"')[1].split(";")]
            boards[board] = []
        elif line.startswith("[") or not line.strip():
            columns = None if not line.strip() else columns
        elif columns:
            boards[board].append(dict(zip(columns, (c.strip('"') for c in line.split()))))
    return boards


def butler_expectation(text, points):
    """What `datum score --datum mean --compare-published` should find in a PBN text whose NS and
    EW points are the columns points[0], points[1]: (NS lines published, of them equal to the
    Butler IMPs against the mean of the board's scores within 0.005, the same two for EW, sit-out
    rows, boards played per pair number)."""
    n = agree = ew_n = ew_agree = byes = 0
    boards_played = {}
    for rows in score_tables(text).values():
        real = [r for r in rows if "-" not in (r["PairId_NS"], r["PairId_EW"])]
        byes += len(rows) - len(real)
        scores = [int(r["Score_NS"]) if r["Score_NS"] != "-" else -int(r["Score_EW"])
                  for r in real]
        mean = Fraction(sum(scores), len(scores))
        for r, score in zip(real, scores):
            diff = score - mean
            imps = sum(abs(diff) >= t for t in WBF) * (1 if diff >= 0 else -1)
            for side in ("PairId_NS", "PairId_EW"):
                boards_played[r[side]] = boards_played.get(r[side], 0) + 1
            if r[points[0]] != "-":
                n += 1
                agree += abs(Fraction(r[points[0]]) - imps) <= Fraction(5, 1000)
            if r[points[1]] != "-":
                ew_n += 1
                ew_agree += abs(Fraction(r[points[1]]) + imps) <= Fraction(5, 1000)
    return n, agree, ew_n, ew_agree, byes, boards_played


def published(datum, tmp):
    """Handmade Butler and matchpoint PBN files: their sit-outs skipped and counted, their
    published points compared by `datum score --datum mean --compare-published`, with the counts
    worked out above from the files; a bye with a result, or a bad figure, refused at its line."""
    for name, text, points, method in (("butler", BUTLER, ("IMP_NS", "IMP_EW"), None),
                                       ("mp", MATCHPOINTS, ("MP_NS", "MP_EW"), "matchpoints")):
        pbn, out = os.path.join(tmp, name + ".pbn"), os.path.join(tmp, name + ".h5")
        with open(pbn, "w") as f:
            f.write(text)
        n, agree, ew_n, ew_agree, byes, boards_played = butler_expectation(text, points)
        p = run(datum, "import", "--format", "pbn", "--strict", pbn, "-o", out)
        check(p.returncode == 0 and f"skipped {byes} sit-out row" in p.stderr,
              f"{name}: import with {byes} byes: {p.returncode} {p.stderr!r}")
        p = run(datum, "score", out, "--datum", "mean", "--compare-published", "--pairs", "-")
        want = [f"published: {agree} of {n} lines agree (tolerance 0.005)",
                f"published: East-West: {ew_agree} of {ew_n} lines agree"]
        if method:
            want.append(f"published: note: {n} of these lines publish {method} figures")
        check(p.returncode == 0 and all(w in p.stderr for w in want),
              f"{name}: --compare-published: want {want}, got {p.returncode} {p.stderr!r}")
        got = {r["pair"].split("/")[-1]: int(r["boards"])
               for r in csv.DictReader(io.StringIO(p.stdout))}
        check(got == boards_played, f"{name}: boards per pair {got} != {boards_played}")
    # Expected for the files above, as the comment says: a check of the checker.
    check(butler_expectation(BUTLER, ("IMP_NS", "IMP_EW"))[:5] == (8, 7, 7, 6, 2)
          and butler_expectation(MATCHPOINTS, ("MP_NS", "MP_EW"))[:5] == (4, 2, 4, 0, 1),
          "the handmade files' expectations")
    for what, old, new, line in (
            ("a bye with a score", ' 5  1  9  -  -   -  -      -',
             ' 5  1  9  -  -   -  -  "420"', 12),
            ("a bad figure", '-2     2', '-2,5   2', 10)):
        pbn = os.path.join(tmp, "bad.pbn")
        with open(pbn, "w") as f:
            f.write(BUTLER.replace(old, new))
        p = run(datum, "import", "--format", "pbn", pbn, "-o", os.path.join(tmp, "bad.h5"))
        check(p.returncode == 2 and f"bad.pbn:{line}:" in p.stderr,
              f"{what}: want exit 2 at line {line}, got {p.returncode} {p.stderr!r}")


def real_published(root):
    """Every real PBN file whose [ScoreTable] or [TotalScoreTable] publishes figures (IMP_*, MP_*,
    Percentage_*, a datum) must have its reproduction test here; there is none under the shared
    data today (docs/peers.md), which this checks, so that a new one is not forgotten."""
    import glob
    import re
    files = sorted(glob.glob(os.path.join(root, "**", "*.pbn"), recursive=True))
    publishing = []
    for path in files:
        text = open(path, encoding="latin-1").read()
        for header in re.findall(r'\[(?:Total)?ScoreTable "([^"]*)"\]', text):
            names = {c.split("\\")[0].lower() for c in header.split(";")}
            if any(n.startswith(("imp", "mp_", "percentage", "butler")) or "datum" in n
                   for n in names):
                publishing.append(os.path.relpath(path, root))
                break
    print(f"real PBN files: {len(files)}, publishing figures: {publishing}")
    check(files and publishing == [],
          f"real PBN files that publish figures, untested: {publishing}")


def real(datum, tmp, root):
    here = os.path.join(root, "usebio-ukbridge-club-website", "test-payloads", "usebio-and-pbn")
    pbn, xml = os.path.join(here, "hands.pbn"), os.path.join(here, "usebio.xml")
    if not (os.path.exists(pbn) and os.path.exists(xml)):
        print("SKIP: real PBN/USEBIO pair not found under", root)
        return
    out = os.path.join(tmp, "hands.h5")
    p = run(datum, "import", "--format", "pbn", pbn, "-o", out, "--strict")
    check(p.returncode == 0, f"hands.pbn: {p.returncode} {p.stderr!r}")
    if p.returncode:
        return
    ours = {}
    for (_, board, _), (ns, ew, score, adj) in results(datum, out).items():
        ours[(board, ns.split("/")[-1], ew.split("/")[-1])] = (score, adj)
    theirs = {}
    for board in ET.parse(xml).getroot().iter("BOARD"):
        number = int(board.findtext("BOARD_NUMBER"))
        for line in board.iter("TRAVELLER_LINE"):
            key = (number, line.findtext("NS_PAIR_NUMBER").strip(),
                   line.findtext("EW_PAIR_NUMBER").strip())
            score = line.findtext("SCORE").strip()
            theirs[key] = (None, "A") if score == "A5050" else (int(score), "")
    check(len(theirs) == 144, f"usebio.xml: {len(theirs)} traveller lines, expected 144")
    check(ours == theirs, "hands.pbn scores differ from usebio.xml: " +
          str(sorted((k, ours.get(k), theirs.get(k)) for k in set(ours) | set(theirs)
                     if ours.get(k) != theirs.get(k))[:10]))


def pbntools(datum, tmp, root):
    """PbnTools' conversions (one game per table result, no [ScoreTable]): each imports with
    --strict, one row per game that has a [Contract] other than "?"."""
    import glob
    import re
    files = sorted(glob.glob(os.path.join(root, "pbntools-*", "**", "*.pbn"), recursive=True))
    if not files:
        print("SKIP: no pbntools-*/ PBN files under", root)
        return
    out = os.path.join(tmp, "pbntools.h5")
    for path in files:
        with open(path, encoding="latin-1") as f:
            games = len(re.findall(r'^\[Contract "(?!\?")[^"]+"\]', f.read(), re.M))
        p = run(datum, "import", "--format", "pbn", path, "-o", out, "--strict")
        check(p.returncode == 0 and f"imported {games} results ({games} scores computed, 0 "
              "warnings)" in p.stdout, f"{path}: {p.returncode} {p.stdout!r} {p.stderr!r}")


def bbo_imp_pairs(datum, tmp, root):
    """BBO's "SKY CLUB JACKPOT 2000", an IMP pairs tourney: its PbnTools .pbn imported and scored
    with `datum cross`, every line's published IMPs (the travellers' "Score", read here from the
    HTML pages, boards from the tourney page's links) equal to ns_avg rounded to 0.01, and every
    "Points" to the computed score (docs/peers.md, "BBO IMP pairs"). The two adjusted lines
    (`A==`, 0.00) have no contract in the .pbn, hence no result: counted, not compared."""
    import glob
    import html
    import re
    here = os.path.join(root, "pbntools-bbo-online-pairs", "test_6_bbo_skyclub_20130810")
    pages = os.path.join(here, "SKY_CLUB_2196_Pairs_SKY_CLUB_JACKPOT_2000")
    if not os.path.isdir(pages):
        print("SKIP: no BBO Sky Club pages under", root)
        return
    text = lambda c: " ".join(html.unescape(re.sub(r"<[^>]*>", "", c)).split())
    tourney = open(glob.glob(os.path.join(pages, "hands.php@tourney=*.html"))[0],
                   encoding="utf-8").read()
    boards = {t: int(b) for t, b in re.findall(r'traveller=([\d-]+)\.html">Board (\d+) traveller',
                                               tourney)}
    published, adjusted = {}, 0
    for t, board in boards.items():
        page = open(os.path.join(pages, "hands.php@traveller=%s.html" % t), encoding="utf-8").read()
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S):
            c = [text(x) for x in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            if len(c) < 9 or not c[0].isdigit():
                continue
            if c[6] == "A==":
                adjusted += c[8] == "0.00"
                continue
            key = (board, "%s & %s" % (c[2], c[3]), "%s & %s" % (c[4], c[5]))
            published[key] = (int(c[7]), Fraction(c[8]))
    pbn = os.path.join(here, "sky_club_2196_pairs_sky_club_jackpot_2000.pbn")
    out = os.path.join(tmp, "sky.h5")
    p = run(datum, "import", "--format", "pbn", pbn, "-o", out, "--strict")
    check(p.returncode == 0, f"{pbn}: {p.stderr!r}")
    if p.returncode:
        return
    p = run(datum, "cross", out, "--results", "-")
    got = {(int(r["board"]), r["ns_pair"].split("/", 1)[1], r["ew_pair"].split("/", 1)[1]):
           (int(r["ns_score"]), Fraction(r["ns_avg"]))
           for r in csv.DictReader(io.StringIO(p.stdout))}
    # Published to 0.01; with 3 or 4 results a board the averages are thirds or halves, so no
    # exact half of a hundredth arises and "within 0.005" is "rounded to 0.01".
    same = sum(k in got and got[k][0] == score and abs(got[k][1] - imps) < Fraction(1, 200)
               for k, (score, imps) in published.items())
    print(f"BBO Sky Club IMP pairs: {same} of {len(published)} lines, {adjusted} adjusted A==")
    check(len(boards) == 11 and len(published) == 42 and same == 42 and adjusted == 2,
          f"BBO Sky Club: {same} of {len(published)} lines reproduced, {adjusted} adjusted; "
          f"datum {sorted(got.items())[:3]}, published {sorted(published.items())[:3]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--real", default="")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        handmade(a.datum, tmp)
        published(a.datum, tmp)
        if a.real:
            real_published(a.real)
            real(a.datum, tmp, a.real)
            pbntools(a.datum, tmp, a.real)
            bbo_imp_pairs(a.datum, tmp, a.real)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
