#!/usr/bin/env python3
"""`datum import --format usebio` end to end: every USEBIO file of ../shared/datasets/real
imported, its counts (results, adjusted results, board fields, pairs, events) checked against
the XML read independently with xml.etree; the published points kept in the archive (through
`--compare-published`'s published_ns column) against the XML's NS_*_POINTS, line by line; a
truncated file, a missing element, a non-USEBIO root, a bad SCORE and points that are not a
number refused with FILE:LINE, exit 2 and nothing left behind; `datum score` run on an imported
Butler file; the published Butler and cross-IMP figures of six files reproduced line by line
(docs/peers.md), the counts `--compare-published` prints checked against the same comparison
done here from the XML.

usage: test_usebio.py --datum PATH --data DIR  (DIR = the shared datasets/real folder; absent:
the real-file checks are skipped with a message, the error-path checks still run)
"""
import argparse
import csv
import glob
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

from e2e_common import FAILURES, check
from e2e_common import run_text as run


def expected_counts(path):
    """Results, adjusted results, board fields, pairs and events, counted from the XML."""
    root = ET.parse(path).getroot()
    lines = adjusted = 0
    fields, pairs, events = set(), set(), set()

    def walk(node, event, session, section, board):
        tag = node.tag
        if tag == "EVENT":
            event = (node.findtext("EVENT_DESCRIPTION") or "").strip(), node.findtext("DATE")
            events.add(event)
        elif tag == "SESSION":
            session = node.get("SESSION_ID", "")
        elif tag == "SECTION":
            section = node.get("SECTION_ID", "")
        elif tag == "BOARD":
            board = int(node.findtext("BOARD_NUMBER"))
        elif tag == "TRAVELLER_LINE":
            nonlocal lines, adjusted
            lines += 1
            score = (node.findtext("SCORE") or "").strip()
            adjusted += score.startswith("A")
            fields.add((event, session, section, board))
            if node.find("NS_PAIR_NUMBER") is not None:
                ns = node.findtext("NS_PAIR_NUMBER").strip()
                ew = node.findtext("EW_PAIR_NUMBER").strip()
            else:
                seat = lambda s: node.findtext(s + "_PLAYER_NUMBER")
                ns = "N%s+S%s" % (seat("N"), seat("S"))
                ew = "E%s+W%s" % (seat("E"), seat("W"))
            pairs.add((event, section, ns))
            pairs.add((event, section, ew))
            return
        for c in node:
            walk(c, event, session, section, board)

    walk(root, None, "", "", None)
    return lines, adjusted, len(fields), len(pairs), len(events)


def published_points(path, side="NS"):
    """{(event, section, board, table): SIDE's points (None if absent)} of every TRAVELLER_LINE, the
    key named as docs/cli.md "USEBIO" says: event "DESCRIPTION YYYY-MM-DD", section
    "SESSION/SECTION" ("1", "-" when absent), table the line's rank on its board, counted afresh
    at each EVENT, SESSION and SECTION."""
    out, ranks = {}, {}

    def attr_or_child(node, name):
        return (node.get(name) or node.findtext(name) or "").strip()

    def walk(node, event, session, section, board):
        tag = node.tag
        if tag == "EVENT":
            name = attr_or_child(node, "EVENT_DESCRIPTION") or attr_or_child(node, "TITLE")
            date = node.findtext("DATE").strip()
            if "/" in date:
                d, m, y = date.split("/")
                date = "%s-%02d-%02d" % (y, int(m), int(d))
            event, session, section = "%s %s" % (name, date), "", ""
            ranks.clear()
        elif tag == "SESSION":
            session = attr_or_child(node, "SESSION_ID")
            ranks.clear()
        elif tag == "SECTION":
            section = attr_or_child(node, "SECTION_ID")
            ranks.clear()
        elif tag == "BOARD":
            board = int(node.findtext("BOARD_NUMBER"))
        elif tag == "TRAVELLER_LINE":
            ranks[board] = ranks.get(board, 0) + 1
            ns = [float(c.text) for c in node if re.fullmatch(side + r"_.+_POINTS", c.tag)]
            key = (event, "%s/%s" % (session or "1", section or "-"), board, ranks[board])
            out[key] = ns[0] if ns else None
            return
        for c in node:
            walk(c, event, session, section, board)

    walk(ET.parse(path).getroot(), None, "", "", None)
    return out


