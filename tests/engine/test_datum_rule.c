/* test_datum_rule.c - datum rules against seed 001 (NBB), seed 003 (Bastille),
 * seed 002 (par, against a brute-force search) and the rounding examples. */
#include "test_util.h"
#include "datum.h"

#include <string.h>

/* Datum of the given scores under a preset, as a double. */
static double datum_of(const char *preset, const int32_t *s, size_t n)
{
    datum_rule rule;
    assert_int_equal(datum_rule_preset(&rule, preset), DATUM_OK);
    int32_t work[512];
    datum_value v;
    assert_true(n <= 512);
    assert_int_equal(datum_field_datum(&rule, s, n, work, &v), DATUM_OK);
    return datum_value_double(v);
}

static double datum_with(const datum_rule *rule, const int32_t *s, size_t n)
{
    int32_t work[512];
    datum_value v;
    assert_int_equal(datum_field_datum(rule, s, n, work, &v), DATUM_OK);
    return datum_value_double(v);
}

/* Seed 001, board 6: NS scores of the six tables; plain mean -180, NBB -70;
 * East-West's own datum is +70. */
static void test_seed001_board6(void **state)
{
    const int32_t ns[] = {-100, -150, 200, 100, -140, -990};
    const int32_t ew[] = {100, 150, -200, -100, 140, 990};
    assert_true(datum_of("mean", ns, 6) == -180.0);
    assert_true(datum_of("nbb", ns, 6) == -70.0);  /* -72.5 rounded toward zero */
    assert_true(datum_of("nbb", ew, 6) == 70.0);
}

/* Seed 001, board 7: five tables, inner scores weigh 2: 1600 / 8 = +200. */
static void test_seed001_board7(void **state)
{
    const int32_t ns[] = {620, -100, 500, 140, -100};
    assert_true(datum_of("nbb", ns, 5) == 200.0);
    datum_rule rule;
    datum_rule_preset(&rule, "nbb");
    rule.middle_weight = 3; /* (-100 + 620 + 3*540) / 11 = 194.5 -> 190 */
    assert_true(datum_with(&rule, ns, 5) == 190.0);
}

/* Seed 001 §10.5: ceil(n/10) dropped at each end from 6 scores on. Four large
 * scores at the top reveal how many were dropped. */
static void test_nbb_drop_counts(void **state)
{
    datum_rule rule;
    datum_rule_preset(&rule, "nbb");
    rule.rounding = DATUM_ROUND_NONE;
    for (size_t n = 6; n <= 40; n++) {
        int32_t s[40] = {0};
        for (size_t i = 0; i < 4; i++) s[i] = 1000;
        size_t k = n <= 10 ? 1 : n <= 20 ? 2 : n <= 30 ? 3 : 4; /* the seed's table */
        double expect = (4.0 - (double)k) * 1000.0 / (double)(n - 2 * k);
        assert_true(datum_with(&rule, s, n) == expect);
    }
    const int32_t two[] = {100, 300};
    assert_true(datum_of("nbb", two, 2) == 200.0); /* n <= 2: plain mean */
}

static double rounded(datum_rounding mode, const int32_t *s, size_t n)
{
    datum_rule rule;
    datum_rule_preset(&rule, "mean");
    rule.rounding = mode;
    return datum_with(&rule, s, n);
}

/* Seed 001 §10.6: 97 -> 100, -331 -> -330, 224.99 -> 220, 115.02 -> 120,
 * 335 -> 330, -335 -> -330, +175 -> +170, -415 -> -410 (halves toward zero). */
