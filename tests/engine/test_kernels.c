/* test_kernels.c - Butler and cross-IMP kernels: seed scorecards, adjusted
 * awards, the counting cross-IMP path against direct comparison. */
#include "test_util.h"
#include "datum.h"

#include <math.h>
#include <string.h>

static const datum_scale kWbf = DATUM_SCALE_INIT;
static const datum_adjusted_imps kAward = DATUM_ADJUSTED_IMPS_INIT;

static void butler(const char *preset, const datum_scale *scale, const int32_t *s,
                   const uint8_t *adj, size_t n, double *ns, double *ew)
{
    datum_rule rule;
    datum_rule_preset(&rule, preset);
    int32_t real[64], work[64];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!adj || !adj[i]) real[m++] = s[i];
    datum_value d;
    datum_field_datum(&rule, real, m, work, &d);
    datum_field_butler(scale, &kAward, s, adj, n, d, ns, ew);
}

/* Seed 001 board 6, the scored card: tables (NS pair, EW pair) 1-7, 3-4, 6-10,
 * 8-9, 11-2, 12-5 and the IMPs written beside each pair. */
static void test_seed001_board6_imps(void **state)
{
    const int32_t s[] = {-100, -150, 200, 100, -140, -990};
    const double ns_expect[] = {-1, -2, 7, 5, -2, -14};  /* pairs 1, 3, 6, 8, 11, 12 */
    const double ew_expect[] = {1, 2, -7, -5, 2, 14};    /* pairs 7, 4, 10, 9, 2, 5 */
    double ns[6], ew[6];
    butler("nbb", &kWbf, s, NULL, 6, ns, ew);
    for (int i = 0; i < 6; i++) {
        assert_true(ns[i] == ns_expect[i]);
        assert_true(ew[i] == ew_expect[i]);
    }
}

/* Seed 001 board 7: tables 1-7, 3-4, 6-8, 9-2, 10-5 against datum +200. */
static void test_seed001_board7_imps(void **state)
{
    const int32_t s[] = {620, -100, 500, 140, -100};
    const double ns_expect[] = {9, -7, 7, -2, -7};
    double ns[5], ew[5];
    butler("nbb", &kWbf, s, NULL, 5, ns, ew);
    for (int i = 0; i < 5; i++) {
        assert_true(ns[i] == ns_expect[i]);
        assert_true(ew[i] == -ns_expect[i]);
    }
}

/* Seed 003: Hamman-Wolff (EW against +180) and Leufkens-Westra (NS +400). */
static void test_seed003_bastille_imps(void **state)
{
    const datum_scale linear = {DATUM_SCALE_LINEAR, 0, 0};
    int32_t s[] = {600, -50, 400, 180, 200, 210, 212, 220};
    double ns[8], ew[8];
    butler("bastille", &linear, s, NULL, 8, ns, ew);
    assert_true(fabs(ew[3] - 1.8) < 1e-12);
    assert_true(fabs(ns[2] - 4.45) < 1e-12);
    butler("nbb", &kWbf, s, NULL, 8, ns, ew);
    assert_true(ew[3] == 2 && ns[2] == 4);
    s[3] = 150; /* the rectification */
    butler("bastille", &linear, s, NULL, 8, ns, ew);
    assert_true(fabs(ew[3] - 2.425) < 1e-12);
    assert_true(fabs(ns[2] - 4.56) < 1e-12);
    butler("nbb", &kWbf, s, NULL, 8, ns, ew);
    assert_true(ew[3] == 2 && ns[2] == 5);
}

static void test_adjusted_tokens_and_awards(void **state)
{
    const char *tokens[] = {"",      "A+",    "A",     "A-",   "A+/A-", "A-/A+", "A/A",
                            "A+/A+", "A-/A-", "A+/A", "A/A+", "A-/A",  "A/A-"};
    const double ns_expect[] = {0, 3, 0, -3, 3, -3, 0, 3, -3, 3, 0, -3, 0};
    const double ew_expect[] = {0, -3, 0, 3, -3, 3, 0, 3, -3, 0, 3, 0, -3};
    assert_int_equal(DATUM_ADJ_COUNT, sizeof tokens / sizeof *tokens);
    for (int code = 1; code < DATUM_ADJ_COUNT; code++) {
        assert_int_equal(datum_adjusted_parse(tokens[code], strlen(tokens[code])), code);
        assert_string_equal(datum_adjusted_token(code), tokens[code]);
        double ns, ew;
        datum_adjusted_award(&kAward, code, &ns, &ew);
        assert_true(ns == ns_expect[code] && ew == ew_expect[code]);
    }
    assert_int_equal(datum_adjusted_parse("", 0), DATUM_ADJ_NONE);
    assert_int_equal(datum_adjusted_parse("A++", 3), -1);
    assert_int_equal(datum_adjusted_parse("a+", 2), -1);
    assert_int_equal(datum_adjusted_parse("A+/", 3), -1);
    assert_int_equal(datum_adjusted_parse("A/A/A", 5), -1);
}

