/*
 * rate_internal.h - what the files of solvers/ share; not public. Only the
 * files that talk to CHOLMOD include cholmod.h (through rate_cholmod.h).
 */
#ifndef DATUM_RATE_INTERNAL_H
#define DATUM_RATE_INTERNAL_H

#include "datum_alloc.h"
#include "datum_rate.h"

#include <stddef.h>
#include <stdint.h>

/* Columns of A per assembly block, entries per vector block: fixed numbers,
 * so that the partition of the work never depends on the thread count. */
#define RATE_BLOCK_COLS 256

double rate_now(void);

/* ------------------------------------------------------------------------ */
/* Kept rows of a chunk, scored (problem.c)                                 */

/* The fields of a chunk reduced to their kept rows (real, inside the
 * window), fields of fewer than 2 kept rows dropped, with every kept row's
 * Butler IMPs. Buffers grow and are reused from chunk to chunk. */
typedef struct {
    size_t n_fields, n_rows;
    uint64_t *offset;  /* n_fields + 1 */
    int32_t *date;     /* per kept field: latest date of its kept rows */
    size_t *source;    /* per kept field: its field in the chunk */
    int32_t *score, *ns, *ew;
    double *datum, *ns_imps, *ew_imps;
    uint64_t *field_start;  /* scratch, per field of the chunk: its first kept row */
    int32_t *field_latest;  /* scratch, per field of the chunk: latest date kept */
    size_t fields_cap, rows_cap;
    uint64_t rows_outside, fields_one; /* added to by every call */
} rate_kept;

int rate_keep(datum_ctx *ctx, const datum_rate_window *w, const datum_method *m,
              const datum_rate_chunk *c, uint32_t n_pairs, rate_kept *k);
void rate_kept_free(rate_kept *k);

/* Board weight of a field dated `date`. */
double rate_weight(const datum_rate_window *w, int32_t date);

/* ------------------------------------------------------------------------ */
/* The problem                                                              */

struct datum_rate_problem {
    uint32_t n_pairs;
    datum_rate_window window;
    double *r, *n;          /* per pair: sum w bb, sum w */
    /* Table layouts: layout l owns tables lay_off[l] .. lay_off[l+1]-1. */
    size_t n_layouts, layouts_cap;
    uint64_t *lay_off;
    double *lay_w;          /* its summed board weights */
    size_t n_tables, tables_cap;
    int32_t *t_ns, *t_ew;
    datum_rate_summary summary;
    rate_kept kept;
    int sealed;             /* solved: no more chunks */
};

/* Adds kept field f of k to the problem with sign * its window's weight
 * (sign -1: withdraws a field added before, for the history): r, n, its
 * layout and, for sign > 0, the summary. A weight that underflows to 0 counts
 * the field as outside the window. DATUM_OK or DATUM_E_NOMEM, DATUM_E_ARG
 * (more than 2^32 - 1 tables). */
int rate_problem_add_field(datum_ctx *ctx, datum_rate_problem *p, const rate_kept *k, size_t f,
                           double sign);

/* dst = scale * dst + src: dst's layout weights, r and n are multiplied by
 * scale, then src's layouts are appended and its r and n added (the history:
 * the boards of the next period, the earlier ones decayed). DATUM_OK or
 * DATUM_E_NOMEM. */
int rate_problem_append(datum_ctx *ctx, datum_rate_problem *dst, const datum_rate_problem *src,
                        double scale);

/* ------------------------------------------------------------------------ */
/* Structure: who plays whom (structure.c)                                  */

