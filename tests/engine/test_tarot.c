/* test_tarot.c - tarot Attaque-Défense (§7): the seed's étui n°1 in its three
 * tables, the starting bonus examples, rankings with ties, edge cases of
 * the reference note, the exact option, and random étuis checked against a
 * direct implementation of the definitions. */
#include "test_util.h"
#include "datum_tarot.h"

#include <math.h>
#include <string.h>

/* The seed's étui n°1, positions 1..11. */
#define SEED_N 11
static const int32_t kSeedScores[SEED_N] = {62, 60, 66, 66, 74, 64, 58, 54, 56, 86, -98};

/* Scores one étui with the given reference rule and rounding. */
static datum_tarot_etui score_etui(datum_tarot_reference rule, int exact, const int32_t *s,
                                   size_t n, datum_tarot_line *lines)
{
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    opt.reference = rule;
    opt.exact = exact;
    int32_t work[64];
    datum_tarot_etui etui;
    assert_true(n <= 64);
    assert_int_equal(datum_tarot_score_etui(&opt, s, n, work, &etui, lines), DATUM_OK);
    return etui;
}

/* Checks one of the seed's tables: reference, every difference and PM, in
 * attack and (negated) in defense. Values are compared exactly: a rounded
 * output is the double nearest to its hundredth, as the literal is. */
static void check_seed_table(datum_tarot_reference rule, double reference, const double *diff,
                             const double *pm)
{
    datum_tarot_line l[SEED_N];
    datum_tarot_etui e = score_etui(rule, 0, kSeedScores, SEED_N, l);
    assert_true(e.reference == reference);
    assert_int_equal(e.n_scores, 11);
    assert_int_equal(e.n_positive, 10);
    assert_int_equal(e.n_negative, 1);
    for (int i = 0; i < SEED_N; i++) {
        if (l[i].diff != diff[i] || l[i].pm_attack != pm[i] || l[i].pm_defense != -pm[i])
            fail_msg("position %d: diff %.17g pm %.17g / %.17g, expected %g and %g", i + 1,
                     l[i].diff, l[i].pm_attack, l[i].pm_defense, diff[i], pm[i]);
    }
}

static void test_seed_table1_plain_mean(void **state)
{
    /* 49.82 is 548/11 = 49.8181... rounded: 86 gets 6.01, not 6.02. */
    static const double diff[SEED_N] = {12.18, 10.18, 16.18, 16.18, 24.18, 14.18,
                                        8.18,  4.18,  6.18,  36.18, -147.82};
    static const double pm[SEED_N] = {3.49, 3.19, 4.02, 4.02, 4.92, 3.77,
                                      2.86, 2.04, 2.49, 6.01, -12.16};
    check_seed_table(DATUM_TAROT_REF_MEAN, 49.82, diff, pm);
}

static void test_seed_table2_step1(void **state)
{
    static const double diff[SEED_N] = {-2.6, -4.6,  1.4,  1.4,  9.4,   -0.6,
                                        -6.6, -10.6, -8.6, 21.4, -162.6};
    static const double pm[SEED_N] = {-1.61, -2.14, 1.18,  1.18, 3.07,  -0.77,
                                      -2.57, -3.26, -2.93, 4.63, -12.75};
    check_seed_table(DATUM_TAROT_REF_MINORITY, 64.60, diff, pm);
    datum_tarot_line l[SEED_N];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_MINORITY, 0, kSeedScores, SEED_N, l);
    assert_int_equal(e.n_minority, 1);
    assert_int_equal(e.n_clipped, 0);
}

static void test_seed_table3_steps12(void **state)
{
    static const double diff[SEED_N] = {-0.22, -2.22, 3.78,  3.78,  11.78, 1.78,
                                        -4.22, -8.22, -6.22, 23.78, -160.22};
    static const double pm[SEED_N] = {-0.47, -1.49, 1.94,  1.94, 3.43,  1.33,
                                      -2.05, -2.87, -2.49, 4.88, -12.66};
    check_seed_table(DATUM_TAROT_REF_FFT, 62.22, diff, pm);
    datum_tarot_line l[SEED_N];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 0, kSeedScores, SEED_N, l);
    assert_int_equal(e.n_minority, 1);
    assert_int_equal(e.n_clipped, 1); /* ceil(1/2): the +86 */
}

