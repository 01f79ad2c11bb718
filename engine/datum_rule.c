/* datum_rule.c - the datum of a board field (§2): presets, the general recipe
 * (trimming, small-field weighting, mean or median, rounding) and zero-sum par.
 *
 * A datum is kept as the exact rational num/den so that every later
 * comparison with a boundary, and every rounding, is decided exactly. */
#include "datum.h"
#include "internal.h"

#include <math.h>
#include <string.h>
#include <threads.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static const datum_rule kPlainMean = {
    .center = DATUM_CENTER_MEAN, .trim = DATUM_TRIM_NONE, .trim_count = 0,
    .trim_percent = 0, .trim_percent_round = DATUM_PCT_CEIL, .trim_min_n = 1,
    .small_max = 0, .middle_weight = 2, .rounding = DATUM_ROUND_NONE, .round_unit = 10};

int datum_rule_preset(datum_rule *rule, const char *name)
{
    *rule = kPlainMean;
    if (strcmp(name, "mean") == 0) return DATUM_OK;
    if (strcmp(name, "nbb") == 0) { /* seed 001 */
        rule->trim = DATUM_TRIM_TENTH;
        rule->trim_min_n = 6;
        rule->small_max = 5;
        rule->rounding = DATUM_ROUND_HALF_TOWARD_ZERO;
        return DATUM_OK;
    }
    if (strcmp(name, "bastille") == 0) { /* seed 003: the cap keeps one score */
        rule->trim = DATUM_TRIM_TENTH;
        return DATUM_OK;
    }
    if (strcmp(name, "par") == 0) { /* seed 002 */
        rule->center = DATUM_CENTER_PAR;
        return DATUM_OK;
    }
    if (strcmp(name, "acbl") == 0) { /* ACBLscore: 5% at each end, halves to even */
        rule->trim = DATUM_TRIM_PERCENT;
        rule->trim_percent = 5;
        rule->rounding = DATUM_ROUND_HALF_EVEN;
        return DATUM_OK;
    }
    if (strcmp(name, "bridgewx") == 0) { /* ceil(n/10) only when n > 5, halves away */
        rule->trim = DATUM_TRIM_TENTH;
        rule->trim_min_n = 6;
        rule->rounding = DATUM_ROUND_HALF_AWAY;
        return DATUM_OK;
    }
    return DATUM_E_ARG;
}

int datum_rule_check(const datum_rule *r)
{
    if ((unsigned)r->center > DATUM_CENTER_PAR || (unsigned)r->trim > DATUM_TRIM_PERCENT ||
        (unsigned)r->rounding > DATUM_ROUND_TRUNCATE ||
        (unsigned)r->trim_percent_round > DATUM_PCT_NEAREST)
        return DATUM_E_ARG;
    if (r->trim_count < 0 || !(r->trim_percent >= 0 && r->trim_percent <= 50) ||
        r->trim_min_n < 0 || r->small_max < 0 || r->small_max > 1000 ||
        r->middle_weight < 1 || r->middle_weight > 1000 || r->round_unit < 1 ||
        r->round_unit > 100000)
        return DATUM_E_ARG;
    return DATUM_OK;
}

double datum_value_double(datum_value v)
{
    return v.den == 0 ? NAN : (double)v.num / (double)v.den;
}

/* ------------------------------------------------------------------------ */
/* Sorting without allocation: 3-way quicksort (fields are full of equal
 * scores), insertion sort for short ranges, recursion on the smaller side
 * only so the depth stays below log2(n). */

