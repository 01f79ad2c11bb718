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
    for (size_t i = 0; i < n; i++) {
        if (adjusted && adjusted[i] != DATUM_ADJ_NONE) {
            double ns, ew;
            datum_adjusted_award(&share, adjusted[i], &ns, &ew);
            ns_mp[i] = ns * top * unit;
            ew_mp[i] = ew * top * unit;
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
