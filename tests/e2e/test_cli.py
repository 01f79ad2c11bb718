#!/usr/bin/env python3
"""End-to-end tests of the `datum` command line: the seeds' worked examples, par against the
reference's brute force, every kind of bad input, damaged archives, help and version.

usage: test_cli.py --datum BUILD/cli/datum [--source SOURCE_DIR] [unittest options]
"""
import argparse
import os
import random
import re
import sys
import tempfile
import unittest

from e2e_common import (Checker, Program, archive_order_problem, check_output, read_table, ref,
                        reference_answer, write_input)

PROGRAM = None  # set by main()
SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def dataset(*parts):
    return os.path.join(SOURCE, "datasets", *parts)


class CliTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="datum-cli-")
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def path(self, name):
        return os.path.join(self.dir, name)

    def archive(self, *csvs, options=()):
        out = self.path("archive.h5")
        PROGRAM.ok("import", *csvs, "-o", out, *options)
        self.assertEqual([n for n in os.listdir(self.dir) if ".tmp" in n], [], "temp file left")
        return out

    def run_program(self, csvs, command, *args):
        """Imports csvs, runs `datum COMMAND ARCHIVE args`; returns the results and pairs paths."""
        results, pairs = self.path("results.csv"), self.path("pairs.csv")
        PROGRAM.ok(command, self.archive(*csvs), *args, "--results", results, "--pairs", pairs)
        return results, pairs

    def run_scores(self, csvs, command, *args):
        """The program's results by (event, section, board, table) and its pairs by pair id."""
        results, pairs = self.run_program(csvs, command, *args)
        header, lines = read_table(results)
        by_key = {tuple(line[:4]): dict(zip(header, line)) for line in lines}
        header, lines = read_table(pairs)
        return by_key, {line[0]: dict(zip(header, line)) for line in lines}

    def pair_imps(self, csvs, *args):
        """The datums and the IMPs of every pair of `datum score`."""
        results, pairs = self.run_scores(csvs, "score", *args)
        return ({float(r["datum"]) for r in results.values()},
                {p: float(rec["imps"]) for p, rec in pairs.items()})

    def assert_matches_reference(self, csvs, command, *args):
        """The program's output for csvs agrees with the reference, value by value, keeps the
        invariants and lists the rows in archive order."""
        results, pairs = self.run_program(csvs, command, *args)
        rows, has_adjusted = ref.read_csv(csvs)
        o, ck = ref.options(command, args), Checker()
        got = check_output(ck, command, o, reference_answer(command, o, rows), results, pairs,
                           has_adjusted)
        self.assertEqual([m for _, m in ck.problems][:20], [], f"datum {command} {args}")
        self.assertIsNone(archive_order_problem(got))


