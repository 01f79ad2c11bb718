#!/usr/bin/python3
"""Convert JFR Pary traveller pages (one board per page) to datum's result CSV.

JFR Pary (the Polish federation's pairs scorer) publishes one HTML page per board; for IMP pairs
the traveller table is the `impyNNN.txt` fragment that the `impyNNN.html` frame loads.  Each
traveller row reads: pair numbers N-S and E-W, contract, declarer, lead, result, the score written
in the NS or in the EW column ("zapis NS | EW"), then the published IMPs (or %) NS and EW.  A row
whose contract is `TD` or `ARB` is a director's adjusted result (no score); a passed-out board
(`PASS`) has one score cell spanning both columns.  The last row,
"srednia rozdania" (board average), is the datum JFR used for the board.  Rows of the deal and of
the double-dummy table are not traveller rows (their pair-number cells are not both integers).

Output (docs/cli.md, `datum import`): event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted
  - board: the digits at the end of the file name (`impy007.txt` -> 7);
  - table: the row's rank on its page (1, 2, ...): JFR prints no table numbers;
  - ns_pair, ew_pair: `EVENT/N` (`EVENT/SECTION/N` with --section), unique across events;
  - ns_score: the NS column, else minus the EW column;
  - adjusted (TD/ARB rows only): from the signs of the published NS/EW figures: 0/0 -> `A/A`,
    +/- -> `A+/A-`, -/+ -> `A-/A+`, +/+ -> `A+/A+`, -/- -> `A-/A-` (the amounts are not kept:
    pass them as `datum score --adjusted-imps`); a mixed award with one side 0 (JFR gives e.g.
    1.2/0 when a pair is absent) has no datum code: written as `A/A`, counted in a warning, its
    real figures kept in --published;
  - event: --event, else the <title> of the event's ranking page `W-<stem>.html` next to the
    pages (`W-impy.html` for `impyNNN.txt`); date: --date (the pages carry none), default
    1970-01-01; section: --section, default empty.

--published P.csv also writes what JFR published, one row per traveller row:
event,section,board,table,ns_pair,ew_pair,ns_score,adjusted,published_ns,published_ew,published_datum,file
(published_datum = the page's board average, empty when absent).

usage: jfr_to_csv.py [--event E] [--date YYYY-MM-DD] [--section S] [--encoding utf-8]
                     [--published P.csv] -o OUT.csv PAGE [PAGE ...]
Exit 2 with FILE: message on a page without traveller rows, a bad number or a page that is not
in the given encoding (KoPS pages are ISO-8859-2: --encoding iso-8859-2).
"""
import argparse
import csv
import glob
import os
import re
import sys
from html.parser import HTMLParser

ADJUSTED_CONTRACTS = ("TD", "ARB")
MIXED = "A/A"  # the code written for a mixed award (one side 0), see above


