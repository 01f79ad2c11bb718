#!/usr/bin/env python3
"""End-to-end tests of `datum import --format tarot` and `datum tarot` (seed 004, FFT Attaque-
Défense) on datasets/tarot: the seed's étui n°1 value by value, the bonus examples, ties, penalties,
the roadmap sheets and their index, several events, and every kind of bad input.

usage: test_tarot.py --datum BUILD/cli/datum [--source SOURCE_DIR] [unittest options]
"""
import csv
import glob
import html
import os
import re
import tempfile
import unittest

from e2e_common import program_args, read_table

PROGRAM = None  # set by main()
SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EVENT = "Attaque-Défense de Printemps"

ETUIS_COLUMNS = ["event", "etui", "position", "attacker", "defense", "score", "reference", "diff",
                 "pm_attack", "pct_attack", "reg_attack", "pm_defense", "pct_defense",
                 "reg_defense"]
RANKING_COLUMNS = ["side", "id", "etuis", "pm", "regularity", "bonus", "penalties", "total", "rank"]

# The seed's étui n°1, positions 1..11: its three tables (reference, PM in attack) and its last
# table (percentages and regularity, attack then defense; a blank regularity is 0).
SEED_SCORES = [62, 60, 66, 66, 74, 64, 58, 54, 56, 86, -98]
SEED_TABLES = {
    "mean": ("49.82", [3.49, 3.19, 4.02, 4.02, 4.92, 3.77, 2.86, 2.04, 2.49, 6.01, -12.16]),
    "minority": ("64.6",
                 [-1.61, -2.14, 1.18, 1.18, 3.07, -0.77, -2.57, -3.26, -2.93, 4.63, -12.75]),
    "fft": ("62.22", [-0.47, -1.49, 1.94, 1.94, 3.43, 1.33, -2.05, -2.87, -2.49, 4.88, -12.66]),
}
SEED_DIFF_FFT = [-0.22, -2.22, 3.78, 3.78, 11.78, 1.78, -4.22, -8.22, -6.22, 23.78, -160.22]
SEED_PCT_ATT = [50, 40, 75, 75, 90, 60, 30, 10, 20, 100, 0]
SEED_REG_ATT = [1, 0, 1.5, 1.5, 1.8, 1.2, 0, 0, 0, 2, 0]
SEED_PCT_DEF = [50, 60, 25, 25, 10, 40, 70, 90, 80, 0, 100]
SEED_REG_DEF = [1, 1.2, 0, 0, 0, 0, 1.4, 1.8, 1.6, 0, 2]


def dataset(name):
    return os.path.join(SOURCE, "datasets", "tarot", name)


def file_id(ident):
    """The file name part of an identifier, as docs/cli.md says: ASCII letters, digits and '-'
    kept, a blank as '_', every other byte as ~XX."""
    keep = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
    return "".join(chr(b) if b in keep else "_" if b == 32 else f"~{b:02X}"
                   for b in ident.encode("utf-8"))


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


class TarotTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="datum-tarot-")
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def inputs(self, ad=None, players=None, defenses=None, penalties="dataset"):
        """The import's file arguments, the dataset's unless given."""
        args = [ad or dataset("AD.csv"), "--players", players or dataset("players.csv"),
                "--defenses", defenses or dataset("defenses.csv")]
        if penalties == "dataset":
            penalties = dataset("penalties.csv")
        return args + (["--penalties", penalties] if penalties else [])

    def archive(self, name="tarot.h5", **files):
        out = self.path(name)
        p = PROGRAM.ok("import", "--format", "tarot", *self.inputs(**files), "-o", out)
        self.assertIn("imported", p.stdout)
        self.assertEqual(self.leftovers(), [])
        return out

    def leftovers(self):
        return [n for n in os.listdir(self.dir) if ".tmp-" in n]

    def tarot(self, *args, archive=None):
        """Runs `datum tarot` with --etuis and --rankings; returns their rows as dicts."""
        etuis, rankings = self.path("etuis.csv"), self.path("ranking.csv")
        PROGRAM.ok("tarot", archive or self.archive(), "--etuis", etuis, "--rankings", rankings,
                   *args)
        header, lines = read_table(etuis)
        self.assertEqual(header, ETUIS_COLUMNS)
        e = [dict(zip(header, line)) for line in lines]
        header, lines = read_table(rankings)
        r = [dict(zip(header, line)) for line in lines]
        return e, r, header

    @staticmethod
    def side(rankings, side, ident):
        [row] = [r for r in rankings if r["side"] == side and r["id"] == ident]
        return row