static void insertion_sort(int32_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int32_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static int32_t median_of_three(int32_t a, int32_t b, int32_t c)
{
    if (a > b) { int32_t t = a; a = b; b = t; }
    if (b > c) b = c;
    return a > b ? a : b;
}

void datum_sort_i32(int32_t *a, size_t n)
{
    while (n > 24) {
        int32_t p = median_of_three(a[0], a[n / 2], a[n - 1]);
        size_t lt = 0, i = 0, gt = n; /* [0,lt) < p, [lt,i) == p, [gt,n) > p */
        while (i < gt) {
            if (a[i] < p) {
                int32_t t = a[lt]; a[lt++] = a[i]; a[i++] = t;
            } else if (a[i] > p) {
                int32_t t = a[--gt]; a[gt] = a[i]; a[i] = t;
            } else {
                i++;
            }
        }
        size_t left = lt, right = n - gt;
        if (left < right) {
            datum_sort_i32(a, left);
            a += gt;
            n = right;
        } else {
            datum_sort_i32(a + gt, right);
            n = left;
        }
    }
    insertion_sort(a, n);
}

/* ------------------------------------------------------------------------ */
/* Zero-sum par: the multiple of 10 in [-8000, 8000] minimising
 * |sum_i wbf(s_i - d)|, ties to the value closest to zero. The sum is
 * non-increasing in d, so its minimisers form one interval, found by
 * searches for the first step where the sum falls to a bound. Each search
 * starts from a step whose sum is already known (the first from the field's
 * mean, where the zero usually lies a few steps away) and gallops away from
 * it before bisecting: a field costs about 5.5 sums on decade instead of the
 * 24 of bisections over all 1601 candidates. */

enum { PAR_STEPS = 1601, PAR_ZERO = 800 }; /* d = 10*(j - PAR_ZERO) */
#define PAR_UNKNOWN INT64_MIN                /* a sum not evaluated */

static int64_t par_imp_sum(const int32_t *s, size_t n, int64_t j)
{
    int64_t d = 10 * (j - PAR_ZERO), sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t diff = s[i] - d;
        int sign = (diff > 0) - (diff < 0); /* a factor, not a branch: signs alternate */
        sum += sign * datum_wbf_band_of_fifths((diff < 0 ? -diff : diff) / 5);
    }
    return sum;
}

/* Smallest j in [0, PAR_STEPS] with sum(j) <= t (PAR_STEPS if none), given
 * from in [0, PAR_STEPS) and its sum sum_from. *before and *at receive
 * sum(j - 1) and sum(j) when the search evaluated them, else PAR_UNKNOWN. */
static int64_t par_first_at_most(const int32_t *s, size_t n, int64_t t, int64_t from,
                                 int64_t sum_from, int64_t *before, int64_t *at)
{
    /* The answer lies in [lo, hi]; s_lo is sum(lo - 1) (> t), s_hi sum(hi) (<= t). */
    int64_t lo, hi, s_lo = PAR_UNKNOWN, s_hi = PAR_UNKNOWN;
    if (sum_from <= t) { /* at or before from: gallop down */
        hi = from, s_hi = sum_from, lo = 0;
        for (int64_t step = 1; hi - step >= 0; step *= 2) {
            int64_t v = par_imp_sum(s, n, hi - step);
            if (v > t) {
                lo = hi - step + 1, s_lo = v;
                break;
            }
            hi -= step, s_hi = v;
        }
    } else { /* after from: gallop up */
        lo = from + 1, s_lo = sum_from, hi = PAR_STEPS;
        for (int64_t step = 1; lo - 1 + step < PAR_STEPS; step *= 2) {
            int64_t v = par_imp_sum(s, n, lo - 1 + step);
            if (v <= t) {
                hi = lo - 1 + step, s_hi = v;
                break;
            }
            lo += step, s_lo = v;
        }
    }
    while (lo < hi) { /* the halves chosen by masks: each is a coin toss to a predictor */
        int64_t mid = lo + (hi - lo) / 2, v = par_imp_sum(s, n, mid);
        int64_t at_most = -(int64_t)(v <= t), above = ~at_most; /* all ones or none */
        hi = (mid & at_most) | (hi & above), s_hi = (v & at_most) | (s_hi & above);
        lo = ((mid + 1) & above) | (lo & at_most), s_lo = (v & above) | (s_lo & at_most);
    }
    *before = s_lo;
    *at = s_hi;
    return lo;
}