class Rows(HTMLParser):
    """Every <tr> as a list of (class, text) cells; nested tables are flattened."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.row, self.cell, self.title, self.in_title = [], None, None, "", False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = [dict(attrs).get("class", ""), ""]
        elif tag == "title":
            self.in_title = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append((self.cell[0], " ".join(self.cell[1].split())))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data.replace("\xa0", " ")
        if self.in_title:
            self.title += data


class PageError(Exception):
    pass


def parse_file(path, encoding):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as e:
        raise PageError("%s: not %s (byte %d): use --encoding" % (path, encoding, e.start))
    p = Rows()
    p.feed(text)
    p.close()
    return p


def number(s, path, what):
    """A published figure: IMPs may have decimals (adjusted awards such as 1.2); kept as text."""
    s = s.strip().replace("\u2212", "-")
    if not re.fullmatch(r"[+-]?\d+(\.\d+)?", s):
        raise PageError("%s: %s %r is not a number" % (path, what, s))
    return s


def integer(s, path, what):
    s = s.strip().replace("\u2212", "-")
    if not re.fullmatch(r"[+-]?\d+", s):
        raise PageError("%s: %s %r is not an integer" % (path, what, s))
    return int(s)


def award(ns, ew):
    sign = lambda v: (v > 0) - (v < 0)
    code = {(0, 0): "A/A", (1, -1): "A+/A-", (-1, 1): "A-/A+", (1, 1): "A+/A+", (-1, -1): "A-/A-"}
    key = (sign(ns), sign(ew))
    return code.get(key)


def board_of(path):
    m = re.search(r"(\d+)$", os.path.splitext(os.path.basename(path))[0])
    if not m:
        raise PageError("%s: no board number at the end of the file name" % path)
    return int(m.group(1))


def event_title(path):
    """The <title> of W-<stem>.html beside the page (impy007.txt -> W-impy.html), or None."""
    stem = re.sub(r"\d+$", "", os.path.splitext(os.path.basename(path))[0])
    ranking = os.path.join(os.path.dirname(path), "W-%s.html" % stem)
    if not os.path.exists(ranking):
        return None
    t = " ".join(parse_file(ranking, "utf-8").title.split())
    return t or None


def travellers(path, encoding):
    """[(ns, ew, ns_score or None, adjusted or '', pub_ns, pub_ew)], board average or None."""
    rows, average = [], None
    for cells in parse_file(path, encoding).rows:
        texts = [t for _, t in cells]
        if any("rednia rozdania" in t for t in texts):
            vals = [t for t in texts if re.fullmatch(r"[+-]?\d+", t)]
            if vals:
                average = int(vals[0])
            continue
        if len(cells) < 7 or cells[0][0] != "n":
            continue
        if not (re.fullmatch(r"\d+", texts[1]) and re.fullmatch(r"\d+", texts[2])):
            continue
        ns, ew = int(texts[1]), int(texts[2])
        pub_ns = number(texts[-2], path, "published NS")
        pub_ew = number(texts[-1], path, "published EW")
        contract = texts[3].strip().upper()
        if contract in ADJUSTED_CONTRACTS:
            adj = award(float(pub_ns), float(pub_ew)) or MIXED
            rows.append((ns, ew, None, adj, pub_ns, pub_ew))
            continue
        if len(cells) == 10:  # passed out: one score cell spanning both columns, `0`
            rows.append((ns, ew, integer(texts[7], path, "score"), "", pub_ns, pub_ew))
            continue
        if len(cells) < 11:
            raise PageError("%s: pairs %d-%d: %d cells, expected 11" % (path, ns, ew, len(cells)))
        zns, zew = texts[7].strip(), texts[8].strip()
        if zns and zew:
            raise PageError("%s: pairs %d-%d: a score in both columns" % (path, ns, ew))
        if zns:
            score = integer(zns, path, "NS score")
        elif zew:
            score = -integer(zew, path, "EW score")
        else:
            raise PageError("%s: pairs %d-%d: no score" % (path, ns, ew))
        rows.append((ns, ew, score, "", pub_ns, pub_ew))
    if not rows:
        raise PageError("%s: no traveller rows" % path)
    return rows, average


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="+", help="impyNNN.txt pages (or a folder: its *NNN.txt)")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--event")
    ap.add_argument("--date", default="1970-01-01")
    ap.add_argument("--section", default="")
    ap.add_argument("--encoding", default="utf-8")
    ap.add_argument("--published")
    a = ap.parse_args(argv)
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", a.date):
        ap.error("--date must be YYYY-MM-DD")
    pages = []
    for p in a.pages:
        pages += sorted(glob.glob(os.path.join(p, "*[0-9].txt"))) if os.path.isdir(p) else [p]
    try:
        event = a.event or event_title(pages[0])
        if not event:
            raise PageError("%s: no W-*.html title beside it: give --event" % pages[0])
        prefix = event + "/" + (a.section + "/" if a.section else "")
        out, pub, seen, mixed = [], [], {}, 0
        for path in pages:
            board = board_of(path)
            if board in seen:
                raise PageError("%s: board %d already read from %s" % (path, board, seen[board]))
            seen[board] = path
            rows, average = travellers(path, a.encoding)
            for table, (ns, ew, score, adj, pns, pew) in enumerate(rows, 1):
                if adj and (float(pns) == 0) != (float(pew) == 0):
                    mixed += 1
                key = [event, a.section, board, table, prefix + str(ns), prefix + str(ew)]
                s = "" if score is None else score
                out.append([event, a.date, a.section, board, table, key[4], key[5], s, adj])
                pub.append(key + [s, adj, pns, pew, "" if average is None else average, path])
    except (PageError, OSError) as e:
        print("jfr_to_csv: %s" % e, file=sys.stderr)
        return 2
    with open(a.output, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score",
                    "adjusted"])
        w.writerows(out)
    if a.published:
        with open(a.published, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["event", "section", "board", "table", "ns_pair", "ew_pair", "ns_score",
                        "adjusted", "published_ns", "published_ew", "published_datum", "file"])
            w.writerows(pub)
    if mixed:
        print("jfr_to_csv: warning: %d adjusted rows with a mixed award (one side 0) written as %s"
              % (mixed, MIXED), file=sys.stderr)
    print("jfr_to_csv: %d pages, %d rows (%d adjusted) -> %s"
          % (len(pages), len(out), sum(1 for r in out if r[8]), a.output), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
