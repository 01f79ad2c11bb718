#!/usr/bin/env python3
"""`datum import --append` end to end (issue 13.3, docs/archive-format.md "Format version 2").

- An archive made by an import and several appends (new events whose names sort before, between
  and after the archive's, new pairs, an adjusted column that only a later file has, sections
  across the field) scores, cross-IMPs, matchpoints and rates exactly like a fresh import of all
  the rows: the CSV outputs are byte for byte the same, and so are the HDF5 outputs' datasets
  (with h5py, when there is one); `datum info` says the same but for the parts.
- PBN appends keep the deals: across the field, as a fresh import of both files. A CSV archive
  with a PBN segment scores each event as its own file alone would.
- A row of an event already in the archive (an exact collision, or new boards of the same event
  name) is refused with its FILE:LINE, and the archive is left as it was (same bytes).
- kill -9 at random moments of appends, and at each phase of one (DATUM_TEST_APPEND_KILL, the
  library's test hook): the archive is then exactly the old one (`datum info` and a score's
  pairs) or the fully appended one, and the next append cleans what the killed one left.

    test_append.py --datum PATH [--kills N]
"""
import argparse
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HEADER = ["event", "date", "section", "board", "table", "ns_pair", "ew_pair", "ns_score"]
SCORES = [-1430, -800, -650, -620, -200, -100, -50, 90, 110, 140, 170, 400, 420, 450, 620, 680]


class Run:
    def __init__(self, datum, folder):
        self.datum, self.folder = datum, folder

    def path(self, name):
        return os.path.join(self.folder, name)

    def __call__(self, *args, ok=True, env=None):
        p = subprocess.run([self.datum, *map(str, args)], capture_output=True, text=True,
                           cwd=self.folder, env=env, timeout=600)
        if ok and p.returncode != 0:
            raise AssertionError(f"datum {' '.join(map(str, args))} exited {p.returncode}:\n"
                                 f"{p.stderr}")
        return p


def events(rng, names, first_pair, n_pairs, adjusted=False):
    """Rows of the named events: 1 to 3 sections of 3-5 tables each, playing the same boards
    (across the field), pairs drawn from first_pair .. first_pair + n_pairs - 1."""
    rows = []
    for e, name in enumerate(names):
        day = f"2024-{1 + e % 12:02d}-{1 + rng.randrange(28):02d}"
        sections = ["A", "B", "C"][:rng.choice((1, 1, 2, 3))]
        pool = rng.sample(range(first_pair, first_pair + n_pairs), 10 * len(sections))
        for s, section in enumerate(sections):
            tables = rng.randrange(3, 6)
            seats = pool[10 * s:10 * s + 2 * tables]
            for board in range(1, rng.randrange(4, 9)):
                for t in range(tables):
                    ew = seats[2 * ((t + board) % tables) + 1]  # EW move a table a board
                    row = [name, day, section, board, t + 1, f"P{seats[2 * t]:03d}", f"P{ew:03d}",
                           rng.choice(SCORES)]
                    if adjusted:
                        adj = "A+" if rng.random() < 0.03 else ""
                        if adj:
                            row[7] = ""
                        row.append(adj)
                    rows.append(row)
    rng.shuffle(rows)  # the archive does not depend on the order of the rows
    return rows


def write_csv(path, rows, adjusted=False):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER + (["adjusted"] if adjusted else []))
        w.writerows(rows)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def info_lines(run, archive):
    """`datum info` without the lines naming the file and its parts."""
    out = run("info", archive).stdout.splitlines()
    keep, skip = [], False
    for line in out:
        if line.startswith("archive") or line.startswith("parts"):
            skip = line.startswith("parts")
            continue
        if skip and line.startswith("             ") and ".h5" in line:
            continue
        skip = False
        keep.append(line)
    return keep


JOBS = [
    ("score", ["--datum", "nbb"]),
    ("score", ["--datum", "mean", "--trim", "1", "--across-sections"]),
    ("cross", ["--divisor", "n-1"]),
    ("matchpoints", []),
    ("matchpoints", ["--across-sections"]),
]