static void test_seed_percentages_and_regularity(void **state)
{
    /* The seed's last table, attack then defense (blank regularity = 0). */
    static const double pct_att[SEED_N] = {50, 40, 75, 75, 90, 60, 30, 10, 20, 100, 0};
    static const double reg_att[SEED_N] = {1, 0, 1.5, 1.5, 1.8, 1.2, 0, 0, 0, 2, 0};
    static const double pct_def[SEED_N] = {50, 60, 25, 25, 10, 40, 70, 90, 80, 0, 100};
    static const double reg_def[SEED_N] = {1, 1.2, 0, 0, 0, 0, 1.4, 1.8, 1.6, 0, 2};
    datum_tarot_line l[SEED_N];
    score_etui(DATUM_TAROT_REF_FFT, 0, kSeedScores, SEED_N, l);
    for (int i = 0; i < SEED_N; i++) {
        assert_true(l[i].pct_attack == pct_att[i]);
        assert_true(l[i].reg_attack == reg_att[i]);
        assert_true(l[i].pct_defense == pct_def[i]);
        assert_true(l[i].reg_defense == reg_def[i]);
    }
}

static void test_fell_etui_mirrors_the_seed(void **state)
{
    /* The seed's étui with every sign flipped: the step 2 clip takes -86. */
    int32_t s[SEED_N];
    for (int i = 0; i < SEED_N; i++) s[i] = -kSeedScores[i];
    datum_tarot_line a[SEED_N], b[SEED_N];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 0, s, SEED_N, a);
    score_etui(DATUM_TAROT_REF_FFT, 0, kSeedScores, SEED_N, b);
    assert_true(e.reference == -62.22);
    assert_int_equal(e.n_positive, 1);
    assert_int_equal(e.n_negative, 10);
    for (int i = 0; i < SEED_N; i++) {
        assert_true(a[i].pm_attack == -b[i].pm_attack);
        assert_true(a[i].pct_attack == b[i].pct_defense);
    }
}

static void test_single_score(void **state)
{
    int32_t s = 120;
    datum_tarot_line l;
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 0, &s, 1, &l);
    assert_true(e.reference == 120);
    assert_true(l.diff == 0 && l.pm_attack == 0 && l.pm_defense == 0);
    assert_false(signbit(l.pm_defense)); /* +0.0: no "-0,00" on a sheet */
    assert_true(l.pct_attack == 50 && l.pct_defense == 50);
    assert_true(l.reg_attack == 1 && l.reg_defense == 1);
}

static void test_empty_etui(void **state)
{
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    datum_tarot_etui e;
    int32_t work[1];
    assert_int_equal(datum_tarot_score_etui(&opt, NULL, 0, work, &e, NULL), DATUM_W_EMPTY);
    assert_true(isnan(e.reference));
    assert_int_equal(e.n_scores, 0);
}

static void test_all_won_is_not_clipped(void **state)
{
    /* m = 0: no minority removed, so no clipping either (plain mean 25). */
    int32_t s[] = {10, 20, 30, 40};
    datum_tarot_line l[4];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 0, s, 4, l);
    assert_true(e.reference == 25);
    assert_int_equal(e.n_minority, 0);
    assert_int_equal(e.n_clipped, 0);
    assert_true(l[3].pm_attack == 3.87); /* sqrt(15) = 3.8729 */
    assert_true(l[3].pct_attack == 100 && l[3].reg_attack == 2);
    assert_true(l[0].pct_attack == 0 && l[0].reg_attack == 0);
    assert_true(l[1].pct_attack == 100.0 / 3); /* kept exact, not 33.33 */
}

static void test_zero_counts_for_neither_sign(void **state)
{
    /* 2 positive, 1 negative: 2*1 < 2 fails, no adjustment. Counting the
     * zeros as positive would have dropped the -10. */
    int32_t a[] = {-10, 0, 0, 5, 5};
    datum_tarot_line l[6];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 0, a, 5, l);
    assert_true(e.reference == 0);
    assert_int_equal(e.n_positive, 2);
    assert_int_equal(e.n_negative, 1);
    assert_int_equal(e.n_minority, 0);
    assert_true(l[1].pct_attack == 37.5); /* 0 beats -10, ties one 0: 1.5/4 */

    /* 3 positive, 1 negative: drop -5 and the top 30; the zeros stay. */
    int32_t b[] = {0, 0, 10, 20, 30, -5};
    e = score_etui(DATUM_TAROT_REF_FFT, 0, b, 6, l);
    assert_true(e.reference == 7.5);
    assert_int_equal(e.n_positive, 3);
    assert_int_equal(e.n_negative, 1);
    assert_int_equal(e.n_minority, 1);
    assert_int_equal(e.n_clipped, 1);
    assert_true(l[0].pm_attack == -2.74); /* -sqrt(7.5) = -2.7386 */
}