/* Zero-sum par of s[0..n) by the searches from step from, whose sum is sum_from. */
static int64_t par_searched(const int32_t *s, size_t n, int64_t from, int64_t sum_from)
{
    int64_t before, at, unused;
    int64_t j0 = par_first_at_most(s, n, 0, from, sum_from, &before, &at);
    if (j0 > 0 && before == PAR_UNKNOWN) before = par_imp_sum(s, n, j0 - 1);
    if (j0 < PAR_STEPS && at == PAR_UNKNOWN) at = par_imp_sum(s, n, j0);
    int64_t above = j0 > 0 ? before : INT64_MAX;      /* > 0 */
    int64_t below = j0 < PAR_STEPS ? -at : INT64_MAX; /* >= 0 */
    int64_t best = above < below ? above : below;
    /* The minimisers: sum == +best (just before j0) and/or sum == -best (from j0). */
    int64_t lo = above == best ? par_first_at_most(s, n, best, j0 - 1, above, &unused, &unused) : j0;
    int64_t hi = below == best ? par_first_at_most(s, n, -best - 1, j0, at, &unused, &unused) - 1
                               : j0 - 1;
    int64_t j = PAR_ZERO < lo ? lo : PAR_ZERO > hi ? hi : PAR_ZERO;
    return 10 * (j - PAR_ZERO);
}

/* The window of steps whose sums par_datum takes in one pass over the
 * scores: PAR_BEHIND before the mean's step and the rest after it. On decade
 * the zero lies within 7 steps before and 8 after the mean's in 97% of the
 * fields; the others go on searching from the window's edge. */
enum { PAR_WINDOW = 16, PAR_BEHIND = 7 };

/* The lowest difference par_window_sums looks up: every step's difference
 * from it stays in datum_imp_by_point's table. */
#define PAR_WINDOW_LOW (-DATUM_IMP_BY_POINT_MAX + 10 * (PAR_WINDOW - 1))

/* kParWindow[x - PAR_WINDOW_LOW][c] = the IMPs of the difference x - 10c: a
 * score's IMPs at the window's 16 steps (10 points apart) side by side, so
 * that they are added to the 16 sums as one vector. 132 KB, built once by
 * the first caller; the fields' differences, mostly multiples of 10, touch a
 * tenth of it. */
static int8_t kParWindow[DATUM_IMP_BY_POINT_MAX - PAR_WINDOW_LOW + 1][PAR_WINDOW];
static once_flag kParWindowOnce = ONCE_FLAG_INIT;

static void build_par_window(void)
{
    const int8_t *imp = datum_imp_by_point();
    for (int x = PAR_WINDOW_LOW; x <= DATUM_IMP_BY_POINT_MAX; x++)
        for (int c = 0; c < PAR_WINDOW; c++) kParWindow[x - PAR_WINDOW_LOW][c] = imp[x - 10 * c];
}

/* A score's row of kParWindow, its difference from step w0's d0 clamped. */
static inline const int8_t *par_row(int32_t score, int64_t d0)
{
    int64_t x = (int64_t)score - d0;
    x = x < PAR_WINDOW_LOW ? PAR_WINDOW_LOW : x > DATUM_IMP_BY_POINT_MAX ? DATUM_IMP_BY_POINT_MAX : x;
    return kParWindow[x - PAR_WINDOW_LOW];
}

/* Fields up to this many scores add their window's sums in 16-bit vector
 * lanes (24 IMPs a score at most: no overflow); longer ones, or without
 * SSE2, in 64-bit integers. */
enum { PAR_SHORT_SUMS_MAX = 1000 };

/* The IMP sums of the window's PAR_WINDOW steps w0 .. w0 + PAR_WINDOW - 1:
 * in sum16 when every sum fits 16 bits (fields up to PAR_SHORT_SUMS_MAX
 * scores, with SSE2), else in sum64. */
