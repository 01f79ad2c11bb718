/* compare.c - `datum compare`: every per-board method in one pass of the job
 * layer, the ratings as their own solve, the rankings per group and the
 * statistics between them, and the continuity sample (docs/methods.md,
 * "Comparing methods"). Events are processed in parallel, each into its own
 * slot, and combined in archive order: the figures do not depend on the
 * thread count. */
#include "compare_internal.h"
#include "datum_alloc.h"
#include "datum_jobs.h"
#include "datum_rate.h"
#include "datum_rate_jobs.h"
#include "datum_simd.h"
#include "datum_text.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAXM DATUM_COMPARE_MAX_METHODS
#define KINDS DATUM_PERTURB_KINDS

/* One group's statistics of a pair of methods (NaN / -1: not defined). */
typedef struct {
    double spearman, kendall, topk;
    int8_t winner, podium; /* 1 changed, 0 not, -1 not defined */
    uint32_t common;
    uint32_t hist[DATUM_COMPARE_RANK_BINS];
} pair_stat;

typedef struct {
    double spearman, kendall;
} truth_stat;

typedef struct {
    uint64_t made, skipped, others, moved, rank_perturbations, rank_changes, gain_more;
    double sum_move, max_move;
} cont_stat;

/* What one event contributes. */
typedef struct {
    uint32_t event, n_pairs;
    int32_t date;
    uint64_t sampled;
    uint32_t numbers;   /* bit i: method i's NS and EW figures of the event are all numbers */
    pair_stat *pairs;   /* n(n-1)/2 (by event) */
    truth_stat *truth;  /* n (by event, with the truth) */
    cont_stat *cont;    /* n x KINDS */
    double *fig_sum;    /* n: sum |figure| */
    uint64_t *fig_n;
    double *diff_sum;   /* n(n-1)/2 */
    uint64_t *diff_n;
} event_out;

/* Per-thread scratch of the event work, for events of up to cap pairs. */
typedef struct {
    int32_t *slot; /* per archive pair: its slot in the event, -1 */
    size_t cap;
    uint32_t *pairs, *idx, *tmp, *order, *affected;
    uint32_t *identity; /* identity[j] = j */
    double *sum, *top, *value, *newvalue, *x, *y, *truth;
    int32_t *mid2; /* m + 1 rankings (the truth last) x cap: twice the mid-rank, 0: not ranked */
    uint32_t *rslot; /* per row of the event: its NS pair's first cell of sum, top and
                        boards (slot * methods), then its EW pair's */
    int64_t *boards;
    uint32_t *ordinal; /* m x cap, 1-based; 0: not ranked */
    int16_t *signs;    /* (m + 1) x COMPARE_TAU_STRIDE: compare_tau_b_ranks_all's */
    uint32_t *by_rank; /* the last ranking's pairs, best first (by_rank_n of them) */
    size_t by_rank_n;
    void *work;
    unsigned char *kernels; /* datum_pass_score_range's scratch */
    size_t kernels_cap;
} scratch;

/* A perturbed copy of a sampled field, for the kernels. */
typedef struct {
    uint32_t field;  /* in the chunk */
    uint32_t row;    /* in the chunk: the result changed */
    uint8_t kind;
} perturbed;

struct datum_compare {
    datum_ctx *ctx;
    char *path;
    datum_compare_options opt;
    datum_compare_method method[MAXM];
    size_t n;
    int pass_id[MAXM]; /* -1: rate */
    int rate;          /* the rate method's index, -1 */
    enum { READY, DONE, FAILED } state;
    datum_pass *pass;
    datum_archive *archive; /* our own handle: truth, the ratings' read */
    datum_archive_info info;
    double *truth, *rating;
    int rate_status;
    uint64_t threshold; /* a field is sampled when its hash is below */
    /* Results. */
    datum_compare_pair *pair;
    datum_compare_truth *truth_stat;
    datum_compare_continuity *cont;
    datum_compare_figures *fig;
    double *sum_spear, *sum_kend, *sum_topk, *diff_sum, *t_spear, *t_kend, *fig_sum;
    uint64_t *t_spear_n, *t_kend_n;
    double *move_sum;
    uint64_t groups, group_pairs, sampled_fields;
    double seconds_pass, seconds_rate, seconds_stats;
    /* By year or all: totals per group, pair and method. */
    uint32_t n_groups;
    int first_year;
    double *gsum, *gtop;
    int64_t *gboards;
    /* Per chunk. */
    scratch *scr;
    int n_scr;
    event_out *ev;
    size_t ev_cap;
    uint32_t *ev_first; /* chunk field where each event starts, + end */
    size_t ev_first_cap;
    perturbed *pert;
    size_t pert_cap, n_pert;
    uint64_t *p_offset;
    int32_t *p_score;
    uint8_t *p_adj;
    uint32_t *p_target;
    size_t p_score_cap, p_adj_cap, p_fields_cap, p_target_cap;
    double *p_ns[MAXM], *p_ew[MAXM], *p_top[MAXM];
    size_t p_ns_cap[MAXM], p_ew_cap[MAXM], p_top_cap[MAXM];
    uint64_t skipped[KINDS]; /* sampled results a kind did not apply to */
    /* Per chunk, per event: its outputs' arrays. */
    pair_stat *pool_pairs;
    truth_stat *pool_truth;
    cont_stat *pool_cont;
    double *pool_fig, *pool_diff;
    uint64_t *pool_fig_n, *pool_diff_n;
    size_t pool_cap;
    uint32_t *ev_largest;
    size_t ev_largest_cap;
    uint32_t *first_pert; /* per chunk field: its first perturbed copy, or UINT32_MAX */
    size_t first_pert_cap;
    datum_csv_writer *groups_csv;
};


static size_t n_pairs_of(size_t m) { return m * (m - 1) / 2; }

/* Index of methods a < b among the pairs (0,1), (0,2), ..., (1,2), ... */
static size_t pair_index(size_t m, size_t a, size_t b) { return a * m - a * (a + 1) / 2 + (b - a - 1); }

static const char *unit_of(datum_compare_kind k)
{
    return k == DATUM_COMPARE_MATCHPOINTS ? "% of top" : k == DATUM_COMPARE_RATE ? "rating" : "IMPs";
}

/* ------------------------------------------------------------------------ */

int datum_compare_create(datum_ctx *ctx, const char *archive_path,
                         const datum_compare_options *opt, datum_compare **out)
{
    if (out) *out = NULL;
    datum_compare_options o = DATUM_COMPARE_OPTIONS_INIT;
    if (opt) o = *opt;
    if (!ctx || !archive_path || !out || o.top_k < 1 || (unsigned)o.by > DATUM_COMPARE_BY_ALL)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_compare_create: invalid argument");
    datum_compare *c = datum_calloc(ctx, 1, sizeof *c);
    if (!c) return DATUM_E_NOMEM;
    c->ctx = ctx;
    c->opt = o;
    c->rate = -1;
    c->path = datum_strdup(ctx, archive_path);
    int rc = c->path ? datum_pass_create(ctx, archive_path, &c->pass) : DATUM_E_NOMEM;
    if (rc >= 0) rc = datum_archive_open(ctx, archive_path, &c->archive);
    if (rc >= 0 && o.chunk_rows) rc = datum_pass_set_chunk_rows(c->pass, o.chunk_rows);
    if (rc < 0) {
        datum_compare_free(&c);
        return rc;
    }
    datum_archive_get_info(c->archive, &c->info);
    *out = c;
    return DATUM_OK;
}