class SeedEtui(TarotTest):
    def etui1(self, *args):
        rows, _, _ = self.tarot(*args)
        rows = [r for r in rows if r["etui"] == "1"]
        self.assertEqual([r["position"] for r in rows], [str(p) for p in range(1, 12)])
        self.assertEqual([int(r["score"]) for r in rows], SEED_SCORES)
        return rows

    def test_reference_pm_percentage_regularity(self):
        rows = self.etui1()
        self.assertEqual({r["reference"] for r in rows}, {"62.22"})  # shortest round-trip text
        for i, r in enumerate(rows):
            with self.subTest(position=i + 1):
                self.assertEqual(float(r["diff"]), SEED_DIFF_FFT[i])
                self.assertEqual(float(r["pm_attack"]), SEED_TABLES["fft"][1][i])
                self.assertEqual(float(r["pm_defense"]), -SEED_TABLES["fft"][1][i])
                self.assertEqual(float(r["pct_attack"]), SEED_PCT_ATT[i])
                self.assertEqual(float(r["reg_attack"]), SEED_REG_ATT[i])
                self.assertEqual(float(r["pct_defense"]), SEED_PCT_DEF[i])
                self.assertEqual(float(r["reg_defense"]), SEED_REG_DEF[i])

    def test_the_seeds_three_reference_notes(self):
        for rule, (reference, pm) in SEED_TABLES.items():
            with self.subTest(reference=rule):
                rows = self.etui1("--reference", rule)
                self.assertEqual({r["reference"] for r in rows}, {reference})
                self.assertEqual([float(r["pm_attack"]) for r in rows], pm)

    def test_exact(self):
        rows = self.etui1("--exact")
        self.assertEqual({float(r["reference"]) for r in rows}, {560 / 9})  # 62.222...
        self.assertAlmostEqual(float(rows[9]["pm_attack"]), (86 - 560 / 9) ** 0.5, places=12)
        self.assertNotEqual(float(rows[9]["pm_attack"]), 4.88)

    def test_other_etuis(self):
        rows, _, _ = self.tarot()
        refs = {r["etui"]: r["reference"] for r in rows}
        # 2: 3 negatives of 11 dropped, the two +70 clipped; 3: undecided, plain mean;
        # 4 (GC): 3 positives dropped, -186 and -174 clipped.
        self.assertEqual(refs, {"1": "62.22", "2": "54.67", "3": "-12.55", "4": "-154"})
        self.assertEqual(len(rows), 44)


