/* test_barking.c - barking cross-IMPs (§5, seed 002) and the teams-of-eight
 * match: the seed's formula as a golden test, hand-computed fields, the fast
 * kernel against the literal enumeration on random fields, the batch driver
 * (1 vs 2 threads bit-identical) and the match kernels. */
#include "test_util.h"
#include "datum.h"

#include <math.h>
#include <string.h>

static const datum_scale kWbf = DATUM_SCALE_INIT;

/* Fast kernel with its own workspace. */
static int fast(const datum_scale *scale, const int32_t *s, size_t n, double *raw)
{
    int64_t *work = malloc(datum_barking_work_len(n) * sizeof *work);
    assert_non_null(work);
    int rc = datum_field_barking(scale, s, n, work, raw);
    free(work);
    return rc;
}

/* Seed 002: "IMP(A+B+C+D) + IMP(A-B+C-D) + IMP(A-B-C+D) to calculate the
 * score for pair A, with pair B sat the same way, and other pairs of the team
 * (C, D) sat the other way", every score from its own pair's perspective. */
static int seed_formula(int a, int b, int c, int d)
{
    return datum_imp_wbf(a + b + c + d) + datum_imp_wbf(a - b + c - d) +
           datum_imp_wbf(a - b - c + d);
}

/* One teams-of-eight match: team X sits NS at tables 0 and 1 and EW at 2 and
 * 3, team Y the other way round. */
static void test_seed_formula_one_match(void **state)
{
    const int32_t s[4] = {620, 170, 420, -100}; /* NS scores */
    double ns[4], ns_lit[4];
    assert_int_equal(fast(&kWbf, s, 4, ns), DATUM_OK);
    assert_int_equal(datum_field_barking_literal(&kWbf, s, 4, ns_lit), DATUM_OK);
    /* By hand for team X's NS pair at table 0 (A = 620, B = 170, C = -420,
     * D = +100): IMP(470) + IMP(-70) + IMP(970) = 10 - 2 + 14 = 22. */
    const double expect[4] = {22, -2, 6, -26};
    for (int t = 0; t < 4; t++) {
        assert_true(ns[t] == expect[t]);
        assert_true(ns_lit[t] == expect[t]);
    }
    assert_int_equal(datum_barking_terms(4), 3);

    /* Every one of the eight pairs through the seed's formula. Own-perspective
     * score of the pair at table t: NS s[t], EW -s[t]. */
    int own_ns[4], own_ew[4];
    for (int t = 0; t < 4; t++) {
        own_ns[t] = s[t];
        own_ew[t] = -s[t];
    }
    /* Team X: NS at 0, 1; EW at 2, 3. */
    assert_true(ns[0] == seed_formula(own_ns[0], own_ns[1], own_ew[2], own_ew[3]));
    assert_true(ns[1] == seed_formula(own_ns[1], own_ns[0], own_ew[2], own_ew[3]));
    assert_true(-ns[2] == seed_formula(own_ew[2], own_ew[3], own_ns[0], own_ns[1])); /* EW pair */
    assert_true(-ns[3] == seed_formula(own_ew[3], own_ew[2], own_ns[0], own_ns[1]));
    /* Team Y: EW at 0, 1; NS at 2, 3. */
    assert_true(-ns[0] == seed_formula(own_ew[0], own_ew[1], own_ns[2], own_ns[3]));
    assert_true(-ns[1] == seed_formula(own_ew[1], own_ew[0], own_ns[2], own_ns[3]));
    assert_true(ns[2] == seed_formula(own_ns[2], own_ns[3], own_ew[0], own_ew[1]));
    assert_true(ns[3] == seed_formula(own_ns[3], own_ns[2], own_ew[0], own_ew[1]));
    /* C and D are interchangeable in the formula (both orders are terms). */
    assert_int_equal(seed_formula(own_ns[0], own_ns[1], own_ew[2], own_ew[3]),
                     seed_formula(own_ns[0], own_ns[1], own_ew[3], own_ew[2]));
    /* The first term is the teams match itself: X's aggregate 470 -> 10 IMPs. */
    assert_int_equal(datum_imp_wbf(own_ns[0] + own_ns[1] + own_ew[2] + own_ew[3]), 10);
}

