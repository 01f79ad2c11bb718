/* test_matchpoints.c - matchpoints of a field: worked examples by hand (ties,
 * Neuberg's factoring, adjusted results), the 1/0.5 scale, and random fields
 * against a direct count of the results beaten and tied; the batch driver on
 * 1 and 2 threads. */
#include "test_util.h"
#include "datum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void check(const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(got[i] - want[i]) > 1e-12) fail_msg("row %zu: %.15g, expected %.15g", i, got[i], want[i]);
}

/* 5 results, a tie at 420: sorted -50, 100, 420, 420, 450. 450 beats 4 (8);
 * each 420 beats 2 and ties 1 (5); 100 beats 1 (2); -50 nothing; top 8. */
static void test_ties_by_hand(void **state)
{
    (void)state;
    const int32_t s[] = {420, 420, 450, -50, 100};
    const double ns_want[] = {5, 5, 8, 0, 2}, ew_want[] = {3, 3, 0, 8, 6};
    const double ns_half[] = {2.5, 2.5, 4, 0, 1}, ew_half[] = {1.5, 1.5, 0, 4, 3};
    int32_t work[5];
    double ns[5], ew[5];
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    assert_true(datum_field_matchpoints(&m, s, NULL, 5, 0, work, ns, ew) == 8);
    check(ns, ns_want, 5);
    check(ew, ew_want, 5);
    m.half = 1;
    assert_true(datum_field_matchpoints(&m, s, NULL, 5, 5, work, ns, ew) == 4);
    check(ns, ns_half, 5);
    check(ew, ew_half, 5);
}

/* Played 4 times where the event's largest field has 5 results: Neuberg,
 * (m + 1) * 5/4 - 1 on the 2/1 scale: 0, 2, 4, 6 become 0.25, 2.75, 5.25,
 * 7.75 of a top of 8 (the top of 4 results, 6, is worth 7.75, not 8). */
static void test_neuberg_by_hand(void **state)
{
    (void)state;
    const int32_t s[] = {100, 200, 300, 400};
    const double ns_want[] = {0.25, 2.75, 5.25, 7.75}, ew_want[] = {7.75, 5.25, 2.75, 0.25};
    int32_t work[4];
    double ns[4], ew[4];
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    assert_true(datum_field_matchpoints(&m, s, NULL, 4, 5, work, ns, ew) == 8);
    check(ns, ns_want, 4);
    check(ew, ew_want, 4);
    m.neuberg = 0; /* as 4 results: 0, 2, 4, 6 of 6 */
    const double raw[] = {0, 2, 4, 6};
    assert_true(datum_field_matchpoints(&m, s, NULL, 4, 5, work, ns, ew) == 6);
    check(ns, raw, 4);
}

/* The EBU's worked example (Max Bavin, "The Neuberg formula", EBU Laws &
 * Ethics articles): 10 results where 11 were expected, factored frequency
 * 1.1, top 20: 19.9, 17.7, ..., 2.3, 0.1. */
static void test_neuberg_ebu_example(void **state)
{
    (void)state;
    const int32_t s[] = {520, 500, 490, 480, 460, 450, 430, 420, 400, -50};
    const double want[] = {19.9, 17.7, 15.5, 13.3, 11.1, 8.9, 6.7, 4.5, 2.3, 0.1};
    int32_t work[10];
    double ns[10], ew[10];
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    assert_true(datum_field_matchpoints(&m, s, NULL, 10, 11, work, ns, ew) == 20);
    check(ns, want, 10);
}

/* An average-plus (NS A+, EW A-) among 4 rows: the 3 real results are
 * compared among themselves (420: 4, 400: 2, 100: 0 of 4), then factored to
 * the 4 rows, (m + 1) * 4/3 - 1: 17/3, 3, 1/3 of a top of 6; the A+ row gets
 * 60% of 6 for NS, 40% for EW. Without Neuberg: top 4, A+ 2.4 / 1.6. */
static void test_adjusted_by_hand(void **state)
{
    (void)state;
    const int32_t s[] = {420, 0, 100, 400};
    const uint8_t adj[] = {DATUM_ADJ_NONE, DATUM_ADJ_AP, DATUM_ADJ_NONE, DATUM_ADJ_NONE};
    int32_t work[4];
    double ns[4], ew[4];
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    assert_true(datum_field_matchpoints(&m, s, adj, 4, 0, work, ns, ew) == 6);
    const double ns_want[] = {17.0 / 3, 3.6, 1.0 / 3, 3}, ew_want[] = {1.0 / 3, 2.4, 17.0 / 3, 3};
    check(ns, ns_want, 4);
    check(ew, ew_want, 4);
    m.neuberg = 0;
    assert_true(datum_field_matchpoints(&m, s, adj, 4, 0, work, ns, ew) == 4);
    const double ns_raw[] = {4, 2.4, 0, 2}, ew_raw[] = {0, 1.6, 4, 2};
    check(ns, ns_raw, 4);
    check(ew, ew_raw, 4);
    m.award = (datum_mp_awards){0.65, 0.5, 0.35}; /* configurable: 65/50/35 */
    datum_field_matchpoints(&m, s, adj, 4, 0, work, ns, ew);
    assert_true(ns[1] == 0.65 * 4 && ew[1] == 0.35 * 4);
}

