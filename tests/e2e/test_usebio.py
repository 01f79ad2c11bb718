#!/usr/bin/env python3
"""`datum import --format usebio` end to end: every USEBIO file of ../shared/datasets/real
imported, its counts (results, adjusted results, board fields, pairs, events) checked against
the XML read independently with xml.etree; the --published side CSV against the XML's
NS/EW_*_POINTS; a truncated file, a missing element, a non-USEBIO root and a bad SCORE refused
with FILE:LINE, exit 2 and nothing left behind; `datum score` run on an imported Butler file; the
published Butler and cross-IMP figures of six files reproduced line by line (docs/peers.md).

usage: test_usebio.py --datum PATH --data DIR  (DIR = the shared datasets/real folder; absent:
the real-file checks are skipped with a message, the error-path checks still run)
"""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run(datum, *args):
    p = subprocess.run([datum, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


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


def published_points(path):
    """(NS points, EW points) of every TRAVELLER_LINE, in document order (None if absent)."""
    out = []
    for line in ET.parse(path).getroot().iter("TRAVELLER_LINE"):
        ns = ew = None
        for c in line:
            if re.fullmatch(r"NS_.+_POINTS", c.tag):
                ns = float(c.text)
            elif re.fullmatch(r"EW_.+_POINTS", c.tag):
                ew = float(c.text)
        out.append((ns, ew))
    return out


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
        out, pub = os.path.join(tmp, "a.h5"), os.path.join(tmp, "p.csv")
        rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out, "--published", pub)
        check(rc == 0, "%s: import failed: %s" % (path, se.strip()))
        if rc != 0:
            continue
        rc, so, se = run(datum, "info", out)
        got, want = info_counts(so), expected_counts(path)
        check(got == want, "%s: (results, adjusted, fields, pairs, events) %s, XML %s"
              % (path, got, want))
        with open(pub, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        points = published_points(path)
        check(len(rows) == len(points),
              "%s: %d published rows, %d lines" % (path, len(rows), len(points)))
        for r, (ns, ew) in zip(rows, points):
            got = (float(r["published_ns"]) if r["published_ns"] else None,
                   float(r["published_ew"]) if r["published_ew"] else None)
            if got != (ns, ew):
                check(False, "%s line %s: published %s, XML %s" % (path, r["line"], got, (ns, ew)))
                break
        os.remove(out)
        os.remove(pub)
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
    # settings of docs/peers.md: drop the top and bottom score, mean, rounded to 10 (halves away).
    for name, n in (("butler_howell.xml", 140), ("butler_mitchell.xml", 245)):
        xml = os.path.join(data, "usebio-abftech-cobalt", name)
        out, pub, res = (os.path.join(tmp, "cs3" + e) for e in (".h5", ".csv", "_res.csv"))
        rc, so, se = run(datum, "import", "--format", "usebio", xml, "-o", out, "--published", pub)
        check(rc == 0, "%s: %s" % (name, se))
        rc, so, se = run(datum, "score", out, "--datum", "mean", "--trim", "1", "--round", "away",
                         "--round-unit", "10", "--results", res)
        check(rc == 0, "%s: score: %s" % (name, se))
        if rc != 0:
            continue
        key = lambda r: (r["event"], r["section"], r["board"], r["table"])
        with open(pub, newline="", encoding="utf-8") as f:
            published = {key(r): float(r["published_ns"]) for r in csv.DictReader(f)}
        with open(res, newline="", encoding="utf-8") as f:
            scored = {key(r): float(r["ns_imps"]) for r in csv.DictReader(f)}
        same = sum(scored.get(k) == v for k, v in published.items())
        check(len(published) == n and same == n,
              "%s: %d of %d published Butler lines reproduced" % (name, same, len(published)))
    # Published cross-IMPs (Compscore3, Pianola, TeamsScorer, EBUScoreTeams): `datum cross`
    # (every other result of the field, divided by n-1) rounded to 0.01, every line.
    for rel, n in (("usebio-abftech-cobalt/cross_imp_howell.xml", 108),
                   ("usebio-ukbridge-club-website/test-payloads/cross-imp-pairs/usebio.xml", 192),
                   ("usebio-ukbridge-club-website/public-usebio/multiple-teams.xml", 240),
                   ("usebio-ukbridge-club-website/public-usebio/point-a-board-teams.xml", 336)):
        out, pub, res = (os.path.join(tmp, "xi" + e) for e in (".h5", ".csv", "_res.csv"))
        rc, so, se = run(datum, "import", "--format", "usebio", os.path.join(data, rel), "-o", out,
                         "--published", pub)
        check(rc == 0, "%s: %s" % (rel, se))
        rc, so, se = run(datum, "cross", out, "--results", res)
        check(rc == 0, "%s: cross: %s" % (rel, se))
        if rc != 0:
            continue
        key = lambda r: (r["event"], r["section"], r["board"], r["table"])
        with open(pub, newline="", encoding="utf-8") as f:
            published = {key(r): float(r["published_ns"]) for r in csv.DictReader(f)}
        with open(res, newline="", encoding="utf-8") as f:
            scored = {key(r): round(float(r["ns_avg"]), 2) for r in csv.DictReader(f)}
        same = sum(scored.get(k) == v for k, v in published.items())
        check(len(published) == n and same == n,
              "%s: %d of %d published cross-IMP lines reproduced" % (rel, same, len(published)))


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
    ]
    for name, text, pattern in cases:
        path = os.path.join(tmp, name + ".xml")
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        out, pub = os.path.join(tmp, name + ".h5"), os.path.join(tmp, name + ".csv")
        rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out, "--published", pub)
        check(rc == 2, "%s: exit %d, not 2 (%s)" % (name, rc, se.strip()))
        check(re.search(pattern, se) is not None,
              "%s: message %r does not match %r" % (name, se.strip(), pattern))
        left = [f for f in os.listdir(tmp) if f.startswith((name + ".h5", name + ".csv"))]
        check(not left, "%s: left behind %s" % (name, left))
    # The good file: one adjusted line (A6040 = A+/A-), published points kept.
    path = os.path.join(tmp, "good.xml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(good)
    out, pub = os.path.join(tmp, "good.h5"), os.path.join(tmp, "good.csv")
    rc, so, se = run(datum, "import", "--format", "usebio", path, "-o", out, "--published", pub)
    check(rc == 0 and "imported 2 results" in so, "good: %d %s %s" % (rc, so, se))
    if rc == 0:
        rc, so, se = run(datum, "info", out)
        check("(1 adjusted)" in so, "good: info %s" % so)
        with open(pub, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        got = [(r["ns_pair"], r["ns_score"], r["adjusted"], r["method"], r["published_ns"])
               for r in rows]
        want = [("Test 2026-03-09/-/1", "420", "", "butler", "1.5"),
                ("Test 2026-03-09/-/3", "", "A+/A-", "butler", "")]
        check(got == want, "good: published %s" % rows)
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