static void test_clip_count_is_half_rounded_up(void **state)
{
    /* 3 negatives against 7 positives: drop them and ceil(3/2) = 2 tops. */
    int32_t s[] = {-100, -90, -80, 10, 20, 30, 40, 50, 1000, 900};
    datum_tarot_line l[10];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 0, s, 10, l);
    assert_int_equal(e.n_minority, 3);
    assert_int_equal(e.n_clipped, 2);
    assert_true(e.reference == 30);
    /* 2 negatives against 4 positives: 4 < 4 fails, plain mean. */
    int32_t t[] = {-60, -60, 30, 30, 30, 30};
    e = score_etui(DATUM_TAROT_REF_FFT, 0, t, 6, l);
    assert_int_equal(e.n_minority, 0);
    assert_true(e.reference == 0);
}

static void test_reference_halves_away_from_zero(void **state)
{
    int32_t s[8] = {1, 0, 0, 0, 0, 0, 0, 0}; /* 1/8 = 0.125 */
    datum_tarot_line l[8];
    assert_true(score_etui(DATUM_TAROT_REF_FFT, 0, s, 8, l).reference == 0.13);
    assert_true(score_etui(DATUM_TAROT_REF_FFT, 1, s, 8, l).reference == 0.125);
    s[0] = -1;
    assert_true(score_etui(DATUM_TAROT_REF_FFT, 0, s, 8, l).reference == -0.13);
}

static void test_exact_option(void **state)
{
    datum_tarot_line l[SEED_N];
    datum_tarot_etui e = score_etui(DATUM_TAROT_REF_FFT, 1, kSeedScores, SEED_N, l);
    assert_true(e.reference == 560.0 / 9.0);
    assert_true(l[9].diff == 214.0 / 9.0);                    /* 86 - 560/9 */
    assert_true(l[9].pm_attack == sqrt(214.0 / 9.0));         /* 4.8762... */
    assert_true(l[0].pm_attack == -sqrt(2.0 / 9.0));          /* 62 - 560/9 */
    assert_true(l[0].pm_defense == sqrt(2.0 / 9.0));
    assert_true(l[9].reg_attack == 2 && l[0].pct_attack == 50); /* unchanged */
}

static void test_options_and_bad_scores(void **state)
{
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    datum_tarot_etui e;
    datum_tarot_line l[2];
    int32_t work[2], s[2] = {10, 1 << 20};
    assert_int_equal(datum_tarot_score_etui(&opt, s, 2, work, &e, l), DATUM_E_ARG);
    s[1] = -(1 << 20) + 1;
    assert_int_equal(datum_tarot_score_etui(&opt, s, 2, work, &e, l), DATUM_OK);
    opt.exact = 2;
    assert_int_equal(datum_tarot_options_check(&opt), DATUM_E_ARG);
    opt.exact = 0;
    opt.reference = (datum_tarot_reference)3;
    assert_int_equal(datum_tarot_score_etui(&opt, s, 2, work, &e, l), DATUM_E_ARG);
    opt.reference = DATUM_TAROT_REF_FFT;
    opt.bonus_etuis = -1;
    assert_int_equal(datum_tarot_options_check(&opt), DATUM_E_ARG);
}

/* ------------------------------------------------------------------------ */
/* Random étuis against the definitions, written out plainly. */

static int by_magnitude_desc(const void *a, const void *b)
{
    int32_t x = abs(*(const int32_t *)a), y = abs(*(const int32_t *)b);
    return (x < y) - (x > y);
}