typedef struct {
    uint32_t n;             /* pairs */
    /* Appearances: pair j sits at tables app_table[app_off[j] .. app_off[j+1]-1]. */
    uint64_t *app_off;
    uint32_t *app_table;
    uint32_t *t_layout;     /* table -> layout */
    /* Connected components of A (pairs sharing a field): -1 for unrated pairs. */
    int32_t *acomp;
    uint32_t n_acomp;
    uint32_t *acomp_size;
    uint8_t *acomp_dense;   /* solved by the dense path */
    /* Opponent components (pairs joined when they met at a table). */
    int32_t *ocomp;         /* per pair, -1 unrated */
    uint32_t n_ocomp;
    int8_t *sign;           /* per pair: +1 always NS, -1 always EW, 0 both */
    uint8_t *ofixed;        /* per opponent component: no pair changes direction */
    int32_t *oacomp;        /* per opponent component: its component of A */
    int32_t *ogroup;        /* per opponent component: its group, -1 if none */
    uint32_t n_group;
    int32_t *opin;          /* per opponent component: the pinned pair */
    int32_t *gpin;          /* per group: its second pinned pair */
    int32_t *gfirst;        /* per group: the component holding gpin */
    uint32_t n_fixed;
    /* The certificate (rate_structure_certify): per component of A, 1 when
     * its null space is proved to be the span of its structural vectors. */
    uint8_t *acomp_certified;
    uint32_t certify_rounds; /* rounds of the closure */
} rate_structure;

/* What the certificate's closure has proved about the null vectors of the
 * problem's first n_layouts layouts, without a group's seed (so it holds
 * for any later problem that appends layouts): classes of pairs with equal
 * ratings (union-find `pair`), layouts with offsets equal up to sign
 * (signed union-find lay/lpar), classes with offset 0 (lzero), layouts whose
 * sides are joined (ldone). Allocated by rate_structure_certify. */
typedef struct {
    uint32_t *pair, *lay;
    uint8_t *lpar, *lzero, *ldone;
    size_t n_layouts, layouts_cap;
} rate_facts;

void rate_facts_free(rate_facts *f);

/* The union-finds of the components of A and of the opponent graph, the
 * directions seen and the certificate's facts, kept from one build to the
 * next while layouts are only appended (the history): a build then unites
 * only the new layouts, and the certificate starts from what it proved. */
typedef struct {
    uint32_t n;
    uint32_t *fa, *fo;      /* parents: A, opponents */
    uint8_t *seen;          /* per pair: bit 1 seen NS, bit 2 seen EW */
    size_t layouts_done;    /* layouts of the problem already united */
    rate_facts facts;       /* the certificate's (empty until its first run) */
} rate_unions;

int rate_unions_init(datum_ctx *ctx, uint32_t n, rate_unions *u);
void rate_unions_free(rate_unions *u);
/* Unites the pairs of p's layouts not seen yet by u (and marks their
 * directions). */
void rate_unite_layouts(const datum_rate_problem *p, rate_unions *u);
/* The root of x (path halving), and the union of every i with other[i]
 * (another union-find of the same n elements: the two merged). */
uint32_t rate_find(uint32_t *parent, uint32_t x);
void rate_unite_roots(uint32_t *parent, const uint32_t *other, uint32_t n);
/* label[i] = the number of i's root among the roots, in index order, for
 * the i with keep[i] (all when keep is NULL), else -1. Returns the count. */
uint32_t rate_number_roots(uint32_t *parent, uint32_t n, const uint8_t *keep, int32_t *label);
/* Groups: on every layout of p, unites (fg, over opponent components) the
 * fixed components of its tables and taints the first of them when a table
 * of a component that is not fixed sits there too. */
void rate_unite_fixed(const datum_rate_problem *p, const int32_t *ocomp, const uint8_t *ofixed,
                      uint32_t *fg, uint8_t *tainted);
/* Then, the taints moved to the roots, numbers the untainted groups of fixed
 * components: ogroup[c] (-1: none), *n_group, *n_fixed (fixed components). */
void rate_number_groups(uint32_t *fg, uint8_t *tainted, const uint8_t *ofixed, uint32_t n_ocomp,
                        int32_t *ogroup, uint32_t *n_group, uint32_t *n_fixed);

/* Builds the components, the groups, the pins (pins only in components of
 * more than dense_max pairs) and the certificate (rate_structure_certify,
 * which builds t_layout if its rules C and D run; freed at the end), from
 * the unions in `kept` (brought up to date with p's layouts) or from scratch
 * (kept NULL). The appearance lists (app_off, app_table) and t_layout are
 * left to rate_structure_index. DATUM_OK or DATUM_E_NOMEM (s freed). */
