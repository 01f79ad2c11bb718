#!/usr/bin/python3
"""RealBridge IMP pairs end to end (docs/peers.md, "RealBridge"): scripts/realbridge_to_csv.py on
a small synthetic session (pair ids from the sorted names, boards not played, bad pages refused
with nothing written); then, with the shared data, the nine sessions of realbridge-hyimhk
converted, imported, scored with `datum cross --divisor tables`, and every published NS and EW
IMP compared with datum's `ns_avg` rounded to 0.01 (halves to even). The published figures are
read here from the HTML pages with a parser of this file's own, not the converter's.

`--divisor tables` is RealBridge's factored figure (raw sum x n / ((n-1) m), n tables, m of them
played); on the 152 boards every table played it is n-1, and `datum cross` (n-1) reproduces those
576 lines too; on the 33 others n-1 reproduces only the 13 lines whose raw sum (computed here
with the reference's WBF scale) is 0. Named exceptions, checked line by line: the 34 rows not
played get no cross-IMP score from datum (adjusted rows take no part).

usage: test_realbridge.py --datum PATH --source DIR --data DIR  (DIR = the shared datasets/real
folder; absent: the real-file checks are skipped with a message)
"""
import collections
import csv
import html
import os
import re
import sys
from fractions import Fraction

from e2e_common import check, converter_test, ref
from e2e_common import run_text as run

SESSIONS = "realbridge-hyimhk"
HEADER = ["NS", "EW", "CONTRACT", "LEAD", "NS SCORE", "EW SCORE", "NS IMP", "EW IMP", "MOVIE"]


def hundredths(x):
    """x (a Fraction) rounded to 0.01, halves to even."""
    return ref.round_unit(Fraction(x) * 100, "even", 1) / 100


def published_rows(path):
    """[{column: text}] of a board page's traveller table, read with regular expressions."""
    text = open(path, encoding="utf-8").read()
    cells = lambda row, tag: [" ".join(html.unescape(re.sub(r"<[^>]*>", "", c)).split())
                              for c in re.findall(r"<%s>(.*?)</%s>" % (tag, tag), row, re.S)]
    rows = re.findall(r"<tr>(.*?)</tr>", text, re.S)
    names = cells(rows[0], "th")
    return [dict(zip(names, cells(r, "td"))) for r in rows[1:]]


def page(board, rows, caption=None):
    th = "".join("<th>%s</th>" % h for h in HEADER)
    td = "".join("<tr>%s<td><a href=\"x\">Movie</a></td></tr>\n" % "".join(
        "<td>%s</td>" % html.escape(c) for c in r) for r in rows)
    return ("<html><head><title>RealBridge Result</title></head><body><table id=\"table_id\">"
            "<caption>%s</caption><tr>%s</tr>\n%s</table></body></html>"
            % (caption or "Board %d" % board, th, td))


