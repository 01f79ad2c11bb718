#!/usr/bin/python3
"""Convert RealBridge board pages (one HTML page per board, a folder per session) to datum's CSV.

Each `board_N.html` holds one table, captioned "Board N", whose header names the columns: NS and
EW (the pairs, by their players' names), CONTRACT, LEAD, NS SCORE, EW SCORE, NS IMP, EW IMP (the
published IMPs) and MOVIE. A board a table did not play has the contract `---` and scores 0.

Output (docs/cli.md, `datum import`):
event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted
  - one event per session folder: `<--event> YYYY-MM-DD` (default `RealBridge 2021-01-13`), the
    date from the folder's name `YYYYMMDD`, or --date (one session only); section empty;
  - board: N of `board_N.html` (the caption must agree); table: the row's rank on its page;
  - ns_pair, ew_pair: `EVENT/K`, K the rank of the pair's name among the session's names sorted
    (1, 2, ...) in the pages given: the same name is the same pair throughout a session;
  - ns_score: NS SCORE (EW SCORE must be its negation); a board not played (`---`) has no score
    and an adjusted code from the signs of its published IMPs: 0/0 (as a rule) -> `A/A`, 0/2
    -> `A/A+` (traveller_pages.award).

--published P.csv also writes what RealBridge published, one row per traveller row, in the
columns of jfr_to_csv.py --published (published_datum empty: the pages give none).

usage: realbridge_to_csv.py [--event E] [--date YYYY-MM-DD] [--encoding utf-8]
                            [--published P.csv] -o OUT.csv SESSION|PAGE [...]
Exit 2 with FILE: message on a page without the traveller table, a bad number, a score whose
two sides disagree, a caption that disagrees with the file name, a page not in the encoding;
exit 1 when an output cannot be written; nothing is written then.
"""
import argparse
import glob
import os
import re
import sys

from traveller_pages import (PageError, award, by_board, convert, integer, lines, number,
                             output_arguments, read_page)

COLUMNS = ("NS", "EW", "CONTRACT", "NS SCORE", "EW SCORE", "NS IMP", "EW IMP")
NOT_PLAYED = "---"
BOARD = r"^board_(\d+)$"


def traveller(path, encoding, board):
    """[(ns name, ew name, ns_score or None, adjusted, pub_ns, pub_ew)] of one board page."""
    page = read_page(path, encoding)
    header = next((i for i, cells in enumerate(page.rows)
                   if set(COLUMNS) <= {t for _, t in cells}), None)
    if header is None:
        raise PageError("%s: no traveller table (a header with %s)" % (path, ", ".join(COLUMNS)))
    caption = [c for c in page.captions if c.startswith("Board")]
    if caption and caption[0] != "Board %d" % board:
        raise PageError("%s: caption %r, but the file name says board %d"
                        % (path, caption[0], board))
    names = [t for _, t in page.rows[header]]
    col = {name: names.index(name) for name in COLUMNS}
    rows = []
    for cells in page.rows[header + 1:]:
        texts = [t for _, t in cells]
        if len(texts) != len(names):
            raise PageError("%s: a row of %d cells, the header has %d"
                            % (path, len(texts), len(names)))
        ns, ew = texts[col["NS"]], texts[col["EW"]]
        where = "%s: %s v %s" % (path, ns, ew)
        pub_ns = number(texts[col["NS IMP"]], where, "NS IMP")
        pub_ew = number(texts[col["EW IMP"]], where, "EW IMP")
        nss = integer(texts[col["NS SCORE"]], where, "NS SCORE")
        ews = integer(texts[col["EW SCORE"]], where, "EW SCORE")
        if ews != -nss:
            raise PageError("%s: NS SCORE %d and EW SCORE %d disagree" % (where, nss, ews))
        if texts[col["CONTRACT"]].split()[:1] == [NOT_PLAYED]:
            rows.append((ns, ew, None, award(pub_ns, pub_ew), pub_ns, pub_ew))
        else:
            rows.append((ns, ew, nss, "", pub_ns, pub_ew))
    if not rows:
        raise PageError("%s: no traveller rows" % path)
    return rows


def sessions(args):
    """{folder: [pages]}: a folder stands for its board_*.html, a page for itself."""
    out = {}
    for p in args:
        if os.path.isdir(p):
            pages = glob.glob(os.path.join(p, "board_*.html"))
            if not pages:
                raise PageError("%s: no board_*.html pages in it" % p)
            out.setdefault(os.path.abspath(p), []).extend(pages)
        else:
            out.setdefault(os.path.dirname(os.path.abspath(p)), []).append(p)
    return out


def session_date(folder, date):
    if date:
        return date
    m = re.fullmatch(r"(\d{4})(\d\d)(\d\d)", os.path.basename(folder))
    if not m:
        raise PageError("%s: the folder's name is not a date YYYYMMDD: give --date" % folder)
    return "-".join(m.groups())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="+", help="session folders (their board_*.html) or pages")
    ap.add_argument("--event", default="RealBridge", help="the events' name before the date")
    ap.add_argument("--date", help="YYYY-MM-DD (one session), else from the folder's name")
    output_arguments(ap, "utf-8")
    a = ap.parse_args(argv)
    if a.date and not re.fullmatch(r"\d{4}-\d\d-\d\d", a.date):
        ap.error("--date must be YYYY-MM-DD")

    def read():
        out, pub, n_pages = [], [], 0
        groups = sessions(a.pages)
        if a.date and len(groups) > 1:
            raise PageError("--date with %d sessions: give one session" % len(groups))
        for folder, pages in sorted(groups.items()):
            date = session_date(folder, a.date)
            event = "%s %s" % (a.event, date)
            boards = [(b, p, traveller(p, a.encoding, b)) for b, p in by_board(pages, BOARD)]
            names = sorted({name for _, _, rows in boards for r in rows for name in r[:2]})
            pair = {name: "%s/%d" % (event, k) for k, name in enumerate(names, 1)}
            for board, path, rows in boards:
                for table, (ns, ew, score, adj, pns, pew) in enumerate(rows, 1):
                    o, p = lines(event, date, "", board, table, pair[ns], pair[ew], score, adj,
                                 pns, pew, None, path)
                    out.append(o)
                    pub.append(p)
            n_pages += len(boards)
        adjusted = sum(1 for r in out if r[8])
        return out, pub, ("%d sessions, %d pages, %d rows (%d not played)"
                          % (len(groups), n_pages, len(out), adjusted))

    return convert("realbridge_to_csv", a, read)


if __name__ == "__main__":
    sys.exit(main())