/* Five tables, one +100 and four 0: 4 * C(3,2) = 12 terms per pair.
 * Table 0: every term is wbf(100) = 3: 36. Table 1: with B at table 0 the
 * three terms are +3 (9); with B at table 2 (or 3, 4) C and D come from
 * {0, 3, 4}: two pairs hold the +100 (-3 each), one does not (0): -6 three
 * times. 9 - 18 = -9. */
static void test_hand_computed_five_tables(void **state)
{
    const int32_t s[5] = {100, 0, 0, 0, 0};
    double raw[6], lit[6];
    assert_int_equal(datum_barking_terms(5), 12);
    assert_int_equal(fast(&kWbf, s, 5, raw), DATUM_OK);
    assert_int_equal(datum_field_barking_literal(&kWbf, s, 5, lit), DATUM_OK);
    const double expect[5] = {36, -9, -9, -9, -9};
    for (int i = 0; i < 5; i++) assert_true(raw[i] == expect[i] && lit[i] == expect[i]);

    datum_scale dbl = {DATUM_SCALE_WBF, 1, 0}, half = {DATUM_SCALE_WBF, 0, 1};
    assert_int_equal(fast(&dbl, s, 5, raw), DATUM_OK); /* wbf(200) = 5 */
    assert_true(raw[0] == 60 && raw[1] == 3 * 5 - 3 * 10);
    assert_int_equal(fast(&half, s, 5, raw), DATUM_OK);
    assert_true(raw[0] == 18 && raw[1] == -4.5);

    /* Every score equal: every term is 0. */
    const int32_t same[6] = {420, 420, 420, 420, 420, 420};
    assert_int_equal(fast(&kWbf, same, 6, raw), DATUM_OK);
    for (int i = 0; i < 6; i++) assert_true(raw[i] == 0 && !signbit(raw[i]));
}

/* Two matches (8 tables): 105 terms; three (12): 495; band edges. */
static void test_terms_and_band_edges(void **state)
{
    assert_int_equal(datum_barking_terms(3), 0);
    assert_int_equal(datum_barking_terms(8), 105);
    assert_int_equal(datum_barking_terms(12), 495);
    assert_int_equal(datum_barking_terms(128), 127 * (126 * 125 / 2));
    /* Sums landing exactly on 15, 14, 3995 and 4000 (wbf boundaries). */
    const int32_t s[6] = {15, 0, 0, 0, 3995, -5};
    double raw[6], lit[6];
    datum_scale variants[4] = {{DATUM_SCALE_WBF, 0, 0}, {DATUM_SCALE_WBF, 1, 0},
                               {DATUM_SCALE_WBF, 0, 1}, {DATUM_SCALE_WBF, 1, 1}};
    for (int v = 0; v < 4; v++) {
        assert_int_equal(fast(&variants[v], s, 6, raw), DATUM_OK);
        assert_int_equal(datum_field_barking_literal(&variants[v], s, 6, lit), DATUM_OK);
        assert_memory_equal(raw, lit, sizeof raw);
    }
}

