/* barking.c - barking cross-IMPs (§5, seed 002) and the teams-of-eight match.
 *
 * For table i of a field of n real scores s_0..s_{n-1} (North-South's), the
 * NS pair's raw barking score is
 *     R_i = sum_{j != i} sum_{k < l, k,l not in {i,j}} w(s_i + s_j - s_k - s_l)
 * with w the WBF scale (an odd, integer-valued function). The EW pair of the
 * table gets -R_i: its terms run over the same tables with every sign flipped.
 *
 * The fast kernel never enumerates the terms. With X_i = sum_l w(s_i - s_l)
 * (the cross-IMPs, §4) and F(x) = sum_{k < l} w(x - s_k - s_l) over every
 * pair of distinct tables, inclusion-exclusion over the pairs {k, l} that
 * touch i or j gives (docs/methods.md, "Barking cross-IMP"):
 *     R_i = sum_{j != i} F(s_i + s_j) - (n - 2) X_i.
 * Everything is counted by score value: the distinct scores u_a with their
 * multiplicities c_a, the distinct pair sums z_e with their numbers of table
 * pairs W_e, and F is the weighted cross-IMP of the pair sums against
 * themselves. All sums are exact in 64-bit integers. */
#include "datum.h"
#include "datum_alloc.h"
#include "internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* The wbf scale with its options as integer thresholds: an integer
 * difference x is worth sum_t [x >= T_t] - [x <= -T_t] IMPs before halving
 * (T_t = ceil(B_t / 2) when the difference is doubled). */
typedef struct {
    int64_t T[DATUM_WBF_BANDS];
    int halved;
} bark_scale;

/* Workspace sizes: grid steps of the counting path; bytes of a field's IMP
 * table (at most 3995 + 1 entries, see field_scale). */
enum { DENSE_MAX = 4096, BAND_TABLE = 4096 };

static int bark_scale_init(const datum_scale *scale, bark_scale *b)
{
    if (scale->kind != DATUM_SCALE_WBF) return DATUM_E_ARG;
    int mult = scale->doubled ? 2 : 1;
    for (int t = 0; t < DATUM_WBF_BANDS; t++) b->T[t] = (datum_wbf_boundary(t) + mult - 1) / mult;
    b->halved = scale->halved != 0;
    return DATUM_OK;
}

int64_t datum_barking_terms(size_t n)
{
    if (n < 4) return 0;
    int64_t m = (int64_t)n;
    return (m - 1) * ((m - 2) * (m - 3) / 2);
}

size_t datum_barking_work_len(size_t n)
{
    size_t pairs = n * (n + 1) / 2; /* distinct (a <= b) score pairs, at most */
    return 4 * n + 4 * pairs + 1 + 2 * (size_t)DENSE_MAX + 1 + BAND_TABLE / 8;
}

/* ------------------------------------------------------------------------ */
/* The literal enumeration (the reference).                                 */

static void fill_nan(double *raw, size_t n)
{
    for (size_t i = 0; i < n; i++) raw[i] = NAN;
}