int datum_compare_add(datum_compare *c, const datum_compare_method *m)
{
    if (!c) return DATUM_E_ARG;
    if (!m || c->n >= MAXM || c->state != READY || (unsigned)m->kind > DATUM_COMPARE_RATE)
        return datum_ctx_fail(c->ctx, DATUM_E_ARG, "datum_compare_add: %s",
                              c->n >= MAXM ? "at most 16 methods" : "invalid method or run");
    if (m->kind == DATUM_COMPARE_RATE && c->rate >= 0)
        return datum_ctx_fail(c->ctx, DATUM_E_ARG, "datum_compare_add: rate once only");
    int id = -1, rc = DATUM_OK;
    datum_pass_outputs none = DATUM_PASS_OUTPUTS_INIT;
    switch (m->kind) {
    case DATUM_COMPARE_BUTLER: rc = datum_pass_add_butler(c->pass, &m->m, &none, &id); break;
    case DATUM_COMPARE_CROSS: rc = datum_pass_add_cross(c->pass, &m->m, &none, &id); break;
    case DATUM_COMPARE_BARKING: rc = datum_pass_add_barking(c->pass, &m->m, &none, &id); break;
    case DATUM_COMPARE_MATCHPOINTS: rc = datum_pass_add_matchpoints(c->pass, &m->mp, &none, &id); break;
    case DATUM_COMPARE_RATE:
        if (datum_rule_check(&m->m.rule) != DATUM_OK)
            return datum_ctx_fail(c->ctx, DATUM_E_ARG, "datum_compare_add: invalid datum rule");
        c->rate = (int)c->n;
        break;
    }
    if (rc < 0) return rc;
    c->pass_id[c->n] = id;
    c->method[c->n++] = *m;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* The ratings: their own read and solve                                    */

static int solve_ratings(datum_compare *c)
{
    double t0 = omp_get_wtime();
    datum_rate_window window = DATUM_RATE_WINDOW_INIT;
    datum_rate_problem *problem = NULL;
    datum_rate_result *r = NULL;
    int rc = datum_rate_problem_create(c->ctx, c->info.n_pairs, &window, &problem);
    /* Every date in the window, no decay: the fields' dates suffice. */
    datum_rate_sink sink = {.method = &c->method[c->rate].m, .problem = problem, .field_dates_only = 1};
    if (rc >= 0) rc = datum_rate_read(c->ctx, c->archive, NULL, 0, c->info.n_fields, &sink);
    datum_rate_options opt = DATUM_RATE_OPTIONS_INIT;
    if (rc >= 0) rc = c->rate_status = datum_rate_solve(c->ctx, problem, &opt, &r);
    if (rc >= 0) {
        c->rating = datum_malloc(c->ctx, (size_t)c->info.n_pairs + 1, sizeof *c->rating);
        if (!c->rating) rc = DATUM_E_NOMEM;
        for (uint32_t q = 0; rc >= 0 && q < c->info.n_pairs; q++)
            c->rating[q] = r->component[q] >= 0 ? r->rating[q] : NAN;
    }
    datum_rate_result_free(&r);
    datum_rate_problem_free(&problem);
    c->seconds_rate = omp_get_wtime() - t0;
    return rc < 0 ? rc : DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* A group's statistics                                                     */

/* Groups up to this many pairs are ranked by insertion; up to PREVIOUS_MAX,
 * by insertion from the order of the same group's previous ranking. */
enum { INSERTION_MAX = 64, PREVIOUS_MAX = 256 };

/* Ranks of one method over its ranked pairs (value finite): ordinal (1 the
 * best, ties by pair index, which is name order) and twice the mid-rank (an
 * integer: tied pairs share the mean of their ranks). Returns how many.
 * after_previous: the same group's previous ranking (in s->by_rank) may give
 * the order to start from. */
static uint32_t rank_method(size_t n, const double *value, uint32_t *ordinal, int32_t *mid2,
                            scratch *s, int after_previous)
{
    /* (-figure, pair) of the ranked pairs, sorted: by insertion (an event's
     * pairs are few and the entries are compared in place), else merged. */
    typedef struct {
        double key;
        uint32_t j;
    } entry;
    entry *e = s->work; /* datum_rank_work_size(cap) holds cap entries */
    uint32_t k = 0;
    for (size_t j = 0; j < n; j++) ordinal[j] = 0, mid2[j] = 0;
    /* The methods mostly agree: from the previous ranking's order the
     * insertion moves few entries, and its comparisons are predictable
     * (groups up to PREVIOUS_MAX pairs: at worst n^2 / 2 moves). Ties are
     * ordered by pair, so the order is the same from any start. */
    int insertion = n <= INSERTION_MAX;
    if (n <= PREVIOUS_MAX && after_previous && s->by_rank_n == n) {
        insertion = 1;
        for (size_t p = 0; p < n; p++) {
            uint32_t j = s->by_rank[p];
            if (!isnan(value[j])) e[k++] = (entry){-value[j], j};
        }
    } else {
        for (size_t j = 0; j < n; j++)
            if (!isnan(value[j])) e[k++] = (entry){-value[j], (uint32_t)j};
    }
    if (insertion) {
        for (uint32_t i = 1; i < k; i++) {
            entry x = e[i];
            uint32_t u = i;
            while (u > 0 && (e[u - 1].key > x.key || (e[u - 1].key == x.key && e[u - 1].j > x.j)))
                e[u] = e[u - 1], u--;
            e[u] = x;
        }
    } else {
        for (uint32_t p = 0; p < k; p++) s->x[p] = e[p].key, s->order[p] = p;
        compare_sort_by(k, s->x, s->order, s->tmp);
        for (uint32_t p = 0; p < k; p++) s->idx[p] = e[s->order[p]].j;
        for (uint32_t p = 0; p < k; p++) e[p] = (entry){s->x[s->order[p]], s->idx[p]};
    }
    for (uint32_t p = 0, q; p < k; p = q) {
        for (q = p + 1; q < k && e[q].key == e[p].key; q++) continue;
        for (uint32_t t = p; t < q; t++) {
            ordinal[e[t].j] = t + 1; /* ties in pair order */
            mid2[e[t].j] = (int32_t)(p + 1 + q);
        }
    }
    for (uint32_t p = 0; p < k; p++) s->by_rank[p] = e[p].j;
    s->by_rank_n = k;
    return k;
}

/* Groups up to this many pairs get every Kendall's tau-b at once
 * (compare_tau_b_ranks_all: O(n^2), cheaper than a sort per two rankings). */
enum { JOINT_TAU_MAX = 256 };
_Static_assert(JOINT_TAU_MAX <= COMPARE_TAU_BLOCK + 1, "compare_tau_b_ranks_all takes the groups");

/* The bin of a rank change |a - b|: 0, 1, 2, 3, 4-5, 6-10, 11-20, more.
 * From a table: the changes are irregular, a chain of tests would be
 * mispredicted. */
static int bin_of(uint32_t a, uint32_t b)
{
    static const uint8_t kBin[22] = {0, 1, 2, 3, 4, 4, 5, 5, 5, 5, 5,
                                     6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7};
    int64_t diff = (int64_t)a - (int64_t)b, sign = diff >> 63; /* |a - b| and its cap by masks */
    uint64_t d = (uint64_t)((diff ^ sign) - sign), over = (uint64_t)0 - (uint64_t)(d > 21);
    return kBin[(d & ~over) | (21 & over)];
}

/* Groups up to this many pairs get Spearman's rho in integers: |difference|
 * <= k, so every sum of products is at most k^3 <= 2^51. */
enum { INTEGER_SPEARMAN_MAX = 1 << 17 };

/* Groups up to this many pairs, all ranked, get spearman_of_ranks's sums
 * in 16-bit differences (twice-mid-ranks up to 2k). */
enum { SPEARMAN_SHORT_MAX = 256 };

/* Spearman's rho of two rankings of the same k pairs, listed in at[] (the
 * identity: identity[t] = t, then the ranks are read in order), from
 * their twice-mid-ranks ra and rb: the Pearson correlation of the ranks,
 * compare_pearson's figure bit for bit (for k <= INTEGER_SPEARMAN_MAX: its
 * mean is then exactly k + 1 and every difference, product and partial sum
 * an integer below 2^53, so its sums in doubles are these sums in integers),
 * without converting the ranks or a second pass. */
static double spearman_of_ranks(uint32_t k, const uint32_t *at, const uint32_t *identity,
                                const int32_t *ra, const int32_t *rb, double *xa, double *xb)
{
    if (k > INTEGER_SPEARMAN_MAX) {
        for (uint32_t t = 0; t < k; t++) xa[t] = ra[at[t]], xb[t] = rb[at[t]];
        return compare_pearson(k, xa, xb);
    }
    int64_t mean = (int64_t)k + 1, sxy = 0, sxx = 0, syy = 0;
    uint32_t t = 0;
#if defined(__SSE2__)
    /* The usual case, every pair of a group of at most SPEARMAN_SHORT_MAX:
     * the ranks in their order, each difference within 16 bits, eight
     * products a step summed by twos into 32-bit lanes (pmaddwd: each lane
     * at most 2 k^2 k / 8 < 2^31); the same integer sums. */
    if (at == identity && k <= SPEARMAN_SHORT_MAX) {
        __m128i m16 = _mm_set1_epi16((int16_t)mean), xy = _mm_setzero_si128(), xx = xy, yy = xy;
        for (; t + 8 <= k; t += 8) {
            __m128i x = _mm_sub_epi16(_mm_packs_epi32(_mm_loadu_si128((const __m128i *)(const void *)(ra + t)),
                                                      _mm_loadu_si128((const __m128i *)(const void *)(ra + t + 4))), m16);
            __m128i y = _mm_sub_epi16(_mm_packs_epi32(_mm_loadu_si128((const __m128i *)(const void *)(rb + t)),
                                                      _mm_loadu_si128((const __m128i *)(const void *)(rb + t + 4))), m16);
            xy = _mm_add_epi32(xy, _mm_madd_epi16(x, y));
            xx = _mm_add_epi32(xx, _mm_madd_epi16(x, x));
            yy = _mm_add_epi32(yy, _mm_madd_epi16(y, y));
        }
        int32_t lane[3][4];
        _mm_storeu_si128((__m128i *)(void *)lane[0], xy);
        _mm_storeu_si128((__m128i *)(void *)lane[1], xx);
        _mm_storeu_si128((__m128i *)(void *)lane[2], yy);
        for (int l = 0; l < 4; l++) sxy += lane[0][l], sxx += lane[1][l], syy += lane[2][l];
    }
#endif
    for (; t < k; t++) {
        int64_t dx = ra[at[t]] - mean, dy = rb[at[t]] - mean;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return k >= 2 && sxx > 0 && syy > 0 ? (double)sxy / sqrt((double)sxx * (double)syy) : NAN;
}

/* Spearman and Kendall tau-b of two rankings over the k pairs listed in
 * at[]: from the twice-mid-ranks when both rank exactly these pairs (the
 * usual case: no sort, integers), else from the values. */
static void correlate(uint32_t k, const uint32_t *at, int same, const int32_t *ra,
                      const int32_t *rb, const double *va, const double *vb, scratch *s,
                      const double *known_kendall, double *spearman, double *kendall)
{
    double *xa = s->x, *xb = s->y;
    if (same) {
        *spearman = spearman_of_ranks(k, at, s->identity, ra, rb, xa, xb);
        if (known_kendall) {
            *kendall = *known_kendall;
            return;
        }
        int32_t *ia = (int32_t *)s->order, *ib = (int32_t *)s->tmp;
        for (uint32_t t = 0; t < k; t++) ia[t] = ra[at[t]], ib[t] = rb[at[t]], xa[t] = ia[t], xb[t] = ib[t];
        *kendall = k <= 64 ? compare_tau_b_ranks(k, ia, ib) : datum_kendall_tau_b(k, xa, xb, s->work);
        return;
    }
    for (uint32_t t = 0; t < k; t++) xa[t] = va[at[t]], xb[t] = vb[at[t]];
    *spearman = datum_spearman(k, xa, xb, s->work);
    for (uint32_t t = 0; t < k; t++) xa[t] = va[at[t]], xb[t] = vb[at[t]];
    *kendall = datum_kendall_tau_b(k, xa, xb, s->work);
}

/* The pairs j < n ranked by both of two rankings (ordinals oa and ob,
 * ranking ka and kb of them): how many, and *at their list, s->identity
 * when both rank all n (the usual case: no list built), else s->affected. */
static uint32_t common_pairs(size_t n, const uint32_t *oa, const uint32_t *ob, uint32_t ka,
                             uint32_t kb, scratch *s, const uint32_t **at)
{
    if (ka == n && kb == n) {
        *at = s->identity;
        return (uint32_t)n;
    }
    uint32_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (oa[j] && ob[j]) s->affected[k++] = (uint32_t)j;
    *at = s->affected;
    return k;
}

/* The statistics of methods a and b over pairs j < n ranked by both. */
static void compare_two(const datum_compare *c, size_t n, const double *va, const double *vb,
                        const uint32_t *oa, const uint32_t *ob, const int32_t *ma,
                        const int32_t *mb, uint32_t ka, uint32_t kb, scratch *s,
                        const double *known_kendall, pair_stat *out)
{
    memset(out, 0, sizeof *out);
    out->spearman = out->kendall = out->topk = NAN;
    out->winner = out->podium = -1;
    const uint32_t *at;
    uint32_t k = common_pairs(n, oa, ob, ka, kb, s, &at);
    out->common = k;
    if (k < 2) return;
    int same = k == ka && k == kb;
    correlate(k, at, same, ma, mb, va, vb, s, same ? known_kendall : NULL, &out->spearman,
              &out->kendall);
    /* Ordinal ranks among the common pairs: each method's own when they
     * rank the same pairs (no copy when they rank all), else their order
     * among the common ones. */
    uint32_t *common_rank = (uint32_t *)s->y; /* y: cap doubles, free now */
    const uint32_t *ca = oa, *cb = ob;
    for (int side = 0; side < 2 && at != s->identity; side++) {
        const uint32_t *o = side ? ob : oa;
        uint32_t *cr = common_rank + (side ? s->cap : 0);
        if (same) {
            for (uint32_t t = 0; t < k; t++) cr[t] = o[at[t]];
        } else {
            for (uint32_t t = 0; t < k; t++) s->x[t] = (double)o[at[t]], s->idx[t] = t;
            compare_sort_by(k, s->x, s->idx, s->tmp);
            for (uint32_t p = 0; p < k; p++) cr[s->idx[p]] = p + 1;
        }
        *(side ? &cb : &ca) = cr;
    }
    uint32_t top3 = 0, topk = 0, kk = (uint32_t)c->opt.top_k;
    out->winner = 0;
    for (uint32_t t = 0; t < k; t++) {
        if (ca[t] == 1 && cb[t] != 1) out->winner = 1;
        top3 += (ca[t] <= 3) & (cb[t] <= 3); /* &, not &&: no branch */
        topk += (ca[t] <= kk) & (cb[t] <= kk);
        out->hist[bin_of(ca[t], cb[t])]++;
    }
    if (k >= 4) out->podium = top3 != 3;
    if (k > kk) out->topk = (double)topk / (double)kk;
}

/* Every statistic of one group of n pairs: value[i*n + j] the figure of
 * pair j under method i (NaN: not ranked), truth[j] (NULL: none). */
static void group_stats(const datum_compare *c, size_t n, const double *value,
                        const double *truth, scratch *s, pair_stat *ps, truth_stat *ts)
{
    size_t m = c->n, with_truth = truth && ts;
    uint32_t ranked[MAXM + 1];
    for (size_t i = 0; i < m + with_truth; i++)
        ranked[i] = rank_method(n, i < m ? value + i * n : truth, s->ordinal + i * s->cap,
                                s->mid2 + i * s->cap, s, i > 0);
    /* The rankings that rank every pair (usually all of them) get their
     * Kendall's tau-b at once: the pairs of pairs compared once per ranking. */
    size_t joint[MAXM + 1], n_joint = 0;
    double tau[(MAXM + 1) * (MAXM + 1)];
    int at_joint[MAXM + 1];
    for (size_t i = 0; i < m + with_truth; i++) {
        at_joint[i] = -1;
        if (n <= JOINT_TAU_MAX && ranked[i] == n) at_joint[i] = (int)n_joint, joint[n_joint++] = i;
    }
    if (n_joint >= 2) {
        const int32_t *rank[MAXM + 1];
        for (size_t u = 0; u < n_joint; u++) rank[u] = s->mid2 + joint[u] * s->cap;
        compare_tau_b_ranks_all(n, n_joint, rank, s->signs, tau);
    }
#define KNOWN_TAU(a, b) (at_joint[a] >= 0 && at_joint[b] >= 0 ? &tau[at_joint[a] * n_joint + at_joint[b]] : NULL)
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++)
            compare_two(c, n, value + a * n, value + b * n, s->ordinal + a * s->cap,
                        s->ordinal + b * s->cap, s->mid2 + a * s->cap, s->mid2 + b * s->cap,
                        ranked[a], ranked[b], s, KNOWN_TAU(a, b), &ps[pair_index(m, a, b)]);
    if (!with_truth) return;
    uint32_t *tord = s->ordinal + m * s->cap;
    int32_t *tmid = s->mid2 + m * s->cap;
    for (size_t i = 0; i < m; i++) {
        const uint32_t *at;
        uint32_t k = common_pairs(n, s->ordinal + i * s->cap, tord, ranked[i], ranked[m], s, &at);
        int same = k == ranked[i] && k == ranked[m];
        correlate(k, at, same, s->mid2 + i * s->cap, tmid, value + i * n, truth, s,
                  same ? KNOWN_TAU(i, m) : NULL, &ts[i].spearman, &ts[i].kendall);
    }
#undef KNOWN_TAU
}

/* ------------------------------------------------------------------------ */
/* Per chunk                                                                */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void scratch_free(scratch *s)
{
    datum_free(s->slot);
    datum_free(s->pairs); datum_free(s->idx); datum_free(s->tmp); datum_free(s->order);
    datum_free(s->affected); datum_free(s->identity); datum_free(s->sum); datum_free(s->top); datum_free(s->value);
    datum_free(s->newvalue); datum_free(s->mid2); datum_free(s->rslot); datum_free(s->x); datum_free(s->y);
    datum_free(s->truth); datum_free(s->boards); datum_free(s->ordinal); datum_free(s->signs);
    datum_free(s->by_rank);
    datum_free(s->work);
    datum_free(s->kernels);
    memset(s, 0, sizeof *s);
}

/* Scratch for groups of up to cap pairs (slot: for n_pairs archive pairs). */
static int scratch_grow(datum_ctx *ctx, scratch *s, size_t cap, size_t m, uint32_t n_pairs)
{
    if (!s->slot) {
        s->slot = datum_malloc(ctx, (size_t)n_pairs + 1, sizeof *s->slot);
        if (!s->slot) return DATUM_E_NOMEM;
        for (uint32_t q = 0; q < n_pairs; q++) s->slot[q] = -1;
    }
    if (cap <= s->cap) return DATUM_OK;
    cap = cap < 64 ? 64 : cap;
    int32_t *slot = s->slot;
    s->slot = NULL;
    scratch_free(s);
    s->slot = slot;
    s->cap = cap;
    s->pairs = datum_malloc(ctx, cap, sizeof *s->pairs);
    s->idx = datum_malloc(ctx, cap, sizeof *s->idx);
    s->tmp = datum_malloc(ctx, cap, sizeof *s->tmp);
    s->order = datum_malloc(ctx, cap, sizeof *s->order);
    s->affected = datum_malloc(ctx, cap, sizeof *s->affected);
    s->identity = datum_malloc(ctx, cap, sizeof *s->identity);
    s->sum = datum_malloc(ctx, cap * m, sizeof *s->sum);
    s->top = datum_malloc(ctx, cap * m, sizeof *s->top);
    s->boards = datum_malloc(ctx, cap * m, sizeof *s->boards);
    s->value = datum_malloc(ctx, cap * m, sizeof *s->value);
    s->newvalue = datum_malloc(ctx, cap, sizeof *s->newvalue);
    s->mid2 = datum_malloc(ctx, cap * (m + 1) + COMPARE_TAU_PAD, sizeof *s->mid2); /* read past n */
    s->ordinal = datum_malloc(ctx, cap * (m + 1), sizeof *s->ordinal);
    s->rslot = datum_malloc(ctx, cap, sizeof *s->rslot);
    s->x = datum_malloc(ctx, cap, sizeof *s->x);
    s->y = datum_malloc(ctx, cap, sizeof *s->y);
    s->truth = datum_malloc(ctx, cap, sizeof *s->truth);
    s->work = datum_malloc(ctx, datum_rank_work_size(cap), 1);
    s->signs = datum_malloc(ctx, (m + 1) * COMPARE_TAU_STRIDE, sizeof *s->signs);
    s->by_rank = datum_malloc(ctx, cap, sizeof *s->by_rank);
    if (!s->pairs || !s->idx || !s->tmp || !s->order || !s->affected || !s->identity || !s->sum ||
        !s->top || !s->boards || !s->value || !s->newvalue || !s->mid2 || !s->rslot || !s->ordinal ||
        !s->x || !s->y || !s->truth || !s->work || !s->signs || !s->by_rank)
        return DATUM_E_NOMEM;
    for (size_t j = 0; j < cap; j++) s->identity[j] = (uint32_t)j;
    return DATUM_OK;
}

/* The figures method i gives the chunk's rows. */
typedef struct {
    const double *ns, *ew, *top; /* ew NULL: -ns; top: matchpoints' per field */
} rows_of;

/* Method i's contribution of row r (field f) to the totals of its NS and EW
 * pairs: into sum (figure), boards (1 if scored) and top. */
static inline void add_row(int mp, double ns, double ew, double top, double *sum_ns, double *sum_ew,
                           int64_t *b_ns, int64_t *b_ew, double *t_ns, double *t_ew, double sign)
{
    if (!isnan(ns)) *sum_ns += sign * ns, *b_ns += (int64_t)sign;
    if (!isnan(ew)) *sum_ew += sign * ew, *b_ew += (int64_t)sign;
    if (mp && !isnan(ns)) *t_ns += sign * top, *t_ew += sign * top;
}

/* The figure a pair is ranked by: IMPs per board, or the percentage. */
static inline double figure(int mp, double sum, int64_t boards, double top)
{
    if (mp) return top > 0 ? 100.0 * sum / top : NAN;
    return boards > 0 ? sum / (double)boards : NAN;
}

typedef struct {
    datum_compare *c;
    const datum_pass *pass;
    const datum_chunk *k;
    rows_of rows[MAXM];
    const double *p_ns[MAXM], *p_ew[MAXM], *p_top[MAXM];
} chunk_job;

/* The continuity of one perturbed copy q (of field f, row r) under method
 * i, whose per-pair totals before are in s (n pairs, ordinal ranks). */
static void perturb_one(const chunk_job *j, size_t i, size_t q, size_t n, scratch *s,
                        cont_stat *out)
{
    const datum_compare *c = j->c;
    const datum_chunk *k = j->k;
    const perturbed *pt = &c->pert[q];
    int mp = c->method[i].kind == DATUM_COMPARE_MATCHPOINTS;
    size_t m = c->n, f = pt->field;
    uint64_t r0 = k->offset[f], rows = k->offset[f + 1] - r0, p0 = c->p_offset[q];
    const rows_of *o = &j->rows[i];
    /* New totals of the field's pairs: old minus old rows plus new rows. */
    size_t na = 0;
    double *sum = s->x, *top = s->y, *oldsum = s->truth;
    int64_t *boards = (int64_t *)s->work;
    for (uint64_t t = 0; t < rows; t++) {
        uint64_t r = r0 + t;
        int32_t pq[2] = {s->slot[k->ns_pair[r]], s->slot[k->ew_pair[r]]};
        for (int side = 0; side < 2; side++) {
            uint32_t sl = (uint32_t)pq[side];
            s->affected[na] = sl;
            sum[na] = s->sum[sl * m + i];
            oldsum[na] = sum[na];
            boards[na] = s->boards[sl * m + i];
            top[na] = s->top[sl * m + i];
            double on = o->ns[r], oe = o->ew ? o->ew[r] : 0.0 - o->ns[r];
            double nn = j->p_ns[i][p0 + t], ne = j->p_ew[i][p0 + t];
            double old_v = side ? oe : on, new_v = side ? ne : nn;
            double old_top = mp ? o->top[f] : 0, new_top = mp ? j->p_top[i][q] : 0;
            if (!isnan(old_v)) sum[na] -= old_v, boards[na]--, top[na] -= mp && !isnan(on) ? old_top : 0;
            if (!isnan(new_v)) sum[na] += new_v, boards[na]++, top[na] += mp && !isnan(nn) ? new_top : 0;
            na++;
        }
    }
    uint32_t self_ns = (uint32_t)s->slot[k->ns_pair[pt->row]];
    uint32_t self_ew = (uint32_t)s->slot[k->ew_pair[pt->row]];
    const uint32_t *ord = s->ordinal + i * s->cap;
    const double *val = s->value + i * n;
    for (size_t p = 0; p < n; p++) s->newvalue[p] = val[p];
    double self_move = 0;
    for (size_t a = 0; a < na; a++) {
        uint32_t sl = s->affected[a];
        s->newvalue[sl] = figure(mp, sum[a], boards[a], top[a]);
        if (sl == self_ns) self_move = fabs(sum[a] - oldsum[a]);
    }
    out->made++;
    /* Each pair's place after: the ranked pairs (figure a number) sorted by
     * insertion from their order before (only the affected ones move), ties
     * by pair index as rank_method orders them; a pair's place is how many
     * pairs rank before it. at[p]: p's entry of affected (the last), or none;
     * a valid archive has each pair once in a field. */
    const double *nv = s->newvalue;
    uint32_t *at = s->idx, *place = s->tmp, *list = s->order, before = 0;
    for (size_t p = 0; p < n; p++) at[p] = UINT32_MAX;
    for (size_t a = 0; a < na; a++) at[s->affected[a]] = (uint32_t)a;
    for (size_t p = 0; p < n; p++)
        if (ord[p]) list[ord[p] - 1] = (uint32_t)p, before++;
    uint32_t ranked = 0;
    for (uint32_t t = 0; t < before; t++)
        if (!isnan(nv[list[t]])) list[ranked++] = list[t];
    for (size_t p = 0; p < n; p++)
        if (!ord[p] && !isnan(nv[p])) list[ranked++] = (uint32_t)p;
    /* before(u, p): u ranks before p (higher figure, ties by pair index). */
#define BEFORE(u, p) (nv[u] > nv[p] || (nv[u] == nv[p] && (u) < (p)))
    for (uint32_t t = 1; t < ranked; t++) {
        uint32_t x = list[t], u = t;
        while (u > 0 && BEFORE(x, list[u - 1])) list[u] = list[u - 1], u--;
        list[u] = x;
    }
#undef BEFORE
    for (uint32_t t = 0; t < ranked; t++) place[list[t]] = t;
    int rank_changed = 0, gain_more = 0;
    for (size_t p = 0; p < n; p++) {
        if (p == self_ns || p == self_ew || !ord[p]) continue;
        out->others++;
        double move = at[p] != UINT32_MAX ? fabs(sum[at[p]] - oldsum[at[p]]) : 0;
        if (move > 0) out->moved++, out->sum_move += move;
        if (move > out->max_move) out->max_move = move;
        if (move > self_move) gain_more = 1;
        if (isnan(nv[p])) continue;
        if (place[p] != ord[p] - 1) out->rank_changes++, rank_changed = 1;
    }
    out->rank_perturbations += (uint64_t)rank_changed;
    out->gain_more += (uint64_t)gain_more;
}

/* Sum and count of |a[r] - b[r]| (b NULL: |a[r]|) over the r where both
 * are numbers, in four fixed lanes (so that the additions overlap; the
 * order, hence the sum, is the same on every run). numbers: no a[r] or
 * b[r] is NaN (Butler's figures, the usual case), so that no test is needed
 * and the lanes are those of vector registers. Compiled for AVX2 (the
 * four lanes one register) beside any x86-64 (datum_simd.h). */
DATUM_AVX2_CLONES static void abs_diff(uint64_t n, const double *a, const double *b, int numbers,
                                       double *sum, uint64_t *count)
{
    double s[4] = {0, 0, 0, 0};
    uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, r = 0;
#define ABS_AT(i) fabs(b ? a[i] - b[i] : a[i])
    if (numbers) {
        if (b)
            for (; r + 4 <= n; r += 4)
                for (int l = 0; l < 4; l++) s[l] += fabs(a[r + l] - b[r + l]);
        else
            for (; r + 4 <= n; r += 4)
                for (int l = 0; l < 4; l++) s[l] += fabs(a[r + l]);
        for (; r < n; r++) s[0] += ABS_AT(r);
        c0 = n;
    }
    double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
#define LANE(acc, used, v) acc += (v) == (v) ? (v) : 0.0, used += (v) == (v)
    for (; r + 4 <= n; r += 4) { /* four registers, not an array: they stay out of memory */
        double v0 = ABS_AT(r), v1 = ABS_AT(r + 1), v2 = ABS_AT(r + 2), v3 = ABS_AT(r + 3);
        LANE(s0, c0, v0);
        LANE(s1, c1, v1);
        LANE(s2, c2, v2);
        LANE(s3, c3, v3);
    }
    for (; r < n; r++) {
        double v = ABS_AT(r);
        LANE(s0, c0, v);
    }
#undef LANE
#undef ABS_AT
    *sum += (s0 + s1) + (s2 + s3);
    *count += c0 + c1 + c2 + c3;
}

/* Method i's IMPs of the event's rows [r0, r1) added to its pairs' totals
 * (s->sum, s->boards at the cells s->rslot), the NaN figures left out. */
static void imp_totals(const rows_of *o, uint64_t r0, uint64_t r1, size_t i, scratch *s)
{
    double *sum = s->sum;
    int64_t *boards = s->boards;
    const uint32_t *cell = s->rslot - 2 * r0;
    for (uint64_t r = r0; r < r1; r++) {
        size_t a = cell[2 * r] + i, b = cell[2 * r + 1] + i;
        double ns = o->ns[r], ew = o->ew ? o->ew[r] : 0.0 - ns;
        if (ns == ns) sum[a] += ns, boards[a]++;
        if (ew == ew) sum[b] += ew, boards[b]++;
    }
}

/* The totals of imp_totals for the methods fast[0..n_fast), whose NS
 * figures of the event's rows are all numbers: no test per row, each pair's boards
 * its rows (rows_of_pair, per slot of the n). The additions are those of
 * imp_totals, in the same order. An EW figure that is NaN (none of the
 * kernels gives one beside a number, but the pass does not promise it) makes
 * its pair's sum NaN: that method is then summed again by imp_totals.
 * Returns the methods (bit i) whose NS and EW figures were all numbers. */
static uint32_t imp_totals_numbers(const chunk_job *j, uint64_t r0, uint64_t r1, const size_t *fast,
                                   size_t n_fast, size_t n, const uint32_t *rows_of_pair, scratch *s)
{
    uint32_t numbers = 0;
    size_t m = j->c->n;
    double *sum = s->sum;
    const uint32_t *cell = s->rslot - 2 * r0;
    /* Method by method: a short loop without a lookup per method and row
     * (each cell still gets its rows in row order). */
    for (size_t u = 0; u < n_fast; u++) {
        double *col = sum + fast[u];
        const double *ns = j->rows[fast[u]].ns, *ew = j->rows[fast[u]].ew;
#if defined(__SSE2__)
        /* Two methods side by side with their own EW figures (Butler's): a
         * pair's two cells are neighbours, added as one vector (each lane
         * its own cell's additions, in row order). */
        const double *ns1 = u + 1 < n_fast ? j->rows[fast[u + 1]].ns : NULL;
        const double *ew1 = u + 1 < n_fast ? j->rows[fast[u + 1]].ew : NULL;
        if (ew && ew1 && fast[u + 1] == fast[u] + 1) {
            for (uint64_t r = r0; r < r1; r++) {
                double *a = col + cell[2 * r], *b = col + cell[2 * r + 1];
                _mm_storeu_pd(a, _mm_add_pd(_mm_loadu_pd(a), _mm_set_pd(ns1[r], ns[r])));
                _mm_storeu_pd(b, _mm_add_pd(_mm_loadu_pd(b), _mm_set_pd(ew1[r], ew[r])));
            }
            u++;
            continue;
        }
#endif
        if (ew)
            for (uint64_t r = r0; r < r1; r++) col[cell[2 * r]] += ns[r], col[cell[2 * r + 1]] += ew[r];
        else
            for (uint64_t r = r0; r < r1; r++) col[cell[2 * r]] += ns[r], col[cell[2 * r + 1]] += 0.0 - ns[r];
    }
    for (size_t u = 0; u < n_fast; u++) {
        size_t i = fast[u];
        int nan = 0;
        for (size_t t = 0; t < n; t++) {
            s->boards[t * m + i] = rows_of_pair[t];
            nan |= sum[t * m + i] != sum[t * m + i];
        }
        if (!nan) {
            numbers |= (uint32_t)1 << i;
            continue;
        }
        for (size_t t = 0; t < n; t++) sum[t * m + i] = 0, s->boards[t * m + i] = 0;
        imp_totals(&j->rows[i], r0, r1, i, s);
    }
    return numbers;
}

/* Event e of the chunk: its pairs' totals per method, its statistics (by
 * event), the figures per result and its perturbations. */
static void event_work(const chunk_job *j, size_t e, scratch *s, event_out *out)
{
    const datum_compare *c = j->c;
    const datum_chunk *k = j->k;
    size_t m = c->n, f0 = c->ev_first[e], f1 = c->ev_first[e + 1];
    uint64_t r0 = k->offset[f0], r1 = k->offset[f1];
    /* The event's Butler and cross-IMP figures, by this thread: still in its
     * cache when they are summed, ranked and compared below. */
    datum_pass_score_range(j->pass, k, f0, f1, s->kernels);
    /* The event's pairs, in index (name) order, and their slots. */
    size_t n = 0;
    for (uint64_t r = r0; r < r1; r++) {
        int32_t pq[2] = {k->ns_pair[r], k->ew_pair[r]};
        for (int side = 0; side < 2; side++)
            if (s->slot[pq[side]] < 0) s->slot[pq[side]] = 0, s->pairs[n++] = (uint32_t)pq[side];
    }
    for (size_t t = 1; t < n; t++) { /* insertion: pairs come nearly sorted */
        uint32_t v = s->pairs[t];
        size_t u = t;
        while (u > 0 && s->pairs[u - 1] > v) s->pairs[u] = s->pairs[u - 1], u--;
        s->pairs[u] = v;
    }
    for (size_t t = 0; t < n; t++) s->slot[s->pairs[t]] = (int32_t)t;
    uint32_t *rows_of_pair = s->idx; /* free until the rankings */
    memset(rows_of_pair, 0, n * sizeof *rows_of_pair);
    for (uint64_t r = r0; r < r1; r++) {
        int32_t a = s->slot[k->ns_pair[r]], b = s->slot[k->ew_pair[r]];
        s->rslot[2 * (r - r0)] = (uint32_t)a * (uint32_t)m;
        s->rslot[2 * (r - r0) + 1] = (uint32_t)b * (uint32_t)m;
        rows_of_pair[a]++, rows_of_pair[b]++;
    }
    memset(s->sum, 0, n * m * sizeof *s->sum);
    memset(s->top, 0, n * m * sizeof *s->top);
    memset(s->boards, 0, n * m * sizeof *s->boards);
    int numbers[MAXM] = {0}; /* method i's figures of the event's rows are all numbers */
    size_t fast[MAXM], n_fast = 0;
    for (size_t i = 0; i < m; i++) {
        if (c->pass_id[i] < 0) continue;
        const rows_of *o = &j->rows[i];
        double fig = 0;
        uint64_t figs = 0;
        numbers[i] = 0;
        if (c->method[i].kind != DATUM_COMPARE_MATCHPOINTS) { /* IMPs: no tops */
            /* Summed without tests first: a NaN among the figures makes the
             * sum NaN, and then they are summed again with the tests. */
            abs_diff(r1 - r0, o->ns + r0, NULL, 1, &fig, &figs);
            numbers[i] = fig == fig;
            if (numbers[i]) fast[n_fast++] = i;
            else fig = 0, figs = 0, abs_diff(r1 - r0, o->ns + r0, NULL, 0, &fig, &figs),
                 imp_totals(o, r0, r1, i, s);
        } else {
            for (size_t f = f0; f < f1; f++)
                for (uint64_t r = k->offset[f]; r < k->offset[f + 1]; r++) {
                    size_t a = s->rslot[2 * (r - r0)] + i, b = s->rslot[2 * (r - r0) + 1] + i;
                    add_row(1, o->ns[r], o->ew[r], o->top[f], &s->sum[a], &s->sum[b],
                            &s->boards[a], &s->boards[b], &s->top[a], &s->top[b], 1.0);
                    double v = o->top[f] > 0 ? 100.0 * o->ns[r] / o->top[f] : NAN;
                    if (v == v) fig += fabs(v), figs++;
                }
        }
        out->fig_sum[i] = fig;
        out->fig_n[i] = figs;
    }
    out->numbers = imp_totals_numbers(j, r0, r1, fast, n_fast, n, rows_of_pair, s);
    /* Mean absolute difference per result, methods of the same unit. */
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++) {
            if (c->pass_id[a] < 0 || c->pass_id[b] < 0 ||
                strcmp(unit_of(c->method[a].kind), unit_of(c->method[b].kind)) != 0)
                continue;
            const rows_of *oa = &j->rows[a], *ob = &j->rows[b];
            int mp = c->method[a].kind == DATUM_COMPARE_MATCHPOINTS;
            double d = 0;
            uint64_t cnt = 0;
            if (mp) {
                for (size_t f = f0; f < f1; f++)
                    for (uint64_t r = k->offset[f]; r < k->offset[f + 1]; r++) {
                        /* both matchpoints: the percentages of the tops */
                        double x = oa->top[f] > 0 ? 100.0 * oa->ns[r] / oa->top[f] : NAN,
                               y = ob->top[f] > 0 ? 100.0 * ob->ns[r] / ob->top[f] : NAN;
                        double v = fabs(x - y);
                        if (v == v) d += v, cnt++;
                    }
            } else {
                abs_diff(r1 - r0, oa->ns + r0, ob->ns + r0, numbers[a] && numbers[b], &d, &cnt);
            }
            size_t pi = pair_index(m, a, b);
            out->diff_sum[pi] += d;
            out->diff_n[pi] += cnt;
        }
    for (size_t i = 0; i < m; i++)
        for (size_t t = 0; t < n; t++)
            s->value[i * n + t] = c->pass_id[i] < 0 ? c->rating[s->pairs[t]]
                                  : figure(c->method[i].kind == DATUM_COMPARE_MATCHPOINTS,
                                           s->sum[t * m + i], s->boards[t * m + i], s->top[t * m + i]);
    out->n_pairs = (uint32_t)n;
    out->event = k->field_event[f0];
    int32_t date = k->field_date[f0];
    for (size_t f = f0; f < f1; f++) date = k->field_date[f] > date ? k->field_date[f] : date;
    out->date = date;
    if (c->opt.by == DATUM_COMPARE_BY_EVENT) {
        double *truth = c->truth ? s->newvalue : NULL; /* free until the perturbations */
        for (size_t t = 0; truth && t < n; t++) truth[t] = c->truth[s->pairs[t]];
        group_stats(c, n, s->value, truth, s, out->pairs, out->truth);
    } else {
        for (size_t i = 0; i < m; i++)
            rank_method(n, s->value + i * n, s->ordinal + i * s->cap, s->mid2 + i * s->cap, s, i > 0);
    }
    /* The perturbations of the event's sampled fields. */
    for (size_t f = f0; f < f1; f++) {
        uint32_t q = c->first_pert[f];
        if (q == UINT32_MAX) continue;
        out->sampled++;
        for (; q < c->n_pert && c->pert[q].field == f; q++)
            for (size_t i = 0; i < m; i++)
                if (c->pass_id[i] >= 0) perturb_one(j, i, q, n, s, &out->cont[i * KINDS + c->pert[q].kind]);
    }
    for (size_t t = 0; t < n; t++) s->slot[s->pairs[t]] = -1;
}

/* The sampled fields of chunk k and their perturbed copies, in the order of
 * their fields, into c->pert and the p_* arrays. */
static int build_perturbations(datum_compare *c, const datum_chunk *k, uint64_t *skipped)
{
    datum_ctx *ctx = c->ctx;
    int rc = datum_reserve(ctx, &c->first_pert, &c->first_pert_cap, k->n_fields + 1,
                           sizeof *c->first_pert);
    if (rc < 0) return rc;
    c->n_pert = 0;
    size_t rows = 0;
    for (uint64_t f = 0; f < k->n_fields; f++) {
        c->first_pert[f] = UINT32_MAX;
        if (!c->threshold || mix(c->opt.seed ^ mix(k->first_field + f)) >= c->threshold) continue;
        uint64_t r0 = k->offset[f], n = k->offset[f + 1] - r0, real = 0;
        for (uint64_t r = r0; r < r0 + n; r++) real += !k->adjusted || k->adjusted[r] == DATUM_ADJ_NONE;
        if (real == 0) {
            skipped[0]++, skipped[1]++, skipped[2]++;
            continue;
        }
        uint64_t pick = mix(c->opt.seed + 0x5bd1e995u * (k->first_field + f)) % real, row = r0;
        for (uint64_t r = r0, seen = 0; r < r0 + n; r++)
            if (!k->adjusted || k->adjusted[r] == DATUM_ADJ_NONE) {
                if (seen++ == pick) {
                    row = r;
                    break;
                }
            }
        int32_t trick;
        int has_trick = datum_bridge_one_more_trick(k->ns_score[row],
                                                    datum_board_vulnerability(k->field_board[f]),
                                                    &trick) == DATUM_OK;
        if (!has_trick) skipped[DATUM_PERTURB_TRICK]++;
        for (int kind = 0; kind < KINDS; kind++) {
            if (kind == DATUM_PERTURB_TRICK && !has_trick) continue;
            if ((rc = datum_reserve(ctx, &c->pert, &c->pert_cap, c->n_pert + 1, sizeof *c->pert)) < 0 ||
                (rc = datum_reserve(ctx, &c->p_offset, &c->p_fields_cap, c->n_pert + 2,
                                    sizeof *c->p_offset)) < 0)
                return rc;
            if ((rc = datum_reserve(ctx, &c->p_score, &c->p_score_cap, rows + n,
                                    sizeof *c->p_score)) < 0 ||
                (rc = datum_reserve(ctx, &c->p_adj, &c->p_adj_cap, rows + n, sizeof *c->p_adj)) < 0)
                return rc;
            if (c->first_pert[f] == UINT32_MAX) c->first_pert[f] = (uint32_t)c->n_pert;
            c->pert[c->n_pert] = (perturbed){(uint32_t)f, (uint32_t)row, (uint8_t)kind};
            c->p_offset[c->n_pert] = rows;
            for (uint64_t t = 0; t < n; t++) {
                c->p_score[rows + t] = k->ns_score[r0 + t];
                c->p_adj[rows + t] = k->adjusted ? k->adjusted[r0 + t] : DATUM_ADJ_NONE;
            }
            size_t at = rows + (row - r0);
            if (kind == DATUM_PERTURB_TEN) c->p_score[at] += 10;
            if (kind == DATUM_PERTURB_TRICK) c->p_score[at] = trick;
            if (kind == DATUM_PERTURB_ADJUSTED) c->p_adj[at] = DATUM_ADJ_A, c->p_score[at] = 0;
            rows += n;
            c->n_pert++;
        }
    }
    if (c->n_pert) c->p_offset[c->n_pert] = rows;
    return DATUM_OK;
}

/* Per event of the chunk, its outputs' arrays, zeroed. */
static int event_outputs(datum_compare *c, size_t n_events)
{
    size_t m = c->n, np = n_pairs_of(m);
    int rc = datum_reserve(c->ctx, &c->ev, &c->ev_cap, n_events, sizeof *c->ev);
    if (rc < 0) return rc;
    if (n_events > c->pool_cap) {
        size_t cap = n_events + n_events / 2;
        datum_free(c->pool_pairs); datum_free(c->pool_truth); datum_free(c->pool_cont);
        datum_free(c->pool_fig); datum_free(c->pool_diff); datum_free(c->pool_fig_n);
        datum_free(c->pool_diff_n);
        c->pool_pairs = datum_malloc(c->ctx, cap * np, sizeof *c->pool_pairs);
        c->pool_truth = datum_malloc(c->ctx, cap * m, sizeof *c->pool_truth);
        c->pool_cont = datum_malloc(c->ctx, cap * m * KINDS, sizeof *c->pool_cont);
        c->pool_fig = datum_malloc(c->ctx, cap * m, sizeof *c->pool_fig);
        c->pool_fig_n = datum_malloc(c->ctx, cap * m, sizeof *c->pool_fig_n);
        c->pool_diff = datum_malloc(c->ctx, cap * np, sizeof *c->pool_diff);
        c->pool_diff_n = datum_malloc(c->ctx, cap * np, sizeof *c->pool_diff_n);
        c->pool_cap = cap;
        if (!c->pool_pairs || !c->pool_truth || !c->pool_cont || !c->pool_fig || !c->pool_fig_n ||
            !c->pool_diff || !c->pool_diff_n) {
            c->pool_cap = 0;
            return DATUM_E_NOMEM;
        }
    }
    memset(c->pool_cont, 0, n_events * m * KINDS * sizeof *c->pool_cont);
    memset(c->pool_fig, 0, n_events * m * sizeof *c->pool_fig);
    memset(c->pool_fig_n, 0, n_events * m * sizeof *c->pool_fig_n);
    memset(c->pool_diff, 0, n_events * np * sizeof *c->pool_diff);
    memset(c->pool_diff_n, 0, n_events * np * sizeof *c->pool_diff_n);
    for (size_t e = 0; e < n_events; e++)
        c->ev[e] = (event_out){.pairs = c->pool_pairs + e * np, .truth = c->pool_truth + e * m,
                               .cont = c->pool_cont + e * m * KINDS, .fig_sum = c->pool_fig + e * m,
                               .fig_n = c->pool_fig_n + e * m, .diff_sum = c->pool_diff + e * np,
                               .diff_n = c->pool_diff_n + e * np};
    return DATUM_OK;
}

/* Adds one group's statistics of two methods to their means. */
static void add_pair(datum_compare *c, size_t pi, const pair_stat *ps)
{
    datum_compare_pair *p = &c->pair[pi];
    if (ps->common < 2) return;
    p->groups++;
    p->winner_changes += ps->winner == 1;
    if (!isnan(ps->spearman)) c->sum_spear[pi] += ps->spearman, p->spearman_groups++;
    if (!isnan(ps->kendall)) c->sum_kend[pi] += ps->kendall, p->kendall_groups++;
    if (ps->podium >= 0) p->podium_groups++, p->podium_changes += (uint64_t)ps->podium;
    if (!isnan(ps->topk)) c->sum_topk[pi] += ps->topk, p->topk_groups++;
    for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++) p->rank_changes[b] += ps->hist[b];
}

