/*
 * sparse.c - the components too large for the dense path: the gauge, then
 * CHOLMOD's supernodal Cholesky (direct) or conjugate gradients
 * preconditioned by CHOLMOD factors of diagonal blocks (iterative).
 *
 * The gauged system: every pin (one pair per opponent component, one more per
 * fixed-direction group, and any pair where a factorisation met a zero pivot)
 * is fixed at 0; the rest, A_RR y = (r_c)_R, is positive definite once every
 * null direction has a pin, and consistent because r_c is in the range of A.
 * A zero pivot (at most RATE_PIVOT_TOL of its diagonal entry: rounding can
 * leave a true zero slightly positive) gets a pin at that pair and the null
 * vector x_k = 1, x_R = -A_RR^-1 A_Rk, one solve. The rating is
 * v = y - N (N'WN)^-1 N'W y (docs/methods.md). With a ridge the gauged
 * factorisation still runs, to find the null space that r_c needs; then
 * (A + lambda W) v = r_c is solved over all the pairs, no pin, no gauge.
 *
 * CHOLMOD works on one pattern over all the pairs solved here, pins included
 * as identity rows, refilled for each system: one analysis for all of them.
 */
#include "rate_cholmod.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* A direct factor kept from one solve to the next (the history). */
struct rate_reuse {
    cholmod_common cm;
    cholmod_factor *L;      /* of the gauged A of an earlier date, pins as identity rows */
    int32_t *index;         /* per pair: its position in L, -1 if none */
    uint8_t *pin;           /* per position: a pin of that date */
    uint32_t n_pairs;
    cholmod_dense *B, *X, *Y, *E; /* solve workspace */
    int stale;              /* the next solve factorises afresh */
    int trusted;            /* skip the search for null directions (rate_reuse_trust) */
    rate_recycle recycle;   /* deflation for Jacobi CG when there is no factor */
};

int rate_reuse_create(datum_ctx *ctx, uint32_t n_pairs, rate_reuse **out)
{
    rate_reuse *r = datum_calloc(ctx, 1, sizeof *r);
    if (!r) return DATUM_E_NOMEM;
    rate_cm_start(&r->cm);
    r->n_pairs = n_pairs;
    if (rate_recycle_init(ctx, n_pairs, &r->recycle) != DATUM_OK) {
        rate_reuse_free(&r);
        return DATUM_E_NOMEM;
    }
    *out = r;
    return DATUM_OK;
}

static void reuse_drop(rate_reuse *r)
{
    cholmod_l_free_factor(&r->L, &r->cm);
    cholmod_l_free_dense(&r->B, &r->cm);
    cholmod_l_free_dense(&r->X, &r->cm);
    cholmod_l_free_dense(&r->Y, &r->cm);
    cholmod_l_free_dense(&r->E, &r->cm);
    datum_free(r->index);
    datum_free(r->pin);
    r->index = NULL;
    r->pin = NULL;
}

void rate_reuse_free(rate_reuse **r)
{
    if (!r || !*r) return;
    reuse_drop(*r);
    rate_recycle_free(&(*r)->recycle);
    cholmod_l_finish(&(*r)->cm);
    datum_free(*r);
    *r = NULL;
}

int rate_reuse_ready(const rate_reuse *r) { return r && r->L && !r->stale; }
void rate_reuse_expire(rate_reuse *r)
{
    if (r) r->stale = 1;
}

void rate_reuse_trust(rate_reuse *r, int trusted)
{
    if (r) r->trusted = trusted;
}

rate_recycle *rate_reuse_recycle(rate_reuse *r) { return r ? &r->recycle : NULL; }

/* A solve on the kept factor that needs no appearance index, no peeling. */
static int reuse_trusted(const rate_reuse *r) { return rate_reuse_ready(r) && r->trusted; }

/* The operator of the system solved, on global vectors whose inactive
 * entries are 0. */
typedef struct {
    const rate_matrix *a;
    const uint8_t *active;
    const double *shift; /* ridge * n_j, or NULL */
} operator;

static void apply(datum_ctx *ctx, const operator *op, const double *x, double *y)
{
    rate_matvec(ctx, op->a, op->active, x, y);
    if (op->shift)
        for (uint32_t j = 0; j < op->a->n; j++) y[j] += op->shift[j] * x[j];
}

/* Relative residual ||b - op x|| / ||b|| (into res). With ax (else NULL),
 * A x on every row (the pins' too; x is 0 off the active pairs) into ax, for
 * the report's residuals (solve.c): the active rows' sums are op's, bit for
 * bit (an inactive column adds only zeros to them). */
static double residual(datum_ctx *ctx, const operator *op, const double *b, const double *x,
                       double *res, double *ax)
{
    uint32_t n = op->a->n;
    if (ax) {
        rate_matvec(ctx, op->a, NULL, x, ax);
        for (uint32_t j = 0; j < n; j++)
            res[j] = op->active[j] ? b[j] - (op->shift ? ax[j] + op->shift[j] * x[j] : ax[j]) : b[j];
    } else {
        apply(ctx, op, x, res);
        for (uint32_t j = 0; j < n; j++) res[j] = b[j] - res[j];
    }
    double bn = rate_norm(n, b);
    return bn > 0 ? rate_norm(n, res) / bn : 0;
}

/* CHOLMOD's numbering of the pairs solved here: index[j] = k, pair_of[k] = j. */
typedef struct {
    int32_t *index;
    uint32_t *pair_of;
    uint32_t n;
} numbering;

static int number(datum_ctx *ctx, const uint8_t *which, uint32_t n_pairs, numbering *nb)
{
    nb->index = datum_malloc(ctx, n_pairs, sizeof *nb->index);
    nb->pair_of = datum_malloc(ctx, n_pairs, sizeof *nb->pair_of);
    if (!nb->index || !nb->pair_of) return DATUM_E_NOMEM;
    nb->n = 0;
    for (uint32_t j = 0; j < n_pairs; j++) {
        nb->index[j] = which[j] ? (int32_t)nb->n : -1;
        if (which[j]) nb->pair_of[nb->n++] = j;
    }
    return DATUM_OK;
}

/* ||A z|| / (||A||_1 ||z||) for a null vector z: how null it is. */
static double null_quality(datum_ctx *ctx, const rate_matrix *a, const double *z, double *work)
{
    rate_matvec(ctx, a, NULL, z, work);
    double zn = rate_norm(a->n, z), norm1 = zn > 0 ? rate_matrix_norm1(a) : 0;
    return zn > 0 && norm1 > 0 ? rate_norm(a->n, work) / (norm1 * zn) : 0;
}

/* Records a numerical null vector z of pin `pin`. */
static int add_null(datum_ctx *ctx, rate_sparse *sp, const double *z, int32_t pin, double *work,
                    datum_rate_stats *st)
{
    st->null_check = fmax(st->null_check, null_quality(ctx, sp->a, z, work));
    int rc = rate_null_add(ctx, &sp->null, z, pin);
    if (rc == DATUM_OK) st->null_numeric++;
    return rc < 0 ? rc : DATUM_OK;
}

/* Factorises M after a fill, then pins every zero pivot met (refactorising
 * after each, at most max_numeric). pins[] receives the positions pinned
 * (M's numbering). Returns DATUM_OK, or an error; status: CHOLMOD's, ctx
 * may be NULL inside a parallel region. */
static int factorise_pinning(datum_ctx *ctx, cholmod_sparse *M, cholmod_factor *L, int max_pins,
                             SuiteSparse_long *pins, int *n_pins, int *factorizations,
                             cholmod_common *cm)
{
    *n_pins = 0;
    for (;;) {
        cholmod_l_factorize(M, L, cm);
        ++*factorizations;
        int rc = rate_cm_check(ctx, cm, "factorising");
        if (rc != DATUM_OK) return rc;
        SuiteSparse_long minor = rate_cm_zero_pivot(L, M, RATE_PIVOT_TOL);
        if (minor >= (SuiteSparse_long)L->n) return DATUM_OK;
        if (*n_pins >= max_pins)
            return datum_ctx_fail(ctx, DATUM_E_NUMERIC,
                                  "more than %d null directions beyond the structure", max_pins);
        SuiteSparse_long k = ((SuiteSparse_long *)L->Perm)[minor];
        rate_cm_pin(M, k);
        pins[(*n_pins)++] = k;
    }
}

