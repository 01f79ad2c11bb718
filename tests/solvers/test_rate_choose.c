/* test_rate_choose.c - the auto choice as a pure function of a forecast and
 * given rates (datum_rate_choose): the trial budget before the analysis, the
 * predicted seconds of each path after it (worked out here by hand from the
 * cost model of docs/methods.md), the budgets, the fallbacks; the
 * calibration file. No clock: nothing here depends on the machine. */
#define _DEFAULT_SOURCE /* mkstemp */
#include "datum_alloc.h"
#include "datum_rate.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* Rates: 1e9 flop/s, mat-vec 1e8 entries/s, solves 1e8, analysis 1e6. */
static datum_rate_calibration rates(void)
{
    return (datum_rate_calibration){.factor_flops = 1e9, .block_flops = 1e9, .matvec = 1e8,
                                    .solve = 1e8, .analyse = 1e6, .source = "test"};
}

/* 10,000 pairs, 1e6 entries: an iteration (1e6 + 8 * 1e4) / 1e8 = 0.0108 s. */
static datum_rate_forecast before_analysis(void)
{
    return (datum_rate_forecast){.pairs = 1e4, .matrix_nnz = 1e6, .memory = 8e9, .flops = 2e12,
                                 .block_size = 512, .max_iterations = 5000, .tolerance = 1e-10};
}

/* After a trial of 92 iterations ending at 1e-3, at 0.9 an iteration:
 * ceil(log(1e-7) / log(0.9)) = ceil(152.98) = 153 more, 245 in all. */
static datum_rate_forecast after_trial(double factor_flops, double factor_nnz)
{
    datum_rate_forecast f = before_analysis();
    f.analysed = 1;
    f.factor_flops = factor_flops;
    f.factor_nnz = factor_nnz;
    f.factor_bytes = 8 * factor_nnz;
    f.trial_iterations = 92;
    f.trial_residual = 1e-3;
    f.trial_rate = 0.9;
    return f;
}

static void test_trial_budget(void **state)
{
    (void)state;
    datum_rate_forecast f = before_analysis();
    datum_rate_calibration c = rates();
    datum_rate_choice ch;
    datum_rate_choose(&f, &c, &ch);
    /* The analysis: 1e6 / 1e6 = 1 s, floor(1 / 0.0108) = 92 iterations. */
    assert_true(ch.trial);
    assert_int_equal(ch.trial_budget, 92);
    assert_int_equal(ch.path, DATUM_RATE_PATH_JACOBI);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_JACOBI], 92 * 0.0108, 1e-12);
    assert_true(isnan(ch.seconds[DATUM_RATE_PATH_DIRECT]));
    /* A fast analysis: never fewer than 20 iterations. */
    c.analyse = 1e9;
    datum_rate_choose(&f, &c, &ch);
    assert_int_equal(ch.trial_budget, 20);
    /* A slow one: never more than the iteration limit. */
    c.analyse = 1;
    datum_rate_choose(&f, &c, &ch);
    assert_int_equal(ch.trial_budget, 5000);
}

static void test_direct_wins(void **state)
{
    (void)state;
    datum_rate_forecast f = after_trial(1e9, 1e6);
    datum_rate_calibration c = rates();
    datum_rate_choice ch;
    datum_rate_choose(&f, &c, &ch);
    assert_false(ch.trial);
    /* direct: 1e9 / 1e9 + 4 * 1e6 / 1e8 = 1.04 s */
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_DIRECT], 1.04, 1e-12);
    /* Jacobi: 245 * 0.0108 = 2.646 s */
    assert_float_equal(ch.iterations[DATUM_RATE_PATH_JACOBI], 245, 0);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_JACOBI], 2.646, 1e-12);
    /* block: flops min(3 * 1e4 * 512^2, 1e9) = 1e9 -> 1 s; ceil(0.7 * 245) = 172
     * iterations of 0.0108 + 2 * min(1e4 * 512, 1e6) / 1e8 = 0.0308 s. */
    assert_float_equal(ch.iterations[DATUM_RATE_PATH_BLOCK], 172, 0);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_BLOCK], 1 + 172 * 0.0308, 1e-9);
    assert_int_equal(ch.path, DATUM_RATE_PATH_DIRECT);
    assert_non_null(strstr(ch.reason, "direct"));
}

static void test_jacobi_wins(void **state)
{
    (void)state;
    datum_rate_forecast f = after_trial(1e11, 2e7); /* direct: 100 + 0.8 s */
    datum_rate_calibration c = rates();
    datum_rate_choice ch;
    datum_rate_choose(&f, &c, &ch);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_DIRECT], 100.8, 1e-9);
    assert_int_equal(ch.path, DATUM_RATE_PATH_JACOBI);
    /* The trial converged: its iterations are the prediction. */
    f.trial_residual = 1e-11;
    datum_rate_choose(&f, &c, &ch);
    assert_float_equal(ch.iterations[DATUM_RATE_PATH_JACOBI], 92, 0);
    assert_int_equal(ch.path, DATUM_RATE_PATH_JACOBI);
}

