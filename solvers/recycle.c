/*
 * recycle.c - deflation vectors recycled from one date of a rating history
 * to the next (docs/methods.md, "Rating history").
 *
 * Jacobi's D^-1 A on a federation has a few eigenvalues far below the rest
 * (decade, default mixing: about ten near 0.02, then 0.3 to 1.1): one per
 * region, whose pairs meet the other regions' only through visitors and
 * congresses. They cost conjugate gradients most of their iterations.
 * Deflated CG (Saad, Yeung, Erhel, Guyomarc'h 2000) keeps the residual
 * orthogonal to a space Z and the directions A-orthogonal to it: the
 * iterations then see the spectrum without the eigenvalues Z holds. From
 * one date to the next the regions barely change, so Z is taken from the
 * solves already made: after each solve a Rayleigh-Ritz step over Z and the
 * solve's directions P (their products with A are at hand: no extra product)
 * keeps the RATE_RECYCLE_VECTORS Ritz vectors of smallest value. A Z is
 * carried along: with A(T_k) = c A(T_{k-1}) + the period's matrix, it is
 * updated by the period's matrix alone. Z only steers the iterations: the
 * stopping rule is the true residual's, as without it.
 *
 * Every loop here is sequential, in index order: the same bits for any
 * thread count.
 */
#include "rate_internal.h"

#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

/* Pairs per tile of the Rayleigh-Ritz step: its vectors' slices stay in cache. */
#define RECYCLE_TILE 512

int rate_recycle_init(datum_ctx *ctx, uint32_t n, rate_recycle *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->n = n;
    size_t len = n ? n : 1;
    rc->z = datum_calloc(ctx, RATE_RECYCLE_VECTORS * len, sizeof *rc->z);
    rc->az = datum_calloc(ctx, RATE_RECYCLE_VECTORS * len, sizeof *rc->az);
    rc->p = datum_malloc(ctx, RATE_RECYCLE_DIRECTIONS * len, sizeof *rc->p);
    rc->q = datum_malloc(ctx, RATE_RECYCLE_DIRECTIONS * len, sizeof *rc->q);
    rc->e = datum_malloc(ctx, RATE_RECYCLE_VECTORS * RATE_RECYCLE_VECTORS, sizeof *rc->e);
    if (!rc->z || !rc->az || !rc->p || !rc->q || !rc->e) {
        rate_recycle_free(rc);
        return DATUM_E_NOMEM;
    }
    return DATUM_OK;
}

void rate_recycle_free(rate_recycle *rc)
{
    datum_free(rc->z);
    datum_free(rc->az);
    datum_free(rc->p);
    datum_free(rc->q);
    datum_free(rc->e);
    memset(rc, 0, sizeof *rc);
}

void rate_recycle_update(rate_recycle *rc, double scale, const rate_matrix *delta)
{
    if (!rc->z || rc->k == 0) return;
    size_t n = rc->n;
    for (size_t i = 0; i < (size_t)rc->k * n; i++) rc->az[i] *= scale;
    for (uint32_t j = 0; j < delta->n && j < rc->n; j++) { /* A symmetric: row j from column j */
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(delta, j, &row, &val);
        for (int a = 0; a < rc->k; a++) {
            const double *z = rc->z + (size_t)a * n;
            double sum = 0;
            for (uint64_t e = 0; e < len; e++) sum += val[e] * z[row[e]];
            rc->az[(size_t)a * n + j] += sum;
        }
    }
}

/* AZ's rows j with `which[j]` from A's columns (A symmetric). */
static void rows_from(rate_recycle *rc, const rate_matrix *a, const uint8_t *which)
{
    size_t n = rc->n;
    for (uint32_t j = 0; j < rc->n; j++) {
        if (!which[j]) continue;
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        for (int b = 0; b < rc->k; b++) {
            const double *z = rc->z + (size_t)b * n;
            double sum = 0;
            for (uint64_t e = 0; e < len; e++) sum += val[e] * z[row[e]];
            rc->az[(size_t)b * n + j] = sum;
        }
    }
}

int rate_recycle_begin(rate_recycle *rc, const rate_matrix *a, const uint8_t *active)
{
    rc->on = 0;
    rc->m = 0;
    if (!rc->z || rc->k == 0) return 0;
    size_t n = rc->n;
    int k = rc->k;
    /* Z must vanish off the unknowns: a pair pinned (or left to the dense
     * path) since carries its share out of A Z exactly, column by column. */
    for (uint32_t j = 0; j < rc->n; j++) {
        if (active[j]) continue;
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        for (int b = 0; b < k; b++) {
            double *z = rc->z + (size_t)b * n, *az = rc->az + (size_t)b * n;
            if (z[j] == 0) continue;
            for (uint64_t e = 0; e < len; e++) az[row[e]] -= val[e] * z[j];
            z[j] = 0;
        }
    }
    double *e = rc->e; /* Z'AZ over the unknowns, then its Cholesky factor */
    for (int x = 0; x < k; x++)
        for (int y = 0; y <= x; y++) {
            const double *zx = rc->z + (size_t)x * n, *zy = rc->z + (size_t)y * n;
            const double *ax = rc->az + (size_t)x * n, *ay = rc->az + (size_t)y * n;
            double sum = 0;
            for (uint32_t j = 0; j < rc->n; j++)
                if (active[j]) sum += zx[j] * ay[j] + zy[j] * ax[j];
            e[x * k + y] = e[y * k + x] = 0.5 * sum;
        }
    if (rate_cholesky(k, e) != 0) { /* Z no longer independent on these unknowns: none */
        rc->k = 0;
        return 0;
    }
    rc->on = 1;
    return k;
}

