/* test_rate_reference.c - random archives (seeded) against the dense LAPACK
 * reference, on every solve path, with and without ridge and time decay;
 * direct and iterative agreeing on a larger archive; 1 thread against 2 bit
 * for bit; the properties of the solution. */
#include "rate_test_util.h"

#include <math.h>
#include <string.h>

typedef struct {
    const char *name;
    datum_rate_solver solver;
    int dense_max, block_size;
} path;

static const path kPaths[] = {
    {"dense", DATUM_RATE_AUTO, 128, 512},
    {"direct", DATUM_RATE_DIRECT, 0, 512}, /* before the iterative paths: see compare() */
    {"iterative", DATUM_RATE_ITERATIVE, 0, 512},
    {"iterative-blocks", DATUM_RATE_ITERATIVE, 0, 6},
    {"auto", DATUM_RATE_AUTO, 0, 512},
};
#define N_PATHS (sizeof kPaths / sizeof *kPaths)

static datum_rate_options options_for(const path *p, double ridge)
{
    datum_rate_options o = DATUM_RATE_OPTIONS_INIT;
    o.solver = p->solver;
    o.dense_max = p->dense_max;
    o.block_size = p->block_size;
    o.ridge = ridge;
    return o;
}

/* Board-weighted sums of the ratings per component: 0 (the minimum-norm
 * solution is W-orthogonal to every component's indicator). */
static void check_component_means(const datum_rate_result *r, const char *what)
{
    double sum[256] = {0}, scale[256] = {0};
    for (uint32_t j = 0; j < r->n_pairs; j++) {
        int32_t c = r->component[j];
        if (c < 0 || c >= 256) continue;
        sum[c] += r->boards[j] * r->rating[j];
        scale[c] += r->boards[j] * fabs(r->rating[j]);
    }
    for (int c = 0; c < 256; c++)
        if (!(fabs(sum[c]) <= 1e-9 * (1 + scale[c])))
            fail_msg("%s: component %d has board-weighted sum %g", what, c, sum[c]);
}

static void compare(const tarch *a, const datum_rate_window *w, double ridge, const char *label)
{
    double *ref = malloc(a->n_pairs * sizeof *ref);
    reference_info info;
    reference_solve(a, w, ridge, ref, NULL, &info);
    uint32_t numeric = 0; /* null directions beyond the structure (the direct path finds all) */
    for (size_t k = 0; k < N_PATHS; k++) {
        const path *p = &kPaths[k];
        datum_rate_options o = options_for(p, ridge);
        if (getenv("RATE_DEBUG"))
            print_message("# %s, %s, ridge %g, half-life %g\n", label, p->name, ridge, w ? w->half_life : 0);
        /* The iterative path searches for null directions beyond the structure
         * only in peeled pieces and in its blocks: with small blocks it can miss
         * some (null_complete = 0), then it misses its tolerance or, by luck
         * or with a ridge, is off along them. Such runs are checked only when
         * the direct path found no such direction. */
        /* Auto may take plain Jacobi (its trial converging): the same. */
        int partial = ((p->solver == DATUM_RATE_ITERATIVE && p->block_size < 512) ||
                       (p->solver == DATUM_RATE_AUTO && p->dense_max == 0)) && numeric > 0;
        datum_rate_result *r = rate_run(a, w, &o, 1, partial ? RATE_OK_OR_INACCURATE : DATUM_OK);
        if (p->solver == DATUM_RATE_DIRECT) numeric = r->stats.null_numeric;
        /* Complete on the direct path; on the iterative one, where the
         * structure certifies every component. A certificate is never wrong:
         * where the direct path found a direction beyond the structure, some
         * component is left to the numerical search. */
        assert_int_equal(r->stats.null_complete,
                         r->stats.path != DATUM_RATE_ITERATIVE || r->stats.searched_components == 0);
        if (numeric > 0 && r->stats.searched_components == 0)
            fail_msg("%s, %s: certified, but the direct path found %u null directions beyond "
                     "the structure", label, p->name, numeric);
        if (partial) {
            datum_rate_result_free(&r);
            continue;
        }
        double d = max_diff(a->n_pairs, r->rating, ref);
        if (!(d <= 1e-8))
            fail_msg("%s, %s, ridge %g, half-life %g: the ratings differ from the reference by %g",
                     label, p->name, ridge, w ? w->half_life : 0, d);
        if (!(ridge > 0) && r->stats.null_total != (uint32_t)info.null_dim)
            fail_msg("%s, %s: null dimension %u, reference %d", label, p->name,
                     r->stats.null_total, info.null_dim);
        assert_float_equal(r->stats.least_residual, info.least_residual, 1e-8 * (1 + info.least_residual));
        reference_info lib;
        double *tmp = malloc(a->n_pairs * sizeof *tmp);
        reference_solve(a, w, ridge, tmp, r->rating, &lib);
        if (!(lib.lib_range_residual <= 1e-9))
            fail_msg("%s, %s: ||A v - r_c|| / ||r_c|| = %g with the reference's A", label, p->name,
                     lib.lib_range_residual);
        if (!(ridge > 0)) check_component_means(r, p->name);
        free(tmp);
        datum_rate_result_free(&r);
    }
    free(ref);
}