static void test_block_wins(void **state)
{
    (void)state;
    /* Slow mat-vecs (an iteration 1.08e6 / 1e7 = 0.108 s), fast block
     * factorisations and solves: Jacobi 245 * 0.108 = 26.46 s; block
     * 3 * 1e4 * 512^2 / 1e12 = 0.00786 s + 172 * (0.108 + 2 * 5.12e6 / 1e10)
     * = 18.752 s; direct 1e11 / 1e9 + 4 * 2e7 / 1e10 = 100.008 s. */
    datum_rate_forecast f = after_trial(1e11, 2e7);
    datum_rate_calibration c = {.factor_flops = 1e9, .block_flops = 1e12, .matvec = 1e7,
                                .solve = 1e10, .analyse = 1e6};
    datum_rate_choice ch;
    datum_rate_choose(&f, &c, &ch);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_JACOBI], 26.46, 1e-9);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_BLOCK], 0.0078643 + 172 * (0.108 + 0.001024),
                       1e-6);
    assert_float_equal(ch.seconds[DATUM_RATE_PATH_DIRECT], 100.008, 1e-9);
    assert_int_equal(ch.path, DATUM_RATE_PATH_BLOCK);
}

static void test_budgets_and_fallbacks(void **state)
{
    (void)state;
    datum_rate_calibration c = rates();
    datum_rate_choice ch;
    /* The factor over the memory budget: direct excluded although fastest. */
    datum_rate_forecast f = after_trial(1e9, 1e6);
    f.memory = 1e6;
    datum_rate_choose(&f, &c, &ch);
    assert_true(isinf(ch.seconds[DATUM_RATE_PATH_DIRECT]));
    assert_int_equal(ch.path, DATUM_RATE_PATH_JACOBI);
    assert_non_null(strstr(ch.reason, "over the budgets"));
    /* Over the flop budget likewise. */
    f = after_trial(1e9, 1e6);
    f.flops = 1e8;
    datum_rate_choose(&f, &c, &ch);
    assert_true(isinf(ch.seconds[DATUM_RATE_PATH_DIRECT]));
    /* No progress in the trial: CG predicted never to finish, direct taken. */
    f = after_trial(1e11, 2e7);
    f.trial_rate = 1;
    datum_rate_choose(&f, &c, &ch);
    assert_true(isinf(ch.seconds[DATUM_RATE_PATH_JACOBI]));
    assert_true(isinf(ch.seconds[DATUM_RATE_PATH_BLOCK]));
    assert_int_equal(ch.path, DATUM_RATE_PATH_DIRECT);
    /* More iterations than the limit: the same. */
    f.trial_rate = 0.9;
    f.max_iterations = 200;
    datum_rate_choose(&f, &c, &ch);
    assert_true(isinf(ch.seconds[DATUM_RATE_PATH_JACOBI]));
    assert_int_equal(ch.path, DATUM_RATE_PATH_DIRECT);
    /* Nothing predicted to finish and the factor too big: Jacobi, said so. */
    f.memory = 1;
    datum_rate_choose(&f, &c, &ch);
    assert_int_equal(ch.path, DATUM_RATE_PATH_JACOBI);
    assert_non_null(strstr(ch.reason, "fallback"));
    /* Block size 1: the block path is Jacobi's iterations (no 0.7). */
    f = after_trial(1e9, 1e6);
    f.block_size = 1;
    datum_rate_choose(&f, &c, &ch);
    assert_float_equal(ch.iterations[DATUM_RATE_PATH_BLOCK], 245, 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_calibration_file(void **state)
{
    (void)state;
    datum_ctx *ctx = NULL;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    char path[] = "/tmp/datum_calibration_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    datum_rate_calibration c;
    datum_rate_calibration_builtin(&c);
    assert_non_null(strstr(c.source, "built-in"));
    double builtin_solve = c.solve;
    write_file(path, "# this machine\nfactor_flops 2.5e10\n\n  matvec 3e8   # one thread\n");
    assert_int_equal(datum_rate_calibration_read(ctx, path, &c), DATUM_OK);
    assert_float_equal(c.factor_flops, 2.5e10, 0);
    assert_float_equal(c.matvec, 3e8, 0);
    assert_float_equal(c.solve, builtin_solve, 0); /* not named: kept */
    assert_non_null(strstr(c.source, path));
    const char *bad[] = {"factor_flops 1e9\nspeed 3\n", "matvec -1\n", "matvec\n",
                         "matvec 1e8 1e9\n", "solve fast\n"};
    const int bad_line[] = {2, 1, 1, 1, 1};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        write_file(path, bad[k]);
        datum_ctx_free(&ctx); /* a fresh context: it keeps the first failure */
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_rate_calibration_read(ctx, path, &c), DATUM_E_INPUT);
        char where[64];
        snprintf(where, sizeof where, "%s:%d:", path, bad_line[k]);
        if (!strstr(datum_ctx_message(ctx), where))
            fail_msg("case %zu: message \"%s\", expected %s", k, datum_ctx_message(ctx), where);
    }
    remove(path);
    assert_int_equal(datum_rate_calibration_read(ctx, path, &c), DATUM_E_IO);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trial_budget),
        cmocka_unit_test(test_direct_wins),
        cmocka_unit_test(test_jacobi_wins),
        cmocka_unit_test(test_block_wins),
        cmocka_unit_test(test_budgets_and_fallbacks),
        cmocka_unit_test(test_calibration_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
