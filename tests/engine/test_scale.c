/* test_scale.c - IMP scales against the spec's band table and seed 003. */
#include "test_util.h"
#include "datum.h"

#include <math.h>

static const datum_scale kWbf = {DATUM_SCALE_WBF, 0, 0};
static const datum_scale kLinear = {DATUM_SCALE_LINEAR, 0, 0};

/* methods.md §1 lists the bands by the largest multiple of 10 of each:
 * 0-10:0, 20-40:1, ..., 3500-3990:23, 4000+:24. */
static int wbf_from_band_table(int d)
{
    static const int top[] = {10,  40,  80,  120,  160,  210,  260,  310,  360,  420,  490,  590,
                              740, 890, 1090, 1290, 1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990};
    int a = d < 0 ? -d : d, band = 0;
    while (band < 24 && a > top[band]) band++;
    return d < 0 ? -band : band;
}

static void test_wbf_matches_band_table(void **state)
{
    for (int d = -5000; d <= 5000; d += 10)
        assert_int_equal((int)datum_imp_ratio(&kWbf, d, 1), wbf_from_band_table(d));
}

static void test_wbf_boundaries_are_midpoints(void **state)
{
    assert_int_equal((int)datum_imp_ratio(&kWbf, 15, 1), 1);
    assert_int_equal((int)datum_imp_ratio(&kWbf, 1499, 100), 0); /* 14.99 */
    assert_int_equal((int)datum_imp_ratio(&kWbf, -15, 1), -1);
    assert_int_equal((int)datum_imp_ratio(&kWbf, 2995, 1), 22);
    assert_int_equal((int)datum_imp_ratio(&kWbf, 2994, 1), 21);
    assert_int_equal((int)datum_imp_ratio(&kWbf, 4000, 1), 24);
    assert_int_equal((int)datum_imp_ratio(&kWbf, 99999, 1), 24);
    assert_int_equal((int)datum_imp_ratio(&kWbf, -1000000, 7), -24);
    assert_int_equal(datum_imp_wbf(14.99), 0);
    assert_int_equal(datum_imp_wbf(15.0), 1);
    /* Seed 001 §10.7: +650 against a datum of +560 is +3, the EW side -3. */
    assert_int_equal((int)datum_imp_ratio(&kWbf, 650 - 560, 1), 3);
    assert_int_equal((int)datum_imp_ratio(&kWbf, -650 + 560, 1), -3);
}

/* The table lookup on floor(|d|/5) agrees with direct comparison against the
 * midpoints for every rational difference. */
static void test_wbf_exact_for_rationals(void **state)
{
    for (int64_t den = 1; den <= 12; den++)
        for (int64_t num = -4200 * den; num <= 4200 * den; num++)
            assert_int_equal((int)datum_imp_ratio(&kWbf, num, den),
                             datum_imp_wbf((double)num / (double)den));
}

static void test_linear_seed_003(void **state)
{
    /* The Scheveningen story: 57 -> 1.8, 163 -> 4.45, 82 -> 2.425, 168 -> 4.56. */
    assert_true(fabs(datum_imp_ratio(&kLinear, 57, 1) - 1.8) < 1e-12);
    assert_true(fabs(datum_imp_ratio(&kLinear, 163, 1) - 4.45) < 1e-12);
    assert_true(fabs(datum_imp_ratio(&kLinear, 82, 1) - 2.425) < 1e-12);
    assert_true(fabs(datum_imp_ratio(&kLinear, 168, 1) - 4.56) < 1e-12);
    assert_true(fabs(datum_imp_ratio(&kLinear, -57, 1) + 1.8) < 1e-12);
}

/* Seed 003's table of segment formulas, written out independently. */
static double linear_from_seed_table(double x)
{
    if (x < 45) return x / 30;
    if (x < 165) return (x + 15) / 40;
    if (x < 365) return (x + 60) / 50;
    if (x < 425) return (x + 145) / 60;
    if (x < 495) return (x + 240) / 70;
    if (x < 595) return (x + 555) / 100;
    if (x < 895) return (x + 1130) / 150;
    if (x < 1495) return (x + 1805) / 200;
    if (x < 2495) return (x + 2630) / 250;
    return (x + 7755) / 500;
}

