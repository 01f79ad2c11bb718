#!/usr/bin/env python3
"""datum-mpi against the serial datum (issue 16): on 1, 2 and 3 processes (mpirun
--oversubscribe), score, cross, matchpoints and barking write an HDF5 output whose every dataset
and attribute equals the serial program's (same type, same shape, the same bytes, NaN included),
the same --pairs CSV byte for byte and the same ranking; rate gives the same ratings to 1e-8 and
the same report fields. Archives: a generated federation (datum generate --preset small), one
imported from the real USEBIO files of ../shared/datasets/real (adjusted rows, published figures;
skipped when absent), the congress example across sections and an appended archive of two parts.
Also: the slices every process reports cover the archive's fields once, in order, balanced by
rows; a failing run (an unreadable archive, an output in a missing folder, --results) exits
non-zero on every process and leaves no file.

usage: test_mpi.py --datum SERIAL_DATUM --datum-mpi DATUM_MPI --work DIR [--real DIR]
                   [--mpirun MPIRUN]
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import unittest

import h5py
import numpy as np

ARGS = None
PROCESSES = (1, 2, 3)
RATE_TOL = 1e-8


def run(cmd, ok=True, env=None):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL, env=env)
    if ok and p.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {p.returncode}:\n{p.stderr}")
    return p


def mpirun(n, *args, ok=True, env=None):
    return run([*ARGS.mpirun.split(), "--oversubscribe", "--allow-run-as-root", "-n", n,
                ARGS.datum_mpi, *args], ok=ok, env=env)


def h5_items(path):
    """Every dataset (dtype, shape, raw bytes) and every attribute of an HDF5 file, by path."""
    out = {}
    with h5py.File(path, "r") as f:
        def attrs(name, obj):
            for k, v in obj.attrs.items():
                out[f"{name}@{k}"] = repr(v)
        attrs("/", f)

        def visit(name, obj):
            attrs(name, obj)
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                if obj.dtype.kind == "O":  # strings: compared as values
                    out[name] = (str(obj.dtype), obj.shape, [bytes(x) if isinstance(x, bytes)
                                                            else x for x in np.ravel(data)])
                else:  # numbers: the bytes, so that NaN equals NaN and -0 is not 0
                    out[name] = (str(obj.dtype), obj.shape, np.ascontiguousarray(data).tobytes())
        f.visititems(visit)
    return out


class Base(unittest.TestCase):
    work = None

    @classmethod
    def archive(cls, name):
        return os.path.join(ARGS.work, name)

    def same_as_serial(self, archive, command, *options, pairs=True, ranking=True):
        """The serial datum, then datum-mpi on every process count: outputs equal."""
        tag = f"{os.path.basename(archive)}-{command}-{'_'.join(options).replace('/', '')}"
        base = os.path.join(ARGS.work, tag)
        serial_h5, serial_csv = base + "-serial.h5", base + "-serial.csv"
        extra = ["--pairs", serial_csv] if pairs else []
        s = run([ARGS.datum, command, archive, *options, "-o", serial_h5, *extra,
                 *(["--ranking"] if ranking else [])])
        want = h5_items(serial_h5)
        self.assertTrue(any(k.startswith("results/") for k in want), tag)
        for n in PROCESSES:
            with self.subTest(archive=archive, command=command, options=options, processes=n):
                out_h5, out_csv = f"{base}-{n}.h5", f"{base}-{n}.csv"
                extra = ["--pairs", out_csv] if pairs else []
                m = mpirun(n, command, archive, *options, "-o", out_h5, *extra,
                           *(["--ranking"] if ranking else []))
                got = h5_items(out_h5)
                self.assertEqual(sorted(got), sorted(want))
                for k in want:
                    self.assertEqual(got[k], want[k], f"{k} differs on {n} processes")
                if pairs:
                    with open(out_csv, "rb") as a, open(serial_csv, "rb") as b:
                        self.assertEqual(a.read(), b.read(), f"--pairs differs on {n} processes")
                if ranking:
                    self.assertEqual(m.stdout, s.stdout, f"ranking differs on {n} processes")
                self.assertEqual(leftovers(), [])


def leftovers():
    return sorted(glob.glob(os.path.join(ARGS.work, "*.tmp-*")))


class Generated(Base):
    """A synthetic federation: clubs, congresses in sections, leagues, adjusted rows."""

    @classmethod
    def setUpClass(cls):
        cls.a = cls.archive("small.h5")
        if not os.path.exists(cls.a):
            run([ARGS.datum, "generate", "--preset", "small", "--clubs", "3", "--years", "1",
                 "-o", cls.a])

    def test_score(self):
        self.same_as_serial(self.a, "score", "--datum", "nbb")

    def test_score_fractions(self):
        # Linear IMPs against a trimmed mean: every total a sum of fractions, whose rounding
        # depends on the order of the additions.
        self.same_as_serial(self.a, "score", "--datum", "mean", "--scale", "linear", "--trim", "1")

    def test_score_halves(self):  # stored as float32
        self.same_as_serial(self.a, "score", "--datum", "bastille", "--half")

    def test_cross(self):
        self.same_as_serial(self.a, "cross", "--divisor", "n")

    def test_matchpoints_neuberg_to_event(self):  # slices of whole events
        self.same_as_serial(self.a, "matchpoints")

    def test_matchpoints_to_field(self):
        self.same_as_serial(self.a, "matchpoints", "--neuberg-to", "field", "--top", "n-1")

    def test_barking(self):
        self.same_as_serial(self.a, "barking", pairs=True, ranking=False)

    def test_across_sections(self):
        self.same_as_serial(self.a, "score", "--datum", "mean", "--across-sections")

    def test_slices(self):
        """The processes' slices: contiguous, covering every field once, ending between events
        when whole events are needed, balanced by rows."""
        with h5py.File(self.a, "r") as f:
            offset = f["fields/offset"][()]
            event = f["fields/event"][()]
        n_fields = len(offset) - 1
        for command, whole in (("score", False), ("matchpoints", True)):
            report = os.path.join(ARGS.work, f"report-{command}.jsonl")
            env = dict(os.environ, DATUM_MPI_REPORT=report)
            args = ["--datum", "nbb"] if command == "score" else []
            mpirun(3, command, self.a, *args, "-o", os.path.join(ARGS.work, "r.h5"), env=env)
            with open(report) as f:
                lines = [json.loads(x) for x in f]
            self.assertEqual([x["rank"] for x in lines], [0, 1, 2])
            bounds = [lines[0]["first_field"]] + [x["end_field"] for x in lines]
            self.assertEqual(bounds[0], 0)
            self.assertEqual(bounds[-1], n_fields)
            for x, y in zip(lines, lines[1:]):
                self.assertEqual(x["end_field"], y["first_field"])
            rows = [int(offset[b] - offset[a]) for a, b in zip(bounds, bounds[1:])]
            total = int(offset[-1])
            for r in rows:  # chunks of 1/64 of a slice, and the largest event, at most apart
                self.assertLess(abs(r - total / 3), total / 3 / 8, rows)
            if whole:
                for b in bounds[1:-1]:
                    self.assertNotEqual(event[b - 1], event[b], f"slice boundary {b} splits an event")


class Imported(Base):
    """Archives imported from files: real USEBIO (adjusted rows, published figures), the
    congress example, and an archive with an appended segment (merged dictionaries)."""

    @classmethod
    def setUpClass(cls):
        root = os.path.join(os.path.dirname(__file__), "..", "..")
        example = os.path.join(root, "datasets", "example")
        cls.congress = cls.archive("congress.h5")
        cls.appended = cls.archive("appended.h5")
        run([ARGS.datum, "import", os.path.join(example, "congress-sections.csv"), "-o",
             cls.congress])
        run([ARGS.datum, "import", os.path.join(example, "club-session.csv"), "-o", cls.appended])
        run([ARGS.datum, "import", "--append", os.path.join(example, "congress-sections.csv"),
             "-o", cls.appended])
        cls.real = None
        if ARGS.real and os.path.isdir(ARGS.real):
            files = sorted(glob.glob(os.path.join(ARGS.real, "usebio-abftech-cobalt", "*.xml")))
            # The adjusted copy repeats the tables of mp_pairs_mitchell_02.
            files = [f for f in files if not f.endswith("mp_pairs_mitchell_adjusted_02.xml")]
            files += sorted(glob.glob(os.path.join(ARGS.real, "usebio-ukbridge-club-website",
                                                   "**", "*.xml"), recursive=True))
            cls.real = cls.archive("real.h5")
            run([ARGS.datum, "import", "--format", "usebio", *files, "-o", cls.real])

    def test_real(self):
        if not self.real:
            self.skipTest("no ../shared/datasets/real")
        self.same_as_serial(self.real, "score", "--datum", "mean", "--trim", "1", "--round", "away")
        self.same_as_serial(self.real, "cross")
        self.same_as_serial(self.real, "matchpoints")

    def test_congress_across(self):
        self.same_as_serial(self.congress, "cross", "--across-sections")
        self.same_as_serial(self.congress, "matchpoints", "--across-sections")

    def test_appended(self):
        self.same_as_serial(self.appended, "score", "--datum", "nbb")
        self.same_as_serial(self.appended, "matchpoints")


def keys(d, prefix=""):
    """The report's fields: every key, nested ones as a.b."""
    out = set()
    for k, v in d.items():
        out.add(prefix + k)
        if isinstance(v, dict):
            out |= keys(v, prefix + k + ".")
    return out