/* Factorises M (refilled) for the ridge system: positive definite. */
static int factorise_ridge(datum_ctx *ctx, cholmod_sparse *M, cholmod_factor *L,
                           cholmod_common *cm)
{
    cholmod_l_factorize(M, L, cm);
    int rc = rate_cm_check(ctx, cm, "factorising the ridge system");
    if (rc == DATUM_OK && rate_cm_zero_pivot(L, M, RATE_PIVOT_TOL) < (SuiteSparse_long)L->n)
        rc = datum_ctx_fail(ctx, DATUM_E_NUMERIC, "the ridge system is not positive definite");
    return rc;
}

/* Null vector of pin k of M (numbering over `pairs`, increasing, local[] the
 * inverse): x_k = 1, x = -A_RR^-1 A_Rk on the unpinned positions, 0 at pins
 * (identity rows of M). z receives it over the n positions. */
static int pin_vector(const rate_sparse *sp, cholmod_factor *L, const uint32_t *pairs,
                      const int32_t *local, SuiteSparse_long k, const uint8_t *is_pin,
                      cholmod_dense *B, double *z, cholmod_common *cm)
{
    size_t n = L->n;
    double *bx = B->x;
    memset(bx, 0, n * sizeof *bx);
    const int32_t *row;
    const double *val;
    uint64_t len = rate_column(sp->a, pairs[k], &row, &val);
    for (uint64_t e = 0; e < len; e++) { /* A_Rk above the diagonal: column k */
        int32_t i = local[row[e]];
        if (i >= 0 && !is_pin[i]) bx[i] = -val[e];
    }
    for (size_t c = (size_t)k + 1; c < n; c++) { /* below: row k of the later columns */
        if (is_pin[c]) continue;
        len = rate_column(sp->a, pairs[c], &row, &val);
        for (uint64_t e = 1; e < len; e++) /* past the diagonal */
            if ((uint32_t)row[e] == pairs[k]) bx[c] = -val[e];
    }
    cholmod_dense *X = cholmod_l_solve(CHOLMOD_A, L, B, cm);
    if (!X) return rate_cm_failed(cm);
    memcpy(z, X->x, n * sizeof *z);
    cholmod_l_free_dense(&X, cm);
    for (size_t i = 0; i < n; i++)
        if (is_pin[i]) z[i] = 0;
    z[k] = 1;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Direct                                                                   */

/* Solves M x = b for global vectors, through the numbering. */
static int factor_solve(datum_ctx *ctx, cholmod_factor *L, const numbering *nb, const double *b,
                        double *x, cholmod_common *cm)
{
    cholmod_dense *B = cholmod_l_allocate_dense(nb->n, 1, nb->n, CHOLMOD_REAL, cm);
    if (!B) return rate_cm_check(ctx, cm, "allocating a right-hand side");
    double *bx = B->x;
    for (uint32_t k = 0; k < nb->n; k++) bx[k] = b[nb->pair_of[k]];
    cholmod_dense *X = cholmod_l_solve(CHOLMOD_A, L, B, cm);
    cholmod_l_free_dense(&B, cm);
    if (!X) return rate_cm_check(ctx, cm, "solving with the factor");
    double *xx = X->x;
    for (uint32_t k = 0; k < nb->n; k++) x[nb->pair_of[k]] = xx[k];
    cholmod_l_free_dense(&X, cm);
    return DATUM_OK;
}

/* The gauged factorisation with its zero pivots, and their null vectors. */
static int direct_null_space(datum_ctx *ctx, rate_sparse *sp, cholmod_sparse *M,
                             cholmod_factor *L, const numbering *nb, datum_rate_stats *st,
                             cholmod_common *cm)
{
    uint32_t n = sp->s->n;
    int max_pins = sp->opt->max_numeric, n_pins = 0;
    SuiteSparse_long *pins = datum_malloc(ctx, (size_t)max_pins + 1, sizeof *pins);
    uint8_t *is_pin = datum_malloc(ctx, nb->n, 1);
    double *zl = datum_malloc(ctx, nb->n, sizeof *zl), *z = datum_calloc(ctx, n, sizeof *z);
    double *work = datum_malloc(ctx, n, sizeof *work);
    cholmod_dense *B = cholmod_l_allocate_dense(nb->n, 1, nb->n, CHOLMOD_REAL, cm);
    int rc = pins && is_pin && zl && z && work ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK && !B) rc = rate_cm_check(ctx, cm, "allocating a right-hand side");
    if (rc == DATUM_OK) {
        rate_cm_fill(M, datum_ctx_threads(ctx), sp->a, nb->index, nb->pair_of, NULL, sp->pinned);
        rc = factorise_pinning(ctx, M, L, max_pins, pins, &n_pins, &st->factorizations, cm);
    }
    for (int q = 0; rc == DATUM_OK && q < n_pins; q++) sp->pinned[nb->pair_of[pins[q]]] = 1;
    for (uint32_t k = 0; rc == DATUM_OK && k < nb->n; k++) is_pin[k] = sp->pinned[nb->pair_of[k]];
    for (int q = 0; rc == DATUM_OK && q < n_pins; q++) {
        if ((rc = pin_vector(sp, L, nb->pair_of, nb->index, pins[q], is_pin, B, zl, cm)) != DATUM_OK) {
            rc = rate_cm_check(ctx, cm, "solving for a null vector");
            break;
        }
        for (uint32_t k = 0; k < nb->n; k++) z[nb->pair_of[k]] = zl[k];
        rc = add_null(ctx, sp, z, (int32_t)nb->pair_of[pins[q]], work, st);
    }
    cholmod_l_free_dense(&B, cm);
    datum_free(pins); datum_free(is_pin); datum_free(zl); datum_free(z); datum_free(work);
    return rc;
}

/* The factor's ordering, in datum's names (CHOLMOD's numbers stay here). */
static datum_rate_ordering ordering_used(const cholmod_factor *L)
{
    switch (L->ordering) {
    case CHOLMOD_AMD: return DATUM_RATE_ORDER_AMD;
    case CHOLMOD_METIS: return DATUM_RATE_ORDER_METIS;
    case CHOLMOD_NESDIS: return DATUM_RATE_ORDER_NESDIS;
    case CHOLMOD_NATURAL: return DATUM_RATE_ORDER_NATURAL;
    default: return DATUM_RATE_ORDER_DEFAULT; /* GIVEN, COLAMD, POSTORDERED: never asked for */
    }
}