int datum_field_barking_literal(const datum_scale *scale, const int32_t *scores, size_t n,
                                double *raw)
{
    if (scale->kind != DATUM_SCALE_WBF) return DATUM_E_ARG;
    if (n < 4) {
        fill_nan(raw, n);
        return DATUM_W_EMPTY;
    }
    for (size_t i = 0; i < n; i++) {
        double total = 0;
        for (size_t j = 0; j < n; j++) {
            if (j == i) continue;
            for (size_t k = 0; k < n; k++) {
                if (k == i || k == j) continue;
                for (size_t l = k + 1; l < n; l++) {
                    if (l == i || l == j) continue;
                    int64_t d = (int64_t)scores[i] + scores[j] - scores[k] - scores[l];
                    total += datum_imp_ratio(scale, d, 1);
                }
            }
        }
        raw[i] = total + 0.0; /* no "-0" */
    }
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* The fast kernel.                                                         */

/* Shell sort (Ciura's gaps, extended by 9/4): in place, no allocation, fast
 * on the short and partly ordered arrays met here. */
static void sort_i64(int64_t *a, size_t n)
{
    static const size_t ciura[] = {1, 4, 10, 23, 57, 132, 301, 701, 1750};
    size_t gaps[48], g = 0;
    for (; g < sizeof ciura / sizeof *ciura && ciura[g] < n; g++) gaps[g] = ciura[g];
    while (g > 0 && g < 48 && gaps[g - 1] * 9 / 4 < n) {
        gaps[g] = gaps[g - 1] * 9 / 4;
        g++;
    }
    while (g-- > 0) {
        size_t gap = gaps[g];
        for (size_t i = gap; i < n; i++) {
            int64_t x = a[i];
            size_t j = i;
            for (; j >= gap && a[j - gap] > x; j -= gap) a[j] = a[j - gap];
            a[j] = x;
        }
    }
}

/* The fast kernel works in grid units: every score of a field is
 * u_0 + g*k (g the gcd of the differences; 10 or more for bridge scores), so
 * every difference of sums of scores is a multiple of g, and reaches T_t
 * exactly when its number of grid steps reaches T'_t = ceil(T_t / g).
 * band[k] = IMPs of k steps (before halving) for k < len; no difference
 * asked for exceeds len - 1 unless it is worth 24 as well. */
typedef struct {
    int64_t T[DATUM_WBF_BANDS];
    int64_t len;
    uint8_t *band; /* BAND_TABLE bytes */
} field_scale;

/* ceil(x / g) for 0 <= x < 2^31, 1 <= g, without 24 integer divisions. */
static int64_t ceil_div(int64_t x, int64_t g, double inverse)
{
    int64_t q = (int64_t)((double)x * inverse);
    while (q * g < x) q++;
    while (q > 0 && (q - 1) * g >= x) q--;
    return q;
}

static void field_scale_init(field_scale *fs, const bark_scale *b, int64_t g, int64_t max_steps,
                             uint8_t *band)
{
    double inverse = 1.0 / (double)g;
    for (int t = 0; t < DATUM_WBF_BANDS; t++) fs->T[t] = ceil_div(b->T[t], g, inverse);
    int64_t last = fs->T[DATUM_WBF_BANDS - 1];
    fs->len = (max_steps < last ? max_steps : last) + 1;
    fs->band = band;
    int64_t from = 0; /* band t covers steps [T'_{t-1}, T'_t) */
    for (int t = 0; t <= DATUM_WBF_BANDS && from < fs->len; t++) {
        int64_t to = t < DATUM_WBF_BANDS && fs->T[t] < fs->len ? fs->T[t] : fs->len;
        memset(band + from, t, (size_t)(to - from));
        from = to;
    }
}

/* IMPs of k >= 0 grid steps, before halving; branch-free. */
static inline int64_t step_imps(const field_scale *fs, int64_t k)
{
    return fs->band[k < fs->len ? k : fs->len - 1];
}

/* Three ways to count F or X, chosen by an estimate of their cost (all
 * exact, all tested against the literal enumeration):
 *  - direct: values compared pairwise through the band table, d^2/2
 *    branch-free steps, no sort;
 *  - grid: when the values span at most DENSE_MAX grid steps (a field of
 *    bridge scores always does), cumulative weights per step give each
 *    value's IMPs in 2 * 24 branch-free look-ups, with no sort;
 *  - sweep: sorted distinct values, one pair of monotone pointers per
 *    threshold (any spread). */
typedef enum { BY_DIRECT, BY_GRID, BY_SWEEP } method;

/* d values spanning `steps` (to be sorted first for a sweep when `sorted`
 * is 0; the direct way takes them in any order). */
static method choose(int64_t d, int64_t steps, int sorted)
{
    int64_t lg = 1;
    while (((int64_t)1 << lg) < d) lg++;
    int64_t direct = d * d, sweep = 360 * d + (sorted ? 0 : 16 * d * lg);
    int64_t grid = steps <= DENSE_MAX ? 2 * steps + 48 * (d < steps ? d : steps) + d : INT64_MAX;
    if (grid < direct && grid < sweep) return BY_GRID;
    return direct <= sweep ? BY_DIRECT : BY_SWEEP;
}

typedef struct {
    int64_t base, steps;  /* values base .. base + steps - 1 */
    const int64_t *shift; /* the field's T' */
    int bands;            /* thresholds reached within the span */
    int64_t *cum;         /* cum[k]: weight at values below base + k, k = 0..steps */
} grid;

static void grid_init(grid *gr, const field_scale *fs, int64_t base, int64_t steps, int64_t *cum)
{
    *gr = (grid){.base = base, .steps = steps, .shift = fs->T, .cum = cum};
    while (gr->bands < DATUM_WBF_BANDS && fs->T[gr->bands] < steps) gr->bands++;
    memset(cum, 0, (size_t)(steps + 1) * sizeof *cum);
}

static void grid_add(grid *gr, int64_t value, int64_t weight)
{
    gr->cum[value - gr->base + 1] += weight;
}

static void grid_close(grid *gr)
{
    for (int64_t k = 1; k <= gr->steps; k++) gr->cum[k] += gr->cum[k - 1];
}

/* sum over the grid's weights w_f at v_f of w_f * imp(value - v_f). */
static int64_t grid_imps(const grid *gr, int64_t value)
{
    int64_t k = value - gr->base, total = gr->cum[gr->steps], sum = 0;
    for (int t = 0; t < gr->bands; t++) {
        int64_t lo = k - gr->shift[t] + 1, hi = k + gr->shift[t]; /* at most k - s; at least k + s */
        sum += gr->cum[lo > 0 ? lo : 0] - (total - gr->cum[hi < gr->steps ? hi : gr->steps]);
    }
    return sum;
}

/* out[e] = sum_f w[f] * imp(v[e] - v[f]) for ascending v[0..d), comparing
 * every pair; `unit` (every weight 1) a constant in each inlined copy. */
static inline void direct_cross_by(const field_scale *fs, const int64_t *v, const int64_t *w,
                                   size_t d, int64_t *out, int unit)
{
    memset(out, 0, d * sizeof *out);
    for (size_t e = 0; e < d; e++) {
        int64_t sum = 0, we = unit ? 1 : w[e];
        for (size_t f = e + 1; f < d; f++) {
            int64_t x = step_imps(fs, v[f] - v[e]);
            sum -= unit ? x : w[f] * x;
            out[f] += unit ? x : we * x;
        }
        out[e] += sum;
    }
}

/* The same for values in any order (no sort needed): the sign of each
 * difference is taken branch-free. */
static inline void direct_cross_any_by(const field_scale *fs, const int64_t *v, const int64_t *w,
                                       size_t d, int64_t *out, int unit)
{
    memset(out, 0, d * sizeof *out);
    for (size_t e = 0; e < d; e++) {
        int64_t sum = 0, we = unit ? 1 : w[e];
        for (size_t f = e + 1; f < d; f++) {
            int64_t diff = v[f] - v[e];
            int64_t x = step_imps(fs, diff < 0 ? -diff : diff);
            x = diff < 0 ? -x : x;
            sum -= unit ? x : w[f] * x;
            out[f] += unit ? x : we * x;
        }
        out[e] += sum;
    }
}

static void direct_cross(const field_scale *fs, const int64_t *v, const int64_t *w, size_t d,
                         int sorted, int64_t *out)
{
    size_t ones = 0;
    while (ones < d && w[ones] == 1) ones++;
    if (sorted) {
        if (ones == d) direct_cross_by(fs, v, w, d, out, 1);
        else direct_cross_by(fs, v, w, d, out, 0);
    } else {
        if (ones == d) direct_cross_any_by(fs, v, w, d, out, 1);
        else direct_cross_any_by(fs, v, w, d, out, 0);
    }
}

/* out[e] as above for distinct ascending v[0..d), by monotone pointers. w has
 * d + 1 slots and is overwritten. */
static void sweep_cross(const field_scale *fs, const int64_t *v, int64_t *w, size_t d,
                        int64_t *out)
{
    int bands = 0; /* thresholds that some difference reaches */
    while (bands < DATUM_WBF_BANDS && v[d - 1] - v[0] >= fs->T[bands]) bands++;
    size_t below[DATUM_WBF_BANDS] = {0}, under[DATUM_WBF_BANDS] = {0};
    int64_t *pre = w, total = 0; /* pre[f]: weight of v[0..f) */
    for (size_t f = 0; f < d; f++) {
        int64_t x = w[f];
        pre[f] = total;
        total += x;
    }
    pre[d] = total;
    for (size_t e = 0; e < d; e++) {
        int64_t sum = 0;
        for (int t = 0; t < bands; t++) {
            while (below[t] < d && v[below[t]] <= v[e] - fs->T[t]) below[t]++;
            while (under[t] < d && v[under[t]] < v[e] + fs->T[t]) under[t]++;
            sum += pre[below[t]] - (total - pre[under[t]]);
        }
        out[e] = sum;
    }
}

/* Weighted cross-IMPs of distinct ascending v[0..d) (grid units):
 * out[e] = sum_f w[f] * imp(v[e] - v[f]), before halving. w has d + 1 slots
 * and may be overwritten; dense: DENSE_MAX + 1 scratch. */
static void weighted_cross(const field_scale *fs, const int64_t *v, int64_t *w, size_t d,
                           int64_t *dense, int64_t *out)
{
    int64_t steps = v[d - 1] - v[0] + 1;
    switch (choose((int64_t)d, steps, 1)) {
    case BY_DIRECT: direct_cross(fs, v, w, d, 1, out); return;
    case BY_SWEEP: sweep_cross(fs, v, w, d, out); return;
    case BY_GRID: break;
    }
    grid gr;
    grid_init(&gr, fs, v[0], steps, dense);
    for (size_t f = 0; f < d; f++) grid_add(&gr, v[f], w[f]);
    grid_close(&gr);
    for (size_t e = 0; e < d; e++) out[e] = grid_imps(&gr, v[e]);
}

/* Pair keys: the pair sum in grid steps (< 2^22) above the two 20-bit
 * indices a <= b of the distinct scores it adds. */
enum { KEY_SHIFT = 40, INDEX_BITS = 20 };
#define INDEX_MASK (((int64_t)1 << INDEX_BITS) - 1)

static size_t find_value(const int64_t *u, size_t m, int64_t x)
{
    size_t lo = 0, hi = m; /* u[lo] == x exists */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid] <= x) lo = mid;
        else hi = mid;
    }
    return lo;
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The field's distinct scores, their counts and what is built from them. */
typedef struct {
    size_t m;             /* distinct scores */
    const int64_t *u, *c; /* u[0..m) ascending (grid steps from the lowest), c[a] tables scoring u[a] */
    int64_t *G;           /* out: G[a] = sum_{j != i} F(s_i + s_j) for s_i = u[a] */
} field_values;