static void test_random_against_reference(void **state)
{
    test_rng rng = test_rng_seeded("rate_reference", 20240601);
    for (int round = 0; round < 12; round++) {
        tarch a;
        uint32_t n_pairs = (uint32_t)test_rng_range(&rng, 8, 40);
        tarch_init(&a, n_pairs);
        tarch_random(&a, &rng, n_pairs, (int)test_rng_range(&rng, 3, 14), NULL);
        char label[64];
        snprintf(label, sizeof label, "archive %d (%u pairs)", round, n_pairs);
        compare(&a, NULL, 0, label);
        compare(&a, NULL, 2.5, label); /* ridge, in boards */
        /* Time decay against the last date, and a window that drops the start. */
        datum_rate_window w = {19006, a.field_date[a.n_fields - 1], 10};
        compare(&a, &w, 0, label);
        compare(&a, &w, 0.5, label);
        tarch_free(&a);
    }
}

/* A federation in miniature: 300 pairs in clubs of 30, weekly club nights,
 * congresses mixing the clubs, teams matches; strengths known. */
static void federation(tarch *a, test_rng *rng, double *strength)
{
    enum { P = 300, CLUB = 30 };
    tarch_init(a, P);
    for (int j = 0; j < P; j++) strength[j] = (double)test_rng_range(rng, -300, 300) / 100;
    int32_t ns[8 * 8], ew[8 * 8], seat[16];
    for (int week = 0; week < 40; week++) {
        for (int club = 0; club < P / CLUB; club++) {
            for (int k = 0; k < 4; k++) { /* 4 rounds, 6 tables, fresh seating */
                for (int i = 0; i < 12; i++) seat[i] = club * CLUB + (int32_t)test_rng_range(rng, 0, CLUB - 1);
                for (int i = 0; i < 12; i++) /* distinct pairs: resample repeats */
                    for (int q = 0; q < i; q++)
                        if (seat[q] == seat[i]) { seat[i] = club * CLUB + (seat[i] + 7) % CLUB; q = -1; }
                for (int t = 0; t < 6; t++) {
                    int flip = (int)test_rng_range(rng, 0, 1);
                    ns[k * 6 + t] = seat[2 * t + flip];
                    ew[k * 6 + t] = seat[2 * t + 1 - flip];
                }
            }
            /* one event per round (a field holds a pair once) */
            for (int k = 0; k < 4; k++)
                tarch_event(a, rng, 19000 + 7 * week, 1, 6, 2, ns + k * 6, ew + k * 6, strength);
        }
        if (week % 8 == 7) { /* a congress: 8 tables from every club */
            for (int k = 0; k < 3; k++) {
                for (int t = 0; t < 8; t++) {
                    ns[t] = (int32_t)test_rng_range(rng, 0, 9) * CLUB + 2 * t;
                    ew[t] = (int32_t)test_rng_range(rng, 0, 9) * CLUB + 2 * t + 1;
                }
                tarch_event(a, rng, 19000 + 7 * week + 1, 1, 8, 3, ns, ew, strength);
            }
        }
    }
}

/* The federation of a named, seeded test. */
static void seeded_federation(const char *name, uint64_t seed, tarch *a, double *strength)
{
    test_rng rng = test_rng_seeded(name, seed);
    federation(a, &rng, strength);
}