class Seeds(CliTest):
    BOARD6 = {"1": -1, "2": 2, "3": -2, "4": 2, "5": 14, "6": 7, "7": 1, "8": 5, "9": -5, "10": -7,
              "11": -2, "12": -14}
    BOARD7 = {"1": 9, "2": 2, "3": -7, "4": 7, "5": 7, "6": 7, "7": -9, "8": -7, "9": -2, "10": -7}

    def test_nbb_scorecards(self):
        for name, want_datum, imps in (("nbb-board6.csv", -70, self.BOARD6),
                                       ("nbb-board7.csv", 200, self.BOARD7)):
            datums, got = self.pair_imps([dataset("seeds", name)], "--datum", "nbb")
            self.assertEqual(datums, {want_datum}, name)
            self.assertEqual(got, imps, name)

    def test_middle_weight_3(self):
        datums, _ = self.pair_imps([dataset("seeds", "nbb-board7.csv")], "--datum", "nbb",
                                   "--middle-weight", "3")
        self.assertEqual(datums, {190})  # 2140/11 = 194.5...

    def test_bastille_story(self):
        story = (("", 237, 1.8, 4.45, 240, 4), ("-rectified", 232, 2.425, 4.56, 230, 5))
        for suffix, d_lin, hw_lin, lw_lin, d_nbb, lw_nbb in story:
            csv = [dataset("seeds", f"bastille-scheveningen{suffix}.csv")]
            datums, imps = self.pair_imps(csv, "--datum", "bastille", "--scale", "linear")
            self.assertEqual(datums, {d_lin})
            self.assertAlmostEqual(imps["Hamman-Wolff"], hw_lin, places=12)
            self.assertAlmostEqual(imps["Leufkens-Westra"], lw_lin, places=12)
            datums, imps = self.pair_imps(csv, "--datum", "nbb")
            self.assertEqual(datums, {d_nbb})
            self.assertEqual((imps["Hamman-Wolff"], imps["Leufkens-Westra"]), (2, lw_nbb))

    def test_example_against_reference(self):
        csv = [dataset("example", "club-session.csv")]
        for command, args in (("score", ("--datum", "nbb")), ("score", ("--datum", "bastille",
                              "--scale", "linear")), ("cross", ()), ("cross", ("--divisor", "n"))):
            with self.subTest(command=command, args=args):
                self.assert_matches_reference(csv, command, *args)

    def test_par_against_brute_force(self):
        rng = random.Random(2009)
        rows = [ref.Row("par", "2009-05-31", "A", b, t + 1, f"n{t}", f"e{t}", s)
                for b in range(1, 41)
                for t, s in enumerate(rng.choices((-990, -620, -100, -50, 90, 100, 110, 140, 420,
                                                   430, 450, 1430, 2210), k=rng.randint(1, 14)))]
        rows += [ref.Row("par", "2009-05-31", "B", b, t + 1, f"n{t}", f"e{t}", s)
                 for b, s in ((1, 100), (2, -100)) for t in range(2)]
        write_input(self.path("par.csv"), rows)
        csvs = [self.path("par.csv"), dataset("example", "club-session.csv")]
        for scale in ("wbf", "linear"):
            self.assert_matches_reference(csvs, "score", "--datum", "par", "--scale", scale)
        results, _ = self.run_scores([self.path("par.csv")], "score", "--datum", "par")
        self.assertEqual(float(results["par", "B", "1", "1"]["datum"]), 90)  # not 100: nearer 0
        self.assertEqual(float(results["par", "B", "2", "1"]["datum"]), -90)

    def test_score_writes_archive(self):
        archive = self.archive(dataset("seeds", "nbb-board6.csv"))
        PROGRAM.ok("score", archive, "--datum", "nbb", "-o", self.path("scored.h5"))
        self.assertGreater(os.path.getsize(self.path("scored.h5")), 0)
        self.assertEqual(PROGRAM.run("info", archive).returncode, 0)