static void test_errors_and_small_fields(void **state)
{
    const int32_t s[3] = {100, 0, -100};
    double raw[3] = {1, 2, 3};
    int64_t work[64];
    assert_int_equal(datum_field_barking(&kWbf, s, 3, work, raw), DATUM_W_EMPTY);
    for (int i = 0; i < 3; i++) assert_true(isnan(raw[i]));
    assert_int_equal(datum_field_barking_literal(&kWbf, s, 3, raw), DATUM_W_EMPTY);
    assert_int_equal(datum_field_barking(&kWbf, s, 0, work, raw), DATUM_W_EMPTY);
    datum_scale linear = {DATUM_SCALE_LINEAR, 0, 0};
    const int32_t four[4] = {1, 2, 3, 4};
    double out[4] = {7, 7, 7, 7};
    assert_int_equal(datum_field_barking(&linear, four, 4, work, out), DATUM_E_ARG);
    assert_int_equal(datum_field_barking_literal(&linear, four, 4, out), DATUM_E_ARG);
    assert_true(out[0] == 7);

    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    uint64_t offset[2] = {0, 4};
    datum_fields in = {1, offset, four, NULL};
    int64_t terms[4];
    assert_int_equal(datum_barking_fields(ctx, &linear, &in, out, out, terms), DATUM_E_ARG);
    assert_int_equal(datum_ctx_code(ctx), DATUM_E_ARG);
    assert_non_null(strstr(datum_ctx_message(ctx), "wbf"));
    datum_ctx_free(&ctx);
}

/* A random field: bridge-like scores, few distinct values, or extremes. */
static void random_field(test_rng *rng, int32_t *s, size_t n, int mode)
{
    int32_t few[4];
    for (int v = 0; v < 4; v++) few[v] = test_rng_score(rng);
    for (size_t i = 0; i < n; i++) {
        switch (mode) {
        case 0: s[i] = test_rng_score(rng); break;
        case 1: s[i] = few[test_rng_range(rng, 0, 3)]; break;          /* heavy ties */
        case 2: s[i] = (int32_t)(10 * test_rng_range(rng, -30, 30)); break;
        default: s[i] = (int32_t)test_rng_range(rng, -(1 << 20) + 1, (1 << 20) - 1); break;
        }
    }
}

static void check_fast_equals_literal(const datum_scale *scale, const int32_t *s, size_t n,
                                      double *raw, double *lit)
{
    assert_int_equal(fast(scale, s, n, raw), DATUM_OK);
    assert_int_equal(datum_field_barking_literal(scale, s, n, lit), DATUM_OK);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (raw[i] != lit[i])
            fail_msg("n=%zu table %zu: fast %.17g literal %.17g (doubled %d halved %d)", n, i,
                     raw[i], lit[i], scale->doubled, scale->halved);
        sum += raw[i];
    }
    assert_true(sum == 0); /* the field's barking scores sum to zero */
}

/* The fast kernel equals the literal enumeration exactly, on 4 to 64 tables
 * (and one of 100 all-distinct scores, past the direct-comparison size). */
static void test_fast_equals_literal_random(void **state)
{
    test_rng rng = test_rng_seeded("barking fast = literal", 20090531);
    int32_t s[100];
    double raw[100], lit[100];
    for (size_t n = 4; n <= 64; n++) {
        int reps = n <= 16 ? 12 : n <= 40 ? 2 : 1;
        for (int r = 0; r < reps; r++) {
            datum_scale scale = {DATUM_SCALE_WBF, (int)(n + r) % 2, (int)(n / 2 + r) % 2};
            random_field(&rng, s, n, (int)((n + (size_t)r) % 4));
            check_fast_equals_literal(&scale, s, n, raw, lit);
        }
    }
    for (size_t i = 0; i < 100; i++) s[i] = (int32_t)(37 * i - 1700); /* 100 distinct */
    check_fast_equals_literal(&kWbf, s, 100, raw, lit);
}

/* ------------------------------------------------------------------------ */
/* The batch driver.                                                        */

/* Random fields of 1 to 24 tables, one of 100 to 160 every 211, each drawn
 * by random_field in one of three modes; one row in 26 adjusted. */
static test_chunk random_chunk(test_rng *rng, size_t n_fields)
{
    const test_chunk_shape shape = {211, 100, 160, 24, 26, DATUM_ADJ_COUNT - 1};
    test_chunk c = test_chunk_random(rng, n_fields, shape);
    for (size_t f = 0; f < n_fields; f++)
        random_field(rng, c.score + c.offset[f], c.offset[f + 1] - c.offset[f], (int)(f % 3));
    return c;
}

