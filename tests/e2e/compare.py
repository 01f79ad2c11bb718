#!/usr/bin/env python3
"""Randomised end-to-end comparison of `datum` with the reference implementation.

Generates a seeded random archive (printed seed; rerun with --seed), imports it with the program,
runs `datum score` for every preset x scale x double x half plus general-recipe variants, and
`datum cross` for both scales and every divisor, and compares every output value with
tests/reference/datum_ref.py: exactly for the wbf scale and every datum, within 1e-12 (relative,
absolute below 1) for the linear scale, pair totals within 1e-9. Also checks NS + EW = 0, the
per-field zero sums, that the pairs file adds up the results file, the archive order of the rows,
that --threads 1 and --threads 2 write identical files, and that on an archive without adjusted
rows `--divisor tables` writes the files of `--divisor n-1`. For each disagreement it prints a
minimal reproduction: the CSV of the first field concerned and the commands.

usage: compare.py --datum BUILD/cli/datum [--seed N] [--rows N | --big] [--keep DIR]
"""
import argparse
import filecmp
import os
import random
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
import itertools
from dataclasses import dataclass

from e2e_common import (Checker, Program, archive_order_problem, check_output, input_text, ref,
                        reference_answer, write_input)

# ---------------------------------------------------------------------------------------------
# Random archive

MENU = (50, 80, 90, 100, 110, 120, 130, 140, 150, 170, 180, 200, 300, 400, 420, 430, 450, 460,
        480, 490, 500, 510, 590, 600, 620, 630, 650, 660, 670, 690, 710, 790, 800, 920, 980, 990,
        1100, 1370, 1400, 1430, 1440, 1460, 1470, 1510, 1520, 1700, 2140, 2210, 2220, 2470)
EVENTS = ("Monday Butler", "Spring, Pairs Cup", 'Café "Zuid" Open', "Ωmega simultaneous",
          "Z teams", "club 2", "club 10")
SECTIONS = ("A", "B", "Zuid", "Nord, Est", "10", "9")
PAIR_POOL = tuple(str(i) for i in range(1, 601)) + ("Smith, J & Jones, K", "Müller-Weiß",
                                                    'O\'Brien "Jr"', "pair 7", "Ñ-1")
SIZE_CLASSES = (((1, 1), 7), ((2, 2), 10), ((3, 5), 20), ((6, 12), 30), ((13, 40), 28),
                ((90, 110), 5))  # ((fewest, most) tables, weight)


def board_scores(rng, n):
    """n NS scores of one board: a few likely results, near misses, ties and rare outliers."""
    anchors = [rng.choice((1, 1, -1)) * rng.choice(MENU) for _ in range(rng.randint(1, 4))]
    out = []
    for _ in range(n):
        roll = rng.random()
        s = anchors[min(int(rng.expovariate(1.2)), len(anchors) - 1)]
        if roll < 0.15:
            s += rng.choice((10, 20, 30, -10, -20, -30))
        elif roll < 0.22:
            s = rng.choice((-50, -100, -200, -300, -500, -800))
        elif roll < 0.27:
            s = rng.choice((1, -1)) * rng.choice(MENU)
        elif roll < 0.275:
            s = rng.randint(-3000, 3000)  # not a bridge score, but an integer the format allows
        out.append(s)
    return out


def random_archive(rng, target_rows):
    """Rows of a random archive, in no particular order: random events, one online event whose
    fields are larger than 128 tables, and an event of adjusted results only."""
    rows = random_section(rng, "Online", "2024-04-01", "", tables=rng.randint(129, 260), boards=3)
    for e in itertools.count():
        if len(rows) >= target_rows:
            break
        event = EVENTS[e % len(EVENTS)] + ("" if e < len(EVENTS) else f" #{e}")
        date = f"20{rng.randint(20, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        for section in rng.sample(SECTIONS, rng.randint(1, 3)):
            rows += random_section(rng, event, date, section)
    rows += adjusted_only_fields()
    rng.shuffle(rows)
    return rows