class Rankings(TarotTest):
    def test_format_ties_and_totals(self):
        _, rankings, header = self.tarot()
        self.assertEqual(header, RANKING_COLUMNS)
        for side in ("attack", "defense"):
            rows = [r for r in rankings if r["side"] == side]
            self.assertEqual(len(rows), 11)
            totals = [float(r["total"]) for r in rows]
            self.assertEqual(totals, sorted(totals, reverse=True))
            for r in rows:
                want = (float(r["pm"]) + float(r["regularity"]) + float(r["bonus"])
                        - float(r["penalties"]))
                self.assertAlmostEqual(float(r["total"]), want, places=9)
                # Tied totals share the better rank: 1 + the number of better totals.
                self.assertEqual(int(r["rank"]), 1 + sum(t > float(r["total"]) for t in totals))
                self.assertEqual(r["etuis"], "4")
        # Two attackers with the same scores, class and no penalty tie for second place.
        ranks = [(r["id"], r["rank"]) for r in rankings if r["side"] == "attack"][:4]
        self.assertEqual([rank for _, rank in ranks], ["1", "2", "2", "4"])
        self.assertEqual({i for i, rank in ranks if rank == "2"},
                         {"CHASSAGNE Léa", "DELORME Hugo"})

    def test_bonus_examples(self):
        # The seed: 1C at 22 étuis 4.2; 3T at 22 29.4; a defense 1K, 1T, 2T at 26 15.318.
        _, r, _ = self.tarot("--bonus-etuis", "22")
        self.assertEqual(self.side(r, "attack", "AUBRY Camille")["bonus"], "4.2")
        self.assertEqual(self.side(r, "attack", "BARRAULT Théo")["bonus"], "29.4")
        _, r, _ = self.tarot("--bonus-etuis", "26")
        self.assertEqual(self.side(r, "defense", "1")["bonus"], "15.318")
        # By default each side's own étuis count: 4 played, coefficient 2.4.
        _, r, _ = self.tarot()
        self.assertEqual(self.side(r, "attack", "AUBRY Camille")["bonus"], "2.4")
        self.assertEqual(self.side(r, "defense", "1")["bonus"], "7.992")  # 3.33 x 2.4

    def test_penalties_and_compensations(self):
        _, r, _ = self.tarot()
        self.assertEqual(self.side(r, "attack", "BARRAULT Théo")["penalties"], "2")
        self.assertEqual(self.side(r, "defense", "5")["penalties"], "-0.5")  # -1 + 0.5
        self.assertEqual(self.side(r, "attack", "AUBRY Camille")["penalties"], "0")
        _, r, _ = self.tarot(archive=self.archive("plain.h5", penalties=None))
        self.assertEqual(self.side(r, "attack", "BARRAULT Théo")["penalties"], "0")

    def test_printed_without_outputs(self):
        p = PROGRAM.ok("tarot", self.archive())
        self.assertIn(EVENT, p.stdout)
        self.assertIn("14/03/2026", p.stdout)
        attack, defense = p.stdout.split("\nDefense\n")
        self.assertIn("Attack", attack)
        self.assertEqual(attack.count("CHASSAGNE Léa"), 1)
        self.assertRegex(attack, r"\n +2 +29\.780 .*CHASSAGNE Léa\n +2 +29\.780 .*DELORME Hugo")
        self.assertEqual(len(defense.strip().splitlines()), 12)  # header + 11 defenses

    def test_several_events(self):
        ad = read_csv(dataset("AD.csv"))
        second = [[("Soirée d'automne" if i == 0 else v) for i, v in enumerate(row)]
                  for row in ad[1:] if row[2] in ("1", "2")]
        for row in second:
            row[1] = "2026-10-02"
        write_csv(self.path("two.csv"), ad + second[::-1])
        archive = self.archive("two.h5", ad=self.path("two.csv"))
        _, r, header = self.tarot(archive=archive)
        self.assertEqual(header, ["event"] + RANKING_COLUMNS)
        events = {row["event"] for row in r}
        self.assertEqual(events, {EVENT, "Soirée d'automne"})
        for event in events:
            for side in ("attack", "defense"):
                rows = [x for x in r if x["event"] == event and x["side"] == side]
                self.assertEqual(len(rows), 11)
                self.assertEqual(rows[0]["rank"], "1")  # ranked per event
        autumn = [x for x in r if x["event"] == "Soirée d'automne"]
        self.assertEqual({x["etuis"] for x in autumn}, {"2"})
        # --event scores one event, in the one-event format.
        _, r, header = self.tarot("--event", "Soirée d'automne", archive=archive)
        self.assertEqual(header, RANKING_COLUMNS)
        self.assertEqual(len(r), 22)
        # Sheets: one folder per event, all in the index.
        PROGRAM.ok("tarot", archive, "--sheets", self.path("sheets"))
        names = sorted(os.path.relpath(p, self.path("sheets"))
                       for p in glob.glob(self.path("sheets", "**", "*.html"), recursive=True))
        self.assertEqual(len(names), 2 * 22 + 1)
        self.assertIn("Soir~C3~A9e_d~27automne/defense-7.html", names)
        with open(self.path("sheets", "index.html"), encoding="utf-8") as f:
            index = f.read()
        for name in names:
            if name != "index.html":
                self.assertIn(f'href="{html.escape(name)}"', index)