static void run_driver(const test_chunk *c, const datum_scale *scale, int threads, double *raw,
                       double *avg, int64_t *terms)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    datum_fields in = {c->n_fields, c->offset, c->score, c->adjusted};
    assert_int_equal(datum_barking_fields(ctx, scale, &in, raw, avg, terms), DATUM_OK);
    datum_ctx_free(&ctx);
}

static void test_driver_threads_and_literal(void **state)
{
    test_rng rng = test_rng_seeded("barking driver", 8642);
    test_chunk c = random_chunk(&rng, 2000);
    double *raw1 = malloc(c.n_rows * 8), *raw2 = malloc(c.n_rows * 8);
    double *avg1 = malloc(c.n_rows * 8), *avg2 = malloc(c.n_rows * 8);
    int64_t *t1 = malloc(c.n_rows * 8), *t2 = malloc(c.n_rows * 8);
    datum_scale scale = {DATUM_SCALE_WBF, 0, 1};
    run_driver(&c, &scale, 1, raw1, avg1, t1);
    run_driver(&c, &scale, 2, raw2, avg2, t2);
    assert_memory_equal(raw1, raw2, c.n_rows * 8);
    assert_memory_equal(avg1, avg2, c.n_rows * 8);
    assert_memory_equal(t1, t2, c.n_rows * 8);

    /* Every field against the literal enumeration of its real scores. */
    int32_t real[160];
    double lit[160];
    for (size_t f = 0; f < c.n_fields; f++) {
        size_t m = 0, first = c.offset[f], n = c.offset[f + 1] - first;
        if (n > 40) continue; /* the literal is slow: the big fields are checked above */
        for (size_t r = first; r < first + n; r++)
            if (!c.adjusted[r]) real[m++] = c.score[r];
        int rc = datum_field_barking_literal(&scale, real, m, lit);
        assert_int_equal(rc, m < 4 ? DATUM_W_EMPTY : DATUM_OK);
        for (size_t r = first, j = 0; r < first + n; r++) {
            if (c.adjusted[r] || m < 4) {
                assert_true(isnan(raw1[r]) && isnan(avg1[r]) && t1[r] == 0);
                continue;
            }
            assert_true(raw1[r] == lit[j++]);
            assert_int_equal(t1[r], datum_barking_terms(m));
            assert_true(avg1[r] == raw1[r] / (double)t1[r]);
        }
    }
    free(raw1); free(raw2); free(avg1); free(avg2); free(t1); free(t2);
    test_chunk_free(&c);
}

/* ------------------------------------------------------------------------ */
/* The teams-of-eight match.                                                */

static void test_match_board(void **state)
{
    /* The match of the golden test: X (team 7) NS at tables 0, 1, Y (team 9). */
    const int32_t s[4] = {620, 170, 420, -100};
    const int32_t ns_team[4] = {7, 7, 9, 9}, ew_team[4] = {9, 9, 7, 7};
    int64_t agg_x, agg_y;
    double imps_x, imps_y;
    assert_int_equal(datum_match_board(&kWbf, s, ns_team, ew_team, 4, 7, &agg_x, &imps_x), DATUM_OK);
    assert_int_equal(datum_match_board(&kWbf, s, ns_team, ew_team, 4, 9, &agg_y, &imps_y), DATUM_OK);
    assert_int_equal(agg_x, 620 + 170 - 420 + 100); /* X's own-perspective scores */
    assert_true(imps_x == 10);
    assert_int_equal(agg_y, -agg_x);
    assert_true(imps_y == -imps_x);
    datum_scale half = {DATUM_SCALE_WBF, 0, 1};
    assert_int_equal(datum_match_board(&half, s, ns_team, ew_team, 4, 9, &agg_y, &imps_y), DATUM_OK);
    assert_true(imps_y == -5);
    /* A team that does not play at every table, or plays itself. */
    assert_int_equal(datum_match_board(&kWbf, s, ns_team, ew_team, 4, 8, &agg_x, &imps_x),
                     DATUM_E_INPUT);
    const int32_t self[4] = {7, 7, 9, 7};
    assert_int_equal(datum_match_board(&kWbf, s, ns_team, self, 4, 7, &agg_x, &imps_x),
                     DATUM_E_INPUT);
}