static void add_truth(datum_compare *c, size_t i, const truth_stat *ts)
{
    if (!isnan(ts->spearman)) c->t_spear[i] += ts->spearman, c->t_spear_n[i]++;
    if (!isnan(ts->kendall)) c->t_kend[i] += ts->kendall, c->t_kend_n[i]++;
}

/* One group's rows of the groups CSV. */
static void write_group_rows(datum_compare *c, const char *group, size_t n, const pair_stat *ps,
                             const truth_stat *ts)
{
    datum_csv_writer *w = c->groups_csv;
    if (!w) return;
    size_t m = c->n;
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b <= m; b++) {
            if (b == m && !ts) continue;
            datum_csv_str(w, group);
            datum_csv_str(w, c->method[a].name);
            datum_csv_str(w, b < m ? c->method[b].name : "truth");
            datum_csv_int(w, (int64_t)n);
            if (b < m) {
                const pair_stat *p = &ps[pair_index(m, a, b)];
                datum_csv_int(w, p->common);
                datum_csv_real(w, p->spearman);
                datum_csv_real(w, p->kendall);
                if (p->winner >= 0) datum_csv_int(w, p->winner); else datum_csv_empty(w);
                if (p->podium >= 0) datum_csv_int(w, p->podium); else datum_csv_empty(w);
                datum_csv_real(w, p->topk);
            } else {
                datum_csv_empty(w);
                datum_csv_real(w, ts[a].spearman);
                datum_csv_real(w, ts[a].kendall);
                datum_csv_empty(w);
                datum_csv_empty(w);
                datum_csv_empty(w);
            }
            datum_csv_end_row(w);
        }
}

