"""What the converters of published traveller pages (jfr_to_csv.py, realbridge_to_csv.py) share:
reading an HTML page's table rows, checking its numbers, and writing datum's result CSV with the
published figures beside it, atomically. Python standard library only.
"""
import argparse
import codecs
import csv
import os
import re
import sys
import tempfile
from html.parser import HTMLParser

# datum import's CSV (docs/cli.md) and the published figures, one row per traveller row
RESULT_COLUMNS = ["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score",
                  "adjusted"]
PUBLISHED_COLUMNS = ["event", "section", "board", "table", "ns_pair", "ew_pair", "ns_score",
                     "adjusted", "published_ns", "published_ew", "published_datum", "file"]


class PageError(Exception):
    """Bad input: the message names the file (and what in it is wrong)."""


class Rows(HTMLParser):
    """Every <tr> as a list of (class, text) cells, blanks collapsed; nested tables are
    flattened. Also the page's <title> and its tables' <caption>s."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.row, self.cell, self.title, self.in_title = [], None, None, "", False
        self.captions, self.caption = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = [dict(attrs).get("class", ""), ""]
        elif tag == "title":
            self.in_title = True
        elif tag == "caption":
            self.caption = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append((self.cell[0], " ".join(self.cell[1].split())))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "title":
            self.in_title = False
        elif tag == "caption" and self.caption is not None:
            self.captions.append(" ".join(self.caption.split()))
            self.caption = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data.replace("\xa0", " ")
        if self.in_title:
            self.title += data
        if self.caption is not None:
            self.caption += data


def check_encoding(name):
    """argparse type of --encoding: an unknown codec is a usage error, not a traceback."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise argparse.ArgumentTypeError("unknown encoding %r" % name)


def output_arguments(ap, encoding):
    """-o, --published and --encoding (default encoding), the options every converter has."""
    ap.add_argument("-o", "--output", required=True, help="datum's result CSV")
    ap.add_argument("--published", help="also write the published figures here")
    ap.add_argument("--encoding", default=encoding, type=check_encoding,
                    help="of the pages (default %s)" % encoding)


def read_page(path, encoding):
    """The page's Rows; PageError when its bytes are not text in that encoding."""
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
    """A published figure, kept as text: IMPs may have decimals (averages, awards such as 1.2)."""
    s = s.strip().replace("\u2212", "-")
    if not re.fullmatch(r"[+-]?\d+(\.\d+)?", s):
        raise PageError("%s: %s %r is not a number" % (path, what, s))
    return s


def integer(s, path, what):
    s = s.strip().replace("\u2212", "-")
    if not re.fullmatch(r"[+-]?\d+", s):
        raise PageError("%s: %s %r is not an integer" % (path, what, s))
    return int(s)


def award(ns, ew, middle=0):
    """The adjusted code (`A+/A`, ...) of a row without a score from its published NS and EW
    figures: above middle (the average: 0 IMPs, 50%) A+, at it A, below A-. The amounts go to
    `datum score --adjusted-imps`."""
    side = lambda v: "A+" if float(v) > middle else "A-" if float(v) < middle else "A"
    return side(ns) + "/" + side(ew)


def board_of(path, pattern):
    """The board number: group 1 of pattern, searched in the file name without its extension
    (r"(\d{1,3})$": wb130808007.txt -> 7; r"^board_(\d+)$": board_7.html -> 7)."""
    m = re.search(pattern, os.path.splitext(os.path.basename(path))[0])
    if not m:
        raise PageError("%s: no board number in the file name" % path)
    return int(m.group(1))


def by_board(paths, pattern):
    """[(board, path)] of one event's pages in board order (board_of); PageError on a board
    given twice."""
    seen = {}
    for path in paths:
        board = board_of(path, pattern)
        if board in seen:
            raise PageError("%s: board %d already read from %s" % (path, board, seen[board]))
        seen[board] = path
    return sorted(seen.items())


def lines(event, date, section, board, table, ns_pair, ew_pair, score, adjusted, published_ns,
          published_ew, published_datum, path):
    """(row of RESULT_COLUMNS, row of PUBLISHED_COLUMNS) of one traveller row; score None on an
    adjusted row, published_datum None when the page gives none."""
    s = "" if score is None else score
    key = [event, section, board, table, ns_pair, ew_pair]
    return ([event, date, section, board, table, ns_pair, ew_pair, s, adjusted],
            key + [s, adjusted, published_ns, published_ew,
                   "" if published_datum is None else published_datum, path])


def write_csvs(outputs):
    """Writes [(path, header, rows)] each under a temporary name in its folder, and renames them
    into place only once all are complete: on any failure (OSError) nothing is left behind."""
    done = []
    mask = os.umask(0)  # mkstemp makes 0600 files: give them the usual permissions
    os.umask(mask)
    path = None
    try:
        for path, header, rows in outputs:
            fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".",
                                       dir=os.path.dirname(os.path.abspath(path)))
            done.append((tmp, path))
            os.chmod(tmp, 0o666 & ~mask)
            with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(header)
                w.writerows(rows)
        for tmp, path in done:
            os.replace(tmp, path)
    except BaseException as e:
        for tmp, _ in done:
            if os.path.exists(tmp):
                os.remove(tmp)
        if isinstance(e, OSError):
            e.filename = path  # the output's name, not the temporary one's
        raise


def convert(prog, a, read):
    """read() -> (result rows, published rows, summary); writes a.output (and a.published) with
    write_csvs. Returns the exit status: 2 (bad input: PageError, or a page that cannot be
    read), 1 (an output cannot be written), 0; the message names the file."""
    try:
        out, pub, summary = read()
    except (PageError, OSError) as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    outputs = [(a.output, RESULT_COLUMNS, out)]
    if a.published:
        outputs.append((a.published, PUBLISHED_COLUMNS, pub))
    try:
        write_csvs(outputs)
    except OSError as e:
        print("%s: cannot write: %s" % (prog, e), file=sys.stderr)
        return 1
    print("%s: %s -> %s" % (prog, summary, a.output), file=sys.stderr)
    return 0