class Rate(Base):
    """datum-mpi rate against datum rate: the same pairs, boards, raw Butler and components, the
    ratings within 1e-8 IMPs per board, the same report fields, the same -o datasets."""

    @classmethod
    def setUpClass(cls):
        Generated.setUpClass()
        Imported.setUpClass()

    def same_ratings(self, archive, *options):
        tag = os.path.join(ARGS.work, f"rate-{os.path.basename(archive)}-{len(options)}")
        run([ARGS.datum, "rate", archive, *options, "--out", tag + "-serial.csv", "--report",
             tag + "-serial.json", "-o", tag + "-serial.h5"])
        with open(tag + "-serial.csv") as f:
            want = {r["pair"]: r for r in csv.DictReader(f)}
        with open(tag + "-serial.json") as f:
            want_report = json.load(f)
        want_h5 = h5_items(tag + "-serial.h5")
        self.assertGreater(len(want), 0)
        for n in PROCESSES:
            with self.subTest(archive=archive, options=options, processes=n):
                out = f"{tag}-{n}"
                m = mpirun(n, "rate", archive, *options, "--out", out + ".csv", "--report",
                           out + ".json", "-o", out + ".h5")
                self.assertNotIn("warning", m.stderr)
                with open(out + ".csv") as f:
                    got = {r["pair"]: r for r in csv.DictReader(f)}
                self.assertEqual(sorted(got), sorted(want))
                for pair, w in want.items():
                    g = got[pair]
                    self.assertEqual(g["component"], w["component"], pair)
                    for k in ("boards", "butler_per_board"):  # sums in another order
                        self.assertAlmostEqual(float(g[k]), float(w[k]),
                                               delta=1e-12 * max(1, abs(float(w[k]))), msg=pair)
                    self.assertAlmostEqual(float(g["rating"]), float(w["rating"]), delta=RATE_TOL,
                                           msg=pair)
                with open(out + ".json") as f:
                    report = json.load(f)
                self.assertEqual(keys(report), keys(want_report))
                for k in ("results", "pairs", "rated_pairs", "fields", "fields_one_table", "rows",
                          "rows_outside_window"):
                    self.assertEqual(report["data"][k], want_report["data"][k], k)
                # Equal layouts on both sides of a slice boundary are not merged.
                self.assertLessEqual(abs(report["data"]["layouts"] - want_report["data"]["layouts"]),
                                     n - 1)
                self.assertEqual(report["window"], want_report["window"])
                for k in ("total", "largest", "opponent", "fixed_direction", "groups"):
                    self.assertEqual(report["components"][k], want_report["components"][k], k)
                self.assertEqual(report["null_directions"]["total"],
                                 want_report["null_directions"]["total"])
                self.assertTrue(report["residual"]["converged"])
                got_h5 = h5_items(out + ".h5")
                self.assertEqual(sorted(got_h5), sorted(want_h5))
                with h5py.File(out + ".h5", "r") as a, h5py.File(tag + "-serial.h5", "r") as b:
                    np.testing.assert_allclose(a["pairs/rating"][()], b["pairs/rating"][()],
                                               rtol=0, atol=RATE_TOL)
                    np.testing.assert_array_equal(a["pairs/component"][()],
                                                  b["pairs/component"][()])

    def test_generated(self):
        self.same_ratings(Generated.archive("small.h5"))

    def test_generated_half_life_block_jacobi(self):
        self.same_ratings(Generated.archive("small.h5"), "--half-life", "90", "--solver",
                          "iterative", "--block-size", "64", "--datum", "nbb")

    def test_real(self):
        """Two dozen sessions apart: many components, Mitchells (fixed directions, groups)."""
        if not Imported.real:
            self.skipTest("no ../shared/datasets/real")
        self.same_ratings(Imported.real)
        self.same_ratings(Imported.real, "--half-life", "90", "--as-of", "2025-12-31")

    def test_congress_across(self):
        self.same_ratings(Imported.congress, "--across-sections")

    def test_auto_choice_after_the_trial(self):
        """--solver auto on datum-mpi: the serial program's Jacobi trial and choice. A calibration
        whose analysis is nearly free gives the trial its minimum, 20 iterations, which a club
        federation with little mixing needs more than; the rest of the calibration then makes block
        CG (block Jacobi here) or Jacobi the cheaper, and the ratings stay the serial program's."""
        archive = Generated.archive("low.h5")
        if not os.path.exists(archive):
            run([ARGS.datum, "generate", "--clubs", "6", "--years", "1", "--mixing", "low", "-o",
                 archive])
        rates = {"block": "analyse 1e12\nblock_flops 1e15\nsolve 1e15\n",
                 "jacobi": "analyse 1e12\nblock_flops 1\n"}
        for want, text in rates.items():
            calibration = os.path.join(ARGS.work, f"calibration-{want}.txt")
            with open(calibration, "w") as f:
                f.write(text)
            self.same_ratings(archive, "--calibration", calibration)
            for n in PROCESSES:
                with open(os.path.join(ARGS.work, f"rate-low.h5-2-{n}.json")) as f:
                    report = json.load(f)
                with self.subTest(want=want, processes=n):
                    auto = report["auto"]
                    self.assertEqual(auto["chosen"], want)
                    self.assertFalse(auto["forecast"]["analysed"])  # no direct path on PETSc
                    self.assertEqual(auto["forecast"]["trial_iterations"], 20)
                    self.assertGreater(auto["forecast"]["trial_residual"], 1e-10)
                    self.assertIsNone(auto["predicted_seconds"]["direct"])
                    self.assertEqual(report["solver"]["blocks"], n if want == "block" else 0)

    def test_serial_only_options(self):
        p = mpirun(2, "rate", Generated.archive("small.h5"), "--every", "month", "--out",
                   os.path.join(ARGS.work, "never.csv"), ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--every is datum rate's only", p.stderr)


class Failures(Base):
    """A run that fails exits non-zero on every process and leaves no output behind."""

    @classmethod
    def setUpClass(cls):
        Generated.setUpClass()

    def check_fails(self, *args, code=None, message):
        p = mpirun(2, *args, ok=False)
        self.assertNotEqual(p.returncode, 0)
        if code is not None:
            self.assertEqual(p.returncode, code)
        self.assertIn(message, p.stderr)
        self.assertEqual(leftovers(), [])

    def test_missing_archive(self):
        out = os.path.join(ARGS.work, "never.h5")
        self.check_fails("score", os.path.join(ARGS.work, "absent.h5"), "--datum", "nbb", "-o",
                         out, message="absent.h5")
        self.assertFalse(os.path.exists(out))

    def test_output_in_missing_folder(self):
        a = Generated.archive("small.h5")
        if not os.path.exists(a):
            self.skipTest("needs the generated archive")
        self.check_fails("score", a, "--datum", "nbb", "-o",
                         os.path.join(ARGS.work, "no-such-dir", "out.h5"), message="no-such-dir")

    def test_results_refused(self):
        a = Generated.archive("small.h5")
        if not os.path.exists(a):
            self.skipTest("needs the generated archive")
        out, res = os.path.join(ARGS.work, "refused.h5"), os.path.join(ARGS.work, "refused.csv")
        self.check_fails("cross", a, "-o", out, "--results", res, code=2,
                         message="writes no results CSV")
        self.assertFalse(os.path.exists(out) or os.path.exists(res))


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True, help="the serial datum")
    ap.add_argument("--datum-mpi", required=True)
    ap.add_argument("--work", required=True, help="a scratch folder (emptied)")
    ap.add_argument("--real", help="../shared/datasets/real (absent: skipped)")
    ap.add_argument("--mpirun", default="mpirun")
    ARGS, rest = ap.parse_known_args()
    shutil.rmtree(ARGS.work, ignore_errors=True)
    os.makedirs(ARGS.work)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
