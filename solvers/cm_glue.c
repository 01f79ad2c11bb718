/*
 * cm_glue.c - datum's matrices as CHOLMOD's, and CHOLMOD's status as datum's
 * errors. CHOLMOD reports through cm->status; cholmod_l_factorize returns
 * TRUE even when the matrix is not positive definite, so callers look at
 * cm->status and L->minor after every factorisation.
 */
#include "rate_cholmod.h"

#include <omp.h>
#include <string.h>

void rate_cm_start(cholmod_common *cm)
{
    cholmod_l_start(cm);
    cm->print = 0; /* the library never prints; errors come back as status */
    cm->error_handler = NULL;
}

int rate_cm_failed(const cholmod_common *cm)
{
    return cm->status == CHOLMOD_OUT_OF_MEMORY || cm->status == CHOLMOD_TOO_LARGE
               ? DATUM_E_NOMEM
               : DATUM_E_NUMERIC;
}

int rate_cm_check(datum_ctx *ctx, const cholmod_common *cm, const char *what)
{
    switch (cm->status) {
    case CHOLMOD_OK:
    case CHOLMOD_NOT_POSDEF:
    case CHOLMOD_DSMALL:
        return DATUM_OK;
    case CHOLMOD_OUT_OF_MEMORY:
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (CHOLMOD, %s)", what);
    case CHOLMOD_TOO_LARGE: /* sizes beyond its integers: as out of memory */
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (CHOLMOD: problem too large, %s)",
                              what);
    default:
        return datum_ctx_fail(ctx, DATUM_E_NUMERIC, "CHOLMOD failed (%s): status %d", what,
                              cm->status);
    }
}

/* Entry (i, k) of column k's entries kept (i numbered; at most k, as A's
 * stored triangle gives it when the numbering follows the pairs' order). */
static int kept(const int32_t *index, int32_t row, size_t k)
{
    int32_t i = index[row];
    return i >= 0 && (size_t)i <= k;
}

void rate_cm_fill(cholmod_sparse *m, int threads, const rate_matrix *a, const int32_t *index,
                  const uint32_t *pair_of, const double *shift, const uint8_t *pinned)
{
    SuiteSparse_long *mp = m->p, *mi = m->i;
    double *mx = m->x;
#pragma omp parallel for num_threads(threads) schedule(static, RATE_BLOCK_COLS)
    for (size_t k = 0; k < m->ncol; k++) {
        const int32_t *row;
        const double *val;
        uint32_t j = pair_of[k];
        uint64_t len = rate_column(a, j, &row, &val);
        SuiteSparse_long q = mp[k];
        for (uint64_t e = 0; e < len; e++) {
            if (!kept(index, row[e], k)) continue;
            int diagonal = (uint32_t)row[e] == j;
            mi[q] = index[row[e]];
            if (pinned && (pinned[j] || pinned[row[e]])) mx[q] = diagonal; /* identity */
            else mx[q] = val[e] + (diagonal && shift ? shift[j] : 0);
            q++;
        }
    }
}

cholmod_sparse *rate_cm_upper(datum_ctx *ctx, int threads, const rate_matrix *a,
                              const int32_t *index, const uint32_t *pair_of, size_t n,
                              const double *shift, const uint8_t *pinned, cholmod_common *cm)
{
    SuiteSparse_long *count = datum_calloc(ctx, n + 1, sizeof *count);
    if (!count) return NULL;
#pragma omp parallel for num_threads(threads) schedule(static, RATE_BLOCK_COLS)
    for (size_t k = 0; k < n; k++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, pair_of[k], &row, &val);
        SuiteSparse_long c = 0;
        for (uint64_t e = 0; e < len; e++) c += kept(index, row[e], k);
        count[k + 1] = c;
    }
    for (size_t k = 0; k < n; k++) count[k + 1] += count[k];
    cholmod_sparse *m = cholmod_l_allocate_sparse(n, n, (size_t)count[n], 0, 1, 1, CHOLMOD_REAL, cm);
    if (!m) {
        datum_free(count);
        rate_cm_check(ctx, cm, "allocating the matrix");
        return NULL;
    }
    memcpy(m->p, count, (n + 1) * sizeof *count);
    datum_free(count);
    rate_cm_fill(m, threads, a, index, pair_of, shift, pinned);
    return m;
}

void rate_cm_pin(cholmod_sparse *m, SuiteSparse_long k)
{
    SuiteSparse_long *mp = m->p, *mi = m->i;
    double *mx = m->x;
    for (SuiteSparse_long e = mp[k]; e < mp[k + 1]; e++) mx[e] = mi[e] == k ? 1.0 : 0.0;
    for (size_t j = (size_t)k + 1; j < m->ncol; j++)
        for (SuiteSparse_long e = mp[j]; e < mp[j + 1]; e++)
            if (mi[e] == k) mx[e] = 0.0;
}

/* Pivot of factor column k: L_kk^2 (LL') or D_kk (LDL'). */
static double pivot(const cholmod_factor *L, size_t k)
{
    const double *x = L->x;
    if (!L->is_super) {
        double d = x[((const SuiteSparse_long *)L->p)[k]];
        return L->is_ll ? d * d : d;
    }
    const SuiteSparse_long *super = L->super, *pi = L->pi, *px = L->px;
    size_t lo = 0, hi = L->nsuper; /* the supernode holding column k */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if ((size_t)super[mid] <= k) lo = mid;
        else hi = mid;
    }
    size_t nrows = (size_t)(pi[lo + 1] - pi[lo]), c = k - (size_t)super[lo];
    double d = x[px[lo] + c + c * nrows];
    return d * d;
}

SuiteSparse_long rate_cm_zero_pivot(const cholmod_factor *L, const cholmod_sparse *M, double tol)
{
    size_t n = L->n, end = L->minor < n ? L->minor : n;
    const SuiteSparse_long *perm = L->Perm, *mp = M->p, *mi = M->i;
    const double *mx = M->x;
    for (size_t k = 0; k < end; k++) {
        SuiteSparse_long j = perm[k];
        double a = 0;
        for (SuiteSparse_long e = mp[j]; e < mp[j + 1]; e++)
            if (mi[e] == j) a = mx[e];
        if (!(pivot(L, k) > tol * a)) return (SuiteSparse_long)k;
    }
    return (SuiteSparse_long)end;
}

double rate_cm_factor_bytes(const cholmod_factor *L)
{
    if (L->is_super) return 8.0 * ((double)L->xsize + (double)L->ssize) + 8.0 * (double)L->nsuper;
    return 16.0 * (double)L->nzmax + 24.0 * (double)L->n;
}
