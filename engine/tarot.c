/* tarot.c - French tarot Attaque-Défense (§7, seed 004): reference note, PM,
 * percentages and regularity per étui; starting bonus; tournament totals and
 * rankings.
 *
 * Every rounding is decided in integer arithmetic on exact values: the
 * reference is the rational sum/count, a rounded reference is a whole number
 * of hundredths, so a difference is too, and its PM is the integer nearest
 * to sqrt(100 * hundredths), found by comparing squares. */
#include "datum_tarot.h"
#include "datum_alloc.h"
#include "internal.h"

#include <math.h>
#include <string.h>

#define SCORE_LIMIT (INT32_C(1) << 20) /* |score| < 2^20 keeps every sum exact */
#define MAX_ETUIS 1000000             /* bound on the bonus coefficient's étuis */
#define MAX_PENALTY 1e9               /* |net penalty| in PM; keeps thousandths exact */

/* ------------------------------------------------------------------------ */
/* Codes                                                                     */

/* Index of each class in half PM (1P = 0.5 -> 1), so that every bonus is an
 * exact integer computation. */
static const struct {
    const char *code;
    int8_t half_index;
} kClass[DATUM_TAROT_CLASS_COUNT] = {
    {"1N", 0},  {"1P", 1},  {"1C", 2},  {"1K", 4},  {"1T", 6},  {"2P", 7},
    {"2C", 8},  {"2K", 9},  {"2T", 10}, {"3P", 11}, {"3C", 12}, {"3K", 13},
    {"3T", 14}, {"4P", 15}, {"4C", 16}, {"4K", 17}, {"4T", 18}, {"NC", 18}};

static const char *const kContract[] = {"G", "GS", "GC"};
enum { CONTRACT_COUNT = sizeof kContract / sizeof kContract[0] };

/* 1 if s[0..len) equals the NUL-terminated code, ignoring ASCII case. */
static int code_equal(const char *s, size_t len, const char *code)
{
    size_t i = 0;
    for (; i < len && code[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'a' && c <= 'z') c = (unsigned char)(c - 'a' + 'A');
        if (c != (unsigned char)code[i]) return 0;
    }
    return i == len && code[i] == '\0';
}

int datum_tarot_class_parse(const char *s, size_t len)
{
    for (int c = 0; c < DATUM_TAROT_CLASS_COUNT; c++)
        if (code_equal(s, len, kClass[c].code)) return c;
    return -1;
}

const char *datum_tarot_class_code(int cls)
{
    return cls >= 0 && cls < DATUM_TAROT_CLASS_COUNT ? kClass[cls].code : "?";
}

double datum_tarot_class_index(int cls)
{
    return cls >= 0 && cls < DATUM_TAROT_CLASS_COUNT ? kClass[cls].half_index / 2.0 : NAN;
}

int datum_tarot_contract_parse(const char *s, size_t len)
{
    for (int c = 0; c < CONTRACT_COUNT; c++)
        if (code_equal(s, len, kContract[c])) return c;
    return -1;
}

const char *datum_tarot_contract_code(int contract)
{
    return contract >= 0 && contract < CONTRACT_COUNT ? kContract[contract] : "?";
}

/* ------------------------------------------------------------------------ */
/* Exact rounding                                                            */

/* num/den (den > 0) rounded to the nearest integer, halves away from zero. */
static int64_t round_ratio(int64_t num, int64_t den)
{
    int64_t mag = num < 0 ? -num : num;
    int64_t q = (2 * mag + den) / (2 * den); /* floor(mag/den + 1/2) */
    return num < 0 ? -q : q;
}

/* The integer nearest to sqrt(x), x >= 0, halves up: the k with
 * (2k-1)^2 <= 4x < (2k+1)^2. The double square root is within one of it;
 * the squares settle it exactly (x < 2^58 keeps them in 64 bits). */
static int64_t round_sqrt(int64_t x)
{
    int64_t k = (int64_t)llround(sqrt((double)x));
    while ((2 * k + 1) * (2 * k + 1) <= 4 * x) k++;
    while (k > 0 && (2 * k - 1) * (2 * k - 1) > 4 * x) k--;
    return k;
}

/* ------------------------------------------------------------------------ */
/* Starting bonus                                                            */