static void test_linear_matches_seed_table(void **state)
{
    for (int x = 0; x <= 6000; x++) {
        double expect = linear_from_seed_table(x);
        assert_true(fabs(datum_imp_ratio(&kLinear, x, 1) - expect) < 1e-12);
        assert_true(fabs(datum_imp_ratio(&kLinear, -x, 1) + expect) < 1e-12);
        assert_true(fabs(datum_imp(&kLinear, x) - expect) < 1e-12);
    }
    /* Exact fractions next to every boundary (den up to 60, as a trimmed
     * mean's): the segment is chosen exactly, a neighbour would differ. */
    static const int boundary[] = {15,  45,  85,  125,  165,  215,  265,  315,  365,  425,  495,  595,
                                   745, 895, 1095, 1295, 1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995};
    for (int64_t den = 1; den <= 60; den++)
        for (size_t b = 0; b < sizeof boundary / sizeof *boundary; b++)
            for (int64_t num = boundary[b] * den - 3; num <= boundary[b] * den + 3; num++) {
                double expect = linear_from_seed_table((double)num / (double)den);
                assert_true(fabs(datum_imp_ratio(&kLinear, num, den) - expect) < 1e-12);
                assert_true(fabs(datum_imp_ratio(&kLinear, -num, den) + expect) < 1e-12);
            }
    /* The midpoints carry half IMPs: 15 -> 0.5 ... 3995 -> 23.5, and no cap. */
    assert_true(datum_imp_ratio(&kLinear, 15, 1) == 0.5);
    assert_true(datum_imp_ratio(&kLinear, 3995, 1) == 23.5);
    assert_true(datum_imp_ratio(&kLinear, 10000, 1) > 24);
}

static void test_double_and_half(void **state)
{
    datum_scale doubled = {DATUM_SCALE_WBF, 1, 0}, halved = {DATUM_SCALE_WBF, 0, 1},
                both = {DATUM_SCALE_WBF, 1, 1};
    assert_true(datum_imp_ratio(&doubled, 10, 1) == 1.0);  /* 20 -> 1 */
    assert_true(datum_imp_ratio(&doubled, 45, 1) == 3.0);  /* 90 -> 3 */
    assert_true(datum_imp_ratio(&halved, 90, 1) == 1.5);
    assert_true(datum_imp_ratio(&both, -45, 1) == -1.5);
    datum_scale lin2 = {DATUM_SCALE_LINEAR, 1, 1};
    assert_true(fabs(datum_imp_ratio(&lin2, 41, 1) - 2.425 / 2) < 1e-12); /* 2*41 = 82 -> 2.425 */
}

static void test_no_negative_zero(void **state)
{
    assert_false(signbit(datum_imp_ratio(&kWbf, -5, 1)));
    assert_false(signbit(datum_imp_ratio(&kLinear, 0, 1)));
    assert_false(signbit(datum_imp(&kWbf, -3.0)));
}

/* A Butler field on a scale other than whole WBF IMPs (or with a datum that
 * is no whole number) converts each row as datum_imp_ratio does its
 * difference, bit for bit, EW the negation: the field's loop hoists what
 * depends on the datum alone. */
static void test_butler_rows_as_imp_ratio(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_butler_rows_as_imp_ratio", 3);
    const datum_adjusted_imps award = DATUM_ADJUSTED_IMPS_INIT;
    enum { N = 40 };
    int32_t score[N];
    double ns[N], ew[N];
    for (int round = 0; round < 2000; round++) {
        datum_scale scale = {test_rng_range(&rng, 0, 1) ? DATUM_SCALE_LINEAR : DATUM_SCALE_WBF,
                             (int)test_rng_range(&rng, 0, 1), (int)test_rng_range(&rng, 0, 1)};
        size_t n = (size_t)test_rng_range(&rng, 1, N);
        datum_value d = {test_rng_range(&rng, -200000, 200000), test_rng_range(&rng, 2, 60)};
        for (size_t i = 0; i < n; i++) score[i] = (int32_t)test_rng_range(&rng, -7600, 7600);
        datum_field_butler(&scale, &award, score, NULL, n, d, ns, ew);
        for (size_t i = 0; i < n; i++) {
            double want = datum_imp_ratio(&scale, (int64_t)score[i] * d.den - d.num, d.den);
            assert_memory_equal(&ns[i], &want, sizeof want);
            want = 0.0 - want;
            assert_memory_equal(&ew[i], &want, sizeof want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wbf_matches_band_table),
        cmocka_unit_test(test_wbf_boundaries_are_midpoints),
        cmocka_unit_test(test_wbf_exact_for_rationals),
        cmocka_unit_test(test_linear_seed_003),
        cmocka_unit_test(test_linear_matches_seed_table),
        cmocka_unit_test(test_double_and_half),
        cmocka_unit_test(test_no_negative_zero),
        cmocka_unit_test(test_butler_rows_as_imp_ratio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
