/*
 * datum_alloc.h - the one allocator of datum's libraries (engine, io,
 * solvers, datasets, jobs). Not part of the public API: the libraries share
 * it, programs and users do not need it (tests use the failure countdown).
 *
 * Every allocation of library code goes through these functions with the
 * context of the call, the way CHOLMOD's go through cholmod_common: so that
 * an allocation failure is always recorded as DATUM_E_NOMEM "out of memory
 * (...)" in that context, and a test can refuse the k-th allocation of any
 * job (datum_ctx_fail_allocation) and see it fail cleanly.
 *
 * Memory from these functions is released with datum_free (the C library's
 * free underneath, so it needs no context and accepts NULL).
 * The functions are safe to call from several threads at once on one context
 * (the countdown is atomic); the error itself is recorded the first time only.
 */
#ifndef DATUM_ALLOC_H
#define DATUM_ALLOC_H

#include <stddef.h>

#include "datum.h"

/* n elements of `size` bytes, uninitialised. n * size is checked for
 * overflow; n == 0 still returns a pointer to free, so that NULL always means
 * failure. Returns NULL and records DATUM_E_NOMEM on failure.
 * ctx may be NULL where there is no context to charge (the context itself, a
 * memory probe): such a call is counted nowhere, never refused by the
 * countdown, and its failure is recorded nowhere (NULL still says it). */
void *datum_malloc(datum_ctx *ctx, size_t n, size_t size);
/* The same, zero-filled. */
void *datum_calloc(datum_ctx *ctx, size_t n, size_t size);
/* Makes the array *pp (a T **, passed as void *) hold exactly n elements of
 * `size` bytes, keeping the first min(old, n) (realloc). DATUM_OK, or
 * DATUM_E_NOMEM (recorded; *pp unchanged and still owned by the caller). */
int datum_resize(datum_ctx *ctx, void *pp, size_t n, size_t size);
/* Makes the array *pp hold at least `need` elements, *cap being its capacity
 * (doubling, from 16). DATUM_OK, or DATUM_E_NOMEM (recorded; *pp and *cap
 * unchanged). */
int datum_reserve(datum_ctx *ctx, void *pp, size_t *cap, size_t need, size_t size);
/* datum_reserve for `count` arrays that share one capacity *cap: each
 * *arrays[i] (a T_i **) of elements of sizes[i] bytes comes to hold at least
 * `need` elements. DATUM_OK, or DATUM_E_NOMEM (recorded; *cap unchanged, the
 * arrays grown before the failure still valid, only larger). */
int datum_reserve_all(datum_ctx *ctx, size_t *cap, size_t need, int count, void *const *arrays,
                      const size_t *sizes);
/* A copy of s (not NULL); NULL and DATUM_E_NOMEM recorded on failure. */
char *datum_strdup(datum_ctx *ctx, const char *s);
/* Releases memory from the functions above; accepts NULL. */
void datum_free(void *p);

/* Starts `threads` threads (at most 1024) in OpenMP's pool now: their
 * stacks are memory too, and OpenMP's runtime ends the program when it cannot
 * create a thread in a parallel region. DATUM_OK, or DATUM_E_NOMEM "out of
 * memory (starting N threads ...)" recorded. datum_ctx_set_threads calls it;
 * a library whose own parallel regions use more threads (CHOLMOD's) calls it
 * with their count before them. */
int datum_start_threads(datum_ctx *ctx, int threads);

/* ------------------------------------------------------------------------ */
/* The failure countdown, for tests.                                        */

/* From now on, the allocation numbered k (0: the next one) made through ctx
 * fails as if the system had no memory; the ones before and after succeed.
 * k < 0 turns the countdown off (the default). Resets the count below. */
void datum_ctx_fail_allocation(datum_ctx *ctx, long k);
/* Allocations made through ctx since its creation or the last
 * datum_ctx_fail_allocation (failed ones included). */
long datum_ctx_allocations(const datum_ctx *ctx);

#endif
