#!/usr/bin/env python3
"""`datum export` and the bounded, order-free import, end to end.

A generated archive (teams, adjusted results) is exported and imported back: the CSV written again
is the same text, the archive the same datasets (h5py: values, types, chunks, attributes but the
creation time), and `datum score` gives the generated archive's pair totals. The same rows,
shuffled (seeded), split into 3 files, or into thousands of small files in a directory (and the
same directory listed with --list in reverse order), imported with the least memory budget (many
sorted runs) and 2 threads, give the same archive; no scratch file is left, on success or failure.
The export filters (--event, --from, --to) are checked against the rows selected here from the
full export. A bad cell in a shuffled file is named with its file, line and column. The real USEBIO
and PBN files of ../shared/datasets/real (skipped with a message when absent) are recognised by
content: each imports as with its --format forced, and a directory of them as their list.

    test_import_export.py --datum PATH [--data DIR] [--seed N]
"""
import argparse
import csv
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from e2e_common import Program


class Checks:
    """check(condition, message): prints each failure; finish() is the exit status."""

    def __init__(self):
        self.failures = 0

    def __call__(self, ok, message):
        if not ok:
            self.failures += 1
            print("FAIL:", message)

    def finish(self):
        print("ok" if not self.failures else f"{self.failures} failures")
        return 1 if self.failures else 0