class Sheets(TarotTest):
    def sheets(self, *args):
        out = self.path("sheets")
        PROGRAM.ok("tarot", self.archive(), "--sheets", out, *args)
        self.assertEqual([n for n in os.listdir(self.dir) if "tmp" in n], [])
        return out

    def read(self, *names):
        with open(self.path(*names), encoding="utf-8") as f:
            return f.read()

    def test_a_sheet_per_side_and_the_index(self):
        out = self.sheets()
        names = sorted(os.listdir(out))
        attackers = {row[5] for row in read_csv(dataset("AD.csv"))[1:]}
        want = sorted(["index.html"] + [f"attaque-{file_id(a)}.html" for a in attackers]
                      + [f"defense-{d}.html" for d in range(1, 12)])
        self.assertEqual(len(attackers), 11)
        self.assertEqual(names, want)
        self.assertIn("attaque-BARRAULT_Th~C3~A9o.html", names)
        index = self.read("sheets", "index.html")
        for name in names:
            if name != "index.html":
                self.assertIn(f'href="{name}"', index)
        self.assertIn("Classement Attaque", index)
        self.assertIn("Classement Défense", index)

    def test_french_values_of_the_seed(self):
        out = self.sheets("--bonus-etuis", "26")
        # The seed's sheet: the defense at position 1 of étui n°1 against +62.
        page = self.read("sheets", "defense-1.html")
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", page.split("<tbody>", 2)[2])[:10]
        self.assertEqual(cells, ["1", "G", "AUBRY Camille", "62", "10", "1", "62,22", "0,47",
                                 "50,00%", "1,00"])
        for text in ("<th>Attaquant adverse</th>", "<th>Bonus de départ</th><td>15,318</td>",
                     "Total général", "Rang théorique sur la séance", "sur 11",
                     "PELLERIN Agathe, QUINTARD Romain, RABOTEAU Yvette", "1K, 1T, 2T",
                     "14/03/2026", '<html lang="fr">'):
            self.assertIn(text, page)
        page = self.read("sheets", "attaque-AUBRY_Camille.html")
        for text in ("<th>Défense adverse</th>", ">-0,47<", ">50,00%<", ">62,22<", ">1,00<",
                     ">-154,00<", "1C"):
            self.assertIn(text, page)
        page = self.read("sheets", "attaque-MARCADIER_Zo~C3~A9.html")
        self.assertIn(">-12,66<", page)
        self.assertIn(">0,00%<", page)
        self.assertTrue(os.path.isdir(out))

    def test_existing_directory_kept(self):
        os.mkdir(self.path("sheets"))
        with open(self.path("sheets", "notes.txt"), "w") as f:
            f.write("mine")
        self.sheets()
        self.assertEqual(self.read("sheets", "notes.txt"), "mine")
        self.assertEqual(len(os.listdir(self.path("sheets"))), 24)

    def test_nothing_left_on_failure(self):
        archive = self.archive()
        ranking = self.path("ranking.csv")
        # The sheets cannot be written (the parent is missing): no file at all.
        p = PROGRAM.run("tarot", archive, "--rankings", ranking, "--sheets",
                        self.path("no", "such", "dir"))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"^datum: cannot create .*no/such/dir")
        self.assertEqual(sorted(os.listdir(self.dir)), ["tarot.h5"])
        # A file where the directory should be.
        with open(self.path("file"), "w") as f:
            f.write("x")
        p = PROGRAM.run("tarot", archive, "--rankings", ranking, "--sheets", self.path("file"))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(sorted(os.listdir(self.dir)), ["file", "tarot.h5"])