AGREE = re.compile(r"^published: (\d+) of (\d+) lines agree \(tolerance 0\.005\)$", re.M)
EW_AGREE = re.compile(r"^published: East-West: (\d+) of (\d+) lines agree$", re.M)


def compare(datum, command, archive, xml, column, tmp, *options):
    """Runs `datum COMMAND ARCHIVE --compare-published --results R.csv`; returns the counts it
    printed (agree, compared), the same counts computed here from the XML's NS points and the
    results' COLUMN (tolerance 0.005), whether every published_ns of the results is the XML's
    (score: one row per line), and the East-West counts printed and computed here from the XML's
    EW points (EW's figure: the results' ew_imps where given, else -COLUMN); None if datum
    failed."""
    res = os.path.join(tmp, "compare.csv")
    rc, so, se = run(datum, command, archive, *options, "--compare-published", "--results", res)
    m = AGREE.search(se)
    check(rc == 0 and m is not None, "%s %s --compare-published: %d %s" % (command, xml, rc, se))
    if rc != 0 or m is None:
        return None
    key = lambda r: (r["event"], r["section"], int(r["board"]), int(r["table"]))
    with open(res, newline="", encoding="utf-8") as f:
        rows = {key(r): r for r in csv.DictReader(f)}
    published = published_points(xml)
    kept = all((float(r["published_ns"]) if r["published_ns"] else None) == published.get(k)
               for k, r in rows.items()) and (command != "score" or len(rows) == len(published))
    lines = [(p, rows[k][column] if k in rows else "") for k, p in published.items()
             if p is not None]
    agree = sum(c != "" and abs(float(c) - p) <= 0.005 + 1e-9 for p, c in lines)

    def ew_of(r):
        if r.get("ew_imps"):
            return float(r["ew_imps"])
        return -float(r[column]) if r[column] else None
    ew_lines = [(p, ew_of(rows[k]) if k in rows else None)
                for k, p in published_points(xml, "EW").items() if p is not None]
    ew_agree = sum(c is not None and abs(c - p) <= 0.005 + 1e-9 for p, c in ew_lines)
    e = EW_AGREE.search(se)
    ew_printed = (int(e.group(1)), int(e.group(2))) if e else (0, 0)
    return ((int(m.group(1)), int(m.group(2))), (agree, len(lines)), kept,
            (ew_printed, (ew_agree, len(ew_lines))))


def info_counts(text):
    def num(pattern):
        m = re.search(pattern, text, re.M)
        return int(m.group(1)) if m else None
    adjusted = re.search(r"^results\s+\d+ \((\d+) adjusted\)", text, re.M)
    return (num(r"^results\s+(\d+)"), int(adjusted.group(1)) if adjusted else 0,
            num(r"^fields\s+(\d+)"), num(r"^pairs\s+(\d+)"), num(r"^events\s+(\d+)"))


