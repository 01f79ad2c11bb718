/* test_batch.c - the batch driver: 1 vs 2 threads bit-identical, and the
 * properties of methods.md on random chunks of fields. */
#include "test_util.h"
#include "datum.h"

#include <math.h>
#include <string.h>

typedef test_chunk chunk;

static chunk random_chunk(test_rng *rng, size_t n_fields)
{
    const test_chunk_shape shape = {97, 100, 300, 40, 31, DATUM_ADJ_COUNT - 1};
    return test_chunk_random(rng, n_fields, shape);
}

static void chunk_free(chunk *c) { test_chunk_free(c); }

static void score(const datum_method *m, const chunk *c, int threads, double *datum, double *ns,
                  double *ew)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    datum_fields in = {c->n_fields, c->offset, c->score, c->adjusted};
    assert_int_equal(datum_score_fields(ctx, m, &in, datum, ns, ew), DATUM_OK);
    datum_ctx_free(&ctx);
    assert_null(ctx);
}

static void test_threads_bit_identical_and_properties(void **state)
{
    test_rng rng = test_rng_seeded("batch", 4242);
    chunk c = random_chunk(&rng, 3000);
    double *d1 = malloc(c.n_fields * 8), *d2 = malloc(c.n_fields * 8);
    double *ns1 = malloc(c.n_rows * 8), *ns2 = malloc(c.n_rows * 8);
    double *ew1 = malloc(c.n_rows * 8), *ew2 = malloc(c.n_rows * 8);
    const char *presets[] = {"mean", "nbb", "bastille", "par", "acbl", "bridgewx"};
    for (int p = 0; p < 6; p++) {
        for (int kind = 0; kind < 2; kind++) {
            datum_method m;
            assert_int_equal(datum_method_init(&m, presets[p]), DATUM_OK);
            m.scale.kind = kind ? DATUM_SCALE_LINEAR : DATUM_SCALE_WBF;
            m.scale.halved = p % 2;
            score(&m, &c, 1, d1, ns1, ew1);
            score(&m, &c, 2, d2, ns2, ew2);
            assert_memory_equal(d1, d2, c.n_fields * 8);
            assert_memory_equal(ns1, ns2, c.n_rows * 8);
            assert_memory_equal(ew1, ew2, c.n_rows * 8);
            for (size_t f = 0; f < c.n_fields; f++) {
                double field_sum = 0;
                size_t real = 0;
                for (uint64_t r = c.offset[f]; r < c.offset[f + 1]; r++) {
                    if (c.adjusted[r]) continue;
                    real++;
                    assert_true(ns1[r] + ew1[r] == 0); /* NS + EW = 0 at every table */
                    field_sum += ns1[r] + ew1[r];
                }
                assert_true(field_sum == 0);
                assert_true(real == 0 ? isnan(d1[f]) : !isnan(d1[f]));
            }
        }
    }
    free(d1); free(d2); free(ns1); free(ns2); free(ew1); free(ew2);
    chunk_free(&c);
}

/* The per-row outputs of datum_cross_fields. */
typedef struct {
    double *raw, *avg;
    int32_t *terms;
} cross_out;

static cross_out cross_out_alloc(size_t n_rows)
{
    return (cross_out){malloc(n_rows * 8), malloc(n_rows * 8), malloc(n_rows * 4)};
}

static void cross_out_free(cross_out *o)
{
    free(o->raw); free(o->avg); free(o->terms);
}

static void cross(const datum_method *m, const datum_fields *in, int threads, cross_out *o)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    assert_int_equal(datum_cross_fields(ctx, m, in, o->raw, o->avg, o->terms), DATUM_OK);
    datum_ctx_free(&ctx);
}