typedef struct {
    int short_sums;
    int16_t sum16[PAR_WINDOW];
    int64_t sum64[PAR_WINDOW];
} par_window;

static inline int64_t par_sum(const par_window *w, int c) { return w->short_sums ? w->sum16[c] : w->sum64[c]; }

/* The sums of the window of w0 (w0 + PAR_WINDOW <= PAR_STEPS), in one pass
 * over the scores: one row of kParWindow per score, no sign, no division and
 * one loop exit instead of one per sum. A clamped difference keeps its IMPs
 * (24 at either end) at every step. */
static void par_window_sums(const int32_t *s, size_t n, int64_t w0, par_window *w)
{
    call_once(&kParWindowOnce, build_par_window);
    const int64_t d0 = 10 * (w0 - PAR_ZERO);
    w->short_sums = 0;
#if defined(__SSE2__)
    if (n <= PAR_SHORT_SUMS_MAX) { /* a row sign-extended to two vectors of eight lanes */
        _Static_assert(PAR_WINDOW == 16, "one row is one 16-byte vector");
        __m128i low = _mm_setzero_si128(), high = low, zero = low;
        for (size_t i = 0; i < n; i++) {
            __m128i row = _mm_loadu_si128((const __m128i *)(const void *)par_row(s[i], d0));
            __m128i sign = _mm_cmplt_epi8(row, zero);
            low = _mm_add_epi16(low, _mm_unpacklo_epi8(row, sign));
            high = _mm_add_epi16(high, _mm_unpackhi_epi8(row, sign));
        }
        _mm_storeu_si128((__m128i *)(void *)w->sum16, low);
        _mm_storeu_si128((__m128i *)(void *)(w->sum16 + 8), high);
        w->short_sums = 1;
        return;
    }
#endif
    int64_t acc[PAR_WINDOW] = {0};
    for (size_t i = 0; i < n; i++) {
        const int8_t *row = par_row(s[i], d0);
        for (int c = 0; c < PAR_WINDOW; c++) acc[c] += row[c];
    }
    for (int c = 0; c < PAR_WINDOW; c++) w->sum64[c] = acc[c];
}

/* How many of the window's sums are above t: the sums do not increase, so
 * they are the first ones (counted without a branch). */
static int par_above(const par_window *w, int64_t t)
{
#if defined(__SSE2__)
    /* |t| <= 24 n + 1 fits 16 bits beside the sums: the first ones above
     * t are the low bits of a mask, counted as its trailing ones. */
    if (w->short_sums) {
        __m128i tt = _mm_set1_epi16((int16_t)t);
        __m128i low = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(const void *)w->sum16), tt);
        __m128i high = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(const void *)(w->sum16 + 8)), tt);
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(low, high));
        return __builtin_ctz(~mask); /* bit 16 of ~mask is set: never zero */
    }
#endif
    int count = 0;
    for (int c = 0; c < PAR_WINDOW; c++) count += w->sum64[c] > t;
    return count;
}

/* Zero-sum par of s[0..n), total the sum of its scores: par_searched's
 * figure, read from the window's sums when the zero and the minimisers lie
 * inside it (the sums of the steps around them are all par_searched needs). */