def real_files(datum, data, tmp):
    files = sorted(glob.glob(os.path.join(data, "usebio-*", "**", "*.xml"), recursive=True))
    check(len(files) >= 20, "expected the 23 USEBIO files, found %d" % len(files))
    for path in files:
        out = os.path.join(tmp, "a.h5")
        rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out)
        check(rc == 0, "%s: import failed: %s" % (path, se.strip()))
        if rc != 0:
            continue
        rc, so, se = run(datum, "info", out)
        got, want = info_counts(so), expected_counts(path)
        check(got == want, "%s: (results, adjusted, fields, pairs, events) %s, XML %s"
              % (path, got, want))
        # Every line's published NS points, kept in the archive, come back in --results.
        got = compare(datum, "score", out, path, "ns_imps", tmp, "--datum", "mean")
        check(got is not None and got[2], "%s: published_ns differs from the XML" % path)
        check(got is not None and got[0] == got[1] and got[3][0] == got[3][1],
              "%s: agreement (NS, EW): datum %s, here %s" % (
                  path, got and (got[0], got[3][0]), got and (got[1], got[3][1])))
        os.remove(out)
    # Several files in one archive: events stay apart.
    two = [os.path.join(data, "usebio-abftech-cobalt", n)
           for n in ("butler_howell.xml", "butler_mitchell.xml")]
    out = os.path.join(tmp, "two.h5")
    rc, so, se = run(datum, "import", "--format", "usebio", *two, "-o", out)
    check(rc == 0 and "385 results" in so and "22 pairs" in so, "two files: %s %s" % (so, se))
    # The same session twice is refused (its tables repeat), nothing written.
    same = os.path.join(data, "usebio-abftech-cobalt", "mp_pairs_mitchell_02.xml")
    out2 = os.path.join(tmp, "same.h5")
    rc, so, se = run(datum, "import", "--format", "usebio", same, same, "-o", out2)
    check(rc == 2 and "already" in se and not os.path.exists(out2),
          "same file twice: %d %s" % (rc, se))
    # datum score runs on an imported Butler file.
    butler = os.path.join(data, "usebio-abftech-cobalt", "butler_howell.xml")
    out = os.path.join(tmp, "butler.h5")
    rc, so, se = run(datum, "import", "--format", "usebio", butler, "-o", out)
    check(rc == 0, "butler import: %s" % se)
    res = os.path.join(tmp, "butler.csv")
    rc, so, se = run(datum, "score", out, "--datum", "mean", "--results", res)
    check(rc == 0, "datum score on the Butler import: %s" % se)
    if rc == 0:
        with open(res, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == 140, "score: %d result rows, not 140" % len(rows))
    # Compscore3's published Butler IMPs, every line (the adjusted A5050 too, A/A = 0), with the
    # settings of docs/peers.md: drop the top and bottom score, mean, rounded to 10 (halves away);
    # then the published cross-IMPs (Compscore3, Pianola, TeamsScorer, EBUScoreTeams) with
    # `datum cross` (every other result of the field, divided by n-1), published to 0.01. The
    # counts --compare-published prints are the ones found here from the XML: all lines agree.
    butler = ("score", "ns_imps", "--datum", "mean", "--trim", "1", "--round", "away",
              "--round-unit", "10")
    total = {"score": [0, 0], "cross": [0, 0]}
    for rel, n, how in (("usebio-abftech-cobalt/butler_howell.xml", 140, butler),
                        ("usebio-abftech-cobalt/butler_mitchell.xml", 245, butler),
                        ("usebio-abftech-cobalt/cross_imp_howell.xml", 108, ("cross", "ns_avg")),
                        ("usebio-ukbridge-club-website/test-payloads/cross-imp-pairs/usebio.xml",
                         192, ("cross", "ns_avg")),
                        ("usebio-ukbridge-club-website/public-usebio/multiple-teams.xml", 240,
                         ("cross", "ns_avg")),
                        ("usebio-ukbridge-club-website/public-usebio/point-a-board-teams.xml", 336,
                         ("cross", "ns_avg"))):
        xml, out = os.path.join(data, rel), os.path.join(tmp, "peer.h5")
        rc, so, se = run(datum, "import", "--format", "usebio", xml, "-o", out)
        check(rc == 0, "%s: %s" % (rel, se))
        got = compare(datum, how[0], out, xml, how[1], tmp, *how[2:]) if rc == 0 else None
        if got is None:
            continue
        printed, here, kept, (ew_printed, ew_here) = got
        check(printed == here == (n, n) and kept,
              "%s: datum says %s of the published lines agree, the XML %s, expected %d of %d"
              % (rel, printed, here, n, n))
        check(ew_printed == ew_here == (n, n),
              "%s: East-West: datum says %s agree, the XML %s, expected %d of %d"
              % (rel, ew_printed, ew_here, n, n))
        total[how[0]][0] += printed[0]
        total[how[0]][1] += printed[1]
    check(total == {"score": [385, 385], "cross": [876, 876]},
          "published lines reproduced (agree, compared): %s" % total)


