/*
 * datum_rate.h - compensated Butler ratings (methods.md §6, seed 000): the
 * normal equations A v = r of a whole archive, their null space, and the
 * least-squares solution of smallest board-weighted norm, solved with
 * CHOLMOD (direct) or preconditioned conjugate gradients (iterative).
 *
 * Conventions as in engine/datum.h: 0 ok, negative DATUM_E_* error recorded
 * in the context, positive DATUM_W_* warning; objects created through **out
 * and freed by a function that accepts NULL and nulls the pointer. Nothing
 * here prints, reads or writes files. solvers/ is the only folder that
 * includes cholmod.h; no CHOLMOD type appears in this header.
 *
 * Threads: the context's thread count is used by every parallel loop (field
 * scoring, matrix assembly, matrix-vector products, block factorisations).
 * Every number produced is bit-identical for any thread count: work is split
 * in blocks sized from the input only and partial results are combined in
 * block order. CHOLMOD's own numerics depend only on the matrix given to it.
 * No function is thread-safe on the same object.
 *
 * The mathematics (the equations, the null space, the gauge, the two solve
 * paths) is in docs/methods.md, "Ratings".
 */
#ifndef DATUM_RATE_H
#define DATUM_RATE_H

#include "datum.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Which results count, and how much                                        */

/* Rows dated before `from` or after `as_of` are ignored. A field's date is
 * the latest date of its kept rows; its weight is 0.5^((as_of - date) /
 * half_life) when half_life > 0, else 1. Dates are days since 1970-01-01. */
typedef struct {
    int32_t from;     /* INT32_MIN: no lower bound */
    int32_t as_of;    /* INT32_MAX: no upper bound (then half_life must be 0) */
    double half_life; /* days; 0 = no decay */
} datum_rate_window;

#define DATUM_RATE_WINDOW_INIT {INT32_MIN, INT32_MAX, 0.0}

/* A chunk of whole board fields in archive layout (the io chunk reader's
 * columns): field f owns rows offset[f] .. offset[f+1]-1, offset[0] == 0. */
typedef struct {
    size_t n_fields;
    const uint64_t *offset;     /* n_fields + 1 */
    const int32_t *field_date;  /* per field; used for rows when date is NULL */
    const int32_t *date;        /* per row, or NULL */
    const int32_t *ns_pair;     /* per row, 0 <= index < n_pairs */
    const int32_t *ew_pair;
    const int32_t *ns_score;    /* ignored on adjusted rows */
    const uint8_t *adjusted;    /* datum_adjusted code per row, or NULL (all real) */
} datum_rate_chunk;

/* ------------------------------------------------------------------------ */
/* The problem: the kept results of an archive                              */

typedef struct datum_rate_problem datum_rate_problem;

/* Creates an empty problem over pairs 0 .. n_pairs-1 (n_pairs < 2^31).
 * Returns DATUM_OK, DATUM_E_ARG (bad window: from > as_of, negative or
 * non-finite half-life, decay without an as-of date) or DATUM_E_NOMEM. */
int datum_rate_problem_create(datum_ctx *ctx, uint32_t n_pairs, const datum_rate_window *window,
                              datum_rate_problem **out);
/* Frees the problem; accepts NULL and *p == NULL; sets *p to NULL. */
void datum_rate_problem_free(datum_rate_problem **p);

/* Adds a chunk of fields. For each field: its real (non-adjusted) rows inside
 * the window are kept; a field with fewer than 2 kept rows is skipped (not an
 * error). bb, each kept row's Butler IMPs, is computed with the engine's batch
 * kernel against the method's datum over the kept rows only; r_j += w bb and
 * n_j += w for both pairs of the row, in row order. The field's table layout
 * (pairs at each table) is stored once: consecutive fields with the same
 * layout (the boards of one round) are merged by adding their weights.
 * Memory: 8 bytes per stored table, O(largest chunk) scratch. Runs on the
 * context's threads: the same problem, bit for bit, for any thread count.
 * Returns DATUM_OK, DATUM_E_ARG (a pair index out of range, ns == ew, a
 * method the engine refuses, or a call after the problem was solved),
 * DATUM_E_NOMEM. */