static uint32_t group_of(const datum_compare *c, int32_t date)
{
    if (c->opt.by != DATUM_COMPARE_BY_YEAR) return 0;
    int y, mo, d;
    datum_civil_from_days(date, &y, &mo, &d);
    return (uint32_t)(y - c->first_year);
}

static int on_chunk(void *user, const datum_pass *pass, const datum_chunk *k)
{
    datum_compare *c = user;
    datum_ctx *ctx = c->ctx;
    size_t m = c->n;
    chunk_job j = {.c = c, .pass = pass, .k = k};
    for (size_t i = 0; i < m; i++) {
        if (c->pass_id[i] < 0) continue;
        datum_pass_rows rr;
        int rc = datum_pass_chunk_rows(pass, c->pass_id[i], &rr);
        if (rc < 0) return rc;
        j.rows[i] = (rows_of){rr.ns, rr.ew, rr.field_datum};
    }
    /* The events of the chunk (whole events: datum_pass_set_whole_events). */
    int rc = datum_reserve(ctx, &c->ev_first, &c->ev_first_cap, k->n_fields + 1, sizeof *c->ev_first);
    if (rc >= 0) rc = datum_reserve(ctx, &c->ev_largest, &c->ev_largest_cap, k->n_fields + 1,
                                    sizeof *c->ev_largest);
    if (rc < 0) return rc;
    size_t n_events = 0;
    uint64_t largest_rows = 0;
    for (uint64_t f = 0, g; f < k->n_fields; f = g) {
        uint32_t big = 0;
        for (g = f; g < k->n_fields && k->field_event[g] == k->field_event[f]; g++)
            if (k->offset[g + 1] - k->offset[g] > big) big = (uint32_t)(k->offset[g + 1] - k->offset[g]);
        c->ev_largest[n_events] = big;
        c->ev_first[n_events++] = (uint32_t)f;
        if (k->offset[g] - k->offset[f] > largest_rows) largest_rows = k->offset[g] - k->offset[f];
    }
    c->ev_first[n_events] = (uint32_t)k->n_fields;
    /* The perturbed copies, scored by every per-board method at once. */
    if ((rc = build_perturbations(c, k, c->skipped)) < 0) return rc;
    if (c->n_pert) {
        if ((rc = datum_reserve(ctx, &c->p_target, &c->p_target_cap, c->n_pert, sizeof *c->p_target)) < 0)
            return rc;
        for (size_t q = 0, e = 0; q < c->n_pert; q++) {
            while (c->ev_first[e + 1] <= c->pert[q].field) e++;
            c->p_target[q] = c->ev_largest[e];
        }
        uint64_t rows = c->p_offset[c->n_pert];
        datum_fields in = {c->n_pert, c->p_offset, c->p_score, c->p_adj};
        for (size_t i = 0; i < m; i++) {
            if (c->pass_id[i] < 0) continue;
            if ((rc = datum_reserve(ctx, &c->p_ns[i], &c->p_ns_cap[i], rows, sizeof **c->p_ns)) < 0 ||
                (rc = datum_reserve(ctx, &c->p_ew[i], &c->p_ew_cap[i], rows, sizeof **c->p_ew)) < 0 ||
                (rc = datum_reserve(ctx, &c->p_top[i], &c->p_top_cap[i], c->n_pert,
                                    sizeof **c->p_top)) < 0 ||
                (rc = datum_pass_score_fields(c->pass, c->pass_id[i], &in, c->p_target, c->p_top[i],
                                              c->p_ns[i], c->p_ew[i])) < 0)
                return rc;
            j.p_ns[i] = c->p_ns[i];
            j.p_ew[i] = c->p_ew[i];
            j.p_top[i] = c->p_top[i];
        }
    }
    if ((rc = event_outputs(c, n_events)) < 0) return rc;
    for (int t = 0; t < c->n_scr; t++)
        if ((rc = scratch_grow(ctx, &c->scr[t], 2 * largest_rows + 2, m, c->info.n_pairs)) < 0 ||
            (rc = datum_reserve(ctx, &c->scr[t].kernels, &c->scr[t].kernels_cap,
                                datum_pass_range_scratch_bytes(pass), 1)) < 0)
            return rc;
    double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(c->n_scr) schedule(dynamic, 16)
    for (int64_t e = 0; e < (int64_t)n_events; e++)
        event_work(&j, (size_t)e, &c->scr[omp_get_thread_num()], &c->ev[e]);
    /* In archive order. */
    size_t np = n_pairs_of(m);
    for (size_t e = 0; e < n_events; e++) {
        const event_out *o = &c->ev[e];
        c->sampled_fields += o->sampled;
        for (size_t x = 0; x < m * KINDS; x++) {
            datum_compare_continuity *t = &c->cont[x];
            const cont_stat *u = &o->cont[x];
            t->made += u->made;
            t->others += u->others;
            t->moved += u->moved;
            c->move_sum[x] += u->sum_move;
            if (u->max_move > t->max_move) t->max_move = u->max_move;
            t->rank_perturbations += u->rank_perturbations;
            t->rank_changes += u->rank_changes;
            t->gain_more += u->gain_more;
        }
        for (size_t i = 0; i < m; i++) c->fig_sum[i] += o->fig_sum[i], c->fig[i].results += o->fig_n[i];
        for (size_t p = 0; p < np; p++) c->diff_sum[p] += o->diff_sum[p], c->pair[p].diff_results += o->diff_n[p];
        if (c->opt.by != DATUM_COMPARE_BY_EVENT) continue;
        c->groups += o->n_pairs > 0;
        c->group_pairs += o->n_pairs;
        for (size_t p = 0; p < np; p++) add_pair(c, p, &o->pairs[p]);
        for (size_t i = 0; c->truth && i < m; i++) add_truth(c, i, &o->truth[i]);
        write_group_rows(c, datum_archive_event(c->archive, o->event), o->n_pairs, o->pairs,
                         c->truth ? o->truth : NULL);
    }
    if (c->opt.by != DATUM_COMPARE_BY_EVENT) /* the year's or the archive's totals, in row order */
        for (size_t e = 0; e < n_events; e++) {
            size_t g = group_of(c, c->ev[e].date);
            for (size_t i = 0; i < m; i++) {
                if (c->pass_id[i] < 0) continue;
                const rows_of *o = &j.rows[i];
                int mp = c->method[i].kind == DATUM_COMPARE_MATCHPOINTS;
                if (c->ev[e].numbers >> i & 1) { /* add_row's additions without its tests */
                    size_t base = (size_t)g * c->info.n_pairs * m + i;
                    double *gs = c->gsum + base;
                    int64_t *gb = c->gboards + base;
                    for (uint64_t r = k->offset[c->ev_first[e]]; r < k->offset[c->ev_first[e + 1]]; r++) {
                        size_t a = (size_t)k->ns_pair[r] * m, b = (size_t)k->ew_pair[r] * m;
                        double ns = o->ns[r];
                        gs[a] += ns, gb[a]++;
                        gs[b] += o->ew ? o->ew[r] : 0.0 - ns, gb[b]++;
                    }
                    continue;
                }
                for (size_t f = c->ev_first[e]; f < c->ev_first[e + 1]; f++)
                    for (uint64_t r = k->offset[f]; r < k->offset[f + 1]; r++) {
                        size_t a = ((size_t)g * c->info.n_pairs + (size_t)k->ns_pair[r]) * m + i;
                        size_t b = ((size_t)g * c->info.n_pairs + (size_t)k->ew_pair[r]) * m + i;
                        double ns = o->ns[r], ew = o->ew ? o->ew[r] : 0.0 - ns;
                        add_row(mp, ns, ew, mp ? o->top[f] : 0, &c->gsum[a], &c->gsum[b],
                                &c->gboards[a], &c->gboards[b], &c->gtop[a], &c->gtop[b], 1.0);
                    }
            }
        }
    c->seconds_stats += omp_get_wtime() - t0;
    return DATUM_OK;
}