/* Table pairs {k, l} (k != l) whose scores are u[a] and u[a2] (a <= a2). */
static int64_t pair_weight(const field_values *fv, size_t a, size_t a2)
{
    return a == a2 ? fv->c[a] * (fv->c[a] - 1) / 2 : fv->c[a] * fv->c[a2];
}

/* G[a] += multiplicity * F(u[a] + u[a2]) for both scores of the pair. */
static void add_pair_to_G(const field_values *fv, size_t a, size_t a2, int64_t F)
{
    if (a == a2) {
        fv->G[a] += (fv->c[a] - 1) * F;
    } else {
        fv->G[a] += fv->c[a2] * F;
        fv->G[a2] += fv->c[a] * F;
    }
}

/* The score pairs (a <= a2) of positive weight, in a fixed order. */
#define FOR_EACH_PAIR(fv, a, a2)                                     \
    for (size_t a = 0; a < (fv)->m; a++)                             \
        for (size_t a2 = (fv)->c[a] > 1 ? a : a + 1; a2 < (fv)->m; a2++)

/* G with F compared directly over the pair sums in generation order. */
static void pairs_direct(const field_scale *fs, const field_values *fv, int64_t *z, int64_t *W,
                         int64_t *F)
{
    size_t p = 0;
    FOR_EACH_PAIR(fv, a, a2) {
        z[p] = fv->u[a] + fv->u[a2];
        W[p++] = pair_weight(fv, a, a2);
    }
    direct_cross(fs, z, W, p, 0, F);
    p = 0;
    FOR_EACH_PAIR(fv, a, a2) add_pair_to_G(fv, a, a2, F[p++]);
}