static int direct(datum_ctx *ctx, rate_sparse *sp, cholmod_sparse *M, cholmod_factor *L,
                  const numbering *nb, const operator *op, datum_rate_stats *st,
                  cholmod_common *cm)
{
    uint32_t n = sp->s->n;
    double t0 = rate_now();
    int rc = rate_blas_reserve(ctx, 1);
    if (rc == DATUM_OK) rc = direct_null_space(ctx, sp, M, L, nb, st, cm);
    if (rc == DATUM_OK && sp->shift) {
        rate_cm_fill(M, datum_ctx_threads(ctx), sp->a, nb->index, nb->pair_of, sp->shift, NULL);
        rc = factorise_ridge(ctx, M, L, cm);
        st->factorizations++;
    }
    st->time_factorise = rate_now() - t0;
    st->factor_nnz = cm->lnz;
    st->factor_flops = cm->fl;
    st->factor_bytes = rate_cm_factor_bytes(L);
    st->supernodal = L->is_super;
    st->ordering = ordering_used(L);
    if (rc != DATUM_OK) return rc;
    t0 = rate_now();
    for (uint32_t j = 0; j < n; j++) sp->active[j] = sp->sparse[j] && (sp->shift || !sp->pinned[j]);
    double *b = datum_calloc(ctx, n, sizeof *b), *res = datum_malloc(ctx, n, sizeof *res);
    double *dx = datum_calloc(ctx, n, sizeof *dx);
    if (!b || !res || !dx) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        rate_null_remove(&sp->null, 0, sp->rc); /* with every null direction now */
        for (uint32_t j = 0; j < n; j++) b[j] = sp->active[j] ? sp->rc[j] : 0;
        rc = factor_solve(ctx, L, nb, b, sp->y, cm);
    }
    /* Iterative refinement with the factor, when the residual asks for it. */
    for (int step = 0; rc == DATUM_OK && step < 3; step++) {
        if (residual(ctx, op, b, sp->y, res, NULL) <= 0.125 * sp->opt->tolerance) break;
        if ((rc = factor_solve(ctx, L, nb, res, dx, cm)) != DATUM_OK) break;
        for (uint32_t j = 0; j < n; j++) sp->y[j] += sp->active[j] ? dx[j] : 0;
    }
    datum_free(b); datum_free(res); datum_free(dx);
    st->time_solve = rate_now() - t0;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Iterative                                                                */

/* One diagonal block of the preconditioner. */
typedef struct {
    uint32_t n;
    uint32_t *pairs;        /* sorted */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E;
    int32_t *pins;          /* pairs pinned at a zero pivot of the block */
    double *nulls;          /* their null vectors over the block, n each */
    int n_pins, factorizations;
    int status;             /* DATUM_OK or an error code */
    double lnz, fl, bytes;
} pblock;

typedef struct {
    uint32_t n_blocks;
    pblock *blocks;
    uint32_t *pairs;        /* every block's pairs, block after block */
    double *inv_diag;       /* plain Jacobi (block size 1), or the pairs outside `reuse` */
    rate_reuse *reuse;      /* a factor of an earlier date (the history), or NULL */
    cholmod_common *cms;    /* one per thread */
    int threads;
    /* The coarse space: one unknown per block (the sum over its pairs). */
    int n_coarse;
    int32_t *coarse_of;     /* per pair: its coarse unknown, -1 if none */
    double *coarse;         /* n_coarse^2: Cholesky factor of R A R' */
    double *coarse_rhs;     /* n_coarse */
} precond;

/* Blocks: parts of a nested dissection (METIS, through CHOLMOD) of a sparse
 * graph with A's connectivity, nd_small = block size; without METIS, runs of
 * consecutive pairs. Clubs play among themselves, so blocks follow clubs; a
 * small event hanging off the rest tends to stay whole in a block, where its
 * null directions beyond the structure are found. block[k] receives the
 * block of pair number k, *n_blocks the number of blocks. DATUM_OK or
 * DATUM_E_NOMEM (recorded): running out of memory is a failure, not a reason
 * to fall back on runs. */
static int partition(datum_ctx *ctx, const rate_sparse *sp, const numbering *nb,
                     SuiteSparse_long *block, uint32_t *n_blocks, cholmod_common *cm)
{
    const datum_rate_problem *p = sp->p;
    const rate_structure *s = sp->s;
    uint32_t n = nb->n, size = (uint32_t)sp->opt->block_size;
    SuiteSparse_long *colp = datum_calloc(ctx, (size_t)n + 1, sizeof *colp);
    int32_t *mark = datum_malloc(ctx, (size_t)n + 1, sizeof *mark);
    SuiteSparse_long *rows = NULL, nnz = 0, ncomp = 0;
    size_t cap = 0;
    int rc = colp && mark ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t k = 0; rc == DATUM_OK && k < n; k++) mark[k] = -1;
    for (uint32_t k = 0; rc == DATUM_OK && k < n; k++) { /* column k: neighbours of lower number */
        uint32_t j = nb->pair_of[k];
        for (uint64_t e = s->app_off[j]; rc == DATUM_OK && e < s->app_off[j + 1]; e++) {
            /* The opponent, and the next pair on a ring through the field's
             * pairs (NS_1, EW_1, NS_2, ...): as connected as A, 2 edges a table. */
            uint32_t t = s->app_table[e], l = s->t_layout[t];
            uint64_t first = p->lay_off[l], len = 2 * (p->lay_off[l + 1] - first);
            uint64_t at = 2 * (t - first) + ((uint32_t)p->t_ns[t] == j ? 0 : 1), q = (at + 1) % len;
            int32_t near[2] = {nb->index[at % 2 ? p->t_ns[t] : p->t_ew[t]],
                               nb->index[q % 2 ? p->t_ew[first + q / 2] : p->t_ns[first + q / 2]]};
            for (int x = 0; x < 2 && rc == DATUM_OK; x++) {
                int32_t o = near[x];
                if (o < 0 || (uint32_t)o >= k || mark[o] == (int32_t)k) continue;
                mark[o] = (int32_t)k;
                rc = datum_reserve(ctx, &rows, &cap, (size_t)nnz + 1, sizeof *rows);
                if (rc == DATUM_OK) rows[nnz++] = o;
            }
        }
        colp[k + 1] = nnz;
    }
    SuiteSparse_long *perm = NULL, *cparent = NULL;
    if (rc == DATUM_OK && n <= size) { /* one block (nested dissection would still split off pieces) */
        for (uint32_t k = 0; k < n; k++) block[k] = 0;
        ncomp = 1;
    } else if (rc == DATUM_OK) {
        cholmod_sparse G = {0};
        G.nrow = G.ncol = n;
        G.nzmax = (size_t)(nnz ? nnz : 1);
        G.p = colp;
        G.i = rows ? rows : colp;
        G.stype = 1;
        G.itype = CHOLMOD_LONG;
        G.xtype = CHOLMOD_PATTERN;
        G.dtype = CHOLMOD_DOUBLE;
        G.packed = 1;
        perm = datum_malloc(ctx, n, sizeof *perm);
        cparent = datum_malloc(ctx, n, sizeof *cparent);
        rc = perm && cparent ? DATUM_OK : DATUM_E_NOMEM;
        if (rc == DATUM_OK) {
            cm->current = 0;
            cm->method[0].nd_small = size;
            cm->method[0].nd_camd = 0;       /* the parts are wanted, not the ordering */
            cm->method[0].nd_components = 1; /* split each connected part by itself */
            ncomp = cholmod_l_nested_dissection(&G, NULL, 0, perm, cparent, block, cm);
            if (ncomp <= 0 && cm->status == CHOLMOD_OUT_OF_MEMORY)
                rc = rate_cm_check(ctx, cm, "partitioning the preconditioner");
        }
    }
    if (rc == DATUM_OK && ncomp <= 0) { /* no METIS, or it failed: runs of consecutive pairs */
        for (uint32_t k = 0; k < n; k++) block[k] = k / size;
        ncomp = n ? (n - 1) / size + 1 : 0;
    }
    datum_free(colp); datum_free(mark); datum_free(rows); datum_free(perm); datum_free(cparent);
    *n_blocks = (uint32_t)ncomp;
    return rc;
}

/* Factorises block b: the gauged block first, pinning its zero pivots (their
 * null vectors are found here); with keep, the factor is kept as a block of
 * the preconditioner (with a ridge, refactorised as a block of A + lambda W),
 * else freed. local[] maps pairs to block positions (-1 elsewhere, restored
 * on return). Inside a parallel region: ctx only counts and records
 * allocations; b->status receives any failure, recorded after the region. */
