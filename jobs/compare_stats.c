/* compare_stats.c - the rank statistics of `datum compare`: orderings,
 * mid-ranks, Spearman's rho, Kendall's tau-b (docs/methods.md, "Comparing
 * methods"). Pure: the caller gives the workspace. */
#include "compare_internal.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

size_t datum_rank_work_size(size_t n) { return 40 * n + 64; }

/* Stable merge sort of idx[0..n) by key[idx] ascending (tmp: n entries). */
void compare_sort_by(size_t n, const double *key, uint32_t *idx, uint32_t *tmp)
{
    if (n <= 32) { /* the common size of an event's pairs: insertion */
        for (size_t i = 1; i < n; i++) {
            uint32_t v = idx[i];
            size_t j = i;
            while (j > 0 && key[idx[j - 1]] > key[v]) idx[j] = idx[j - 1], j--;
            idx[j] = v;
        }
        return;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = key[idx[j]] < key[idx[i]] ? idx[j++] : idx[i++];
            while (i < mid) tmp[k++] = idx[i++];
            while (j < hi) tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

void compare_mid_ranks(size_t n, const double *v, double *rank, uint32_t *idx, uint32_t *tmp)
{
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    compare_sort_by(n, v, idx, tmp);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[idx[j]] == v[idx[i]]; j++) continue;
        double mid = 0.5 * (double)(i + 1 + j); /* the mean of ranks i+1 .. j */
        for (size_t k = i; k < j; k++) rank[idx[k]] = mid;
    }
}

double compare_pearson(size_t n, const double *x, const double *y)
{
    if (n < 2) return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) mx += x[i], my += y[i];
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* tau-b from S (the sum of the sign products) and the pairs tied in each. */
static double tau_b_of(size_t n, int64_t s, int64_t tx, int64_t ty)
{
    int64_t n0 = (int64_t)n * (int64_t)(n - 1) / 2;
    double den = sqrt((double)(n0 - tx) * (double)(n0 - ty));
    return n >= 2 && den > 0 ? (double)s / den : NAN;
}

double compare_tau_b(size_t n, const double *x, const double *y)
{
    /* Every pair once: S = sum sign(dx) sign(dy); ties counted apart. */
    int64_t s = 0, tx = 0, ty = 0;
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            int sx = (x[i] > x[j]) - (x[i] < x[j]), sy = (y[i] > y[j]) - (y[i] < y[j]);
            s += sx * sy;
            tx += sx == 0;
            ty += sy == 0;
        }
    return tau_b_of(n, s, tx, ty);
}

double compare_tau_b_ranks(size_t n, const int32_t *x, const int32_t *y)
{
    int64_t s = 0, tx = 0, ty = 0;
    for (size_t i = 1; i < n; i++) {
        int32_t xi = x[i], yi = y[i], ss = 0, sx0 = 0, sy0 = 0;
        for (size_t j = 0; j < i; j++) { /* integer lanes: the compiler vectorises it */
            int32_t sx = (xi > x[j]) - (xi < x[j]), sy = (yi > y[j]) - (yi < y[j]);
            ss += sx * sy;
            sx0 += sx == 0;
            sy0 += sy == 0;
        }
        s += ss, tx += sx0, ty += sy0;
    }
    return tau_b_of(n, s, tx, ty);
}

#if defined(__SSE2__)
/* The dot product of rankings a <= b, four 32-bit lanes t to be summed, into
 * s (a < b) or a's ties (a == b: len minus the sum of its squares, signs
 * being -1, 0 or 1). */
static inline void tau_add_lanes(__m128i t, size_t a, size_t b, size_t len, int64_t *s, int64_t *ties)
{
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(1, 0, 3, 2)));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(2, 3, 0, 1)));
    int32_t dot = _mm_cvtsi128_si32(t);
    if (b == a) ties[a] += (int64_t)len - dot;
    else s[a * COMPARE_RANKINGS_MAX + b] += dot;
}
#endif

/* The sign products of the block's item pairs (len entries per ranking in
 * sign, zeros after them up to a multiple of 8) added to s, and each
 * ranking's ties to ties: one dot product of len 16-bit lanes per two
 * rankings, long enough to fill vector registers whatever the group's size.
 * A ranking's ties are its zero signs: len minus the sum of its squares. */