/* By year or all: each group's ranking and statistics, after the pass. */
static int finish_groups(datum_compare *c)
{
    size_t m = c->n, np = n_pairs_of(m);
    uint32_t n_pairs = c->info.n_pairs;
    scratch *s = &c->scr[0];
    int rc = scratch_grow(c->ctx, s, (size_t)n_pairs + 2, m, n_pairs);
    double *value = rc >= 0 ? datum_malloc(c->ctx, (size_t)n_pairs * m + 1, sizeof *value) : NULL;
    double *truth = value ? datum_malloc(c->ctx, (size_t)n_pairs + 1, sizeof *truth) : NULL;
    pair_stat *ps = truth ? datum_malloc(c->ctx, np + 1, sizeof *ps) : NULL;
    truth_stat *ts = ps ? datum_malloc(c->ctx, m + 1, sizeof *ts) : NULL;
    if (!ts) rc = DATUM_E_NOMEM;
    for (uint32_t g = 0; rc >= 0 && g < c->n_groups; g++) {
        size_t n = 0;
        for (uint32_t q = 0; q < n_pairs; q++) {
            const int64_t *b = &c->gboards[((size_t)g * n_pairs + q) * m];
            int any = 0;
            for (size_t i = 0; i < m; i++) any |= b[i] != 0;
            if (any) s->pairs[n++] = q;
        }
        if (n == 0) continue;
        for (size_t i = 0; i < m; i++)
            for (size_t t = 0; t < n; t++) {
                size_t at = ((size_t)g * n_pairs + s->pairs[t]) * m + i;
                value[i * n + t] = c->pass_id[i] < 0 ? c->rating[s->pairs[t]]
                                   : figure(c->method[i].kind == DATUM_COMPARE_MATCHPOINTS,
                                            c->gsum[at], c->gboards[at], c->gtop[at]);
            }
        for (size_t t = 0; c->truth && t < n; t++) truth[t] = c->truth[s->pairs[t]];
        group_stats(c, n, value, c->truth ? truth : NULL, s, ps, ts);
        c->groups++;
        c->group_pairs += n;
        for (size_t p = 0; p < np; p++) add_pair(c, p, &ps[p]);
        for (size_t i = 0; c->truth && i < m; i++) add_truth(c, i, &ts[i]);
        char name[16];
        if (c->opt.by == DATUM_COMPARE_BY_YEAR) snprintf(name, sizeof name, "%d", c->first_year + (int)g);
        else snprintf(name, sizeof name, "all");
        write_group_rows(c, name, n, ps, c->truth ? ts : NULL);
    }
    datum_free(value);
    datum_free(truth);
    datum_free(ps);
    datum_free(ts);
    return rc;
}