/* G by counting on the grid of pair sums 0 .. steps - 1. F is computed once
 * per grid point when pair sums must repeat, else once per pair. */
static void pairs_on_grid(const field_scale *fs, const field_values *fv, size_t pairs,
                          int64_t steps, int64_t *dense)
{
    grid gr;
    grid_init(&gr, fs, 0, steps, dense);
    FOR_EACH_PAIR(fv, a, a2) grid_add(&gr, fv->u[a] + fv->u[a2], pair_weight(fv, a, a2));
    grid_close(&gr);
    int64_t *memo = (int64_t)pairs > steps ? dense + DENSE_MAX + 1 : NULL;
    if (memo)
        for (int64_t k = 0; k < steps; k++) memo[k] = INT64_MIN;
    FOR_EACH_PAIR(fv, a, a2) {
        int64_t sum = fv->u[a] + fv->u[a2], F;
        if (memo) {
            if (memo[sum] == INT64_MIN) memo[sum] = grid_imps(&gr, sum);
            F = memo[sum];
        } else {
            F = grid_imps(&gr, sum);
        }
        add_pair_to_G(fv, a, a2, F);
    }
}

/* G from the sorted distinct pair sums z (swept, or whatever is cheapest
 * for them once duplicates are merged). */
static void pairs_sorted(const field_scale *fs, const field_values *fv, int64_t *keys, int64_t *z,
                         int64_t *W, int64_t *F, int64_t *dense)
{
    size_t p = 0, d = 0;
    FOR_EACH_PAIR(fv, a, a2) {
        keys[p++] = ((fv->u[a] + fv->u[a2]) << KEY_SHIFT) | ((int64_t)a << INDEX_BITS) | (int64_t)a2;
    }
    sort_i64(keys, p);
    for (size_t q = 0; q < p; q++) {
        int64_t value = keys[q] >> KEY_SHIFT;
        if (d == 0 || z[d - 1] != value) {
            z[d] = value;
            W[d++] = 0;
        }
        W[d - 1] += pair_weight(fv, (size_t)((keys[q] >> INDEX_BITS) & INDEX_MASK),
                                (size_t)(keys[q] & INDEX_MASK));
    }
    weighted_cross(fs, z, W, d, dense, F); /* F(z_e); W is spent */
    for (size_t q = 0, e = 0; q < p; q++) {
        while (z[e] != keys[q] >> KEY_SHIFT) e++;
        add_pair_to_G(fv, (size_t)((keys[q] >> INDEX_BITS) & INDEX_MASK),
                      (size_t)(keys[q] & INDEX_MASK), F[e]);
    }
}

