/* matchpoints.c - matchpoints of one field (docs/methods.md, "Matchpoints").
 *
 * On the 2/1 scale a real result scores 2 for every other real result of the
 * field it beats and 1 for every tie: with lo results below it and hi at or
 * below it (itself included), m = 2 lo + (hi - lo - 1) = lo + hi - 1, an
 * integer, top 2(r - 1) for r real results; East-West get top - m. Adjusted
 * results take no part in the comparison; they score a share of the field's
 * top. Neuberg's formula factors the real results' matchpoints up to the
 * field size N they are scored on (the event's largest field, or the field's
 * own rows when some are adjusted): m' = (m + 1) N / r - 1, top 2(N - 1). */
#include "datum.h"

#include <stddef.h>

/* Fields of up to this many real results compare every pair of scores (no
 * branch, vectorised); larger ones sort and search. */
#define DIRECT_MAX 48

/* Sorts a[0..n) ascending in place, without allocating: insertion sort for
 * the small fields of every day, heapsort past them. */
static void sort_scores(int32_t *a, size_t n)
{
    if (n <= 48) {
        for (size_t i = 1; i < n; i++) {
            int32_t v = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    for (size_t start = n / 2; start-- > 0;) { /* heapify, then pop the largest to the end */
        for (size_t root = start, child; (child = 2 * root + 1) < n; root = child) {
            if (child + 1 < n && a[child] < a[child + 1]) child++;
            if (a[root] >= a[child]) break;
            int32_t t = a[root]; a[root] = a[child]; a[child] = t;
        }
    }
    for (size_t end = n; end-- > 1;) {
        int32_t t = a[0]; a[0] = a[end]; a[end] = t;
        for (size_t root = 0, child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && a[child] < a[child + 1]) child++;
            if (a[root] >= a[child]) break;
            t = a[root]; a[root] = a[child]; a[child] = t;
        }
    }
}

/* Number of entries of sorted[0..n) below v (strictly, or at most v). */
static size_t count_below(const int32_t *sorted, size_t n, int32_t v, int or_equal)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v || (or_equal && sorted[mid] == v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* An adjusted row's matchpoints: its code's shares of the top. */
static void award(const datum_adjusted_imps *share, uint8_t code, double top, double unit,
                  double *ns_mp, double *ew_mp)
{
    double ns, ew;
    datum_adjusted_award(share, code, &ns, &ew);
    *ns_mp = ns * top * unit;
    *ew_mp = ew * top * unit;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* What the rows of a small field take from its scores and top, for four rows
 * at a time on SSE2. */
typedef struct {
    const int32_t *real; /* the real results' scores */
    size_t n_real;
    int factored;
    __m128d one, size, r, top, unit;
} direct_field;

/* Rows v (four scores) against every real score w at once: count - 1 =
 * real - 1 + sum of ([w < v] - [w > v]), with compare masks of -1: the
 * same integers as lo + hi - 1. acc: count - 1 of one to four rows. */
static inline __m128i direct_counts(const direct_field *d, __m128i v)
{
    __m128i acc = _mm_set1_epi32((int32_t)d->n_real - 1);
    for (size_t k = 0; k < d->n_real; k++) {
        __m128i w = _mm_set1_epi32(d->real[k]);
        acc = _mm_sub_epi32(_mm_add_epi32(acc, _mm_cmpgt_epi32(w, v)), _mm_cmpgt_epi32(v, w));
    }
    return acc;
}

/* The four rows' ns and ew from their counts - 1 (acc): the same double
 * operations as datum_field_matchpoints' loop, two lanes a step (IEEE's
 * results do not depend on the lane). */
static inline void direct_store_n(const direct_field *d, __m128i acc, double *ns, double *ew,
                                  size_t rows)
{
    for (size_t half = 0; half < 2 && 2 * half < rows; half++) {
        __m128d mp = _mm_cvtepi32_pd(half ? _mm_shuffle_epi32(acc, 0xee) : acc);
        if (d->factored)
            mp = _mm_sub_pd(_mm_div_pd(_mm_mul_pd(_mm_add_pd(mp, d->one), d->size), d->r), d->one);
        __m128d n = _mm_mul_pd(mp, d->unit), e = _mm_mul_pd(_mm_sub_pd(d->top, mp), d->unit);
        if (rows - 2 * half >= 2) {
            _mm_storeu_pd(ns + 2 * half, n);
            _mm_storeu_pd(ew + 2 * half, e);
        } else { /* the last row of an odd tail: its lane alone (a memcpy call was 1 %) */
            _mm_store_sd(ns + 2 * half, n);
            _mm_store_sd(ew + 2 * half, e);
        }
    }
}

static inline void direct_store(const direct_field *d, __m128i acc, double *ns, double *ew)
{
    direct_store_n(d, acc, ns, ew, 4);
}

/* Every row of a field of at most DIRECT_MAX real results as if real (the
 * caller then gives adjusted rows their awards): eight rows to each load of
 * a real score, then four, then the last one to three. */
static void direct_rows(const direct_field *d, const int32_t *scores, size_t n, double *ns_mp,
                        double *ew_mp)
{
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(scores + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(scores + i + 4));
        __m128i acc0 = _mm_set1_epi32((int32_t)d->n_real - 1), acc1 = acc0;
        for (size_t k = 0; k < d->n_real; k++) {
            __m128i w = _mm_set1_epi32(d->real[k]);
            acc0 = _mm_sub_epi32(_mm_add_epi32(acc0, _mm_cmpgt_epi32(w, v0)), _mm_cmpgt_epi32(v0, w));
            acc1 = _mm_sub_epi32(_mm_add_epi32(acc1, _mm_cmpgt_epi32(w, v1)), _mm_cmpgt_epi32(v1, w));
        }
        direct_store(d, acc0, ns_mp + i, ew_mp + i);
        direct_store(d, acc1, ns_mp + i + 4, ew_mp + i + 4);
    }
    if (n - i >= 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(scores + i));
        direct_store(d, direct_counts(d, v), ns_mp + i, ew_mp + i);
        i += 4;
    }
    if (i < n) { /* from registers: a vector loaded from scalars just stored would wait */
        size_t left = n - i;
        __m128i v = _mm_setr_epi32(scores[i], left > 1 ? scores[i + 1] : 0,
                                   left > 2 ? scores[i + 2] : 0, 0);
        direct_store_n(d, direct_counts(d, v), ns_mp + i, ew_mp + i, left);
    }
}
#endif

double datum_field_matchpoints(const datum_mp_method *m, const int32_t *scores,
                               const uint8_t *adjusted, size_t n, size_t target, int32_t *work,
                               double *ns_mp, double *ew_mp)
{
    size_t real = 0;
    for (size_t i = 0; i < n; i++)
        if (!adjusted || adjusted[i] == DATUM_ADJ_NONE) work[real++] = scores[i];
    int direct = real <= DIRECT_MAX;
    if (!direct) sort_scores(work, real);
    size_t size = m->neuberg ? (target > n ? target : n) : real;
    double top = size > 1 ? 2.0 * (double)(size - 1) : 0.0;
    double unit = m->half ? 0.5 : 1.0; /* exact: a power of two */
    int factored = m->neuberg && size != real && real > 0;
    datum_adjusted_imps share = {m->award.plus, m->award.average, m->award.minus};
#if defined(__SSE2__)
    if (direct) { /* 30-35 % less time than the loop below on decade's fields */
        direct_field d = {work, real, factored, _mm_set1_pd(1.0), _mm_set1_pd((double)size),
                          _mm_set1_pd((double)real), _mm_set1_pd(top), _mm_set1_pd(unit)};
        direct_rows(&d, scores, n, ns_mp, ew_mp);
        for (size_t i = 0; adjusted && real < n && i < n; i++)
            if (adjusted[i] != DATUM_ADJ_NONE) award(&share, adjusted[i], top, unit, ns_mp + i, ew_mp + i);
        return top * unit;
    }
#endif
    for (size_t i = 0; i < n; i++) {
        if (adjusted && adjusted[i] != DATUM_ADJ_NONE) {
            award(&share, adjusted[i], top, unit, ns_mp + i, ew_mp + i);
            continue;
        }
        int64_t below; /* lo + hi: results below, plus results at or below */
        if (direct) {
            /* 32-bit counts (at most 2 DIRECT_MAX): four to a vector, not two. */
            int32_t v = scores[i];
            uint32_t count = 0;
            for (size_t k = 0; k < real; k++) count += (uint32_t)(work[k] < v) + (uint32_t)(work[k] <= v);
            below = count;
        } else {
            below = (int64_t)(count_below(work, real, scores[i], 0) +
                              count_below(work, real, scores[i], 1));
        }
        double mp = (double)(below - 1);
        if (factored) mp = (mp + 1.0) * (double)size / (double)real - 1.0;
        ns_mp[i] = mp * unit;
        ew_mp[i] = (top - mp) * unit;
    }
    return top * unit;
}