/* mu = E^-1 (V' v) over the unknowns, V = Z or A Z. */
static void coefficients(const rate_recycle *rc, const double *basis, const uint8_t *active,
                         const double *v, double *mu)
{
    size_t n = rc->n;
    for (int a = 0; a < rc->k; a++) {
        const double *b = basis + (size_t)a * n;
        double sum = 0;
        for (uint32_t j = 0; j < rc->n; j++) sum += active[j] ? b[j] * v[j] : 0;
        mu[a] = sum;
    }
    rate_cholesky_solve(rc->k, rc->e, mu);
}

void rate_recycle_correct(const rate_recycle *rc, const uint8_t *active, double *x, double *r)
{
    double mu[RATE_RECYCLE_VECTORS];
    size_t n = rc->n;
    if (!rc->on) return;
    coefficients(rc, rc->z, active, r, mu);
    for (int a = 0; a < rc->k; a++) {
        const double *z = rc->z + (size_t)a * n, *az = rc->az + (size_t)a * n;
        for (uint32_t j = 0; j < rc->n; j++) {
            if (!active[j]) continue;
            x[j] += mu[a] * z[j];
            r[j] -= mu[a] * az[j];
        }
    }
}

void rate_recycle_project(const rate_recycle *rc, const uint8_t *active, const double *z,
                          double *p)
{
    double mu[RATE_RECYCLE_VECTORS];
    size_t n = rc->n;
    if (!rc->on) return;
    coefficients(rc, rc->az, active, z, mu);
    for (int a = 0; a < rc->k; a++) {
        const double *za = rc->z + (size_t)a * n;
        for (uint32_t j = 0; j < rc->n; j++) p[j] -= mu[a] * za[j];
    }
}

void rate_recycle_record(rate_recycle *rc, const double *p, const double *q)
{
    if (!rc->z || rc->m >= RATE_RECYCLE_DIRECTIONS) return;
    memcpy(rc->p + (size_t)rc->m * rc->n, p, rc->n * sizeof *p);
    memcpy(rc->q + (size_t)rc->m * rc->n, q, rc->n * sizeof *q);
    rc->m++;
}

/* Eigenvalues of a symmetric m x m matrix (destroyed) in ascending order
 * into lambda, their eigenvectors as the columns of v (row-major). */
static void eigen_sorted(int m, double *a, double *v, double *lambda)
{
    rate_jacobi_eigen(m, a, v);
    for (int i = 0; i < m; i++) lambda[i] = a[i * m + i];
    for (int i = 1; i < m; i++) /* insertion sort of the pairs: m is small */
        for (int j = i; j > 0 && lambda[j] < lambda[j - 1]; j--) {
            double t = lambda[j];
            lambda[j] = lambda[j - 1];
            lambda[j - 1] = t;
            for (int r = 0; r < m; r++) {
                t = v[r * m + j];
                v[r * m + j] = v[r * m + j - 1];
                v[r * m + j - 1] = t;
            }
        }
}

