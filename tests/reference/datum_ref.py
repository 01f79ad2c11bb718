#!/usr/bin/env python3
"""Reference implementation of the scoring contract, methods.md sections 1-4.

IMP scales, the datum of a board field, Butler and cross-IMP, written from the contract alone
(not from the C code) with exact rational arithmetic, so that the end-to-end tests can check the
program value by value. Every computed value is a fractions.Fraction; convert at the very end.
Standard library only.

Command line (mirrors the program, but reads the CSVs directly):
  datum_ref.py score A.csv [B.csv ...] --datum nbb [recipe, scale options] [--results F] [--pairs F]
  datum_ref.py cross A.csv [B.csv ...] [--scale linear] [--divisor n] [--results F] [--pairs F]
  datum_ref.py datum --datum nbb -- -100 -150 200     (prints the datum of the given scores)
  datum_ref.py imp [--scale linear] [--double] [--half] -- 57 163    (prints IMPs of differences)
"""
from __future__ import annotations

import argparse
import bisect
import csv
import math
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import groupby

HALF = Fraction(1, 2)

# ---------------------------------------------------------------------------------------------
# 1. IMP scales

# Band boundaries of the WBF table: |d| >= WBF_MIDPOINTS[i] gives at least i + 1 IMPs.
WBF_MIDPOINTS = (15, 45, 85, 125, 165, 215, 265, 315, 365, 425, 495, 595, 745, 895, 1095, 1295,
                 1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995)


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def wbf(d) -> int:
    """WBF IMPs of a difference d (int or Fraction)."""
    # The boundaries are integers, so |d| >= b exactly when floor(|d|) >= b.
    return _sign(d) * bisect.bisect_right(WBF_MIDPOINTS, abs(d.numerator) // d.denominator)


def linear(d) -> Fraction:
    """Linear ("Bastille") IMPs: through every midpoint at a half IMP, d/30 below 45,
    (d+7755)/500 above 2495, no cap."""
    a = abs(Fraction(d))
    if a < 45:
        v = a / 30
    elif a > 2495:
        v = (a + 7755) / 500
    else:
        i = bisect.bisect_right(WBF_MIDPOINTS, a) - 1  # midpoint i <= a, 1 <= i <= 20
        lo, hi = WBF_MIDPOINTS[i], WBF_MIDPOINTS[i + 1]
        v = i + HALF + (a - lo) / (hi - lo)
    return _sign(d) * v


@dataclass(frozen=True)
class Scale:
    """An IMP scale with the seed-002 options: double converts 2*(s-d), half halves the IMPs."""
    name: str = "wbf"  # wbf | linear
    double: bool = False
    half: bool = False

    def imp(self, d) -> Fraction:
        if self.double:
            d = 2 * d
        v = Fraction(wbf(d) if self.name == "wbf" else linear(d))
        return v / 2 if self.half else v

    @property
    def exact(self) -> bool:
        """True when every IMP this scale gives is exactly representable as a double."""
        return self.name == "wbf"


# ---------------------------------------------------------------------------------------------
# 2. Datum of a board field


@dataclass(frozen=True)
class Recipe:
    """How the datum of a field of real scores is made (methods.md section 2, general recipe)."""
    center: str = "mean"  # mean | median-low | median-high | median | par
    trim: str = "none"  # none | tenth | K (a whole number) | P% (P may have decimals)
    trim_round: str = "ceil"  # for P%: ceil | floor | nearest (halves up)
    trim_min_n: int = 1  # trim only fields of at least this many scores
    small_max: int = 0  # >= 3: fields of 3..small_max scores take the weighted mean
    middle_weight: int = 2  # weight of the non-extreme scores in that weighted mean
    rounding: str = "none"  # none | toward-zero | away | up | even (how exact halves go) | truncate
    unit: int = 10  # rounding to a multiple of this


PRESETS = {
    "mean": Recipe(),
    "nbb": Recipe(trim="tenth", trim_min_n=6, small_max=5, rounding="toward-zero"),
    "bastille": Recipe(trim="tenth"),
    "par": Recipe(center="par"),
    "acbl": Recipe(trim="5%", rounding="even"),
    "bridgewx": Recipe(trim="tenth", trim_min_n=6, rounding="away"),
}

_TRIM_ROUNDING = {"ceil": math.ceil, "floor": math.floor, "nearest": lambda x: math.floor(x + HALF)}


def trim_count(n: int, r: Recipe) -> int:
    """Scores dropped at each end of a field of n scores (before the trim_min_n rule)."""
    if r.trim == "none":
        k = 0
    elif r.trim == "tenth":
        k = -(-n // 10)
    elif r.trim.endswith("%"):
        k = _TRIM_ROUNDING[r.trim_round](n * Fraction(r.trim[:-1]) / 100)
    else:
        k = int(r.trim)
    return min(k, (n - 1) // 2)


def center(s: list, how: str) -> Fraction:
    """Center of the sorted scores s."""
    m = len(s)
    if how == "mean":
        return Fraction(sum(s), m)
    lo, hi = s[(m - 1) // 2], s[m // 2]
    return {"median-low": Fraction(lo), "median-high": Fraction(hi),
            "median": Fraction(lo + hi, 2)}[how]


_HALF_RULES = {  # floor f of an exact half q = f + 1/2 -> the chosen integer
    "toward-zero": lambda f, q: f if q > 0 else f + 1,
    "away": lambda f, q: f + 1 if q > 0 else f,
    "up": lambda f, q: f + 1,
    "even": lambda f, q: f + f % 2,
}


def round_unit(x: Fraction, mode: str, unit: int) -> Fraction:
    """Round x to a multiple of unit: to the nearest, exact halves by the named rule."""
    if mode == "none":
        return x
    q = Fraction(x) / unit
    if mode == "truncate":  # toward zero, not to the nearest (JFR Pary)
        return Fraction(math.trunc(q) * unit)
    f = math.floor(q)
    r = q - f
    n = _HALF_RULES[mode](f, q) if r == HALF else f + (r > HALF)
    return Fraction(n * unit)


def par(scores) -> int:
    """Zero-sum par, by brute force: the multiple of 10 in [-8000, 8000] minimising
    |sum wbf(s - d)|, ties to the one closest to zero."""
    counts = Counter(scores)
    return min(range(-8000, 8001, 10),
               key=lambda d: (abs(sum(c * wbf(s - d) for s, c in counts.items())), abs(d)))


def datum(scores, r: Recipe) -> Fraction | None:
    """Datum of a field of real scores (NS point of view); None for an empty field."""
    n = len(scores)
    if n == 0:
        return None
    if r.center == "par":
        return Fraction(par(scores))
    s = sorted(scores)
    if r.small_max >= 3 and 3 <= n <= r.small_max:
        w = r.middle_weight
        d = Fraction(s[0] + s[-1] + w * sum(s[1:-1]), 2 + w * (n - 2))
    else:
        k = trim_count(n, r) if n >= r.trim_min_n else 0
        d = center(s[k:n - k], r.center)
    return round_unit(d, r.rounding, r.unit)


# ---------------------------------------------------------------------------------------------
# Results: rows of the interchange CSV (formats.md "In")

COLUMNS = ("event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score")
# Every NS/EW pair of A+, A, A- is a token (the mixed ones such as A+/A too), and a single side.
_SIDES = ("A+", "A", "A-")
ADJUSTED_TOKENS = _SIDES + tuple(f"{ns}/{ew}" for ns in _SIDES for ew in _SIDES)
_MIRROR = {"A+": "A-", "A": "A", "A-": "A+"}
_SIDE_INDEX = {"A+": 0, "A": 1, "A-": 2}  # into adjusted_imps = (plus, average, minus)


def adjusted_sides(token: str) -> tuple:
    """(NS side, EW side) of an adjusted token; a single token is NS and EW gets the mirror."""
    ns, _, ew = token.partition("/")
    return ns, ew or _MIRROR[ns]


def adjusted_result(token: str, adjusted_imps=(3, 0, -3)) -> tuple:
    """(NS IMPs, EW IMPs) of an adjusted token, given the IMPs of (A+, A, A-)."""
    return tuple(Fraction(adjusted_imps[_SIDE_INDEX[t]]) for t in adjusted_sides(token))


@dataclass(frozen=True)
class Row:
    event: str
    date: str
    section: str
    board: int
    table: int
    ns_pair: str
    ew_pair: str
    score: int | None  # ignored on an adjusted row (read_csv leaves None there)
    adjusted: str = ""  # "" for a real score

    @property
    def key(self) -> tuple:
        return (self.event, self.section, self.board, self.table)

    @property
    def field(self) -> tuple:
        return (self.event, self.section, self.board)


def read_csv(paths) -> tuple:
    """Rows of the given interchange CSVs in archive order, and whether any had an adjusted column.
    Trusts its input: the reference is not a validator."""
    rows, has_adjusted = [], False
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            has_adjusted |= "adjusted" in reader.fieldnames
            for rec in reader:
                adj = (rec.get("adjusted") or "").strip()
                rows.append(Row(rec["event"], rec["date"], rec["section"], int(rec["board"]),
                                int(rec["table"]), rec["ns_pair"], rec["ew_pair"],
                                None if adj else int(rec["ns_score"]), adj))
    return sort_rows(rows), has_adjusted


def sort_rows(rows) -> list:
    """Archive order: event, section bytewise (UTF-8 order = code point order), board, table."""
    return sorted(rows, key=lambda r: r.key)


def fields(rows):
    """(field key, rows of that field) for rows in archive order (see sort_rows): every function
    below that takes rows wants them in that order."""
    return groupby(rows, key=lambda r: r.field)


# ---------------------------------------------------------------------------------------------
# 3. Butler


@dataclass(frozen=True)
class Butler:
    row: Row
    datum: Fraction | None
    ns_imps: Fraction
    ew_imps: Fraction


def field_datums(rows, recipe: Recipe) -> dict:
    """Datum of every field (None where it has no real score)."""
    return {key: datum([r.score for r in f if not r.adjusted], recipe) for key, f in fields(rows)}


def butler(rows, datums: dict, scale: Scale, adjusted_imps=(3, 0, -3)) -> list:
    """Butler IMPs of every row against the given field datums."""
    out = []
    for key, f in fields(rows):
        d, imps = datums[key], {}  # imps by score: fields have many ties
        for r in f:
            if r.adjusted:
                ns, ew = adjusted_result(r.adjusted, adjusted_imps)
            else:
                if r.score not in imps:
                    imps[r.score] = scale.imp(r.score - d)
                ns = imps[r.score]
                ew = -ns
            out.append(Butler(r, d, ns, ew))
    return out


def score(rows, recipe: Recipe, scale: Scale, adjusted_imps=(3, 0, -3)) -> list:
    return butler(rows, field_datums(rows, recipe), scale, adjusted_imps)


@dataclass(frozen=True)
class PairTotal:
    pair: str
    boards: int
    imps: Fraction
    raw: Fraction | None = None

    @property
    def imps_per_board(self) -> Fraction:
        return self.imps / self.boards


def exact_sum(values) -> Fraction:
    """Sum of Fractions (or ints), adding numerators by denominator (fast for few denominators)."""
    by_denominator = defaultdict(int)
    for v in values:
        by_denominator[v.denominator] += v.numerator
    return sum((Fraction(n, d) for d, n in by_denominator.items()), Fraction(0))


def pair_totals(contributions) -> list:
    """Totals by pair, sorted by pair id bytewise, from (pair, imps, raw or None) items."""
    imps, raws = defaultdict(list), defaultdict(list)
    for pair, v, raw in contributions:
        imps[pair].append(v)
        if raw is not None:
            raws[pair].append(raw)
    return [PairTotal(p, len(imps[p]), exact_sum(imps[p]),
                      exact_sum(raws[p]) if p in raws else None) for p in sorted(imps)]


def butler_pairs(results) -> list:
    return pair_totals(c for b in results for c in ((b.row.ns_pair, b.ns_imps, None),
                                                    (b.row.ew_pair, b.ew_imps, None)))


# ---------------------------------------------------------------------------------------------
# 4. Cross-IMP

# Divisors of the raw sum, from n (the field's real results) and t (its rows, adjusted ones
# included). "tables" (RealBridge's): the average over the t-1 other tables, an adjusted row
# counting 0, scaled by t/n.
DIVISORS = {"n-1": lambda n, t: n - 1, "n": lambda n, t: n, "none": lambda n, t: 1,
            "tables": lambda n, t: Fraction((t - 1) * n, t)}


@dataclass(frozen=True)
class Cross:
    row: Row
    raw: Fraction
    avg: Fraction
    terms: int


def cross(rows, scale: Scale, divisor: str = "n-1") -> list:
    """Cross-IMP of every real result in a field of at least two real results."""
    out = []
    for _, f in fields(rows):
        f = list(f)
        real = [r for r in f if not r.adjusted]
        n = len(real)
        if n < 2:
            continue
        counts = Counter(r.score for r in real)
        # imp(0) = 0, so comparing a result with itself adds nothing
        raw = {s: sum(c * scale.imp(s - v) for v, c in counts.items()) for s in counts}
        div = DIVISORS[divisor](n, len(f))
        out.extend(Cross(r, raw[r.score], raw[r.score] / div, n - 1) for r in real)
    return out


def cross_pairs(results) -> list:
    return pair_totals(c for x in results for c in ((x.row.ns_pair, x.avg, x.raw),
                                                    (x.row.ew_pair, -x.avg, -x.raw)))


# ---------------------------------------------------------------------------------------------
# Output (formats.md "Out")

RESULT_COLUMNS = ("event", "section", "board", "table", "ns_pair", "ew_pair", "ns_score", "datum",
                  "ns_imps")
ADJUSTED_COLUMNS = ("adjusted", "ew_imps")
CROSS_COLUMNS = ("event", "section", "board", "table", "ns_pair", "ew_pair", "ns_score", "ns_raw",
                 "ns_avg", "terms")
PAIR_COLUMNS = ("pair", "boards", "imps", "imps_per_board")


def fmt(x) -> str:
    """A number as text: integers plain, others in shortest round-trip form; None as empty."""
    if x is None:
        return ""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else repr(float(x))


def _row_head(r: Row) -> list:
    return [r.event, r.section, r.board, r.table, r.ns_pair, r.ew_pair,
            fmt(None if r.adjusted else r.score)]


def _write(path, header, lines) -> None:
    f = sys.stdout if path == "-" else open(path, "w", newline="", encoding="utf-8")
    try:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(lines)
    finally:
        if f is not sys.stdout:
            f.close()


def write_butler(path, results, has_adjusted: bool) -> None:
    extra = ADJUSTED_COLUMNS if has_adjusted else ()
    _write(path, RESULT_COLUMNS + extra,
           (_row_head(b.row) + [fmt(b.datum), fmt(b.ns_imps)]
            + ([b.row.adjusted, fmt(b.ew_imps)] if has_adjusted else []) for b in results))


def write_cross(path, results) -> None:
    _write(path, CROSS_COLUMNS,
           (_row_head(x.row) + [fmt(x.raw), fmt(x.avg), x.terms] for x in results))


def write_pairs(path, totals) -> None:
    with_raw = any(t.raw is not None for t in totals)
    _write(path, PAIR_COLUMNS + (("raw_imps",) if with_raw else ()),
           ([t.pair, t.boards, fmt(t.imps), fmt(t.imps_per_board)]
            + ([fmt(t.raw)] if with_raw else []) for t in totals))


# ---------------------------------------------------------------------------------------------
# Command line


def recipe_from_args(a) -> Recipe:
    """The preset named by --datum with every recipe option given on the command line."""
    overrides = {name: getattr(a, name) for name in
                 ("trim", "trim_round", "trim_min_n", "small_max", "middle_weight", "center",
                  "rounding", "unit") if getattr(a, name) is not None}
    return replace(PRESETS[a.datum], **overrides)


def _scale_options(p) -> None:
    p.add_argument("--scale", choices=("wbf", "linear"), default="wbf")
    p.add_argument("--double", action="store_true")
    p.add_argument("--half", action="store_true")


def _recipe_options(p) -> None:
    p.add_argument("--datum", choices=sorted(PRESETS), default="mean")
    p.add_argument("--middle-weight", dest="middle_weight", type=int, choices=(2, 3))
    p.add_argument("--trim")
    p.add_argument("--trim-round", dest="trim_round", choices=sorted(_TRIM_ROUNDING))
    p.add_argument("--trim-min", dest="trim_min_n", type=int)
    p.add_argument("--small-max", dest="small_max", type=int)
    p.add_argument("--center", choices=("mean", "median-low", "median-high", "median", "par"))
    p.add_argument("--round", dest="rounding", choices=("none",) + tuple(_HALF_RULES) + ("truncate",))
    p.add_argument("--round-unit", dest="unit", type=int)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sc = sub.add_parser("score", help="Butler scores against a datum")
    cr = sub.add_parser("cross", help="cross-IMP scores")
    for p in (sc, cr):
        p.add_argument("csv", nargs="+")
        _scale_options(p)
        p.add_argument("--results", default="-")
        p.add_argument("--pairs")
    _recipe_options(sc)
    sc.add_argument("--adjusted-imps", dest="adjusted_imps", default="3,0,-3",
                    type=lambda v: tuple(Fraction(x) for x in v.split(",")))
    cr.add_argument("--divisor", choices=sorted(DIVISORS), default="n-1")
    dt = sub.add_parser("datum", help="the datum of the given scores")
    _recipe_options(dt)
    dt.add_argument("scores", nargs="+", type=int)
    im = sub.add_parser("imp", help="IMPs of the given differences")
    _scale_options(im)
    im.add_argument("diffs", nargs="+", type=Fraction)
    return ap


def options(command: str, argv) -> argparse.Namespace:
    """The program's options for `datum COMMAND ARCHIVE argv...` as the reference reads them, with
    .recipe (score) and .scale_ (score, cross) filled in."""
    a = parser().parse_args([command, "-"] + list(argv))
    return _complete(a)


def _complete(a: argparse.Namespace) -> argparse.Namespace:
    if hasattr(a, "scale"):
        a.scale_ = Scale(a.scale, a.double, a.half)
    if hasattr(a, "datum"):
        a.recipe = recipe_from_args(a)
    return a


def main(argv=None) -> int:
    a = _complete(parser().parse_args(argv))
    if a.command == "datum":
        print(fmt(datum(a.scores, a.recipe)))
    elif a.command == "imp":
        print(" ".join(fmt(a.scale_.imp(d)) for d in a.diffs))
    else:
        rows, has_adjusted = read_csv(a.csv)
        if a.command == "score":
            results = score(rows, a.recipe, a.scale_, a.adjusted_imps)
            write_butler(a.results, results, has_adjusted)
            totals = butler_pairs(results)
        else:
            results = cross(rows, a.scale_, a.divisor)
            write_cross(a.results, results)
            totals = cross_pairs(results)
        if a.pairs:
            write_pairs(a.pairs, totals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
