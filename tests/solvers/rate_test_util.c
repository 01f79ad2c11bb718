/* rate_test_util.c - see rate_test_util.h. */
#include "rate_test_util.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

void tarch_init(tarch *a, uint32_t n_pairs)
{
    memset(a, 0, sizeof *a);
    a->n_pairs = n_pairs;
    a->offset = calloc(1, sizeof *a->offset);
}

void tarch_free(tarch *a)
{
    free(a->offset); free(a->field_date);
    free(a->ns); free(a->ew); free(a->score); free(a->date); free(a->adjusted);
    memset(a, 0, sizeof *a);
}

void tarch_field(tarch *a, int32_t date)
{
    if (a->n_fields + 2 > a->fields_cap) {
        a->fields_cap = 2 * a->fields_cap + 16;
        a->offset = realloc(a->offset, a->fields_cap * sizeof *a->offset);
        a->field_date = realloc(a->field_date, a->fields_cap * sizeof *a->field_date);
    }
    a->field_date[a->n_fields] = date;
    a->n_fields++;
    a->offset[a->n_fields] = a->n_rows;
}

void tarch_row(tarch *a, int32_t ns, int32_t ew, int32_t score, uint8_t adjusted)
{
    if (a->n_rows + 1 > a->rows_cap) {
        a->rows_cap = 2 * a->rows_cap + 64;
        a->ns = realloc(a->ns, a->rows_cap * sizeof *a->ns);
        a->ew = realloc(a->ew, a->rows_cap * sizeof *a->ew);
        a->score = realloc(a->score, a->rows_cap * sizeof *a->score);
        a->date = realloc(a->date, a->rows_cap * sizeof *a->date);
        a->adjusted = realloc(a->adjusted, a->rows_cap);
    }
    size_t i = a->n_rows++;
    a->ns[i] = ns;
    a->ew[i] = ew;
    a->score[i] = adjusted ? 0 : score;
    a->adjusted[i] = adjusted;
    a->date[i] = a->field_date[a->n_fields - 1];
    a->offset[a->n_fields] = a->n_rows;
}

datum_rate_chunk tarch_chunk(const tarch *a)
{
    return (datum_rate_chunk){a->n_fields, a->offset, a->field_date, a->date,
                              a->ns, a->ew, a->score, a->adjusted};
}

void tarch_event(tarch *a, test_rng *rng, int32_t date, int rounds, int tables, int boards,
                 const int32_t *ns, const int32_t *ew, const double *strength)
{
    /* Barometer style: every table plays round k's boards in round k, so a
     * field is one round's seating (a pair is at most once in a field). */
    for (int k = 0; k < rounds; k++)
        for (int b = 0; b < boards; b++) {
            tarch_field(a, date);
            for (int t = 0; t < tables; t++) {
                int32_t n = ns[k * tables + t], e = ew[k * tables + t];
                double edge = strength ? strength[n] - strength[e] : 0;
                int32_t score = (int32_t)(10 * llround(edge * 10 + test_rng_range(rng, -30, 30)));
                tarch_row(a, n, e, score, 0);
            }
        }
}

/* A random permutation of 0..n-1 into p. */
static void shuffle(test_rng *rng, int32_t *p, int n)
{
    for (int i = 0; i < n; i++) p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int k = (int)test_rng_range(rng, 0, i);
        int32_t x = p[i];
        p[i] = p[k];
        p[k] = x;
    }
}

void tarch_random(tarch *a, test_rng *rng, uint32_t n_pairs, int events, const double *strength)
{
    int32_t *perm = malloc(n_pairs * sizeof *perm);
    int32_t ns[16 * 16], ew[16 * 16];
    for (int ev = 0; ev < events; ev++) {
        int32_t date = 19000 + 3 * ev;
        int kind = (int)test_rng_range(rng, 0, 3);
        int tables = kind == 2 ? 2 : (int)test_rng_range(rng, 2, 6);
        int rounds = kind == 2 ? 1 : (int)test_rng_range(rng, 1, 4);
        if (2 * tables > (int)n_pairs) tables = (int)n_pairs / 2;
        shuffle(rng, perm, (int)n_pairs);
        for (int k = 0; k < rounds; k++)
            for (int t = 0; t < tables; t++) {
                if (kind == 1) { /* Mitchell-like: NS stay, EW move */
                    ns[k * tables + t] = perm[t];
                    ew[k * tables + t] = perm[tables + (t + k) % tables];
                } else if (kind == 2) { /* a 2-table match: the teammates swap directions */
                    ns[t] = perm[t == 0 ? 0 : 3];
                    ew[t] = perm[t == 0 ? 1 : 2];
                } else { /* Howell-like: a fresh random seating every round */
                    if (t == 0) shuffle(rng, perm, (int)n_pairs);
                    int flip = (int)test_rng_range(rng, 0, 1);
                    ns[k * tables + t] = perm[2 * t + flip];
                    ew[k * tables + t] = perm[2 * t + 1 - flip];
                }
            }
        tarch_event(a, rng, date, rounds, tables, (int)test_rng_range(rng, 1, 3), ns, ew, strength);
        if (test_rng_range(rng, 0, 3) == 0) { /* an adjusted row, a one-table field */
            a->adjusted[a->n_rows - 1] = (uint8_t)test_rng_range(rng, 1, 8);
            a->score[a->n_rows - 1] = 0;
            tarch_field(a, date);
            tarch_row(a, perm[0], perm[1], 420, 0);
        }
    }
    free(perm);
}