int rate_recycle_refresh(datum_ctx *ctx, rate_recycle *rc, const rate_matrix *a,
                         const double *weight, const uint8_t *active)
{
    int k = rc->on ? rc->k : 0, m = rc->m, dim = k + m;
    rc->on = 0;
    rc->m = 0;
    if (!rc->z || dim == 0) return DATUM_OK;
    size_t n = rc->n;
    const double *w[RATE_RECYCLE_VECTORS + RATE_RECYCLE_DIRECTIONS];
    const double *aw[RATE_RECYCLE_VECTORS + RATE_RECYCLE_DIRECTIONS];
    for (int i = 0; i < k; i++) {
        w[i] = rc->z + (size_t)i * n;
        aw[i] = rc->az + (size_t)i * n;
    }
    for (int i = 0; i < m; i++) {
        w[k + i] = rc->p + (size_t)i * n;
        aw[k + i] = rc->q + (size_t)i * n;
    }
    size_t dd = (size_t)dim * dim;
    double *g = datum_malloc(ctx, 5 * dd + 2 * (size_t)dim, sizeof *g);
    double *fresh = datum_malloc(ctx, 2 * (size_t)RATE_RECYCLE_VECTORS * n, sizeof *fresh);
    if (!g || !fresh) {
        datum_free(g);
        datum_free(fresh);
        return DATUM_E_NOMEM;
    }
    double dbg_t0 = rate_now();
    double *h = g + dd, *v = h + dd, *b = v + dd, *u = b + dd, *lambda = u + dd,
           *theta = lambda + dim;
    /* G = W'AW and H = W'DW (D = diag W, Jacobi's), by tiles of pairs so
     * that W and A W are read once. W vanishes off the unknowns. */
    memset(g, 0, 2 * dd * sizeof *g);
    for (uint32_t j0 = 0; j0 < rc->n; j0 += RECYCLE_TILE) {
        uint32_t j1 = rc->n - j0 < RECYCLE_TILE ? rc->n : j0 + RECYCLE_TILE;
        for (int x = 0; x < dim; x++) {
            const double *wx = w[x], *ax = aw[x];
            for (int y = 0; y <= x; y++) {
                const double *wy = w[y], *ay = aw[y];
                double sg = 0, sh = 0;
                for (uint32_t j = j0; j < j1; j++) {
                    sg += wx[j] * ay[j] + wy[j] * ax[j];
                    sh += weight[j] * wx[j] * wy[j];
                }
                g[x * dim + y] += sg;
                h[x * dim + y] += sh;
            }
        }
    }
    for (int x = 0; x < dim; x++)
        for (int y = 0; y <= x; y++) {
            g[x * dim + y] *= 0.5;
            g[y * dim + x] = g[x * dim + y];
            h[y * dim + x] = h[x * dim + y];
        }
    /* B = V Lambda^-1/2 over H's eigenvalues that are not rounding: a
     * D-orthonormal basis of span W, then the Ritz problem B'GB. */
    eigen_sorted(dim, h, v, lambda);
    double top = lambda[dim - 1];
    int r = 0;
    for (int i = dim - 1; i >= 0 && top > 0; i--) {
        if (!(lambda[i] > 1e-12 * top)) break;
        for (int row = 0; row < dim; row++) b[row * dim + r] = v[row * dim + i] / sqrt(lambda[i]);
        r++;
    }
    /* t = B'GB (r x r), in h's room */
    for (int x = 0; x < r; x++)
        for (int y = 0; y <= x; y++) {
            double sum = 0;
            for (int i = 0; i < dim; i++) {
                double gi = 0;
                for (int l = 0; l < dim; l++) gi += g[i * dim + l] * b[l * dim + y];
                sum += b[i * dim + x] * gi;
            }
            h[x * r + y] = h[y * r + x] = sum;
        }
    int keep = 0;
    if (r > 0) {
        eigen_sorted(r, h, u, theta);
        keep = r < RATE_RECYCLE_VECTORS ? r : RATE_RECYCLE_VECTORS;
    }
    /* The Ritz vectors of smallest values: Z = W B U_keep, A Z = (A W) B U_keep. */
    double *coef = g; /* dim x keep, in g's room (dd >= dim * keep) */
    for (int i = 0; i < dim; i++)
        for (int c = 0; c < keep; c++) {
            double sum = 0;
            for (int l = 0; l < r; l++) sum += b[i * dim + l] * u[l * r + c];
            coef[i * keep + c] = sum;
        }
    memset(fresh, 0, 2 * (size_t)keep * n * sizeof *fresh);
    for (uint32_t j0 = 0; j0 < rc->n; j0 += RECYCLE_TILE) {
        uint32_t j1 = rc->n - j0 < RECYCLE_TILE ? rc->n : j0 + RECYCLE_TILE;
        for (int c = 0; c < keep; c++) {
            double *zc = fresh + (size_t)c * n, *ac = fresh + (size_t)(keep + c) * n;
            for (int i = 0; i < dim; i++) {
                double f = coef[i * keep + c];
                const double *wi = w[i], *ai = aw[i];
                for (uint32_t j = j0; j < j1; j++) {
                    zc[j] += f * wi[j];
                    ac[j] += f * ai[j];
                }
            }
        }
    }
    if (getenv("DBG_RR")) {
        fprintf(stderr, "RR dim %d (k %d m %d) r %d keep %d %.3f s theta:", dim, k, m, r, keep, rate_now() - dbg_t0);
        for (int i = 0; i < r && i < 40; i++) fprintf(stderr, " %.3g", theta[i]);
        fprintf(stderr, "\n");
    }
    memcpy(rc->z, fresh, (size_t)keep * n * sizeof *fresh);
    memcpy(rc->az, fresh + (size_t)keep * n, (size_t)keep * n * sizeof *fresh);
    rc->k = keep;
    /* The directions' products are A's over the unknowns only: the other
     * rows of A Z (pins, which may be unknowns again later) from A itself. */
    uint8_t *off = datum_malloc(ctx, n ? n : 1, 1);
    if (!off) rc->k = 0; /* no deflation rather than a wrong one */
    for (uint32_t j = 0; off && j < rc->n; j++) off[j] = !active[j];
    if (off) rows_from(rc, a, off);
    datum_free(off);
    datum_free(g);
    datum_free(fresh);
    return DATUM_OK;
}