int datum_rate_problem_add(datum_ctx *ctx, datum_rate_problem *p, const datum_method *m,
                           const datum_rate_chunk *c);

typedef struct {
    uint64_t fields;         /* fields kept (at least 2 tables) */
    uint64_t fields_one;     /* fields skipped: fewer than 2 kept rows */
    uint64_t rows;           /* rows kept in those fields */
    uint64_t rows_outside;   /* rows ignored for their date */
    uint64_t layouts;        /* distinct consecutive table layouts stored */
    uint32_t pairs;          /* pairs with at least one kept row */
    int32_t first_date, last_date; /* of the kept fields (0 when none) */
} datum_rate_summary;

/* What the chunks added so far kept and skipped. */
void datum_rate_problem_summary(const datum_rate_problem *p, datum_rate_summary *s);

/* n_j and r_j (n_pairs each, owned by the problem, valid until it is freed). */
const double *datum_rate_problem_boards(const datum_rate_problem *p);
const double *datum_rate_problem_butler(const datum_rate_problem *p);
/* n_pairs, as created. */
uint32_t datum_rate_problem_pairs(const datum_rate_problem *p);

/* ------------------------------------------------------------------------ */
/* Solving                                                                  */

typedef enum {
    DATUM_RATE_AUTO = 0,     /* the path of least predicted time (datum_rate_choose) */
    DATUM_RATE_DIRECT = 1,   /* supernodal Cholesky of the gauged system */
    DATUM_RATE_ITERATIVE = 2 /* conjugate gradients, block-Jacobi + coarse preconditioner */
} datum_rate_solver;

/* Fill-reducing ordering of the direct path: asked for in the options
 * (DEFAULT to NESDIS), used in the statistics (AMD to NATURAL, or NONE). */
typedef enum {
    DATUM_RATE_ORDER_NONE = -1,   /* stats: no direct factorisation */
    DATUM_RATE_ORDER_DEFAULT = 0, /* CHOLMOD's choice: AMD, then METIS if AMD fills in much */
    DATUM_RATE_ORDER_AMD = 1,
    DATUM_RATE_ORDER_METIS = 2,
    DATUM_RATE_ORDER_NESDIS = 3,  /* CHOLMOD's nested dissection (METIS + constrained AMD) */
    DATUM_RATE_ORDER_NATURAL = 4  /* stats only: no permutation */
} datum_rate_ordering;

typedef struct {
    datum_rate_solver solver;
    datum_rate_ordering ordering;
    double ridge;          /* lambda >= 0, in boards: (A + lambda W) v = r_c */
    double memory;         /* auto: direct only if the factor takes at most this many bytes */
    double flops;          /* auto: direct only if the factorisation takes at most this many flops */
    double tolerance;      /* relative residual on the range of A, e.g. 1e-10 */
    int max_iterations;    /* iterative path */
    int dense_max;         /* components of at most this many pairs are solved densely (0: none) */
    int block_size;        /* iterative preconditioner: target block size (1: plain Jacobi) */
    int max_numeric;       /* null directions beyond the structure searched, at most */
    const double *warm_start; /* n_pairs earlier ratings (NaN: unknown), or NULL */
    const struct datum_rate_calibration *calibration; /* auto: the rates; NULL: built in */
} datum_rate_options;

#define DATUM_RATE_OPTIONS_INIT \
    {DATUM_RATE_AUTO, DATUM_RATE_ORDER_DEFAULT, 0.0, 8e9, 2e12, 1e-10, 5000, 128, 512, 64, NULL, NULL}

/* ------------------------------------------------------------------------ */
/* The auto choice: predicted seconds per path (choose.c)                   */

/* The three paths auto chooses among. */
typedef enum {
    DATUM_RATE_PATH_DIRECT = 0, /* CHOLMOD's supernodal factorisation of the whole */
    DATUM_RATE_PATH_JACOBI = 1, /* conjugate gradients, plain Jacobi (block size 1) */
    DATUM_RATE_PATH_BLOCK = 2,  /* conjugate gradients, factored blocks + coarse space */
    DATUM_RATE_PATHS = 3
} datum_rate_path;

/* Rates of this machine, single-threaded (so that the choice, hence the
 * ratings, never depends on the thread count). */