/* Adjusted rows take no part in the datum and get the fixed award. */
static void test_adjusted_rows_in_butler(void **state)
{
    const int32_t s[] = {420, 0, -50, 9999};
    const uint8_t adj[] = {0, DATUM_ADJ_A_A, 0, DATUM_ADJ_AP};
    double ns[4], ew[4];
    butler("mean", &kWbf, s, adj, 4, ns, ew); /* datum (420 - 50) / 2 = 185 */
    assert_true(ns[0] == 6 && ew[0] == -6);   /* 235 -> 6 */
    assert_true(ns[2] == -6 && ew[2] == 6);   /* -235 */
    assert_true(ns[1] == 0 && ew[1] == 0);
    assert_true(ns[3] == 3 && ew[3] == -3);
    /* A field of adjusted rows only has no datum but still gets its awards. */
    const uint8_t all[] = {DATUM_ADJ_AM, DATUM_ADJ_AP_AP};
    butler("nbb", &kWbf, s, all, 2, ns, ew);
    assert_true(ns[0] == -3 && ew[0] == 3 && ns[1] == 3 && ew[1] == 3);
}

static void test_cross_by_hand(void **state)
{
    const int32_t s[] = {100, 0, -100};
    int32_t work[8];
    double raw[3];
    datum_field_cross(&kWbf, s, 3, work, raw); /* 100: imp(100)+imp(200) = 3 + 5 */
    assert_true(raw[0] == 8 && raw[1] == 0 && raw[2] == -8);
    const datum_scale doubled_half = {DATUM_SCALE_WBF, 1, 1}; /* 200 -> 5, 400 -> 9 */
    datum_field_cross(&doubled_half, s, 3, work, raw);
    assert_true(raw[0] == 7 && raw[1] == 0 && raw[2] == -7);
}

/* Large WBF fields use counting; it must equal the direct double loop. */
static void test_cross_counting_equals_direct(void **state)
{
    test_rng rng = test_rng_seeded("cross-counting", 99);
    enum { MAX_N = 700 };
    static int32_t s[MAX_N], work[2 * MAX_N + 1];
    static double raw[MAX_N];
    const datum_scale scales[] = {{DATUM_SCALE_WBF, 0, 0}, {DATUM_SCALE_WBF, 1, 0},
                                  {DATUM_SCALE_WBF, 0, 1}, {DATUM_SCALE_WBF, 1, 1}};
    for (int trial = 0; trial < 12; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 129, MAX_N);
        for (size_t i = 0; i < n; i++) s[i] = test_rng_score(&rng);
        const datum_scale *sc = &scales[trial % 4];
        datum_field_cross(sc, s, n, work, raw);
        double total = 0;
        for (size_t i = 0; i < n; i++) {
            double direct = 0;
            for (size_t k = 0; k < n; k++)
                if (k != i) direct += datum_imp(sc, (double)s[i] - s[k]);
            assert_true(raw[i] == direct);
            total += raw[i];
        }
        assert_true(total == 0); /* every comparison is counted once each way */
    }
}

/* Small WBF fields compare each pair once, in integers; every figure must
 * equal the sum of datum_imp (the table as doubles) over the other scores. */
static void test_cross_small_wbf_equals_reference(void **state)
{
    test_rng rng = test_rng_seeded("cross-small", 2026);
    enum { MAX_N = 128 };
    int32_t s[MAX_N], work[2 * MAX_N + 1];
    double raw[MAX_N];
    const datum_scale scales[] = {{DATUM_SCALE_WBF, 0, 0}, {DATUM_SCALE_WBF, 1, 0},
                                  {DATUM_SCALE_WBF, 0, 1}, {DATUM_SCALE_WBF, 1, 1}};
    for (int trial = 0; trial < 400; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, trial % 10 == 0 ? MAX_N : 20);
        for (size_t i = 0; i < n; i++) s[i] = test_rng_score(&rng);
        if (trial % 9 == 0) /* ties everywhere */
            for (size_t i = 0; i < n; i++) s[i] = s[i % 3];
        if (trial % 13 == 0) s[0] = INT32_MAX / 2, s[n - 1] = -(INT32_MAX / 2); /* beyond 24 IMPs */
        const datum_scale *sc = &scales[trial % 4];
        datum_field_cross(sc, s, n, work, raw);
        for (size_t i = 0; i < n; i++) {
            double direct = 0;
            for (size_t k = 0; k < n; k++)
                if (k != i) direct += datum_imp(sc, (double)s[i] - s[k]);
            if (raw[i] != direct || (raw[i] == 0 && signbit(raw[i]))) /* no "-0" */
                fail_msg("trial %d, n %zu, score %zu: %g, reference %g", trial, n, i, raw[i], direct);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed001_board6_imps),
        cmocka_unit_test(test_seed001_board7_imps),
        cmocka_unit_test(test_seed003_bastille_imps),
        cmocka_unit_test(test_adjusted_tokens_and_awards),
        cmocka_unit_test(test_adjusted_rows_in_butler),
        cmocka_unit_test(test_cross_by_hand),
        cmocka_unit_test(test_cross_counting_equals_direct),
        cmocka_unit_test(test_cross_small_wbf_equals_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
