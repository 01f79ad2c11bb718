/* scale.c - IMP scales (§1): the WBF table and its linear "Bastille" variant.
 *
 * Every boundary of the WBF table is a multiple of 5, so |d| >= boundary is
 * the same as floor(|d|/5) >= boundary/5: one table indexed by floor(|d|/5)
 * decides the band exactly for any rational d, with integer arithmetic only. */
#include "datum.h"
#include "internal.h"

#include <math.h>
#include <threads.h>

/* Midpoints between the WBF bands: |d| >= kBoundary[i] gives at least i+1 IMPs. */
static const int kBoundary[DATUM_WBF_BANDS] = {
    15,  45,  85,  125,  165,  215,  265,  315,  365,  425,  495,  595,
    745, 895, 1095, 1295, 1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995};

/* datum_imp_by_fifth[q] = WBF IMPs of any |d| with floor(|d|/5) == q, q capped
 * at 800. Generated from kBoundary (tests/engine/test_scale.c checks it against it). */
const unsigned char datum_imp_by_fifth[DATUM_WBF_FIFTHS + 1] = {
    0,0,0,1,1,1,1,1,1,2,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3,4,4,4,4,4,4,4,4,5,5,5,5,5,5,5,
    5,5,5,6,6,6,6,6,6,6,6,6,6,7,7,7,7,7,7,7,7,7,7,8,8,8,8,8,8,8,8,8,8,9,9,9,9,9,9,9,
    9,9,9,9,9,10,10,10,10,10,10,10,10,10,10,10,10,10,10,11,11,11,11,11,11,11,11,11,11,11,11,11,11,11,11,11,11,11,11,12,
    12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,13,13,13,13,13,13,13,13,13,13,13,
    13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,
    14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,
    15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,
    16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,
    17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,17,18,18,18,18,18,18,18,18,18,18,18,
    18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,19,
    19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,19,
    19,19,19,19,19,19,19,19,19,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,
    20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,
    21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,
    21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,21,22,
    22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,
    22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,
    22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,22,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,
    23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,
    23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,23,24,
    24,
};

int datum_wbf_boundary(int band) { return kBoundary[band]; }

/* datum_imp_by_point's table: too long to write out (8401 entries), built
 * from datum_imp_wbf once by the first caller. */
static int8_t kImpByPoint[2 * DATUM_IMP_BY_POINT_MAX + 1];
static once_flag kImpByPointOnce = ONCE_FLAG_INIT;

static void build_imp_by_point(void)
{
    for (int x = -DATUM_IMP_BY_POINT_MAX; x <= DATUM_IMP_BY_POINT_MAX; x++)
        kImpByPoint[x + DATUM_IMP_BY_POINT_MAX] = (int8_t)datum_imp_wbf((double)x);
}

const int8_t *datum_imp_by_point(void)
{
    call_once(&kImpByPointOnce, build_imp_by_point);
    return kImpByPoint + DATUM_IMP_BY_POINT_MAX;
}

int datum_imp_wbf(double diff)
{
    double a = fabs(diff);
    int band = 0;
    while (band < DATUM_WBF_BANDS && a >= kBoundary[band]) band++;
    return diff < 0 ? -band : band;
}

/* The linear scale's segments: below 45 (0), between kBoundary[i] and
 * kBoundary[i+1] (i = 1..19), from 2495 (20). On segment s the value of
 * x/den is (x + kSegC[s] den) / (kSegW[s] den): one correctly rounded
 * division; kSegLow[s] its lower end (0 for the first). */
enum { SEGMENTS = 21 };
static const int64_t kSegLow[SEGMENTS] = {0,   45,  85,  125,  165,  215,  265,
                                          315, 365, 425, 495,  595,  745,  895,
                                          1095, 1295, 1495, 1745, 1995, 2245, 2495};
static const int64_t kSegW[SEGMENTS] = {30, 40, 40, 40, 50, 50, 50, 50, 60, 70, 100,
                                        150, 150, 200, 200, 200, 250, 250, 250, 250, 500};