def random_section(rng, event, date, section, tables=None, boards=None):
    (lo, hi), = rng.choices([c for c, _ in SIZE_CLASSES], [w for _, w in SIZE_CLASSES])
    tables = tables or rng.randint(lo, hi)
    boards = boards or rng.randint(1, max(1, min(27, 900 // tables)))
    first_board, first_table = rng.choice((1, 1, 13, 25)), rng.choice((0, 1, 1, 11))
    players = rng.sample(PAIR_POOL, 2 * tables)
    adjusted_rate = rng.choice((0, 0, 0.02, 0.06))
    rows = []
    for board in range(first_board, first_board + boards):
        n = max(1, tables - (rng.randint(0, 2) if tables > 2 and rng.random() < 0.3 else 0))
        all_adjusted = rng.random() < 0.01
        rng.shuffle(players)
        for t, s in enumerate(board_scores(rng, n)):
            adjusted = (rng.choice(ref.ADJUSTED_TOKENS)
                        if all_adjusted or rng.random() < adjusted_rate else "")
            score = s if not adjusted or rng.random() < 0.3 else None
            rows.append(ref.Row(event, date, section, board, first_table + t, players[2 * t],
                                players[2 * t + 1], score, adjusted))
    return rows


def adjusted_only_fields():
    """A small event of fields of 1 to 5 tables with adjusted rows only, using every token."""
    tables = [(b, t) for b in (1, 2, 3, 4, 5) for t in range(1, b + 1)]
    tokens = ref.ADJUSTED_TOKENS
    assert len(tables) >= len(tokens)
    return [ref.Row("Adjusted only", "2024-02-29", "A", b, t, f"adj-{b}-{t}n", f"adj-{b}-{t}e",
                    None, tokens[i % len(tokens)]) for i, (b, t) in enumerate(tables)]


def short_fields(rows):
    """How many fields have an adjusted row and at least 2 real results: those where
    `--divisor tables` is not n-1."""
    tables = Counter(r.field for r in rows)
    played = Counter(r.field for r in rows if not r.adjusted)
    return sum(2 <= played[f] < t for f, t in tables.items())


def write_archive_csvs(rows, directory, parts, with_adjusted=True):
    """Splits rows by event into parts CSV files; returns their paths."""
    events = sorted({r.event for r in rows})
    paths = [os.path.join(directory, f"part{i}.csv") for i in range(parts)]
    for i, path in enumerate(paths):
        write_input(path, [r for r in rows if events.index(r.event) % parts == i], with_adjusted)
    return paths


# ---------------------------------------------------------------------------------------------
# Runs

SCALE_ARGS = [["--scale", s] + d + h for s, d, h in
              itertools.product(("wbf", "linear"), ([], ["--double"]), ([], ["--half"]))]
VARIANTS = [["--round", m] for m in ("toward-zero", "away", "up", "even", "truncate")] + [
    ["--round", "even", "--round-unit", "100"],
    ["--trim", "2"], ["--trim", "tenth"], ["--trim", "5%"],
    ["--trim", "12.5%", "--trim-round", "floor"],
    ["--trim", "20%", "--trim-round", "nearest"], ["--trim", "tenth", "--trim-min", "4"],
    ["--center", "median-low"], ["--center", "median-high"], ["--center", "median"],
    ["--center", "median", "--trim", "1", "--round", "up"],
    ["--small-max", "7", "--middle-weight", "3"], ["--center", "par"],
]
PRESET_VARIANTS = [["--datum", "nbb", "--middle-weight", "3"],
                   ["--datum", "nbb", "--adjusted-imps", "2,0,-2"],
                   ["--datum", "bastille", "--round", "toward-zero", "--scale", "linear"],
                   ["--datum", "acbl", "--trim-round", "floor"],
                   ["--datum", "bridgewx", "--trim-min", "3", "--round", "even"]]
CROSS_RUNS = [["--scale", s, "--divisor", d]
              for s in ("wbf", "linear") for d in ref.DIVISORS] + [
    ["--scale", s, "--double", "--half"] for s in ("wbf", "linear")]


@dataclass
class Run:
    command: str  # score | cross
    args: list
    threads_check: bool = False


def all_runs():
    runs = [Run("score", ["--datum", p] + s, threads_check=(s == SCALE_ARGS[0]))
            for p in ref.PRESETS for s in SCALE_ARGS]
    runs += [Run("score", ["--datum", "mean"] + v) for v in VARIANTS]
    runs += [Run("score", v, threads_check=True) for v in PRESET_VARIANTS]
    runs += [Run("cross", a, threads_check=True) for a in CROSS_RUNS]
    return runs


class Reference:
    """The reference's answers, with datums cached by recipe (they do not depend on the scale)."""

    def __init__(self, rows):
        self.rows = ref.sort_rows(rows)
        self.datums = {}

    def answer(self, run):
        """(options, (results, pair totals)) of the reference for run."""
        o = ref.options(run.command, run.args)
        if run.command == "cross":
            return o, reference_answer("cross", o, self.rows)
        if o.recipe not in self.datums:
            self.datums[o.recipe] = ref.field_datums(self.rows, o.recipe)
        return o, reference_answer("score", o, self.rows, self.datums[o.recipe])


def program_run(prog, archive, run, out, threads):
    """Runs the program; returns (process, results path, pairs path)."""
    results, pairs = (os.path.join(out, f"{threads}.{n}.csv") for n in ("results", "pairs"))
    proc = prog.run(run.command, archive, *run.args, "--threads", threads, "--results", results,
                    "--pairs", pairs)
    return proc, results, pairs


def check_run(reference, run, has_adjusted, proc_out):
    """Disagreements of one run's output with the reference, and with the invariants."""
    proc, results, pairs = proc_out
    ck = Checker()
    if proc.returncode != 0:
        ck.add(None, f"exit {proc.returncode}: {proc.stderr.strip()[:500]}")
        return ck
    o, answer = reference.answer(run)
    got = check_output(ck, run.command, o, answer, results, pairs, has_adjusted)
    order = archive_order_problem(got)
    if order:
        ck.add(None, f"results not in archive order: {order}")
    return ck


def report(prog, run, ck, reference, with_adjusted, limit=12):
    """Prints a run's disagreements and a reproduction from the first field concerned."""
    print(f"FAIL  datum {run.command} ARCHIVE {' '.join(run.args)}: {len(ck.problems)} problems")
    for _, message in ck.problems[:limit]:
        print(f"    {message}")
    field = next((f for f, _ in ck.problems if f is not None), None)
    if field is not None:
        rows = [r for r in reference.rows if r.field == field]
        print("  reproduce with repro.csv:\n" + "".join(
            "    " + line + "\n" for line in input_text(rows, with_adjusted).splitlines()))
        print(f"    {prog.command('import', 'repro.csv', '-o', 'repro.h5')}")
        print(f"    {prog.command(run.command, 'repro.h5', *run.args, '--results', 'out.csv')}")


def compare_archive(prog, rows, directory, parts, with_adjusted, runs, identical=()):
    """Imports rows (split into parts CSVs), runs and checks every run, and that the runs of each
    (i, j) of identical write identical files; returns (checks, failures)."""
    os.makedirs(directory, exist_ok=True)
    archive = os.path.join(directory, "archive.h5")
    prog.ok("import", *write_archive_csvs(rows, directory, parts, with_adjusted), "-o", archive)
    info = prog.run("info", archive)
    failures = 0 if info.returncode == 0 and info.stdout.strip() else 1
    if failures:
        print(f"FAIL  datum info: exit {info.returncode}, stdout {info.stdout!r}")
    reference = Reference(rows)
    jobs = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for i, run in enumerate(runs):
            out = os.path.join(directory, f"run{i}")
            os.makedirs(out, exist_ok=True)
            jobs.append((run, out, [pool.submit(program_run, prog, archive, run, out, t)
                                    for t in (("2", "1") if run.threads_check else ("2",))]))
        for run, out, futures in jobs:
            outputs = [f.result() for f in futures]
            ck = check_run(reference, run, with_adjusted, outputs[0])
            for proc, *files in outputs[1:]:  # --threads 1
                if proc.returncode != 0:
                    ck.add(None, f"--threads 1: exit {proc.returncode}: {proc.stderr[:500]}")
                elif not all(map(filecmp.cmp, outputs[0][1:], files, (False, False))):
                    ck.add(None, "--threads 1 and --threads 2 write different files")
            if ck.problems:
                failures += 1
                report(prog, run, ck, reference, with_adjusted)
            else:
                notes = f" ({'; '.join(ck.notes)})" if ck.notes else ""
                print(f"ok    datum {run.command} ARCHIVE {' '.join(run.args)}{notes}")
    for i, j in identical:
        files = [os.path.join(directory, f"run{k}", f"2.{n}.csv")
                 for n in ("results", "pairs") for k in (i, j)]
        same = all(filecmp.cmp(a, b, False) for a, b in zip(files[::2], files[1::2]))
        failures += not same
        a, b = (" ".join(runs[k].args) or "(defaults)" for k in (i, j))
        print(f"{'ok  ' if same else 'FAIL'}  datum cross {a} and {b} write "
              f"{'' if same else 'not '}the same files")
    return len(runs) + 1 + len(identical), failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datum", required=True, help="the program under test")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--big", action="store_true", help="a larger run: 300,000 rows")
    ap.add_argument("--keep", help="keep the work files in this directory")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(10 ** 9)
    rows_wanted = 300000 if a.big else a.rows
    print(f"seed {seed} (rerun with --seed {seed}), about {rows_wanted} rows", flush=True)
    rng = random.Random(seed)
    prog = Program(a.datum)
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="datum-e2e-") as tmp:
        work = a.keep or tmp
        rows = random_archive(rng, rows_wanted)
        plain = [r for r in random_archive(rng, max(200, rows_wanted // 20)) if not r.adjusted]
        plain_runs = [Run("score", ["--datum", "nbb"]),
                      Run("score", ["--datum", "bastille", "--scale", "linear"]), Run("cross", []),
                      Run("cross", ["--divisor", "tables"])]
        # Every table played: the tables divisor is n-1, bit for bit.
        counts = [compare_archive(prog, rows, os.path.join(work, "main"), 3, True, all_runs()),
                  compare_archive(prog, plain, os.path.join(work, "plain"), 1, False, plain_runs,
                                  identical=[(2, 3)])]
    short = short_fields(rows)
    print(f"{'ok  ' if short else 'FAIL'}  {short} fields with an adjusted row and 2 or more real "
          "results (--divisor tables)")
    counts.append((1, int(not short)))
    checks, failures = (sum(c) for c in zip(*counts))
    print(f"seed {seed}: {len(rows)} + {len(plain)} rows checked in {time.time() - start:.0f} s")
    print(f"compare: {checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
