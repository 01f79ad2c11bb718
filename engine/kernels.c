/* kernels.c - per-field kernels: adjusted awards, Butler (§3), cross-IMP (§4),
 * the method of a run, per-pair totals. */
#include "datum.h"
#include "internal.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Adjusted results                                                          */

/* Token and (NS, EW) awards of each code: +1 plus, 0 average, -1 minus. */
static const struct {
    const char *token;
    signed char ns, ew;
} kAdjusted[DATUM_ADJ_COUNT] = {
    {"", 0, 0},       {"A+", 1, -1},    {"A", 0, 0},      {"A-", -1, 1},   {"A+/A-", 1, -1},
    {"A-/A+", -1, 1}, {"A/A", 0, 0},    {"A+/A+", 1, 1},  {"A-/A-", -1, -1}, {"A+/A", 1, 0},
    {"A/A+", 0, 1},   {"A-/A", -1, 0},  {"A/A-", 0, -1}};

int datum_adjusted_parse(const char *token, size_t len)
{
    for (int code = 0; code < DATUM_ADJ_COUNT; code++)
        if (strlen(kAdjusted[code].token) == len && memcmp(kAdjusted[code].token, token, len) == 0)
            return code;
    return -1;
}

const char *datum_adjusted_token(int code)
{
    return code >= 0 && code < DATUM_ADJ_COUNT ? kAdjusted[code].token : "?";
}

static double award_of(const datum_adjusted_imps *award, int level)
{
    return level > 0 ? award->plus : level < 0 ? award->minus : award->average;
}

void datum_adjusted_award(const datum_adjusted_imps *award, int code, double *ns, double *ew)
{
    *ns = award_of(award, kAdjusted[code].ns);
    *ew = award_of(award, kAdjusted[code].ew);
}

/* ------------------------------------------------------------------------ */
/* Butler                                                                    */

/* The WBF IMPs of rows 0..n-1 against the whole datum num, the differences
 * clamped to the table or (clamp 0) known to lie in it. */
static inline __attribute__((always_inline)) void butler_wbf_rows(const datum_scale *scale,
                                                                  const int32_t *scores, size_t n,
                                                                  int64_t num, double *ns_imps,
                                                                  double *ew_imps, int clamp)
{
    int64_t mult = scale->doubled ? 2 : 1;
    double unit = scale->halved ? 0.5 : 1.0;
    /* signed: no branch on the side; bytes: a table of doubles would not
     * stay in the first-level cache beside the others */
    const int8_t *imp = datum_imp_by_point();
    for (size_t i = 0; i < n; i++) {
        int64_t x = mult * ((int64_t)scores[i] - num);
        double v = unit * (double)imp[clamp ? datum_point_clamp(x) : x];
        ns_imps[i] = v;       /* (double)0 is +0, never -0 */
        ew_imps[i] = 0.0 - v; /* unit * -IMPs: the same, +0 at 0 */
    }
}

void datum_field_butler_within(const datum_scale *scale, const datum_adjusted_imps *award,
                               const int32_t *scores, const uint8_t *adjusted, size_t n,
                               datum_value d, int32_t lo, int32_t hi, double *ns_imps,
                               double *ew_imps)
{
    /* Every row is converted as if real (an adjusted row's score is ignored,
     * whatever it holds), then the adjusted rows get their awards: the
     * conversion loop carries no test of its own. */
    if (d.den == 1 && scale->kind == DATUM_SCALE_WBF) {
        /* A rounded datum on the WBF scale, the common case: one load from
         * the table by point per row. */
        int64_t reach = DATUM_IMP_BY_POINT_MAX / (scale->doubled ? 2 : 1);
        if ((int64_t)hi - d.num <= reach && d.num - (int64_t)lo <= reach)
            butler_wbf_rows(scale, scores, n, d.num, ns_imps, ew_imps, 0);
        else
            butler_wbf_rows(scale, scores, n, d.num, ns_imps, ew_imps, 1);
    } else if (d.den != 0) { /* den == 0: no datum, every row is adjusted */
        datum_imp_ratio_rows(scale, scores, n, d.num, d.den, ns_imps, ew_imps);
    }
    for (size_t i = 0; adjusted && i < n; i++)
        if (adjusted[i] != DATUM_ADJ_NONE)
            datum_adjusted_award(award, adjusted[i], &ns_imps[i], &ew_imps[i]);
}

void datum_field_butler(const datum_scale *scale, const datum_adjusted_imps *award,
                        const int32_t *scores, const uint8_t *adjusted, size_t n,
                        datum_value d, double *ns_imps, double *ew_imps)
{
    datum_field_butler_within(scale, award, scores, adjusted, n, d, INT32_MIN, INT32_MAX, ns_imps,
                              ew_imps);
}

/* ------------------------------------------------------------------------ */
/* Cross-IMP                                                                 */

/* Fields up to this size compare every pair of scores directly; larger WBF
 * fields count, for each score, how many others lie beyond each band
 * boundary (binary searches in the sorted scores): O(24 n log n). */
enum { CROSS_DIRECT_MAX = 128 };

