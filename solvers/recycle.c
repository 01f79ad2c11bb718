/*
 * recycle.c - deflation vectors recycled from one date of a rating history
 * to the next (docs/methods.md, "Rating history").
 *
 * Jacobi's D^-1 A on a federation has a few eigenvalues far below the rest
 * (decade, default mixing: about ten near 0.02 in the first year, twenty
 * below 0.15 by the tenth, then a gap to 0.4 and the rest up to 1.1): the
 * offsets between regions and eras, whose pairs meet the others' only
 * through visitors and congresses. They cost conjugate gradients most of
 * their iterations. Deflated CG (Saad, Yeung, Erhel, Guyomarc'h 2000) keeps
 * the residual orthogonal to a space Z and the directions A-orthogonal to
 * it: the iterations then see the spectrum without the eigenvalues Z holds.
 * From one date to the next these modes barely change, so Z is taken from
 * the solves already made: after a solve, a Rayleigh-Ritz step over Z and
 * the solve's first directions P (A P is at hand: no extra product with A)
 * keeps the RATE_RECYCLE_VECTORS Ritz vectors of smallest value. A Z is
 * carried along: A(T_k) = c A(T_{k-1}) + the period's matrix, so it is
 * updated with the period's matrix alone. Z only steers the iterations: the
 * stopping rule is the true residual's, as without it.
 *
 * The sums over pairs go by a fixed partition into chunks of pairs, each
 * chunk's partial sum on one thread, the partials added in chunk order; the
 * loops over pairs that sum nothing across pairs are split any way: the
 * same bits for any thread count.
 */
#include "datum_simd.h"
#include "rate_internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* The loops over a pair's K values, compiled for AVX2 (four doubles an
 * instruction) beside any x86-64 (two): datum_simd.h. */

/* Pairs per tile of the Rayleigh-Ritz step: its vectors' slices stay in cache. */
#define RECYCLE_TILE 256
/* At most one deflation vector per this many unknowns. */
#define RECYCLE_UNKNOWNS_PER_VECTOR 16
/* Pairs per chunk of a sum over pairs (a multiple of RECYCLE_TILE). */
#define RECYCLE_CHUNK 4096

static uint32_t chunks_of(uint32_t n) { return (n + RECYCLE_CHUNK - 1) / RECYCLE_CHUNK; }

static uint32_t chunk_end(uint32_t c, uint32_t n)
{
    return n - c * RECYCLE_CHUNK < RECYCLE_CHUNK ? n : (c + 1) * RECYCLE_CHUNK;
}

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
    rc->gone = datum_malloc(ctx, len, 1);
    rc->threads = datum_ctx_threads(ctx);
    rc->part = datum_malloc(ctx, (size_t)(chunks_of(n) + 1) * RATE_RECYCLE_VECTORS * RATE_RECYCLE_VECTORS,
                            sizeof *rc->part);
    if (!rc->z || !rc->az || !rc->p || !rc->q || !rc->e || !rc->gone || !rc->part) {
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
    datum_free(rc->gone);
    datum_free(rc->part);
    memset(rc, 0, sizeof *rc);
}

#define K RATE_RECYCLE_VECTORS

DATUM_AVX2_CLONES
void rate_recycle_update(rate_recycle *rc, double scale, const rate_matrix *delta)
{
    if (!rc->z || rc->k == 0) return;
    int k = rc->k;
    for (size_t e = 0; e < (size_t)rc->n * K; e++) rc->az[e] *= scale;
    /* delta Z, delta stored above its diagonal: each entry d_ij (i <= j)
     * adds d_ij z_i to row j and, off the diagonal, d_ij z_j to row i. */
    for (uint32_t j = 0; j < rc->n && j < delta->n; j++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(delta, j, &row, &val);
        double *azj = rc->az + (size_t)j * K;
        const double *zj = rc->z + (size_t)j * K;
        for (uint64_t e = 0; e < len; e++) {
            uint32_t i = (uint32_t)row[e];
            const double *zi = rc->z + (size_t)i * K;
            double v = val[e];
            for (int b = 0; b < k; b++) azj[b] += v * zi[b];
            if (i == j) continue;
            double *azi = rc->az + (size_t)i * K;
            for (int b = 0; b < k; b++) azi[b] += v * zj[b];
        }
    }
}

/* part += Z'(A Z) over pairs j0 .. j1-1 (k x k, row-major). */
DATUM_AVX2_CLONES
static void gram_rows(const rate_recycle *rc, uint32_t j0, uint32_t j1, int k, double *part)
{
    for (uint32_t j = j0; j < j1; j++) {
        const double *zj = rc->z + (size_t)j * K, *azj = rc->az + (size_t)j * K;
        for (int x = 0; x < k; x++)
            for (int y = 0; y < k; y++) part[x * k + y] += zj[x] * azj[y];
    }
}