int datum_tarot_bonus_milli(const uint8_t *classes, size_t n, int32_t etuis, int64_t *milli)
{
    *milli = 0;
    if (n == 0 || etuis < 0 || etuis > MAX_ETUIS) return DATUM_E_ARG;
    int64_t halves = 0;
    for (size_t i = 0; i < n; i++) {
        if (classes[i] >= DATUM_TAROT_CLASS_COUNT) return DATUM_E_ARG;
        halves += kClass[classes[i]].half_index;
    }
    /* Mean index in hundredths: 100 * halves / (2n), rounded as the seed's
     * [(2+3+5)/3] = 3.33. Coefficient in tenths: etuis/10 + 2 = (etuis+20)/10.
     * Hundredths x tenths = thousandths. */
    int64_t mean_hundredths = round_ratio(50 * halves, (int64_t)n);
    *milli = mean_hundredths * ((int64_t)etuis + 20);
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* One étui                                                                  */

int datum_tarot_options_check(const datum_tarot_options *opt)
{
    if ((unsigned)opt->reference > DATUM_TAROT_REF_FFT || (opt->exact != 0 && opt->exact != 1) ||
        opt->bonus_etuis < 0 || opt->bonus_etuis > MAX_ETUIS)
        return DATUM_E_ARG;
    return DATUM_OK;
}

/* Number of v[0..n) (sorted ascending) that are < x. */
static size_t count_below(const int32_t *v, size_t n, int32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A mean as the exact rational sum/count. */
typedef struct {
    int64_t sum, count;
} ratio;

/* The reference note of the sorted scores, unrounded, by the rule; fills the
 * étui's counts. */
static ratio reference_of(datum_tarot_reference rule, const int32_t *sorted, size_t n,
                          datum_tarot_etui *etui)
{
    size_t neg = count_below(sorted, n, 0), pos = n - count_below(sorted, n, 1);
    etui->n_positive = (int32_t)pos;
    etui->n_negative = (int32_t)neg;
    etui->n_minority = etui->n_clipped = 0;

    /* Kept scores as a range of the sorted array: minority negatives are a
     * prefix, minority positives a suffix; the largest |majority| scores are
     * at the other end. Zeros count for neither sign and are always kept. */
    size_t first = 0, last = n; /* [first, last) */
    size_t minority = pos < neg ? pos : neg, majority = pos < neg ? neg : pos;
    if (rule != DATUM_TAROT_REF_MEAN && minority > 0 && 2 * minority < majority) {
        size_t clipped = rule == DATUM_TAROT_REF_FFT ? (minority + 1) / 2 : 0;
        if (pos > neg) { /* won: drop the negatives, clip the top */
            first = neg;
            last = n - clipped;
        } else { /* fell: drop the positives, clip the bottom */
            first = clipped;
            last = n - pos;
        }
        etui->n_minority = (int32_t)minority;
        etui->n_clipped = (int32_t)clipped;
    }
    ratio r = {0, (int64_t)(last - first)};
    for (size_t i = first; i < last; i++) r.sum += sorted[i];
    return r;
}

/* Regularity bonus of a side that scored `twice_beaten` (2 x strictly beaten
 * + equal others) out of `others` comparisons: pct/50 = twice_beaten/others
 * when that is >= 1, in hundredths, rounded. */
static double regularity(int64_t twice_beaten, int64_t others)
{
    if (twice_beaten < others) return 0.0;
    return (double)round_ratio(100 * twice_beaten, others) / 100.0;
}

int datum_tarot_score_etui(const datum_tarot_options *opt, const int32_t *scores, size_t n,
                           int32_t *work, datum_tarot_etui *etui, datum_tarot_line *lines)
{
    memset(etui, 0, sizeof *etui);
    etui->reference = NAN;
    if (datum_tarot_options_check(opt) != DATUM_OK || n >= ((size_t)1 << 31)) return DATUM_E_ARG;
    if (n == 0) return DATUM_W_EMPTY;
    for (size_t i = 0; i < n; i++)
        if (scores[i] <= -SCORE_LIMIT || scores[i] >= SCORE_LIMIT) return DATUM_E_ARG;

    memcpy(work, scores, n * sizeof *work);
    datum_sort_i32(work, n);
    etui->n_scores = (int32_t)n;
    ratio ref = reference_of(opt->reference, work, n, etui);
    /* Rounded: everything below is in hundredths, over a denominator of 1. */
    if (!opt->exact) ref = (ratio){round_ratio(100 * ref.sum, ref.count), 1};
    int64_t scale = opt->exact ? 1 : 100;
    etui->reference = (double)ref.sum / (double)(ref.count * scale);

    int64_t others = (int64_t)n - 1;
    for (size_t i = 0; i < n; i++) {
        datum_tarot_line *l = &lines[i];
        /* diff = num / (count * scale), exactly. */
        int64_t num = scale * scores[i] * ref.count - ref.sum;
        int64_t mag = num < 0 ? -num : num;
        double root = opt->exact ? sqrt((double)mag / (double)ref.count)
                                 : (double)round_sqrt(100 * mag) / 100.0;
        l->diff = (double)num / (double)(ref.count * scale);
        l->pm_attack = num < 0 ? -root : root;
        l->pm_defense = 0.0 - l->pm_attack;

        if (others == 0) { /* nothing to compare with: the seed's 50% */
            l->pct_attack = l->pct_defense = 50.0;
            l->reg_attack = l->reg_defense = 1.0;
            continue;
        }
        int64_t below = (int64_t)count_below(work, n, scores[i]);
        int64_t equal = (int64_t)count_below(work, n, scores[i] + 1) - below - 1; /* others */
        int64_t above = others - below - equal;
        /* pct = 100 (beaten + equal/2) / others = 50 * twice / others. */
        int64_t twice_att = 2 * below + equal, twice_def = 2 * above + equal;
        l->pct_attack = (double)(50 * twice_att) / (double)others;
        l->pct_defense = (double)(50 * twice_def) / (double)others;
        l->reg_attack = regularity(twice_att, others);
        l->reg_defense = regularity(twice_def, others);
    }
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Ranking                                                                   */

/* Heap sort of the indices idx[0..n) by total, ascending (a max-heap sort),
 * ties by index: in place, no allocation, deterministic. */
static int index_after(const double *total, int32_t a, int32_t b)
{
    return total[a] > total[b] || (total[a] == total[b] && a > b);
}

static void sift_down(const double *total, int32_t *idx, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && index_after(total, idx[child + 1], idx[child])) child++;
        if (!index_after(total, idx[child], idx[root])) return;
        int32_t t = idx[root];
        idx[root] = idx[child];
        idx[child] = t;
        root = child;
    }
}

void datum_tarot_rank(const double *total, const uint8_t *include, size_t n, int32_t *work,
                      int32_t *rank)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        rank[i] = 0;
        if (!include || include[i]) work[m++] = (int32_t)i;
    }
    for (size_t r = m / 2; r-- > 0;) sift_down(total, work, r, m);
    for (size_t end = m; end > 1; end--) {
        int32_t t = work[0];
        work[0] = work[end - 1];
        work[end - 1] = t;
        sift_down(total, work, 0, end - 1);
    }
    /* work is ascending: walk it from the best, a tie keeps the first rank. */
    for (size_t k = 0; k < m; k++) {
        int32_t i = work[m - 1 - k], prev = k ? work[m - k] : -1;
        rank[i] = (k > 0 && total[i] == total[prev]) ? rank[prev] : (int32_t)k + 1;
    }
}

