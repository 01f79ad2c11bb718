/* test_rate_history.c - the rating history (datum_rate_history_*): its dates
 * on the calendar, and at every as-of date the same ratings as a separate
 * solve of the results kept as of that date (datum_rate_problem with
 * --as-of D, the same --from and --half-life), to 1e-8; each history rating
 * satisfies its date's equations measured with the independent dense
 * reference; pairs that appear mid-history, components that join, a field
 * played over two months; every path, the history's Jacobi CG deflated by
 * recycled vectors among them; 1 and 2 threads bit for bit; the refusals. */
#include "rate_test_util.h"

#include "datum_alloc.h"
#include "datum_text.h"

#include <math.h>
#include <string.h>

static int32_t day(int y, int m, int d) { return datum_days_from_civil(y, m, d); }

static void expect_dates(datum_rate_every every, int32_t first, int32_t last, const int32_t *want,
                         size_t n_want)
{
    datum_ctx *ctx;
    int32_t *dates;
    size_t n;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_rate_history_dates(ctx, every, first, last, &dates, &n), DATUM_OK);
    assert_int_equal(n, n_want);
    for (size_t k = 0; k < n; k++) {
        char got[DATUM_DATE_SIZE], exp[DATUM_DATE_SIZE];
        if (dates[k] != want[k])
            fail_msg("date %zu: %s, expected %s", k, datum_format_date(dates[k], got),
                     datum_format_date(want[k], exp));
    }
    datum_free(dates);
    datum_ctx_free(&ctx);
}

/* Period ends on the calendar (leap February, quarter and year ends), the
 * last date closing the final period whether it is whole or not. */
static void test_dates(void **state)
{
    (void)state;
    expect_dates(DATUM_RATE_EVERY_MONTH, day(2024, 1, 15), day(2024, 4, 10),
                 (const int32_t[]){day(2024, 1, 31), day(2024, 2, 29), day(2024, 3, 31),
                                   day(2024, 4, 10)}, 4);
    expect_dates(DATUM_RATE_EVERY_MONTH, day(2023, 12, 31), day(2024, 1, 31),
                 (const int32_t[]){day(2023, 12, 31), day(2024, 1, 31)}, 2);
    expect_dates(DATUM_RATE_EVERY_QUARTER, day(2024, 2, 1), day(2024, 12, 31),
                 (const int32_t[]){day(2024, 3, 31), day(2024, 6, 30), day(2024, 9, 30),
                                   day(2024, 12, 31)}, 4);
    expect_dates(DATUM_RATE_EVERY_YEAR, day(2023, 5, 5), day(2024, 12, 30),
                 (const int32_t[]){day(2023, 12, 31), day(2024, 12, 30)}, 2);
    expect_dates(DATUM_RATE_EVERY_YEAR, day(2024, 3, 3), day(2024, 3, 3),
                 (const int32_t[]){day(2024, 3, 3)}, 1);

    datum_ctx *ctx;
    int32_t *dates = (int32_t *)&dates;
    size_t n = 7;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_rate_history_dates(ctx, DATUM_RATE_EVERY_MONTH, 10, 9, &dates, &n), DATUM_E_ARG);
    assert_null(dates);
    assert_int_equal(n, 0);
    assert_int_equal(datum_rate_history_dates(ctx, (datum_rate_every)2, 9, 10, &dates, &n), DATUM_E_ARG);
    assert_int_equal(datum_rate_history_dates(ctx, DATUM_RATE_EVERY_YEAR, -800000, 10, &dates, &n),
                     DATUM_E_ARG);
    datum_ctx_free(&ctx);
}