static void test_rounding_examples(void **state)
{
    const datum_rounding tz = DATUM_ROUND_HALF_TOWARD_ZERO;
    int32_t s[100];
    assert_true(rounded(tz, (int32_t[]){97}, 1) == 100);
    assert_true(rounded(tz, (int32_t[]){-331}, 1) == -330);
    for (int i = 0; i < 100; i++) s[i] = i < 99 ? 225 : 224; /* mean 224.99 */
    assert_true(rounded(tz, s, 100) == 220);
    for (int i = 0; i < 100; i++) s[i] = i < 98 ? 115 : 116; /* mean 115.02 */
    assert_true(rounded(tz, s, 100) == 120);
    assert_true(rounded(tz, (int32_t[]){335}, 1) == 330);
    assert_true(rounded(tz, (int32_t[]){-335}, 1) == -330);
    assert_true(rounded(tz, (int32_t[]){175}, 1) == 170);
    assert_true(rounded(tz, (int32_t[]){-415}, 1) == -410);
    /* The other conventions on the same halves. */
    assert_true(rounded(DATUM_ROUND_HALF_AWAY, (int32_t[]){175}, 1) == 180);
    assert_true(rounded(DATUM_ROUND_HALF_AWAY, (int32_t[]){-415}, 1) == -420);
    assert_true(rounded(DATUM_ROUND_HALF_UP, (int32_t[]){-415}, 1) == -410);
    assert_true(rounded(DATUM_ROUND_HALF_UP, (int32_t[]){175}, 1) == 180);
    assert_true(rounded(DATUM_ROUND_HALF_EVEN, (int32_t[]){175}, 1) == 180);
    assert_true(rounded(DATUM_ROUND_HALF_EVEN, (int32_t[]){165}, 1) == 160);
    assert_true(rounded(DATUM_ROUND_HALF_EVEN, (int32_t[]){-175}, 1) == -180);
    assert_true(rounded(DATUM_ROUND_HALF_EVEN, (int32_t[]){-165}, 1) == -160);
    /* truncate: toward zero, never to the nearest (JFR Pary: 220/3 -> 70, -290/3 -> -90) */
    assert_true(rounded(DATUM_ROUND_TRUNCATE, (int32_t[]){50, 80, 90}, 3) == 70);
    assert_true(rounded(DATUM_ROUND_TRUNCATE, (int32_t[]){-100, -100, -90}, 3) == -90);
    assert_true(rounded(DATUM_ROUND_TRUNCATE, (int32_t[]){-415}, 1) == -410);
    assert_true(rounded(DATUM_ROUND_TRUNCATE, (int32_t[]){179}, 1) == 170);
    /* A mean of 172.5 is not a half of a multiple of 10: 170 in every mode. */
    assert_true(rounded(DATUM_ROUND_HALF_AWAY, (int32_t[]){170, 175}, 2) == 170);
}

/* Seed 003: eight tables, the extremes dropped, average 1422 / 6 = +237;
 * after the rectification of +180 to +150 it is +232. The rounded (NBB)
 * datum goes from 240 to 230 as in the seed's story. */
static void test_seed003_scheveningen(void **state)
{
    int32_t s[] = {600, -50, 400, 180, 200, 210, 212, 220};
    assert_true(datum_of("bastille", s, 8) == 237.0);
    assert_true(datum_of("nbb", s, 8) == 240.0);
    s[3] = 150;
    assert_true(datum_of("bastille", s, 8) == 232.0);
    assert_true(datum_of("nbb", s, 8) == 230.0);
}

static void test_bastille_keeps_one_score(void **state)
{
    const int32_t s[] = {-600, 100, 420};
    assert_true(datum_of("bastille", s, 3) == 100.0); /* k = min(1, 1) */
    assert_true(datum_of("bastille", s, 2) == -250.0); /* k = min(1, 0) */
    assert_true(datum_of("bastille", s, 1) == -600.0);
}