def outputs(run, archive, tag):
    """Every job's CSV outputs and HDF5 output for archive, named by tag."""
    made = []
    for j, (command, options) in enumerate(JOBS):
        names = [f"{tag}-{j}-{x}" for x in ("results.csv", "pairs.csv", "out.h5")]
        run(command, archive, *options, "--results", names[0], "--pairs", names[1], "-o", names[2],
            "--threads", 2)
        made.append((f"{command} {' '.join(options)}", names))
    names = [f"{tag}-rate.csv", f"{tag}-rate.h5"]
    run("rate", archive, "--out", names[0], "-o", names[1])
    made.append(("rate", names))
    return made


def compare_h5(a, b, what):
    """The datasets (values and types) and the attributes but `source` of two outputs."""
    try:
        import h5py
        import numpy as np
    except ImportError:
        return False
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for key in fa.attrs:
            if key not in ("source", "archive"):  # the path of each
                assert fa.attrs[key] == fb.attrs[key], (what, key)
        names = []
        fa.visit(names.append)
        other = []
        fb.visit(other.append)
        assert names == other, (what, names, other)
        for n in names:
            if isinstance(fa[n], h5py.Dataset):
                x, y = fa[n][()], fb[n][()]
                assert fa[n].dtype == fb[n].dtype, (what, n, fa[n].dtype, fb[n].dtype)
                assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), (what, n)
    return True


def same_outputs(run, appended, fresh, tag):
    got, want = outputs(run, appended, tag + "-app"), outputs(run, fresh, tag + "-fresh")
    h5 = False
    for (what, names), (_, others) in zip(got, want):
        for n, o in zip(names, others):
            if n.endswith(".csv"):
                assert read(run.path(n)) == read(run.path(o)), (what, n, o)
            else:
                h5 = compare_h5(run.path(n), run.path(o), what) or h5
    assert info_lines(run, appended) == info_lines(run, fresh)
    return h5


def test_equal_to_fresh(run, rng):
    """Base, then appends of events before, between and after its own, with new pairs and,
    in one, an adjusted column: the outputs of a fresh import of all the rows."""
    base = events(rng, ["Club 2024-03", "Club 2024-05", "Club 2024-07"], 0, 60)
    before = events(rng, ["Autumn Cup"], 20, 70, adjusted=True)  # new pairs P060..P089
    between = events(rng, ["Club 2024-04", "Club 2024-06 Bis"], 10, 60)
    after = events(rng, ["Winter Teams", "Zonal"], 30, 80)
    files = [("base.csv", base, False), ("w1.csv", before, True), ("w2.csv", between, False),
             ("w3.csv", after, False)]
    for name, rows, adj in files:
        write_csv(run.path(name), rows, adj)
    run("import", "base.csv", "-o", "app.h5")
    for name, _, _ in files[1:]:
        p = run("import", "--append", name, "-o", "app.h5")
        assert "appended" in p.stdout, p.stdout
    run("import", *[f for f, _, _ in files], "-o", "fresh.h5")
    info = run("info", "app.h5").stdout
    assert "(format 2)" in info and "3 segments" in info, info
    h5 = same_outputs(run, "app.h5", "fresh.h5", "eq")
    print(f"  5 jobs and rate equal after 3 appends ({'with' if h5 else 'without'} h5py)")


def test_refused(run, rng):
    """Events already in the archive are refused at their first row, and nothing changes."""
    run("import", "base.csv", "-o", "ref.h5")
    run("import", "--append", "w1.csv", "-o", "ref.h5")
    before = (read(run.path("ref.h5")), sorted(os.listdir(run.path("ref.h5.d"))))
    with open(run.path("base.csv"), newline="") as f:
        existing = list(csv.reader(f))[1:]
    fresh_rows = events(rng, ["New Event"], 0, 40)
    # An exact collision (a result already there), at line 3 of the file.
    write_csv(run.path("clash.csv"), fresh_rows[:1] + [existing[5]] + fresh_rows[1:])
    # The same event name with boards the archive does not have, at line 2.
    other = [existing[0][0], existing[0][1], "Z", 99, 1, "P001", "P002", 420]
    write_csv(run.path("same-name.csv"), [other] + fresh_rows)
    # A bad row of a new event: refused as the import refuses it.
    bad = list(fresh_rows[0])
    bad[7] = "four hundred"
    write_csv(run.path("bad.csv"), fresh_rows[1:4] + [bad])
    for name, line, what in (("clash.csv", 3, f'event "{existing[5][0]}" is already in'),
                             ("same-name.csv", 2, f'event "{existing[0][0]}" is already in'),
                             ("bad.csv", 5, "column ns_score")):
        p = run("import", "--append", name, "-o", "ref.h5", ok=False)
        assert p.returncode == 2, (name, p.returncode, p.stderr)
        assert f"{name}:{line}: " in p.stderr and what in p.stderr, (name, p.stderr)
        after = (read(run.path("ref.h5")), sorted(os.listdir(run.path("ref.h5.d"))))
        assert after == before, (name, after[1], before[1])
    p = run("import", "--append", "w2.csv", "-o", "missing.h5", ok=False)
    assert p.returncode != 0 and "missing.h5" in p.stderr and not os.path.exists(
        run.path("missing.h5.d")), p.stderr
    print("  collisions and bad rows refused with FILE:LINE, the archive unchanged")