/* ------------------------------------------------------------------------ */
/* Tournament                                                                */

/* Running totals of one side. Rounded mode sums exact integers (hundredths
 * of PM and regularity); exact mode sums the PM as doubles in result order. */
typedef struct {
    int64_t pm_hundredths, reg_hundredths;
    double pm_exact;
    int32_t etuis;
    int64_t last_etui; /* to catch a side playing an étui twice */
} side_sum;

typedef struct {
    const char *name; /* "attacker" or "defense" */
    size_t n;
    const int32_t *of_result; /* side of each result */
    const uint8_t *classes;
    size_t players; /* per side */
    const double *penalty;
    side_sum *sum;
    datum_tarot_standing *out;
} side_kind;

static int check_tournament(datum_ctx *ctx, const datum_tarot_tournament *t, const side_kind *k)
{
    if (t->n_etuis > MAX_ETUIS)
        return datum_ctx_fail(ctx, DATUM_E_INPUT, "%zu étuis: more than %d", t->n_etuis,
                              MAX_ETUIS);
    if (t->offset[0] != 0)
        return datum_ctx_fail(ctx, DATUM_E_INPUT, "étui offsets must start at 0");
    for (size_t e = 0; e < t->n_etuis; e++) {
        uint64_t n = t->offset[e + 1] - t->offset[e];
        if (t->offset[e + 1] < t->offset[e] || n >= ((uint64_t)1 << 31))
            return datum_ctx_fail(ctx, DATUM_E_INPUT, "étui %zu: bad result range", e);
    }
    for (uint64_t r = 0; r < t->offset[t->n_etuis]; r++)
        if (t->score[r] <= -SCORE_LIMIT || t->score[r] >= SCORE_LIMIT)
            return datum_ctx_fail(ctx, DATUM_E_INPUT, "result %llu: score %d out of range",
                                  (unsigned long long)r, (int)t->score[r]);
    for (int s = 0; s < 2; s++) {
        for (uint64_t r = 0; r < t->offset[t->n_etuis]; r++)
            if (k[s].of_result[r] < 0 || (size_t)k[s].of_result[r] >= k[s].n)
                return datum_ctx_fail(ctx, DATUM_E_INPUT, "result %llu: %s %d out of range",
                                      (unsigned long long)r, k[s].name, (int)k[s].of_result[r]);
        for (size_t i = 0; i < k[s].n * k[s].players; i++)
            if (k[s].classes[i] >= DATUM_TAROT_CLASS_COUNT)
                return datum_ctx_fail(ctx, DATUM_E_INPUT, "%s %zu: unknown classification %d",
                                      k[s].name, i / k[s].players, (int)k[s].classes[i]);
        for (size_t i = 0; k[s].penalty && i < k[s].n; i++)
            if (!(fabs(k[s].penalty[i]) <= MAX_PENALTY)) /* NaN fails too */
                return datum_ctx_fail(ctx, DATUM_E_INPUT, "%s %zu: penalty %g out of range",
                                      k[s].name, i, k[s].penalty[i]);
    }
    return DATUM_OK;
}