static void barking_fast(const bark_scale *b, const int32_t *scores, size_t n, int64_t *work,
                         double *raw)
{
    size_t pairs_max = n * (n + 1) / 2;
    int64_t *u = work, *c = u + n, *X = c + n, *G = X + n;
    int64_t *keys = G + n, *z = keys + pairs_max, *W = z + pairs_max, *F = W + pairs_max + 1;
    int64_t *dense = F + pairs_max;                        /* 2 * DENSE_MAX + 1 */
    uint8_t *band = (uint8_t *)(dense + 2 * DENSE_MAX + 1); /* BAND_TABLE */

    /* Distinct scores u[0..m) and their counts c. */
    for (size_t i = 0; i < n; i++) u[i] = scores[i];
    sort_i64(u, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && u[m - 1] == u[i]) {
            c[m - 1]++;
        } else {
            u[m] = u[i];
            c[m++] = 1;
        }
    }
    if (m == 1) { /* one score: every term is 0 */
        for (size_t i = 0; i < n; i++) raw[i] = 0.0;
        return;
    }
    /* To grid steps from the lowest score. */
    int64_t u0 = u[0], g = 0;
    for (size_t a = 1; a < m; a++) g = gcd(u[a] - u0, g);
    for (size_t a = 0; a < m; a++) u[a] = (u[a] - u0) / g;
    field_scale fs;
    field_scale_init(&fs, b, g, 2 * u[m - 1], band);

    memcpy(keys, c, m * sizeof *c); /* keys is free yet: a copy of c that may be spoilt */
    weighted_cross(&fs, u, keys, m, dense, X); /* X_a: cross-IMPs of a score u_a */

    field_values fv = {m, u, c, G};
    memset(G, 0, m * sizeof *G);
    size_t pairs = 0;
    for (size_t a = 0; a < m; a++) pairs += m - a - (c[a] > 1 ? 0 : 1);
    int64_t steps = 2 * u[m - 1] + 1;
    switch (choose((int64_t)pairs, steps, 0)) {
    case BY_DIRECT: pairs_direct(&fs, &fv, z, W, F); break;
    case BY_GRID: pairs_on_grid(&fs, &fv, pairs, steps, dense); break;
    case BY_SWEEP: pairs_sorted(&fs, &fv, keys, z, W, F, dense); break;
    }

    for (size_t i = 0; i < n; i++) {
        size_t a = find_value(u, m, (scores[i] - u0) / g);
        double r = (double)(G[a] - (int64_t)(n - 2) * X[a]);
        raw[i] = (b->halved ? r * 0.5 : r) + 0.0;
    }
}