static int64_t par_datum(const int32_t *s, size_t n, int64_t total)
{
    /* The mean's step (any start gives the same par: it only places the
     * window and the search), rounded by truncation where it is positive: no
     * call to round(). */
    double guess = (double)total / (double)n / 10.0 + PAR_ZERO + 0.5;
    int64_t from = guess < 0 ? 0 : guess > PAR_STEPS - 1 ? PAR_STEPS - 1 : (int64_t)guess;
    int64_t w0 = from - PAR_BEHIND;
    par_window w;
    w0 = w0 < 0 ? 0 : w0 > PAR_STEPS - PAR_WINDOW ? PAR_STEPS - PAR_WINDOW : w0;
    par_window_sums(s, n, w0, &w);
    const int64_t last = w0 + PAR_WINDOW - 1;
    const int at_start = w0 == 0, at_end = last == PAR_STEPS - 1; /* nothing beyond */
    int c = par_above(&w, 0);
    /* j0, the first step with a sum <= 0, before the window or after it. */
    if (c == 0 && !at_start) return par_searched(s, n, w0, par_sum(&w, 0));
    if (c == PAR_WINDOW && !at_end) return par_searched(s, n, last, par_sum(&w, PAR_WINDOW - 1));
    int64_t j0 = w0 + c;
    int64_t above = c > 0 ? par_sum(&w, c - 1) : INT64_MAX;         /* c == 0: j0 == 0 */
    int64_t below = c < PAR_WINDOW ? -par_sum(&w, c) : INT64_MAX;    /* c == WINDOW: j0 == PAR_STEPS */
    int64_t best = above < below ? above : below;
    int64_t lo = j0, hi = j0 - 1;
    if (above == best) { /* the first step with a sum <= best */
        int p = par_above(&w, best);
        if (p == 0 && !at_start) return par_searched(s, n, j0 - 1, above);
        lo = w0 + p;
    }
    if (below == best) { /* the last step with a sum >= -best */
        int q = par_above(&w, -best - 1);
        if (q == PAR_WINDOW && !at_end) return par_searched(s, n, j0, -best);
        hi = w0 + q - 1;
    }
    int64_t j = PAR_ZERO < lo ? lo : PAR_ZERO > hi ? hi : PAR_ZERO;
    return 10 * (j - PAR_ZERO);
}

/* ------------------------------------------------------------------------ */

/* Scores dropped at each end of a field of n (before the cap). */
static size_t trim_count(const datum_rule *r, size_t n)
{
    if ((int64_t)n < r->trim_min_n) return 0;
    switch (r->trim) {
    case DATUM_TRIM_FIXED: return (size_t)r->trim_count;
    case DATUM_TRIM_TENTH: return (n + 9) / 10;
    case DATUM_TRIM_PERCENT: {
        /* The tolerance absorbs the binary representation of p (5% of 20 is 1). */
        double x = r->trim_percent * (double)n / 100.0;
        if (r->trim_percent_round == DATUM_PCT_FLOOR) return (size_t)floor(x + 1e-9);
        if (r->trim_percent_round == DATUM_PCT_NEAREST) return (size_t)floor(x + 0.5 + 1e-9);
        return (size_t)ceil(x - 1e-9);
    }
    default: return 0;
    }
}

/* Floor quotient and remainder (0 <= *rest < b) for a positive divisor. The
 * quotient is estimated in floating point and then corrected with integer
 * arithmetic, so it is exact: an integer division costs more than the rest of
 * a small field's datum (one per field, millions of fields). */
static int64_t floor_div(int64_t a, int64_t b, int64_t *rest)
{
    int64_t q = (int64_t)((double)a / (double)b); /* truncated: off by one at most */
    int64_t r = a - q * b;
    /* One step each way as factors (a negative a's truncation is one too
     * high half the time: a branch would be mispredicted); the loops only
     * make sure of it. */
    int64_t below = r < 0;
    q -= below, r += below * b;
    int64_t above = r >= b;
    q += above, r -= above * b;
    while (r < 0) { q--; r += b; }
    while (r >= b) { q++; r -= b; }
    *rest = r;
    return q;
}

/* Rounds num/den to a multiple of unit, exact halves as the rule says (or
 * truncates). Inline: returned from a call, the value came back in two
 * registers that the caller stored and read back as one 16-byte vector,
 * which the processor cannot forward from the two stores (a stall of about
 * 1 % of a compare of five methods). */