static void tau_flush(size_t m, size_t len, const int16_t *sign, int64_t *s, int64_t *ties)
{
    enum { R = COMPARE_RANKINGS_MAX };
    for (size_t a = 0; a < m; a++) {
        const int16_t *x = sign + a * COMPARE_TAU_STRIDE;
#if defined(__SSE2__)
        /* Ranking a against four rankings b at a time (itself first): each
         * eight of a's signs loaded once for the four products (pmaddwd:
         * eight products summed by twos into four 32-bit lanes, |sum| <= len);
         * the zeros after len add nothing. Past m, a's own row again. */
        for (size_t b = a; b < m; b += 4) {
            const int16_t *y[4];
            for (int u = 0; u < 4; u++) y[u] = sign + (b + u < m ? b + u : a) * COMPARE_TAU_STRIDE;
            __m128i acc[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(),
                              _mm_setzero_si128()};
            for (size_t j = 0; j < len; j += 8) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(x + j));
                for (int u = 0; u < 4; u++)
                    acc[u] = _mm_add_epi32(acc[u], _mm_madd_epi16(v, _mm_loadu_si128((const __m128i *)(const void *)(y[u] + j))));
            }
            for (int u = 0; u < 4 && b + u < m; u++) tau_add_lanes(acc[u], a, b + u, len, s, ties);
        }
#else
        for (size_t b = a; b < m; b++) {
            const int16_t *y = sign + b * COMPARE_TAU_STRIDE;
            int32_t dot = 0; /* |dot| <= len: no overflow */
            for (size_t j = 0; j < len; j++) dot += x[j] * y[j];
            if (b == a) ties[a] += (int64_t)len - dot; /* signs are -1, 0 or 1 */
            else s[a * R + b] += dot;
        }
#endif
    }
}

/* tau_flush and signs_against_earlier for AVX2 (sixteen lanes an
 * instruction), where GCC can build them, chosen at run time: the same
 * integer sums. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <immintrin.h>
#define TAU_AVX2 1

__attribute__((target("avx2"))) static void tau_flush_avx2(size_t m, size_t len, const int16_t *sign,
                                                           int64_t *s, int64_t *ties)
{
    for (size_t a = 0; a < m; a++) {
        const int16_t *x = sign + a * COMPARE_TAU_STRIDE;
        for (size_t b = a; b < m; b += 4) {
            const int16_t *y[4];
            for (int u = 0; u < 4; u++) y[u] = sign + (b + u < m ? b + u : a) * COMPARE_TAU_STRIDE;
            __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                              _mm256_setzero_si256()};
            for (size_t j = 0; j < len; j += 16) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(x + j));
                for (int u = 0; u < 4; u++)
                    acc[u] = _mm256_add_epi32(acc[u], _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i *)(const void *)(y[u] + j))));
            }
            for (int u = 0; u < 4 && b + u < m; u++)
                tau_add_lanes(_mm_add_epi32(_mm256_castsi256_si128(acc[u]), _mm256_extracti128_si256(acc[u], 1)),
                              a, b + u, len, s, ties);
        }
    }
}

__attribute__((target("avx2"))) static void signs_against_earlier_avx2(const int32_t *r, size_t i,
                                                                       int16_t *sg)
{
    __m256i ri = _mm256_set1_epi32(r[i]);
    for (size_t j = 0; j < i; j += 16) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(r + j));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(r + j + 8));
        /* (rj > ri) - (ri > rj) as masks: 0 - (-1) when ri is above */
        __m256i s_lo = _mm256_sub_epi32(_mm256_cmpgt_epi32(lo, ri), _mm256_cmpgt_epi32(ri, lo));
        __m256i s_hi = _mm256_sub_epi32(_mm256_cmpgt_epi32(hi, ri), _mm256_cmpgt_epi32(ri, hi));
        /* the pack works by 128-bit halves: its quarters back in order */
        __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(s_lo, s_hi), _MM_SHUFFLE(3, 1, 2, 0));
        _mm256_storeu_si256((__m256i *)(void *)(sg + j), p);
    }
}
#else
#define TAU_AVX2 0
#endif

/* The signs of item i's rank against those of items 0 .. i-1 (r[i] > r[j]:
 * 1, equal: 0, below: -1) into sg[0 .. i), and whatever into sg[i .. i+7)
 * from r[i+1 .. i+7): eight at a time with no remainder loop (the rows
 * are short: a remainder cost more than the vector part). */
static void signs_against_earlier(const int32_t *r, size_t i, int16_t *sg)
{
#if defined(__SSE2__)
    __m128i ri = _mm_set1_epi32(r[i]);
    for (size_t j = 0; j < i; j += 8) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(r + j));
        __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(r + j + 4));
        /* (ri < rj) - (ri > rj) as masks: -1 - 0 when below, 0 - (-1) when above */
        __m128i s_lo = _mm_sub_epi32(_mm_cmplt_epi32(ri, lo), _mm_cmpgt_epi32(ri, lo));
        __m128i s_hi = _mm_sub_epi32(_mm_cmplt_epi32(ri, hi), _mm_cmpgt_epi32(ri, hi));
        _mm_storeu_si128((__m128i *)(void *)(sg + j), _mm_packs_epi32(s_lo, s_hi));
    }
#else
    int32_t x = r[i];
    for (size_t j = 0; j < i; j++) sg[j] = (int16_t)((x > r[j]) - (x < r[j]));
