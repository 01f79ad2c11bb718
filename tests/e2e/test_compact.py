#!/usr/bin/env python3
"""`datum compact` and the segments merged by `datum import --append` end to end
(docs/archive-format.md "Compaction", "Merging segments").

- An archive of a base and 12 segments (an adjusted column in one, events sorting before, between
  and after the base's), compacted, is the archive a fresh import of all the rows writes: with
  h5py, every dataset's values, dtype, chunks, filters and attributes, and the root's attributes
  but `created`; its scores, cross-IMPs, matchpoints and ratings are byte for byte those of the
  archive before (test_append.py's jobs); 1 and 2 threads write the same datasets. A version 1
  archive is left as it is (exit 0, the same bytes).
- 30 small appends with --max-segments 2: merges happen (the append's line says so), the segments
  stay few (at most 3 a tier of 4 and the ones not yet merged: checked against a bound computed
  here), and after every 5th append the jobs' outputs are those of a fresh import of the rows so
  far; compacted at the end, the fresh import's file again.
- Refusals: --max-segments without --append (exit 2), a missing archive (exit 1, nothing made), a missing or damaged part (exit 2, "damaged
  archive", the archive unchanged), an archive locked by an append (exit 1, "another append or
  compaction"), no archive given (exit 2).
- A reader that has read the root when a compaction or a merging append replaces it and removes
  the parts it lists (DATUM_TEST_PAUSE holds the reader there) opens the new root and scores the
  same pairs; a reader pausing on an archive nothing replaces is unaffected.
- kill -9 at each phase of a compaction and of a merging append (DATUM_TEST_APPEND_KILL) and at
  random moments: the archive is the old one or the new one, readable, with the same results;
  leftovers are removed by the next append.

    test_compact.py --datum PATH [--kills N]
"""
import argparse
import fcntl
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_append import Run, events, write_csv, read, same_outputs, info_lines, restore  # noqa: E402


def datasets(path):
    """{name: (dtype, chunks, compression, options, shuffle, attributes, values)} of an archive,
    and its root attributes but `created`; None without h5py."""
    try:
        import h5py
    except ImportError:
        return None
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                values = obj[()]
                out[name] = (str(obj.dtype), obj.chunks, obj.compression, obj.compression_opts,
                             obj.shuffle, sorted((k, str(v)) for k, v in obj.attrs.items()),
                             values.tolist() if values.dtype.kind == "O" else values.tobytes())
        f.visititems(visit)
        out["/"] = sorted((k, str(v)) for k, v in f.attrs.items() if k != "created")
    return out


def assert_same_file(a, b, what):
    x, y = datasets(a), datasets(b)
    if x is None:
        return False
    assert sorted(x) == sorted(y), (what, sorted(set(x) ^ set(y)))
    for name in x:
        assert x[name] == y[name], (what, name, x[name][:5], y[name][:5])
    return True