datum_rate_result *rate_run(const tarch *a, const datum_rate_window *w,
                            const datum_rate_options *o, int threads, int expect)
{
    datum_ctx *ctx;
    datum_rate_problem *p;
    datum_rate_result *r = NULL;
    datum_method m;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    assert_int_equal(datum_rate_problem_create(ctx, a->n_pairs, w, &p), DATUM_OK);
    datum_rate_chunk c = tarch_chunk(a);
    assert_int_equal(datum_rate_problem_add(ctx, p, &m, &c), DATUM_OK);
    int rc = datum_rate_solve(ctx, p, o, &r);
    if (expect == RATE_OK_OR_INACCURATE && (rc == DATUM_OK || rc == DATUM_W_INACCURATE)) expect = rc;
    if (rc != expect)
        fail_msg("datum_rate_solve returned %d (%s), expected %d; residual %g, null %u "
                 "(%u numerical), path %d, %d iterations", rc, datum_ctx_message(ctx), expect,
                 r ? r->stats.range_residual : NAN, r ? r->stats.null_total : 0,
                 r ? r->stats.null_numeric : 0, r ? (int)r->stats.path : -1,
                 r ? r->stats.iterations : -1);
    datum_rate_problem_free(&p);
    datum_ctx_free(&ctx);
    return r;
}

/* ------------------------------------------------------------------------ */
/* The reference                                                            */

void reference_system(const tarch *a, const datum_rate_window *w, double *A, double *r, double *n)
{
    uint32_t np = a->n_pairs;
    datum_rate_window win = w ? *w : (datum_rate_window)DATUM_RATE_WINDOW_INIT;
    datum_scale scale = DATUM_SCALE_INIT;
    memset(A, 0, (size_t)np * np * sizeof *A);
    memset(r, 0, np * sizeof *r);
    memset(n, 0, np * sizeof *n);
    /* Seed 000, pair j on field b: n_j v_j = sum_b w_b [bb + v(a) - sum_ao v/(L-1) + sum_mo v/(L-1)],
     * moved to the left: the row of A for j. */
    for (size_t f = 0; f < a->n_fields; f++) {
        size_t keep[64], L = 0;
        int64_t sum = 0;
        int32_t date = INT32_MIN;
        for (uint64_t i = a->offset[f]; i < a->offset[f + 1]; i++) {
            if (a->adjusted[i] || a->date[i] < win.from || a->date[i] > win.as_of) continue;
            keep[L++] = i;
            sum += a->score[i];
            if (a->date[i] > date) date = a->date[i];
        }
        if (L < 2) continue;
        double wt = win.half_life > 0 ? pow(0.5, (win.as_of - date) / win.half_life) : 1.0;
        for (size_t x = 0; x < L; x++) {
            size_t i = keep[x];
            double bb = datum_imp_ratio(&scale, (int64_t)a->score[i] * (int64_t)L - sum, (int64_t)L);
            for (int side = 0; side < 2; side++) {
                int32_t j = side ? a->ew[i] : a->ns[i], opp = side ? a->ns[i] : a->ew[i];
                r[j] += wt * (side ? -bb : bb);
                n[j] += wt;
                A[(size_t)j * np + j] += wt;
                A[(size_t)j * np + opp] -= wt;
                for (size_t y = 0; y < L; y++) {
                    if (y == x) continue;
                    int32_t same = side ? a->ew[keep[y]] : a->ns[keep[y]];
                    int32_t other = side ? a->ns[keep[y]] : a->ew[keep[y]];
                    A[(size_t)j * np + other] += wt / (double)(L - 1); /* ao */
                    A[(size_t)j * np + same] -= wt / (double)(L - 1);  /* mo */
                }
            }
        }
    }
}