/* The FFT reference, exactly as §7 words it: sum and count of what is kept. */
static void direct_reference(const int32_t *s, size_t n, int64_t *sum, int64_t *count)
{
    int64_t pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) pos += s[i] > 0, neg += s[i] < 0;
    int64_t m = pos < neg ? pos : neg, big = pos < neg ? neg : pos;
    int majority_sign = pos > neg ? 1 : -1;
    *sum = 0;
    *count = 0;
    if (!(m > 0 && 2 * m < big)) {
        for (size_t i = 0; i < n; i++) *sum += s[i];
        *count = (int64_t)n;
        return;
    }
    int32_t kept[256];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == 0 || (s[i] > 0) == (majority_sign > 0)) kept[k++] = s[i];
    qsort(kept, k, sizeof *kept, by_magnitude_desc);
    for (size_t i = (size_t)(m + 1) / 2; i < k; i++) *sum += kept[i], (*count)++;
}

static void test_random_etuis_match_the_definitions(void **state)
{
    test_rng rng = test_rng_seeded("tarot random etuis", 20240804);
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    int32_t s[200], work[200];
    datum_tarot_line l[200];
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 1, 200);
        int won_bias = (int)test_rng_range(&rng, 0, 10); /* from mostly fell to mostly won */
        for (size_t i = 0; i < n; i++) {
            int64_t mag = test_rng_range(&rng, 0, trial % 7 == 0 ? 1000000 : 600);
            s[i] = (int32_t)(test_rng_range(&rng, 0, 9) < won_bias ? mag : -mag);
        }
        datum_tarot_etui e;
        assert_int_equal(datum_tarot_score_etui(&opt, s, n, work, &e, l), DATUM_OK);
        int64_t sum, count;
        direct_reference(s, n, &sum, &count);
        /* Reference hundredths: nearest, halves away from zero. */
        int64_t twice = 200 * sum, ref = (llabs(twice) + count) / (2 * count);
        ref = twice < 0 ? -ref : ref;
        assert_true(e.reference == (double)ref / 100.0);
        for (size_t i = 0; i < n; i++) {
            int64_t d = 100 * (int64_t)s[i] - ref, k = llround(fabs(l[i].pm_attack) * 100.0);
            /* k is the nearest integer to sqrt(100 |d|): (2k-1)^2 <= 400|d| < (2k+1)^2. */
            assert_true(l[i].diff == (double)d / 100.0);
            assert_true(k == 0 || (2 * k - 1) * (2 * k - 1) <= 400 * llabs(d));
            assert_true(400 * llabs(d) < (2 * k + 1) * (2 * k + 1));
            assert_true(d == 0 || (l[i].pm_attack < 0) == (d < 0) || k == 0);
            assert_true(l[i].pm_defense == -l[i].pm_attack);
            int64_t below = 0, equal = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i) below += s[j] < s[i], equal += s[j] == s[i];
            double pct = n == 1 ? 50 : 100.0 * ((double)below + 0.5 * (double)equal) / (double)(n - 1);
            assert_true(fabs(l[i].pct_attack - pct) < 1e-12);
            assert_true(fabs(l[i].pct_attack + l[i].pct_defense - 100) < 1e-12);
            double reg = pct >= 50 ? round(pct * 2) / 100 : 0; /* pct/50 to 0.01 */
            assert_true(fabs(l[i].reg_attack - reg) < 1e-9);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Codes and starting bonus */