int rate_structure_build(datum_ctx *ctx, const datum_rate_problem *p, int dense_max,
                         rate_unions *kept, rate_structure *s);
/* Builds the appearance index (app_off, app_table, and t_layout if absent)
 * if not built: peeling and the block partition need it. DATUM_OK or
 * DATUM_E_NOMEM. */
int rate_structure_index(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s);
void rate_structure_free(rate_structure *s);

/* The certified null space (docs/methods.md, "A certified null space"): a
 * closure over the tables (equal ratings, equal or opposite offsets) that
 * sets acomp_certified[c] for each sparse component c whose every null
 * vector is a combination of its indicators and group vector. A check on
 * the structure only (no numbers): O(pairs + layouts + tables) a round, the
 * rounds repeated while they learn something, the costly rules over a
 * growing share of the layouts. `kept` (or NULL) holds the facts proved for
 * an earlier problem that p extends by appending layouts: when p has no
 * group, the closure starts from them and adds p's; otherwise it starts
 * afresh and leaves them alone. Called by rate_structure_build. DATUM_OK or
 * DATUM_E_NOMEM (kept then still true, perhaps not complete). */
int rate_structure_certify(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s,
                           rate_facts *kept);

/* ------------------------------------------------------------------------ */
/* The matrix A, by blocks of columns (assemble.c)                          */

typedef struct {
    uint64_t *colptr;       /* RATE_BLOCK_COLS + 1, from 0 */
    int32_t *row;
    double *val;
} rate_block;

/* The product's fixed partition of the columns (rate_matvec): the same for
 * any thread count, so that its sums are too. */
#define RATE_PRODUCT_SLICES 16

/* A symmetric, stored once: column j holds the rows i <= j, the diagonal
 * first (when the column has any entry), then the others in the order of
 * their first contribution (deterministic). Column j is in block
 * j / RATE_BLOCK_COLS. The pattern of A is symmetric, so nnz (of A, both
 * triangles) is twice the entries stored less the diagonal's. */
typedef struct {
    uint32_t n;
    uint32_t n_blocks;
    rate_block *blocks;
    uint64_t nnz;
    /* rate_matvec: column slices balanced by entries, and a scratch vector
     * of n per slice for the products above the diagonal. */
    uint32_t slice[RATE_PRODUCT_SLICES + 1];
    double *partial;
} rate_matrix;

/* A of p's layouts into a (the assembly builds its own index of the pairs'
 * tables). Parallel by blocks of columns, the same bit for bit for any
 * thread count. DATUM_OK or DATUM_E_NOMEM (a empty). */
int rate_matrix_assemble(datum_ctx *ctx, const datum_rate_problem *p, rate_matrix *a);

/* Work that needs p only (read) and may run beside the assembly: run(ctx,
 * arg) returns DATUM_OK or a negative code. */
typedef struct {
    int (*run)(datum_ctx *ctx, void *arg);
    void *arg;
} rate_side_job;

/* rate_matrix_assemble, with job run once by one of the threads while the
 * others assemble, from the assembly's first step (a serial job then costs
 * no wall time of its own on several threads; its own parallel loops run on
 * its thread only, OpenMP's nested regions being inactive unless the
 * environment enables them, and give the same results either way). Returns the
 * assembly's failure, the job then run or not (what it built is the
 * caller's to free either way), else the job's code; a is freed on any
 * failure. */
int rate_matrix_assemble_beside(datum_ctx *ctx, const datum_rate_problem *p, rate_matrix *a,
                                const rate_side_job *job);
void rate_matrix_free(rate_matrix *a);
/* a = scale * a + d, d over the same pairs (a empty: a = d). Within a column,
 * a's rows keep their order and d's new rows follow in d's order. Parallel by
 * blocks, the same bit for bit for any thread count. DATUM_OK, or
 * DATUM_E_NOMEM (a unchanged). */