static void test_direct_iterative_agree(void **state)
{
    double strength[300];
    tarch a;
    seeded_federation("federation", 77, &a, strength);
    datum_rate_options o = DATUM_RATE_OPTIONS_INIT;
    o.solver = DATUM_RATE_DIRECT;
    datum_rate_result *direct = rate_run(&a, NULL, &o, 1, DATUM_OK);
    o.solver = DATUM_RATE_ITERATIVE;
    o.block_size = 40;
    datum_rate_result *iter = rate_run(&a, NULL, &o, 1, DATUM_OK);
    o.block_size = 1;
    datum_rate_result *jacobi = rate_run(&a, NULL, &o, 1, DATUM_OK);
    double *ref = malloc(300 * sizeof *ref);
    reference_info info;
    reference_solve(&a, NULL, 0, ref, NULL, &info);
    print_message("# federation: %u pairs, %u components, null %u, %d CG iterations (%u blocks), "
                  "%d plain Jacobi\n", direct->stats.pairs, direct->stats.components,
                  direct->stats.null_total, iter->stats.iterations, iter->stats.blocks,
                  jacobi->stats.iterations);
    assert_true(direct->stats.path == DATUM_RATE_DIRECT && iter->stats.path == DATUM_RATE_ITERATIVE);
    assert_true(direct->stats.range_residual <= 1e-10 && iter->stats.range_residual <= 1e-10);
    /* 1e-6 IMP per board between the paths (the bar), 1e-8 against the reference. */
    assert_true(max_diff(300, direct->rating, iter->rating) <= 1e-6);
    assert_true(max_diff(300, direct->rating, jacobi->rating) <= 1e-6);
    assert_true(max_diff(300, direct->rating, ref) <= 1e-8);
    assert_int_equal(direct->stats.null_total, info.null_dim);
    /* The compensated ratings track the strengths better than raw Butler. */
    double raw_r = datum_rate_pearson(300, direct->butler_per_board, strength, direct->boards, 0, NULL);
    double comp_r = datum_rate_pearson(300, direct->rating, strength, direct->boards, 0, NULL);
    print_message("# correlation with the truth: raw %.3f, compensated %.3f\n", raw_r, comp_r);
    assert_true(comp_r > raw_r);
    datum_rate_result_free(&direct);
    datum_rate_result_free(&iter);
    datum_rate_result_free(&jacobi);
    free(ref);
    tarch_free(&a);
}

static void test_threads_bit_identical(void **state)
{
    double strength[300];
    tarch a;
    seeded_federation("federation_threads", 78, &a, strength);
    const path cases[] = {
        {"direct", DATUM_RATE_DIRECT, 0, 512},
        {"iterative", DATUM_RATE_ITERATIVE, 0, 40},
        {"dense", DATUM_RATE_AUTO, 1000, 512},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        datum_rate_options o = options_for(&cases[k], 0);
        datum_rate_result *one = rate_run(&a, NULL, &o, 1, DATUM_OK);
        datum_rate_result *two = rate_run(&a, NULL, &o, 2, DATUM_OK);
        if (memcmp(one->rating, two->rating, 300 * sizeof *one->rating) != 0)
            fail_msg("%s: 1 and 2 threads differ", cases[k].name);
        /* The residuals are computed from the assembled A: it is the same too. */
        assert_memory_equal(&one->stats.residual, &two->stats.residual, sizeof(double));
        assert_memory_equal(&one->stats.range_residual, &two->stats.range_residual, sizeof(double));
        assert_int_equal(one->stats.iterations, two->stats.iterations);
        datum_rate_result_free(&one);
        datum_rate_result_free(&two);
    }
    tarch_free(&a);
}

/* Out-of-sample prediction: fit on the first half, predict the second. */
static void test_prediction(void **state)
{
    double strength[300];
    tarch a;
    seeded_federation("prediction", 79, &a, strength);
    int32_t split = 19000 + 7 * 20;
    datum_rate_window fit = {INT32_MIN, split, 0}, later = {split + 1, INT32_MAX, 0};
    datum_rate_result *r = rate_run(&a, &fit, NULL, 2, DATUM_OK);
    datum_ctx *ctx;
    datum_method m;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    datum_rate_chunk c = tarch_chunk(&a);
    datum_rate_prediction comp = {0}, raw = {0};
    assert_int_equal(datum_rate_predict(ctx, &later, &m, &c, 300, r->rating, &comp), DATUM_OK);
    assert_int_equal(datum_rate_predict(ctx, &later, &m, &c, 300, r->butler_per_board, &raw), DATUM_OK);
    double rmse_c, corr_c, rmse_r, corr_r;
    datum_rate_prediction_summary(&comp, &rmse_c, &corr_c);
    datum_rate_prediction_summary(&raw, &rmse_r, &corr_r);
    print_message("# predicting %llu later results: compensated RMSE %.3f r %.3f, raw RMSE %.3f r %.3f\n",
                  (unsigned long long)comp.count, rmse_c, corr_c, rmse_r, corr_r);
    assert_true(comp.count > 1000 && comp.count == raw.count);
    assert_true(corr_c > 0.3 && rmse_c < rmse_r);
    datum_rate_result_free(&r);
    datum_ctx_free(&ctx);
    tarch_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_direct_iterative_agree),
        cmocka_unit_test(test_threads_bit_identical),
        cmocka_unit_test(test_prediction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