def error_paths(datum, tmp):
    good = """<?xml version="1.0"?>
<USEBIO Version="1.2">
<EVENT EVENT_TYPE="BUTLER_PAIRS">
  <EVENT_DESCRIPTION>Test</EVENT_DESCRIPTION>
  <DATE>09/03/2026</DATE>
  <BOARD>
    <BOARD_NUMBER>1</BOARD_NUMBER>
    <TRAVELLER_LINE>
      <NS_PAIR_NUMBER>1</NS_PAIR_NUMBER>
      <EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>
      <SCORE>420</SCORE>
      <NS_BUTLER_POINTS>1.5</NS_BUTLER_POINTS>
    </TRAVELLER_LINE>
    <TRAVELLER_LINE>
      <NS_PAIR_NUMBER>3</NS_PAIR_NUMBER>
      <EW_PAIR_NUMBER>4</EW_PAIR_NUMBER>
      <SCORE>A6040</SCORE>
    </TRAVELLER_LINE>
  </BOARD>
</EVENT>
</USEBIO>
"""
    cases = [
        ("truncated", good[: len(good) // 2], r"truncated\.xml:\d+: malformed XML"),
        ("nodate", good.replace("<DATE>09/03/2026</DATE>", ""),
         r"nodate\.xml:3: EVENT: missing or empty element DATE"),
        ("nopair", good.replace("<EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>", ""),
         r"nopair\.xml:8: TRAVELLER_LINE: missing or empty element EW_PAIR_NUMBER"),
        ("noscore", good.replace("<SCORE>420</SCORE>", ""),
         r"noscore\.xml:8: TRAVELLER_LINE: missing element SCORE"),
        ("badscore", good.replace("420", "4x0"), r"badscore\.xml:11: SCORE: not a score"),
        ("badadj", good.replace("A6040", "A7030"), r"badadj\.xml:\d+: SCORE: not a score"),
        ("noboard", good.replace("<BOARD_NUMBER>1</BOARD_NUMBER>", ""),
         r"noboard\.xml:6: BOARD: missing or empty element BOARD_NUMBER"),
        ("notusebio", good.replace("USEBIO", "PBN"), r"notusebio\.xml:2: not a USEBIO file"),
        ("samepair", good.replace("<EW_PAIR_NUMBER>2<", "<EW_PAIR_NUMBER>1<"),
         r"samepair\.xml:8: TRAVELLER_LINE: the NS and EW pairs are the same"),
        ("empty", "", r"empty\.xml:\d+: malformed XML"),
        ("binary", "\x00\x01\x02garbage", r"binary\.xml:\d+: malformed XML"),
        # libxml2 quotes the bad bytes in its message: escaped, the message stays text.
        ("badbyte", good.encode().replace(b"</EW_PAIR", b"</\xffW_PAIR"),
         r"badbyte\.xml:\d+: malformed XML: .*\\xffW_PAIR_NUMBER"),
        # A conversion failure: libxml2's own "encoding error" lines must not reach stderr.
        ("badencoding", b'<?xml version="1.0" encoding="SHIFT_JIS"?>\n<USEBIO>\x81\x20\xff\xff</USEBIO>\n',
         r"\Adatum: \S*badencoding\.xml:\d+: malformed XML: [^\n]*\n\Z"),
        ("badpoints", good.replace(">1.5<", ">1.5 IMPs<"),
         r"badpoints\.xml:12: NS_BUTLER_POINTS: not a number: 1\.5 IMPs"),
    ]
    for name, text, pattern in cases:
        path = os.path.join(tmp, name + ".xml")
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        out = os.path.join(tmp, name + ".h5")
        rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out)
        check(rc == 2, "%s: exit %d, not 2 (%s)" % (name, rc, se.strip()))
        check(re.search(pattern, se) is not None,
              "%s: message %r does not match %r" % (name, se.strip(), pattern))
        left = [f for f in os.listdir(tmp) if f.startswith(name + ".h5")]
        check(not left, "%s: left behind %s" % (name, left))
    # The good file: one adjusted line (A6040 = A+/A-), published points kept: the first line's
    # 1.5 differs from datum's 0 IMPs (the only real score is the datum), the second has none.
    path = os.path.join(tmp, "good.xml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(good)
    out, res = os.path.join(tmp, "good.h5"), os.path.join(tmp, "good.csv")
    rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out)
    check(rc == 0 and "imported 2 results" in so, "good: %d %s %s" % (rc, so, se))
    if rc == 0:
        rc, so, se = run(datum, "info", out)
        check("(1 adjusted)" in so and "\npublished " in so, "good: info %s" % so)
        rc, so, se = run(datum, "score", out, "--datum", "mean", "--compare-published",
                         "--results", res)
        want = ('published: 0 of 1 lines agree (tolerance 0.005)\n'
                'published: first disagreements (event, section, board, table, published, '
                'computed):\n'
                'published:   "Test 2026-03-09", "1/-", 1, 1, 1.5, 0\n')
        check(rc == 0 and se == want, "good: --compare-published %d %r" % (rc, se))
        with open(res, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        got = [(r["ns_pair"], r["ns_score"], r["adjusted"], r["published_ns"]) for r in rows]
        want = [("Test 2026-03-09/-/1", "420", "", "1.5"),
                ("Test 2026-03-09/-/3", "", "A+/A-", "")]
        check(got == want, "good: published %s" % rows)
    # A sit-out line (a pair, no opponent, no score) is skipped with its count on stderr: the
    # archive scores as the good file's; with a score it is refused.
    sitout = ("    <TRAVELLER_LINE>\n      <NS_PAIR_NUMBER>5</NS_PAIR_NUMBER>\n"
              "    </TRAVELLER_LINE>\n")
    first_line = good.index("    <TRAVELLER_LINE>")
    for name, text, want_rc, want_err in (
            ("sitout", good[:first_line] + sitout + good[first_line:], 0,
             "skipped 1 sit-out row "),
            ("byescore", good[:first_line] + sitout.replace("</NS_PAIR_NUMBER>",
                                                            "</NS_PAIR_NUMBER><SCORE>0</SCORE>")
             + good[first_line:], 2, "byescore.xml:8: TRAVELLER_LINE: missing or empty element "
                                     "EW_PAIR_NUMBER")):
        path, out2 = os.path.join(tmp, name + ".xml"), os.path.join(tmp, name + ".h5")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out2)
        check(rc == want_rc and want_err in se, "%s: %d %r" % (name, rc, se))
        if rc == 0:
            same = [run(datum, "score", a, "--datum", "mean", "--results", "-")[1]
                    for a in (out, out2)]
            check(same[0] == same[1] and "imported 2 results" in so,
                  "%s: scores %r, not the good file's %r" % (name, same[1], same[0]))
    # Without any published points: --compare-published is an error (exit 2), nothing written.
    path = os.path.join(tmp, "nopoints.xml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(good.replace("<NS_BUTLER_POINTS>1.5</NS_BUTLER_POINTS>", ""))
    out, res = os.path.join(tmp, "nopoints.h5"), os.path.join(tmp, "nopoints.csv")
    rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out)
    check(rc == 0 and "\npublished " not in run(datum, "info", out)[1],
          "nopoints: import %d %s" % (rc, se))
    rc, so, se = run(datum, "cross", out, "--compare-published", "--results", res)
    check(rc == 2 and "nopoints.h5: no published figures" in se and not os.path.exists(res),
          "nopoints: --compare-published %d %s" % (rc, se))
    # A missing file: exit 2 (an input error) with its name.
    rc, so, se = run(datum, "import", "--format", "usebio", os.path.join(tmp, "none.xml"),
                     "-o", out + "x")
    check(rc != 0 and "none.xml" in se, "missing file: %d %s" % (rc, se))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        error_paths(a.datum, tmp)
        if os.path.isdir(a.data) and glob.glob(os.path.join(a.data, "usebio-*")):
            real_files(a.datum, a.data, tmp)
        else:
            print("SKIP real USEBIO files: %s not found (../shared beside the clone)" % a.data)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