int rate_matrix_add(datum_ctx *ctx, rate_matrix *a, double scale, const rate_matrix *d);


/* Column j, on and above the diagonal (rows i <= j, the diagonal first):
 * *row and *val receive its entries, the count is returned. The entries
 * below the diagonal are those of the later columns' rows j. */
static inline uint64_t rate_column(const rate_matrix *a, uint32_t j, const int32_t **row,
                                   const double **val)
{
    const rate_block *b = &a->blocks[j / RATE_BLOCK_COLS];
    uint32_t c = j % RATE_BLOCK_COLS;
    *row = b->row + b->colptr[c];
    *val = b->val + b->colptr[c];
    return b->colptr[c + 1] - b->colptr[c];
}

/* y = A x over the columns j with mask[j] (all if mask is NULL); entries of x
 * outside the mask must be 0; y is 0 outside the mask. Each stored entry
 * a_ij (i < j) adds a_ij x_i to y_j and a_ij x_j to y_i: the latter go to
 * the scratch vector of the column's slice, summed row by row in slice
 * order, so y is the same bit for bit for any thread count. Parallel by
 * slices; not reentrant (the scratch is the matrix's). */
void rate_matvec(datum_ctx *ctx, const rate_matrix *a, const uint8_t *mask, const double *x,
                 double *y);
/* max_j sum_i |a_ij| (sequential; uses the product's scratch). */
double rate_matrix_norm1(const rate_matrix *a);
/* out_j = sum_i a_ij z_i (k columns of z stored by pairs, row i at z + i *
 * stride) for the j with rows[j], out likewise; the other rows of out are
 * left alone. Sequential, one pass over every stored entry. */
void rate_matrix_rows_times(const rate_matrix *a, const uint8_t *rows, const double *z, int k,
                            int stride, double *out);

/* Sequential (hence deterministic) vector helpers. */
double rate_dot(size_t n, const double *x, const double *y);
double rate_norm(size_t n, const double *x);

/* ------------------------------------------------------------------------ */
/* The null space of the sparse part (nullspace.c)                          */

/* Structural null vectors of the components not solved densely, plus the
 * numerical ones found by factorisation, orthonormalised once for each inner
 * product so that projections are cheap. */
typedef struct {
    const rate_structure *s;
    const double *weight;   /* n_j, for the W inner product */
    uint32_t n_extra, extra_cap;
    double **extra;         /* raw numerical null vectors (n each) */
    int32_t *extra_pin;     /* the pair each was pinned at */
    double **ortho[2];      /* [0]: Euclidean, [1]: W-orthonormal complements */
    double *work;           /* 3 per opponent component + 3 per group */
} rate_null;

int rate_null_init(datum_ctx *ctx, rate_null *z, const rate_structure *s, const double *weight);
/* Adds a numerical null vector (copied); DATUM_W_EMPTY if it adds nothing
 * (numerically in the span already). */
int rate_null_add(datum_ctx *ctx, rate_null *z, const double *v, int32_t pin);
/* x -= its projection on the null space, orthogonal for the Euclidean
 * (weighted = 0) or the W (weighted = 1) inner product; only pairs of sparse
 * components are touched. */
void rate_null_remove(const rate_null *z, int weighted, double *x);
/* x -= the null vector that makes x vanish at every pin (the gauge). */
void rate_null_gauge(const rate_null *z, double *x);
void rate_null_free(rate_null *z);

/* Peeling (peel.c): peeled[j] = 1 for the pairs among `consider` that
 * eliminating leaves and one-table field classes removes; a null vector that
 * vanishes on the rest is supported on them. */
int rate_peel(datum_ctx *ctx, const datum_rate_problem *p, const rate_structure *s,
              const uint8_t *consider, uint8_t *peeled);

/* ------------------------------------------------------------------------ */
/* Dense path (dense.c)                                                     */

/* Eigen-decomposition of the symmetric m x m matrix a (row-major, destroyed:
 * its diagonal receives the eigenvalues) by cyclic Jacobi rotations; v
 * receives the eigenvectors as columns (row-major). Returns the sweeps used. */