static void factor_block(datum_ctx *ctx, const rate_sparse *sp, pblock *b, int keep,
                         int32_t *local, cholmod_common *cm)
{
    int max_pins = sp->opt->max_numeric;
    for (uint32_t k = 0; k < b->n; k++) local[b->pairs[k]] = (int32_t)k;
    cholmod_sparse *M = rate_cm_upper(ctx, 1, sp->a, local, b->pairs, b->n, NULL, sp->pinned, cm);
    SuiteSparse_long *pins = datum_malloc(ctx, (size_t)max_pins + 1, sizeof *pins);
    uint8_t *is_pin = datum_malloc(ctx, b->n + 1, 1);
    cholmod_dense *B = M ? cholmod_l_zeros(b->n, 1, CHOLMOD_REAL, cm) : NULL;
    b->status = M && pins && is_pin && B ? DATUM_OK : DATUM_E_NOMEM;
    if (b->status == DATUM_OK) {
        cm->nmethods = 1;
        cm->method[0].ordering = CHOLMOD_AMD;
        b->L = cholmod_l_analyze(M, cm);
        if (!b->L) b->status = rate_cm_failed(cm);
    }
    if (b->status == DATUM_OK)
        b->status = factorise_pinning(NULL, M, b->L, max_pins, pins, &b->n_pins,
                                      &b->factorizations, cm);
    b->lnz = cm->lnz;
    b->fl = cm->fl;
    if (b->status == DATUM_OK && b->n_pins > 0) {
        b->nulls = datum_malloc(ctx, (size_t)b->n_pins * b->n, sizeof *b->nulls);
        b->pins = datum_malloc(ctx, (size_t)b->n_pins, sizeof *b->pins);
        if (!b->nulls || !b->pins) b->status = DATUM_E_NOMEM;
        for (uint32_t k = 0; k < b->n; k++) is_pin[k] = sp->pinned[b->pairs[k]];
        for (int q = 0; b->status == DATUM_OK && q < b->n_pins; q++) is_pin[pins[q]] = 1;
        for (int q = 0; b->status == DATUM_OK && q < b->n_pins; q++) {
            b->status = pin_vector(sp, b->L, b->pairs, local, pins[q], is_pin, B,
                                   b->nulls + (size_t)q * b->n, cm);
            b->pins[q] = (int32_t)b->pairs[pins[q]];
        }
    }
    if (b->status == DATUM_OK && keep && sp->shift) { /* the ridge system's preconditioner */
        rate_cm_fill(M, 1, sp->a, local, b->pairs, sp->shift, NULL);
        b->status = factorise_ridge(NULL, M, b->L, cm);
        b->factorizations++;
    }
    if (b->L) b->bytes = rate_cm_factor_bytes(b->L);
    if (!keep) cholmod_l_free_factor(&b->L, cm);
    cholmod_l_free_dense(&B, cm);
    cholmod_l_free_sparse(&M, cm);
    datum_free(pins);
    datum_free(is_pin);
    for (uint32_t k = 0; k < b->n; k++) local[b->pairs[k]] = -1;
}

static int jacobi_build(datum_ctx *ctx, const rate_sparse *sp, precond *pc)
{
    uint32_t n = sp->s->n;
    pc->inv_diag = datum_calloc(ctx, n, sizeof *pc->inv_diag);
    if (!pc->inv_diag) return DATUM_E_NOMEM;
    for (uint32_t j = 0; j < n; j++) { /* diag(A) = W */
        if (sp->sparse[j]) pc->inv_diag[j] = 1 / (sp->p->n[j] + (sp->shift ? sp->shift[j] : 0));
    }
    return DATUM_OK;
}

/* Splits pairs pair_of[k] (k < n) with block[k] >= 0 into n_blocks blocks
 * (pairs in order within each); *pairs receives the storage. */
static pblock *blocks_of(datum_ctx *ctx, const uint32_t *pair_of, uint32_t n,
                         const SuiteSparse_long *block, uint32_t n_blocks, uint32_t **pairs)
{
    pblock *blocks = datum_calloc(ctx, n_blocks, sizeof *blocks);
    uint64_t *start = datum_calloc(ctx, (size_t)n_blocks + 1, sizeof *start);
    *pairs = datum_malloc(ctx, (size_t)n + 1, sizeof **pairs);
    if (!blocks || !start || !*pairs) {
        datum_free(blocks);
        datum_free(start);
        return NULL;
    }
    for (uint32_t k = 0; k < n; k++)
        if (block[k] >= 0) start[block[k] + 1]++;
    for (uint32_t b = 0; b < n_blocks; b++) {
        blocks[b].pairs = *pairs + start[b];
        start[b + 1] += start[b];
    }
    for (uint32_t k = 0; k < n; k++) {
        if (block[k] < 0) continue;
        pblock *b = &blocks[block[k]];
        b->pairs[b->n++] = pair_of[k];
    }
    datum_free(start);
    return blocks;
}

static void blocks_free(pblock *blocks, uint32_t n_blocks, cholmod_common *cm)
{
    for (uint32_t b = 0; blocks && b < n_blocks; b++) {
        pblock *k = &blocks[b];
        cholmod_l_free_factor(&k->L, cm);
        cholmod_l_free_dense(&k->B, cm);
        cholmod_l_free_dense(&k->X, cm);
        cholmod_l_free_dense(&k->Y, cm);
        cholmod_l_free_dense(&k->E, cm);
        datum_free(k->pins);
        datum_free(k->nulls);
    }
    datum_free(blocks);
}

/* Factorises the blocks in parallel, then takes their numerical null
 * vectors in block order (the same whatever thread did which block). */
static int factor_blocks(datum_ctx *ctx, rate_sparse *sp, pblock *blocks, uint32_t n_blocks,
                         int keep, const precond *pc, int32_t **local, datum_rate_stats *st)
{
    uint32_t n = sp->s->n;
    int rc = rate_blas_reserve(ctx, pc->threads);
    if (rc != DATUM_OK) return rc;
#pragma omp parallel for num_threads(pc->threads) schedule(dynamic, 1)
    for (uint32_t b = 0; b < n_blocks; b++) {
        int t = omp_get_thread_num();
        factor_block(ctx, sp, &blocks[b], keep, local[t], &pc->cms[t]);
    }
    double *z = datum_calloc(ctx, n, sizeof *z), *work = datum_malloc(ctx, n, sizeof *work);
    rc = z && work ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t b = 0; rc == DATUM_OK && b < n_blocks; b++) {
        pblock *k = &blocks[b];
        if (k->status != DATUM_OK) {
            /* Not recorded yet when CHOLMOD ran out (the allocator records its own). */
            rc = k->status == DATUM_E_NOMEM
                     ? datum_ctx_fail(ctx, DATUM_E_NOMEM,
                                      "out of memory (CHOLMOD, factorising a block of %u pairs)",
                                      k->n)
                     : datum_ctx_fail(ctx, DATUM_E_NUMERIC,
                                      "a block of %u pairs could not be factorised", k->n);
            break;
        }
        if (keep) {
            st->factor_nnz += k->lnz;
            st->factor_flops += k->fl;
            st->factor_bytes += k->bytes;
        }
        st->factorizations += k->factorizations;
        for (int q = 0; q < k->n_pins && rc == DATUM_OK; q++) {
            memset(z, 0, n * sizeof *z);
            for (uint32_t e = 0; e < k->n; e++) z[k->pairs[e]] = k->nulls[(size_t)q * k->n + e];
            sp->pinned[k->pins[q]] = 1;
            rc = add_null(ctx, sp, z, k->pins[q], work, st);
        }
    }
    datum_free(z);
    datum_free(work);
    return rc;
}