/* The whole history of archive a: one result per date (caller frees). */
static datum_rate_result **history(const tarch *a, datum_rate_every every, int32_t from,
                                   double half_life, const datum_rate_options *o, int threads,
                                   int32_t **dates, size_t *n)
{
    datum_ctx *ctx;
    datum_rate_history *h;
    datum_method m;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    int32_t first = INT32_MAX, last = INT32_MIN;
    for (size_t i = 0; i < a->n_rows; i++) {
        if (a->date[i] < first) first = a->date[i];
        if (a->date[i] > last) last = a->date[i];
    }
    if (from > first) first = from;
    int32_t *d;
    assert_int_equal(datum_rate_history_dates(ctx, every, first, last, &d, n), DATUM_OK);
    assert_int_equal(datum_rate_history_create(ctx, a->n_pairs, from, half_life, d, *n, &h), DATUM_OK);
    datum_rate_chunk c = tarch_chunk(a);
    assert_int_equal(datum_rate_history_add(ctx, h, &m, &c), DATUM_OK);
    assert_int_equal(datum_rate_history_count(h), *n);
    datum_rate_result **r = calloc(*n, sizeof *r);
    for (size_t k = 0; k < *n; k++) {
        assert_int_equal(datum_rate_history_as_of(h, k), d[k]);
        int rc = datum_rate_history_solve(ctx, h, k, o, &r[k]);
        if (rc < 0 || rc == DATUM_W_INACCURATE)
            fail_msg("date %zu: %d (%s)", k, rc, datum_ctx_message(ctx));
        assert_non_null(r[k]);
    }
    *dates = malloc(*n * sizeof **dates);
    memcpy(*dates, d, *n * sizeof **dates);
    datum_free(d);
    datum_rate_history_free(&h);
    datum_ctx_free(&ctx);
    return r;
}

/* Every date of the history against a separate solve and the dense
 * reference; returns how many dates had a rated pair. */
static size_t check_history(const tarch *a, datum_rate_every every, int32_t from, double half_life,
                            const datum_rate_options *o, const char *what)
{
    int32_t *dates;
    size_t n, rated_dates = 0;
    datum_rate_result **r = history(a, every, from, half_life, o, 1, &dates, &n);
    double *ref = malloc(a->n_pairs * sizeof *ref);
    for (size_t k = 0; k < n; k++) {
        datum_rate_window w = {from, dates[k], half_life};
        datum_rate_result *one = r[k]->stats.pairs == 0 ? rate_run(a, &w, o, 1, DATUM_W_EMPTY)
                                                        : rate_run(a, &w, o, 1, DATUM_OK);
        char when[DATUM_DATE_SIZE];
        datum_format_date(dates[k], when);
        assert_int_equal(r[k]->stats.pairs, one->stats.pairs);
        assert_int_equal(r[k]->stats.components, one->stats.components);
        assert_int_equal(r[k]->stats.null_total, one->stats.null_total);
        /* The certificate built on the facts of the earlier dates proves
         * what a closure from scratch proves. */
        assert_int_equal(r[k]->stats.certified_components, one->stats.certified_components);
        assert_int_equal(r[k]->stats.certified_pairs, one->stats.certified_pairs);
        assert_int_equal(r[k]->stats.searched_components, one->stats.searched_components);
        for (uint32_t j = 0; j < a->n_pairs; j++) {
            if (isnan(one->rating[j]) != isnan(r[k]->rating[j]))
                fail_msg("%s as of %s: pair %u rated %g in the history, %g alone", what, when, j,
                         r[k]->rating[j], one->rating[j]);
            if (isnan(one->rating[j])) continue;
            if (!(fabs(r[k]->rating[j] - one->rating[j]) <= 1e-8) ||
                !(fabs(r[k]->boards[j] - one->boards[j]) <= 1e-12 * one->boards[j]))
                fail_msg("%s as of %s: pair %u: history %.17g (%.17g boards), alone %.17g (%.17g)",
                         what, when, j, r[k]->rating[j], r[k]->boards[j], one->rating[j],
                         one->boards[j]);
        }
        if (r[k]->stats.pairs > 0) { /* the equations of that date, from the reference's A */
            reference_info info;
            reference_solve(a, &w, 0, ref, r[k]->rating, &info);
            if (!(info.lib_range_residual <= 1e-9) || !(max_diff(a->n_pairs, ref, r[k]->rating) <= 1e-7))
                fail_msg("%s as of %s: residual %g on the reference's system, %g from its solution",
                         what, when, info.lib_range_residual, max_diff(a->n_pairs, ref, r[k]->rating));
            rated_dates++;
        }
        datum_rate_result_free(&one);
        datum_rate_result_free(&r[k]);
    }
    free(ref);
    free(r);
    free(dates);
    return rated_dates;
}