typedef struct datum_rate_calibration {
    double factor_flops; /* flop/s of CHOLMOD's supernodal factorisation (the BLAS) */
    double block_flops;  /* flop/s of the preconditioner's block factorisations */
    double matvec;       /* entries of A a second in y = A x, with CG's vector work */
    double solve;        /* entries of a factor a second in a forward + backward solve */
    double analyse;      /* entries of A a second in CHOLMOD's analysis (AMD, METIS) */
    char source[120];    /* where the rates come from, for the report */
} datum_rate_calibration;

/* The built-in rates, measured on the project's machine (docs/performance.md)
 * for the BLAS family loaded in this process: "openblas", "blis" or the
 * reference BLAS. */
void datum_rate_calibration_builtin(datum_rate_calibration *cal);

/* Reads rates from a text file of `name value` lines (the five names above;
 * '#' starts a comment; a missing name keeps the built-in rate). Returns
 * DATUM_OK, DATUM_E_IO (cannot read) or DATUM_E_INPUT (FILE:LINE: an unknown
 * name, a value that is not a positive number). */
int datum_rate_calibration_read(datum_ctx *ctx, const char *path, datum_rate_calibration *cal);

/* The file of the BLAS that dgemm_ resolves to in this process, links
 * resolved (Debian's alternatives), or "none": a string of the process,
 * found on the first call, never freed. */
const char *datum_rate_blas_library(void);

/* What is known before the numeric work. */
typedef struct {
    double pairs;             /* unknowns of the sparse system */
    double matrix_nnz;        /* entries of A, both triangles */
    int analysed;             /* the next three come from CHOLMOD's analysis */
    double factor_nnz, factor_flops, factor_bytes;
    double memory, flops;     /* the direct path's budgets (datum_rate_options) */
    int block_size;           /* of the block path */
    int max_iterations;
    int trial_iterations;     /* Jacobi iterations already run without converging (0: none) */
    double trial_residual;    /* their relative residual at the end */
    double trial_rate;        /* mean reduction of the residual an iteration, over their
                                 second half (0 < rate < 1; 1: no progress) */
    double tolerance;
} datum_rate_forecast;

/* The choice: predicted seconds of every path (INFINITY: excluded, e.g. the
 * factor does not fit the budgets; NaN: not predicted yet), the one chosen. */
typedef struct {
    double seconds[DATUM_RATE_PATHS];
    double iterations[DATUM_RATE_PATHS]; /* CG iterations predicted (0 for direct) */
    datum_rate_path path;
    int trial;                /* 1: first try Jacobi for trial_budget iterations */
    int trial_budget;
    char reason[200];
} datum_rate_choice;

/* The choice as a pure function of the forecast and the rates. Before the
 * analysis (f->analysed == 0, no trial yet): try Jacobi for as many
 * iterations as the analysis is predicted to cost (at least 20); Jacobi
 * converging within them is the fastest path. After it: seconds predicted
 * for each path from the analysis and the trial's convergence rate (Jacobi's
 * iterations extrapolated; block CG's modelled as 0.7 of them), the least
 * chosen. Deterministic: no clock, no thread count. */
void datum_rate_choose(const datum_rate_forecast *f, const datum_rate_calibration *cal,
                       datum_rate_choice *out);

