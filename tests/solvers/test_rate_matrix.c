/* test_rate_matrix.c - the matrix A as solvers/ stores it (one triangle, the
 * diagonal first) against the dense reference written from seed 000's
 * equation (rate_test_util.c): its entries, its product (rate_matvec, with
 * and without a mask, the same bits for 1 and 3 threads), its 1-norm, its
 * update scale * A + D (the history's), and datum-mpi's entries (both
 * triangles). */
#include "rate_test_util.h"

#include "rate_internal.h"

#include <math.h>
#include <string.h>

/* Enough pairs for several blocks of columns and every product slice. */
#define NP 700

static datum_ctx *ctx_with(int threads)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    return ctx;
}

static datum_rate_problem *problem_of(datum_ctx *ctx, const tarch *a)
{
    datum_rate_problem *p;
    datum_method m;
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    assert_int_equal(datum_rate_problem_create(ctx, a->n_pairs, NULL, &p), DATUM_OK);
    datum_rate_chunk c = tarch_chunk(a);
    assert_int_equal(datum_rate_problem_add(ctx, p, &m, &c), DATUM_OK);
    return p;
}

/* A's dense form from its stored triangle; checks the storage's promises
 * (rows at most the column, the diagonal first, no row twice). */
static void dense_of(const rate_matrix *a, double *out)
{
    memset(out, 0, (size_t)a->n * a->n * sizeof *out);
    uint64_t stored = 0, diagonal = 0;
    for (uint32_t j = 0; j < a->n; j++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        if (len > 0) {
            assert_int_equal(row[0], (int32_t)j);
            diagonal++;
        }
        for (uint64_t e = 0; e < len; e++) {
            assert_true(row[e] >= 0 && (uint32_t)row[e] <= j);
            assert_true(e == 0 || (uint32_t)row[e] != j);
            double *at = &out[(size_t)row[e] * a->n + j];
            assert_true(*at == 0); /* once */
            *at = val[e];
            out[(size_t)j * a->n + row[e]] = val[e];
        }
        stored += len;
    }
    assert_int_equal(a->nnz, 2 * stored - diagonal);
}

/* max |x - y| over n x n, relative to max |y|. */
static double rel_diff(size_t n, const double *x, const double *y)
{
    double d = 0, top = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        top = fmax(top, fabs(y[i]));
    }
    return top > 0 ? d / top : d;
}

static void test_entries_and_product(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("rate_matrix", 91);
    tarch t;
    tarch_init(&t, NP);
    tarch_random(&t, &rng, NP, 60, NULL);
    double *ref = malloc((size_t)NP * NP * sizeof *ref), *r = malloc(NP * sizeof *r);
    double *n = malloc(NP * sizeof *n), *dense = malloc((size_t)NP * NP * sizeof *dense);
    reference_system(&t, NULL, ref, r, n);

    double x[NP], xm[NP], want[NP], y[3][NP];
    uint8_t mask[NP];
    for (int j = 0; j < NP; j++) {
        x[j] = (double)test_rng_range(&rng, -1000, 1000) / 100.0;
        mask[j] = test_rng_range(&rng, 0, 3) != 0;
        xm[j] = mask[j] ? x[j] : 0;
    }
    const int threads[] = {1, 3};
    for (int k = 0; k < 2; k++) {
        datum_ctx *ctx = ctx_with(threads[k]);
        datum_rate_problem *p = problem_of(ctx, &t);
        rate_matrix a;
        assert_int_equal(rate_matrix_assemble(ctx, p, &a), DATUM_OK);
        assert_int_equal(a.n, NP);
        dense_of(&a, dense);
        assert_true(rel_diff((size_t)NP * NP, dense, ref) <= 1e-13);

        /* y = A x against the reference's product, then with a mask. */
        for (int i = 0; i < NP; i++) {
            want[i] = 0;
            for (int j = 0; j < NP; j++) want[i] += ref[(size_t)i * NP + j] * x[j];
        }
        rate_matvec(ctx, &a, NULL, x, y[k]);
        assert_true(rel_diff(NP, y[k], want) <= 1e-13);
        rate_matvec(ctx, &a, mask, xm, y[2]);
        for (int i = 0; i < NP; i++) {
            double s = 0;
            for (int j = 0; j < NP; j++) s += ref[(size_t)i * NP + j] * xm[j];
            want[i] = mask[i] ? s : 0;
        }
        assert_true(rel_diff(NP, y[2], want) <= 1e-13);
        for (int i = 0; i < NP; i++)
            if (!mask[i]) assert_true(y[2][i] == 0);

        double norm1 = 0;
        for (int j = 0; j < NP; j++) {
            double s = 0;
            for (int i = 0; i < NP; i++) s += fabs(ref[(size_t)i * NP + j]);
            norm1 = fmax(norm1, s);
        }
        assert_true(fabs(rate_matrix_norm1(&a) - norm1) <= 1e-12 * norm1);
        rate_matrix_free(&a);
        datum_rate_problem_free(&p);
        datum_ctx_free(&ctx);
    }
    /* The product's sums do not depend on the thread count. */
    assert_memory_equal(y[0], y[1], sizeof y[0]);
    free(ref); free(r); free(n); free(dense);
    tarch_free(&t);
}