PBN_GAME = """[Event "{event}"]
[Section "{section}"]
[Board "{board}"]
[Deal "{deal}"]
[ScoreTable "PairId_NS;PairId_EW;Score_NS;IMP_NS;IMP_EW"]
{lines}

"""
DEALS = ["N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765",
         "N:AKQJ.T98.765.432 765.432.AKQJ.T98 T98.765.432.AKQJ 432.AKQJ.T98.765"]


def write_pbn(path, rng, event):
    """Two sections playing boards 1-3, the same deal on boards 1 and 3 and different deals on
    board 2, with published IMPs."""
    with open(path, "w") as f:
        for section in ("A", "B"):
            for board in (1, 2, 3):
                deal = DEALS[1] if (board == 2 and section == "B") else DEALS[0]
                lines = "\n".join(f"{s + 1} {s + 11} {rng.choice(SCORES)} {rng.randrange(-5, 6)} "
                                  f"{rng.randrange(-5, 6)}" for s in range(3))
                f.write(PBN_GAME.format(event=event, section=section, board=board, deal=deal,
                                        lines=lines))


def result_lines(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], sorted(rows[1:])


def test_pbn(run, rng):
    """PBN appends keep deals and published figures like a fresh import of both files; a CSV
    archive with a PBN segment scores each event across the field as its own file alone."""
    write_pbn(run.path("cup1.pbn"), rng, "Cup Day 2")
    write_pbn(run.path("cup2.pbn"), rng, "Cup Day 1")
    run("import", "--format", "pbn", "cup1.pbn", "-o", "pbn.h5")
    run("import", "--append", "--format", "pbn", "cup2.pbn", "-o", "pbn.h5")
    run("import", "--format", "pbn", "cup1.pbn", "cup2.pbn", "-o", "pbn-fresh.h5")
    same_outputs(run, "pbn.h5", "pbn-fresh.h5", "pbn")
    # A CSV archive (no deals recorded: every section of an event plays the same deals) with a
    # PBN segment (deals recorded): each event as in its own archive.
    run("import", "base.csv", "-o", "mixed.h5")
    run("import", "--append", "--format", "pbn", "cup1.pbn", "-o", "mixed.h5")
    run("import", "--format", "pbn", "cup1.pbn", "-o", "cup1.h5")
    for archive in ("mixed.h5", "cup1.h5", "base-only.h5"):
        if archive == "base-only.h5":
            run("import", "base.csv", "-o", archive)
        run("score", archive, "--datum", "mean", "--across-sections", "--results", archive + ".csv")
    head, mixed = result_lines(run.path("mixed.h5.csv"))
    _, cup = result_lines(run.path("cup1.h5.csv"))
    _, base = result_lines(run.path("base-only.h5.csv"))
    assert mixed == sorted(cup + base), "across the field, an event scores as in its own file"
    print("  PBN appends as a fresh import; CSV + PBN: each event as its own file")


def signature(run, archive):
    """What must be exactly the old or the new archive: info and a score's pairs."""
    out = run.path("sig.csv")
    run("score", archive, "--datum", "mean", "--pairs", out)
    return "\n".join(run("info", archive).stdout.splitlines()) + read(out).decode()