int rate_jacobi_eigen(int m, double *a, double *v);

/* Dense Cholesky of the symmetric positive definite n x n matrix a (row-major;
 * its lower triangle receives L). Returns 0, or -1 at a pivot <= 0. */
int rate_cholesky(int n, double *a);
/* x = (L L')^-1 x with the factor of rate_cholesky. */
void rate_cholesky_solve(int n, const double *l, double *x);

/* Solves every component marked dense: rating[] for its pairs, r_c into rc[]
 * and the null dimensions found into *null_dim. */
int rate_dense_solve(datum_ctx *ctx, const datum_rate_problem *p, const rate_structure *s,
                     const rate_matrix *a, double ridge, double *rating, double *rc,
                     uint32_t *null_dim);

/* ------------------------------------------------------------------------ */
/* The sparse part (sparse.c): gauge, CHOLMOD or PCG                        */

/* ------------------------------------------------------------------------ */
/* Deflation recycled across a history's dates (recycle.c)                  */

/* Deflation vectors kept, and the directions recorded in a solve. */
#define RATE_RECYCLE_VECTORS 32
#define RATE_RECYCLE_DIRECTIONS 32
/* A solve of at most this many iterations keeps Z as it is (no Ritz step). */
#define RATE_RECYCLE_QUICK_ITERATIONS 16

/* Z (k vectors, zero off the unknowns of the current solve) and A Z over
 * every row for the latest A, stored by pairs (row j: RATE_RECYCLE_VECTORS
 * values, k used); the current solve's directions P and A P, one vector
 * after the other. */
typedef struct {
    uint32_t n;
    int k;                  /* deflation vectors held (0: none yet) */
    double *z, *az;         /* n * RATE_RECYCLE_VECTORS each */
    double *e;              /* k x k: Cholesky factor of Z'AZ over the unknowns */
    int on;                 /* the current solve deflates */
    int m;                  /* directions recorded in the current solve */
    double *p, *q;          /* RATE_RECYCLE_DIRECTIONS * n each */
    uint8_t *gone;          /* n: scratch, the rows A Z takes from A */
    int threads;            /* the context's */
    double *part;           /* the chunks' partial sums (recycle.c) */
} rate_recycle;

/* Allocates for n pairs, no vector yet. DATUM_OK or DATUM_E_NOMEM. */
int rate_recycle_init(datum_ctx *ctx, uint32_t n, rate_recycle *rc);
void rate_recycle_free(rate_recycle *rc);
/* A became scale * A + delta (the history's next date): A Z follows. */
void rate_recycle_update(rate_recycle *rc, double scale, const rate_matrix *delta);
/* Before a solve of A over the pairs with active[j]: zeroes Z off them (A Z
 * corrected from A's columns) and factorises Z'AZ. Returns the vectors
 * deflated (0: none, the solve is plain) and starts recording directions. */
int rate_recycle_begin(rate_recycle *rc, const rate_matrix *a, const uint8_t *active);
/* x += Z mu, r -= A Z mu with mu = (Z'AZ)^-1 Z'r: r orthogonal to Z. */
void rate_recycle_correct(const rate_recycle *rc, const uint8_t *active, double *x, double *r);
/* p -= Z mu with mu = (Z'AZ)^-1 (AZ)'z: p A-orthogonal to Z. */
void rate_recycle_project(const rate_recycle *rc, const uint8_t *active, const double *z,
                          double *p);
/* Records a direction p and q = A p (up to RATE_RECYCLE_DIRECTIONS). */
void rate_recycle_record(rate_recycle *rc, const double *p, const double *q);
/* After the solve: Z becomes the Ritz vectors of A y = theta W y of
 * smallest values over span(Z, recorded directions) (weight: W's diagonal),
 * A Z follows without a product with A but for the rows off the unknowns.
 * DATUM_OK or DATUM_E_NOMEM (Z then unchanged or empty: still sound). */
int rate_recycle_refresh(datum_ctx *ctx, rate_recycle *rc, const rate_matrix *a,
                         const double *weight, const uint8_t *active);