int datum_field_barking(const datum_scale *scale, const int32_t *scores, size_t n, int64_t *work,
                        double *raw)
{
    bark_scale b;
    if (bark_scale_init(scale, &b) != DATUM_OK) return DATUM_E_ARG;
    if (n < 4) {
        fill_nan(raw, n);
        return DATUM_W_EMPTY;
    }
    barking_fast(&b, scores, n, work, raw);
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Batch drivers over a chunk of fields (OpenMP).                           */

/* Scratch is one block per thread, carved into 8-byte aligned slices. */
static size_t round8(size_t bytes) { return (bytes + 7) / 8 * 8; }

static int is_real(const datum_fields *in, size_t row)
{
    return !in->adjusted || in->adjusted[row] == DATUM_ADJ_NONE;
}

typedef struct {
    const bark_scale *b;
    const datum_fields *in;
    double *ns_raw, *ns_avg;
    int64_t *terms;
} bark_job;

static void barking_field(const bark_job *job, size_t f, unsigned char *block, size_t max_n)
{
    int32_t *real = (int32_t *)block;
    uint32_t *where = (uint32_t *)(block + round8(max_n * 4));
    double *raw = (double *)(block + 2 * round8(max_n * 4));
    int64_t *work = (int64_t *)(block + 2 * round8(max_n * 4) + 8 * max_n);
    size_t first = (size_t)job->in->offset[f], n = (size_t)job->in->offset[f + 1] - first, m = 0;
    for (size_t r = first; r < first + n; r++) {
        job->ns_raw[r] = job->ns_avg[r] = NAN;
        job->terms[r] = 0;
        if (!is_real(job->in, r)) continue;
        real[m] = job->in->ns_score[r];
        where[m++] = (uint32_t)r;
    }
    if (m < 4) return; /* fewer than 4 tables: no barking score */
    barking_fast(job->b, real, m, work, raw);
    int64_t terms = datum_barking_terms(m);
    for (size_t j = 0; j < m; j++) {
        job->ns_raw[where[j]] = raw[j];
        job->ns_avg[where[j]] = raw[j] / (double)terms;
        job->terms[where[j]] = terms;
    }
}

int datum_barking_fields(datum_ctx *ctx, const datum_scale *scale, const datum_fields *in,
                         double *ns_raw, double *ns_avg, int64_t *terms)
{
    bark_scale b;
    if (bark_scale_init(scale, &b) != DATUM_OK)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "barking is defined on the wbf scale only");
    size_t max_n = datum_largest_field(in);
    if (max_n > DATUM_BARKING_MAX_N)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "a field of %zu results is too large for barking",
                              max_n);
    int threads = datum_ctx_threads(ctx);
    size_t stride = 2 * round8(max_n * 4) + 8 * max_n + 8 * datum_barking_work_len(max_n);
    unsigned char *blocks = datum_malloc(ctx, (size_t)threads * stride + 8, 1);
    if (!blocks) return DATUM_E_NOMEM;
    bark_job job = {&b, in, ns_raw, ns_avg, terms};
#pragma omp parallel num_threads(threads)
    {
        unsigned char *block = blocks + (size_t)omp_get_thread_num() * stride;
#pragma omp for schedule(dynamic, 256)
        for (int64_t f = 0; f < (int64_t)in->n_fields; f++)
            barking_field(&job, (size_t)f, block, max_n);
    }
    datum_free(blocks);
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* The teams-of-eight match.                                                */

int datum_match_board(const datum_scale *scale, const int32_t *ns_score, const int32_t *ns_team,
                      const int32_t *ew_team, size_t n, int32_t team, int64_t *aggregate,
                      double *imps)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (ns_team[i] == ew_team[i]) return DATUM_E_INPUT;
        if (ns_team[i] == team) sum += ns_score[i];
        else if (ew_team[i] == team) sum -= ns_score[i];
        else return DATUM_E_INPUT;
    }
    *aggregate = sum;
    *imps = datum_imp_ratio(scale, sum, 1);
    return DATUM_OK;
}