void reference_solve(const tarch *a, const datum_rate_window *w, double ridge, double *v,
                     const double *lib_v, reference_info *info)
{
    uint32_t np = a->n_pairs;
    double *A = calloc((size_t)np * np, sizeof *A), *r = calloc(np, sizeof *r);
    double *n = calloc(np, sizeof *n);
    reference_system(a, w, A, r, n);
    int32_t *idx = malloc(np * sizeof *idx);
    int m = 0;
    for (uint32_t j = 0; j < np; j++) idx[j] = n[j] > 0 ? m++ : -1;
    double *B = calloc((size_t)m * m + 1, sizeof *B), *lam = calloc(m + 1, sizeof *lam);
    double *rr = calloc(m + 1, sizeof *rr), *ww = calloc(m + 1, sizeof *ww);
    for (uint32_t i = 0; i < np; i++) {
        if (idx[i] < 0) continue;
        rr[idx[i]] = r[i];
        ww[idx[i]] = n[i];
        for (uint32_t j = 0; j < np; j++)
            if (idx[j] >= 0) B[(size_t)idx[i] * m + idx[j]] = A[(size_t)i * np + j];
    }
    double *Acopy = malloc(((size_t)m * m + 1) * sizeof *Acopy);
    memcpy(Acopy, B, (size_t)m * m * sizeof *B);
    assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', m, B, m, lam), 0);
    double lmax = 0;
    for (int i = 0; i < m; i++) lmax = fmax(lmax, fabs(lam[i]));
    int k = 0;
    while (k < m && lam[k] <= 1e-9 * lmax) k++; /* ascending: the null ones first */
    /* r_c = r - Q0 Q0' r; v0 = A^+ r. */
    double *rc = malloc((m + 1) * sizeof *rc), *x = calloc(m + 1, sizeof *x);
    memcpy(rc, rr, m * sizeof *rc);
    for (int q = 0; q < m; q++) {
        double c = 0;
        for (int e = 0; e < m; e++) c += B[(size_t)e * m + q] * rr[e];
        if (q < k)
            for (int e = 0; e < m; e++) rc[e] -= c * B[(size_t)e * m + q];
        else
            for (int e = 0; e < m; e++) x[e] += c / lam[q] * B[(size_t)e * m + q];
    }
    double least = 0;
    for (int e = 0; e < m; e++) least += (rr[e] - rc[e]) * (rr[e] - rc[e]);
    if (ridge > 0) { /* (A + ridge W) x = r_c */
        double *M = malloc(((size_t)m * m + 1) * sizeof *M);
        memcpy(M, Acopy, (size_t)m * m * sizeof *M);
        for (int e = 0; e < m; e++) M[(size_t)e * m + e] += ridge * ww[e];
        memcpy(x, rc, m * sizeof *x);
        assert_int_equal(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', m, 1, M, m, x, 1), 0);
        free(M);
    } else if (k > 0) { /* x -= Q0 (Q0'W Q0)^-1 Q0'W x: W-orthogonal to null(A) */
        double *G = calloc((size_t)k * k, sizeof *G), *h = calloc(k, sizeof *h);
        for (int p = 0; p < k; p++) {
            for (int e = 0; e < m; e++) h[p] += B[(size_t)e * m + p] * ww[e] * x[e];
            for (int q = 0; q < k; q++)
                for (int e = 0; e < m; e++)
                    G[(size_t)p * k + q] += B[(size_t)e * m + p] * ww[e] * B[(size_t)e * m + q];
        }
        assert_int_equal(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', k, 1, G, k, h, 1), 0);
        for (int p = 0; p < k; p++)
            for (int e = 0; e < m; e++) x[e] -= B[(size_t)e * m + p] * h[p];
        free(G);
        free(h);
    }
    for (uint32_t j = 0; j < np; j++) v[j] = idx[j] >= 0 ? x[idx[j]] : NAN;
    info->null_dim = k;
    info->least_residual = sqrt(least);
    info->lib_range_residual = NAN;
    if (lib_v) { /* ||(A + ridge W) v_lib - r_c|| / ||r_c|| with the reference's A */
        double num = 0, den = 0;
        for (int e = 0; e < m; e++) {
            double s = 0;
            for (uint32_t j = 0; j < np; j++)
                if (idx[j] >= 0) s += Acopy[(size_t)e * m + idx[j]] * lib_v[j];
            int32_t je = -1;
            for (uint32_t j = 0; j < np; j++)
                if (idx[j] == e) je = (int32_t)j;
            s += ridge * ww[e] * lib_v[je];
            num += (s - rc[e]) * (s - rc[e]);
            den += rc[e] * rc[e];
        }
        info->lib_range_residual = den > 0 ? sqrt(num / den) : sqrt(num);
    }
    free(A); free(r); free(n); free(idx); free(B); free(lam); free(rr); free(ww);
    free(Acopy); free(rc); free(x);
}

double max_diff(uint32_t n, const double *x, const double *y)
{
    double d = 0;
    for (uint32_t j = 0; j < n; j++)
        if (isfinite(x[j]) || isfinite(y[j])) d = fmax(d, isfinite(x[j] - y[j]) ? fabs(x[j] - y[j]) : INFINITY);
    return d;
}