static void test_class_codes(void **state)
{
    static const char *codes[] = {"1N", "1P", "1C", "1K", "1T", "2P", "2C", "2K", "2T",
                                  "3P", "3C", "3K", "3T", "4P", "4C", "4K", "4T", "NC"};
    static const double index[] = {0, 0.5, 1, 2, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5,
                                   9, 9};
    for (int c = 0; c < DATUM_TAROT_CLASS_COUNT; c++) {
        assert_int_equal(datum_tarot_class_parse(codes[c], 2), c);
        assert_string_equal(datum_tarot_class_code(c), codes[c]);
        assert_true(datum_tarot_class_index(c) == index[c]);
    }
    assert_int_equal(datum_tarot_class_parse("nc", 2), DATUM_TAROT_NC);
    assert_int_equal(datum_tarot_class_parse("2k", 2), DATUM_TAROT_2K);
    const char *bad[] = {"", "1", "1X", "5C", "1CC", " 1C", "N", "0N", "NC "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(datum_tarot_class_parse(bad[i], strlen(bad[i])), -1);
    assert_int_equal(datum_tarot_class_parse("1Cx", 2), DATUM_TAROT_1C); /* length-bounded */
    assert_string_equal(datum_tarot_class_code(-1), "?");
    assert_true(isnan(datum_tarot_class_index(DATUM_TAROT_CLASS_COUNT)));

    assert_int_equal(datum_tarot_contract_parse("G", 1), DATUM_TAROT_GARDE);
    assert_int_equal(datum_tarot_contract_parse("gs", 2), DATUM_TAROT_GARDE_SANS);
    assert_int_equal(datum_tarot_contract_parse("GC", 2), DATUM_TAROT_GARDE_CONTRE);
    assert_int_equal(datum_tarot_contract_parse("P", 1), -1);
    assert_int_equal(datum_tarot_contract_parse("", 0), -1);
    assert_string_equal(datum_tarot_contract_code(DATUM_TAROT_GARDE_CONTRE), "GC");
    assert_string_equal(datum_tarot_contract_code(3), "?");
}

static int64_t bonus(const uint8_t *classes, size_t n, int32_t etuis)
{
    int64_t milli = -1;
    assert_int_equal(datum_tarot_bonus_milli(classes, n, etuis, &milli), DATUM_OK);
    return milli;
}

static void test_seed_bonus_examples(void **state)
{
    uint8_t c1 = DATUM_TAROT_1C, t3 = DATUM_TAROT_3T;
    uint8_t defense[3] = {DATUM_TAROT_1K, DATUM_TAROT_1T, DATUM_TAROT_2T};
    assert_int_equal(bonus(&c1, 1, 22), 4200);          /* 4,2 PM */
    assert_int_equal(bonus(&t3, 1, 22), 29400);         /* 29,4 PM */
    assert_int_equal(bonus(defense, 3, 26), 15318);     /* [(2+3+5)/3] x 4,6 = 15,318 */
    /* The coefficient table: 18 -> 3.8, 20 -> 4, 30 -> 5, 34 -> 5.4. */
    assert_int_equal(bonus(&c1, 1, 18), 3800);
    assert_int_equal(bonus(&c1, 1, 20), 4000);
    assert_int_equal(bonus(&c1, 1, 30), 5000);
    assert_int_equal(bonus(&c1, 1, 34), 5400);
    /* Mean rounded to 0.01 with halves up: 1P, 1N, 1N -> 0.1666 -> 0.17. */
    uint8_t low[3] = {DATUM_TAROT_1P, DATUM_TAROT_1N, DATUM_TAROT_1N};
    assert_int_equal(bonus(low, 3, 20), 680);
    uint8_t bad = DATUM_TAROT_CLASS_COUNT;
    int64_t milli = 5;
    assert_int_equal(datum_tarot_bonus_milli(&bad, 1, 20, &milli), DATUM_E_ARG);
    assert_int_equal(milli, 0);
    assert_int_equal(datum_tarot_bonus_milli(&c1, 0, 20, &milli), DATUM_E_ARG);
    assert_int_equal(datum_tarot_bonus_milli(&c1, 1, -1, &milli), DATUM_E_ARG);
}

/* ------------------------------------------------------------------------ */
/* Rankings and the tournament */

static void test_rank_ties_share_the_better_rank(void **state)
{
    double total[] = {10, 7, 7, 3};
    int32_t work[6], rank[6];
    datum_tarot_rank(total, NULL, 4, work, rank);
    assert_int_equal(rank[0], 1);
    assert_int_equal(rank[1], 2);
    assert_int_equal(rank[2], 2);
    assert_int_equal(rank[3], 4);

    double t2[] = {-1, 5, 5, 5, 8, 0};
    uint8_t include[] = {1, 1, 1, 1, 1, 0};
    datum_tarot_rank(t2, include, 6, work, rank);
    int32_t expect[] = {5, 2, 2, 2, 1, 0};
    assert_memory_equal(rank, expect, sizeof expect);
    datum_tarot_rank(t2, NULL, 0, work, rank); /* nothing to rank */
}

/* A small tournament: étui 0 is the seed's (11 attackers, 11 defenses);
 * étui 1 has attackers 0..3 against defenses 3..0. */
typedef struct {
    uint64_t offset[3];
    int32_t score[15], attacker[15], defense[15];
    uint8_t attacker_class[11], defense_class[33];
    double attacker_penalty[11], defense_penalty[11];
    datum_tarot_tournament t;
} tournament;

static void tournament_init(tournament *x)
{
    memset(x, 0, sizeof *x);
    x->offset[1] = SEED_N;
    x->offset[2] = SEED_N + 4;
    for (int i = 0; i < SEED_N; i++) {
        x->score[i] = kSeedScores[i];
        x->attacker[i] = x->defense[i] = i;
    }
    static const int32_t second[4] = {100, 100, -40, 20};
    for (int i = 0; i < 4; i++) {
        x->score[SEED_N + i] = second[i];
        x->attacker[SEED_N + i] = i;
        x->defense[SEED_N + i] = 3 - i;
    }
    x->t = (datum_tarot_tournament){2, x->offset, x->score, x->attacker, x->defense, 11, 11,
                                    x->attacker_class, x->defense_class, x->attacker_penalty,
                                    x->defense_penalty};
}

static int run(const datum_tarot_options *opt, const datum_tarot_tournament *t,
               datum_tarot_etui *etuis, datum_tarot_line *lines, datum_tarot_standing *att,
               datum_tarot_standing *def, char *message)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    int rc = datum_tarot_score_tournament(ctx, opt, t, etuis, lines, att, def);
    assert_int_equal(datum_ctx_code(ctx), rc < 0 ? rc : DATUM_OK);
    if (message) snprintf(message, 256, "%s", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
    return rc;
}

static void test_tournament_totals_and_ranks(void **state)
{
    tournament x;
    tournament_init(&x);
    x.attacker_penalty[1] = 1.5;   /* a penalty */
    x.defense_penalty[10] = -0.5;  /* a compensation */
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    datum_tarot_etui etuis[2];
    datum_tarot_line lines[15];
    datum_tarot_standing att[11], def[11];
    assert_int_equal(run(&opt, &x.t, etuis, lines, att, def, NULL), DATUM_OK);
    assert_true(etuis[0].reference == 62.22);
    assert_true(etuis[1].reference == 60); /* 1 fell vs 3 won: drop -40 and one 100 */

    /* Attacker 0: -0.47 PM, then +40 over the reference: sqrt(40) = 6.32;
     * regularity 1, then (2 beaten + 1 tie/2) / 3 = 83.33% -> 1.67; 1N: no bonus. */
    assert_int_equal(att[0].etuis, 2);
    assert_true(att[0].pm == 5.85);
    assert_true(att[0].regularity == 2.67);
    assert_true(att[0].bonus == 0);
    assert_true(att[0].total == 8.52);
    assert_true(att[1].penalties == 1.5);
    /* Defense 10 (the seed's position 11): 12.66 PM + 2, compensated 0.5. */
    assert_int_equal(def[10].etuis, 1);
    assert_true(def[10].pm == 12.66 && def[10].regularity == 2);
    assert_true(def[10].penalties == -0.5 && def[10].total == 15.16);

    /* Every total is its parts, every side's PM the sum of its lines. */
    for (int s = 0; s < 11; s++) {
        double pm_a = 0, pm_d = 0;
        int better = 0;
        for (int r = 0; r < 15; r++) {
            if (x.attacker[r] == s) pm_a += lines[r].pm_attack;
            if (x.defense[r] == s) pm_d += lines[r].pm_defense;
        }
        assert_true(fabs(att[s].pm - pm_a) < 1e-9 && fabs(def[s].pm - pm_d) < 1e-9);
        assert_true(fabs(att[s].total - (att[s].pm + att[s].regularity + att[s].bonus -
                                         att[s].penalties)) < 1e-9);
        for (int p = 0; p < 11; p++) better += def[p].total > def[s].total;
        assert_int_equal(def[s].rank, better + 1); /* 1 + the number strictly better */
    }
    /* Attackers 2 and 3 (the seed's two +66): 1.94 + 1.5 each on étui 0 ... */
    x.attacker[SEED_N + 2] = 4; /* ... once étui 1 no longer tells them apart */
    x.attacker[SEED_N + 3] = 5;
    assert_int_equal(run(&opt, &x.t, etuis, lines, att, def, NULL), DATUM_OK);
    assert_true(att[2].total == att[3].total);
    assert_int_equal(att[2].rank, att[3].rank);
    assert_true(att[2].total == 3.44);
}

static void test_tournament_bonus_and_absent_sides(void **state)
{
    tournament x;
    tournament_init(&x);
    x.t.n_attackers = x.t.n_defenses = 11;
    x.attacker_class[0] = DATUM_TAROT_1C;
    x.defense_class[0] = DATUM_TAROT_1K, x.defense_class[1] = DATUM_TAROT_1T,
    x.defense_class[2] = DATUM_TAROT_2T;
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    datum_tarot_standing att[12], def[12];
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, NULL), DATUM_OK);
    assert_true(att[0].bonus == 2.2);   /* 1 x (2/10 + 2): its own 2 étuis */
    assert_true(def[0].bonus == 7.326); /* 3.33 x 2.2 */
    opt.bonus_etuis = 26;               /* the tournament's count for all */
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, NULL), DATUM_OK);
    assert_true(att[0].bonus == 4.6 && def[0].bonus == 15.318);

    /* A twelfth attacker who never played: unranked, total = -penalty. */
    uint8_t classes[12] = {0};
    double penalty[12] = {0};
    classes[11] = DATUM_TAROT_NC;
    penalty[11] = 2;
    x.t.attacker_class = classes;
    x.t.attacker_penalty = penalty;
    x.t.n_attackers = 12;
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, NULL), DATUM_OK);
    assert_int_equal(att[11].etuis, 0);
    assert_int_equal(att[11].rank, 0);
    assert_true(att[11].bonus == 0 && att[11].total == -2);
}