static void test_cross_batch(void **state)
{
    test_rng rng = test_rng_seeded("cross-batch", 77);
    chunk c = random_chunk(&rng, 1500);
    cross_out o1 = cross_out_alloc(c.n_rows), o2 = cross_out_alloc(c.n_rows);
    datum_method m;
    datum_method_init(&m, "mean");
    datum_fields in = {c.n_fields, c.offset, c.score, c.adjusted};
    cross(&m, &in, 1, &o1);
    cross(&m, &in, 2, &o2);
    assert_memory_equal(o1.raw, o2.raw, c.n_rows * 8);
    assert_memory_equal(o1.avg, o2.avg, c.n_rows * 8);
    assert_memory_equal(o1.terms, o2.terms, c.n_rows * 4);
    for (size_t f = 0; f < c.n_fields; f++) {
        int real = 0;
        double sum = 0;
        for (uint64_t r = c.offset[f]; r < c.offset[f + 1]; r++) real += !c.adjusted[r];
        for (uint64_t r = c.offset[f]; r < c.offset[f + 1]; r++) {
            if (c.adjusted[r] || real < 2) {
                assert_true(isnan(o1.raw[r]) && o1.terms[r] == 0);
                continue;
            }
            assert_int_equal(o1.terms[r], real - 1);
            assert_true(o1.avg[r] == o1.raw[r] / (real - 1));
            sum += o1.raw[r];
        }
        assert_true(sum == 0);
    }
    cross_out_free(&o1);
    cross_out_free(&o2);
    chunk_free(&c);
}

/* datum_fields_many (several Butler and cross-IMP methods on each field at
 * once) gives every method's figures of datum_score_fields and
 * datum_cross_fields bit for bit, on 1 and 2 threads, adjusted rows
 * included. */
static void test_many_equals_one_by_one(void **state)
{
    test_rng rng = test_rng_seeded("many", 515);
    chunk c = random_chunk(&rng, 2000);
    datum_fields in = {c.n_fields, c.offset, c.score, c.adjusted};
    const char *presets[] = {"nbb", "bastille", "par", "mean", "acbl", "bridgewx", "mean"};
    enum { M = 7 };
    datum_method m[M];
    datum_field_kernel k[M];
    double *want_d = malloc(c.n_fields * 8), *want_a = malloc(c.n_rows * 8), *want_b = malloc(c.n_rows * 8);
    int32_t *want_t = malloc(c.n_rows * 4);
    for (int i = 0; i < M; i++) {
        assert_int_equal(datum_method_init(&m[i], presets[i]), DATUM_OK);
        m[i].scale.kind = i == 1 ? DATUM_SCALE_LINEAR : DATUM_SCALE_WBF;
        m[i].rule.rounding = i == 3 ? DATUM_ROUND_HALF_AWAY : m[i].rule.rounding;
        m[i].rule.trim = i == 3 ? DATUM_TRIM_FIXED : m[i].rule.trim;
        m[i].rule.trim_count = i == 3 ? 1 : 0;
        k[i] = (datum_field_kernel){&m[i], i == 6, malloc(c.n_fields * 8), malloc(c.n_rows * 8),
                                    malloc(c.n_rows * 8), malloc(c.n_rows * 4)};
    }
    for (int threads = 1; threads <= 2; threads++) {
        datum_ctx *ctx;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
        assert_int_equal(datum_fields_many(ctx, &in, M, k), DATUM_OK);
        for (int i = 0; i < M; i++) {
            if (k[i].cross) {
                assert_int_equal(datum_cross_fields(ctx, &m[i], &in, want_a, want_b, want_t), DATUM_OK);
                assert_memory_equal(k[i].terms, want_t, c.n_rows * 4);
            } else {
                assert_int_equal(datum_score_fields(ctx, &m[i], &in, want_d, want_a, want_b), DATUM_OK);
                assert_memory_equal(k[i].datum, want_d, c.n_fields * 8);
            }
            assert_memory_equal(k[i].a, want_a, c.n_rows * 8);
            assert_memory_equal(k[i].b, want_b, c.n_rows * 8);
        }
        datum_ctx_free(&ctx);
    }
    for (int i = 0; i < M; i++) free(k[i].datum), free(k[i].a), free(k[i].b), free(k[i].terms);
    free(want_d); free(want_a); free(want_b); free(want_t);
    chunk_free(&c);
}

/* --divisor tables: an adjusted row counts 0 among the t-1 other tables,
 * scaled by t/real; with every table played, n-1 bit for bit. */
