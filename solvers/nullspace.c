/*
 * nullspace.c - the null space of A over the components solved sparsely:
 * projections (Euclidean for r_c, board-weighted for the final rating) and
 * the gauge (vanish at the pins).
 *
 * The structural vectors are the indicator 1_C of every opponent component C
 * and, for every fixed-direction group g, s_g = sum_{C in g} s_C. Indicators
 * have disjoint supports, so do groups, and each component is in at most one
 * group: the Gram matrix [D1 M; M' D2] has diagonal D1, D2 and a Schur
 * complement D2 - M' D1^-1 M that is diagonal too, so projecting costs O(n)
 * and needs no matrix. For a group, d_C^2 - m_C^2 = 4 NS_C EW_C > 0 keeps the
 * Schur complement away from 0. The numerical null vectors, few, are
 * orthonormalised against the structure and each other (twice, for
 * stability) once for each inner product.
 */
#include "rate_internal.h"

#include <math.h>
#include <string.h>

int rate_null_init(datum_ctx *ctx, rate_null *z, const rate_structure *s, const double *weight)
{
    memset(z, 0, sizeof *z);
    z->s = s;
    z->weight = weight;
    z->work = datum_malloc(ctx, 3 * ((size_t)s->n_ocomp + s->n_group) + 1, sizeof *z->work);
    return z->work ? DATUM_OK : DATUM_E_NOMEM;
}

static int sparse_pair(const rate_structure *s, uint32_t j)
{
    return s->acomp[j] >= 0 && !s->acomp_dense[s->acomp[j]];
}

/* x -= its projection on the structural null vectors, for the inner product
 * with weights m (1 if m is NULL). */
static void remove_structural(const rate_null *z, const double *m, double *x)
{
    const rate_structure *s = z->s;
    uint32_t no = s->n_ocomp, ng = s->n_group;
    double *d = z->work, *a = d + no, *mm = a + no;
    double *b = mm + no, *num = b + ng, *den = num + ng;
    memset(z->work, 0, (3 * (size_t)no + 3 * ng) * sizeof *z->work);
    for (uint32_t j = 0; j < s->n; j++) {
        if (!sparse_pair(s, j)) continue;
        int32_t c = s->ocomp[j], g = s->ogroup[c];
        double w = m ? m[j] : 1.0;
        d[c] += w;
        a[c] += w * x[j];
        if (g >= 0) {
            mm[c] += w * s->sign[j];
            b[g] += w * s->sign[j] * x[j];
        }
    }
    for (uint32_t c = 0; c < no; c++) { /* the Schur complement of each group */
        int32_t g = s->ogroup[c];
        if (g < 0 || d[c] == 0) continue;
        num[g] += mm[c] * a[c] / d[c];
        den[g] += d[c] - mm[c] * mm[c] / d[c];
    }
    for (uint32_t g = 0; g < ng; g++) b[g] = den[g] > 0 ? (b[g] - num[g]) / den[g] : 0; /* beta */
    for (uint32_t c = 0; c < no; c++) { /* alpha, into a */
        int32_t g = s->ogroup[c];
        if (d[c] > 0) a[c] = (a[c] - (g >= 0 ? mm[c] * b[g] : 0)) / d[c];
    }
    for (uint32_t j = 0; j < s->n; j++) {
        if (!sparse_pair(s, j)) continue;
        int32_t c = s->ocomp[j], g = s->ogroup[c];
        x[j] -= a[c] + (g >= 0 ? b[g] * s->sign[j] : 0);
    }
}

static double inner(const rate_null *z, const double *m, const double *x, const double *y)
{
    double sum = 0;
    for (uint32_t j = 0; j < z->s->n; j++) sum += (m ? m[j] : 1.0) * x[j] * y[j];
    return sum;
}

static void remove_with(const rate_null *z, int weighted, uint32_t n_extra, double *x)
{
    const double *m = weighted ? z->weight : NULL;
    remove_structural(z, m, x);
    for (uint32_t k = 0; k < n_extra; k++) {
        const double *q = z->ortho[weighted][k];
        double c = inner(z, m, q, x);
        for (uint32_t j = 0; j < z->s->n; j++) x[j] -= c * q[j];
    }
}