static void test_tournament_exact_option(void **state)
{
    tournament x;
    tournament_init(&x);
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    opt.exact = 1;
    datum_tarot_line lines[15];
    datum_tarot_standing att[11], def[11];
    assert_int_equal(run(&opt, &x.t, NULL, lines, att, def, NULL), DATUM_OK);
    assert_true(lines[0].pm_attack == -sqrt(2.0 / 9.0));
    assert_true(att[0].pm == lines[0].pm_attack + lines[SEED_N].pm_attack);
}

static void test_tournament_bad_input(void **state)
{
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    datum_tarot_standing att[11], def[11];
    char msg[256];
    tournament x;

    tournament_init(&x);
    x.attacker[3] = 11;
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_INPUT);
    assert_non_null(strstr(msg, "attacker 11 out of range"));

    tournament_init(&x);
    x.defense[SEED_N + 1] = x.defense[SEED_N]; /* defense 3 twice on étui 1 */
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_INPUT);
    assert_non_null(strstr(msg, "étui 1: defense 3 plays it twice"));

    tournament_init(&x);
    x.offset[1] = 20; /* beyond offset[2] */
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_INPUT);

    tournament_init(&x);
    x.defense_class[7] = DATUM_TAROT_CLASS_COUNT;
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_INPUT);
    assert_non_null(strstr(msg, "defense 2: unknown classification"));

    tournament_init(&x);
    x.score[4] = 1 << 20;
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_INPUT);

    tournament_init(&x);
    x.attacker_penalty[0] = NAN;
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_INPUT);

    tournament_init(&x);
    opt.exact = 7;
    assert_int_equal(run(&opt, &x.t, NULL, NULL, att, def, msg), DATUM_E_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_table1_plain_mean),
        cmocka_unit_test(test_seed_table2_step1),
        cmocka_unit_test(test_seed_table3_steps12),
        cmocka_unit_test(test_seed_percentages_and_regularity),
        cmocka_unit_test(test_fell_etui_mirrors_the_seed),
        cmocka_unit_test(test_single_score),
        cmocka_unit_test(test_empty_etui),
        cmocka_unit_test(test_all_won_is_not_clipped),
        cmocka_unit_test(test_zero_counts_for_neither_sign),
        cmocka_unit_test(test_clip_count_is_half_rounded_up),
        cmocka_unit_test(test_reference_halves_away_from_zero),
        cmocka_unit_test(test_exact_option),
        cmocka_unit_test(test_options_and_bad_scores),
        cmocka_unit_test(test_random_etuis_match_the_definitions),
        cmocka_unit_test(test_class_codes),
        cmocka_unit_test(test_seed_bonus_examples),
        cmocka_unit_test(test_rank_ties_share_the_better_rank),
        cmocka_unit_test(test_tournament_totals_and_ranks),
        cmocka_unit_test(test_tournament_bonus_and_absent_sides),
        cmocka_unit_test(test_tournament_exact_option),
        cmocka_unit_test(test_tournament_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
