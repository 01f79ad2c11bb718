#!/usr/bin/python3
"""JFR Pary IMP pairs end to end (docs/peers.md, "JFR Pary"): scripts/jfr_to_csv.py on a small
synthetic page (NS and EW score columns, a passed-out board, director's rows, a page without
travellers refused, a bad encoding refused); then, with the shared data, the 30 traveller pages of
the Szczyrk 2013 IMP pairs converted, imported, scored with `--datum mean --trim 19 --round
truncate --adjusted-imps 1.2,0,-1.2`, and every published figure compared: the IMPs of every row
(both sides: the 1205 real ones and the 55 director's, 0/0, -1.2/+1.2 and the mixed 1.2/0 and
0/1.2), the board average ("srednia rozdania") against datum's datum on every board; JFR's
matchpoint pages (published %, not reproduced) converted and imported with the expected counts;
and KoPS pages (ISO-8859-2, matchpoints) refused with a message, not a traceback.

usage: test_jfr.py --datum PATH --source DIR --data DIR  (DIR = the shared datasets/real folder;
absent: the real-file checks are skipped with a message)
"""
import csv
import glob
import os
import re
import sys

from e2e_common import check, converter_test
from e2e_common import run_text as run

RULE = ["--datum", "mean", "--trim", "19", "--round", "truncate"]
PAGES = "pbntools-jfr-kops-poland/test_9_pary_www_szczyrk_20131108/131108szczyrk"
KOPS = "pbntools-jfr-kops-poland/test_2_kops/PCH1003"


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
                  ("7", "3", "E/3", "E/7", "0", ""), ("7", "4", "E/4", "E/8", "", "A/A+"),
                  ("7", "5", "E/9", "E/10", "", "A-/A+")], "synthetic rows: %r" % got)
    p = list(csv.DictReader(open(pub, encoding="utf-8")))
    check([(r["published_ns"], r["published_ew"], r["published_datum"]) for r in p][3:]
          == [("0", "1.2", "110"), ("-1.2", "1.2", "110")], "synthetic published figures")
    empty = os.path.join(tmp, "impy008.txt")
    open(empty, "w").write("<table><tr><td>nothing</td></tr></table>")
    rc, _, err = run(sys.executable, converter, "--event", "E", "-o", out + "2", empty)
    check(rc == 2 and "impy008.txt: no traveller rows" in err and not os.path.exists(out + "2"),
          "page without travellers refused: rc %d %s" % (rc, err.strip()))
    # With a bad page among good ones nothing is written, not even the good pages' rows.
    rc, _, err = run(sys.executable, converter, "--event", "E", "--published", pub + "2",
                     "-o", out + "2", page, empty)
    left = [n for n in os.listdir(tmp) if n.startswith(("s.csv2", "s_pub.csv2"))]
    check(rc == 2 and not left,
          "a bad page: nothing written: rc %d %s %s" % (rc, err.strip(), left))
    # A page in ISO-8859-2 read as UTF-8 (the default), and an unknown encoding: one line.
    latin = os.path.join(tmp, "impy009.txt")
    with open(page, encoding="utf-8") as f, open(latin, "w", encoding="iso-8859-2") as g:
        g.write(f.read())
    rc, _, err = run(sys.executable, converter, "--event", "E", "-o", out + "3", latin)
    check(rc == 2 and "impy009.txt: not utf-8 (byte " in err and "use --encoding" in err
          and "Traceback" not in err and not os.path.exists(out + "3"),
          "wrong encoding refused: rc %d %s" % (rc, err.strip()))
    rc, _, err = run(sys.executable, converter, "--event", "E", "--encoding", "iso-8859-2",
                     "-o", out + "3", latin)
    check(rc == 0, "the right encoding read: rc %d %s" % (rc, err.strip()))
    rc, _, err = run(sys.executable, converter, "--event", "E", "--encoding", "no-such-codec",
                     "-o", out + "4", page)
    check(rc == 2 and "unknown encoding 'no-such-codec'" in err and "Traceback" not in err
          and not os.path.exists(out + "4"), "unknown encoding refused: rc %d %s" % (rc, err))


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
    real_ok = real_n = td_ok = td_n = mixed = 0
    datums = {}
    for r in rows:
        p = published[(r["board"], r["table"])]
        datums[r["board"]] = (r["datum"], p["published_datum"])
        pns, pew = float(p["published_ns"]), float(p["published_ew"])
        same = float(r["ns_imps"]) == pns and float(r["ew_imps"]) == pew
        if not p["adjusted"]:
            real_n += 1
            real_ok += same
        else:
            td_n += 1
            td_ok += same
            mixed += same and (pns == 0) != (pew == 0)
            if not same:
                check(False, "TD row board %s table %s: published %s/%s, datum %s/%s"
                      % (r["board"], r["table"], pns, pew, r["ns_imps"], r["ew_imps"]))
    print("JFR Szczyrk: %d of %d real rows, %d of %d TD rows (%d of them mixed awards)"
          % (real_ok, real_n, td_ok, td_n, mixed))
    check(real_n == 1205 and real_ok == 1205, "every real row reproduced: %d/%d" % (real_ok, real_n))
    check(td_n == 55 and td_ok == 55 and mixed == 24,
          "TD rows: %d of %d reproduced, %d mixed" % (td_ok, td_n, mixed))
    bad = {b: d for b, d in datums.items() if float(d[0]) != float(d[1])}
    check(len(datums) == 30 and not bad, "board averages equal datum's datum: %r" % bad)
    check(datums.get("1") == ("50", "50"), "board 1 datum +50: %r" % (datums.get("1"),))
    # Evidence that the truncation matters: halves toward zero (nearest) misses 44 rows.
    rows = score("--round", "toward-zero")
    near = sum(float(r["ns_imps"]) == float(published[(r["board"], r["table"])]["published_ns"])
               for r in rows if not r["adjusted"])
    check(near == 1161, "nearest rounding reproduces 1161 rows, not all: %d" % near)


