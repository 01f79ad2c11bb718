/* test_rate_alloc.c - a rating run (problem, chunks, solve, prediction) with
 * each of its allocations refused in turn, on the dense, direct and iterative
 * paths, and a monthly rating history (dates, chunks, every date solved on a
 * kept factor or afresh): every refusal returns DATUM_E_NOMEM "out of memory", recorded, and
 * leaks nothing (alloc_loop.h). */
#include "alloc_loop.h"
#include "rate_test_util.h"

#include "datum_alloc.h"

#include <string.h>

typedef struct {
    const tarch *archive;
    datum_rate_options opt;
    datum_rate_stats stats; /* of the run that refused nothing */
    uint64_t predictions;
} rate_job;

static int rate_scenario(datum_ctx *ctx, void *user)
{
    rate_job *j = user;
    datum_method m;
    datum_method_init(&m, "mean");
    datum_rate_problem *p = NULL;
    datum_rate_result *r = NULL;
    datum_rate_chunk c = tarch_chunk(j->archive);
    datum_rate_prediction acc = {0};
    int rc = datum_rate_problem_create(ctx, j->archive->n_pairs, NULL, &p);
    if (rc >= 0) rc = datum_rate_problem_add(ctx, p, &m, &c);
    if (rc >= 0) rc = datum_rate_solve(ctx, p, &j->opt, &r);
    if (rc >= 0) {
        j->stats = r->stats;
        rc = datum_rate_predict(ctx, &(datum_rate_window)DATUM_RATE_WINDOW_INIT, &m, &c,
                                j->archive->n_pairs, r->rating, &acc);
        j->predictions = acc.count;
    }
    datum_rate_result_free(&r);
    datum_rate_problem_free(&p);
    return rc;
}

static void run_path(const tarch *a, datum_rate_options opt, int threads, rate_job *j)
{
    *j = (rate_job){a, opt, {0}, 0};
    alloc_loop_run(rate_scenario, j, threads, NULL);
    assert_true(j->stats.pairs > 0);
    assert_true(j->predictions > 0);
}

static void test_rate_paths(void **state)
{
    test_rng rng = test_rng_seeded("test_rate_alloc", 5);
    tarch a;
    tarch_init(&a, 40);
    tarch_random(&a, &rng, 40, 6, NULL);
    rate_job j;

    datum_rate_options dense = DATUM_RATE_OPTIONS_INIT;
    run_path(&a, dense, 1, &j);
    assert_int_equal(j.stats.dense_components, j.stats.components);

    datum_rate_options direct = DATUM_RATE_OPTIONS_INIT;
    direct.dense_max = 0;
    direct.solver = DATUM_RATE_DIRECT;
    run_path(&a, direct, 1, &j);
    assert_int_equal(j.stats.path, DATUM_RATE_DIRECT);
    assert_int_equal(j.stats.dense_components, 0);

    datum_rate_options iterative = direct; /* blocks factorised on 2 threads */
    iterative.solver = DATUM_RATE_ITERATIVE;
    iterative.block_size = 4;
    run_path(&a, iterative, 2, &j);
    assert_int_equal(j.stats.path, DATUM_RATE_ITERATIVE);
    assert_true(j.stats.blocks > 1);

    iterative.ridge = 1.5; /* the ridge system's own factorisations */
    run_path(&a, iterative, 2, &j);
    assert_int_equal(j.stats.path, DATUM_RATE_ITERATIVE);
    tarch_free(&a);
}

/* A monthly history of the archive, every date solved; *user receives the
 * number of dates with a rated pair (the run that refused nothing). */
static int history_scenario(datum_ctx *ctx, void *user)
{
    const tarch *a = ((const void **)user)[0];
    size_t *rated = ((void **)user)[1];
    datum_method m;
    datum_method_init(&m, "mean");
    datum_rate_options opt = DATUM_RATE_OPTIONS_INIT;
    opt.dense_max = 0;
    datum_rate_chunk c = tarch_chunk(a);
    datum_rate_history *h = NULL;
    datum_rate_result *r = NULL;
    int32_t *dates = NULL;
    size_t n = 0;
    *rated = 0;
    int rc = datum_rate_history_dates(ctx, DATUM_RATE_EVERY_MONTH, a->date[0], a->date[a->n_rows - 1],
                                      &dates, &n);
    if (rc >= 0) rc = datum_rate_history_create(ctx, a->n_pairs, INT32_MIN, 60, dates, n, &h);
    if (rc >= 0) rc = datum_rate_history_add(ctx, h, &m, &c);
    for (size_t k = 0; rc >= 0 && k < n; k++) {
        rc = datum_rate_history_solve(ctx, h, k, &opt, &r);
        if (rc >= 0 && r->stats.pairs > 0) ++*rated;
        datum_rate_result_free(&r);
    }
    datum_rate_history_free(&h);
    datum_free(dates);
    return rc;
}

static void test_history(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_history", 9);
    tarch a;
    tarch_init(&a, 30);
    tarch_random(&a, &rng, 30, 40, NULL); /* about 4 months */
    size_t rated = 0;
    const void *user[] = {&a, &rated};
    alloc_loop_run(history_scenario, (void *)user, 1, NULL);
    assert_true(rated >= 3);
    tarch_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_paths),
        cmocka_unit_test(test_history),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