/* A lone result: no comparison (top 0); with Neuberg to 2 results it is
 * worth (0 + 1) * 2 - 1 = 1 of 2, an average. */
static void test_lone_result(void **state)
{
    (void)state;
    const int32_t s[] = {620};
    int32_t work[1];
    double ns, ew;
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    assert_true(datum_field_matchpoints(&m, s, NULL, 1, 0, work, &ns, &ew) == 0);
    assert_true(ns == 0 && ew == 0);
    assert_true(datum_field_matchpoints(&m, s, NULL, 1, 2, work, &ns, &ew) == 2);
    assert_true(ns == 1 && ew == 1);
}

/* Random fields against a direct count: 2 per result beaten, 1 per tie;
 * the real results' matchpoints sum to r(r - 1); NS + EW = top. */
static void test_random_against_direct(void **state)
{
    (void)state;
    enum { MAX_N = 60 };
    test_rng rng = test_rng_seeded("test_random_against_direct", 14);
    int32_t s[MAX_N], work[MAX_N];
    double ns[MAX_N], ew[MAX_N];
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    for (int trial = 0; trial < 500; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, MAX_N);
        for (size_t i = 0; i < n; i++)
            s[i] = trial % 3 ? test_rng_score(&rng) : (int32_t)(10 * test_rng_range(&rng, -3, 3));
        double top = datum_field_matchpoints(&m, s, NULL, n, 0, work, ns, ew), sum = 0;
        assert_true(top == 2.0 * (double)(n - 1));
        for (size_t i = 0; i < n; i++) {
            double direct = 0;
            for (size_t k = 0; k < n; k++)
                if (k != i) direct += s[i] > s[k] ? 2 : s[i] == s[k] ? 1 : 0;
            assert_true(ns[i] == direct);
            assert_true(ns[i] + ew[i] == top);
            sum += ns[i];
        }
        assert_true(sum == (double)(n * (n - 1)));
    }
}

/* The batch driver: the same numbers as the field kernel, for 1 and 2 threads. */
static void test_batch_threads(void **state)
{
    (void)state;
    enum { FIELDS = 3000 };
    test_rng rng = test_rng_seeded("test_batch_threads", 15);
    uint64_t *offset = malloc((FIELDS + 1) * sizeof *offset);
    uint32_t *target = malloc(FIELDS * sizeof *target);
    offset[0] = 0;
    for (size_t f = 0; f < FIELDS; f++) {
        offset[f + 1] = offset[f] + (uint64_t)test_rng_range(&rng, 1, 20);
        target[f] = (uint32_t)test_rng_range(&rng, 0, 22);
    }
    size_t rows = offset[FIELDS];
    int32_t *score = malloc(rows * sizeof *score);
    uint8_t *adj = malloc(rows);
    for (size_t i = 0; i < rows; i++) {
        score[i] = test_rng_score(&rng);
        adj[i] = test_rng_range(&rng, 0, 9) == 0 ? (uint8_t)test_rng_range(&rng, 1, 12) : 0;
    }
    datum_fields in = {FIELDS, offset, score, adj};
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    double *top[2], *ns[2], *ew[2];
    for (int t = 0; t < 2; t++) {
        datum_ctx *ctx;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_ctx_set_threads(ctx, t + 1), DATUM_OK);
        top[t] = malloc(FIELDS * sizeof(double));
        ns[t] = malloc(rows * sizeof(double));
        ew[t] = malloc(rows * sizeof(double));
        assert_int_equal(datum_matchpoint_fields(ctx, &m, &in, target, top[t], ns[t], ew[t]), DATUM_OK);
        datum_ctx_free(&ctx);
    }
    assert_memory_equal(ns[0], ns[1], rows * sizeof(double));
    assert_memory_equal(ew[0], ew[1], rows * sizeof(double));
    int32_t work[20];
    double fns[20], few[20];
    for (size_t f = 0; f < FIELDS; f++) {
        size_t a = offset[f], n = offset[f + 1] - a;
        double t = datum_field_matchpoints(&m, score + a, adj + a, n, target[f], work, fns, few);
        assert_true(t == top[0][f]);
        assert_memory_equal(fns, ns[0] + a, n * sizeof(double));
    }
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    m.award.plus = 1.5;
    assert_int_equal(datum_matchpoint_fields(ctx, &m, &in, NULL, top[0], ns[0], ew[0]), DATUM_E_ARG);
    datum_ctx_free(&ctx);
    for (int t = 0; t < 2; t++) free(top[t]), free(ns[t]), free(ew[t]);
    free(offset), free(target), free(score), free(adj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties_by_hand),
        cmocka_unit_test(test_neuberg_by_hand),
        cmocka_unit_test(test_neuberg_ebu_example),
        cmocka_unit_test(test_adjusted_by_hand),
        cmocka_unit_test(test_lone_result),
        cmocka_unit_test(test_random_against_direct),
        cmocka_unit_test(test_batch_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
