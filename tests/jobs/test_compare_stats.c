/* test_compare_stats.c - the rank statistics of datum compare (datum_spearman,
 * datum_kendall_tau_b) against references written here from the
 * definitions: mid-ranks counted pair by pair, tau-b from every pair's signs.
 * Random values with many ties, sizes on both sides of the O(n^2) / Knight
 * switch (64), and the undefined cases. The seed is printed. */
#include "compare_internal.h"
#include "datum_compare.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mid-rank of v[i]: 1 + the values below it + half the others equal to it. */
static double mid_rank(size_t n, const double *v, size_t i)
{
    double below = 0, equal = 0;
    for (size_t j = 0; j < n; j++) {
        below += v[j] < v[i];
        equal += j != i && v[j] == v[i];
    }
    return 1 + below + equal / 2;
}

static double ref_spearman(size_t n, const double *x, const double *y)
{
    double rx[400], ry[400], mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) rx[i] = mid_rank(n, x, i), ry[i] = mid_rank(n, y, i);
    for (size_t i = 0; i < n; i++) mx += rx[i] / (double)n, my += ry[i] / (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return n < 2 || sxx == 0 || syy == 0 ? NAN : sxy / sqrt(sxx * syy);
}

static double ref_tau_b(size_t n, const double *x, const double *y)
{
    double conc = 0, disc = 0, tx = 0, ty = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double dx = x[i] - x[j], dy = y[i] - y[j];
            if (dx == 0) tx++;
            if (dy == 0) ty++;
            if (dx * dy > 0) conc++;
            if (dx * dy < 0) disc++;
        }
    double n0 = (double)n * (double)(n - 1) / 2;
    return n < 2 || n0 == tx || n0 == ty ? NAN : (conc - disc) / sqrt((n0 - tx) * (n0 - ty));
}

static void check(size_t n, const double *x, const double *y)
{
    static double work[400 * 5 + 8];
    assert_true(datum_rank_work_size(n) <= sizeof work);
    double s = datum_spearman(n, x, y, work), rs = ref_spearman(n, x, y);
    double t = datum_kendall_tau_b(n, x, y, work), rt = ref_tau_b(n, x, y);
    assert_int_equal(isnan(s), isnan(rs));
    assert_int_equal(isnan(t), isnan(rt));
    if (!isnan(rs)) assert_true(fabs(s - rs) < 1e-12);
    if (!isnan(rt)) assert_true(fabs(t - rt) < 1e-12);
}

static void test_random(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_random", 15);
    double x[400], y[400];
    for (int round = 0; round < 400; round++) {
        size_t n = (size_t)test_rng_range(&rng, 0, 200); /* both sides of 64 */
        int64_t levels = test_rng_range(&rng, 1, 30);     /* few levels: many ties */
        for (size_t i = 0; i < n; i++) {
            x[i] = (double)(test_rng_range(&rng, 0, levels) - levels / 2);
            y[i] = test_rng_range(&rng, 0, 2) == 0 ? x[i] : (double)test_rng_range(&rng, 0, levels) / 4;
        }
        check(n, x, y);
    }
}

static void test_cases(void **state)
{
    (void)state;
    double up[] = {1, 2, 3, 4, 5}, down[] = {5, 4, 3, 2, 1}, flat[] = {2, 2, 2, 2, 2};
    double work[64];
    assert_true(datum_spearman(5, up, up, work) == 1.0);
    assert_true(datum_kendall_tau_b(5, up, up, work) == 1.0);
    assert_true(datum_spearman(5, up, down, work) == -1.0);
    assert_true(datum_kendall_tau_b(5, up, down, work) == -1.0);
    assert_true(isnan(datum_spearman(5, up, flat, work))); /* no variance */
    assert_true(isnan(datum_kendall_tau_b(5, flat, up, work)));
    assert_true(isnan(datum_spearman(1, up, up, work)));
    assert_true(isnan(datum_kendall_tau_b(0, up, up, work)));
    /* By hand: x = 1 2 2 3, y = 1 3 2 2: pairs (1,2) (1,3) (1,4) concordant,
     * (2,3) tied in x, (2,4) discordant, (3,4) tied in y: (3 - 1) / sqrt(5 * 5). */
    double hx[] = {1, 2, 2, 3}, hy[] = {1, 3, 2, 2};
    assert_true(fabs(datum_kendall_tau_b(4, hx, hy, work) - 0.4) < 1e-15);
}

/* The processor has AVX2 (compare_tau_b_ranks_all_on may use it). */
static int has_avx2(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* Every two of up to COMPARE_RANKINGS_MAX integer rankings at once: each
 * tau-b equals the definition's on those two (ties, constant rankings). */
static void test_tau_b_all(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_tau_b_all", 15);
    enum { N = COMPARE_TAU_BLOCK + 1, R = COMPARE_RANKINGS_MAX };
    static int32_t rank[R][N + COMPARE_TAU_PAD];
    static int16_t sign[R * COMPARE_TAU_STRIDE];
    static double tau[R * R], tau_on[R * R], x[N], y[N];
    /* Groups of up to 120 items (the signs of up to 7 blocks), then the
     * largest the blocks take, with three rankings (the reference is slow). */
    for (int round = 0; round < 62; round++) {
        size_t n = round < 60 ? (size_t)test_rng_range(&rng, 0, 120) : N;
        size_t m = round < 60 ? (size_t)test_rng_range(&rng, 2, R) : 3;
        const int32_t *rk[R];
        for (size_t a = 0; a < m; a++) {
            int64_t levels = test_rng_range(&rng, 1, 40); /* 1: a constant ranking */
            for (size_t j = 0; j < n; j++)
                rank[a][j] = a > 0 && test_rng_range(&rng, 0, 3) == 0
                                 ? rank[a - 1][j]
                                 : (int32_t)test_rng_range(&rng, 0, levels);
            rk[a] = rank[a];
        }
        /* As the processor allows, then without AVX2 (and with it where the
         * processor has it): the same figures. */
        compare_tau_b_ranks_all(n, m, rk, sign, tau);
        for (int wide = 0; wide < 2; wide++) {
            compare_tau_b_ranks_all_on(n, m, rk, sign, tau_on, wide && has_avx2());
            for (size_t a = 0; a < m * m; a++)
                if (a % (m + 1)) assert_memory_equal(&tau_on[a], &tau[a], sizeof tau[a]);
        }
        for (size_t a = 0; a < m; a++)
            for (size_t b = 0; b < m; b++) {
                if (a == b) continue;
                for (size_t j = 0; j < n; j++) x[j] = rank[a][j], y[j] = rank[b][j];
                double want = ref_tau_b(n, x, y), got = tau[a * m + b];
                assert_int_equal(isnan(got), isnan(want));
                if (!isnan(want)) assert_true(fabs(got - want) < 1e-12);
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_tau_b_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