class Edges(CliTest):
    def write(self, name, rows, newline="\n"):
        path = self.path(name)
        write_input(path, rows)
        if newline != "\n":
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text.replace("\n", newline))
        return path

    def test_scale_boundaries(self):
        """Differences exactly at, and just below, every IMP boundary and half a boundary."""
        rows = [ref.Row("edges", "2024-01-01", "A", 4 * i + j + 1, t + 1, f"n{t}", f"e{t}", s)
                for i, b in enumerate(ref.WBF_MIDPOINTS)
                for j, field in enumerate(([b, -b], [b - 1, 1 - b], [b, 0], [b - 1, 0]))
                for t, s in enumerate(field)]
        csv = [self.write("edges.csv", rows)]
        for scale in ("wbf", "linear"):
            for extra in ((), ("--double",), ("--half",), ("--double", "--half")):
                self.assert_matches_reference(csv, "score", "--datum", "mean", "--scale", scale,
                                              *extra)
                self.assert_matches_reference(csv, "cross", "--scale", scale, *extra)

    def test_quoting_and_crlf(self):
        """RFC 4180: CRLF line ends, quoted commas, quotes and line breaks go through."""
        names = ("Spring, Cup", 'The "Open"', "two\nlines", "Ωmega")
        rows = [ref.Row(names[b % 4], "2024-01-01", names[(b + 1) % 4], b, t, names[t % 4] + str(t),
                        f"e{t}", 100 * t - 50 * b) for b in range(1, 5) for t in range(1, 5)]
        csv = [self.write("crlf.csv", rows, newline="\r\n")]
        self.assert_matches_reference(csv, "score", "--datum", "nbb")
        self.assert_matches_reference(csv, "cross")

    def test_columns_by_name(self):
        """Columns in another order, and an extra column, change nothing."""
        with open(dataset("example", "club-session.csv"), encoding="utf-8") as f:
            lines = [line.rstrip("\n").split(",") for line in f]
        order = [8, 7, 6, 5, 4, 3, 2, 1, 0]
        with open(self.path("shuffled.csv"), "w", encoding="utf-8") as f:
            for i, line in enumerate(lines):
                f.write(",".join([line[k] for k in order] + ["note" if i == 0 else "x"]) + "\n")
        self.assert_matches_reference([self.path("shuffled.csv")], "score", "--datum", "nbb")

    def test_fields_across_files(self):
        """A field split over two files, one of them without the adjusted column, is one field."""
        rows, _ = ref.read_csv([dataset("example", "club-session.csv")])
        write_input(self.path("odd.csv"), [r for r in rows if r.table % 2 or r.adjusted])
        write_input(self.path("even.csv"), [r for r in rows if not (r.table % 2 or r.adjusted)],
                    with_adjusted=False)
        csvs = [self.path("odd.csv"), self.path("even.csv")]
        self.assert_matches_reference(csvs, "score", "--datum", "nbb")
        self.assert_matches_reference(csvs, "cross")

    def test_uncompressed_archive_and_stdout(self):
        csv = dataset("example", "club-session.csv")
        results = []
        for options in ((), ("--no-compress",)):
            archive = self.archive(csv, options=options)
            results.append(PROGRAM.ok("score", archive, "--datum", "nbb", "--results", "-").stdout)
        self.assertEqual(results[0], results[1])
        with open(self.run_program([csv], "score", "--datum", "nbb")[0], encoding="utf-8",
                  newline="") as f:
            self.assertEqual(f.read(), results[0])


GOOD = ["event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted",
        "Club,2024-01-09,A,1,1,p1,p2,420,", "Club,2024-01-09,A,1,2,p3,p4,-50,",
        "Club,2024-01-09,A,2,1,p1,p2,,A+", "Club,2024-01-09,A,2,2,p3,p4,110,"]


def edit(line_no, text):
    """GOOD with line line_no (1 = header) replaced by text (or removed when None)."""
    lines = list(GOOD)
    lines[line_no - 1] = text
    return [x for x in lines if x is not None]