static uint32_t root_of(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* The peeled pieces (peel.c), each searched for null vectors by itself. */
static int search_peeled(datum_ctx *ctx, rate_sparse *sp, const numbering *nb, const precond *pc,
                         int32_t **local, datum_rate_stats *st)
{
    const datum_rate_problem *p = sp->p;
    uint32_t n = sp->s->n, *parent = NULL, *pairs = NULL, n_pieces = 0;
    uint8_t *peeled = datum_malloc(ctx, n, 1), *uncertified = datum_malloc(ctx, n, 1);
    SuiteSparse_long *piece = datum_malloc(ctx, (size_t)nb->n + 1, sizeof *piece);
    uint32_t open = 0;
    for (uint32_t j = 0; uncertified && j < n; j++) { /* the structure decides the others */
        uncertified[j] = sp->sparse[j] && !sp->s->acomp_certified[sp->s->acomp[j]];
        open += uncertified[j];
    }
    int rc = peeled && uncertified && piece ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK && open == 0) { /* every component certified: nothing to search */
        datum_free(uncertified);
        datum_free(peeled);
        datum_free(piece);
        st->peeled_pieces = 0;
        return DATUM_OK;
    }
    if (rc == DATUM_OK) rc = rate_peel(ctx, p, sp->s, uncertified, peeled);
    datum_free(uncertified);
    if (rc == DATUM_OK && !(parent = datum_malloc(ctx, n, sizeof *parent))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) { /* pieces: peeled pairs sharing a field (union-find) */
        for (uint32_t j = 0; j < n; j++) parent[j] = j;
        for (size_t l = 0; l < p->n_layouts; l++) {
            uint32_t first = UINT32_MAX;
            for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
                int32_t side[2] = {p->t_ns[t], p->t_ew[t]};
                for (int k = 0; k < 2; k++) {
                    if (!peeled[side[k]]) continue;
                    uint32_t j = root_of(parent, (uint32_t)side[k]);
                    if (first == UINT32_MAX) first = j;
                    else if (j != first) { /* the smaller index stays the root */
                        uint32_t lo = j < first ? j : first, hi = j < first ? first : j;
                        parent[hi] = lo;
                        first = lo;
                    }
                }
            }
        }
        for (uint32_t k = 0; k < nb->n; k++) { /* numbered in pair order: a root comes first */
            uint32_t j = nb->pair_of[k], root = peeled[j] ? root_of(parent, j) : j;
            piece[k] = !peeled[j] ? -1 : root == j ? (SuiteSparse_long)n_pieces++ : piece[nb->index[root]];
        }
    }
    pblock *pieces = NULL;
    if (rc == DATUM_OK && n_pieces > 0) {
        pieces = blocks_of(ctx, nb->pair_of, nb->n, piece, n_pieces, &pairs);
        rc = pieces ? factor_blocks(ctx, sp, pieces, n_pieces, 0, pc, local, st) : DATUM_E_NOMEM;
    }
    st->peeled_pieces = n_pieces;
    blocks_free(pieces, n_pieces, &pc->cms[0]);
    datum_free(pairs); datum_free(peeled); datum_free(piece); datum_free(parent);
    return rc;
}

static void precond_free(precond *pc)
{
    if (pc->cms) blocks_free(pc->blocks, pc->n_blocks, &pc->cms[0]);
    for (int t = 0; pc->cms && t < pc->threads; t++) cholmod_l_finish(&pc->cms[t]);
    datum_free(pc->cms);
    datum_free(pc->pairs);
    datum_free(pc->coarse_of);
    datum_free(pc->coarse);
    datum_free(pc->coarse_rhs);
    datum_free(pc->inv_diag);
    memset(pc, 0, sizeof *pc);
}

/* Builds the preconditioner, after searching the peeled pieces; the
 * numerical null directions found (in pieces or blocks) become pins. */
static int precond_build(datum_ctx *ctx, rate_sparse *sp, const numbering *nb,
                         datum_rate_stats *st, precond *pc)
{
    uint32_t n = sp->s->n;
    memset(pc, 0, sizeof *pc);
    pc->threads = datum_ctx_threads(ctx);
    pc->cms = datum_calloc(ctx, (size_t)pc->threads, sizeof *pc->cms);
    SuiteSparse_long *block = datum_malloc(ctx, (size_t)nb->n + 1, sizeof *block);
    int32_t **local = datum_calloc(ctx, (size_t)pc->threads, sizeof *local);
    int rc = pc->cms && block && local ? DATUM_OK : DATUM_E_NOMEM;
    for (int t = 0; pc->cms && t < pc->threads; t++) rate_cm_start(&pc->cms[t]);
    for (int t = 0; rc == DATUM_OK && t < pc->threads; t++) {
        if (!(local[t] = datum_malloc(ctx, n, sizeof **local))) rc = DATUM_E_NOMEM;
        else memset(local[t], 0xff, n * sizeof **local); /* -1 */
    }
    if (rc == DATUM_OK && !reuse_trusted(sp->reuse)) rc = search_peeled(ctx, sp, nb, pc, local, st);
    if (rc == DATUM_OK && rate_reuse_ready(sp->reuse)) { /* an earlier date's factor */
        st->blocks = 1;
        pc->reuse = sp->reuse;
        rc = jacobi_build(ctx, sp, pc);
    } else if (rc == DATUM_OK && sp->opt->block_size <= 1) {
        st->blocks = nb->n;
        rc = jacobi_build(ctx, sp, pc);
    } else if (rc == DATUM_OK) {
        uint32_t n_blocks = 0;
        rc = partition(ctx, sp, nb, block, &n_blocks, &pc->cms[0]);
        for (uint32_t k = 0; rc == DATUM_OK && k < nb->n; k++) /* pins stay out of the blocks */
            if (sp->pinned[nb->pair_of[k]] && !sp->shift) block[k] = -1;
        if (rc == DATUM_OK) {
            pc->n_blocks = n_blocks;
            pc->blocks = blocks_of(ctx, nb->pair_of, nb->n, block, pc->n_blocks, &pc->pairs);
            rc = pc->blocks ? factor_blocks(ctx, sp, pc->blocks, pc->n_blocks, 1, pc, local, st)
                            : DATUM_E_NOMEM;
        }
        st->blocks = n_blocks;
    }
    datum_free(block);
    for (int t = 0; local && t < pc->threads; t++) datum_free(local[t]);
    datum_free(local);
    return rc;
}

/* The coarse space of the blocks: R sums a vector over each block's active
 * pairs, A_0 = R A R' (plus the ridge) is small and dense, and the
 * preconditioner adds R' A_0^-1 R r to the blocks' solves (two-level
 * additive Schwarz): the blocks fix what is local, the coarse space the
 * offsets between blocks, which congresses alone tie together. Without
 * a positive definite A_0 the coarse space is left out. */
static int coarse_build(datum_ctx *ctx, const rate_sparse *sp, precond *pc)
{
    uint32_t n = sp->s->n;
    if (pc->n_blocks < 2 || pc->n_blocks > 20000) return DATUM_OK;
    pc->coarse_of = datum_malloc(ctx, n, sizeof *pc->coarse_of);
    if (!pc->coarse_of) return DATUM_E_NOMEM;
    memset(pc->coarse_of, 0xff, n * sizeof *pc->coarse_of); /* -1 */
    int nc = 0;
    for (uint32_t b = 0; b < pc->n_blocks; b++) {
        int used = 0;
        for (uint32_t e = 0; e < pc->blocks[b].n; e++) {
            uint32_t j = pc->blocks[b].pairs[e];
            if (!sp->active[j]) continue;
            pc->coarse_of[j] = nc;
            used = 1;
        }
        nc += used;
    }
    pc->coarse = datum_calloc(ctx, (size_t)nc * nc, sizeof *pc->coarse);
    pc->coarse_rhs = datum_malloc(ctx, (size_t)nc, sizeof *pc->coarse_rhs);
    if (!pc->coarse || !pc->coarse_rhs) return DATUM_E_NOMEM;
    for (uint32_t j = 0; j < n; j++) { /* in column order: deterministic */
        int32_t c = pc->coarse_of[j];
        if (c < 0) continue;
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(sp->a, j, &row, &val);
        for (uint64_t e = 0; e < len; e++) { /* a_ij and, below the diagonal, a_ji */
            int32_t i = pc->coarse_of[row[e]];
            if (i < 0) continue;
            pc->coarse[(size_t)i * nc + c] += val[e];
            if ((uint32_t)row[e] != j) pc->coarse[(size_t)c * nc + i] += val[e];
        }
        if (sp->shift) pc->coarse[(size_t)c * nc + c] += sp->shift[j];
    }
    if (rate_cholesky(nc, pc->coarse) == 0) pc->n_coarse = nc;
    return DATUM_OK;
}