static inline __attribute__((always_inline)) datum_value round_to_unit(datum_value v, datum_rounding mode, int64_t unit)
{
    int64_t step = unit * v.den, rest;
    int64_t q = floor_div(v.num, step, &rest);
    if (mode == DATUM_ROUND_TRUNCATE) /* toward zero, not to the nearest */
        return (datum_value){(q + (q < 0 && rest != 0)) * unit, 1};
    int64_t twice_rest = 2 * rest; /* in [0, 2*step) */
    if (twice_rest == step) { /* exactly q + 1/2 units */
        switch (mode) {
        case DATUM_ROUND_HALF_TOWARD_ZERO: q += q < 0; break;
        case DATUM_ROUND_HALF_AWAY: q += q >= 0; break;
        case DATUM_ROUND_HALF_UP: q++; break;
        default: q += (q & 1) != 0; break; /* to even */
        }
    }
    q += twice_rest > step; /* up past the half: a factor, the rests are irregular */
    return (datum_value){q * unit, 1};
}

/* Trimmed means up to this many scores dropped at each end find them in one
 * pass (extreme_sums); deeper trims sort. */
enum { EXTREMES_MAX = 4 };

/* The sum of s[0..n) and its k smallest and k largest values (k <=
 * EXTREMES_MAX), lo ascending and hi descending: lo[j] the (j+1)-th smallest,
 * hi[j] the (j+1)-th largest, so that the first k' of them are those of any
 * k' <= k. Each end is kept sorted by compare-exchanges without branches:
 * sorting whole fields was the engine's largest cost, and only the ends
 * matter. */
static inline __attribute__((always_inline)) void extreme_sums_k(const int32_t *s, size_t n,
                                                                 size_t k, int64_t *total,
                                                                 int32_t *lo, int32_t *hi)
{
    int64_t sum = 0;
    for (size_t j = 0; j < k; j++) {
        lo[j] = INT32_MAX;
        hi[j] = INT32_MIN;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t a = s[i], b = s[i];
        sum += a;
        for (size_t j = 0; j < k; j++) {
            int32_t keep_lo = lo[j] < a ? lo[j] : a, keep_hi = hi[j] > b ? hi[j] : b;
            a = lo[j] < a ? a : lo[j]; /* the larger one moves on */
            b = hi[j] > b ? b : hi[j];
            lo[j] = keep_lo;
            hi[j] = keep_hi;
        }
    }
    *total = sum;
}

static void extreme_sums(const int32_t *s, size_t n, size_t k, int64_t *total, int32_t *lo,
                         int32_t *hi)
{
    /* The usual depths with k a constant: the ends in registers, the inner
     * loop unrolled (a loop of one or two steps per score cost more than
     * the steps). The same operations. */
    switch (k) {
    case 0: extreme_sums_k(s, n, 0, total, lo, hi); break;
    case 1: extreme_sums_k(s, n, 1, total, lo, hi); break;
    case 2: extreme_sums_k(s, n, 2, total, lo, hi); break;
    default: extreme_sums_k(s, n, k, total, lo, hi); break;
    }
}

/* The sums of the k smallest and k largest of extreme_sums (2k < n, so that
 * the two sets are disjoint). */
static void ends_sums(size_t k, const int32_t *lo, const int32_t *hi, int64_t *low, int64_t *high)
{
    *low = *high = 0;
    for (size_t j = 0; j < k; j++) {
        *low += lo[j];
        *high += hi[j];
    }
}

/* How rule r takes the datum of n > 0 scores: from the sum and the k
 * smallest and largest (returns 1: the mean of the middle or the weighted
 * small field, k <= EXTREMES_MAX, *small set), or not (0: par, or a sort). */
static int from_ends(const datum_rule *r, size_t n, size_t *k_out, int *small_out)
{
    *k_out = 0, *small_out = 0;
    if (r->center == DATUM_CENTER_PAR) return 0;
    int small = r->small_max >= 3 && n >= 3 && n <= (size_t)r->small_max;
    size_t k = small ? 0 : trim_count(r, n), cap = (n - 1) / 2;
    if (k > cap) k = cap;
    *k_out = small ? 1 : k;
    *small_out = small;
    return small || (r->center == DATUM_CENTER_MEAN && k <= EXTREMES_MAX);
}