class BadInput(CliTest):
    # name: (CSV lines, line the error is on, column names of which one must be named)
    CASES = {
        "missing field": (edit(3, "Club,2024-01-09,A,1,2,p3,p4,-50"), 3, ("adjusted",)),
        "missing fields": (edit(3, "Club,2024-01-09,A,1,2,p3,p4"), 3, ("ns_score", "adjusted")),
        "extra field": (edit(3, "Club,2024-01-09,A,1,2,p3,p4,-50,,x"), 3, ()),
        "fractional score": (edit(3, "Club,2024-01-09,A,1,2,p3,p4,-50.5,"), 3, ("ns_score",)),
        "text score": (edit(3, "Club,2024-01-09,A,1,2,p3,p4,abc,"), 3, ("ns_score",)),
        "empty score": (edit(5, "Club,2024-01-09,A,2,2,p3,p4,,"), 5, ("ns_score",)),
        "unknown adjusted token": (edit(4, "Club,2024-01-09,A,2,1,p1,p2,,A++"), 4, ("adjusted",)),
        "board not a number": (edit(3, "Club,2024-01-09,A,x,2,p3,p4,-50,"), 3, ("board",)),
        "repeated table": (edit(3, "Club,2024-01-09,A,1,1,p3,p4,-50,"), 3, ()),
        "pair twice in a field": (edit(3, "Club,2024-01-09,A,1,2,p3,p1,-50,"), 3, ()),
        "NS = EW": (edit(3, "Club,2024-01-09,A,1,2,p3,p3,-50,"), 3, ("ns_pair", "ew_pair")),
        "bad date": (edit(2, "Club,2023-02-30,A,1,1,p1,p2,420,"), 2, ("date",)),
        "no leap day in 2100": (edit(5, "Club,2100-02-29,A,2,2,p3,p4,110,"), 5, ("date",)),
        "month 13": (edit(3, "Club,2024-13-01,A,1,2,p3,p4,-50,"), 3, ("date",)),
        "February 31": (edit(4, "Club,2024-02-31,A,2,1,p1,p2,,A+"), 4, ("date",)),
        "score past 64 bits": (edit(3, "Club,2024-01-09,A,1,2,p3,p4,-9223372036854775809,"), 3,
                               ("ns_score",)),
        # A row without an opponent is a sit-out only without a result (SitOuts below).
        "no opponent, a score": (edit(3, "Club,2024-01-09,A,1,2,p3,,-50,"), 3, ("ew_pair",)),
        "no opponent, an award": (edit(4, "Club,2024-01-09,A,2,1,,p2,,A+"), 4, ("ns_pair",)),
        "no pair at all": (edit(3, "Club,2024-01-09,A,1,2,,,,"), 3, ("ns_pair",)),
        "missing header column": ([GOOD[0].replace("ew_pair,", "")]
                                  + [re.sub(r",p[24],", ",", x) for x in GOOD[1:]], 1,
                                  ("ew_pair",)),
    }

    def test_bad_csv(self):
        for name, (lines, line_no, columns) in self.CASES.items():
            with self.subTest(name):
                self.assert_rejected(["good.csv", "bad.csv"], {"bad.csv": lines}, line_no, columns)

    def test_table_repeated_across_files(self):
        self.assert_rejected(["good.csv", "bad.csv"],
                             {"bad.csv": [GOOD[0], GOOD[1].replace("Club", "Other")]}, 2, ())

    def assert_rejected(self, names, bad, line_no, columns):
        """`datum import` of the named CSVs (GOOD unless in bad) exits 2, names the bad file, the
        line and one of the columns, and leaves no file behind."""
        work = tempfile.mkdtemp(prefix="case-", dir=self.dir)
        paths = [os.path.join(work, n) for n in names]
        for n, path in zip(names, paths):
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(bad.get(n, [x.replace("Club", "Other") for x in GOOD])) + "\n")
        p = PROGRAM.run("import", *paths, "-o", os.path.join(work, "out.h5"))
        where = f"{next(iter(bad))}:{line_no}"
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, re.escape(where) + r"\b")
        if columns:
            self.assertTrue(any(c in p.stderr for c in columns), (columns, p.stderr))
        self.assertEqual(sorted(os.listdir(work)), sorted(names), "files left behind")

    def test_damaged_archives(self):
        text = self.path("text.h5")
        with open(text, "w") as f:
            f.write("event,date\nnot an archive\n")
        archive = self.archive(dataset("seeds", "nbb-board6.csv"))
        truncated = self.path("truncated.h5")
        with open(archive, "rb") as f, open(truncated, "wb") as g:
            g.write(f.read()[:os.path.getsize(archive) // 2])
        out = self.path("r.csv")
        for path in (text, truncated, self.path("missing.h5")):
            for args in (("score", path, "--datum", "nbb", "--results", out),
                         ("cross", path, "--results", out), ("info", path)):
                with self.subTest(args=args):
                    p = PROGRAM.run(*args)
                    self.assertIn(p.returncode, (1, 2))
                    self.assertNotIn("HDF5-DIAG", p.stderr)
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_usage_errors(self):
        archive = self.archive(dataset("seeds", "nbb-board6.csv"))
        seed = dataset("seeds", "nbb-board6.csv")
        for args in (("score",), ("score", archive, "--datum", "nope"),
                     ("score", archive, "--no-such-option"), ("score", archive, "--trim", "x"),
                     ("cross", archive, "--divisor", "0"), ("import", seed), ("frobnicate",)):
            with self.subTest(args=args):
                p = PROGRAM.run(*args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertTrue(p.stderr.strip())

    def test_bad_option_values(self):
        """Dates that are not days of the calendar, and numbers with blanks, junk or past their
        bounds (past 64 bits too) are refused: exit 2, the option and the value named."""
        archive = self.archive(dataset("seeds", "nbb-board6.csv"))
        out = self.path("r.csv")
        cases = [("rate", archive, "--out", out, "--as-of", "2024-02-31"),
                 ("rate", archive, "--out", out, "--from", "2023-02-29"),
                 ("rate", archive, "--out", out, "--fit-until", "2024-04-31"),
                 ("rate", archive, "--out", out, "--as-of", "2024-2-01"),
                 ("rate", archive, "--out", out, "--half-life", "1e999"),
                 ("rate", archive, "--out", out, "--memory", "1.5X"),
                 ("score", archive, "--datum", "nbb", "--threads", " 2"),
                 ("score", archive, "--datum", "nbb", "--threads", "9223372036854775808"),
                 ("score", archive, "--datum", "nbb", "--trim-min", "1x"),
                 ("score", archive, "--datum", "nbb", "--trim", "5.%"),
                 ("score", archive, "--datum", "nbb", "--adjusted-imps", "3,0,-3,"),
                 ("import", out, "-o", self.path("x.h5"), "--deflate", "+"),
                 ("generate", "-o", self.path("g.h5"), "--seed", "18446744073709551616"),
                 ("generate", "-o", self.path("g.h5"), "--seed", "-1")]
        for args in cases:
            with self.subTest(args=args):
                p = PROGRAM.run(*args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"datum {args[0]}: {args[-2]} ", p.stderr)
                self.assertIn(args[-1].strip(), p.stderr)
                self.assertFalse(os.path.exists(out) or os.path.exists(self.path("g.h5")))
        p = PROGRAM.run("rate", archive, "--out", out, "--as-of", "2024-02-31")
        self.assertIn("--as-of takes a date YYYY-MM-DD, not '2024-02-31'", p.stderr)
        # The last day of February of a leap year is a date.
        PROGRAM.ok("rate", archive, "--out", out, "--as-of", "2024-02-29")


class HelpAndVersion(unittest.TestCase):
    def test_help_and_version(self):
        for args in (("--help",), ("score", "--help"), ("cross", "--help"), ("import", "--help"),
                     ("--version",)):
            with self.subTest(args=args):
                p = PROGRAM.run(*args)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertTrue(p.stdout.strip())
        self.assertRegex(PROGRAM.run("--version").stdout, r"\d+\.\d+")
        self.assertIn("--datum", PROGRAM.run("score", "--help").stdout)


class SitOuts(CliTest):
    def test_sitouts_skipped_and_counted(self):
        """Rows with one pair and no opponent and no result are skipped, their count on stderr;
        the other rows score as if the sit-outs were not in the file, and each pair's boards
        count only the boards it played."""
        sitouts = ["Club,2024-01-09,A,1,3,p5,,,", "Club,2024-01-09,A,2,3,,p5,,",
                   "Club,2024-01-09,A,3,1,p1,,,"]
        with_sitouts, without = self.path("with.csv"), self.path("without.csv")
        with open(with_sitouts, "w") as f:
            f.write("\n".join(GOOD[:2] + sitouts[:1] + GOOD[2:] + sitouts[1:]) + "\n")
        with open(without, "w") as f:
            f.write("\n".join(GOOD) + "\n")
        p = PROGRAM.ok("import", with_sitouts, "-o", self.path("with.h5"))
        self.assertIn("skipped 3 sit-out rows", p.stderr)
        self.assertIn("imported 4 results in 2 board fields, 4 pairs", p.stdout)
        q = PROGRAM.ok("import", without, "-o", self.path("without.h5"))
        self.assertEqual(q.stderr, "")
        pairs = {}
        for name in ("with", "without"):
            out = self.path(name + "_pairs.csv")
            PROGRAM.ok("score", self.path(name + ".h5"), "--datum", "mean", "--pairs", out)
            pairs[name] = open(out).read()
        self.assertEqual(pairs["with"], pairs["without"])
        header, lines = read_table(self.path("with_pairs.csv"))
        self.assertEqual({line[0]: line[1] for line in lines},
                         {"p1": "2", "p2": "2", "p3": "2", "p4": "2"})


def main():
    global PROGRAM, SOURCE
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", default=SOURCE)
    a, rest = ap.parse_known_args()
    PROGRAM, SOURCE = Program(a.datum), a.source
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
