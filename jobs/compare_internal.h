/* compare_internal.h - what the files of `datum compare` share: the rank
 * helpers of compare_stats.c and the report of compare_report.c. */
#ifndef DATUM_COMPARE_INTERNAL_H
#define DATUM_COMPARE_INTERNAL_H

#include "datum_compare.h"

/* Stable sort of idx[0..n) by key[idx[i]] ascending; tmp: n entries. */
void compare_sort_by(size_t n, const double *key, uint32_t *idx, uint32_t *tmp);
/* Mid-ranks (1-based, ties the mean of their ranks) of v[0..n) into rank;
 * idx and tmp: n entries of scratch. */
void compare_mid_ranks(size_t n, const double *v, double *rank, uint32_t *idx, uint32_t *tmp);
/* Pearson correlation of x and y (NaN when n < 2 or a variance is 0). */
double compare_pearson(size_t n, const double *x, const double *y);
/* Kendall's tau-b by counting every pair, O(n^2). */
double compare_tau_b(size_t n, const double *x, const double *y);

/* The same from ranks (integers: twice the mid-ranks), O(n^2) without a
 * branch. */
double compare_tau_b_ranks(size_t n, const int32_t *x, const int32_t *y);

/* Rankings compare_tau_b_ranks_all takes at most: every method and the truth. */
enum { COMPARE_RANKINGS_MAX = DATUM_COMPARE_MAX_METHODS + 1 };

/* Item pairs compare_tau_b_ranks_all keeps per ranking before summing; its
 * scratch per ranking (a block and the 16 signs written past it); the
 * entries it reads past each ranking's n (their values unused). */
enum { COMPARE_TAU_BLOCK = 1024, COMPARE_TAU_STRIDE = COMPARE_TAU_BLOCK + 16, COMPARE_TAU_PAD = 16 };

/* Kendall's tau-b of every two of m <= COMPARE_RANKINGS_MAX rankings of the
 * same n <= COMPARE_TAU_BLOCK + 1 items, rank[a][j] the integer rank of item
 * j under ranking a: into tau[a * m + b] and tau[b * m + a] (a != b; NaN
 * where undefined), the same figures as compare_tau_b_ranks on each two.
 * Each two items are compared once per ranking, not once per two rankings.
 * rank[a] must be readable up to n + COMPARE_TAU_PAD entries (those past n
 * are read eight at a time with the others, and not used). sign: m *
 * COMPARE_TAU_STRIDE entries of scratch. O(m^2 n^2 / 2), for events' small
 * groups. */
void compare_tau_b_ranks_all(size_t n, size_t m, const int32_t *const *rank, int16_t *sign,
                             double *tau);
/* The same with AVX2's wider vectors (avx2 nonzero; where the compiler can
 * build them, on a processor that has them) or without: the figures do not
 * depend on it. compare_tau_b_ranks_all asks the processor. */
void compare_tau_b_ranks_all_on(size_t n, size_t m, const int32_t *const *rank, int16_t *sign,
                                double *tau, int avx2);

/* The report (compare_report.c) of a run summarised in *s. */
int compare_report_write(datum_ctx *ctx, const datum_compare_summary *s, const char *dir,
                         const char *command_line, const char *machine);

#endif