class Archive(TarotTest):
    def test_order_free(self):
        ad = read_csv(dataset("AD.csv"))
        write_csv(self.path("shuffled.csv"), ad[:1] + ad[1:][::-1])
        players = read_csv(dataset("players.csv"))
        write_csv(self.path("players.csv"), players[:1] + players[1:][::-1])
        a = self.archive("a.h5")
        b = self.archive("b.h5", ad=self.path("shuffled.csv"), players=self.path("players.csv"))
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())

    def test_readable_with_h5py(self):
        try:
            import h5py
        except ImportError:
            self.skipTest("h5py is not installed")
        with h5py.File(self.archive(), "r") as f:
            self.assertEqual(f.attrs["format"], "datum-tarot")
            self.assertEqual(f.attrs["format_version"], 1)
            players = list(f["dict/players"].asstr()[:])
            classes = list(f["dict/classements"].asstr()[:])
            attacker = f["results/attacker"][:].astype(int)
            score = f["results/score"][:].astype(int)
            offset = f["etuis/offset"][:].astype(int)
            self.assertEqual(list(score[offset[0]:offset[1]]), SEED_SCORES)
            self.assertEqual(players[attacker[0]], "AUBRY Camille")
            self.assertEqual(classes[f["players/classement"][attacker[0]]], "1C")
            self.assertEqual(list(f["dict/contracts"].asstr()[:]), ["G", "GS", "GC"])
            self.assertEqual(sorted(f["penalties/pm"][:]), [-1.0, 0.5, 2.0])

    def test_not_a_tarot_archive(self):
        bridge = self.path("bridge.h5")
        PROGRAM.ok("import", os.path.join(SOURCE, "datasets", "seeds", "nbb-board6.csv"), "-o",
                   bridge)
        p = PROGRAM.run("tarot", bridge)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a tarot archive", p.stderr)
        with open(self.path("text.h5"), "w") as f:
            f.write("hello")
        p = PROGRAM.run("tarot", self.path("text.h5"))
        self.assertEqual((p.returncode, "not an HDF5 file" in p.stderr), (2, True))
        p = PROGRAM.run("tarot", self.path("missing.h5"))
        self.assertEqual((p.returncode, "No such file" in p.stderr), (1, True))

    def test_usage_errors(self):
        archive = self.archive()
        for args, what in ((["--reference", "median"], "--reference"),
                           (["--bonus-etuis", "0"], "--bonus-etuis"),
                           (["--event", "Nope"], 'no event "Nope"'),
                           (["--unknown"], "unknown option")):
            p = PROGRAM.run("tarot", archive, *args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(what, p.stderr)
        for args in ([dataset("AD.csv"), "--players", dataset("players.csv")],
                     [dataset("AD.csv"), dataset("AD.csv"), "--players", dataset("players.csv"),
                      "--defenses", dataset("defenses.csv")],
                     ["--format", "belote", dataset("AD.csv")]):
            p = PROGRAM.run("import", "--format", "tarot", *args, "-o", self.path("x.h5"))
            self.assertEqual(p.returncode, 2, args)
        p = PROGRAM.run("import", dataset("AD.csv"), "--players", dataset("players.csv"), "-o",
                        self.path("x.h5"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("--format tarot", p.stderr)


def edit(rows, line, column, value):
    """A copy of a CSV's rows with rows[line - 1][column] = value (line as in the file)."""
    rows = [list(r) for r in rows]
    rows[line - 1][rows[0].index(column) if isinstance(column, str) else column] = value
    return rows


class BadInput(TarotTest):
    """Each bad file: exit 2, "datum: FILE:LINE: column NAME: ..." and nothing written."""

    def refuse(self, which, rows, line, column, message):
        path = self.path(f"bad-{which}.csv")
        write_csv(path, rows)
        out = self.path("out.h5")
        with open(out, "w") as f:
            f.write("the old archive")
        p = PROGRAM.run("import", "--format", "tarot", *self.inputs(**{which: path}), "-o", out)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        where = f":{line}: column {column}" if line else ""
        self.assertRegex(p.stderr, rf"^datum: {re.escape(path)}{where}: ")
        self.assertIn(message, p.stderr)
        with open(out) as f:
            self.assertEqual(f.read(), "the old archive")  # untouched
        self.assertEqual(self.leftovers(), [])

    def refuse_all(self, which, cases):
        for rows, line, column, message in cases:
            with self.subTest(file=which, message=message):
                self.refuse(which, rows, line, column, message)

    def test_results(self):
        ad = read_csv(dataset("AD.csv"))
        cases = [
            (edit(ad, 3, "score", "0"), 3, "score", "a score of 0 is impossible"),
            (edit(ad, 4, "score", "12.5"), 4, "score", '"12.5" is not an integer'),
            (edit(ad, 5, "contract", "GG"), 5, "contract", '"GG" is not a contract'),
            (edit(ad, 14, "contract", "GS"), 14, "contract", "GS, but étui 2"),
            (edit(ad, 6, "date", "2026-13-01"), 6, "date", "is not a date"),
            (edit(ad, 7, "date", "14/03/2026"), 7, "date", "is not a date"),
            (edit(ad, 9, "date", "2026-02-29"), 9, "date", '"2026-02-29" is not a date'),
            (edit(ad, 10, "date", "2026-04-31"), 10, "date", '"2026-04-31" is not a date'),
            (edit(ad, 8, "attacker", "INCONNU Jean"), 8, "attacker", 'unknown attacker "INCONNU'),
            (edit(ad, 9, "defense", "12"), 9, "defense", 'unknown defense "12"'),
            (edit(ad, 10, "position", "2"), 10, "position",
             "étui 1 position 2 of event \"Attaque-Défense de Printemps\" already appears at"),
            (edit(ad, 11, "attacker", "AUBRY Camille"), 11, "attacker",
             'attacker "AUBRY Camille" already plays étui 1'),
            (edit(ad, 12, "defense", "1"), 12, "defense", 'defense "1" already plays étui 1'),
            (edit(ad, 12, "etui", "0"), 12, "etui", "out of range"),
            (edit(ad, 12, "position", "-1"), 12, "position", "out of range"),
            (edit(ad, 14, "event", ""), 14, "event", "empty"),
            (edit(ad, 1, "score", "points"), 1, "score", "missing from the header"),
            (ad[:5] + [ad[5][:-1]] + ad[6:], 6, "score", "missing field"),
        ]
        self.refuse_all("ad", cases)
        self.refuse("ad", ad[:1], None, None, "no results")  # a header only: the file is named

    def test_players_and_defenses(self):
        players, defenses = read_csv(dataset("players.csv")), read_csv(dataset("defenses.csv"))
        self.refuse_all("players", (
                (edit(players, 2, "classement", "1X"), 2, "classement",
                 '"1X" is not a national classification'),
                (edit(players, 3, "classement", ""), 3, "classement", "not a national"),
                (players + [["AUBRY Camille", "2C"]], len(players) + 1, "player",
                 '"AUBRY Camille" already appears at'),
                (edit(players, 4, "player", ""), 4, "player", "empty")))
        self.refuse_all("defenses", (
                (edit(defenses, 3, "player2", ""), 3, "player2", "a defense has three players"),
                (edit(defenses, 4, "player3", "INCONNU Jean"), 4, "player3",
                 'unknown player "INCONNU Jean"'),
                (edit(defenses, 5, "player3", defenses[4][1]), 5, "player3",
                 "is already player1 of this defense"),
                (defenses + [["3", "AUBRY Camille", "BARRAULT Théo", "CHASSAGNE Léa"]],
                 len(defenses) + 1, "defense", '"3" already appears at'),
                ([row[:3] for row in defenses], 1, "player3", "missing from the header")))

    def test_penalties(self):
        pen = read_csv(dataset("penalties.csv"))
        self.refuse_all("penalties", (
                (edit(pen, 2, "event", "Autre tournoi"), 2, "event", 'unknown event "Autre'),
                (edit(pen, 3, "side", "attaque"), 3, "side", "is not a side (attack or defense)"),
                (edit(pen, 2, "id", "NOBODY"), 2, "id", 'unknown attacker "NOBODY"'),
                (edit(pen, 2, "id", "PELLERIN Agathe"), 2, "id", "does not play in event"),
                (edit(pen, 3, "id", "99"), 3, "id", 'unknown defense "99"'),
                (edit(pen, 4, "pm", "1,5"), 4, "pm", "is not a number of PM"),
                (edit(pen, 4, "pm", "nan"), 4, "pm", "is not a number of PM"),
                (edit(pen, 4, "pm", "1e9"), 4, "pm", "is not a number of PM"),
                (edit(pen, 4, "pm", "2000000"), 4, "pm", "out of range")))


def main():
    global PROGRAM, SOURCE
    PROGRAM, SOURCE, argv = program_args(SOURCE)
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