static void test_medians_and_percent(void **state)
{
    datum_rule rule;
    datum_rule_preset(&rule, "mean");
    const int32_t s[] = {400, -100, 100, 50};
    rule.center = DATUM_CENTER_MEDIAN_LOW;
    assert_true(datum_with(&rule, s, 4) == 50.0);
    rule.center = DATUM_CENTER_MEDIAN_HIGH;
    assert_true(datum_with(&rule, s, 4) == 100.0);
    rule.center = DATUM_CENTER_MEDIAN_MEAN;
    assert_true(datum_with(&rule, s, 4) == 75.0);

    /* 5% of 20 is one score, of 21 is 1.05: ceil 2, floor 1, nearest 1. */
    int32_t f[21] = {0};
    f[0] = f[1] = 2100;
    datum_rule_preset(&rule, "acbl");
    rule.rounding = DATUM_ROUND_NONE;
    assert_true(datum_with(&rule, f, 20) == 2100.0 / 18.0);
    assert_true(datum_with(&rule, f, 21) == 0.0);
    rule.trim_percent_round = DATUM_PCT_FLOOR;
    assert_true(datum_with(&rule, f, 21) == 2100.0 / 19.0);
    rule.trim_percent_round = DATUM_PCT_NEAREST;
    assert_true(datum_with(&rule, f, 21) == 2100.0 / 19.0);

    /* bridgewx: nothing dropped at five scores, halves away from zero. */
    const int32_t five[] = {-415, -415, -415, -415, -415};
    assert_true(datum_of("bridgewx", five, 5) == -420.0);
    rule = (datum_rule){0};
    datum_rule_preset(&rule, "mean");
    rule.trim = DATUM_TRIM_FIXED;
    rule.trim_count = 2;
    const int32_t fx[] = {1000, 900, 10, 20, 30, -900, -1000};
    assert_true(datum_with(&rule, fx, 7) == 20.0);
}

static void test_empty_field_has_no_datum(void **state)
{
    datum_rule rule;
    datum_rule_preset(&rule, "nbb");
    datum_value v;
    int32_t work[1];
    assert_int_equal(datum_field_datum(&rule, NULL, 0, work, &v), DATUM_W_EMPTY);
    assert_int_equal((int)v.den, 0);
}

static void test_presets_and_check(void **state)
{
    datum_rule rule;
    const char *names[] = {"mean", "nbb", "bastille", "par", "acbl", "bridgewx"};
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(datum_rule_preset(&rule, names[i]), DATUM_OK);
        assert_int_equal(datum_rule_check(&rule), DATUM_OK);
    }
    assert_int_equal(datum_rule_preset(&rule, "median"), DATUM_E_ARG);
    datum_rule_preset(&rule, "mean");
    rule.round_unit = 0;
    assert_int_equal(datum_rule_check(&rule), DATUM_E_ARG);
}

/* Par by brute force: every multiple of 10 in [-8000, 8000]. */
static int64_t par_brute_force(const int32_t *s, size_t n)
{
    int64_t best_d = 0, best = -1;
    for (int64_t d = -8000; d <= 8000; d += 10) {
        int64_t sum = 0;
        for (size_t i = 0; i < n; i++) sum += datum_imp_wbf((double)(s[i] - d));
        int64_t a = sum < 0 ? -sum : sum;
        int64_t dd = d < 0 ? -d : d, bd = best_d < 0 ? -best_d : best_d;
        if (best < 0 || a < best || (a == best && dd < bd)) {
            best = a;
            best_d = d;
        }
    }
    return best_d;
}

static void test_par_against_brute_force(void **state)
{
    test_rng rng = test_rng_seeded("par", 20261122);
    for (int trial = 0; trial < 1000; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, 30);
        int32_t s[30];
        for (size_t i = 0; i < n; i++) s[i] = test_rng_score(&rng);
        if (trial % 7 == 0) /* fields full of one result */
            for (size_t i = 0; i < n; i++) s[i] = s[0];
        if (trial % 11 == 0) /* two results: long runs of equal sums, ties of the minimisers */
            for (size_t i = 0; i < n; i++) s[i] = s[i % 2];
        if (trial % 17 == 0) /* the mean far from the zero, and outside the candidates */
            s[0] = (trial / 17) % 2 ? 60000 : -60000;
        if (trial % 23 == 0) /* every score beyond one end of the candidates */
            for (size_t i = 0; i < n; i++) s[i] = (trial / 23) % 2 ? 9000 + 10 * (int32_t)i : -9000;
        double got = datum_of("par", s, n);
        if (got != (double)par_brute_force(s, n))
            fail_msg("trial %d: par %g, brute force %lld", trial, got,
                     (long long)par_brute_force(s, n));
    }
}

/* Par where it is usually found: close to the mean's step (the engine reads
 * it from the sums of a window of steps around it), near its edges and
 * beyond them, at the ends of the candidates, with runs of equal sums and
 * scores that are no multiples of 10 (differences on the band boundaries). */