/* Adds étui e's lines to the running totals of its sides. */
static int accumulate(datum_ctx *ctx, const datum_tarot_tournament *t, size_t e,
                      const datum_tarot_line *lines, side_kind *k)
{
    for (uint64_t r = t->offset[e]; r < t->offset[e + 1]; r++) {
        const datum_tarot_line *l = &lines[r - t->offset[e]];
        for (int s = 0; s < 2; s++) {
            side_sum *sum = &k[s].sum[k[s].of_result[r]];
            if (sum->last_etui == (int64_t)e)
                return datum_ctx_fail(ctx, DATUM_E_INPUT, "étui %zu: %s %d plays it twice", e,
                                      k[s].name, (int)k[s].of_result[r]);
            sum->last_etui = (int64_t)e;
            double pm = s == 0 ? l->pm_attack : l->pm_defense;
            /* Rounded PM and regularity are k/100 as doubles: llround recovers k. */
            sum->pm_hundredths += llround(pm * 100.0);
            sum->pm_exact += pm;
            sum->reg_hundredths += llround((s == 0 ? l->reg_attack : l->reg_defense) * 100.0);
            sum->etuis++;
        }
    }
    return DATUM_OK;
}

/* Turns one kind's running totals into standings and ranks them. */
static void finish_side(const datum_tarot_options *opt, const side_kind *k, int32_t *work,
                        double *total, uint8_t *played, int32_t *rank)
{
    for (size_t i = 0; i < k->n; i++) {
        const side_sum *sum = &k->sum[i];
        datum_tarot_standing *st = &k->out[i];
        double penalty = k->penalty ? k->penalty[i] : 0.0;
        int64_t bonus = 0;
        if (sum->etuis > 0)
            datum_tarot_bonus_milli(k->classes + i * k->players, k->players,
                                    opt->bonus_etuis ? opt->bonus_etuis : sum->etuis, &bonus);
        st->etuis = sum->etuis;
        st->regularity = (double)sum->reg_hundredths / 100.0;
        st->bonus = (double)bonus / 1000.0;
        if (opt->exact) {
            st->pm = sum->pm_exact;
            st->penalties = penalty;
            st->total = st->pm + st->regularity + st->bonus - st->penalties;
        } else { /* one exact sum in thousandths, so that equal totals are equal */
            int64_t penalty_milli = llround(penalty * 1000.0);
            st->pm = (double)sum->pm_hundredths / 100.0;
            st->penalties = (double)penalty_milli / 1000.0;
            st->total = (double)(10 * (sum->pm_hundredths + sum->reg_hundredths) + bonus -
                                 penalty_milli) / 1000.0;
        }
        total[i] = st->total;
        played[i] = sum->etuis > 0;
    }
    datum_tarot_rank(total, played, k->n, work, rank);
    for (size_t i = 0; i < k->n; i++) k->out[i].rank = rank[i];
}

