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
  - board: the last 3 digits of the file name (`impy007.txt`, `wb130808007.txt` -> 7);
  - table: the row's rank on its page (1, 2, ...): JFR prints no table numbers;
  - ns_pair, ew_pair: `EVENT/N` (`EVENT/SECTION/N` with --section), unique across events;
  - ns_score: the NS column, else minus the EW column;
  - adjusted (TD/ARB rows only): each side's published IMPs above 0 `A+`, at 0 `A`, below
    `A-`: 0/0 -> `A/A`, +/- -> `A+/A-`, and the mixed 1.2/0 (JFR's award when a pair is
    absent) -> `A+/A`, ... (the amounts are not kept: pass them as `datum score
    --adjusted-imps`; --published has them); on a matchpoint page (`%`) around 50%:
    60/0 -> `A+/A-`;
  - event: --event, else the <title> of the event's ranking page `W-<stem>.html` next to the
    pages (`W-impy.html` for `impyNNN.txt`); date: --date (the pages carry none), default
    1970-01-01; section: --section, default empty.

--published P.csv also writes what JFR published, one row per traveller row:
event,section,board,table,ns_pair,ew_pair,ns_score,adjusted,published_ns,published_ew,published_datum,file
(published_datum = the page's board average, empty when absent).

usage: jfr_to_csv.py [--event E] [--date YYYY-MM-DD] [--section S] [--encoding utf-8]
                     [--published P.csv] -o OUT.csv PAGE [PAGE ...]
Exit 2 with FILE: message on a page without traveller rows (a ranking, a pair's card, a KoPS
page: ISO-8859-2 and another layout), a bad number or a page that is not in the given encoding;
exit 1 when an output cannot be written; nothing is written then.
"""
import argparse
import glob
import os
import re
import sys

from traveller_pages import (PageError, award, by_board, convert, integer, lines, number,
                             output_arguments, read_page)

ADJUSTED_CONTRACTS = ("TD", "ARB")
BOARD = r"(\d{1,3})$"  # JFR pads the board to 3 digits after the stem, which may end in digits


def event_title(path):
    """The <title> of W-<stem>.html beside the page (impy007.txt -> W-impy.html), or None."""
    stem = re.sub(BOARD, "", os.path.splitext(os.path.basename(path))[0])
    ranking = os.path.join(os.path.dirname(path), "W-%s.html" % stem)
    if not os.path.exists(ranking):
        return None
    t = " ".join(read_page(ranking, "utf-8").title.split())
    return t or None


def travellers(path, encoding):
    """[(ns, ew, ns_score or None, adjusted or '', pub_ns, pub_ew)], board average or None."""
    rows, average, middle = [], None, 0
    for cells in read_page(path, encoding).rows:
        texts = [t for _, t in cells]
        if "zapis" in texts and "%" in texts:  # a matchpoint page: 50% is the average
            middle = 50
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
            rows.append((ns, ew, None, award(pub_ns, pub_ew, middle), pub_ns, pub_ew))
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
        raise PageError("%s: no traveller rows (not a JFR Pary traveller page?)" % path)
    return rows, average


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="+", help="impyNNN.txt pages (or a folder: its *NNN.txt)")
    ap.add_argument("--event")
    ap.add_argument("--date", default="1970-01-01")
    ap.add_argument("--section", default="")
    output_arguments(ap, "utf-8")
    a = ap.parse_args(argv)
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", a.date):
        ap.error("--date must be YYYY-MM-DD")
    pages = []
    for p in a.pages:
        pages += sorted(glob.glob(os.path.join(p, "*[0-9].txt"))) if os.path.isdir(p) else [p]

    def read():
        if not pages:
            raise PageError("%s: no *NNN.txt pages in it" % a.pages[0])
        event = a.event or event_title(pages[0])
        if not event:
            raise PageError("%s: no W-*.html title beside it: give --event" % pages[0])
        prefix = event + "/" + (a.section + "/" if a.section else "")
        out, pub = [], []
        for board, path in by_board(pages, BOARD):
            rows, average = travellers(path, a.encoding)
            for table, (ns, ew, score, adj, pns, pew) in enumerate(rows, 1):
                o, p = lines(event, a.date, a.section, board, table, prefix + str(ns),
                             prefix + str(ew), score, adj, pns, pew, average, path)
                out.append(o)
                pub.append(p)
        adjusted = sum(1 for r in out if r[8])
        return out, pub, "%d pages, %d rows (%d adjusted)" % (len(pages), len(out), adjusted)

    return convert("jfr_to_csv", a, read)


if __name__ == "__main__":
    sys.exit(main())