def synthetic(tmp, converter):
    session = os.path.join(tmp, "20240105")
    os.mkdir(session)
    b1 = [("Zoe & Yan", "Al & Bea", "4\u2660\tN", "H2", "420", "-420", "5.5", "-5.5"),
          ("Cy & Di", "Ed & Flo", "3NS-1", "D4", "-50", "50", "-5.5", "5.5"),
          ("Gus & Hal", "Ivy & Jo", "---\t---", "---", "0", "0", "0.0", "0.0")]
    b2 = [("Al & Bea", "Cy & Di", "P", "", "0", "0", "0.0", "0.0"),
          ("Ed & Flo", "Zoe & Yan", "---", "---", "0", "0", "0.0", "2.0")]
    for board, rows in ((1, b1), (2, b2)):
        with open(os.path.join(session, "board_%d.html" % board), "w", encoding="utf-8") as f:
            f.write(page(board, rows))
    out, pub = os.path.join(tmp, "s.csv"), os.path.join(tmp, "s_pub.csv")
    rc, _, err = run(sys.executable, converter, "--published", pub, "-o", out, session)
    check(rc == 0 and "1 sessions, 2 pages, 5 rows (2 not played)" in err,
          "synthetic session converted: %s" % err.strip())
    if rc:
        return
    # Pairs by their sorted names: Al & Bea 1, Cy & Di 2, Ed & Flo 3, Gus & Hal 4, Ivy & Jo 5,
    # Zoe & Yan 6.
    e = "RealBridge 2024-01-05"
    got = [(r["event"], r["date"], r["board"], r["table"], r["ns_pair"], r["ew_pair"],
            r["ns_score"], r["adjusted"]) for r in csv.DictReader(open(out, encoding="utf-8"))]
    want = [(e, "2024-01-05", "1", "1", e + "/6", e + "/1", "420", ""),
            (e, "2024-01-05", "1", "2", e + "/2", e + "/3", "-50", ""),
            (e, "2024-01-05", "1", "3", e + "/4", e + "/5", "", "A/A"),
            (e, "2024-01-05", "2", "1", e + "/1", e + "/2", "0", ""),
            (e, "2024-01-05", "2", "2", e + "/3", e + "/6", "", "A/A+")]
    check(got == want, "synthetic rows: %r" % got)
    p = [(r["published_ns"], r["published_ew"], r["published_datum"])
         for r in csv.DictReader(open(pub, encoding="utf-8"))]
    check(p == [("5.5", "-5.5", ""), ("-5.5", "5.5", ""), ("0.0", "0.0", ""), ("0.0", "0.0", ""),
                ("0.0", "2.0", "")], "synthetic published figures: %r" % p)
    # Bad pages: one line naming the file, exit 2, nothing written (not even a temporary file).
    bad = os.path.join(tmp, "20240106")
    os.mkdir(bad)
    good_row = b1[0]
    cases = [
        ("board_1.html", page(1, [good_row[:5] + ("-400",) + good_row[6:]]),
         "board_1.html: Zoe & Yan v Al & Bea: NS SCORE 420 and EW SCORE -400 disagree"),
        ("board_2.html", page(2, [good_row], caption="Board 9"),
         "board_2.html: caption 'Board 9', but the file name says board 2"),
        ("board_3.html", "<html><table><tr><th>#</th><th>PAIR</th></tr></table></html>",
         "board_3.html: no traveller table"),
        ("board_4.html", page(4, [good_row[:6] + ("5,5", "-5.5")]),
         "board_4.html: Zoe & Yan v Al & Bea: NS IMP '5,5' is not a number"),
        ("board_5.html", page(5, [good_row]).encode("utf-8").replace(b"Zoe", b"Zo\xeb"),
         "board_5.html: not utf-8 (byte "),
    ]
    for name, text, want in cases:
        path = os.path.join(bad, name)
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        res, pub2 = os.path.join(tmp, "bad.csv"), os.path.join(tmp, "bad_pub.csv")
        rc, _, err = run(sys.executable, converter, "--published", pub2, "-o", res,
                         os.path.join(session, "board_1.html"), path)
        left = [n for n in os.listdir(tmp) if n.startswith("bad")]
        check(rc == 2 and want in err and len(err.strip().splitlines()) == 1 and not left,
              "%s refused: rc %d %s, left %s" % (name, rc, err.strip(), left))
        os.remove(path)
    rc, _, err = run(sys.executable, converter, "--encoding", "no-such-codec", "-o", out, session)
    check(rc == 2 and "unknown encoding 'no-such-codec'" in err and "Traceback" not in err,
          "unknown encoding refused: %s" % err.strip())