int datum_tarot_score_tournament(datum_ctx *ctx, const datum_tarot_options *opt,
                                 const datum_tarot_tournament *t, datum_tarot_etui *etuis,
                                 datum_tarot_line *lines, datum_tarot_standing *attack,
                                 datum_tarot_standing *defense)
{
    if (datum_tarot_options_check(opt) != DATUM_OK)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid tarot options");
    if (t->n_attackers >= ((size_t)1 << 31) || t->n_defenses >= ((size_t)1 << 31))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "too many sides");
    side_kind kind[2] = {
        {"attacker", t->n_attackers, t->attacker, t->attacker_class, 1, t->attacker_penalty,
         NULL, attack},
        {"defense", t->n_defenses, t->defense, t->defense_class, 3, t->defense_penalty, NULL,
         defense}};
    int rc = check_tournament(ctx, t, kind);
    if (rc != DATUM_OK) return rc;

    size_t max_etui = 0, max_sides = t->n_attackers > t->n_defenses ? t->n_attackers
                                                                      : t->n_defenses;
    for (size_t e = 0; e < t->n_etuis; e++) {
        size_t n = (size_t)(t->offset[e + 1] - t->offset[e]);
        if (n > max_etui) max_etui = n;
    }
    /* All workspace at once: nothing is allocated per étui. */
    size_t ints = max_etui > max_sides ? max_etui : max_sides;
    int32_t *work = datum_malloc(ctx, ints + 1, sizeof *work);
    int32_t *rank = datum_malloc(ctx, max_sides + 1, sizeof *rank);
    double *total = datum_malloc(ctx, max_sides + 1, sizeof *total);
    uint8_t *played = datum_malloc(ctx, max_sides + 1, 1);
    datum_tarot_line *scratch = datum_malloc(ctx, max_etui + 1, sizeof *scratch);
    kind[0].sum = datum_calloc(ctx, t->n_attackers + 1, sizeof *kind[0].sum);
    kind[1].sum = datum_calloc(ctx, t->n_defenses + 1, sizeof *kind[1].sum);
    if (!work || !rank || !total || !played || !scratch || !kind[0].sum || !kind[1].sum) {
        rc = DATUM_E_NOMEM; /* recorded by the allocator */
        goto done;
    }
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < kind[s].n; i++) kind[s].sum[i].last_etui = -1;

    for (size_t e = 0; e < t->n_etuis && rc == DATUM_OK; e++) {
        uint64_t first = t->offset[e];
        size_t n = (size_t)(t->offset[e + 1] - first);
        datum_tarot_etui etui;
        datum_tarot_line *out = lines ? lines + first : scratch;
        /* Inputs were checked: the kernel can only return OK or W_EMPTY. */
        datum_tarot_score_etui(opt, t->score + first, n, work, &etui, out);
        if (etuis) etuis[e] = etui;
        rc = accumulate(ctx, t, e, out, kind);
    }
    if (rc == DATUM_OK)
        for (int s = 0; s < 2; s++) finish_side(opt, &kind[s], work, total, played, rank);

done:
    datum_free(work);
    datum_free(rank);
    datum_free(total);
    datum_free(played);
    datum_free(scratch);
    datum_free(kind[0].sum);
    datum_free(kind[1].sum);
    return rc;
}