#endif
}

void compare_tau_b_ranks_all(size_t n, size_t m, const int32_t *const *rank, int16_t *sign,
                             double *tau)
{
#if TAU_AVX2
    compare_tau_b_ranks_all_on(n, m, rank, sign, tau, __builtin_cpu_supports("avx2"));
#else
    compare_tau_b_ranks_all_on(n, m, rank, sign, tau, 0);
#endif
}

void compare_tau_b_ranks_all_on(size_t n, size_t m, const int32_t *const *rank, int16_t *sign,
                                double *tau, int avx2)
{
    enum { R = COMPARE_RANKINGS_MAX };
    int64_t s[R * R] = {0}, ties[R] = {0};
    /* The signs of item i against each earlier item, per ranking, are laid
     * one item after the other in a block; a full block's products are
     * summed at once. Each item's row is written eight (AVX2: sixteen) signs
     * at a time: the extra ones are overwritten by the next row, or lie past
     * the block's end, where the flush reads zeros. The sums are integers:
     * their order does not matter. */
    void (*flush)(size_t, size_t, const int16_t *, int64_t *, int64_t *) = tau_flush;
    void (*signs)(const int32_t *, size_t, int16_t *) = signs_against_earlier;
#if TAU_AVX2
    if (avx2) flush = tau_flush_avx2, signs = signs_against_earlier_avx2;
#else
    (void)avx2;
#endif
    size_t len = 0;
    for (size_t i = 1; i < n; i++) {
        if (len + i > COMPARE_TAU_BLOCK) {
            for (size_t a = 0; a < m; a++) memset(sign + a * COMPARE_TAU_STRIDE + len, 0, 16 * sizeof *sign);
            flush(m, len, sign, s, ties), len = 0;
        }
        for (size_t a = 0; a < m; a++) signs(rank[a], i, sign + a * COMPARE_TAU_STRIDE + len);
        len += i;
    }
    for (size_t a = 0; a < m; a++) memset(sign + a * COMPARE_TAU_STRIDE + len, 0, 16 * sizeof *sign);
    flush(m, len, sign, s, ties);
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++)
            tau[a * m + b] = tau[b * m + a] = tau_b_of(n, s[a * R + b], ties[a], ties[b]);
}

double datum_spearman(size_t n, const double *x, const double *y, void *work)
{
    if (n < 2) return NAN;
    double *rx = work, *ry = rx + n;
    uint32_t *idx = (uint32_t *)(ry + n), *tmp = idx + n;
    compare_mid_ranks(n, x, rx, idx, tmp);
    compare_mid_ranks(n, y, ry, idx, tmp);
    return compare_pearson(n, rx, ry);
}

/* Pairs tied in v over runs of equal values of v[0..n) (v sorted). */
static int64_t tied_pairs(size_t n, const double *v)
{
    int64_t t = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j] == v[i]; j++) continue;
        t += (int64_t)(j - i) * (int64_t)(j - i - 1) / 2;
    }
    return t;
}

double datum_kendall_tau_b(size_t n, const double *x, const double *y, void *work)
{
    if (n <= 64) return compare_tau_b(n, x, y);
    /* Knight (1966): order by (x, y); the pairs tied in x (n1) and in both
     * (n3); then a merge sort of the y's counts the swaps, the discordant
     * pairs (strict inversions: pairs tied in x are already in y order);
     * the sorted y's give the pairs tied in y (n2). */
    double *sx = work, *sy = sx + n, *buf = sy + n;
    uint32_t *idx = (uint32_t *)(buf + n), *tmp = idx + n;
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    compare_sort_by(n, y, idx, tmp);
    compare_sort_by(n, x, idx, tmp); /* stable: (x, y) order */
    for (size_t i = 0; i < n; i++) sx[i] = x[idx[i]], sy[i] = y[idx[i]];
    int64_t n1 = tied_pairs(n, sx), n3 = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && sx[j] == sx[i] && sy[j] == sy[i]; j++) continue;
        n3 += (int64_t)(j - i) * (int64_t)(j - i - 1) / 2;
    }
    int64_t swaps = 0;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (sy[j] < sy[i]) {
                    swaps += (int64_t)(mid - i);
                    buf[k++] = sy[j++];
                } else {
                    buf[k++] = sy[i++];
                }
            }
            while (i < mid) buf[k++] = sy[i++];
            while (j < hi) buf[k++] = sy[j++];
        }
        memcpy(sy, buf, n * sizeof *sy);
    }
    int64_t n2 = tied_pairs(n, sy), n0 = (int64_t)n * (int64_t)(n - 1) / 2;
    double den = sqrt((double)(n0 - n1) * (double)(n0 - n2));
    return den > 0 ? (double)(n0 - n1 - n2 + n3 - 2 * swaps) / den : NAN;
}