static void test_par_near_the_mean_against_brute_force(void **state)
{
    test_rng rng = test_rng_seeded("par-window", 20261127);
    for (int trial = 0; trial < 4000; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, 16);
        int32_t s[16];
        int32_t centre = (int32_t)(10 * test_rng_range(&rng, -800, 800));
        int64_t spread = test_rng_range(&rng, 0, 4) == 0 ? 1500 : 200;
        for (size_t i = 0; i < n; i++) {
            s[i] = centre + (int32_t)test_rng_range(&rng, -spread, spread);
            if (trial % 2 == 0) s[i] -= s[i] % 10; /* the real thing: multiples of 10 */
        }
        if (trial % 5 == 0) /* one outlier drags the mean away from par */
            s[0] = (int32_t)test_rng_range(&rng, -7600, 7600);
        if (trial % 13 == 0) /* two results: runs of equal sums across the window */
            for (size_t i = 0; i < n; i++) s[i] = s[i % 2];
        if (trial % 29 == 0) /* near the ends of the candidates */
            for (size_t i = 0; i < n; i++)
                s[i] = (trial / 29) % 2 ? 7900 + (int32_t)test_rng_range(&rng, 0, 300)
                                        : -7900 - (int32_t)test_rng_range(&rng, 0, 300);
        double got = datum_of("par", s, n);
        if (got != (double)par_brute_force(s, n))
            fail_msg("trial %d: par %g, brute force %lld", trial, got,
                     (long long)par_brute_force(s, n));
    }
}

/* Par of fields longer than the engine's 16-bit sums take (1000 scores):
 * the same figure as the brute force. */
static void test_par_of_long_fields_against_brute_force(void **state)
{
    test_rng rng = test_rng_seeded("par-long", 20261127);
    enum { MAX_N = 1400 };
    static int32_t s[MAX_N], work[MAX_N];
    for (int trial = 0; trial < 3; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 990, MAX_N);
        int32_t centre = (int32_t)(10 * test_rng_range(&rng, -300, 300));
        for (size_t i = 0; i < n; i++) s[i] = centre + (int32_t)(10 * test_rng_range(&rng, -40, 40));
        if (trial % 2) { /* outliers drag the mean 500 steps from par: sums beyond 16 bits */
            n = MAX_N;
            for (size_t i = 0; i < n; i++) s[i] = i < 10 ? -700000 : 5000;
        }
        datum_rule rule;
        datum_value v;
        assert_int_equal(datum_rule_preset(&rule, "par"), DATUM_OK);
        assert_int_equal(datum_field_datum(&rule, s, n, work, &v), DATUM_OK);
        if (datum_value_double(v) != (double)par_brute_force(s, n))
            fail_msg("trial %d, n %zu: par %g, brute force %lld", trial, n, datum_value_double(v),
                     (long long)par_brute_force(s, n));
    }
}

static void test_shuffling_changes_nothing(void **state)
{
    test_rng rng = test_rng_seeded("shuffle", 7);
    const char *names[] = {"mean", "nbb", "bastille", "par", "acbl", "bridgewx"};
    for (int trial = 0; trial < 200; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, 45);
        int32_t s[45], t[45];
        for (size_t i = 0; i < n; i++) s[i] = t[i] = test_rng_score(&rng);
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)test_rng_range(&rng, 0, (int64_t)i);
            int32_t x = t[i]; t[i] = t[j]; t[j] = x;
        }
        for (size_t p = 0; p < 6; p++)
            assert_true(datum_of(names[p], s, n) == datum_of(names[p], t, n));
    }
}