/* A direct factor kept from one date of a history to the next, to
 * precondition conjugate gradients on the later systems (sparse.c; opaque:
 * CHOLMOD's types stay there). With --solver auto, a solve given one that is
 * ready takes the iterative path preconditioned by it (no trial, no
 * analysis); otherwise auto chooses as without it (datum_rate_choose), and a
 * solve that takes the direct path leaves its factor in it. It also carries
 * the deflation vectors of the dates solved by Jacobi CG (rate_recycle),
 * which the next Jacobi CG deflates by (without a ridge). */
typedef struct rate_reuse rate_reuse;
/* Conjugate gradients on a kept factor stop after this many iterations. */
#define RATE_REUSE_MAX_ITERATIONS 100
int rate_reuse_create(datum_ctx *ctx, uint32_t n_pairs, rate_reuse **out);
void rate_reuse_free(rate_reuse **r);
int rate_reuse_ready(const rate_reuse *r);  /* holds a factor, not expired */
void rate_reuse_expire(rate_reuse *r);       /* the next solve factorises afresh */
/* Trusted: the caller knows the null space of the next systems is the
 * structure's (no null direction beyond it at the factor's date, no pair and
 * no replaced field since: null(A) can then only shrink), so the iterative
 * solve on the factor skips the peeled search of the components the
 * structure does not certify, and the appearance index. A
 * direction missed all the same shows as a residual above the tolerance. */
void rate_reuse_trust(rate_reuse *r, int trusted);
/* The deflation vectors it carries for Jacobi CG (recycle.c), or NULL. */
rate_recycle *rate_reuse_recycle(rate_reuse *r);

typedef struct {
    const datum_rate_problem *p;
    rate_structure *s;      /* its appearance index is built when the iterative path needs it */
    const rate_matrix *a;
    const datum_rate_options *opt;
    rate_null null;
    uint8_t *sparse;        /* per pair: in a component solved here */
    uint8_t *pinned;        /* per pair: a pin of the gauge (structural or numerical) */
    uint8_t *active;        /* per pair: an unknown of the system solved (gauged or ridge) */
    double *rc;             /* r projected on the range of A (sparse pairs) */
    double *y;              /* the gauged solution */
    double *ax;             /* A y on every row before the null space's removal (ax_valid: */
    int ax_valid;           /* conjugate gradients' last true residual computed it) */
    const double *ax_start; /* A times opt->warm_start (NaN as 0) on every row, or NULL */
    const double *shift;    /* ridge * n_j on the diagonal, or NULL */
    rate_reuse *reuse;      /* the history's kept factor, or NULL */
} rate_sparse;

int rate_sparse_solve(datum_ctx *ctx, rate_sparse *sp, datum_rate_stats *st);
void rate_sparse_free(rate_sparse *sp);

/* Has the BLAS map now the working memory that `callers` concurrent calls
 * will need, while running out can still be reported (blas.c says why:
 * OpenBLAS would retry a failed mmap for ever). Once for the process; a
 * no-op for a BLAS that needs nothing. DATUM_OK, or DATUM_E_NOMEM recorded
 * in ctx. */
int rate_blas_reserve(datum_ctx *ctx, int callers);

/* datum_rate_solve with A given (assembled by the caller for p's layouts,
 * e.g. updated from an earlier date) or NULL (assembled here), the
 * structure's unions kept by the caller (or NULL: from scratch) and a kept
 * factor (or NULL). ax_start (or NULL): A times opt->warm_start (NaN as 0)
 * on every row, which conjugate gradients' first residual then takes
 * instead of a product (the history: A(T_k) = c A(T_{k-1}) + the period's,
 * so it follows from the previous date's A v); av_out (or NULL, n_pairs):
 * receives A v of the ratings (NaN as 0) on every row when a result is
 * returned. */
int rate_solve_with(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *opt,
                    rate_matrix *a, rate_unions *kept, rate_reuse *reuse, const double *ax_start,
                    double *av_out, datum_rate_result **out);

#endif