/* What a solve did; every count is over pairs with at least one kept row. */
typedef struct {
    uint32_t pairs;                /* rated pairs */
    uint32_t components;           /* connected components of A */
    uint32_t dense_components;     /* of which solved densely */
    uint32_t largest_component;    /* pairs */
    uint32_t opponent_components;  /* of the opponent graph (met at a table) */
    uint32_t fixed_components;     /* opponent components whose pairs never change direction */
    uint32_t groups;               /* null vectors from fixed-direction groups */
    uint32_t null_structural;      /* indicators + groups (all components) */
    uint32_t null_numeric;         /* found by factorisation beyond the structure (sparse path) */
    uint32_t null_dense;           /* null dimension found by the dense path */
    uint32_t null_dense_structural;/* the structural count of the same components */
    uint32_t null_total;           /* dimension of null(A) used */
    int null_complete;             /* 1: the null space used is the whole of null(A): every
                                      component dense, certified by the structure or
                                      searched on the whole gauged system (direct); 0: some
                                      component only searched in peeled pieces and
                                      preconditioner blocks (iterative) */
    uint32_t certified_components; /* sparse components whose null space the structure
                                      decides (methods.md, "A certified null space") */
    uint32_t certified_pairs;      /* their pairs */
    uint32_t searched_components;  /* sparse components it does not decide: searched
                                      numerically (completely on the direct path only) */
    uint32_t searched_pairs;       /* their pairs */
    uint32_t certify_rounds;       /* rounds of the certificate's closure */
    double residual;               /* ||A v - r|| */
    double least_residual;         /* ||r - r_c||, the least possible */
    double range_residual;         /* ||A v - r_c|| / ||r_c|| (ridge: of the ridge system) */
    double null_check;             /* max over numeric null vectors of ||A z|| / (||A||_1 ||z||) */
    datum_rate_solver path;        /* the path used (DIRECT or ITERATIVE) */
    int iterations;                /* conjugate gradient iterations (iterative) */
    int factorizations;            /* full factorisations (direct: 1 + numeric pins) */
    datum_rate_ordering ordering;  /* of the direct factor: AMD, METIS, NESDIS or NATURAL;
                                      NONE without one (iterative, nothing sparse) */
    int supernodal;                /* 1 if the direct factor is supernodal */
    uint32_t blocks;               /* iterative: preconditioner blocks */
    uint32_t peeled_pieces;        /* iterative: weakly attached pieces searched for null vectors */
    uint32_t coarse;               /* iterative: unknowns of the coarse space (0: none) */
    double matrix_nnz;             /* entries of A (both triangles) */
    double factor_nnz;             /* direct: nnz(L) predicted by the analysis; iterative: blocks */
    double factor_flops;           /* the same for flops */
    double factor_bytes;           /* memory of the factor(s) */
    double predicted_nnz, predicted_flops, predicted_bytes; /* auto: analysis of the whole */
    double time_assemble, time_analyse, time_factorise, time_solve; /* seconds */
    int converged;                 /* 1 if range_residual <= tolerance */
    /* auto: the forecast, the rates and the choice (zero otherwise) */
    int chose;                     /* 1 when auto chose */
    datum_rate_forecast forecast;
    datum_rate_calibration calibration;
    datum_rate_choice choice;
    int block_size;                /* iterative: the block size used (1: plain Jacobi) */
    double time_trial;             /* auto: seconds of the Jacobi trial (also when it solved) */
} datum_rate_stats;

/* Auto's first step, the same for every solver of the system (datum rate,
 * datum-mpi): st->chose = 1, st->calibration from opt (or built in), the
 * forecast of a system of `pairs` unknowns and `matrix_nnz` entries from
 * opt, and the choice before any trial. Returns the Jacobi trial's budget
 * (st->choice.trial_budget). */
int datum_rate_auto_begin(datum_rate_stats *st, const datum_rate_options *opt, double pairs,
                          double matrix_nnz);

/* What a Jacobi trial of `iterations` (stopped at `budget` or before) says,
 * written in st->forecast: the relative residual reached, and the mean
 * reduction an iteration over the second half of trace[0..iterations] (the
 * residual norms, any scale) unless CG stopped early without converging
 * (stagnation: no rate to extrapolate). Returns 1 when the trial converged
 * (residual at most the tolerance), 0 when the choice must be made again
 * (datum_rate_choose on st->forecast). */
int datum_rate_auto_trial(datum_rate_stats *st, int iterations, int budget, double residual,
                          const double *trace);

/* How a component's null space was found. */
typedef enum {
    DATUM_RATE_NULL_DENSE = 1,     /* eigendecomposition (complete) */
    DATUM_RATE_NULL_STRUCTURE = 2, /* certified by the structure, no numerical search */
    DATUM_RATE_NULL_FACTOR = 3,    /* structure + zero pivots of the whole gauged factor
                                      (direct; complete) */
    DATUM_RATE_NULL_SEARCH = 4     /* structure + zero pivots of peeled pieces and
                                      preconditioner blocks (iterative; not complete) */
} datum_rate_null;