static int ascending(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* Trimmed and small-field means, computed here from a qsort, for every trim
 * depth on both sides of the engine's switch from extremes to sorting. */
static void test_trimmed_means_against_sorted_reference(void **state)
{
    test_rng rng = test_rng_seeded("trimmed", 31);
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, 40);
        int32_t s[40], sorted[40];
        for (size_t i = 0; i < n; i++)
            s[i] = trial % 3 ? test_rng_score(&rng) : (int32_t)(10 * test_rng_range(&rng, -3, 3));
        memcpy(sorted, s, n * sizeof *s);
        qsort(sorted, n, sizeof *sorted, ascending);
        datum_rule rule;
        assert_int_equal(datum_rule_preset(&rule, "mean"), DATUM_OK);
        rule.trim = DATUM_TRIM_FIXED;
        rule.trim_count = (int)test_rng_range(&rng, 0, 12);
        rule.small_max = trial % 2 ? 5 : 0;
        rule.middle_weight = (int)test_rng_range(&rng, 1, 4);
        size_t k = (size_t)rule.trim_count, cap = (n - 1) / 2;
        if (k > cap) k = cap;
        int64_t num = 0, den = 0;
        if (rule.small_max && n >= 3 && n <= 5) {
            for (size_t i = 0; i < n; i++) {
                int64_t w = i == 0 || i == n - 1 ? 1 : rule.middle_weight;
                num += w * sorted[i];
                den += w;
            }
        } else {
            for (size_t i = k; i < n - k; i++) num += sorted[i];
            den = (int64_t)(n - 2 * k);
        }
        int32_t work[80];
        datum_value v;
        assert_int_equal(datum_field_datum(&rule, s, n, work, &v), DATUM_OK);
        if (v.num * den != num * v.den)
            fail_msg("trial %d: n %zu trim %d: %lld/%lld, expected %lld/%lld", trial, n,
                     rule.trim_count, (long long)v.num, (long long)v.den, (long long)num,
                     (long long)den);
    }
}

/* datum_field_datums (several rules on one field, the sum and extremes read
 * once) gives each rule's datum_field_datum exactly: presets, fixed trims
 * from none to deeper than its one pass takes, small-field weights,
 * medians, percent trims and par, on fields with and without ties. */
static void test_datums_at_once_equal_one_by_one(void **state)
{
    test_rng rng = test_rng_seeded("datums", 2711);
    const char *presets[] = {"mean", "nbb", "bastille", "par", "acbl", "bridgewx"};
    enum { RULES = 9, MAX_N = 40 };
    for (int trial = 0; trial < 3000; trial++) {
        size_t count = (size_t)test_rng_range(&rng, 1, RULES), n = (size_t)test_rng_range(&rng, 0, MAX_N);
        datum_rule rule[RULES];
        const datum_rule *at[RULES];
        for (size_t i = 0; i < count; i++) {
            assert_int_equal(datum_rule_preset(&rule[i], presets[test_rng_range(&rng, 0, 5)]), DATUM_OK);
            switch (test_rng_range(&rng, 0, 3)) {
            case 0: break; /* the preset */
            case 1:
                rule[i].center = DATUM_CENTER_MEAN;
                rule[i].trim = DATUM_TRIM_FIXED;
                rule[i].trim_count = (int)test_rng_range(&rng, 0, 7);
                rule[i].small_max = (int)test_rng_range(&rng, 0, 6);
                rule[i].middle_weight = (int)test_rng_range(&rng, 1, 4);
                break;
            case 2:
                rule[i].center = test_rng_range(&rng, 0, 1) ? DATUM_CENTER_MEDIAN_MEAN : DATUM_CENTER_MEDIAN_LOW;
                break;
            default:
                rule[i].center = DATUM_CENTER_MEAN;
                rule[i].trim = DATUM_TRIM_PERCENT;
                rule[i].trim_percent = (double)test_rng_range(&rng, 0, 30);
            }
            rule[i].rounding = (datum_rounding)test_rng_range(&rng, 0, DATUM_ROUND_TRUNCATE);
            assert_int_equal(datum_rule_check(&rule[i]), DATUM_OK);
            at[i] = &rule[i];
        }
        int32_t s[MAX_N], work[MAX_N + 1];
        for (size_t i = 0; i < n; i++)
            s[i] = trial % 3 ? test_rng_score(&rng) : (int32_t)(10 * test_rng_range(&rng, -3, 3));
        datum_value all[RULES], one;
        datum_field_datums(count, at, s, n, work, all);
        for (size_t i = 0; i < count; i++) {
            datum_field_datum(&rule[i], s, n, work, &one);
            if (all[i].num != one.num || all[i].den != one.den)
                fail_msg("trial %d, n %zu, rule %zu: %lld/%lld, one by one %lld/%lld", trial, n, i,
                         (long long)all[i].num, (long long)all[i].den, (long long)one.num,
                         (long long)one.den);
        }
    }
}

