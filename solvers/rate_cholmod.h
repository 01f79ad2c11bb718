/*
 * rate_cholmod.h - the few things solvers/ does with CHOLMOD (SuiteSparse),
 * 64-bit integer interface (cholmod_l_*). Not public.
 */
#ifndef DATUM_RATE_CHOLMOD_H
#define DATUM_RATE_CHOLMOD_H

#include "rate_internal.h"

#include <cholmod.h>

/* cholmod_l_start with datum's settings: no printing, no error handler (the
 * status is checked after every call). */
void rate_cm_start(cholmod_common *cm);

/* Translates cm->status after `what` into a context error: DATUM_OK for
 * CHOLMOD_OK and warnings (CHOLMOD_NOT_POSDEF is left to the caller, which
 * must look at L->minor); DATUM_E_NOMEM "out of memory (CHOLMOD, what)" when
 * CHOLMOD ran out of memory (or sizes overflowed its integers);
 * DATUM_E_NUMERIC otherwise. ctx may be NULL: the code alone. */
int rate_cm_check(datum_ctx *ctx, const cholmod_common *cm, const char *what);
/* The code of a CHOLMOD call that failed (returned NULL or FALSE):
 * DATUM_E_NOMEM or DATUM_E_NUMERIC, as rate_cm_check; records nothing. */
int rate_cm_failed(const cholmod_common *cm);

/* The upper triangle of A over the pairs j with index[j] >= 0, numbered
 * index[j] in increasing order of j (pair_of[k] is the pair numbered k,
 * k < n, increasing: A's stored triangle is then CHOLMOD's upper one,
 * column by column), as a symmetric (stype 1) real CHOLMOD matrix, values
 * as rate_cm_fill puts them; filled by `threads` threads (1 inside a
 * parallel region). Returns NULL on failure (recorded in ctx, which may be
 * NULL). */
cholmod_sparse *rate_cm_upper(datum_ctx *ctx, int threads, const rate_matrix *a,
                              const int32_t *index, const uint32_t *pair_of, size_t n,
                              const double *shift, const uint8_t *pinned, cholmod_common *cm);

/* Refills the values of m (made by rate_cm_upper with the same index): A's,
 * plus shift[j] on the diagonal (shift may be NULL), and the row and column
 * of every pair with pinned[j] (pinned may be NULL) made an identity: the
 * pattern stays, so one analysis serves every refill. */
void rate_cm_fill(cholmod_sparse *m, int threads, const rate_matrix *a, const int32_t *index,
                  const uint32_t *pair_of, const double *shift, const uint8_t *pinned);

/* Makes unknown k of M (stype 1) an identity row and column, keeping the
 * pattern (so that the analysis stays valid): the gauge of a new pin. */
void rate_cm_pin(cholmod_sparse *m, SuiteSparse_long k);

/* Relative pivot below which a factorisation counts as singular there: a
 * true null direction gives a pivot of rounding size, not always <= 0. */
#define RATE_PIVOT_TOL 1e-10

/* The first column k (in the factor's order) whose pivot is at most tol times
 * M's diagonal entry there, the pivot being L_kk^2 (LL') or D_kk (LDL');
 * columns from L->minor on are not looked at. Returns k, or L->minor (n
 * after a successful factorisation) if none; its unknown is L->Perm[k]. */
SuiteSparse_long rate_cm_zero_pivot(const cholmod_factor *L, const cholmod_sparse *M, double tol);

/* Bytes of a factor's numerical values and indices. */
double rate_cm_factor_bytes(const cholmod_factor *L);

#endif