static int prepare(datum_compare *c)
{
    datum_ctx *ctx = c->ctx;
    size_t m = c->n, np = n_pairs_of(m);
    c->pair = datum_calloc(ctx, np, sizeof *c->pair);
    c->truth_stat = datum_calloc(ctx, m, sizeof *c->truth_stat);
    c->cont = datum_calloc(ctx, m * KINDS, sizeof *c->cont);
    c->fig = datum_calloc(ctx, m, sizeof *c->fig);
    c->sum_spear = datum_calloc(ctx, np, sizeof *c->sum_spear);
    c->sum_kend = datum_calloc(ctx, np, sizeof *c->sum_kend);
    c->sum_topk = datum_calloc(ctx, np, sizeof *c->sum_topk);
    c->diff_sum = datum_calloc(ctx, np, sizeof *c->diff_sum);
    c->t_spear = datum_calloc(ctx, m, sizeof *c->t_spear);
    c->t_kend = datum_calloc(ctx, m, sizeof *c->t_kend);
    c->t_spear_n = datum_calloc(ctx, m, sizeof *c->t_spear_n);
    c->t_kend_n = datum_calloc(ctx, m, sizeof *c->t_kend_n);
    c->fig_sum = datum_calloc(ctx, m, sizeof *c->fig_sum);
    c->move_sum = datum_calloc(ctx, m * KINDS, sizeof *c->move_sum);
    c->n_scr = datum_ctx_threads(ctx);
    c->scr = datum_calloc(ctx, (size_t)c->n_scr, sizeof *c->scr);
    if (!c->pair || !c->truth_stat || !c->cont || !c->fig || !c->sum_spear || !c->sum_kend ||
        !c->sum_topk || !c->diff_sum || !c->t_spear || !c->t_kend || !c->t_spear_n ||
        !c->t_kend_n || !c->fig_sum || !c->move_sum || !c->scr)
        return DATUM_E_NOMEM;
    for (size_t a = 0, p = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++, p++) c->pair[p].a = (int)a, c->pair[p].b = (int)b;
    /* The sample: a field is perturbed when a hash of its index falls below
     * sample / n_fields of the 64-bit range. */
    if (c->opt.sample && c->info.n_fields)
        c->threshold = c->opt.sample >= c->info.n_fields
                           ? UINT64_MAX
                           : (uint64_t)((double)c->opt.sample / (double)c->info.n_fields * 18446744073709551616.0);
    if (c->info.has_truth) {
        c->truth = datum_malloc(ctx, (size_t)c->info.n_pairs + 1, sizeof *c->truth);
        if (!c->truth) return DATUM_E_NOMEM;
        int rc = datum_archive_read_truth(ctx, c->archive, c->truth);
        if (rc < 0) return rc;
    }
    if (c->opt.by != DATUM_COMPARE_BY_EVENT) {
        int y0 = 0, y1 = 0, mo, d;
        datum_civil_from_days(c->info.first_date, &y0, &mo, &d);
        datum_civil_from_days(c->info.last_date, &y1, &mo, &d);
        c->first_year = y0;
        c->n_groups = c->opt.by == DATUM_COMPARE_BY_YEAR ? (uint32_t)(y1 - y0 + 1) : 1;
        size_t cells = (size_t)c->n_groups * c->info.n_pairs * m + 1;
        c->gsum = datum_calloc(ctx, cells, sizeof *c->gsum);
        c->gtop = datum_calloc(ctx, cells, sizeof *c->gtop);
        c->gboards = datum_calloc(ctx, cells, sizeof *c->gboards);
        if (!c->gsum || !c->gtop || !c->gboards) return DATUM_E_NOMEM;
    }
    if (c->opt.groups_csv) {
        int rc = datum_csv_create(ctx, c->opt.groups_csv, &c->groups_csv);
        if (rc < 0) return rc;
        const char *header[] = {"group", "method_a", "method_b", "pairs", "common", "spearman",
                                "kendall_tau_b", "winner_changed", "podium_changed", "topk_overlap"};
        for (size_t h = 0; h < sizeof header / sizeof *header; h++) datum_csv_str(c->groups_csv, header[h]);
        datum_csv_end_row(c->groups_csv);
    }
    return DATUM_OK;
}