def real(tmp, datum, converter, folder):
    sessions = sorted(d for d in os.listdir(folder) if re.fullmatch(r"\d{8}", d))
    check(len(sessions) == 9, "nine sessions: %r" % sessions)
    # What RealBridge published, from the pages: (event, board, table) -> row.
    pages = {}
    for d in sessions:
        event = "RealBridge %s-%s-%s" % (d[:4], d[4:6], d[6:])
        for name in os.listdir(os.path.join(folder, d)):
            m = re.fullmatch(r"board_(\d+)\.html", name)
            if m:
                for t, r in enumerate(published_rows(os.path.join(folder, d, name)), 1):
                    pages[(event, m.group(1), str(t))] = r
    out, pub = os.path.join(tmp, "rb.csv"), os.path.join(tmp, "rb_pub.csv")
    rc, _, err = run(sys.executable, converter, "--published", pub, "-o", out,
                     *(os.path.join(folder, d) for d in sessions))
    check(rc == 0 and "9 sessions, 185 pages, 737 rows (34 not played)" in err,
          "convert: %s" % err.strip())
    if rc:
        return
    rows = {(r["event"], r["board"], r["table"]): r
            for r in csv.DictReader(open(out, encoding="utf-8"))}
    published = {(r["event"], r["board"], r["table"]): r
                 for r in csv.DictReader(open(pub, encoding="utf-8"))}
    check(len(pages) == 737 and rows.keys() == pages.keys() == published.keys(),
          "converted rows: %d, page rows %d" % (len(rows), len(pages)))
    # The converter against the pages: scores, not played, published IMPs, one id per name.
    ids = collections.defaultdict(set)
    for k, p in pages.items():
        r, q = rows.get(k), published.get(k)
        if r is None or q is None:
            continue
        played = p["CONTRACT"].split()[0] != "---"
        ids[(k[0], p["NS"])].add(r["ns_pair"])
        ids[(k[0], p["EW"])].add(r["ew_pair"])
        same = ((r["ns_score"], bool(r["adjusted"])) == ((p["NS SCORE"], False) if played
                                                        else ("", True))
                and (q["published_ns"], q["published_ew"]) == (p["NS IMP"], p["EW IMP"]))
        check(same, "%s: converted %r, page %r" % (k, r, p))
    check(all(len(v) == 1 for v in ids.values())
          and len({next(iter(v)) for v in ids.values()}) == len(ids) == 75,
          "one pair id per name and session: %d names" % len(ids))

    arch = os.path.join(tmp, "rb.h5")
    rc, _, err = run(datum, "import", out, "-o", arch)
    check(rc == 0, "import: %s" % err.strip())

    def results(*command):
        res = os.path.join(tmp, "res.csv")
        rc, _, err = run(datum, *command[:1], arch, *command[1:], "--results", res)
        check(rc == 0, "%s: %s" % (command, err.strip()))
        return ({(r["event"], r["board"], r["table"]): r
                 for r in csv.DictReader(open(res, encoding="utf-8"))} if rc == 0 else {})

    cross, scaled = results("cross"), results("cross", "--divisor", "tables")
    tables = collections.Counter(k[:2] for k in pages)
    played = collections.Counter(k[:2] for k, p in pages.items()
                                 if p["CONTRACT"].split()[0] != "---")
    scores = collections.defaultdict(list)
    for k, p in pages.items():
        if p["CONTRACT"].split()[0] != "---":
            scores[k[:2]].append(int(p["NS SCORE"]))
    count = collections.Counter()
    for k, p in sorted(pages.items()):
        n, m = tables[k[:2]], played[k[:2]]
        pns, pew = Fraction(p["NS IMP"]), Fraction(p["EW IMP"])
        if p["CONTRACT"].split()[0] == "---":
            count["not played"] += 1
            count["not played 0/0"] += (pns, pew) == (0, 0)
            check(k not in cross and k not in scaled,
                  "%s: a board not played got a cross-IMP score" % (k,))
            continue
        kind = "full" if n == m else "short"
        count[kind] += 1
        for divisor, res in (("n-1", cross), ("tables", scaled)):
            r = res.get(k)
            ok = r is not None and hundredths(Fraction(r["ns_avg"])) == pns and pew == -pns
            count["%s %s" % (kind, divisor)] += ok
            if divisor == "tables" or kind == "full":
                check(ok, "%s: published %s/%s, datum cross --divisor %s %s"
                      % (k, pns, pew, divisor, r and r["ns_avg"]))
        if kind == "short":
            # n-1 gets only the lines whose raw sum (the reference's WBF scale) is 0.
            raw = sum(ref.wbf(int(p["NS SCORE"]) - s) for s in scores[k[:2]])
            count["short raw 0"] += raw == 0
            r = cross.get(k)
            check(r is not None and Fraction(r["ns_raw"]) == raw,
                  "%s: datum's raw sum %s, reference %s" % (k, r and r["ns_raw"], raw))
    print("RealBridge: %s" % dict(sorted(count.items())))
    check(count["full"] == 576 == count["full n-1"] == count["full tables"],
          "fully played boards: n-1 %d, tables %d of %d lines"
          % (count["full n-1"], count["full tables"], count["full"]))
    check(count["short"] == 127 == count["short tables"],
          "boards with a table not played: tables %d of %d" % (count["short tables"],
                                                               count["short"]))
    check(count["short n-1"] == 13 == count["short raw 0"],
          "boards with a table not played: n-1 %d (raw 0: %d)" % (count["short n-1"],
                                                                 count["short raw 0"]))
    check(count["not played"] == 34 and count["not played 0/0"] == 33,
          "not played: %d (%d 0/0)" % (count["not played"], count["not played 0/0"]))
    # Evidence against Butler: the best preset, --datum mean, reproduces few lines.
    butler = results("score", "--datum", "mean")
    same = sum(hundredths(Fraction(butler[k]["ns_imps"])) == Fraction(p["NS IMP"])
               for k, p in pages.items() if p["CONTRACT"].split()[0] != "---")
    check(same == 145, "datum score --datum mean reproduces 145 lines, not all: %d" % same)


if __name__ == "__main__":
    sys.exit(converter_test("realbridge_to_csv.py", synthetic, SESSIONS, real))
