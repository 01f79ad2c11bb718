/* internal.h - helpers shared by the engine's own files; not public. */
#ifndef DATUM_INTERNAL_H
#define DATUM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "datum.h"

#define DATUM_WBF_BANDS 24
#define DATUM_WBF_FIFTHS 800 /* floor(4000/5): 24 IMPs from there on */

/* The WBF table by fifths (scale.c); read through the function below. */
extern const unsigned char datum_imp_by_fifth[DATUM_WBF_FIFTHS + 1];

/* WBF IMPs of a non-negative difference d given as floor(d/5). Inline: it is
 * the inner loop of every Butler conversion. */
static inline int datum_wbf_band_of_fifths(int64_t fifths)
{
    return datum_imp_by_fifth[fifths > DATUM_WBF_FIFTHS ? DATUM_WBF_FIFTHS : fifths];
}
/* The signed WBF IMPs of every whole difference x with |x| <=
 * DATUM_IMP_BY_POINT_MAX, read as table[x] (x may be negative) from the
 * pointer datum_imp_by_point returns (scale.c; built once, thread-safe; the
 * table is never freed). A difference clamped to the range keeps its IMPs
 * (24 from 3995 on), so a kernel pays a subtraction, a clamp and one load per
 * difference, without a sign, a division or a bound of its own. */
#define DATUM_IMP_BY_POINT_MAX 4200
const int8_t *datum_imp_by_point(void);
static inline int64_t datum_point_clamp(int64_t x)
{
    return x < -DATUM_IMP_BY_POINT_MAX ? -DATUM_IMP_BY_POINT_MAX
           : x > DATUM_IMP_BY_POINT_MAX ? DATUM_IMP_BY_POINT_MAX
                                        : x;
}
/* datum_field_butler, the scores of all n rows known to lie in [lo, hi]
 * (INT32_MIN and INT32_MAX: nothing known): when the datum lies within the
 * IMP table's reach of both (a rounded WBF datum, the usual case), no row's
 * difference is clamped. The same figures. */
void datum_field_butler_within(const datum_scale *scale, const datum_adjusted_imps *award,
                               const int32_t *scores, const uint8_t *adjusted, size_t n,
                               datum_value d, int32_t lo, int32_t hi, double *ns_imps,
                               double *ew_imps);
/* datum_field_cross, the n scores known to lie in [lo, hi]: a small WBF
 * field whose scores lie within the IMP table's reach of each other compares
 * them without a clamp. The same figures. */
void datum_field_cross_within(const datum_scale *scale, const int32_t *scores, size_t n,
                              int32_t lo, int32_t hi, int32_t *work, double *raw);
/* The band's lower boundary (band 0..23 -> 15..3995). */
int datum_wbf_boundary(int band);

/* datum_imp_ratio(scale, scores[i] * den - num, den) into ns[i] and its
 * negation into ew[i] for every i < n (den > 0): the same figures, with the
 * conversion inline and what depends on den alone computed once. */
void datum_imp_ratio_rows(const datum_scale *scale, const int32_t *scores, size_t n, int64_t num,
                          int64_t den, double *ns, double *ew);

/* Sorts a[0..n) ascending in place; no allocation. */
void datum_sort_i32(int32_t *a, size_t n);

/* Counts one allocation through ctx (context.c) and says whether the failure
 * countdown refuses it (alloc.c); 0 for a NULL ctx. */
int datum_ctx_allocation_refused(datum_ctx *ctx);

#endif