static void finish(datum_compare *c)
{
    size_t m = c->n, np = n_pairs_of(m);
    for (size_t p = 0; p < np; p++) {
        datum_compare_pair *x = &c->pair[p];
        x->spearman = x->spearman_groups ? c->sum_spear[p] / (double)x->spearman_groups : NAN;
        x->kendall = x->kendall_groups ? c->sum_kend[p] / (double)x->kendall_groups : NAN;
        x->topk_overlap = x->topk_groups ? c->sum_topk[p] / (double)x->topk_groups : NAN;
        x->mean_abs_diff = x->diff_results ? c->diff_sum[p] / (double)x->diff_results : NAN;
    }
    for (size_t i = 0; i < m; i++) {
        c->truth_stat[i].groups = c->t_spear_n[i];
        c->truth_stat[i].spearman = c->t_spear_n[i] ? c->t_spear[i] / (double)c->t_spear_n[i] : NAN;
        c->truth_stat[i].kendall = c->t_kend_n[i] ? c->t_kend[i] / (double)c->t_kend_n[i] : NAN;
        c->fig[i].unit = unit_of(c->method[i].kind);
        c->fig[i].mean_abs = c->fig[i].results ? c->fig_sum[i] / (double)c->fig[i].results : NAN;
        for (size_t kind = 0; kind < KINDS; kind++) {
            datum_compare_continuity *t = &c->cont[i * KINDS + kind];
            if (c->pass_id[i] < 0) {
                memset(t, 0, sizeof *t);
                continue;
            }
            t->skipped = c->skipped[kind];
            t->mean_move = t->others ? c->move_sum[i * KINDS + kind] / (double)t->others : NAN;
        }
    }
}

