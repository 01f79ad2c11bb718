/* rate_test_util.h - small archives built in memory for the rating tests, and
 * the independent dense reference: A and r written from seed 000's equation
 * for each pair, solved with LAPACK (the library's code is not used). */
#ifndef DATUM_RATE_TEST_UTIL_H
#define DATUM_RATE_TEST_UTIL_H

#include "test_util.h"
#include "datum_rate.h"

/* Rows sorted by field, as the chunk reader hands them out. */
typedef struct {
    uint32_t n_pairs;
    size_t n_fields, n_rows, fields_cap, rows_cap;
    uint64_t *offset;
    int32_t *field_date;
    int32_t *ns, *ew, *score, *date;
    uint8_t *adjusted;
} tarch;

void tarch_init(tarch *a, uint32_t n_pairs);
void tarch_free(tarch *a);
/* Starts a field dated `date`; rows follow with tarch_row. */
void tarch_field(tarch *a, int32_t date);
void tarch_row(tarch *a, int32_t ns, int32_t ew, int32_t score, uint8_t adjusted);
datum_rate_chunk tarch_chunk(const tarch *a);

/* Adds an event: `rounds` rounds of `boards` boards, every table playing the
 * same boards in a round; table t of round k seats ns[k][t] against ew[k][t]
 * (arrays rounds x tables, row-major); scores 100 x (strength of NS minus
 * strength of EW, NULL: 0) plus noise, in multiples of 10. */
void tarch_event(tarch *a, test_rng *rng, int32_t date, int rounds, int tables, int boards,
                 const int32_t *ns, const int32_t *ew, const double *strength);

/* A random archive of n_pairs pairs and `events` events of every kind
 * (Howell-like, Mitchell-like, 2-table matches), some adjusted rows and
 * one-table fields; strengths for the scores (may be NULL: random). */
void tarch_random(tarch *a, test_rng *rng, uint32_t n_pairs, int events, const double *strength);

/* Solves with the library: checks the return code (expect, or either of
 * DATUM_OK and DATUM_W_INACCURATE), returns the result. */
#define RATE_OK_OR_INACCURATE 1000
datum_rate_result *rate_run(const tarch *a, const datum_rate_window *w,
                            const datum_rate_options *o, int threads, int expect);

/* The dense reference: v[n_pairs] (NaN for pairs without a kept row), the
 * null dimension, ||r - r_c|| and ||A v - r_c|| / ||r_c|| of the library's
 * solution lib_v (if not NULL) measured with the reference's A. */
typedef struct {
    int null_dim;
    double least_residual;
    double lib_range_residual;
} reference_info;

/* Seed 000's system written pair by pair from the rows (the library's code
 * is not used): A (n_pairs x n_pairs, row-major), r and n (n_pairs each). */
void reference_system(const tarch *a, const datum_rate_window *w, double *A, double *r, double *n);

void reference_solve(const tarch *a, const datum_rate_window *w, double ridge, double *v,
                     const double *lib_v, reference_info *info);

/* max over rated pairs of |x - y|. */
double max_diff(uint32_t n, const double *x, const double *y);

#endif
