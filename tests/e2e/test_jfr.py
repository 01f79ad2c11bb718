#!/usr/bin/python3
"""JFR Pary IMP pairs end to end (docs/peers.md, "JFR Pary"): scripts/jfr_to_csv.py on a small
synthetic page (NS and EW score columns, a passed-out board, director's rows, a page without
travellers refused); then, with the shared data, the 30 traveller pages of the Szczyrk 2013 IMP
pairs converted, imported, scored with `--datum mean --trim 19 --round truncate`, and every
published figure compared: the IMPs of every non-TD row (both sides), the board average
("srednia rozdania") against datum's datum on every board, and the director's rows (0/0 and
-1.2/+1.2 reproduced with --adjusted-imps 1.2,0,-1.2; the 24 mixed awards such as 1.2/0 have no
datum code and are counted as the known exception).

usage: test_jfr.py --datum PATH --source DIR --data DIR  (DIR = the shared datasets/real folder;
absent: the real-file checks are skipped with a message)
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

FAILURES = []
RULE = ["--datum", "mean", "--trim", "19", "--round", "truncate"]
PAGES = "pbntools-jfr-kops-poland/test_9_pary_www_szczyrk_20131108/131108szczyrk"


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def row(ns, ew, contract, nsz, ewz, ins, iew):
    td = lambda t, c="noc": '<td class="%s">%s</td>' % (c, t)
    if contract in ("TD", "PASS"):
        mid = td(contract, "nol") + td("&nbsp;") * 3 + '<td class="noc" colspan="2">%s</td>' % nsz
    else:
        mid = td(contract, "nol") + td("N") + td("S5") + td("=") + td(nsz) + td(ewz)
    return ('<tr><td class="n">&nbsp;</td>' + td(ns) + td(ew) + mid + td(ins, "nor")
            + td(iew, "nor") + "</tr>")


def synthetic(tmp, converter):
    page = os.path.join(tmp, "impy007.txt")
    with open(page, "w", encoding="utf-8") as f:
        f.write('<table><tr><td class="n">&nbsp;</td><td class="noc">N-S</td></tr>'
                + row(1, 5, '4<img alt="s">', "420", "&nbsp;", "6", "-6")
                + row(2, 6, '3<img alt="nt">&times;', "&nbsp;", "200", "-8", "8")
                + row(3, 7, "PASS", "0", "", "-3", "3")
                + row(4, 8, "TD", "&nbsp;", "", "0", "1.2")
                + row(9, 10, "TD", "&nbsp;", "", "-1.2", "1.2")
                + '<tr><td class="n" colspan="7">średnia rozdania:&nbsp;</td>'
                  '<td class="noc" colspan="2">110</td><td colspan="2">&nbsp;</td></tr></table>')
    out, pub = os.path.join(tmp, "s.csv"), os.path.join(tmp, "s_pub.csv")
    rc, _, err = run(sys.executable, converter, "--event", "E", "--date", "2013-11-08",
                     "--published", pub, "-o", out, page)
    check(rc == 0, "synthetic page converted (%s)" % err.strip())
    if rc:
        return
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    got = [(r["board"], r["table"], r["ns_pair"], r["ew_pair"], r["ns_score"], r["adjusted"])
           for r in rows]
    check(got == [("7", "1", "E/1", "E/5", "420", ""), ("7", "2", "E/2", "E/6", "-200", ""),
                  ("7", "3", "E/3", "E/7", "0", ""), ("7", "4", "E/4", "E/8", "", "A/A"),
                  ("7", "5", "E/9", "E/10", "", "A-/A+")], "synthetic rows: %r" % got)
    check("1 adjusted rows with a mixed award" in err, "mixed award warned: %s" % err.strip())
    p = list(csv.DictReader(open(pub, encoding="utf-8")))
    check([(r["published_ns"], r["published_ew"], r["published_datum"]) for r in p][3:]
          == [("0", "1.2", "110"), ("-1.2", "1.2", "110")], "synthetic published figures")
    empty = os.path.join(tmp, "impy008.txt")
    open(empty, "w").write("<table><tr><td>nothing</td></tr></table>")
    rc, _, err = run(sys.executable, converter, "--event", "E", "-o", out + "2", empty)
    check(rc == 2 and "impy008.txt: no traveller rows" in err and not os.path.exists(out + "2"),
          "page without travellers refused: rc %d %s" % (rc, err.strip()))


def real(tmp, datum, converter, folder):
    csv_path, pub = os.path.join(tmp, "jfr.csv"), os.path.join(tmp, "jfr_pub.csv")
    rc, _, err = run(sys.executable, converter, "--date", "2013-11-08", "--published", pub,
                     "-o", csv_path, folder)
    check(rc == 0 and "30 pages, 1260 rows (55 adjusted)" in err, "convert: %s" % err.strip())
    arch = os.path.join(tmp, "jfr.h5")
    rc, _, err = run(datum, "import", csv_path, "-o", arch)
    check(rc == 0, "import: %s" % err.strip())
    published = {(r["board"], r["table"]): r for r in csv.DictReader(open(pub, encoding="utf-8"))}
    check(len(published) == 1260 and {r["event"] for r in published.values()}
          == {"MFB, MP AZS - impy"}, "published rows and event title")

    def score(*extra):
        res = os.path.join(tmp, "res.csv")
        rc, _, err = run(datum, "score", arch, *RULE, *extra, "--results", res)
        check(rc == 0, "score: %s" % err.strip())
        return list(csv.DictReader(open(res, encoding="utf-8"))) if rc == 0 else []

    rows = score("--adjusted-imps", "1.2,0,-1.2")
    real_ok = real_n = td_ok = mixed = 0
    datums = {}
    for r in rows:
        p = published[(r["board"], r["table"])]
        datums[r["board"]] = (r["datum"], p["published_datum"])
        pns, pew = float(p["published_ns"]), float(p["published_ew"])
        if not p["adjusted"]:
            real_n += 1
            real_ok += float(r["ns_imps"]) == pns and float(r["ew_imps"]) == pew
        elif float(r["ns_imps"]) == pns and float(r["ew_imps"]) == pew:
            td_ok += 1
        else:
            mixed += 1
            check((pns == 0) != (pew == 0) and abs(pns + pew) == 1.2,
                  "TD exception is a mixed award: board %s table %s %s/%s"
                  % (r["board"], r["table"], pns, pew))
    print("JFR Szczyrk: %d of %d real rows, %d of 55 TD rows (%d mixed awards)"
          % (real_ok, real_n, td_ok, mixed))
    check(real_n == 1205 and real_ok == 1205, "every real row reproduced: %d/%d" % (real_ok, real_n))
    check(td_ok == 31 and mixed == 24, "TD rows: %d reproduced, %d mixed" % (td_ok, mixed))
    bad = {b: d for b, d in datums.items() if float(d[0]) != float(d[1])}
    check(len(datums) == 30 and not bad, "board averages equal datum's datum: %r" % bad)
    check(datums.get("1") == ("50", "50"), "board 1 datum +50: %r" % (datums.get("1"),))
    # Evidence that the truncation matters: halves toward zero (nearest) misses 44 rows.
    rows = score("--round", "toward-zero")
    near = sum(float(r["ns_imps"]) == float(published[(r["board"], r["table"])]["published_ns"])
               for r in rows if not r["adjusted"])
    check(near == 1161, "nearest rounding reproduces 1161 rows, not all: %d" % near)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args()
    converter = os.path.join(a.source, "scripts", "jfr_to_csv.py")
    with tempfile.TemporaryDirectory() as tmp:
        synthetic(tmp, converter)
        folder = os.path.join(a.data, PAGES)
        if os.path.isdir(folder):
            real(tmp, a.datum, converter, folder)
        else:
            print("skipped: %s absent (clone ../shared beside the source tree)" % folder)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