/* z = M^-1 r with an earlier date's factor: its solve on the pairs it holds
 * unpinned (a principal block of an SPD inverse), Jacobi on the others
 * (pairs new since, or pinned then): SPD. */
static int reuse_apply(datum_ctx *ctx, const precond *pc, const uint8_t *active, uint32_t n,
                       const double *r, double *z)
{
    rate_reuse *u = pc->reuse;
    size_t m = u->L->n;
    if (!u->B && !(u->B = cholmod_l_zeros(m, 1, CHOLMOD_REAL, &u->cm)))
        return rate_cm_check(ctx, &u->cm, "allocating a right-hand side");
    double *bx = u->B->x;
    memset(bx, 0, m * sizeof *bx);
    for (uint32_t j = 0; j < n; j++) {
        int32_t k = u->index[j];
        if (active[j] && k >= 0 && !u->pin[k]) bx[k] = r[j];
    }
    if (!cholmod_l_solve2(CHOLMOD_A, u->L, u->B, NULL, &u->X, NULL, &u->Y, &u->E, &u->cm))
        return rate_cm_check(ctx, &u->cm, "applying the earlier factor");
    const double *xx = u->X->x;
    for (uint32_t j = 0; j < n; j++) {
        int32_t k = u->index[j];
        z[j] = !active[j] ? 0 : k >= 0 && !u->pin[k] ? xx[k] : pc->inv_diag[j] * r[j];
    }
    return DATUM_OK;
}

/* z = M^-1 r (inactive entries 0). DATUM_OK, or the failure of CHOLMOD in
 * the first block (in block order) that failed, recorded in ctx. */
static int precond_apply(datum_ctx *ctx, const precond *pc, const uint8_t *active, uint32_t n,
                         const double *r, double *z)
{
    if (pc->reuse) return reuse_apply(ctx, pc, active, n, r, z);
    if (pc->inv_diag) {
        for (uint32_t j = 0; j < n; j++) z[j] = active[j] ? pc->inv_diag[j] * r[j] : 0;
        return DATUM_OK;
    }
    int failed = 0;
#pragma omp parallel for num_threads(pc->threads) schedule(dynamic, 1) reduction(| : failed)
    for (uint32_t b = 0; b < pc->n_blocks; b++) {
        pblock *k = &pc->blocks[b];
        cholmod_common *cm = &pc->cms[omp_get_thread_num()];
        int ok = k->B || (k->B = cholmod_l_zeros(k->n, 1, CHOLMOD_REAL, cm));
        double *bx = ok ? k->B->x : NULL;
        for (uint32_t e = 0; ok && e < k->n; e++) bx[e] = active[k->pairs[e]] ? r[k->pairs[e]] : 0;
        if (!ok || !cholmod_l_solve2(CHOLMOD_A, k->L, k->B, NULL, &k->X, NULL, &k->Y, &k->E, cm)) {
            k->status = rate_cm_failed(cm);
            failed = 1;
            continue;
        }
        const double *xx = k->X->x;
        for (uint32_t e = 0; e < k->n; e++) z[k->pairs[e]] = xx[e];
    }
    for (uint32_t b = 0; failed && b < pc->n_blocks; b++) {
        const pblock *k = &pc->blocks[b];
        if (k->status == DATUM_E_NOMEM)
            return datum_ctx_fail(ctx, DATUM_E_NOMEM,
                                  "out of memory (CHOLMOD, applying the preconditioner)");
        if (k->status != DATUM_OK)
            return datum_ctx_fail(ctx, DATUM_E_NUMERIC,
                                  "CHOLMOD failed applying the preconditioner (a block of %u "
                                  "pairs)", k->n);
    }
    for (uint32_t j = 0; j < n; j++)
        if (!active[j]) z[j] = 0;
    if (pc->n_coarse > 0) {
        double *y = pc->coarse_rhs;
        memset(y, 0, (size_t)pc->n_coarse * sizeof *y);
        for (uint32_t j = 0; j < n; j++)
            if (pc->coarse_of[j] >= 0) y[pc->coarse_of[j]] += r[j];
        rate_cholesky_solve(pc->n_coarse, pc->coarse, y);
        for (uint32_t j = 0; j < n; j++)
            if (pc->coarse_of[j] >= 0) z[j] += y[pc->coarse_of[j]];
    }
    return DATUM_OK;
}

/* Preconditioned conjugate gradients on op x = b from x: stop on the
 * recurrence, confirm on the true residual, restart from it while that
 * keeps improving. With dz (else NULL), deflated CG (recycle.c): each start
 * takes the error's part in span Z at once, every direction is made
 * A-orthogonal to Z, and the first directions are recorded for dz's Ritz
 * step. Returns the iterations; trace[i] (if not NULL, room for
 * max_iterations + 1) receives the recurrence's relative residual after i
 * iterations, *final_rel the true one at the end, and ax (if not NULL) A x
 * on every row for the final x (the last true residual's product: the
 * report's residuals need no product of their own). */
static int pcg(datum_ctx *ctx, const operator *op, const precond *pc, rate_recycle *dz,
               const double *b, double *x, double tol, int max_iterations, double *work,
               double *trace, double *final_rel, const double *ax0, double *ax, int *rc)
{
    uint32_t n = op->a->n;
    double *r = work, *z = r + n, *p = z + n, *q = p + n;
    double bnorm = rate_norm(n, b), rel;
    int fresh = 1; /* ax is A x */
    if (ax0) { /* A x given (ax0): only to start from; stopping asks for a product */
        for (uint32_t j = 0; j < n; j++) r[j] = op->active[j] ? b[j] - ax0[j] : b[j];
        rel = bnorm > 0 ? rate_norm(n, r) / bnorm : 0;
        fresh = 0;
        if (!(rel > tol)) {
            rel = residual(ctx, op, b, x, r, ax);
            fresh = 1;
        }
    } else {
        rel = residual(ctx, op, b, x, r, ax);
    }
    int it = 0;
    if (trace) trace[0] = rel;
    while (*rc == DATUM_OK && bnorm > 0 && rel > tol && it < max_iterations) {
        if (dz) { /* the part of the error in span Z, at once */
            rate_recycle_correct(dz, op->active, x, r);
            if (rate_norm(n, r) <= 0.25 * tol * bnorm) goto confirm;
        }
        if ((*rc = precond_apply(ctx, pc, op->active, n, r, z)) != DATUM_OK) break;
        memcpy(p, z, n * sizeof *p);
        if (dz) rate_recycle_project(dz, op->active, z, p);
        double rz = rate_dot(n, r, z);
        while (it < max_iterations) {
            apply(ctx, op, p, q);
            if (dz) rate_recycle_record(dz, p, q);
            double pq = rate_dot(n, p, q);
            if (!(pq > 0)) break;
            double alpha = rz / pq;
            for (uint32_t j = 0; j < n; j++) {
                x[j] += alpha * p[j];
                r[j] -= alpha * q[j];
            }
            it++;
            double rn = rate_norm(n, r);
            if (trace) trace[it] = rn / bnorm;
            /* a little below: the recurrence drifts from the true residual */
            if (rn <= 0.25 * tol * bnorm) break;
            if ((*rc = precond_apply(ctx, pc, op->active, n, r, z)) != DATUM_OK) break;
            double rz1 = rate_dot(n, r, z), beta = rz1 / rz;
            rz = rz1;
            for (uint32_t j = 0; j < n; j++) p[j] = z[j] + beta * p[j];
            if (dz) rate_recycle_project(dz, op->active, z, p);
        }
    confirm:;
        double before = rel;
        rel = residual(ctx, op, b, x, r, ax);
        fresh = 1;
        if (rel > tol && !(rel < 0.5 * before)) break; /* stagnation */
    }
    if (ax && !fresh) rel = residual(ctx, op, b, x, r, ax); /* stopped before any */
    if (final_rel) *final_rel = rel;
    return it;
}