static void test_cross_tables_divisor(void **state)
{
    test_rng rng = test_rng_seeded("cross-tables", 31);
    chunk c = random_chunk(&rng, 1500);
    cross_out o1 = cross_out_alloc(c.n_rows), o2 = cross_out_alloc(c.n_rows);
    datum_method n1, tables;
    datum_method_init(&n1, "mean");
    tables = n1;
    tables.cross_divisor = DATUM_DIVISOR_TABLES_SCALED;
    for (int kind = 0; kind < 2; kind++) {
        n1.scale.kind = tables.scale.kind = kind ? DATUM_SCALE_LINEAR : DATUM_SCALE_WBF;
        datum_fields played = {c.n_fields, c.offset, c.score, NULL};
        cross(&n1, &played, 1, &o1);
        cross(&tables, &played, 1, &o2);
        assert_memory_equal(o1.avg, o2.avg, c.n_rows * 8);
        datum_fields in = {c.n_fields, c.offset, c.score, c.adjusted};
        cross(&n1, &in, 1, &o1);
        cross(&tables, &in, 2, &o2);
        assert_memory_equal(o1.raw, o2.raw, c.n_rows * 8);
        assert_memory_equal(o1.terms, o2.terms, c.n_rows * 4);
        size_t short_fields = 0;
        for (size_t f = 0; f < c.n_fields; f++) {
            double t = (double)(c.offset[f + 1] - c.offset[f]), real = 0;
            for (uint64_t r = c.offset[f]; r < c.offset[f + 1]; r++) real += !c.adjusted[r];
            short_fields += real >= 2 && real < t;
            for (uint64_t r = c.offset[f]; r < c.offset[f + 1]; r++) {
                if (o1.terms[r] == 0) continue;
                if (real == t) assert_true(o2.avg[r] == o1.avg[r]);
                else assert_true(fabs(o2.avg[r] - o1.raw[r] / (t - 1) * (t / real)) <=
                                 1e-12 * fabs(o1.raw[r]));
            }
        }
        assert_true(short_fields > 50);
    }
    cross_out_free(&o1);
    cross_out_free(&o2);
    chunk_free(&c);
}

static void test_context_errors(void **state)
{
    datum_ctx *ctx;
    datum_ctx_create(&ctx);
    assert_int_equal(datum_ctx_set_threads(ctx, 0), DATUM_E_ARG);
    assert_int_equal(datum_ctx_code(ctx), DATUM_E_ARG);
    assert_non_null(strstr(datum_ctx_message(ctx), "thread"));
    datum_ctx_fail(ctx, DATUM_E_IO, "second");
    assert_int_equal(datum_ctx_code(ctx), DATUM_E_ARG); /* the first error is kept */
    datum_ctx_clear(ctx);
    assert_int_equal(datum_ctx_code(ctx), DATUM_OK);
    datum_method m;
    datum_method_init(&m, "mean");
    m.rule.round_unit = 0;
    uint64_t off[2] = {0, 1};
    int32_t s = 0;
    double d, ns, ew;
    datum_fields in = {1, off, &s, NULL};
    assert_int_equal(datum_score_fields(ctx, &m, &in, &d, &ns, &ew), DATUM_E_ARG);
    datum_method_init(&m, "mean");
    m.cross_divisor = (datum_divisor)(DATUM_DIVISOR_TABLES_SCALED + 1);
    int32_t terms;
    assert_int_equal(datum_cross_fields(ctx, &m, &in, &ns, &ew, &terms), DATUM_E_ARG);
    datum_ctx_free(&ctx);
    datum_ctx_free(&ctx); /* freeing twice is harmless */
    datum_ctx_free(NULL);
}

static void test_pairs_accumulate(void **state)
{
    const int32_t ns_pair[] = {0, 1, 2}, ew_pair[] = {3, 0, 1};
    const double ns[] = {2, -1.5, NAN}, ew[] = {-2, 1.5, NAN};
    double imps[4] = {0};
    int64_t boards[4] = {0};
    datum_pairs_accumulate(3, ns_pair, ew_pair, ns, ew, imps, boards);
    assert_true(imps[0] == 3.5 && imps[1] == -1.5 && imps[2] == 0 && imps[3] == -2);
    assert_true(boards[0] == 2 && boards[1] == 1 && boards[2] == 0 && boards[3] == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_bit_identical_and_properties),
        cmocka_unit_test(test_cross_batch),
        cmocka_unit_test(test_many_equals_one_by_one),
        cmocka_unit_test(test_cross_tables_divisor),
        cmocka_unit_test(test_context_errors),
        cmocka_unit_test(test_pairs_accumulate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