int datum_compare_run(datum_compare *c)
{
    if (!c) return DATUM_E_ARG;
    if (c->state != READY || c->n < 2)
        return datum_ctx_fail(c->ctx, DATUM_E_ARG, "datum_compare_run: %s",
                              c->n < 2 ? "compare needs at least two methods" : "run twice");
    int per_board = 0;
    for (size_t i = 0; i < c->n; i++) per_board += c->pass_id[i] >= 0;
    int rc = prepare(c);
    if (rc >= 0 && c->rate >= 0) rc = solve_ratings(c);
    if (rc >= 0) rc = datum_pass_set_whole_events(c->pass, 1);
    if (rc >= 0) rc = datum_pass_set_pair_totals(c->pass, 0); /* compare totals per group */
    if (rc >= 0) rc = datum_pass_set_kernels_by_range(c->pass, 1); /* in event_work */
    if (rc >= 0)
        rc = datum_pass_set_chunk_callback(c->pass, DATUM_COL_NS_PAIR | DATUM_COL_EW_PAIR |
                                                        DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED,
                                           on_chunk, c);
    double t0 = omp_get_wtime();
    if (rc >= 0 && per_board) rc = datum_pass_run(c->pass);
    c->seconds_pass = omp_get_wtime() - t0 - c->seconds_stats;
    if (rc >= 0 && c->opt.by != DATUM_COMPARE_BY_EVENT) {
        double t1 = omp_get_wtime();
        rc = finish_groups(c);
        c->seconds_stats += omp_get_wtime() - t1;
    }
    if (rc >= 0 && c->groups_csv) rc = datum_csv_commit(&c->groups_csv);
    if (rc < 0) {
        datum_csv_abort(&c->groups_csv);
        c->state = FAILED;
        return rc;
    }
    finish(c);
    c->state = DONE;
    return DATUM_OK;
}

int datum_compare_get(const datum_compare *c, datum_compare_summary *out)
{
    memset(out, 0, sizeof *out);
    if (!c || c->state != DONE)
        return datum_ctx_fail(c ? c->ctx : NULL, DATUM_E_ARG, "datum_compare_get: not run");
    *out = (datum_compare_summary){
        .n_methods = c->n, .methods = c->method, .by = c->opt.by, .top_k = c->opt.top_k,
        .groups = c->groups, .group_pairs = c->group_pairs, .pairs = c->pair, .figures = c->fig,
        .has_truth = c->truth != NULL, .truth = c->truth_stat, .sample = c->opt.sample,
        .seed = c->opt.seed, .sampled_fields = c->sampled_fields, .continuity = c->cont,
        .rate_status = c->rate_status, .seconds_pass = c->seconds_pass,
        .seconds_rate = c->seconds_rate, .seconds_stats = c->seconds_stats,
        .results = c->info.n_results, .events = c->info.n_events};
    return DATUM_OK;
}

int datum_compare_write_report(datum_compare *c, const char *dir, const char *command_line,
                               const char *machine)
{
    datum_compare_summary s;
    int rc = datum_compare_get(c, &s);
    if (rc < 0) return rc;
    if (!dir) return datum_ctx_fail(c->ctx, DATUM_E_ARG, "datum_compare_write_report: no folder");
    return compare_report_write(c->ctx, &s, dir, command_line, machine);
}

void datum_compare_free(datum_compare **cp)
{
    if (!cp || !*cp) return;
    datum_compare *c = *cp;
    datum_pass_free(&c->pass);
    datum_archive_close(&c->archive);
    datum_csv_abort(&c->groups_csv);
    for (int t = 0; c->scr && t < c->n_scr; t++) scratch_free(&c->scr[t]);
    datum_free(c->scr);
    for (size_t i = 0; i < MAXM; i++) datum_free(c->p_ns[i]), datum_free(c->p_ew[i]), datum_free(c->p_top[i]);
    void *arrays[] = {c->path, c->truth, c->rating, c->pair, c->truth_stat, c->cont, c->fig,
                      c->sum_spear, c->sum_kend, c->sum_topk, c->diff_sum, c->t_spear, c->t_kend,
                      c->t_spear_n, c->t_kend_n, c->fig_sum, c->move_sum, c->gsum, c->gtop,
                      c->gboards, c->ev, c->ev_first, c->pert, c->p_offset, c->p_score, c->p_adj,
                      c->p_target, c->first_pert, c->pool_pairs, c->pool_truth, c->pool_cont,
                      c->pool_fig, c->pool_diff, c->pool_fig_n, c->pool_diff_n, c->ev_largest};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++) datum_free(arrays[a]);
    datum_free(c);
    *cp = NULL;
}
