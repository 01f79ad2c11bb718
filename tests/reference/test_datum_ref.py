#!/usr/bin/env python3
"""Unit tests of the reference implementation against the seeds' worked examples (methods.md)."""
import os
import sys
import unittest
from fractions import Fraction as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import datum_ref as ref  # noqa: E402

SEEDS = os.path.join(HERE, "..", "..", "datasets", "seeds")
WBF = ref.Scale()
LINEAR = ref.Scale("linear")

# The WBF table as methods.md prints it: (lowest |d|, highest |d|) -> IMPs, over multiples of 10.
WBF_BANDS = [(0, 10), (20, 40), (50, 80), (90, 120), (130, 160), (170, 210), (220, 260),
             (270, 310), (320, 360), (370, 420), (430, 490), (500, 590), (600, 740), (750, 890),
             (900, 1090), (1100, 1290), (1300, 1490), (1500, 1740), (1750, 1990), (2000, 2240),
             (2250, 2490), (2500, 2990), (3000, 3490), (3500, 3990), (4000, 7600)]


def seed_results(name, preset, scale=WBF, **overrides):
    """Butler results of a seed CSV: (datums of its fields, {pair: imps})."""
    rows, _ = ref.read_csv([os.path.join(SEEDS, name)])
    results = ref.score(rows, ref.replace(ref.PRESETS[preset], **overrides), scale)
    return ({b.datum for b in results}, {t.pair: t.imps for t in ref.butler_pairs(results)})


class Scales(unittest.TestCase):
    def test_wbf_table(self):
        for imps, (lo, hi) in enumerate(WBF_BANDS):
            for d in range(lo, hi + 1, 10):
                self.assertEqual((ref.wbf(d), ref.wbf(-d)), (imps, -imps), d)

    def test_wbf_boundaries(self):
        for d, imps in ((15, 1), (F("14.99"), 0), (4000, 24), (-15, -1), (F(45), 2),
                        (F(89, 2), 1), (99999, 24), (F(2495), 21), (F("2494.9"), 20)):
            self.assertEqual(ref.wbf(F(d)), imps, d)

    def test_linear_seed_003(self):
        for d, imps in ((57, "1.8"), (163, "4.45"), (82, "2.425"), (168, "4.56"), (-57, "-1.8")):
            self.assertEqual(LINEAR.imp(d), F(imps), d)

    def test_linear_midpoints_and_ends(self):
        for i, b in enumerate(ref.WBF_MIDPOINTS):
            self.assertEqual(LINEAR.imp(b), i + F(1, 2), b)
        self.assertEqual(LINEAR.imp(30), 1)
        self.assertEqual(LINEAR.imp(F(45)), F(3, 2))
        self.assertEqual(LINEAR.imp(6000), F(6000 + 7755, 500))  # no cap at 24
        self.assertEqual(LINEAR.imp(-6000), -F(6000 + 7755, 500))
        # the seed's table: 45..165 is (d+15)/40, 595..895 is (d+1130)/150
        self.assertEqual(LINEAR.imp(100), F(115, 40))
        self.assertEqual(LINEAR.imp(700), F(1830, 150))

    def test_double_and_half(self):
        self.assertEqual(ref.Scale(double=True).imp(10), 1)  # 2*10 = 20 -> 1
        self.assertEqual(ref.Scale(half=True).imp(20), F(1, 2))
        self.assertEqual(ref.Scale(double=True, half=True).imp(-100), F(-5, 2))  # -200: -5
        # linear, doubled and halved: 45 -> 90 -> 105/40 -> 21/16
        self.assertEqual(ref.Scale("linear", double=True, half=True).imp(45), F(21, 16))