int rate_recycle_begin(rate_recycle *rc, const rate_matrix *a, const uint8_t *active)
{
    rc->on = 0;
    rc->m = 0;
    if (!rc->z || rc->k == 0) return 0;
    int k = rc->k;
    /* Z must vanish off the unknowns: a pair pinned since (or left to the
     * dense path) takes its share out of A Z, from its column of A (above
     * the diagonal: its stored column; below: its row in the later ones),
     * all of them in one pass over A. */
    uint8_t *gone = rc->gone;
    int any_gone = 0;
    for (uint32_t j = 0; j < rc->n; j++) {
        const double *zj = rc->z + (size_t)j * K;
        int any = 0;
        for (int b = 0; b < k; b++) any |= zj[b] != 0;
        gone[j] = !active[j] && any;
        any_gone |= gone[j];
    }
    for (uint32_t j = 0; any_gone && j < rc->n && j < a->n; j++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        const double *zj = rc->z + (size_t)j * K;
        double *azj = rc->az + (size_t)j * K;
        for (uint64_t e = 0; e < len; e++) {
            uint32_t i = (uint32_t)row[e];
            if (gone[j]) { /* a_ij z_j out of row i */
                double *az = rc->az + (size_t)i * K;
                for (int b = 0; b < k; b++) az[b] -= val[e] * zj[b];
            }
            if (i != j && gone[i]) { /* a_ji z_i out of row j */
                const double *zi = rc->z + (size_t)i * K;
                for (int b = 0; b < k; b++) azj[b] -= val[e] * zi[b];
            }
        }
    }
    for (uint32_t j = 0; any_gone && j < rc->n; j++)
        if (gone[j])
            for (int b = 0; b < k; b++) rc->z[(size_t)j * K + b] = 0;
    /* Z'AZ over the unknowns (Z vanishes elsewhere), then its Cholesky factor. */
    double *e = rc->e;
    uint32_t chunks = chunks_of(rc->n);
#pragma omp parallel for num_threads(rc->threads) schedule(static)
    for (uint32_t c = 0; c < chunks; c++) {
        double *part = rc->part + (size_t)c * K * K;
        memset(part, 0, (size_t)k * k * sizeof *part);
        gram_rows(rc, c * RECYCLE_CHUNK, chunk_end(c, rc->n), k, part);
    }
    memset(e, 0, (size_t)k * k * sizeof *e);
    for (uint32_t c = 0; c < chunks; c++)
        for (int x = 0; x < k * k; x++) e[x] += rc->part[(size_t)c * K * K + x];
    for (int x = 0; x < k; x++)
        for (int y = 0; y < x; y++) e[x * k + y] = e[y * k + x] = 0.5 * (e[x * k + y] + e[y * k + x]);
    if (rate_cholesky(k, e) != 0) { /* Z no longer independent on these unknowns: none */
        rc->k = 0;
        return 0;
    }
    rc->on = 1;
    return k;
}

/* part += V'v over pairs j0 .. j1-1 (V by pairs, k values used). */
DATUM_AVX2_CLONES
static void sum_rows(const double *basis, const double *v, uint32_t j0, uint32_t j1, int k,
                     double *part)
{
    for (uint32_t j = j0; j < j1; j++) {
        const double *bj = basis + (size_t)j * K;
        double vj = v[j];
        for (int b = 0; b < k; b++) part[b] += bj[b] * vj;
    }
}

/* mu = (Z'AZ)^-1 (V'v), V = Z or A Z (rows by pairs), v zero off the unknowns. */
static void coefficients(const rate_recycle *rc, const double *basis, const double *v, double *mu)
{
    int k = rc->k;
    uint32_t chunks = chunks_of(rc->n);
#pragma omp parallel for num_threads(rc->threads) schedule(static)
    for (uint32_t c = 0; c < chunks; c++) {
        double *part = rc->part + (size_t)c * K;
        for (int b = 0; b < k; b++) part[b] = 0;
        sum_rows(basis, v, c * RECYCLE_CHUNK, chunk_end(c, rc->n), k, part);
    }
    for (int b = 0; b < k; b++) mu[b] = 0;
    for (uint32_t c = 0; c < chunks; c++)
        for (int b = 0; b < k; b++) mu[b] += rc->part[(size_t)c * K + b];
    rate_cholesky_solve(k, rc->e, mu);
}