/* Every rounding convention of a plain mean against the nearest multiples of
 * 10 found by search: the mean num/den is compared exactly with each
 * candidate 10c (|num - 10c den| in integers), the ties decided by the
 * convention's own words; truncation keeps the candidate toward zero. */
static void test_rounding_against_search(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("rounding_search", 7);
    const datum_rounding modes[] = {DATUM_ROUND_HALF_TOWARD_ZERO, DATUM_ROUND_HALF_AWAY,
                                    DATUM_ROUND_HALF_UP, DATUM_ROUND_HALF_EVEN,
                                    DATUM_ROUND_TRUNCATE};
    for (int trial = 0; trial < 4000; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, 12);
        int32_t s[12];
        int64_t num = 0;
        for (size_t i = 0; i < n; i++) {
            s[i] = trial % 2 ? test_rng_score(&rng) : (int32_t)(5 * test_rng_range(&rng, -40, 40));
            num += s[i];
        }
        int64_t den = (int64_t)n;
        datum_rule rule;
        assert_int_equal(datum_rule_preset(&rule, "mean"), DATUM_OK);
        rule.rounding = modes[trial % 5];
        int64_t best = 0, best_c = 0, second_c = 0;
        int tie = 0;
        for (int64_t c = -800; c <= 800; c++) {
            int64_t d = num - 10 * c * den;
            d = d < 0 ? -d : d;
            if (c == -800 || d < best) best = d, best_c = c, tie = 0;
            else if (d == best) second_c = c, tie = 1;
        }
        int64_t want = best_c; /* with a tie, best_c < second_c = best_c + 1 */
        if (tie) {
            switch (rule.rounding) {
            case DATUM_ROUND_HALF_TOWARD_ZERO: want = second_c <= 0 ? second_c : best_c; break;
            case DATUM_ROUND_HALF_AWAY: want = second_c <= 0 ? best_c : second_c; break;
            case DATUM_ROUND_HALF_UP: want = second_c; break;
            default: want = best_c % 2 == 0 ? best_c : second_c; break;
            }
        }
        if (rule.rounding == DATUM_ROUND_TRUNCATE) /* the largest |10c| <= |mean|, same sign */
            for (want = 0; num >= 0 ? 10 * (want + 1) * den <= num : 10 * (want - 1) * den >= num;)
                want += num >= 0 ? 1 : -1;
        int32_t work[32];
        datum_value v;
        assert_int_equal(datum_field_datum(&rule, s, n, work, &v), DATUM_OK);
        if (v.num != 10 * want || v.den != 1)
            fail_msg("trial %d: mean %lld/%lld, mode %d: %lld/%lld, expected %lld", trial,
                     (long long)num, (long long)den, (int)rule.rounding, (long long)v.num,
                     (long long)v.den, (long long)(10 * want));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed001_board6),
        cmocka_unit_test(test_seed001_board7),
        cmocka_unit_test(test_nbb_drop_counts),
        cmocka_unit_test(test_rounding_examples),
        cmocka_unit_test(test_rounding_against_search),
        cmocka_unit_test(test_seed003_scheveningen),
        cmocka_unit_test(test_bastille_keeps_one_score),
        cmocka_unit_test(test_medians_and_percent),
        cmocka_unit_test(test_empty_field_has_no_datum),
        cmocka_unit_test(test_presets_and_check),
        cmocka_unit_test(test_par_against_brute_force),
        cmocka_unit_test(test_par_near_the_mean_against_brute_force),
        cmocka_unit_test(test_par_of_long_fields_against_brute_force),
        cmocka_unit_test(test_datums_at_once_equal_one_by_one),
        cmocka_unit_test(test_shuffling_changes_nothing),
        cmocka_unit_test(test_trimmed_means_against_sorted_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