void rate_null_remove(const rate_null *z, int weighted, double *x)
{
    remove_with(z, weighted, z->n_extra, x);
}

int rate_null_add(datum_ctx *ctx, rate_null *z, const double *v, int32_t pin)
{
    uint32_t n = z->s->n, k = z->n_extra;
    size_t cap = z->extra_cap;
    void *arrays[] = {&z->extra, &z->extra_pin, &z->ortho[0], &z->ortho[1]};
    size_t sizes[] = {sizeof *z->extra, sizeof *z->extra_pin, sizeof *z->ortho[0],
                      sizeof *z->ortho[1]};
    if (datum_reserve_all(ctx, &cap, k + 1, 4, arrays, sizes) != DATUM_OK) return DATUM_E_NOMEM;
    z->extra_cap = cap;
    double *raw = datum_malloc(ctx, n, sizeof *raw);
    double *q0 = datum_malloc(ctx, n, sizeof *q0), *q1 = datum_malloc(ctx, n, sizeof *q1);
    if (!raw || !q0 || !q1) {
        datum_free(raw); datum_free(q0); datum_free(q1);
        return DATUM_E_NOMEM;
    }
    memcpy(raw, v, n * sizeof *raw);
    double *q[2] = {q0, q1};
    for (int w = 0; w < 2; w++) {
        const double *m = w ? z->weight : NULL;
        memcpy(q[w], v, n * sizeof *v);
        double before = sqrt(inner(z, m, q[w], q[w]));
        remove_with(z, w, k, q[w]);
        remove_with(z, w, k, q[w]);
        double after = sqrt(inner(z, m, q[w], q[w]));
        if (!(after > 1e-8 * before)) { /* already in the span */
            datum_free(raw); datum_free(q0); datum_free(q1);
            return DATUM_W_EMPTY;
        }
        for (uint32_t j = 0; j < n; j++) q[w][j] /= after;
    }
    z->extra[k] = raw;
    z->extra_pin[k] = pin;
    z->ortho[0][k] = q0;
    z->ortho[1][k] = q1;
    z->n_extra = k + 1;
    return DATUM_OK;
}

void rate_null_gauge(const rate_null *z, double *x)
{
    const rate_structure *s = z->s;
    double *beta = z->work; /* per group */
    for (uint32_t g = 0; g < s->n_group; g++) {
        int32_t c = s->gfirst[g], p0 = s->opin[c], q = s->gpin[g];
        beta[g] = (p0 >= 0 && q >= 0) ? (x[p0] - x[q]) / (2.0 * s->sign[p0]) : 0;
    }
    double *alpha = beta + s->n_group; /* per opponent component */
    for (uint32_t c = 0; c < s->n_ocomp; c++) {
        int32_t p0 = s->opin[c], g = s->ogroup[c];
        alpha[c] = p0 < 0 ? 0 : x[p0] - (g >= 0 ? beta[g] * s->sign[p0] : 0);
    }
    for (uint32_t j = 0; j < s->n; j++) {
        if (!sparse_pair(s, j)) continue;
        int32_t c = s->ocomp[j], g = s->ogroup[c];
        x[j] -= alpha[c] + (g >= 0 ? beta[g] * s->sign[j] : 0);
    }
    /* Each numerical vector is 1 at its pin and 0 at every other pin. */
    for (uint32_t k = 0; k < z->n_extra; k++) {
        double c = x[z->extra_pin[k]];
        for (uint32_t j = 0; j < s->n; j++) x[j] -= c * z->extra[k][j];
    }
}

void rate_null_free(rate_null *z)
{
    for (uint32_t k = 0; k < z->n_extra; k++) {
        datum_free(z->extra[k]);
        datum_free(z->ortho[0][k]);
        datum_free(z->ortho[1][k]);
    }
    datum_free(z->extra); datum_free(z->extra_pin); datum_free(z->ortho[0]); datum_free(z->ortho[1]);
    datum_free(z->work);
    memset(z, 0, sizeof *z);
}