/* 0: auto, small components dense; 1: direct; 2: iterative; 3: auto on the
 * sparse path: a factor, then conjugate gradients preconditioned by it on
 * later dates while it serves. On archives this small auto's Jacobi trial
 * (at least 20 iterations) converges and auto never factorises: path 3
 * allows 12 iterations and no blocks, so that Jacobi cannot finish and auto
 * chooses the direct path (datum_rate_choose). 4: Jacobi CG on the sparse
 * path, deflated from the second date on by the Ritz vectors of the earlier
 * dates (solvers/recycle.c), against separate solves that do not deflate. */
enum { N_PATHS = 5 };
static datum_rate_options options(int path)
{
    datum_rate_options o = DATUM_RATE_OPTIONS_INIT;
    if (path > 0) o.dense_max = 0; /* the sparse paths, not only the dense one */
    if (path == 1) o.solver = DATUM_RATE_DIRECT;
    if (path == 2) o.solver = DATUM_RATE_ITERATIVE, o.block_size = 4;
    if (path == 3) o.max_iterations = 12, o.block_size = 1;
    if (path == 4) o.solver = DATUM_RATE_ITERATIVE, o.block_size = 1;
    return o;
}

/* Path 3 of a history: some dates take conjugate gradients on an earlier
 * factor (else the test would not test it): the iterative path with no
 * choice made by auto, and some dates auto chose (factorised). */
static void expect_factor_reused(const tarch *a)
{
    datum_rate_options o = options(3);
    int32_t *dates;
    size_t n, on_factor = 0, chosen = 0;
    datum_rate_result **r = history(a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 0, &o, 1, &dates, &n);
    for (size_t k = 0; k < n; k++) {
        const datum_rate_stats *s = &r[k]->stats;
        on_factor += s->path == DATUM_RATE_ITERATIVE && !s->chose && s->iterations > 0;
        chosen += s->chose && s->path == DATUM_RATE_DIRECT;
        datum_rate_result_free(&r[k]);
    }
    assert_true(on_factor > 0);
    assert_true(chosen > 0);
    free(r);
    free(dates);
}

/* A random archive over 16 months (Howell-like, Mitchell-like, 2-table
 * matches, adjusted rows, one-table fields): pairs appear along the way and
 * components join. Monthly and quarterly, with and without a half-life and
 * a start, on the dense and both sparse paths. */
static void test_random_equals_separate(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_random_equals_separate", 41);
    tarch a;
    tarch_init(&a, 40);
    tarch_random(&a, &rng, 40, 160, NULL);
    expect_factor_reused(&a);
    for (int path = 0; path < N_PATHS; path++) {
        datum_rate_options o = options(path);
        assert_true(check_history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 0, &o, "monthly") >= 15);
        assert_true(check_history(&a, DATUM_RATE_EVERY_QUARTER, INT32_MIN, 0, &o, "quarterly") >= 5);
        check_history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 45, &o, "monthly, half-life 45");
        check_history(&a, DATUM_RATE_EVERY_QUARTER, INT32_MIN, 200, &o, "quarterly, half-life 200");
        check_history(&a, DATUM_RATE_EVERY_MONTH, 19000 + 100, 30, &o, "monthly from day 100");
    }
    tarch_free(&a);
}

/* Two clubs of 6 pairs (3-table Howells) in January and February; in March
 * pair 12 appears and plays one round in each: two components become one. */