def archive_content(path):
    """Every dataset (values, dtype, chunks, attributes) and the root attributes but `created`."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = (obj[()], obj.dtype.str, obj.chunks, sorted(obj.attrs.items()))
        f.visititems(visit)
        out["/"] = sorted((k, str(v)) for k, v in f.attrs.items() if k != "created")
    return out


def same_archives(a, b):
    """'' if the two archives hold the same, else what differs."""
    x, y = archive_content(a), archive_content(b)
    if x.keys() != y.keys():
        return f"datasets {sorted(x.keys() ^ y.keys())}"
    for k in x:
        if k == "/":
            if x[k] != y[k]:
                return f"root attributes {x[k]} != {y[k]}"
            continue
        (va, ta, ca, aa), (vb, tb, cb, ab) = x[k], y[k]
        if ta != tb or ca != cb or str(aa) != str(ab):
            return f"{k}: type/chunks/attributes {ta} {ca} != {tb} {cb}"
        if va.dtype.kind == "f":
            if not np.array_equal(va, vb, equal_nan=True):
                return f"{k}: values"
        elif not np.array_equal(va, vb):
            return f"{k}: values"
    return ""


def write_rows(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def leftovers(folder):
    return [n for n in os.listdir(folder) if ".import-" in n or ".tmp-" in n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--data")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    datum, check = Program(args.datum), Checks()
    rng = random.Random(args.seed)
    print(f"seed {args.seed} (--seed to replay)")
    tmp = tempfile.mkdtemp(prefix="datum-import-")
    p = lambda *names: os.path.join(tmp, *names)  # noqa: E731
    try:
        datum.ok("generate", "-o", p("gen.h5"), "--clubs", "2", "--years", "1", "--seed", "3")
        datum.ok("export", p("gen.h5"), "-o", p("rows.csv"))
        datum.ok("import", p("rows.csv"), "-o", p("a.h5"))
        datum.ok("export", p("a.h5"), "-o", p("rows2.csv"), "--threads", "2")
        check(open(p("rows.csv"), "rb").read() == open(p("rows2.csv"), "rb").read(),
              "export of the import of an export: the same text")
        datum.ok("import", p("rows2.csv"), "-o", p("b.h5"))
        diff = same_archives(p("a.h5"), p("b.h5"))
        check(not diff, f"import(export(import(CSV))) == import(CSV): {diff}")
        with open(p("rows.csv"), newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        header, rows = table[0], table[1:]
        check(header[-3:] == ["ns_team", "ew_team", "match"] and "adjusted" in header,
              f"teams and adjusted columns exported: {header}")
        check(any(r[-1] for r in rows) and any(not r[-1] for r in rows),
              "results inside and outside teams matches")

        # The generated archive and its re-import score alike.
        for name in ("gen", "a"):
            datum.ok("score", p(name + ".h5"), "--datum", "nbb", "--pairs", p(name + "-pairs.csv"),
                     "--results", p(name + "-results.csv"))
        check(open(p("gen-pairs.csv")).read() == open(p("a-pairs.csv")).read(),
              "pair totals of the generated archive and of its export imported")
        check(open(p("gen-results.csv")).read() == open(p("a-results.csv")).read(),
              "per-result IMPs of the generated archive and of its export imported")

        # Shuffled, split into 3 files, least budget, 2 threads.
        shuffled = rows[:]
        rng.shuffle(shuffled)
        parts = [shuffled[i * len(rows) // 3:(i + 1) * len(rows) // 3] for i in range(3)]
        for i, part in enumerate(parts):
            write_rows(p(f"part{i}.csv"), header, part)
        r = datum.ok("import", p("part0.csv"), p("part1.csv"), p("part2.csv"), "-o", p("c.h5"),
                     "--memory", "64K", "--threads", "2")
        check("sorted in" in r.stdout, f"the least budget makes runs: {r.stdout.strip()}")
        diff = same_archives(p("a.h5"), p("c.h5"))
        check(not diff, f"shuffled, 3 files, runs, 2 threads == one file: {diff}")
        check(not leftovers(tmp), f"no scratch file left: {leftovers(tmp)}")

        # Thousands of small files: one per (event, section, board) field, in a directory.
        os.mkdir(p("many"))
        fields = {}
        for row in shuffled:
            fields.setdefault((row[0], row[2], row[3]), []).append(row)
        names = []
        for i, key in enumerate(sorted(fields)):
            names.append(p("many", f"f{i:06d}.csv"))
            write_rows(names[-1], header, fields[key])
        check(len(names) >= 1000, f"{len(names)} small files")
        datum.ok("import", p("many"), "-o", p("d.h5"), "--threads", "2", "--memory", "1M")
        diff = same_archives(p("a.h5"), p("d.h5"))
        check(not diff, f"a directory of {len(names)} files == one file: {diff}")
        with open(p("list.txt"), "w") as f:
            f.write("# the same files, backwards\n" + "\n".join(reversed(names)) + "\n")
        datum.ok("import", "--list", p("list.txt"), "-o", p("e.h5"))
        diff = same_archives(p("a.h5"), p("e.h5"))
        check(not diff, f"--list, reversed == one file: {diff}")

        # A bad cell, then a clash between two files: named, nothing left behind.
        bad = [list(r) for r in parts[1]]
        bad[17][header.index("board")] = "x7"
        write_rows(p("bad.csv"), header, bad)
        r = datum.run("import", p("part0.csv"), p("bad.csv"), "-o", p("f.h5"), "--memory", "64K")
        want = f"{p('bad.csv')}:19: column board: \"x7\" is not an integer"
        check(r.returncode == 2 and want in r.stderr, f"bad cell: {r.returncode} {r.stderr}")
        write_rows(p("clash.csv"), header, parts[0][5:6])
        r = datum.run("import", p("part0.csv"), p("part1.csv"), p("clash.csv"), "-o", p("f.h5"),
                      "--memory", "64K", "--threads", "2")
        check(r.returncode == 2 and f"{p('clash.csv')}:2: column table:" in r.stderr
              and "already appears at " + p("part0.csv") + ":7" in r.stderr,
              f"clash across files and runs: {r.returncode} {r.stderr}")
        check(not os.path.exists(p("f.h5")) and not leftovers(tmp),
              f"nothing left after the failures: {leftovers(tmp)}")

        # Export filters, against the rows selected here.
        events = sorted({r[0] for r in rows})
        pick = [events[1], events[-1]]
        datum.ok("export", p("a.h5"), "-o", p("ev.csv"), "--event", pick[0], "--event", pick[1])
        want = [r for r in rows if r[0] in pick]
        got = list(csv.reader(open(p("ev.csv"), newline="", encoding="utf-8")))[1:]
        check(got == want, f"--event: {len(got)} rows, {len(want)} expected")
        dates = sorted({r[1] for r in rows})
        lo, hi = dates[len(dates) // 3], dates[2 * len(dates) // 3]
        datum.ok("export", p("a.h5"), "-o", p("dt.csv"), "--from", lo, "--to", hi)
        want = [r for r in rows if lo <= r[1] <= hi]
        got = list(csv.reader(open(p("dt.csv"), newline="", encoding="utf-8")))[1:]
        check(got == want and 0 < len(got) < len(rows), f"--from/--to: {len(got)} {len(want)}")
        r = datum.run("export", p("a.h5"), "-o", p("none.csv"), "--event", "No such event")
        check(r.returncode == 2 and "no event named" in r.stderr and not os.path.exists(p("none.csv")),
              f"unknown event: {r.returncode} {r.stderr}")
        r = datum.run("export", p("a.h5"), "-o", p("none.csv"), "--from", "2024-02-30")
        check(r.returncode == 2 and "--from takes a date" in r.stderr, f"bad date: {r.stderr}")

        # Real files, recognised by content.
        if not args.data or not os.path.isdir(args.data):
            print("real files absent: skipped")
        else:
            os.mkdir(p("real"))
            real = []
            for root, _, files in os.walk(args.data):
                for n in sorted(files):
                    if n.endswith((".xml", ".pbn")):
                        real.append(p("real", f"{len(real):02d}-{n}"))
                        shutil.copy(os.path.join(root, n), real[-1])
            real.sort()
            together = []
            for path in real:
                forced = "usebio" if path.endswith(".xml") else "pbn"
                auto = datum.run("import", path, "-o", p("auto.h5"))
                byformat = datum.run("import", "--format", forced, path, "-o", p("forced.h5"))
                said = [re.sub(r" \(\d+ scores computed, \d+ warnings\)| into .*", "", r.stdout)
                        for r in (auto, byformat)]
                check(auto.returncode == byformat.returncode and said[0] == said[1],
                      f"{os.path.basename(path)}: auto as --format {forced}: {said} {auto.stderr}")
                if auto.returncode == 0:
                    diff = same_archives(p("auto.h5"), p("forced.h5"))
                    check(not diff, f"{os.path.basename(path)}: auto == --format {forced}: {diff}")
                    if datum.run("import", *together, path, "-o", p("t.h5")).returncode == 0:
                        together.append(path)
            for path in real:
                if path not in together:
                    os.remove(path)
            check(len(together) >= 10, f"{len(together)} real files import together")
            datum.ok("import", p("real"), "-o", p("r1.h5"), "--threads", "2")
            with open(p("real.txt"), "w") as f:
                f.write("\n".join(reversed(together)) + "\n")
            datum.ok("import", "--list", p("real.txt"), "-o", p("r2.h5"), "--memory", "64K")
            diff = same_archives(p("r1.h5"), p("r2.h5"))
            check(not diff, f"the real files: a directory == their list reversed, runs: {diff}")
    finally:
        shutil.rmtree(tmp)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