def copy_archive(run, src, dst):
    for name in (dst, dst + ".d"):
        p = run.path(name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    shutil.copy(run.path(src), run.path(dst))
    if os.path.isdir(run.path(src + ".d")):
        shutil.copytree(run.path(src + ".d"), run.path(dst + ".d"))


def test_equal_to_fresh(run, rng):
    base = events(rng, ["Club 2024-03", "Club 2024-05", "Club 2024-07"], 0, 60)
    files = [("base.csv", base, False)]
    names = ["Autumn Cup", "Club 2024-04", "Club 2024-06 Bis", "Winter Teams", "Zonal", "Easter",
             "Club 2024-08", "Spring", "Aa Open", "Club 2024-03 Bis", "Mixed", "Zz Final"]
    for k, name in enumerate(names):
        adjusted = k == 4  # an adjusted column that one segment alone has
        files.append((f"s{k}.csv", events(rng, [name], 10 * k % 50, 70, adjusted), adjusted))
    for name, rows, adj in files:
        write_csv(run.path(name), rows, adj)
    run("import", "base.csv", "-o", "seg.h5")
    for name, _, _ in files[1:]:
        run("import", "--append", name, "-o", "seg.h5", "--max-segments", 0)
    run("import", *[f for f, _, _ in files], "-o", "fresh.h5")
    assert "and 12 segments appended" in run("info", "seg.h5").stdout
    copy_archive(run, "seg.h5", "c1.h5")
    copy_archive(run, "seg.h5", "c2.h5")
    p = run("compact", "c1.h5", "--threads", 1)
    assert "compacted 13 parts of c1.h5 into one file" in p.stdout, p.stdout
    run("compact", "c2.h5", "--threads", 2, "--memory", "64K")  # the least: chunks of 64 Ki rows
    assert not os.path.exists(run.path("c1.h5.d")) and "(format 1)" in run("info", "c1.h5").stdout
    h5 = assert_same_file(run.path("c1.h5"), run.path("fresh.h5"), "compacted, 1 thread")
    assert_same_file(run.path("c2.h5"), run.path("c1.h5"), "compacted, 2 threads")
    same_outputs(run, "c1.h5", "seg.h5", "cmp")
    # Options of the writer as the import's: uncompressed.
    copy_archive(run, "seg.h5", "c3.h5")
    run("compact", "c3.h5", "--no-compress")
    run("import", *[f for f, _, _ in files], "-o", "fresh-raw.h5", "--no-compress")
    assert_same_file(run.path("c3.h5"), run.path("fresh-raw.h5"), "compacted, uncompressed")
    # A version 1 archive: nothing to do, nothing changed, no folder made.
    before = read(run.path("fresh.h5"))
    p = run("compact", "fresh.h5")
    assert "one file already" in p.stdout and read(run.path("fresh.h5")) == before, p.stdout
    assert not os.path.exists(run.path("fresh.h5.d"))
    print(f"  13 parts compacted: a fresh import's file ({'checked with' if h5 else 'without'} "
          "h5py), the same outputs, 1 and 2 threads alike; version 1 left as it is")
    return files


def segment_bound(sizes):
    """At most 3 segments a size tier of factor 4 (append.c's policy): the most a tiered archive
    keeps, counted here from the segments' sizes."""
    tiers = {}
    for n in sizes:
        t = 0
        while n >= 4:
            n //= 4
            t += 1
        tiers[t] = tiers.get(t, 0) + 1
    return max(tiers.values())


def test_auto_merge(run, rng):
    run("import", "base.csv", "-o", "auto.h5")
    weeks, merges = ["base.csv"], 0
    for k in range(30):
        name = f"week{k:02d}.csv"
        write_csv(run.path(name), events(rng, [f"Week {k:02d} {s}" for s in "AB"], 3 * k % 50, 60))
        weeks.append(name)
        p = run("import", "--append", name, "-o", "auto.h5", "--max-segments", 2)
        if "merged into one" in p.stdout:
            merges += 1
        parts = [line for line in run("info", "auto.h5").stdout.splitlines()
                 if line.startswith("             ") and ".h5.d/segment-" in line]
        sizes = [int(line.rsplit(":", 1)[1].split()[0]) for line in parts]
        # Merging keeps each tier below 4 once there are more than 2 segments.
        assert len(sizes) <= 2 or segment_bound(sizes) <= 3, (k, sizes)
        assert len(os.listdir(run.path("auto.h5.d"))) == len(sizes) + 2, (k, "leftovers")
        if k % 5 == 4:
            run("import", *weeks, "-o", "auto-fresh.h5")
            same_outputs(run, "auto.h5", "auto-fresh.h5", f"auto{k}")
    assert merges >= 5, merges
    run("compact", "auto.h5")
    h5 = assert_same_file(run.path("auto.h5"), run.path("auto-fresh.h5"), "merged, compacted")
    print(f"  30 appends with --max-segments 2: {merges} merges, {len(sizes)} segments at the "
          f"end, the outputs of a fresh import every 5 appends; compacted, its file"
          f"{'' if h5 else ' (not checked: no h5py)'}")


PAUSE = 5  # seconds a reader waits between the root and its parts (DATUM_TEST_PAUSE)


def read_during(run, archive, change, tag):
    """The pairs `datum score` writes when `change` runs while it waits between the root and the
    parts; and whether the change ended within that wait (else the reader had opened the old
    parts first: a valid reading of the archive before)."""
    env = dict(os.environ, DATUM_TEST_PAUSE=f"manifest-read:{PAUSE}")
    start = time.monotonic()
    reader = subprocess.Popen([run.datum, "score", archive, "--datum", "nbb", "--pairs",
                               f"{tag}.csv"], cwd=run.folder, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1)  # the reader has read the root by now and waits
    change()
    within = time.monotonic() - start < PAUSE
    err = reader.communicate(timeout=300)[1]
    assert reader.returncode == 0, (tag, reader.returncode, err)
    return read(run.path(f"{tag}.csv")), within


def test_reader_meanwhile(run, rng):
    """A reader between the root and the parts while the parts are replaced and removed."""
    copy_archive(run, "seg.h5", "r1.h5")
    run("score", "r1.h5", "--datum", "nbb", "--pairs", "r1-before.csv")
    got, within = read_during(run, "r1.h5", lambda: run("compact", "r1.h5"), "r1-during")
    assert not os.path.exists(run.path("r1.h5.d"))
    assert got == read(run.path("r1-before.csv")), "compaction changed what a reader sees"
    # A merging append: the 12 segments are merged and removed under the reader.
    copy_archive(run, "seg.h5", "r2.h5")
    run("score", "r2.h5", "--datum", "nbb", "--pairs", "r2-before.csv")
    write_csv(run.path("r-week.csv"), events(rng, ["Zzz Reader Week"], 0, 60))
    said = []
    got, within2 = read_during(run, "r2.h5", lambda: said.append(run(
        "import", "--append", "r-week.csv", "-o", "r2.h5", "--max-segments", 2).stdout), "r2-during")
    assert "merged into one" in said[0], said
    run("score", "r2.h5", "--datum", "nbb", "--pairs", "r2-after.csv")
    want = "r2-after.csv" if within2 else "r2-before.csv"
    assert got == read(run.path(want)), f"the reader's pairs are not those of {want}"
    print(f"  a reader between the root and its parts: a compaction "
          f"({'within' if within else 'after'} its wait) and a merging append "
          f"({'within: the new root opened' if within2 else 'after its wait: the old archive'}) "
          "meanwhile, exit 0 and the pairs of the archive it opened")


def chunk_offset(path, name):
    """Where the first chunk of a dataset is in the file (with h5py; without it, the middle of
    the file, where a segment's datasets are)."""
    try:
        import h5py
    except ImportError:
        return os.path.getsize(path) // 2
    with h5py.File(path, "r") as f:
        return f[name].id.get_chunk_info(0).byte_offset


def test_refused(run):
    p = run("compact", "nothing.h5", ok=False)
    assert p.returncode == 1 and "nothing.h5" in p.stderr and not os.path.exists(
        run.path("nothing.h5.d")), (p.returncode, p.stderr)
    p = run("compact", ok=False)
    assert p.returncode == 2, p.returncode
    # --max-segments without --append, even at its default, is a usage error: nothing written.
    p = run("import", "--max-segments", 8, "base.csv", "-o", "usage.h5", ok=False)
    assert p.returncode == 2 and "--max-segments goes with --append" in p.stderr, p.stderr
    assert not os.path.exists(run.path("usage.h5"))
    for case in ("missing", "damaged", "locked"):
        copy_archive(run, "seg.h5", "bad.h5")
        part = run.path("bad.h5.d/segment-0003.h5")
        lock = None
        if case == "missing":
            os.remove(part)
        elif case == "damaged":  # a chunk of scores overwritten (the size unchanged)
            with open(part, "r+b") as f:
                f.seek(chunk_offset(part, "results/ns_score"))
                f.write(b"\xff" * 16)
        else:  # an append holding the lock
            lock = open(run.path("bad.h5.d/lock"), "r+")
            fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        root = read(run.path("bad.h5"))
        listing = sorted(os.listdir(run.path("bad.h5.d")))
        p = run("compact", "bad.h5", ok=False)
        if lock:
            lock.close()
        want = "another append or compaction" if case == "locked" else "damaged archive"
        code = 1 if case == "locked" else 2  # a damaged archive is bad input
        assert p.returncode == code and want in p.stderr, (case, p.returncode, p.stderr)
        assert read(run.path("bad.h5")) == root and sorted(os.listdir(run.path("bad.h5.d"))) == \
            listing, (case, "changed")
        assert not [n for n in os.listdir(run.folder) if n.startswith("bad.h5.tmp-")], case
    print("  missing archive, missing, damaged and locked parts refused, nothing changed")


def content(run, archive):
    """What a compaction must keep: the info but the parts, and a score's pairs."""
    run("score", archive, "--datum", "mean", "--pairs", "sig.csv")
    return "\n".join(line for line in info_lines(run, archive) if "format" not in line) + \
        read(run.path("sig.csv")).decode()


def signature(run, archive):
    """The archive exactly: its info with the parts, and a score's pairs."""
    run("score", archive, "--datum", "mean", "--pairs", "sig.csv")
    return run("info", archive).stdout + read(run.path("sig.csv")).decode()


def killed(run, args, phase, fraction, duration):
    env = dict(os.environ)
    if phase:
        env["DATUM_TEST_APPEND_KILL"] = phase
    proc = subprocess.Popen([run.datum, *map(str, args)], cwd=run.folder, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if fraction is not None:
        time.sleep(fraction * duration * 1.2)
        proc.kill()
    return proc.wait()


def test_kill(run, rng, kills):
    # A compaction: the old archive or the compacted one, the same content either way.
    start = run.path("kill-start")
    os.makedirs(start)
    shutil.copy(run.path("seg.h5"), os.path.join(start, "a.h5"))
    shutil.copytree(run.path("seg.h5.d"), os.path.join(start, "a.h5.d"))
    restore(run, start)
    old, want = signature(run, "a.h5"), content(run, "a.h5")
    t = time.monotonic()
    run("compact", "a.h5")
    duration, new = time.monotonic() - t, signature(run, "a.h5")
    seen = {"old": 0, "new": 0}
    plan = [(p, None) for p in ("compact-renamed", "compact-removing")]
    plan += [(None, rng.random()) for _ in range(kills)]
    for phase, fraction in plan:
        restore(run, start)
        code = killed(run, ["compact", "a.h5"], phase, fraction, duration)
        state = signature(run, "a.h5")
        assert state in (old, new) and content(run, "a.h5") == want, (phase, fraction, code)
        if phase:
            assert code == -9 and state == new, phase
        seen["new" if state == new else "old"] += 1
        if state == old:
            run("compact", "a.h5")
        assert signature(run, "a.h5") == new, (phase, fraction)
    print(f"  {len(plan)} compactions killed (2 at the phases): {seen['old']} left the old "
          f"archive, {seen['new']} the compacted one")
    # A merging append (--max-segments 1 on 12 segments): the old archive or the new one.
    write_csv(run.path("late.csv"), events(rng, [f"Late {i:02d}" for i in range(10)], 0, 80))
    restore(run, start)
    old = signature(run, "a.h5")
    t = time.monotonic()
    p = run("import", "--append", "late.csv", "-o", "a.h5", "--max-segments", 1)
    assert "merged into one" in p.stdout, p.stdout
    duration, new = time.monotonic() - t, signature(run, "a.h5")
    seen = {"old": 0, "new": 0}
    phases = ["segment-written", "merge-written", "base-linked", "root-written", "root-renamed"]
    plan = [(p, None) for p in phases] + [(None, rng.random()) for _ in range(kills)]
    for phase, fraction in plan:
        restore(run, start)
        code = killed(run, ["import", "--append", "late.csv", "-o", "a.h5", "--max-segments", 1],
                      phase, fraction, duration)
        state = signature(run, "a.h5")
        assert state in (old, new), (phase, fraction, code)
        if phase:
            assert code == -9 and state == (new if phase == "root-renamed" else old), phase
        seen["new" if state == new else "old"] += 1
        if state == old:  # the next append cleans up and appends
            run("import", "--append", "late.csv", "-o", "a.h5", "--max-segments", 1)
        assert signature(run, "a.h5") == new, (phase, fraction)
        listed = {line.split(".h5.d/")[1].split(":")[0]
                  for line in run("info", "a.h5").stdout.splitlines() if ".h5.d/" in line}
        extra = set(os.listdir(run.path("a.h5.d"))) - listed - {"lock"}
        # Merged-away segments a kill left after the rename: gone at the next append.
        if extra:
            write_csv(run.path("one.csv"), events(rng, ["Zzz Next"], 0, 40))
            run("import", "--append", "one.csv", "-o", "a.h5", "--max-segments", 0)
            listed = {line.split(".h5.d/")[1].split(":")[0]
                      for line in run("info", "a.h5").stdout.splitlines() if ".h5.d/" in line}
            assert set(os.listdir(run.path("a.h5.d"))) - listed == {"lock"}, (phase, fraction)
    print(f"  {len(plan)} merging appends killed ({len(phases)} at the phases): {seen['old']} "
          f"left the old archive, {seen['new']} the new one")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(os.path.abspath(args.datum), tmp)
        test_equal_to_fresh(run, rng)
        print("ok test_equal_to_fresh")
        test_auto_merge(run, rng)
        print("ok test_auto_merge")
        test_reader_meanwhile(run, rng)
        print("ok test_reader_meanwhile")
        test_refused(run)
        print("ok test_refused")
        test_kill(run, rng, args.kills)
        print("ok test_kill")
    return 0


if __name__ == "__main__":
    sys.exit(main())