/* Number of v[0..n) that are <= x (v sorted ascending). */
static size_t count_at_most(const int32_t *v, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Raw WBF cross-IMPs (before halving) by counting. An integer difference x
 * reaches band boundary B when mult*x >= B, i.e. x >= ceil(B/mult). */
static void cross_wbf_counting(const int32_t *scores, size_t n, int mult, int32_t *sorted,
                               double *raw)
{
    memcpy(sorted, scores, n * sizeof *sorted);
    datum_sort_i32(sorted, n);
    for (size_t i = 0; i < n; i++) {
        int64_t s = scores[i], total = 0;
        for (int b = 0; b < DATUM_WBF_BANDS; b++) {
            int64_t t = (datum_wbf_boundary(b) + mult - 1) / mult;
            size_t below = count_at_most(sorted, n, s - t);           /* s - s_k >= t */
            size_t above = n - count_at_most(sorted, n, s + t - 1);   /* s_k - s >= t */
            total += (int64_t)below - (int64_t)above;
        }
        raw[i] = (double)total;
    }
}

/* cross_wbf_direct's comparisons, the differences clamped to the table or
 * (clamp 0) known to lie in it. */
static inline __attribute__((always_inline)) void cross_wbf_pairs(const int32_t *scores, size_t n,
                                                                  int64_t mult, int32_t *total,
                                                                  int clamp)
{
    const int8_t *imp = datum_imp_by_point(); /* signed: no branch, signs alternate */
#define CROSS_AT(x) imp[clamp ? datum_point_clamp(x) : (x)]
    /* The first score's comparisons set the others' totals: no zeroing pass
     * (the compiler makes one of rep stos, whose start-up cost more than
     * the comparisons of a field of nine). */
    int64_t first = scores[0];
    int32_t own0 = 0;
    for (size_t k = 1; k < n; k++) {
        int32_t imps = CROSS_AT(mult * (first - scores[k]));
        own0 += imps;
        total[k] = -imps;
    }
    total[0] = own0;
    for (size_t i = 1; i < n; i++) {
        int64_t s = scores[i];
        int32_t own = total[i];
        for (size_t k = i + 1; k < n; k++) {
            int32_t imps = CROSS_AT(mult * (s - scores[k]));
            own += imps;
            total[k] -= imps;
        }
        total[i] = own;
    }
#undef CROSS_AT
}

/* Raw WBF cross-IMPs (before halving) of a small field by direct
 * comparison: each pair of scores once, its IMPs added to one and taken from
 * the other (the table is odd), in integers (total[] holds n). When the
 * field's scores lie within the table's reach of each other (lo and hi bound
 * them: nearly always), no difference needs its clamp. */
static void cross_wbf_direct(const int32_t *scores, size_t n, int64_t mult, int32_t lo,
                             int32_t hi, int32_t *total, double *raw)
{
    if (n == 0) return;
    if (mult * ((int64_t)hi - lo) <= DATUM_IMP_BY_POINT_MAX) cross_wbf_pairs(scores, n, mult, total, 0);
    else cross_wbf_pairs(scores, n, mult, total, 1);
    for (size_t i = 0; i < n; i++) raw[i] = (double)total[i];
}

void datum_field_cross_within(const datum_scale *scale, const int32_t *scores, size_t n,
                              int32_t lo, int32_t hi, int32_t *work, double *raw)
{
    if (scale->kind == DATUM_SCALE_WBF) {
        /* Whole IMPs (halves when halved) add exactly in any order: the same
         * figures as the generic loop below, bit for bit. */
        if (n > CROSS_DIRECT_MAX) cross_wbf_counting(scores, n, scale->doubled ? 2 : 1, work, raw);
        else cross_wbf_direct(scores, n, scale->doubled ? 2 : 1, lo, hi, work, raw);
        if (scale->halved)
            for (size_t i = 0; i < n; i++) raw[i] *= 0.5;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double total = 0;
        for (size_t k = 0; k < n; k++)
            if (k != i) total += datum_imp_ratio(scale, (int64_t)scores[i] - scores[k], 1);
        raw[i] = total + 0.0; /* +0.0 turns a -0 sum into 0 */
    }
}

void datum_field_cross(const datum_scale *scale, const int32_t *scores, size_t n,
                       int32_t *work, double *raw)
{
    /* The scores' range, for the direct comparisons of a small WBF field:
     * one pass, cheaper than a clamp per pair. */
    int32_t lo = n ? scores[0] : 0, hi = lo;
    if (scale->kind == DATUM_SCALE_WBF && n <= CROSS_DIRECT_MAX)
        for (size_t i = 1; i < n; i++) {
            lo = scores[i] < lo ? scores[i] : lo;
            hi = scores[i] > hi ? scores[i] : hi;
        }
    datum_field_cross_within(scale, scores, n, lo, hi, work, raw);
}

/* ------------------------------------------------------------------------ */

int datum_method_init(datum_method *m, const char *preset)
{
    static const datum_scale scale = DATUM_SCALE_INIT;
    static const datum_adjusted_imps award = DATUM_ADJUSTED_IMPS_INIT;
    memset(m, 0, sizeof *m);
    m->scale = scale;
    m->award = award;
    m->cross_divisor = DATUM_DIVISOR_N_MINUS_1;
    return datum_rule_preset(&m->rule, preset);
}

void datum_pairs_accumulate(size_t n_rows, const int32_t *ns_pair, const int32_t *ew_pair,
                            const double *ns_imps, const double *ew_imps, double *imps,
                            int64_t *boards)
{
    for (size_t r = 0; r < n_rows; r++) {
        if (isnan(ns_imps[r])) continue;
        imps[ns_pair[r]] += ns_imps[r];
        boards[ns_pair[r]]++;
        imps[ew_pair[r]] += ew_imps ? ew_imps[r] : 0.0 - ns_imps[r];
        boards[ew_pair[r]]++;
    }
}
