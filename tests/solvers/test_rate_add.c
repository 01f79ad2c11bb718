/* test_rate_add.c - a problem built from chunks large enough to be added on
 * several threads (solvers/problem.c: r and n summed by two threads, the
 * layouts decided beside them) against the same chunks added field by field
 * on one thread, bit for bit, and against what the test counts itself: each
 * pair's boards (n, with the window's weights), the kept fields and rows,
 * and the layouts (runs of consecutive kept fields with the same tables).
 * Chunks are cut inside rounds, so a chunk's first field may merge with the
 * previous chunk's last layout; a short half-life decays the oldest fields
 * to a weight of 0 (skipped, counted outside the window). */
#include "rate_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N_PAIRS = 64, EVENTS = 16000, CHUNK_ROWS = 70000 };

/* Adds a in chunks of about CHUNK_ROWS rows (whole fields; the last one
 * shorter, so added field by field even on several threads). */
static datum_rate_problem *add_chunks(const tarch *a, const datum_rate_window *w, int threads,
                                      size_t *n_chunks)
{
    datum_ctx *ctx;
    datum_rate_problem *p;
    datum_method m;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    assert_int_equal(datum_rate_problem_create(ctx, a->n_pairs, w, &p), DATUM_OK);
    uint64_t *offset = malloc((a->n_fields + 1) * sizeof *offset);
    assert_non_null(offset);
    *n_chunks = 0;
    for (size_t f0 = 0, f1; f0 < a->n_fields; f0 = f1) {
        uint64_t row0 = a->offset[f0];
        for (f1 = f0 + 1; f1 < a->n_fields && a->offset[f1] - row0 < CHUNK_ROWS; f1++) {}
        for (size_t f = f0; f <= f1; f++) offset[f - f0] = a->offset[f] - row0;
        datum_rate_chunk c = {f1 - f0, offset, a->field_date + f0, a->date + row0,
                              a->ns + row0, a->ew + row0, a->score + row0, a->adjusted + row0};
        assert_int_equal(datum_rate_problem_add(ctx, p, &m, &c), DATUM_OK);
        ++*n_chunks;
    }
    free(offset);
    datum_ctx_free(&ctx);
    return p;
}

/* Whether fields e and f of a keep the same rows at the same tables. */
static int same_tables(const tarch *a, const uint8_t *kept, size_t e, size_t f)
{
    uint64_t i = a->offset[e], j = a->offset[f];
    for (;;) {
        while (i < a->offset[e + 1] && !kept[i]) i++;
        while (j < a->offset[f + 1] && !kept[j]) j++;
        if (i == a->offset[e + 1] || j == a->offset[f + 1])
            return i == a->offset[e + 1] && j == a->offset[f + 1];
        if (a->ns[i] != a->ns[j] || a->ew[i] != a->ew[j]) return 0;
        i++, j++;
    }
}