/* The datum (before rounding) of n scores from their sum and the sums of
 * their k smallest (low) and largest (high), as from_ends chose. */
static datum_value ends_datum(const datum_rule *r, size_t n, size_t k, int small, int64_t total,
                              int64_t low, int64_t high)
{
    if (small) /* the single extremes weigh 1, the inner scores more */
        return (datum_value){low + high + (int64_t)r->middle_weight * (total - low - high),
                             2 + (int64_t)r->middle_weight * (int64_t)(n - 2)};
    return (datum_value){total - low - high, (int64_t)(n - 2 * k)};
}

/* The datum (before rounding) of rules that sort: a trimmed mean deeper than
 * EXTREMES_MAX, or a median. */
static datum_value sorted_datum(const datum_rule *r, const int32_t *scores, size_t n, int32_t *work)
{
    size_t k = trim_count(r, n), cap = (n - 1) / 2;
    if (k > cap) k = cap;
    memcpy(work, scores, n * sizeof *work);
    datum_sort_i32(work, n);
    const int32_t *kept = work + k;
    size_t m = n - 2 * k;
    if (r->center == DATUM_CENTER_MEAN) {
        int64_t sum = 0;
        for (size_t i = 0; i < m; i++) sum += kept[i];
        return (datum_value){sum, (int64_t)m};
    }
    if (m % 2 == 1) return (datum_value){kept[m / 2], 1};
    int32_t low = kept[m / 2 - 1], high = kept[m / 2];
    return r->center == DATUM_CENTER_MEDIAN_LOW    ? (datum_value){low, 1}
           : r->center == DATUM_CENTER_MEDIAN_HIGH ? (datum_value){high, 1}
                                                   : (datum_value){(int64_t)low + high, 2};
}

static datum_value rounded(const datum_rule *r, datum_value v)
{
    return r->rounding == DATUM_ROUND_NONE ? v : round_to_unit(v, r->rounding, r->round_unit);
}

int datum_field_datum(const datum_rule *r, const int32_t *scores, size_t n, int32_t *work,
                      datum_value *out)
{
    datum_field_datums(1, &r, scores, n, work, out); /* one rule: the same steps */
    return n == 0 ? DATUM_W_EMPTY : DATUM_OK;
}

void datum_field_datums(size_t count, const datum_rule *const *rule, const int32_t *scores,
                        size_t n, int32_t *work, datum_value *out)
{
    if (n == 0) {
        for (size_t i = 0; i < count; i++) out[i] = (datum_value){0, 0};
        return;
    }
    /* How each rule takes its datum, and the deepest end any of them reads
     * from the scores' one pass. */
    size_t k[DATUM_FIELD_DATUMS_MAX], deepest = 0;
    int small[DATUM_FIELD_DATUMS_MAX], ends[DATUM_FIELD_DATUMS_MAX];
    for (size_t i = 0; i < count; i++) {
        ends[i] = from_ends(rule[i], n, &k[i], &small[i]);
        if (ends[i] && k[i] > deepest) deepest = k[i];
    }
    int64_t total;
    int32_t lo[EXTREMES_MAX], hi[EXTREMES_MAX];
    extreme_sums(scores, n, deepest, &total, lo, hi);
    for (size_t i = 0; i < count; i++) {
        const datum_rule *r = rule[i];
        if (r->center == DATUM_CENTER_PAR) {
            out[i] = (datum_value){par_datum(scores, n, total), 1};
        } else if (ends[i]) {
            int64_t low, high; /* the k smallest are the first k of the deepest's, in order */
            ends_sums(k[i], lo, hi, &low, &high);
            out[i] = rounded(r, ends_datum(r, n, k[i], small[i], total, low, high));
        } else {
            out[i] = rounded(r, sorted_datum(r, scores, n, work));
        }
    }
}