/* The solution: per pair (n_pairs each, owned; NaN / -1 for pairs without a
 * kept row). */
typedef struct {
    uint32_t n_pairs;
    double *rating;           /* v_j, IMPs per board */
    double *boards;           /* n_j */
    double *butler_per_board; /* r_j / n_j: raw Butler per weighted board */
    int32_t *component;       /* connected component of A, numbered from 0 in pair order */
    uint32_t n_components;    /* stats.components */
    uint8_t *component_null;  /* per component: how its null space was found (datum_rate_null) */
    datum_rate_stats stats;
} datum_rate_result;

/* Solves the problem (methods.md §6 / docs/methods.md §6): assembles A and
 * r, finds the null space (structurally: opponent components and
 * fixed-direction groups, certified complete where the structure decides it,
 * result->component_null; densely for components of at most dense_max pairs;
 * numerically by factorisation for the rest: completely on the direct path,
 * in peeled pieces and preconditioner blocks of the uncertified components on
 * the iterative one, see stats.null_complete), projects r on the range of A and returns the
 * least-squares solution of smallest sum_j n_j v_j^2 (with ridge > 0, the
 * solution of (A + ridge W) v = r_c). The problem is consumed (no more chunks
 * can be added) but stays valid for datum_rate_problem_boards/_butler.
 * Memory: A (12 bytes an entry, both triangles), its upper triangle for
 * CHOLMOD (16 bytes an entry) and the factor (stats.predicted_bytes), or the
 * preconditioner's blocks; O(pairs) vectors.
 * *out receives a result the caller frees with datum_rate_result_free, also
 * when the return is a warning.
 * Returns DATUM_OK; DATUM_W_EMPTY when no pair has a kept row (an empty
 * result); DATUM_W_INACCURATE when the residual did not reach the tolerance
 * (the result is the best found; stats say how far); DATUM_E_ARG for bad
 * options; DATUM_E_NOMEM; DATUM_E_NUMERIC when CHOLMOD fails otherwise. */
int datum_rate_solve(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *opt,
                     datum_rate_result **out);
/* Frees a result; accepts NULL and *r == NULL; sets *r to NULL. */
void datum_rate_result_free(datum_rate_result **r);

/* ------------------------------------------------------------------------ */
/* Rating history: the ratings as of the end of every period, in one pass   */
/* (docs/methods.md, "Rating history")                                      */

typedef enum {
    DATUM_RATE_EVERY_MONTH = 1,   /* calendar months: as of Jan 31, Feb 28/29, ... */
    DATUM_RATE_EVERY_QUARTER = 3, /* Mar 31, Jun 30, Sep 30, Dec 31 */
    DATUM_RATE_EVERY_YEAR = 12    /* Dec 31 */
} datum_rate_every;

/* The as-of dates of a history from `first` to `last` (days since
 * 1970-01-01): the end of the period that holds `first`, every later period
 * end before `last`, then `last` itself (the final period, whole when `last`
 * is its end, else up to `last`). *dates receives n_dates increasing dates,
 * allocated with the context's allocator: the caller frees them with
 * datum_free. Returns DATUM_OK; DATUM_E_ARG (an unknown period, first > last,
 * a date outside the years 1 to 9999); DATUM_E_NOMEM. On failure *dates is
 * NULL and *n_dates 0. */
int datum_rate_history_dates(datum_ctx *ctx, datum_rate_every every, int32_t first, int32_t last,
                             int32_t **dates, size_t *n_dates);

typedef struct datum_rate_history datum_rate_history;

/* Creates an empty history over pairs 0 .. n_pairs-1 (n_pairs < 2^31): the
 * ratings as of each of the n_dates increasing as_of[] dates (copied), each
 * with the window [from, as_of[k]] (from: INT32_MIN for no lower bound) and
 * board weights 0.5^((as_of[k] - date) / half_life) (half_life 0: no decay).
 * Returns DATUM_OK; DATUM_E_ARG (no date, dates not increasing, a date before
 * from or equal to INT32_MAX, a negative or non-finite half-life);
 * DATUM_E_NOMEM. Memory: two doubles per pair and date (each period's r and
 * n) until the date is solved, plus 8 bytes per stored table, once. */