class Datum(unittest.TestCase):
    def test_nbb_trim_table(self):
        nbb = ref.PRESETS["nbb"]
        for lo, hi, k in ((6, 10, 1), (11, 20, 2), (21, 30, 3), (31, 40, 4)):
            for n in range(lo, hi + 1):
                self.assertEqual(ref.trim_count(n, nbb), k, n)

    def test_rounding_seed_001(self):
        cases = {"97": 100, "-331": -330, "224.99": 220, "115.02": 120, "335": 330, "-335": -330,
                 "175": 170, "-415": -410, "-72.5": -70, "0": 0, "5": 0, "-5": 0, "15": 10}
        for x, r in cases.items():
            self.assertEqual(ref.round_unit(F(x), "toward-zero", 10), r, x)

    def test_rounding_rules(self):
        cases = {"even": {175: 180, 165: 160, -175: -180, -165: -160, 171: 170},
                 "away": {335: 340, -335: -340, 331: 330, -5: -10},
                 "up": {335: 340, -335: -330, 5: 10, -5: 0},
                 "none": {335: 335, F(1, 3): F(1, 3)},
                 "truncate": {F(220, 3): 70, F(-290, 3): -90, 179: 170, -179: -170, 5: 0}}
        for mode, table in cases.items():
            for x, r in table.items():
                self.assertEqual(ref.round_unit(F(x), mode, 10), r, (mode, x))
        self.assertEqual(ref.round_unit(F(250), "toward-zero", 100), 200)
        self.assertEqual(ref.round_unit(F(-250), "even", 100), -200)

    def test_seed_001_board_6(self):
        datums, imps = seed_results("nbb-board6.csv", "nbb")
        self.assertEqual(datums, {-70})
        self.assertEqual(imps, {"1": -1, "2": 2, "3": -2, "4": 2, "5": 14, "6": 7, "7": 1, "8": 5,
                                "9": -5, "10": -7, "11": -2, "12": -14})

    def test_seed_001_board_7(self):
        datums, imps = seed_results("nbb-board7.csv", "nbb")
        self.assertEqual(datums, {200})
        self.assertEqual(imps, {"1": 9, "2": 2, "3": -7, "4": 7, "5": 7, "6": 7, "7": -9, "8": -7,
                                "9": -2, "10": -7})
        # middle weight 3: (-100 + 620 + 3*(-100 + 140 + 500)) / 11 = 194.5... -> 190
        self.assertEqual(seed_results("nbb-board7.csv", "nbb", middle_weight=3)[0], {190})

    def test_seed_003_bastille(self):
        for name, d, hw, lw in (("bastille-scheveningen.csv", 237, "1.8", "4.45"),
                                ("bastille-scheveningen-rectified.csv", 232, "2.425", "4.56")):
            datums, imps = seed_results(name, "bastille", LINEAR)
            self.assertEqual(datums, {d})
            self.assertEqual((imps["Hamman-Wolff"], imps["Leufkens-Westra"]), (F(hw), F(lw)))

    def test_seed_003_nbb(self):
        for name, d, hw, lw in (("bastille-scheveningen.csv", 240, 2, 4),
                                ("bastille-scheveningen-rectified.csv", 230, 2, 5)):
            datums, imps = seed_results(name, "nbb")
            self.assertEqual(datums, {d})
            self.assertEqual((imps["Hamman-Wolff"], imps["Leufkens-Westra"]), (hw, lw))

    def test_small_fields(self):
        nbb, bastille = ref.PRESETS["nbb"], ref.PRESETS["bastille"]
        self.assertEqual(ref.datum([100, 430], nbb), 260)  # plain mean 265, halves toward zero
        self.assertEqual(ref.datum([-425], nbb), -420)
        self.assertEqual(ref.datum([100, 430], bastille), 265)  # k capped at 0
        self.assertEqual(ref.datum([100, 430, 2000], bastille), 430)  # k = 1: the middle one
        self.assertIsNone(ref.datum([], nbb))

    def test_trim_percentages(self):
        r = ref.Recipe(trim="5%")
        self.assertEqual([ref.trim_count(n, r) for n in (3, 20, 21, 40, 41)], [1, 1, 2, 2, 3])
        floor, nearest = ref.replace(r, trim_round="floor"), ref.replace(r, trim_round="nearest")
        self.assertEqual([ref.trim_count(n, floor) for n in (19, 20, 39, 40)], [0, 1, 1, 2])
        self.assertEqual([ref.trim_count(n, nearest) for n in (9, 10, 29, 30)], [0, 1, 1, 2])
        self.assertEqual(ref.trim_count(4, ref.Recipe(trim="3")), 1)
        self.assertEqual(ref.trim_count(9, ref.Recipe(trim="12.5%")), 2)

    def test_centers(self):
        s = [10, 20, 50, 90]
        for how, d in (("mean", F(170, 4)), ("median-low", 20), ("median-high", 50),
                       ("median", 35)):
            self.assertEqual(ref.center(s, how), d, how)
        self.assertEqual(ref.center([10, 20, 50], "median"), 20)

    def test_acbl_and_bridgewx(self):
        scores = [170, 180, 990, -50, 140, 140, 110, 620, 450, 420]  # n = 10
        acbl, bridgewx = ref.PRESETS["acbl"], ref.PRESETS["bridgewx"]
        self.assertEqual(ref.datum(scores, acbl), 280)  # k = 1: 2230/8 = 278.75
        self.assertEqual(ref.datum(scores, bridgewx), 280)
        self.assertEqual(ref.datum(scores[:5], acbl), 160)  # k = 1: 490/3
        self.assertEqual(ref.datum(scores[:5], bridgewx), 290)  # n < 6: 1430/5 = 286
        self.assertEqual(ref.datum([160, 170], acbl), 160)  # 165 to even
        self.assertEqual(ref.datum([160, 170], bridgewx), 170)  # 165 away from zero

    def test_par(self):
        self.assertEqual(ref.par([100, 100]), 90)  # zero sum for 90..110: closest to zero
        self.assertEqual(ref.par([-100, -100]), -90)
        self.assertEqual(ref.par([0, 30]), 0)  # no zero sum: |sum| = 1 from -10 to 40
        for scores in ([420, 450, -50, 110, 1430, 140, 140], [-2000, 7600], [5]):
            d = ref.par(scores)
            best = min(abs(sum(ref.wbf(s - e) for s in scores)) for e in range(-8000, 8001, 10))
            self.assertEqual(abs(sum(ref.wbf(s - d) for s in scores)), best, scores)