/* Conjugate gradients with blocks of block_size pairs (1: plain Jacobi), at
 * most max_iterations; trace and final_rel as in pcg. */
static int iterative(datum_ctx *ctx, rate_sparse *sp, const numbering *nb, const operator *op,
                     int block_size, int max_iterations, double *trace, double *final_rel,
                     datum_rate_stats *st)
{
    uint32_t n = sp->s->n;
    precond pc;
    const datum_rate_options *given = sp->opt;
    datum_rate_options opt = *given; /* the preconditioner reads the block size there */
    opt.block_size = block_size;
    sp->opt = &opt;
    st->block_size = block_size;
    double t0 = rate_now();
    int rc = precond_build(ctx, sp, nb, st, &pc);
    st->time_factorise = rate_now() - t0;
    t0 = rate_now();
    for (uint32_t j = 0; j < n; j++) sp->active[j] = sp->sparse[j] && (sp->shift || !sp->pinned[j]);
    if (rc == DATUM_OK) rc = coarse_build(ctx, sp, &pc);
    st->coarse = (uint32_t)pc.n_coarse;
    double *b = NULL, *work = NULL, *x = sp->y;
    if (rc == DATUM_OK) {
        b = datum_calloc(ctx, n, sizeof *b);
        work = datum_calloc(ctx, 4 * (size_t)n, sizeof *work);
        if (!b || !work) rc = DATUM_E_NOMEM;
    }
    if (rc == DATUM_OK) {
        rate_null_remove(&sp->null, 0, sp->rc); /* with every null direction found */
        for (uint32_t j = 0; j < n; j++) b[j] = sp->active[j] ? sp->rc[j] : 0;
        if (sp->opt->warm_start) { /* earlier ratings, moved into this gauge */
            for (uint32_t j = 0; j < n; j++)
                x[j] = sp->sparse[j] && isfinite(sp->opt->warm_start[j]) ? sp->opt->warm_start[j] : 0;
            if (!sp->shift) rate_null_gauge(&sp->null, x);
        }
        for (uint32_t j = 0; j < n; j++)
            if (!sp->active[j]) x[j] = 0;
        /* The history's Jacobi CG deflates by the vectors of its earlier
         * dates, unless auto has factorised a date: a factor is affordable
         * then, and the dates follow it (preconditioned by it) as before. */
        rate_recycle *dz = sp->reuse && !sp->reuse->L && !sp->shift && pc.inv_diag && !pc.reuse
                               ? rate_reuse_recycle(sp->reuse) : NULL;
        if (dz) rate_recycle_begin(dz, sp->a, sp->active);
        /* A times the warm start, when the caller has it: A x there, x
         * being the warm start moved by a null vector of A and cut to the
         * unknowns (A joins no two components). Once: a later path of
         * this solve starts without it. */
        const double *ax0 = sp->ax_start && !sp->shift && sp->null.n_extra == 0 ? sp->ax_start : NULL;
        sp->ax_start = NULL;
        st->iterations = pcg(ctx, op, &pc, dz, b, x, sp->opt->tolerance, max_iterations, work,
                             trace, final_rel, ax0, sp->ax, &rc);
        /* A numerical null vector is null to its check's precision only:
         * then the report's residuals take their own product. */
        sp->ax_valid = rc == DATUM_OK && sp->null.n_extra == 0;
        /* A quick solve says Z still holds the slow modes: its Ritz step,
         * which costs a few iterations, is kept for the slower dates. */
        if (dz && rc == DATUM_OK &&
            (dz->k < RATE_RECYCLE_VECTORS || st->iterations > RATE_RECYCLE_QUICK_ITERATIONS))
            rc = rate_recycle_refresh(ctx, dz, sp->a, sp->p->n, sp->active);
    }
    datum_free(b);
    datum_free(work);
    precond_free(&pc);
    st->time_solve = rate_now() - t0;
    sp->opt = given;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Auto: a Jacobi trial, then the analysis and the least predicted time     */

/* Undoes a Jacobi trial that did not converge: the pins back to the
 * structural ones (pins0), no numerical null vector, r_c and y as before,
 * the trial's counts out of the statistics. The next path then runs exactly
 * as when asked for by hand. */
static int trial_undo(datum_ctx *ctx, rate_sparse *sp, const uint8_t *pins0, datum_rate_stats *st)
{
    uint32_t n = sp->s->n;
    memcpy(sp->pinned, pins0, n);
    rate_null_free(&sp->null);
    if (rate_null_init(ctx, &sp->null, sp->s, sp->p->n) != DATUM_OK) return DATUM_E_NOMEM;
    for (uint32_t j = 0; j < n; j++) {
        sp->rc[j] = sp->sparse[j] ? sp->p->r[j] : 0;
        sp->y[j] = 0;
        sp->active[j] = 0;
    }
    st->null_numeric = 0;
    st->null_check = 0;
    st->factorizations = 0;
    st->factor_nnz = st->factor_flops = st->factor_bytes = 0;
    st->peeled_pieces = st->blocks = st->coarse = 0;
    st->iterations = 0;
    st->block_size = 0;
    sp->ax_valid = 0;
    st->time_factorise = st->time_solve = 0;
    return DATUM_OK;
}

/* Runs the trial datum_rate_choose asks for before the analysis: *finished
 * = 1 if Jacobi converged (the solution is in sp->y), else the trial is
 * undone and its convergence is in st->forecast. */
static int auto_trial(datum_ctx *ctx, rate_sparse *sp, const numbering *nb, const operator *op,
                      datum_rate_stats *st, int *finished)
{
    const datum_rate_options *opt = sp->opt;
    *finished = 0;
    int budget = datum_rate_auto_begin(st, opt, nb->n, (double)sp->a->nnz);
    uint8_t *pins0 = datum_malloc(ctx, sp->s->n, 1);
    double *trace = datum_malloc(ctx, (size_t)budget + 1, sizeof *trace);
    int rc = pins0 && trace ? DATUM_OK : DATUM_E_NOMEM;
    double t0 = rate_now(), rel = INFINITY;
    if (rc == DATUM_OK) {
        memcpy(pins0, sp->pinned, sp->s->n);
        rc = iterative(ctx, sp, nb, op, 1, budget, trace, &rel, st);
    }
    st->time_trial = rate_now() - t0;
    if (rc == DATUM_OK) {
        if (datum_rate_auto_trial(st, st->iterations, budget, rel, trace)) *finished = 1;
        else rc = trial_undo(ctx, sp, pins0, st);
    }
    datum_free(pins0);
    datum_free(trace);
    return rc;
}

/* Keeps the direct path's factor *L (taken: *L becomes NULL) for the next
 * dates, with the numbering and the pins it was made with. */
static int reuse_keep(datum_ctx *ctx, rate_sparse *sp, const numbering *nb, cholmod_factor **L)
{
    rate_reuse *u = sp->reuse;
    reuse_drop(u);
    u->index = datum_malloc(ctx, u->n_pairs ? u->n_pairs : 1, sizeof *u->index);
    u->pin = datum_malloc(ctx, nb->n ? nb->n : 1, 1);
    if (!u->index || !u->pin) {
        reuse_drop(u);
        return DATUM_E_NOMEM;
    }
    memcpy(u->index, nb->index, u->n_pairs * sizeof *u->index);
    for (uint32_t k = 0; k < nb->n; k++) u->pin[k] = sp->pinned[nb->pair_of[k]];
    u->L = *L;
    *L = NULL;
    u->stale = 0;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */

int rate_sparse_solve(datum_ctx *ctx, rate_sparse *sp, datum_rate_stats *st)
{
    const rate_structure *s = sp->s;
    const datum_rate_options *opt = sp->opt;
    uint32_t n = s->n;
    int rc = DATUM_OK;
    numbering nb = {0};
    double *shift = NULL;
    cholmod_common cm;
    cholmod_sparse *M = NULL;
    cholmod_factor *L = NULL;
    rate_cm_start(&cm);
    sp->sparse = datum_calloc(ctx, n, 1);
    sp->pinned = datum_calloc(ctx, n, 1);
    sp->active = datum_calloc(ctx, n, 1);
    sp->rc = datum_calloc(ctx, n, sizeof *sp->rc);
    sp->y = datum_calloc(ctx, n, sizeof *sp->y);
    sp->ax = datum_malloc(ctx, n ? n : 1, sizeof *sp->ax);
    sp->ax_valid = 0;
    if (!sp->sparse || !sp->pinned || !sp->active || !sp->rc || !sp->y || !sp->ax ||
        rate_null_init(ctx, &sp->null, s, sp->p->n) != DATUM_OK ||
        (opt->ridge > 0 && !(shift = datum_calloc(ctx, n, sizeof *shift)))) {
        rc = DATUM_E_NOMEM;
        goto done;
    }
    for (uint32_t j = 0; j < n; j++) {
        sp->sparse[j] = s->acomp[j] >= 0 && !s->acomp_dense[s->acomp[j]];
        if (sp->sparse[j]) sp->rc[j] = sp->p->r[j];
        if (shift && sp->sparse[j]) shift[j] = opt->ridge * sp->p->n[j];
    }
    sp->shift = shift;
    for (uint32_t c = 0; c < s->n_ocomp; c++) /* the structural pins */
        if (s->opin[c] >= 0) sp->pinned[s->opin[c]] = 1;
    for (uint32_t g = 0; g < s->n_group; g++)
        if (s->gpin[g] >= 0) sp->pinned[s->gpin[g]] = 1;
    if ((rc = number(ctx, sp->sparse, n, &nb)) != DATUM_OK) goto done;
    /* CHOLMOD's own parallel regions (supernodal factorisation) take up to
     * CHOLMOD_OMP_NUM_THREADS threads, whatever the context's count. */
    if (nb.n > 0 && (rc = datum_start_threads(ctx, CHOLMOD_OMP_NUM_THREADS)) != DATUM_OK) goto done;
    operator op = {sp->a, sp->active, shift};
    datum_rate_solver path = opt->solver;
    int block_size = opt->block_size, max_iterations = opt->max_iterations;
    if (shift) sp->reuse = NULL; /* the history keeps no factor of a ridge system */
    /* The history's kept factor (--solver auto): conjugate gradients
     * preconditioned by it, no trial; a slow start means it no longer serves,
     * so they give up early (the history then solves the date afresh). */
    if (path == DATUM_RATE_AUTO && rate_reuse_ready(sp->reuse)) {
        path = DATUM_RATE_ITERATIVE;
        if (max_iterations > RATE_REUSE_MAX_ITERATIONS) max_iterations = RATE_REUSE_MAX_ITERATIONS;
    }
    st->path = path == DATUM_RATE_ITERATIVE ? path : DATUM_RATE_DIRECT;
    st->null_complete = 1;
    if (nb.n == 0) { /* nothing sparse */
        rate_null_remove(&sp->null, 0, sp->rc);
        goto done;
    }
    /* The peeled search (of the components the structure does not certify)
     * and the blocks read the appearance index; Jacobi alone does not. */
    int uncertified = 0;
    for (uint32_t c = 0; c < s->n_acomp; c++) uncertified |= !s->acomp_dense[c] && !s->acomp_certified[c];
    if (path == DATUM_RATE_AUTO) { /* the trial is Jacobi */
        int finished = 0;
        rc = uncertified ? rate_structure_index(ctx, sp->p, sp->s) : DATUM_OK;
        if (rc == DATUM_OK) rc = auto_trial(ctx, sp, &nb, &op, st, &finished);
        if (rc == DATUM_OK && finished) {
            st->path = DATUM_RATE_ITERATIVE;
            st->null_complete = st->searched_components == 0;
            goto solved;
        }
        if (rc != DATUM_OK) goto done;
    }
    if (path != DATUM_RATE_ITERATIVE) {
        double t0 = rate_now();
        M = rate_cm_upper(ctx, datum_ctx_threads(ctx), sp->a, nb.index, nb.pair_of, nb.n, NULL,
                          sp->pinned, &cm);
        if (!M) {
            rc = datum_ctx_code(ctx) < 0 ? datum_ctx_code(ctx) : DATUM_E_NOMEM;
            goto done;
        }
        if (opt->ordering != DATUM_RATE_ORDER_DEFAULT) { /* else AMD, then METIS if AMD fills in much */
            static const int kOrdering[] = {0, CHOLMOD_AMD, CHOLMOD_METIS, CHOLMOD_NESDIS};
            cm.nmethods = 1;
            cm.method[0].ordering = kOrdering[opt->ordering];
        } else if (sp->reuse) { /* a history's factor: AMD alone, METIS's try costs more than it saves */
            cm.nmethods = 1;
            cm.method[0].ordering = CHOLMOD_AMD;
        }
        L = cholmod_l_analyze(M, &cm);
        if ((rc = rate_cm_check(ctx, &cm, "analysing")) != DATUM_OK) goto done;
        if (!L) {
            rc = datum_ctx_fail(ctx, DATUM_E_NUMERIC, "CHOLMOD could not analyse the matrix");
            goto done;
        }
        st->time_analyse = rate_now() - t0;
        st->predicted_nnz = cm.lnz;
        st->predicted_flops = cm.fl;
        st->predicted_bytes = L->is_super ? rate_cm_factor_bytes(L) : 16.0 * cm.lnz + 24.0 * nb.n;
        if (path == DATUM_RATE_AUTO) {
            datum_rate_forecast *f = &st->forecast;
            f->analysed = 1;
            f->factor_nnz = st->predicted_nnz;
            f->factor_flops = st->predicted_flops;
            f->factor_bytes = st->predicted_bytes;
            datum_rate_choose(f, &st->calibration, &st->choice);
            path = st->choice.path == DATUM_RATE_PATH_DIRECT ? DATUM_RATE_DIRECT : DATUM_RATE_ITERATIVE;
            if (st->choice.path == DATUM_RATE_PATH_JACOBI) block_size = 1;
        }
        if (path == DATUM_RATE_ITERATIVE) {
            cholmod_l_free_factor(&L, &cm);
            cholmod_l_free_sparse(&M, &cm);
        }
    }
    st->path = path;
    st->null_complete = path == DATUM_RATE_DIRECT || st->searched_components == 0;
    if (path == DATUM_RATE_DIRECT) {
        rc = direct(ctx, sp, M, L, &nb, &op, st, &cm);
        if (rc == DATUM_OK && sp->reuse && opt->solver == DATUM_RATE_AUTO)
            rc = reuse_keep(ctx, sp, &nb, &L);
    } else if (reuse_trusted(sp->reuse) || (!uncertified && block_size <= 1) ||
               (rc = rate_structure_index(ctx, sp->p, sp->s)) == DATUM_OK) {
        rc = iterative(ctx, sp, &nb, &op, block_size, max_iterations, NULL, NULL, st);
    }
solved:
    if (rc == DATUM_OK && !shift) rate_null_remove(&sp->null, 1, sp->y);
done:
    cholmod_l_free_factor(&L, &cm);
    cholmod_l_free_sparse(&M, &cm);
    cholmod_l_finish(&cm);
    datum_free(nb.index);
    datum_free(nb.pair_of);
    datum_free(shift);
    sp->shift = NULL;
    return rc;
}

void rate_sparse_free(rate_sparse *sp)
{
    datum_free(sp->sparse);
    datum_free(sp->pinned);
    datum_free(sp->active);
    datum_free(sp->rc);
    datum_free(sp->y);
    datum_free(sp->ax);
    rate_null_free(&sp->null);
}