static const int64_t kSegC[SEGMENTS] = {0,    15,   15,   15,   60,   60,   60,
                                        60,   145,  240,  555,  1130, 1130, 1805,
                                        1805, 1805, 2630, 2630, 2630, 2630, 7755};

/* Linear scale of the exact non-negative x/den. The segment comes from the
 * WBF band of x/den (segment = band - 1 within 0..20) at a floating-point
 * estimate of floor(x / (5 den)) (off by one at most; one_fifth_den is
 * 1 / (5 den)), then is settled by exact comparisons; no branch on the
 * segment itself (the rows of a field lie on all of them). */
static inline double linear_magnitude(int64_t x, int64_t den, double one_fifth_den)
{
    /* band - 1 within 0..20, from a table: a clamp compiles to branches */
    static const uint8_t kSegOfBand[DATUM_WBF_BANDS + 1] = {0,  0,  1,  2,  3,  4,  5,  6,  7,
                                                            8,  9,  10, 11, 12, 13, 14, 15, 16,
                                                            17, 18, 19, 20, 20, 20, 20};
    double fifths = (double)x * one_fifth_den;
    int64_t s = kSegOfBand[datum_wbf_band_of_fifths(fifths < DATUM_WBF_FIFTHS ? (int64_t)fifths
                                                                              : DATUM_WBF_FIFTHS)];
    while (x < kSegLow[s] * den) s--; /* kSegLow[0] is 0: never below */
    while ((s < SEGMENTS - 1) & (x >= kSegLow[s < SEGMENTS - 1 ? s + 1 : s] * den)) s++;
    return (double)(x + kSegC[s] * den) / (double)(kSegW[s] * den);
}

/* datum_imp_ratio, one_fifth_den given (1 / (5 den)). */
static inline double imp_ratio(const datum_scale *scale, int64_t num, int64_t den, double one_fifth_den)
{
    if (scale->doubled) num *= 2;
    int64_t x = num < 0 ? -num : num;
    double mag = scale->kind == DATUM_SCALE_WBF
                     ? (double)datum_wbf_band_of_fifths(x / (5 * den))
                     : linear_magnitude(x, den, one_fifth_den);
    if (scale->halved) mag *= 0.5;
    /* The sign as a factor (the rows of a field are on both sides of the
     * datum); + 0.0 turns -0 into +0: no "-0" in outputs. */
    static const double kSign[2] = {1.0, -1.0};
    return kSign[num < 0] * mag + 0.0;
}

double datum_imp_ratio(const datum_scale *scale, int64_t num, int64_t den)
{
    return imp_ratio(scale, num, den, 1.0 / (double)(5 * den));
}

void datum_imp_ratio_rows(const datum_scale *scale, const int32_t *scores, size_t n, int64_t num,
                          int64_t den, double *ns, double *ew)
{
    double one_fifth_den = 1.0 / (double)(5 * den); /* once per field, not per row */
    for (size_t i = 0; i < n; i++) {
        ns[i] = imp_ratio(scale, (int64_t)scores[i] * den - num, den, one_fifth_den);
        ew[i] = 0.0 - ns[i];
    }
}

double datum_imp(const datum_scale *scale, double diff)
{
    if (scale->doubled) diff *= 2;
    double a = fabs(diff), mag;
    if (scale->kind == DATUM_SCALE_WBF) {
        mag = datum_imp_wbf(a);
    } else if (a < 45) {
        mag = a / 30;
    } else if (a >= 2495) {
        mag = (a + 7755) / 500;
    } else {
        int i = 1;
        while (a >= kBoundary[i + 1]) i++;
        double w = kBoundary[i + 1] - kBoundary[i];
        mag = i + 0.5 + (a - kBoundary[i]) / w;
    }
    if (scale->halved) mag *= 0.5;
    return diff < 0 ? 0.0 - mag : mag;
}
