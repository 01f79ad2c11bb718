/*
 * dense.c - the components of A small enough to be solved densely (at most
 * dense_max pairs, 128 by default): every null direction there is found
 * exactly, whatever the structure, by a symmetric eigendecomposition.
 *
 * With D = W^-1/2 (W = diag n_j) and B = D A D = sum_i lambda_i q_i q_i':
 *  - null(A) = D null(B) = span{D q_i : lambda_i <= 1e-9 lambda_max};
 *  - r_c = r minus its Euclidean projection on that span (through an
 *    orthonormal basis of D Q0, by Gram-Schmidt);
 *  - v = D sum_{lambda_i > tol} q_i (q_i' D r_c) / (lambda_i + ridge): the
 *    least-squares solution of smallest v'Wv (ridge 0), or of
 *    (A + ridge W) v = r_c. Scaling by D makes diag(B) = 1, so the tolerance
 *    does not depend on how many boards the pairs played.
 * The eigensolver is our own cyclic Jacobi, so that the tests' LAPACK
 * reference stays independent of it.
 */
#include "rate_internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

int rate_jacobi_eigen(int m, double *a, double *v)
{
    for (int i = 0; i < m; i++)
        for (int k = 0; k < m; k++) v[i * m + k] = i == k;
    double frob = 0;
    for (int i = 0; i < m * m; i++) frob += a[i] * a[i];
    int sweep;
    for (sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (int p = 0; p < m; p++)
            for (int q = p + 1; q < m; q++) off += a[p * m + q] * a[p * m + q];
        if (off <= 1e-30 * frob) break;
        for (int p = 0; p < m; p++) {
            for (int q = p + 1; q < m; q++) {
                double apq = a[p * m + q];
                if (apq == 0) continue;
                /* The rotation that zeroes a_pq: t = tan(angle), the smaller root. */
                double theta = (a[q * m + q] - a[p * m + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                a[p * m + p] -= t * apq;
                a[q * m + q] += t * apq;
                a[p * m + q] = a[q * m + p] = 0;
                for (int k = 0; k < m; k++) {
                    if (k == p || k == q) continue;
                    double akp = a[k * m + p], akq = a[k * m + q];
                    a[k * m + p] = a[p * m + k] = c * akp - s * akq;
                    a[k * m + q] = a[q * m + k] = s * akp + c * akq;
                }
                for (int k = 0; k < m; k++) {
                    double vkp = v[k * m + p], vkq = v[k * m + q];
                    v[k * m + p] = c * vkp - s * vkq;
                    v[k * m + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    return sweep;
}

int rate_cholesky(int n, double *a)
{
    for (int j = 0; j < n; j++) {
        double d = a[(size_t)j * n + j];
        for (int k = 0; k < j; k++) d -= a[(size_t)j * n + k] * a[(size_t)j * n + k];
        if (!(d > 0)) return -1;
        d = sqrt(d);
        a[(size_t)j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = a[(size_t)i * n + j];
            for (int k = 0; k < j; k++) s -= a[(size_t)i * n + k] * a[(size_t)j * n + k];
            a[(size_t)i * n + j] = s / d;
        }
    }
    return 0;
}

void rate_cholesky_solve(int n, const double *l, double *x)
{
    for (int i = 0; i < n; i++) { /* L y = x */
        double s = x[i];
        for (int k = 0; k < i; k++) s -= l[(size_t)i * n + k] * x[k];
        x[i] = s / l[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L' x = y */
        double s = x[i];
        for (int k = i + 1; k < n; k++) s -= l[(size_t)k * n + i] * x[k];
        x[i] = s / l[(size_t)i * n + i];
    }
}

typedef struct {
    double *b, *v, *z, *r, *u; /* m*m, m*m, m*m, m, m */
    int32_t *local;            /* pair -> index in the component, -1 elsewhere */
} workspace;

/* Solves one component given its pairs; returns its null dimension. */
static uint32_t solve_component(const datum_rate_problem *p, const rate_matrix *a,
                                const uint32_t *pairs, int m, double ridge, workspace *w,
                                double *rating, double *rc)
{
    double *b = w->b, *v = w->v, *z = w->z, *r = w->r, *u = w->u;
    for (int i = 0; i < m; i++) w->local[pairs[i]] = i;
    memset(b, 0, (size_t)(unsigned)m * (unsigned)m * sizeof *b);
    for (int k = 0; k < m; k++) {
        const int32_t *row;
        const double *val;
        uint64_t n = rate_column(a, pairs[k], &row, &val);
        for (uint64_t e = 0; e < n; e++) { /* a_ik, and a_ki below the diagonal */
            int32_t i = w->local[row[e]];
            b[i * m + k] += val[e];
            if ((uint32_t)row[e] != pairs[k]) b[k * m + i] += val[e];
        }
    }
    for (int i = 0; i < m; i++) w->local[pairs[i]] = -1;
    for (int i = 0; i < m; i++) u[i] = 1 / sqrt(p->n[pairs[i]]); /* D */
    for (int i = 0; i < m; i++)
        for (int k = 0; k < m; k++) b[i * m + k] *= u[i] * u[k];
    rate_jacobi_eigen(m, b, v);
    double lmax = 0;
    for (int i = 0; i < m; i++) lmax = fmax(lmax, fabs(b[i * m + i]));
    double tol = 1e-9 * lmax;
    /* Orthonormal basis of null(A) = D Q0, column by column in z (m x k). */
    int k0 = 0;
    for (int i = 0; i < m; i++) {
        if (b[i * m + i] > tol) continue;
        double *col = z + (size_t)k0 * m;
        for (int e = 0; e < m; e++) col[e] = u[e] * v[e * m + i];
        for (int pass = 0; pass < 2; pass++)
            for (int q = 0; q < k0; q++) {
                const double *prev = z + (size_t)q * m;
                double c = 0;
                for (int e = 0; e < m; e++) c += prev[e] * col[e];
                for (int e = 0; e < m; e++) col[e] -= c * prev[e];
            }
        double norm = 0;
        for (int e = 0; e < m; e++) norm += col[e] * col[e];
        norm = sqrt(norm);
        for (int e = 0; e < m; e++) col[e] /= norm;
        k0++;
    }
    for (int e = 0; e < m; e++) r[e] = p->r[pairs[e]];
    for (int q = 0; q < k0; q++) {
        const double *col = z + (size_t)q * m;
        double c = 0;
        for (int e = 0; e < m; e++) c += col[e] * r[e];
        for (int e = 0; e < m; e++) r[e] -= c * col[e];
    }
    for (int e = 0; e < m; e++) rc[pairs[e]] = r[e];
    /* v = D sum q_i (q_i' D r_c) / (lambda_i + ridge) over the range. */
    double *x = z; /* z is no longer needed: reuse its first column */
    memset(x, 0, (size_t)(unsigned)m * sizeof *x);
    for (int i = 0; i < m; i++) {
        double lambda = b[i * m + i];
        if (lambda <= tol) continue;
        double c = 0;
        for (int e = 0; e < m; e++) c += v[e * m + i] * u[e] * r[e];
        c /= lambda + ridge;
        for (int e = 0; e < m; e++) x[e] += c * v[e * m + i];
    }
    for (int e = 0; e < m; e++) rating[pairs[e]] = u[e] * x[e];
    return (uint32_t)k0;
}

int rate_dense_solve(datum_ctx *ctx, const datum_rate_problem *p, const rate_structure *s,
                     const rate_matrix *a, double ridge, double *rating, double *rc,
                     uint32_t *null_dim)
{
    /* The dense components' pairs, grouped by component (counting sort). */
    uint32_t nc = s->n_acomp;
    uint64_t *start = datum_calloc(ctx, (size_t)nc + 1, sizeof *start);
    uint32_t *pairs = datum_malloc(ctx, s->n, sizeof *pairs);
    uint32_t *dims = datum_calloc(ctx, nc, sizeof *dims);
    int threads = datum_ctx_threads(ctx), m_max = 1, failed = 0;
    workspace *ws = datum_calloc(ctx, (size_t)threads, sizeof *ws);
    *null_dim = 0;
    if (!start || !pairs || !dims || !ws) goto fail;
    for (uint32_t j = 0; j < s->n; j++)
        if (s->acomp[j] >= 0 && s->acomp_dense[s->acomp[j]]) start[s->acomp[j] + 1]++;
    for (uint32_t c = 0; c < nc; c++) {
        if ((int)start[c + 1] > m_max) m_max = (int)start[c + 1];
        start[c + 1] += start[c];
    }
    for (uint32_t j = 0; j < s->n; j++) { /* dims counts the pairs placed so far */
        int32_t c = s->acomp[j];
        if (c >= 0 && s->acomp_dense[c]) pairs[start[c] + dims[c]++] = j;
    }
    size_t mm = (size_t)m_max * m_max;
    for (int t = 0; t < threads; t++) {
        ws[t].b = datum_malloc(ctx, mm, sizeof(double));
        ws[t].v = datum_malloc(ctx, mm, sizeof(double));
        ws[t].z = datum_malloc(ctx, mm, sizeof(double));
        ws[t].r = datum_malloc(ctx, (size_t)m_max, sizeof(double));
        ws[t].u = datum_malloc(ctx, (size_t)m_max, sizeof(double));
        ws[t].local = datum_malloc(ctx, s->n, sizeof(int32_t));
        if (!ws[t].b || !ws[t].v || !ws[t].z || !ws[t].r || !ws[t].u || !ws[t].local) goto fail;
        for (uint32_t j = 0; j < s->n; j++) ws[t].local[j] = -1;
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (uint32_t c = 0; c < nc; c++) {
        int m = (int)(start[c + 1] - start[c]);
        if (m == 0) {
            dims[c] = 0;
            continue;
        }
        dims[c] = solve_component(p, a, pairs + start[c], m, ridge, &ws[omp_get_thread_num()],
                                  rating, rc);
    }
    for (uint32_t c = 0; c < nc; c++) *null_dim += dims[c];
    goto done;
fail:
    failed = 1;
done:
    for (int t = 0; ws && t < threads; t++) {
        datum_free(ws[t].b); datum_free(ws[t].v); datum_free(ws[t].z); datum_free(ws[t].r); datum_free(ws[t].u);
        datum_free(ws[t].local);
    }
    datum_free(ws);
    datum_free(start);
    datum_free(pairs);
    datum_free(dims);
    return failed ? DATUM_E_NOMEM : DATUM_OK; /* recorded by the allocator */
}