int datum_rate_history_create(datum_ctx *ctx, uint32_t n_pairs, int32_t from, double half_life,
                              const int32_t *as_of, size_t n_dates, datum_rate_history **out);
/* Frees the history; accepts NULL and *h == NULL; sets *h to NULL. */
void datum_rate_history_free(datum_rate_history **h);

/* Adds a chunk of whole fields, as datum_rate_problem_add: each field's real
 * rows inside [from, last as-of date] are scored once (the datum over the
 * rows kept as of each date: a field whose rows have dates in different
 * periods is scored once per period, over the rows up to it) and the field
 * goes to the first as-of date at or after its date. Returns DATUM_OK;
 * DATUM_E_ARG (as datum_rate_problem_add; a call after the first solve; a
 * half-life that decays a kept board below 2^-1000 between its date and the
 * last as-of date: such a history is refused rather than approximated);
 * DATUM_E_NOMEM. */
int datum_rate_history_add(datum_ctx *ctx, datum_rate_history *h, const datum_method *m,
                           const datum_rate_chunk *c);

/* How many as-of dates, and date k (INT32_MIN when k is out of range). */
size_t datum_rate_history_count(const datum_rate_history *h);
int32_t datum_rate_history_as_of(const datum_rate_history *h, size_t k);

/* Solves as of date k, which must be the next one (0, 1, 2, ... in turn):
 * the boards up to it join the system (the earlier ones decayed by the
 * half-life over the time since date k-1) and it is solved as
 * datum_rate_solve solves a problem holding exactly the results kept as of
 * date k (same window, same weights, same components and null space), with
 * the options given; from date 1 on, the iterative path starts from the
 * ratings of date k-1 (opt->warm_start is used for date 0 only). With
 * DATUM_RATE_AUTO each date's path is chosen as datum_rate_solve chooses it
 * (datum_rate_choose; stats.chose, stats.choice), except that the factor of
 * a date that took the direct path is kept and preconditions the iterative
 * path on the following dates, without a choice, until it no longer serves
 * (docs/methods.md, "Rating history"); stats.path says which path a date
 * took. *out receives a result the caller frees with datum_rate_result_free
 * (also on a warning); no more chunks can be added afterwards. Memory: A,
 * the running layouts and one factor are kept between calls.
 * Returns what datum_rate_solve returns (DATUM_OK, DATUM_W_EMPTY: no pair
 * rated yet, DATUM_W_INACCURATE, DATUM_E_ARG, DATUM_E_NOMEM, DATUM_E_NUMERIC),
 * or DATUM_E_ARG when k is not the next date or an earlier solve failed
 * (after an error the history can only be freed). */
int datum_rate_history_solve(datum_ctx *ctx, datum_rate_history *h, size_t k,
                             const datum_rate_options *opt, datum_rate_result **out);

/* ------------------------------------------------------------------------ */
/* A problem in slices (datum-mpi; mpi/rate_petsc.c)                        */

/* Each process of datum-mpi adds the chunks of its slice of the archive to
 * a problem of its own: the whole problem is the sum of the slices' (r, n
 * and A add up; tables are the union). The structural null space of the
 * whole (docs/methods.md, "The null space": opponent components and groups
 * of fixed-direction components) comes from union-finds over the pairs,
 * each slice's merged across slices. */

/* A slice's union-finds: parents of A's components and of the opponent
 * graph, and per pair the directions seen (bit 1 North-South, 2 East-West). */
typedef struct {
    uint32_t n_pairs;
    uint32_t *fa, *fo;
    uint8_t *seen;
} datum_rate_unions;

/* The unions of p's layouts into *out (freed with datum_rate_unions_free).
 * DATUM_OK or DATUM_E_NOMEM (*out zeroed). */
int datum_rate_problem_unions(datum_ctx *ctx, const datum_rate_problem *p, datum_rate_unions *out);
/* Merges another slice's unions (arrays of u->n_pairs) into u. */
void datum_rate_unions_merge(datum_rate_unions *u, const uint32_t *fa, const uint32_t *fo,
                             const uint8_t *seen);