def leftovers(run, archive):
    """Files of the archive's folder that its manifest does not list (nothing but the lock)."""
    folder = run.path(archive + ".d")
    listed = set()
    info = run("info", archive).stdout
    for line in info.splitlines():
        if line.startswith("             ") and ".h5.d/" in line:
            listed.add(line.split(".h5.d/")[1].split(":")[0])
    extra = [n for n in os.listdir(folder) if n not in listed and n != "lock"]
    extra += [n for n in os.listdir(run.folder) if n.startswith(archive + ".tmp-")]
    return extra


PHASES = ["segment-written", "base-linked", "root-written", "root-renamed"]


def test_kill(run, rng, kills):
    """kill -9 at each phase and at random moments of appends to a version 1 archive (the first
    append) and to a version 2 one: the old archive or the new one, never anything else."""
    write_csv(run.path("week.csv"), events(rng, [f"Week {i:02d}" for i in range(40)], 0, 120))
    run("import", "base.csv", "-o", "k1.h5")
    shutil.copy(run.path("k1.h5"), run.path("k2.h5"))
    run("import", "--append", "w1.csv", "-o", "k2.h5")
    starts = {}
    for kind in ("k1", "k2"):
        start = run.path(f"{kind}-start")
        os.makedirs(start)
        shutil.copy(run.path(f"{kind}.h5"), os.path.join(start, "a.h5"))
        if os.path.isdir(run.path(f"{kind}.h5.d")):
            shutil.copytree(run.path(f"{kind}.h5.d"), os.path.join(start, "a.h5.d"))
        starts[kind] = start
    expect = {}
    for kind in starts:
        restore(run, starts[kind])
        old = signature(run, "a.h5")
        t = time.monotonic()
        run("import", "--append", "week.csv", "-o", "a.h5")
        expect[kind] = (old, signature(run, "a.h5"), time.monotonic() - t)
    seen = {"old": 0, "new": 0}
    plan = [(kind, phase, None) for kind in starts for phase in PHASES]
    plan += [(rng.choice(list(starts)), None, rng.random()) for _ in range(kills)]
    for kind, phase, fraction in plan:
        restore(run, starts[kind])
        old, new, duration = expect[kind]
        env = dict(os.environ)
        if phase:
            env["DATUM_TEST_APPEND_KILL"] = phase
        proc = subprocess.Popen([run.datum, "import", "--append", "week.csv", "-o", "a.h5"],
                                cwd=run.folder, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        if fraction is not None:
            time.sleep(fraction * duration * 1.2)
            proc.kill()
        code = proc.wait()
        state = signature(run, "a.h5")
        assert state in (old, new), (kind, phase, fraction, code)
        if phase:  # the hook kills: before the rename, the old archive; after, the new one
            assert code == -9 and state == (new if phase == "root-renamed" else old), (kind, phase)
        seen["new" if state == new else "old"] += 1
        if state == old:  # the next append cleans up and appends
            run("import", "--append", "week.csv", "-o", "a.h5")
            assert signature(run, "a.h5") == new, (kind, phase, fraction)
        assert leftovers(run, "a.h5") == [], (kind, phase, fraction, leftovers(run, "a.h5"))
    print(f"  {len(plan)} appends killed ({4 * len(starts)} at the phases, {kills} at random "
          f"moments): {seen['old']} left the old archive, {seen['new']} the new one")


def restore(run, start):
    for name in ("a.h5", "a.h5.d"):
        p = run.path(name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    for name in os.listdir(run.folder):
        if name.startswith("a.h5.tmp-"):
            os.remove(run.path(name))
    shutil.copy(os.path.join(start, "a.h5"), run.path("a.h5"))
    if os.path.isdir(os.path.join(start, "a.h5.d")):
        shutil.copytree(os.path.join(start, "a.h5.d"), run.path("a.h5.d"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--kills", type=int, default=40)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(os.path.abspath(args.datum), tmp)
        test_equal_to_fresh(run, rng)
        print("ok test_equal_to_fresh")
        test_refused(run, rng)
        print("ok test_refused")
        test_pbn(run, rng)
        print("ok test_pbn")
        test_kill(run, rng, args.kills)
        print("ok test_kill")
    return 0


if __name__ == "__main__":
    sys.exit(main())