/* Two fields of two interleaved matches each; an adjusted row voids its
 * match's board; a malformed match is named. */
static void test_match_fields(void **state)
{
    uint64_t offset[3] = {0, 8, 16};
    int32_t score[16] = {620, 170, 420, -100, 50, -50, 100, 0,
                         10, 20, 30, 40, 3000, 0, 0, 0};
    int32_t match[16], ns_team[16], ew_team[16];
    uint8_t adjusted[16] = {0};
    for (int f = 0; f < 2; f++) {
        for (int t = 0; t < 8; t++) {
            int r = 8 * f + t, m = t % 2; /* tables alternate between matches 0 and 1 */
            int x = 2 * m, y = 2 * m + 1; /* match 0: teams 0, 1; match 1: teams 2, 3 */
            match[r] = m;
            ns_team[r] = t < 4 ? x : y;
            ew_team[r] = t < 4 ? y : x;
        }
    }
    adjusted[13] = DATUM_ADJ_A; /* field 1, table 5: match 1 */
    double agg[16], imps[16];
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_fields in = {2, offset, score, adjusted};
    size_t bad;
    assert_int_equal(datum_match_fields(ctx, &kWbf, &in, match, ns_team, ew_team, agg, imps, &bad),
                     DATUM_OK);
    assert_int_equal(bad, 2);
    /* Field 0, match 0: tables 0, 2 (team 0 NS), 4, 6 (team 0 EW):
     * 620 + 420 - 50 - 100 = 890 for team 0 -> 13 IMPs. */
    assert_true(agg[0] == 890 && imps[0] == 13 && agg[2] == 890);
    assert_true(agg[4] == -890 && imps[6] == -13);
    /* Field 0, match 1: tables 1, 3 (team 2 NS), 5, 7 (team 2 EW). */
    assert_true(agg[1] == 170 - 100 - (-50) - 0 && imps[1] == datum_imp_wbf(120));
    /* Field 1, match 0: 10 + 30 - 3000 - 0 = -2960 -> -21. */
    assert_true(agg[8] == -2960 && imps[8] == -21 && imps[12] == 21);
    for (int r = 9; r < 16; r += 2) assert_true(isnan(agg[r]) && isnan(imps[r]));

    /* Rows outside any match (-1) get NaN and leave the others alone. */
    match[8] = match[10] = match[12] = match[14] = -1;
    ns_team[8] = ew_team[8] = -1;
    assert_int_equal(datum_match_fields(ctx, &kWbf, &in, match, ns_team, ew_team, agg, imps, &bad),
                     DATUM_OK);
    assert_true(isnan(agg[8]) && isnan(imps[14]) && agg[0] == 890);

    ew_team[11] = 0; /* field 1, table 3: match 1 now pits team 2 against team 0 */
    assert_int_equal(datum_match_fields(ctx, &kWbf, &in, match, ns_team, ew_team, agg, imps, &bad),
                     DATUM_E_INPUT);
    assert_int_equal(bad, 1);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_formula_one_match),
        cmocka_unit_test(test_hand_computed_five_tables),
        cmocka_unit_test(test_terms_and_band_edges),
        cmocka_unit_test(test_errors_and_small_fields),
        cmocka_unit_test(test_fast_equals_literal_random),
        cmocka_unit_test(test_driver_threads_and_literal),
        cmocka_unit_test(test_match_board),
        cmocka_unit_test(test_match_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