void datum_rate_unions_free(datum_rate_unions *u); /* zeroes *u; accepts a zeroed one */
/* parent[i] united with other[i] for every i < n (two union-finds merged). */
void datum_rate_unite(uint32_t *parent, const uint32_t *other, uint32_t n);

/* The structural null space of the whole: per pair its component of A and
 * its opponent component (numbered in pair order; -1 for a pair without a
 * board, n[j] == 0) and its direction (+1 always NS, -1 always EW, 0 both);
 * per opponent component whether it is fixed and its group (-1: none). */
typedef struct {
    uint32_t n_pairs;
    int32_t *acomp, *ocomp;
    uint32_t n_acomp, n_ocomp;
    int8_t *sign;
    uint8_t *ofixed;
    int32_t *ogroup;
    uint32_t n_group, n_fixed;
} datum_rate_null_structure;

/* From the merged unions u and the whole's boards n (n_pairs): everything
 * but the groups (ogroup all -1). DATUM_OK or DATUM_E_NOMEM (*s zeroed). */
int datum_rate_null_structure_create(datum_ctx *ctx, datum_rate_unions *u, const double *n,
                                     datum_rate_null_structure *s);
/* The groups, a slice at a time: on p's layouts, unites the fixed
 * components sharing a field (fg: a union-find over the n_ocomp opponent
 * components, identity to start) and taints (tainted[c] = 1) a group
 * sharing a field with a component that is not fixed. Merge the slices' fg
 * with datum_rate_unite and their taints with a logical or, then: */
void datum_rate_problem_fixed(const datum_rate_problem *p, const datum_rate_null_structure *s,
                              uint32_t *fg, uint8_t *tainted);
/* numbers the untainted groups: s->ogroup, s->n_group, s->n_fixed. */
void datum_rate_null_structure_groups(datum_rate_null_structure *s, uint32_t *fg, uint8_t *tainted);
void datum_rate_null_structure_free(datum_rate_null_structure *s);

/* The entries of A that p's layouts give (both triangles; a pair's entries
 * summed within the slice), as *nnz coordinates: row[e], col[e], val[e],
 * allocated with the context's allocator (the caller frees them with
 * datum_free). The same assembly as datum_rate_solve's. DATUM_OK or
 * DATUM_E_NOMEM (NULL arrays, *nnz 0). */
int datum_rate_problem_entries(datum_ctx *ctx, const datum_rate_problem *p, uint64_t *nnz,
                               int32_t **row, int32_t **col, double **val);

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

/* Pearson correlation of x and y over the i with weight[i] > 0 and both
 * values finite, each i weighing weight[i] (weighted) or 1 (unweighted).
 * NaN when fewer than 2 such i or a variance is 0. *count receives how many
 * i took part (may be NULL). */
double datum_rate_pearson(size_t n, const double *x, const double *y, const double *weight,
                          int weighted, size_t *count);

/* Out-of-sample prediction: accumulated over later fields, for each kept row
 * and each of its two pairs j that has a rating, the model's expected Butler
 * (v_j - v(a) + (1/(L-1)) sum_ao v - (1/(L-1)) sum_mo v, unrated pairs
 * counting 0) against the actual bb. */
typedef struct {
    uint64_t count;   /* predictions made */
    uint64_t skipped; /* pair appearances without a rating */
    double sum_err2;  /* sum (bb - predicted)^2 */
    double sp, sy, spp, syy, spy; /* sums for the correlation */
} datum_rate_prediction;

/* Adds the fields of a chunk that fall in window (rows outside it, adjusted
 * rows and one-table fields ignored, bb as in datum_rate_problem_add) to
 * *acc, predicting with rating[n_pairs] (NaN: no rating). Deterministic (row
 * order). Returns DATUM_OK, DATUM_E_ARG or DATUM_E_NOMEM. */
int datum_rate_predict(datum_ctx *ctx, const datum_rate_window *window, const datum_method *m,
                       const datum_rate_chunk *c, uint32_t n_pairs, const double *rating,
                       datum_rate_prediction *acc);

/* RMSE and Pearson correlation of an accumulated prediction (NaN if empty). */
void datum_rate_prediction_summary(const datum_rate_prediction *acc, double *rmse, double *corr);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_RATE_H */