def matchpoint_pages(tmp, datum, converter, data):
    """JFR's matchpoint pages (published %, which datum does not compute): their scores convert
    and import, with the counts of the shared data's README (boards x tables, pairs, TD rows);
    a TD row's code is read around 50% (60/0 -> A+/A-)."""
    base = os.path.join(data, "pbntools-jfr-kops-poland")
    for folder, pages, event, want in (
            ("test_1_pary/WB120802", "wb120802[0-9]*.html", "WB120802", (243, 27, 27, 18)),
            ("test_3_pary_20130801/WB130801", "wb130801[0-9]*.html", "WB130801", (351, 0, 27, 26)),
            ("test_5_pary_www_20130808/WB130808", "", None, (324, 29, 27, 24))):
        where = os.path.join(base, folder)
        if not os.path.isdir(where):
            print("skipped: %s absent" % where)
            continue
        out, pub, arch = (os.path.join(tmp, "mp" + e) for e in (".csv", "_pub.csv", ".h5"))
        args = ["--event", event] if event else []
        paths = sorted(glob.glob(os.path.join(where, pages))) if pages else [where]
        rc, _, err = run(sys.executable, converter, *args, "--published", pub, "-o", out, *paths)
        check(rc == 0, "%s: convert: %s" % (folder, err.strip()))
        if rc:
            continue
        rc, so, err = run(datum, "import", out, "-o", arch)
        rc2, info, _ = run(datum, "info", arch)
        got = tuple(int(re.search(pattern, info).group(1)) if re.search(pattern, info) else None
                    for pattern in (r"results\s+(\d+)", r"\((\d+) adjusted\)",
                                    r"fields\s+(\d+)", r"pairs\s+(\d+)"))
        check(rc == 0 and rc2 == 0 and got == want,
              "%s: (results, adjusted, fields, pairs) %s, expected %s %s"
              % (folder, got, want, err))
        p = list(csv.DictReader(open(pub, encoding="utf-8")))
        sums = {round(float(r["published_ns"]) + float(r["published_ew"]), 6)
                for r in p if not r["adjusted"]}
        check(sums == {100.0}, "%s: published NS + EW %% = 100 on real rows: %s" % (folder, sums))
        if folder.startswith("test_1"):
            codes = {(r["adjusted"], r["published_ns"], r["published_ew"])
                     for r in p if r["adjusted"]}
            check(codes == {("A+/A-", "60.00", "0.00")}, "test_1: TD rows %s" % codes)
        os.remove(arch)


def kops(tmp, datum, converter, data):
    """KoPS pages are ISO-8859-2 and matchpoints: read as UTF-8 they are refused naming the byte;
    in their encoding, a traveller (pN.html) or a pair's card (hN.html) has no JFR traveller rows.
    Each is one line on stderr, exit 2, nothing written."""
    folder = os.path.join(data, KOPS)
    if not os.path.isdir(folder):
        print("skipped: %s absent" % folder)
        return
    out = os.path.join(tmp, "kops.csv")
    for name, encoding, want in (("p1.html", None, "p1.html: not utf-8 (byte "),
                                 ("p1.html", "iso-8859-2", "p1.html: no traveller rows"),
                                 ("h1.html", "iso-8859-2", "h1.html: no traveller rows")):
        enc = ["--encoding", encoding] if encoding else []
        rc, _, err = run(sys.executable, converter, "--event", "K", *enc, "-o", out,
                         os.path.join(folder, name))
        check(rc == 2 and want in err and len(err.strip().splitlines()) == 1
              and not os.path.exists(out), "KoPS %s %s: rc %d %s" % (name, encoding, rc, err))


if __name__ == "__main__":
    sys.exit(converter_test("jfr_to_csv.py", synthetic, PAGES, real, matchpoint_pages, kops))