class ButlerAndCross(unittest.TestCase):
    def rows(self, *specs):
        """Rows of one field from (ns_pair, ew_pair, score or adjusted token)."""
        return [ref.Row("E", "2024-01-01", "A", 1, t, ns, ew,
                        None if isinstance(v, str) else v, v if isinstance(v, str) else "")
                for t, (ns, ew, v) in enumerate(specs, 1)]

    def test_adjusted_tokens(self):
        rows = self.rows(*((f"n{i}", f"e{i}", tok) for i, tok in enumerate(ref.ADJUSTED_TOKENS)))
        got = [(b.ns_imps, b.ew_imps, b.datum) for b in ref.score(rows, ref.Recipe(), WBF)]
        self.assertEqual(len(ref.ADJUSTED_TOKENS), 12)  # A+, A, A- and their 9 NS/EW pairs
        self.assertEqual(got, [(3, -3, None), (0, 0, None), (-3, 3, None),  # A+, A, A-
                               (3, 3, None), (3, 0, None), (3, -3, None),  # A+/A+, A+/A, A+/A-
                               (0, 3, None), (0, 0, None), (0, -3, None),  # A/A+, A/A, A/A-
                               (-3, 3, None), (-3, 0, None), (-3, -3, None)])  # A-/A+, A-/A, A-/A-
        two = ref.score(rows[:1], ref.Recipe(), WBF, adjusted_imps=(2, 0, -2))
        self.assertEqual((two[0].ns_imps, two[0].ew_imps), (2, -2))

    def test_butler_pairs_count_every_row(self):
        rows = self.rows(("a", "b", 100), ("c", "d", 200), ("e", "f", "A+"))
        rows.append(ref.Row("E", "2024-01-01", "A", 2, 1, "b", "a", 420, ""))  # one-table field
        totals = {t.pair: t for t in ref.butler_pairs(ref.score(rows, ref.Recipe(), WBF))}
        self.assertEqual((totals["a"].boards, totals["a"].imps), (2, -2))
        self.assertEqual((totals["b"].boards, totals["b"].imps), (2, 2))
        self.assertEqual((totals["e"].imps, totals["f"].imps, totals["f"].imps_per_board),
                         (3, -3, -3))

    def test_cross(self):
        rows = self.rows(("a", "b", 100), ("c", "d", 0), ("e", "f", 0), ("g", "h", "A"))
        got = [(x.row.table, x.raw, x.avg, x.terms) for x in ref.cross(rows, WBF)]
        self.assertEqual(got, [(1, 6, 3, 2), (2, -3, F(-3, 2), 2), (3, -3, F(-3, 2), 2)])
        self.assertEqual([x.avg for x in ref.cross(rows, WBF, "n")], [2, -1, -1])
        # tables: 4 tables, 3 played: raw x 4 / (3 x 3); every table played: n-1
        self.assertEqual([x.avg for x in ref.cross(rows, WBF, "tables")],
                         [F(8, 3), F(-4, 3), F(-4, 3)])
        self.assertEqual([x.avg for x in ref.cross(rows[:3], WBF, "tables")],
                         [3, F(-3, 2), F(-3, 2)])
        totals = {t.pair: t for t in ref.cross_pairs(ref.cross(rows, WBF, "none"))}
        self.assertEqual((totals["b"].imps, totals["b"].raw, totals["b"].boards), (-6, -6, 1))
        self.assertNotIn("g", totals)
        self.assertEqual(ref.cross(rows[:1] + rows[3:], WBF), [])  # one real score: no cross row


if __name__ == "__main__":
    unittest.main()