/* Z mu at pair j, in four running sums (one would chain every addition). */
static inline double combine(const double *zj, const double *mu, int k)
{
    double sum[4] = {0, 0, 0, 0};
    int b = 0;
    for (; b + 4 <= k; b += 4)
        for (int l = 0; l < 4; l++) sum[l] += zj[b + l] * mu[b + l];
    for (; b < k; b++) sum[b % 4] += zj[b] * mu[b];
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

/* x += Z mu and r -= A Z mu (x may be NULL: r -= Z mu) over pairs j0 .. j1-1
 * with active[j] (all if NULL). */
DATUM_AVX2_CLONES
static void combine_rows(const double *z, const double *az, const double *mu, int k,
                         const uint8_t *active, uint32_t j0, uint32_t j1, double *x, double *r)
{
    for (uint32_t j = j0; j < j1; j++) {
        if (active && !active[j]) continue;
        if (x) x[j] += combine(z + (size_t)j * K, mu, k);
        r[j] -= combine(az + (size_t)j * K, mu, k);
    }
}

void rate_recycle_correct(const rate_recycle *rc, const uint8_t *active, double *x, double *r)
{
    double mu[K];
    if (!rc->on) return;
    coefficients(rc, rc->z, r, mu);
    uint32_t chunks = chunks_of(rc->n);
#pragma omp parallel for num_threads(rc->threads) schedule(static)
    for (uint32_t c = 0; c < chunks; c++)
        combine_rows(rc->z, rc->az, mu, rc->k, active, c * RECYCLE_CHUNK, chunk_end(c, rc->n), x, r);
}

void rate_recycle_project(const rate_recycle *rc, const uint8_t *active, const double *z,
                          double *p)
{
    double mu[K];
    (void)active; /* Z vanishes off the unknowns */
    if (!rc->on) return;
    coefficients(rc, rc->az, z, mu);
    uint32_t chunks = chunks_of(rc->n);
#pragma omp parallel for num_threads(rc->threads) schedule(static)
    for (uint32_t c = 0; c < chunks; c++)
        combine_rows(NULL, rc->z, mu, rc->k, NULL, c * RECYCLE_CHUNK, chunk_end(c, rc->n), NULL, p);
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

/* Rows j0 .. j0+len-1 of W = [Z P] and of A W = [AZ AP] into wt, at
 * (len x (k + m), row-major). */
static void gather_tile(const rate_recycle *rc, int k, int m, uint32_t j0, uint32_t len,
                        double *wt, double *at)
{
    int dim = k + m;
    for (uint32_t t = 0; t < len; t++) {
        memcpy(wt + (size_t)t * dim, rc->z + (size_t)(j0 + t) * K, (size_t)k * sizeof *wt);
        memcpy(at + (size_t)t * dim, rc->az + (size_t)(j0 + t) * K, (size_t)k * sizeof *at);
    }
    for (int i = 0; i < m; i++) {
        const double *p = rc->p + (size_t)i * rc->n + j0, *q = rc->q + (size_t)i * rc->n + j0;
        for (uint32_t t = 0; t < len; t++) {
            wt[(size_t)t * dim + k + i] = p[t];
            at[(size_t)t * dim + k + i] = q[t];
        }
    }
}

/* The lower triangles of G += W'AW (both halves of each product, halved
 * later) and H += W'DW over a tile of len pairs (rows of wt, at; d: their
 * weights). */
DATUM_AVX2_CLONES
static void gram_tile(const double *wt, const double *at, const double *d, uint32_t len,
                      int dim, double *gc, double *hc)
{
    for (uint32_t t = 0; t < len; t++) {
        const double *wj = wt + (size_t)t * dim, *aj = at + (size_t)t * dim;
        for (int x = 0; x < dim; x++) {
            double wx = wj[x], ax = aj[x], dwx = d[t] * wx;
            double *gx = gc + (size_t)x * dim, *hx = hc + (size_t)x * dim;
            for (int y = 0; y <= x; y++) {
                gx[y] += wx * aj[y] + wj[y] * ax;
                hx[y] += dwx * wj[y];
            }
        }
    }
}

/* Z = W C and A Z = (A W) C over a tile of len pairs (C: dim x keep). */
DATUM_AVX2_CLONES
static void ritz_tile(const double *wt, const double *at, const double *coef, uint32_t len,
                      int dim, int keep, double *z, double *az)
{
    for (uint32_t t = 0; t < len; t++) {
        const double *wj = wt + (size_t)t * dim, *aj = at + (size_t)t * dim;
        double *zj = z + (size_t)t * K, *azj = az + (size_t)t * K;
        for (int c = 0; c < keep; c++) zj[c] = azj[c] = 0;
        for (int i = 0; i < dim; i++) {
            const double *ci = coef + (size_t)i * keep;
            for (int c = 0; c < keep; c++) {
                zj[c] += wj[i] * ci[c];
                azj[c] += aj[i] * ci[c];
            }
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
    size_t dd = (size_t)dim * dim, tiles = 2 * (size_t)RECYCLE_TILE * dim;
    uint32_t chunks = chunks_of(rc->n);
    int threads = rc->threads;
    double *g = datum_calloc(ctx, 6 * dd + 2 * (size_t)dim + (size_t)threads * tiles + 2 * dd * chunks,
                             sizeof *g);
    if (!g) return DATUM_E_NOMEM;
    double *h = g + dd, *v = h + dd, *b = v + dd, *u = b + dd, *coef = u + dd,
           *lambda = coef + dd, *theta = lambda + dim, *scratch = theta + dim,
           *partial = scratch + (size_t)threads * tiles;
    /* G = W'AW and H = W'DW (lower triangles; D = diag W, Jacobi's) with
     * W = [Z P], by tiles of pairs gathered as rows, a partial G and H per
     * chunk. W vanishes off the unknowns. */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t c = 0; c < chunks; c++) {
        double *wt = scratch + (size_t)omp_get_thread_num() * tiles, *at = wt + tiles / 2;
        double *gc = partial + 2 * dd * c, *hc = gc + dd;
        for (uint32_t j0 = c * RECYCLE_CHUNK, end = chunk_end(c, rc->n); j0 < end; j0 += RECYCLE_TILE) {
            uint32_t len = end - j0 < RECYCLE_TILE ? end - j0 : RECYCLE_TILE;
            gather_tile(rc, k, m, j0, len, wt, at);
            gram_tile(wt, at, weight + j0, len, dim, gc, hc);
        }
    }
    for (uint32_t c = 0; c < chunks; c++)
        for (size_t e = 0; e < dd; e++) {
            g[e] += partial[2 * dd * c + e];
            h[e] += partial[2 * dd * c + dd + e];
        }
    for (int x = 0; x < dim; x++)
        for (int y = 0; y <= x; y++) {
            g[x * dim + y] *= 0.5;
            g[y * dim + x] = g[x * dim + y];
            h[y * dim + x] = h[x * dim + y];
        }
    /* B = V Lambda^-1/2 over H's eigenvalues that are not rounding: a
     * D-orthonormal basis of span W; then the Ritz problem B'GB. */
    eigen_sorted(dim, h, v, lambda);
    double top = lambda[dim - 1];
    int r = 0;
    for (int i = dim - 1; i >= 0 && top > 0; i--) {
        if (!(lambda[i] > 1e-12 * top)) break;
        for (int row = 0; row < dim; row++) b[row * dim + r] = v[row * dim + i] / sqrt(lambda[i]);
        r++;
    }
    for (int x = 0; x < r; x++) /* B'GB (r x r) into h */
        for (int y = 0; y <= x; y++) {
            double sum = 0;
            for (int i = 0; i < dim; i++) {
                double gi = 0;
                for (int l = 0; l < dim; l++) gi += g[i * dim + l] * b[l * dim + y];
                sum += b[i * dim + x] * gi;
            }
            h[x * r + y] = h[y * r + x] = sum;
        }
    /* Deflating more than a small share of the unknowns would be a dense
     * solve in disguise (and Z'AZ as ill-conditioned as A). */
    uint32_t unknowns = 0;
    for (uint32_t j = 0; j < rc->n; j++) unknowns += active[j];
    int keep = 0;
    if (r > 0) {
        eigen_sorted(r, h, u, theta);
        keep = r < K ? r : K;
        if ((uint32_t)keep > unknowns / RECYCLE_UNKNOWNS_PER_VECTOR)
            keep = (int)(unknowns / RECYCLE_UNKNOWNS_PER_VECTOR);
    }
    /* The Ritz vectors of smallest values: Z = W C, A Z = (A W) C with
     * C = B U_keep (dim x keep). */
    for (int i = 0; i < dim; i++)
        for (int c = 0; c < keep; c++) {
            double sum = 0;
            for (int l = 0; l < r; l++) sum += b[i * dim + l] * u[l * r + c];
            coef[i * keep + c] = sum;
        }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t j0 = 0; j0 < rc->n; j0 += RECYCLE_TILE) {
        uint32_t len = rc->n - j0 < RECYCLE_TILE ? rc->n - j0 : RECYCLE_TILE;
        double *wt = scratch + (size_t)omp_get_thread_num() * tiles, *at = wt + tiles / 2;
        gather_tile(rc, k, m, j0, len, wt, at);
        ritz_tile(wt, at, coef, len, dim, keep, rc->z + (size_t)j0 * K, rc->az + (size_t)j0 * K);
    }
    rc->k = keep;
    /* The directions' products are A's over the unknowns only: the other
     * rows of A Z (pins, which may be unknowns at a later date) from A. */
    for (uint32_t j = 0; j < rc->n; j++) rc->gone[j] = !active[j];
    rate_matrix_rows_times(a, rc->gone, rc->z, keep, K, rc->az);
    datum_free(g);
    return DATUM_OK;
}