typedef struct {
    const datum_scale *scale;
    const datum_fields *in;
    const int32_t *match, *ns_team, *ew_team;
    double *ns_aggregate, *ns_imps;
    uint8_t *bad; /* per field: its matches do not oppose two teams */
} match_job;

/* One field: rows sharing a match value are one match; each gets its match's
 * aggregate from its own NS team's perspective. Rows outside any match
 * (match < 0) get NaN. */
static void match_field(const match_job *job, size_t f, unsigned char *block, size_t max_n)
{
    uint32_t *leader = (uint32_t *)block;             /* first row of each match */
    int64_t *sum = (int64_t *)(block + round8(max_n * 4)); /* per match: its NS team's aggregate */
    uint8_t *adjusted = (uint8_t *)(sum + max_n);     /* per match: has an adjusted row */
    uint32_t *match_of = (uint32_t *)(block + round8(max_n * 4) + 8 * max_n + round8(max_n));
    size_t first = (size_t)job->in->offset[f], n = (size_t)job->in->offset[f + 1] - first, k = 0;
    for (size_t r = first; r < first + n; r++) {
        if (job->match[r] < 0) continue;
        size_t g = 0;
        while (g < k && job->match[leader[g]] != job->match[r]) g++;
        if (g == k) {
            leader[k++] = (uint32_t)r;
            sum[g] = 0;
            adjusted[g] = 0;
        }
        match_of[r - first] = (uint32_t)g;
        int32_t x = job->ns_team[leader[g]], y = job->ew_team[leader[g]];
        int sign = job->ns_team[r] == x && job->ew_team[r] == y   ? 1
                   : job->ns_team[r] == y && job->ew_team[r] == x ? -1
                                                                  : 0;
        if (sign == 0 || x == y) job->bad[f] = 1;
        if (!is_real(job->in, r)) adjusted[g] = 1;
        else sum[g] += sign * (int64_t)job->in->ns_score[r];
    }
    for (size_t r = first; r < first + n; r++) {
        if (job->match[r] < 0) {
            job->ns_aggregate[r] = job->ns_imps[r] = NAN;
            continue;
        }
        size_t g = match_of[r - first];
        int sign = job->ns_team[r] == job->ns_team[leader[g]] ? 1 : -1;
        if (adjusted[g] || job->bad[f]) {
            job->ns_aggregate[r] = job->ns_imps[r] = NAN;
            continue;
        }
        job->ns_aggregate[r] = (double)(sign * sum[g]) + 0.0;
        job->ns_imps[r] = datum_imp_ratio(job->scale, sign * sum[g], 1);
    }
}

int datum_match_fields(datum_ctx *ctx, const datum_scale *scale, const datum_fields *in,
                       const int32_t *match, const int32_t *ns_team, const int32_t *ew_team,
                       double *ns_aggregate, double *ns_imps, size_t *bad_field)
{
    if (bad_field) *bad_field = in->n_fields;
    if ((unsigned)scale->kind > DATUM_SCALE_LINEAR)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid scale");
    size_t max_n = datum_largest_field(in);
    int threads = datum_ctx_threads(ctx);
    size_t stride = 2 * round8(max_n * 4) + 8 * max_n + round8(max_n);
    unsigned char *blocks = datum_malloc(ctx, (size_t)threads * stride + 8, 1);
    uint8_t *bad = datum_calloc(ctx, in->n_fields + 1, 1);
    if (!blocks || !bad) {
        datum_free(blocks);
        datum_free(bad);
        return DATUM_E_NOMEM;
    }
    match_job job = {scale, in, match, ns_team, ew_team, ns_aggregate, ns_imps, bad};
#pragma omp parallel num_threads(threads)
    {
        unsigned char *block = blocks + (size_t)omp_get_thread_num() * stride;
#pragma omp for schedule(dynamic, 256)
        for (int64_t f = 0; f < (int64_t)in->n_fields; f++)
            match_field(&job, (size_t)f, block, max_n);
    }
    int rc = DATUM_OK;
    for (size_t f = 0; f < in->n_fields && rc == DATUM_OK; f++) {
        if (!bad[f]) continue;
        if (bad_field) *bad_field = f;
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT,
                            "field %zu of the chunk: a match whose tables do not oppose the same "
                            "two teams, one North-South and one East-West",
                            f);
    }
    datum_free(blocks);
    datum_free(bad);
    return rc;
}