static void test_pair_appears(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_pair_appears", 7);
    tarch a;
    tarch_init(&a, 13);
    const int32_t ns[3][3] = {{0, 2, 4}, {0, 3, 5}, {1, 2, 5}}, ew[3][3] = {{1, 3, 5}, {4, 1, 2}, {3, 4, 0}};
    for (int month = 1; month <= 3; month++)
        for (int club = 0; club < 2; club++) {
            int32_t n[9], e[9];
            for (int i = 0; i < 9; i++) {
                n[i] = ns[i / 3][i % 3] + 6 * club;
                e[i] = ew[i / 3][i % 3] + 6 * club;
            }
            tarch_event(&a, &rng, day(2024, month, 10 + club), 3, 3, 2, n, e, NULL);
        }
    for (int club = 0; club < 2; club++) /* pair 12 replaces pair 0 of each club for a round */
        tarch_event(&a, &rng, day(2024, 3, 20 + club), 1, 3, 2,
                    (const int32_t[]){12, 2 + 6 * club, 4 + 6 * club},
                    (const int32_t[]){1 + 6 * club, 3 + 6 * club, 5 + 6 * club}, NULL);
    int32_t *dates;
    size_t n;
    datum_rate_options o = options(1);
    datum_rate_result **r = history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 0, &o, 1, &dates, &n);
    assert_int_equal(n, 3);
    assert_int_equal(dates[2], day(2024, 3, 21)); /* the archive's last date */
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(r[k]->stats.components, 2);
        assert_true(isnan(r[k]->rating[12]));
        assert_int_equal(r[k]->component[12], -1);
    }
    assert_int_equal(r[2]->stats.components, 1);
    assert_true(isfinite(r[2]->rating[12]));
    assert_true(r[2]->boards[12] == 4);
    for (size_t k = 0; k < n; k++) datum_rate_result_free(&r[k]);
    free(r);
    free(dates);
    check_history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 0, &o, "pair appears");
    o = options(2);
    check_history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 20, &o, "pair appears, iterative");
    tarch_free(&a);
}

/* A field played over two months: 2 tables on January 30, 2 more on
 * February 2 (and one on March 1). As of January 31 its datum is over the
 * first two; later over all of them: the January version is withdrawn. Its
 * pairs play nothing else, so February's own boards of pairs 12-15 sum to 0. */
static void test_field_over_two_months(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_field_over_two_months", 3);
    tarch a;
    tarch_init(&a, 22);
    tarch_random(&a, &rng, 12, 30, NULL); /* days 19000..19087: 2022-01-08 to 2022-04-05 */
    tarch_field(&a, day(2022, 2, 2));
    const int32_t when[] = {day(2022, 1, 30), day(2022, 1, 30), day(2022, 2, 2), day(2022, 2, 2),
                            day(2022, 3, 1)};
    const int32_t score[] = {420, -50, 140, 620, -100};
    for (int t = 0; t < 5; t++) {
        tarch_row(&a, 12 + 2 * t, 13 + 2 * t, score[t], 0); /* pairs who play nothing else */
        a.date[a.n_rows - 1] = when[t];
    }
    a.field_date[a.n_fields - 1] = day(2022, 3, 1);
    for (int path = 0; path < N_PATHS; path++) {
        datum_rate_options o = options(path);
        check_history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 0, &o, "field over two months");
        check_history(&a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 10, &o, "field over two months, decay");
        check_history(&a, DATUM_RATE_EVERY_MONTH, day(2022, 1, 31), 0, &o, "field over two months, from");
    }
    tarch_free(&a);
}

/* A history on 1 and 2 threads, with a half-life: the same bit for bit. */
static void expect_threads_equal(const tarch *a, int path)
{
    datum_rate_options o = options(path);
    int32_t *d1, *d2;
    size_t n1, n2;
    datum_rate_result **r1 = history(a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 60, &o, 1, &d1, &n1);
    datum_rate_result **r2 = history(a, DATUM_RATE_EVERY_MONTH, INT32_MIN, 60, &o, 2, &d2, &n2);
    assert_int_equal(n1, n2);
    for (size_t k = 0; k < n1; k++) {
        assert_memory_equal(r1[k]->rating, r2[k]->rating, a->n_pairs * sizeof *r1[k]->rating);
        assert_memory_equal(r1[k]->boards, r2[k]->boards, a->n_pairs * sizeof *r1[k]->boards);
        datum_rate_result_free(&r1[k]);
        datum_rate_result_free(&r2[k]);
    }
    free(r1); free(r2); free(d1); free(d2);
}