static void check_window(const tarch *a, const datum_rate_window *w, const char *what)
{
    size_t chunks1, chunks2;
    datum_rate_problem *one = add_chunks(a, w, 1, &chunks1);
    datum_rate_problem *two = add_chunks(a, w, 2, &chunks2);
    assert_true(chunks1 >= 3);

    /* The test's own count: rows kept (real, in the window), fields of at
     * least 2 kept rows whose weight is above 0, n in row order. */
    uint8_t *kept = calloc(a->n_rows, 1);
    double *n = calloc(N_PAIRS, sizeof *n);
    assert_true(kept && n);
    uint64_t fields = 0, rows = 0, layouts = 0, outside = 0;
    size_t last = SIZE_MAX; /* the last field added */
    for (size_t f = 0; f < a->n_fields; f++) {
        uint64_t count = 0;
        int32_t latest = INT32_MIN; /* of the kept rows: the field's age */
        for (uint64_t i = a->offset[f]; i < a->offset[f + 1]; i++) {
            int inside = a->date[i] >= w->from && a->date[i] <= w->as_of;
            outside += !inside;
            kept[i] = (uint8_t)(inside && a->adjusted[i] == 0);
            count += kept[i];
            if (kept[i] && a->date[i] > latest) latest = a->date[i];
        }
        if (count < 2) continue;
        double weight = w->half_life > 0 ? exp2(-((double)w->as_of - latest) / w->half_life) : 1;
        if (!(weight > 0)) {
            outside += count;
            continue;
        }
        for (uint64_t i = a->offset[f]; i < a->offset[f + 1]; i++)
            if (kept[i]) {
                n[a->ns[i]] += weight;
                n[a->ew[i]] += weight;
            }
        layouts += last == SIZE_MAX || !same_tables(a, kept, last, f);
        last = f;
        fields++;
        rows += count;
    }

    datum_rate_summary s1, s2;
    datum_rate_problem_summary(one, &s1);
    datum_rate_problem_summary(two, &s2);
    assert_int_equal(s1.fields, s2.fields);
    assert_int_equal(s1.fields_one, s2.fields_one);
    assert_int_equal(s1.rows, s2.rows);
    assert_int_equal(s1.rows_outside, s2.rows_outside);
    assert_int_equal(s1.layouts, s2.layouts);
    assert_int_equal(s1.pairs, s2.pairs);
    assert_int_equal(s1.first_date, s2.first_date);
    assert_int_equal(s1.last_date, s2.last_date);
    assert_int_equal(s2.fields, fields);
    assert_int_equal(s2.rows, rows);
    assert_int_equal(s2.rows_outside, outside);
    assert_int_equal(s2.layouts, layouts);
    assert_memory_equal(datum_rate_problem_boards(one), datum_rate_problem_boards(two), N_PAIRS * sizeof(double));
    assert_memory_equal(datum_rate_problem_butler(one), datum_rate_problem_butler(two), N_PAIRS * sizeof(double));
    for (int j = 0; j < N_PAIRS; j++)
        if (!(fabs(datum_rate_problem_boards(two)[j] - n[j]) <= 1e-12 * (1 + n[j])))
            fail_msg("%s: pair %d has %.17g boards, counted %.17g", what, j,
                     datum_rate_problem_boards(two)[j], n[j]);

    /* The same A: the same ratings, bit for bit, and the reference's. */
    datum_ctx *ctx;
    datum_rate_result *r1 = NULL, *r2 = NULL;
    datum_rate_options o = DATUM_RATE_OPTIONS_INIT;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_true(datum_rate_solve(ctx, one, &o, &r1) >= 0);
    assert_true(datum_rate_solve(ctx, two, &o, &r2) >= 0);
    assert_memory_equal(r1->rating, r2->rating, N_PAIRS * sizeof(double));
    double ref[N_PAIRS];
    reference_info info;
    reference_solve(a, w, 0, ref, NULL, &info);
    if (!(max_diff(N_PAIRS, r2->rating, ref) <= 1e-8))
        fail_msg("%s: ratings %.3g from the reference", what, max_diff(N_PAIRS, r2->rating, ref));
    datum_rate_result_free(&r1);
    datum_rate_result_free(&r2);
    datum_ctx_free(&ctx);
    datum_rate_problem_free(&one);
    datum_rate_problem_free(&two);
    free(kept);
    free(n);
}

static void test_chunks_on_two_threads(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_rate_add", 12);
    tarch a;
    tarch_init(&a, N_PAIRS);
    tarch_random(&a, &rng, N_PAIRS, EVENTS, NULL);
    assert_true(a.n_rows > 3 * CHUNK_ROWS);
    int32_t last = a.field_date[a.n_fields - 1];
    datum_rate_window all = DATUM_RATE_WINDOW_INIT;
    check_window(&a, &all, "every row");
    /* A window that drops rows at both ends and a half-life that decays
     * the oldest kept fields to 0 (2^-1075 underflows). */
    datum_rate_window decayed = {19000 + 3000, last - 300, 30.0};
    assert_true(!(exp2(-((double)decayed.as_of - decayed.from) / decayed.half_life) > 0));
    check_window(&a, &decayed, "decayed");
    tarch_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_on_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