/* Fields f0 .. f1-1 of t as an archive of their own. */
static void fields_of(const tarch *t, size_t f0, size_t f1, tarch *out)
{
    tarch_init(out, t->n_pairs);
    for (size_t f = f0; f < f1; f++) {
        tarch_field(out, t->field_date[f]);
        for (uint64_t i = t->offset[f]; i < t->offset[f + 1]; i++)
            tarch_row(out, t->ns[i], t->ew[i], t->score[i], t->adjusted[i]);
    }
}

/* The history's update, 0.5 A(first half) + A(second half), and datum-mpi's
 * entries (both triangles, each entry once) against the reference. */
static void test_update_and_entries(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("rate_matrix_update", 92);
    tarch t, half[2];
    tarch_init(&t, NP);
    tarch_random(&t, &rng, NP, 60, NULL);
    fields_of(&t, 0, t.n_fields / 2, &half[0]);
    fields_of(&t, t.n_fields / 2, t.n_fields, &half[1]);
    size_t nn = (size_t)NP * NP;
    double *ref[2], *want = calloc(nn, sizeof *want), *dense = malloc(nn * sizeof *dense);
    double r[NP], n[NP];
    for (int h = 0; h < 2; h++) {
        ref[h] = malloc(nn * sizeof *ref[h]);
        reference_system(&half[h], NULL, ref[h], r, n);
    }
    for (size_t e = 0; e < nn; e++) want[e] = 0.5 * ref[0][e] + ref[1][e];
    datum_ctx *ctx = ctx_with(2);
    rate_matrix a = {0}, d;
    for (int h = 0; h < 2; h++) {
        datum_rate_problem *p = problem_of(ctx, &half[h]);
        assert_int_equal(rate_matrix_assemble(ctx, p, &d), DATUM_OK);
        assert_int_equal(rate_matrix_add(ctx, &a, 0.5, &d), DATUM_OK);
        rate_matrix_free(&d);
        datum_rate_problem_free(&p);
    }
    dense_of(&a, dense);
    assert_true(rel_diff(nn, dense, want) <= 1e-13);
    /* Its product still agrees (the slices follow the new columns). */
    double x[NP], y[NP], yw[NP];
    for (int j = 0; j < NP; j++) x[j] = (double)test_rng_range(&rng, -100, 100);
    rate_matvec(ctx, &a, NULL, x, y);
    for (int i = 0; i < NP; i++) {
        yw[i] = 0;
        for (int j = 0; j < NP; j++) yw[i] += want[(size_t)i * NP + j] * x[j];
    }
    assert_true(rel_diff(NP, y, yw) <= 1e-13);
    rate_matrix_free(&a);

    datum_rate_problem *p = problem_of(ctx, &t);
    uint64_t nnz;
    int32_t *row, *col;
    double *val;
    assert_int_equal(datum_rate_problem_entries(ctx, p, &nnz, &row, &col, &val), DATUM_OK);
    memset(dense, 0, nn * sizeof *dense);
    for (uint64_t e = 0; e < nnz; e++) {
        double *at = &dense[(size_t)row[e] * NP + col[e]];
        assert_true(*at == 0); /* each (i, j) once */
        *at = val[e];
    }
    double *full = malloc(nn * sizeof *full);
    reference_system(&t, NULL, full, r, n);
    assert_true(rel_diff(nn, dense, full) <= 1e-13);
    datum_free(row); datum_free(col); datum_free(val); free(full);
    datum_rate_problem_free(&p);
    datum_ctx_free(&ctx);
    for (int h = 0; h < 2; h++) {
        free(ref[h]);
        tarch_free(&half[h]);
    }
    free(want); free(dense);
    tarch_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_and_product),
        cmocka_unit_test(test_update_and_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