/* 1 and 2 threads: the same history bit for bit, on every sparse path. The
 * deflated Jacobi CG (path 4) on the archive of test_random_equals_separate:
 * plain Jacobi CG, deflated or not, does not reach the tolerance on the
 * first month of the larger one (a null direction Jacobi's peeled search
 * does not find; the blocks of path 2 do). */
static void test_threads(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_threads", 5);
    tarch a;
    tarch_init(&a, 80);
    tarch_random(&a, &rng, 80, 300, NULL);
    for (int path = 1; path < N_PATHS - 1; path++) expect_threads_equal(&a, path);
    tarch_free(&a);
    rng = test_rng_seeded("test_random_equals_separate", 41);
    tarch_init(&a, 40);
    tarch_random(&a, &rng, 40, 160, NULL);
    expect_threads_equal(&a, 4);
    tarch_free(&a);
}

static void test_errors(void **state)
{
    (void)state;
    datum_ctx *ctx;
    datum_rate_history *h = (datum_rate_history *)&h;
    datum_rate_result *r = NULL;
    datum_method m;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    const int32_t dates[] = {100, 200, 300};
    assert_int_equal(datum_rate_history_create(ctx, 4, INT32_MIN, 0, dates, 0, &h), DATUM_E_ARG);
    assert_null(h);
    assert_int_equal(datum_rate_history_create(ctx, 4, INT32_MIN, 0, (const int32_t[]){5, 5}, 2, &h),
                     DATUM_E_ARG);
    assert_int_equal(datum_rate_history_create(ctx, 4, 150, 0, dates, 3, &h), DATUM_E_ARG);
    assert_int_equal(datum_rate_history_create(ctx, 4, INT32_MIN, -1, dates, 3, &h), DATUM_E_ARG);
    /* A half-life that decays the oldest board below 2^-1000 is refused. */
    tarch a;
    tarch_init(&a, 4);
    tarch_field(&a, 10);
    tarch_row(&a, 0, 1, 100, 0);
    tarch_row(&a, 2, 3, -100, 0);
    datum_rate_chunk c = tarch_chunk(&a);
    assert_int_equal(datum_rate_history_create(ctx, 4, INT32_MIN, 0.25, dates, 3, &h), DATUM_OK);
    assert_int_equal(datum_rate_history_add(ctx, h, &m, &c), DATUM_E_ARG);
    datum_rate_history_free(&h);
    assert_null(h);
    datum_rate_history_free(&h);
    /* Out of turn, then no more chunks once solving has begun. */
    assert_int_equal(datum_rate_history_create(ctx, 4, INT32_MIN, 30, dates, 3, &h), DATUM_OK);
    assert_int_equal(datum_rate_history_add(ctx, h, &m, &c), DATUM_OK);
    assert_int_equal(datum_rate_history_solve(ctx, h, 1, NULL, &r), DATUM_E_ARG);
    assert_null(r);
    assert_int_equal(datum_rate_history_solve(ctx, h, 0, NULL, &r), DATUM_OK);
    /* Datum 0, imp(100) = 3: r = 3u, u = (1, -1, -1, 1), weighed 1/8 as A: v = 3u/4. */
    assert_true(fabs(r->rating[0] - 0.75) < 1e-12);
    datum_rate_result_free(&r);
    assert_int_equal(datum_rate_history_add(ctx, h, &m, &c), DATUM_E_ARG);
    assert_int_equal(datum_rate_history_as_of(h, 3), INT32_MIN);
    datum_rate_history_free(&h);
    tarch_free(&a);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dates),
        cmocka_unit_test(test_random_equals_separate),
        cmocka_unit_test(test_pair_appears),
        cmocka_unit_test(test_field_over_two_months),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
