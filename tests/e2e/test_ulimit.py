#!/usr/bin/env python3
"""Out of memory end to end: `datum generate`, `score -o`, `cross -o`, `rate`, `export`, `import`
(with the default memory budget, and with a small one that sorts in runs), `import --append`
(also merging segments) and `compact` run under address space limits (ulimit -v, RLIMIT_AS) from far too small to enough, then at
1 MiB steps (at most FINE_STEPS runs) between the last limit refused and the first that works.
Every run must end with exit 0 and its outputs written, or with exit 1, a message saying
"out of memory" and no output left behind: never a signal, never exit 2 (a damaged archive, a bad input), never a partial file.
HDF5, libgomp and CHOLMOD run out too under such limits, not only datum's own allocations.

The datum given must not be built with AddressSanitizer, which reserves terabytes of shadow
memory and cannot start under a limit (tests/e2e/ulimit.cmake builds a plain one for the
sanitized test build).

    test_ulimit.py --datum PATH [--keep DIR] [--only NAME]
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile

MIB = 1 << 20
# Above the least limit under which the program starts at all (the loader maps its shared
# libraries first: below that it is the loader that fails, exit 127): from too small for any
# work to enough for every command.
STEPS_MIB = [0, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256, 512, 1024, 2048]
# Runs between the grid's last refusal and its first success, 1 MiB apart while the gap allows.
FINE_STEPS = 48

def limited(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return set_limit


def commands(archive, rows):
    """Each command with the outputs it writes (relative names, in the run's own folder)."""
    return [
        ("export", ["export", archive, "-o", "rows.csv", "--threads", "2"], ["rows.csv"]),
        ("import", ["import", rows, "-o", "imp.h5", "--threads", "2"], ["imp.h5"]),
        ("import in runs", ["import", rows, "-o", "imp.h5", "--memory", "1M", "--threads", "2"],
         ["imp.h5"]),
        ("generate", ["generate", "-o", "gen.h5", "--clubs", "2", "--years", "1", "--threads", "2"],
         ["gen.h5"]),
        ("score", ["score", archive, "--datum", "nbb", "-o", "score.h5", "--threads", "2"],
         ["score.h5"]),
        ("cross", ["cross", archive, "-o", "cross.h5", "--threads", "2"], ["cross.h5"]),
        ("rate direct", ["rate", archive, "--solver", "direct", "--out", "rate.csv",
                         "--report", "rate.json", "-o", "rate.h5", "--threads", "2"],
         ["rate.csv", "rate.json", "rate.h5"]),
        ("rate iterative", ["rate", archive, "--solver", "iterative", "--block-size", "64",
                            "--out", "rate.csv", "--threads", "2"], ["rate.csv"]),
        # Into a copy of a small archive (append.h5, put in the run's folder first): appended
        # (a new root and its folder of parts), or left byte for byte as it was.
        ("import --append", ["import", "--append", os.path.join(os.path.dirname(archive), "week.csv"),
                             "-o", "append.h5"], ["append.h5", "append.h5.d"]),
        # Into a copy of an archive of 4 segments (seg.h5 and its folder): compacted, or its 4
        # segments and the new one merged into one; or left byte for byte as it was.
        ("compact", ["compact", SEG_BASE, "--threads", "2"], [SEG_BASE]),
        ("import --append, merging", ["import", "--append",
                                      os.path.join(os.path.dirname(archive), "week.csv"), "-o",
                                      SEG_BASE, "--max-segments", "1"], [SEG_BASE, SEG_BASE + ".d"]),
    ]


APPEND_BASE = "append.h5"
SEG_BASE = "seg.h5"


def week_csv(path, name="Week"):
    """A week of new events (names the generated archive does not have), new pairs among them."""
    with open(path, "w") as f:
        f.write("event,date,section,board,table,ns_pair,ew_pair,ns_score\n")
        for e in range(20):
            for board in range(1, 25):
                for t in range(1, 8):
                    f.write(f"{name} {e:02d},2030-01-0{1 + e % 7},,{board},{t},W{e}-{t},"
                            f"W{e}-{(t + board) % 7 + 8},{(board * t * 37) % 900 - 450}\n")


def run_limited(datum, args, folder, limit):
    return subprocess.run([datum] + args, cwd=folder, preexec_fn=limited(limit),
                          capture_output=True, text=True, timeout=600)


def least_limit(datum):
    """The least limit (MiB) under which `datum --version` runs."""
    for mib in range(8, 4096, 4):
        p = subprocess.run([datum, "--version"], preexec_fn=limited(mib * MIB), capture_output=True)
        if p.returncode == 0:
            return mib
    sys.exit("datum --version does not run under 4 GiB: built with AddressSanitizer?")


def snapshot(folder):
    """{path: bytes} of every file under folder."""
    out = {}
    for top, _, files in os.walk(folder):
        for n in files:
            with open(os.path.join(top, n), "rb") as f:
                out[os.path.relpath(os.path.join(top, n), folder)] = f.read()
    return out


def check(name, limit_mib, p, folder, outputs, before=None):
    """None if the run ended as it must, else what went wrong. before: the snapshot of the
    folder with the archive an append or a compaction was given (to be left as it was on
    failure)."""
    left = sorted(os.listdir(folder))
    if before and p.returncode != 0:
        if snapshot(folder) != before:
            return f"{name} under {limit_mib} MiB: exit {p.returncode} changed the archive"
        left = []
    where = f"{name} under {limit_mib} MiB"
    if p.returncode == 0:
        missing = [o for o in outputs if o not in left]
        return f"{where}: exit 0 without {missing}" if missing else None
    if p.returncode < 0:
        return f"{where}: killed by signal {-p.returncode}: {p.stderr.strip()[-400:]}"
    if p.returncode != 1:
        return f"{where}: exit {p.returncode}: {p.stderr.strip()[-400:]}"
    if "out of memory" not in p.stderr:
        return f"{where}: exit 1 without 'out of memory': {p.stderr.strip()[-400:]}"
    if left:
        return f"{where}: exit 1 left {left}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--keep", help="folder for the runs, kept (default: a temporary one)")
    ap.add_argument("--only", help="only the commands whose name contains this")
    args = ap.parse_args()
    datum = os.path.abspath(args.datum)
    top = args.keep or tempfile.mkdtemp(prefix="datum-ulimit-")
    os.makedirs(top, exist_ok=True)
    archive = os.path.join(top, "input.h5")
    subprocess.run([datum, "generate", "-o", archive, "--clubs", "6", "--years", "1"], check=True,
                   capture_output=True)
    base = os.path.join(top, "base.h5")
    subprocess.run([datum, "generate", "-o", base, "--clubs", "2", "--years", "1"], check=True,
                   capture_output=True)
    week_csv(os.path.join(top, "week.csv"))
    segmented = os.path.join(top, SEG_BASE)
    shutil.copy(base, segmented)
    for k in range(4):
        seg_week = os.path.join(top, f"seg-{k}.csv")
        week_csv(seg_week, f"Seg {k}")
        subprocess.run([datum, "import", "--append", seg_week, "-o", segmented, "--max-segments",
                        "0"], check=True, capture_output=True)
    rows = os.path.join(top, "rows.csv")
    subprocess.run([datum, "export", archive, "-o", rows], check=True, capture_output=True)
    start = least_limit(datum)
    limits = [start + step for step in STEPS_MIB]
    problems, summary = [], [f"datum starts under {start} MiB"]
    for name, cmd, outputs in commands(archive, rows):
        if args.only and args.only not in name:
            continue
        ok_from, refused, last_refused = None, 0, None

        def one_run(mib):
            folder = os.path.join(top, name.replace(" ", "-") + f"-{mib}")
            os.makedirs(folder)
            before = None
            if APPEND_BASE in outputs:
                shutil.copy(base, os.path.join(folder, APPEND_BASE))
            if SEG_BASE in outputs:
                shutil.copy(segmented, os.path.join(folder, SEG_BASE))
                shutil.copytree(segmented + ".d", os.path.join(folder, SEG_BASE + ".d"))
            if APPEND_BASE in outputs or SEG_BASE in outputs:
                before = snapshot(folder)
            p = run_limited(datum, cmd, folder, mib * MIB)
            problem = check(name, mib, p, folder, outputs, before)
            if problem:
                problems.append(problem)
            return p.returncode if not problem else None

        for mib in limits:
            rc = one_run(mib)
            if rc == 0 and ok_from is None:
                ok_from = mib
            elif rc == 1:
                refused += 1
                if ok_from is None:
                    last_refused = mib
        # Failures cluster where memory runs out late, inside HDF5's or libgomp's own work (a
        # crash at 119-130 MiB once hid between this grid's 96 and 128): sweep that gap finely.
        if ok_from is not None and last_refused is not None:
            gap = ok_from - last_refused
            stride = max(1, -(-gap // FINE_STEPS))
            least = ok_from
            for mib in range(last_refused + stride, ok_from, stride):
                rc = one_run(mib)
                if rc == 1:
                    refused += 1
                elif rc == 0:
                    least = min(least, mib)
            ok_from = least
        summary.append(f"{name}: out of memory under {refused} limits, runs from {ok_from} MiB")
        if ok_from is None:
            problems.append(f"{name}: no limit up to {limits[-1]} MiB was enough")
        if refused == 0:
            problems.append(f"{name}: no limit was too small: the test saw no out of memory")
    print("\n".join(summary))
    if not args.keep:
        shutil.rmtree(top)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
