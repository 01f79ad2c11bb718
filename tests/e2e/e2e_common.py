"""Shared helpers of the end-to-end tests: run the program, write its input CSVs, and check its
output CSVs against the reference (tests/reference/datum_ref.py) and against the invariants."""
import csv
import io
import os
import shlex
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import datum_ref as ref  # noqa: E402

INPUT_COLUMNS = ref.COLUMNS + ("adjusted",)
VALUE_TOL = 1e-12  # relative (absolute below 1) for inexact per-result values (linear scale)
TOTAL_TOL = 1e-9  # the same for per-pair totals


class Program:
    """The `datum` program under test."""

    def __init__(self, path):
        self.path = os.path.abspath(path)

    def command(self, *args) -> str:
        return shlex.join(["datum", *map(str, args)])

    def run(self, *args, timeout=600) -> subprocess.CompletedProcess:
        return subprocess.run([self.path, *map(str, args)], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    def ok(self, *args) -> subprocess.CompletedProcess:
        p = self.run(*args)
        if p.returncode != 0:
            raise AssertionError(f"`{self.command(*args)}` exited {p.returncode}:\n{p.stderr}")
        return p


def _input_records(rows, with_adjusted):
    yield INPUT_COLUMNS if with_adjusted else ref.COLUMNS
    for r in rows:
        line = [r.event, r.date, r.section, r.board, r.table, r.ns_pair, r.ew_pair,
                "" if r.score is None else r.score]
        yield line + [r.adjusted] if with_adjusted else line


def write_input(path, rows, with_adjusted=True) -> None:
    """Rows as an interchange CSV (RFC 4180 quoting); an adjusted row may keep a score, which the
    program must ignore."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(_input_records(rows, with_adjusted))


def input_text(rows, with_adjusted=True) -> str:
    """The CSV text write_input writes (for reproduction recipes)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(_input_records(rows, with_adjusted))
    return buf.getvalue()


def read_table(path) -> tuple:
    """(header, lines) of an output CSV."""
    with open(path, newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    return (lines[0] if lines else []), lines[1:]


def close(got: float, want: float, tol: float) -> bool:
    return abs(got - want) <= tol * max(1.0, abs(want))


def matches(text: str, want, exact: bool, tol: float = VALUE_TOL) -> bool:
    if want is None or want.__class__ is str:
        return text == (want or "")
    try:
        got = float(text)
    except ValueError:
        return False
    want = float(want)
    return got == want if exact else close(got, want, tol)


class Checker:
    """Collects disagreements as (field key or None, message)."""

    def __init__(self):
        self.problems = []
        self.notes = []

    def add(self, field, message) -> None:
        self.problems.append((field, message))

    def value(self, field, what, text, want, exact, tol=VALUE_TOL) -> None:
        """text (from the program) against want: a str (compared as text), None (expects an empty
        cell) or a number (exactly when exact, else within tol)."""
        if not matches(text, want, exact, tol):
            self.add(field, f"{what}: program {text!r}, reference {ref.fmt(want)!r}")

    def header(self, name, got, want) -> bool:
        if list(got) != list(want):
            self.add(None, f"{name}: header {','.join(got)!r}, expected {','.join(want)!r}")
            return False
        return True


def _key(rec) -> tuple:
    return (rec["event"], rec["section"], int(rec["board"]), int(rec["table"]))


def check_rows(ck: Checker, path, columns, expected) -> dict:
    """Checks a per-result CSV against expected = [(Row, [(column, value, exact), ...])], keyed by
    (event, section, board, table), whatever the row order. Returns the program's rows by key, in
    the order of the file."""
    header, lines = read_table(path)
    if not ck.header(os.path.basename(path), header, columns):
        return {}
    got = {}
    for line in lines:
        rec = dict(zip(header, line))
        try:
            key = _key(rec)
        except (ValueError, KeyError):
            ck.add(None, f"unreadable row {line}")
            continue
        if key in got:
            ck.add(key[:3], f"row {key} written twice")
        got[key] = rec
    for row, values in expected:
        rec = got.get(row.key)
        if rec is None:
            ck.add(row.field, f"row {row.key} missing")
            continue
        checks = [("ns_pair", row.ns_pair, True), ("ew_pair", row.ew_pair, True),
                  ("ns_score", None if row.adjusted else row.score, True)] + values
        for column, want, exact in checks:
            if not matches(rec[column], want, exact):
                ck.value(row.field, f"{row.key} {column}", rec[column], want, exact)
    for key in got.keys() - {row.key for row, _ in expected}:
        ck.add(key[:3], f"row {key} not expected")
    return got


def _float(x):
    return None if x is None else float(x)


def butler_expected(results, has_adjusted: bool, exact: bool) -> list:
    return [(b.row, [("datum", _float(b.datum), True), ("ns_imps", float(b.ns_imps), exact)]
             + ([("adjusted", b.row.adjusted, True), ("ew_imps", float(b.ew_imps), exact)]
                if has_adjusted else [])) for b in results]


def cross_expected(results, exact: bool) -> list:
    return [(x.row, [("ns_raw", float(x.raw), exact), ("ns_avg", float(x.avg), exact),
                     ("terms", x.terms, True)]) for x in results]


def result_columns(has_adjusted: bool) -> tuple:
    return ref.RESULT_COLUMNS + (ref.ADJUSTED_COLUMNS if has_adjusted else ())


def check_pairs(ck: Checker, path, totals, with_raw: bool) -> dict:
    """Checks a per-pair CSV against the reference totals (within TOTAL_TOL). A pair the reference
    does not have is tolerated only with 0 boards (a pair whose every result got no cross score)."""
    header, lines = read_table(path)
    columns = ref.PAIR_COLUMNS + (("raw_imps",) if with_raw else ())
    if not ck.header(os.path.basename(path), header, columns):
        return {}
    got = {}
    for line in lines:
        rec = dict(zip(header, line))
        if rec["pair"] in got:
            ck.add(None, f"pair {rec['pair']!r} written twice")
        got[rec["pair"]] = rec
    for t in totals:
        rec = got.get(t.pair)
        if rec is None:
            ck.add(None, f"pair {t.pair!r} missing")
            continue
        ck.value(None, f"pair {t.pair!r} boards", rec["boards"], t.boards, True)
        for column, want in (("imps", t.imps), ("imps_per_board", t.imps_per_board),
                             ("raw_imps", t.raw if with_raw else None)):
            if column in rec:
                ck.value(None, f"pair {t.pair!r} {column}", rec[column], want, False, TOTAL_TOL)
    extra = got.keys() - {t.pair for t in totals}
    if any(got[p]["boards"] != "0" for p in extra):
        ck.add(None, f"pairs not expected: {sorted(extra)[:5]}")
    elif extra:
        ck.notes.append(f"{len(extra)} pairs listed with 0 boards")
    return got


def check_butler_invariants(ck: Checker, got: dict, pairs: dict, adjusted_imps, exact) -> None:
    """From the program's own output: NS + EW = 0 at every real table; per field, the IMPs of all
    its pairs sum to 0 once the adjusted rows' own imbalance (A+/A+, A+/A, ...) is taken out; the
    pairs file adds up the results file."""
    def contributions(key, rec):
        ns = float(rec["ns_imps"])
        ew = float(rec["ew_imps"]) if "ew_imps" in rec else -ns
        adj = rec.get("adjusted", "")
        imbalance = sum(ref.adjusted_result(adj, adjusted_imps)) if adj else 0
        if not adj and ns + ew != 0:
            ck.add(key[:3], f"{key}: NS {rec['ns_imps']} + EW {rec.get('ew_imps')} != 0")
        return ns + ew - float(imbalance), ((rec["ns_pair"], ns), (rec["ew_pair"], ew))
    _check_sums(ck, got, pairs, contributions, 0 if exact else VALUE_TOL * 100, "pair IMPs")


def check_cross_invariants(ck: Checker, got: dict, pairs: dict, exact) -> None:
    """Per field the NS raw cross-IMPs sum to 0; the pairs file adds up the results file."""
    def contributions(key, rec):
        avg = float(rec["ns_avg"])
        return float(rec["ns_raw"]), ((rec["ns_pair"], avg), (rec["ew_pair"], -avg))
    _check_sums(ck, got, pairs, contributions, 0 if exact else VALUE_TOL * 1000, "NS raw IMPs")


def _check_sums(ck: Checker, got: dict, pairs: dict, contributions, tol, what) -> None:
    """contributions(key, record) -> (amount that must sum to 0 over the field, ((pair, IMPs),
    ...)); also checks that the pairs file adds up those IMPs."""
    field_sum, per_pair = defaultdict(float), defaultdict(lambda: [0, 0.0])
    for key, rec in got.items():
        amount, sides = contributions(key, rec)
        field_sum[key[:3]] += amount
        for pair, imps in sides:
            per_pair[pair][0] += 1
            per_pair[pair][1] += imps
    for field, total in field_sum.items():
        if not close(total, 0.0, tol):
            ck.add(field, f"field {field}: {what} sum to {total}")
    for pair, (boards, imps) in per_pair.items():
        rec = pairs.get(pair)
        if rec is not None and (int(rec["boards"]) != boards
                                or not close(float(rec["imps"]), imps, TOTAL_TOL)):
            ck.add(None, f"pair {pair!r}: pairs file {rec['boards']} boards {rec['imps']} IMPs, "
                         f"results file adds up to {boards} boards {imps} IMPs")


def reference_answer(command: str, o, rows, datums=None) -> tuple:
    """(results, pair totals) of the reference for `datum COMMAND` with options o (from
    ref.options) on rows in archive order; datums: the fields' datums if already known."""
    if command == "cross":
        results = ref.cross(rows, o.scale_, o.divisor)
        return results, ref.cross_pairs(results)
    if datums is None:
        datums = ref.field_datums(rows, o.recipe)
    results = ref.butler(rows, datums, o.scale_, o.adjusted_imps)
    return results, ref.butler_pairs(results)


def check_output(ck: Checker, command: str, o, answer, results, pairs, has_adjusted) -> dict:
    """Checks the program's results and pairs files against the reference answer and the
    invariants; returns the program's results by key, in file order."""
    expected, totals = answer
    exact = o.scale_.exact
    if command == "score":
        got = check_rows(ck, results, result_columns(has_adjusted),
                         butler_expected(expected, has_adjusted, exact))
        check_butler_invariants(ck, got, check_pairs(ck, pairs, totals, with_raw=False),
                                o.adjusted_imps, exact)
    else:
        got = check_rows(ck, results, ref.CROSS_COLUMNS, cross_expected(expected, exact))
        check_cross_invariants(ck, got, check_pairs(ck, pairs, totals, with_raw=True), exact)
    return got


def archive_order_problem(got: dict):
    """None when the rows check_rows read (in file order) are in archive order, else a message."""
    keys = list(got)
    bad = next((i for i in range(1, len(keys)) if keys[i - 1] >= keys[i]), None)
    return None if bad is None else f"row {bad + 2} {keys[bad]} follows {keys[bad - 1]}"


def program_args(default_source):
    """(Program, source folder, argv for unittest.main) from an end-to-end test's command line:
    --datum BUILD/cli/datum [--source DIR] [unittest options]."""
    import argparse
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", default=default_source)
    a, rest = ap.parse_known_args()
    return Program(a.datum), a.source, [sys.argv[0]] + rest


# ---------------------------------------------------------------------------------------------
# Tests of the converters of other programs' pages (test_jfr.py, test_realbridge.py)

FAILURES = []


def check(cond, what) -> None:
    """Records a failed check, and prints it, without stopping the test."""
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run_text(*args) -> tuple:
    """(exit status, stdout, stderr) of a command."""
    p = subprocess.run(list(args), capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def converter_test(converter, synthetic, folder, real, *more) -> int:
    """main() of a converter's test, run as `TEST --datum PATH --source DIR --data DIR` (DIR:
    the shared datasets/real folder): synthetic(tmp, script), then real(tmp, datum, script,
    DIR/folder) unless that folder is absent (skipped with a message), then each of
    more(tmp, datum, script, DIR); script = DIR/scripts/converter. Returns the exit status."""
    import argparse
    import tempfile
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args()
    script = os.path.join(a.source, "scripts", converter)
    with tempfile.TemporaryDirectory() as tmp:
        synthetic(tmp, script)
        where = os.path.join(a.data, folder)
        if os.path.isdir(where):
            real(tmp, a.datum, script, where)
        else:
            print("skipped: %s absent (clone ../shared beside the source tree)" % where)
        for f in more:
            f(tmp, a.datum, script, a.data)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("ok")
    return 0
