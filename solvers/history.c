/*
 * history.c - rating history: the ratings as of the end of every period in
 * one pass over the archive (docs/methods.md, "Rating history").
 *
 * The Butler IMPs of a field do not depend on the as-of date (its datum uses
 * every kept row of the field), so the archive is read and scored once. Each
 * kept field goes to the first as-of date T_k at or after its date, weighed
 * as of T_k, into that period's own problem (r, n and table layouts). Solving
 * date k appends period k to the running problem after scaling the running
 * weights, r and n by 0.5^((T_k - T_{k-1}) / half_life): A and r are sums
 * over boards, so A(T_k) = c A(T_{k-1}) + the boards of (T_{k-1}, T_k]. The
 * system is then solved as a separate run at T_k would solve it (structure,
 * null space, dense and sparse components), warm-started from the ratings
 * of T_{k-1}.
 *
 * A field whose real rows have dates in different periods (a field played
 * over several days) has a version per period: the rows dated up to T_k,
 * scored among themselves. Version k comes in at period k and withdraws
 * version k-1 there (sign -1): a later version holds every row of an
 * earlier one, so the pairs and meetings never shrink.
 */
#include "rate_internal.h"

#include "datum_text.h"

#include <math.h>
#include <string.h>

/* With --solver auto, a date solved by conjugate gradients preconditioned by
 * an earlier date's factor that needed more iterations than this has the
 * next date factorised afresh. Iteration counts, not times, decide: the
 * ratings must not depend on the machine's load. */
#define HISTORY_REFACTOR_ITERATIONS 25
/* Nor does it serve once the boards added since it make up more than this
 * share of the (decayed) board weight, or the rated pairs grew by more than
 * 1%: then the date is factorised without trying. */
#define HISTORY_REFACTOR_SHARE 0.25

struct datum_rate_history {
    uint32_t n_pairs;
    int32_t from;
    double half_life;
    size_t n_dates;
    int32_t *as_of;
    datum_rate_problem **period; /* per date: the fields that come in there; NULL once appended */
    datum_rate_problem *running; /* every period up to the last solved date, as of it */
    rate_matrix a;               /* its A, updated date by date */
    rate_unions unions;          /* its components, united date by date */
    rate_reuse *factor;          /* the last direct factor, preconditioning later dates */
    double added, weight;        /* board weight added since that factor; in all */
    uint32_t factor_pairs;       /* pairs rated when it was made */
    int factor_numeric;          /* null directions beyond the structure then */
    int versions;                /* a field was replaced by a later version */
    size_t next;                 /* the next date to solve */
    int failed;                  /* a solve failed: nothing more */
    double *previous;            /* the ratings of the last solved date (NaN: unrated) */
    double *av, *ax_start, *work; /* A v of them (have_av), A(T_k) times them, scratch */
    int have_av;
    rate_kept chunk, version[2]; /* scratch */
    int32_t *first_period, *last_period; /* per field of a chunk: periods of its first and last real row */
    size_t fields_cap;
};

/* ------------------------------------------------------------------------ */
/* The dates                                                                */

/* The last day of the period of `months` months (1, 3 or 12, aligned on the
 * calendar year) that holds `day`; INT32_MIN outside years 1..9999. */
static int32_t period_end(int32_t day, int months)
{
    int y, m, d;
    datum_civil_from_days(day, &y, &m, &d);
    if (y < 1 || y > 9999) return INT32_MIN;
    int last = ((m - 1) / months + 1) * months;
    if (last == 12) return datum_days_from_civil(y, 12, 31);
    return datum_days_from_civil(y, last + 1, 1) - 1;
}

int datum_rate_history_dates(datum_ctx *ctx, datum_rate_every every, int32_t first, int32_t last,
                             int32_t **dates, size_t *n_dates)
{
    *dates = NULL;
    *n_dates = 0;
    int months = (int)every;
    if (months != 1 && months != 3 && months != 12)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "unknown period of %d months", months);
    if (first > last) return datum_ctx_fail(ctx, DATUM_E_ARG, "the history starts after it ends");
    if (period_end(first, months) == INT32_MIN || period_end(last, months) == INT32_MIN)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "history dates outside the years 1 to 9999");
    size_t n = 0, cap = 0;
    int32_t *out = NULL;
    for (int32_t t = period_end(first, months);; t = period_end(t + 1, months)) {
        if (datum_reserve(ctx, &out, &cap, n + 1, sizeof *out) != DATUM_OK) {
            datum_free(out);
            return DATUM_E_NOMEM;
        }
        out[n++] = t < last ? t : last; /* the last period ends on `last`, whole or not */
        if (t >= last) break;
    }
    *dates = out;
    *n_dates = n;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Creating and feeding                                                     */

void datum_rate_history_free(datum_rate_history **hp)
{
    if (!hp || !*hp) return;
    datum_rate_history *h = *hp;
    for (size_t k = 0; h->period && k < h->n_dates; k++) datum_rate_problem_free(&h->period[k]);
    datum_free(h->period);
    datum_rate_problem_free(&h->running);
    rate_matrix_free(&h->a);
    rate_unions_free(&h->unions);
    rate_reuse_free(&h->factor);
    datum_free(h->as_of);
    datum_free(h->previous);
    datum_free(h->av);
    rate_kept_free(&h->chunk);
    rate_kept_free(&h->version[0]);
    rate_kept_free(&h->version[1]);
    datum_free(h->first_period);
    datum_free(h->last_period);
    datum_free(h);
    *hp = NULL;
}

int datum_rate_history_create(datum_ctx *ctx, uint32_t n_pairs, int32_t from, double half_life,
                              const int32_t *as_of, size_t n_dates, datum_rate_history **out)
{
    *out = NULL;
    if (n_dates == 0) return datum_ctx_fail(ctx, DATUM_E_ARG, "a history needs an as-of date");
    for (size_t k = 0; k < n_dates; k++)
        if ((k > 0 && as_of[k] <= as_of[k - 1]) || as_of[k] < from || as_of[k] == INT32_MAX)
            return datum_ctx_fail(ctx, DATUM_E_ARG,
                                  "the as-of dates must increase, from the window's start on");
    datum_rate_history *h = datum_calloc(ctx, 1, sizeof *h);
    if (!h) return DATUM_E_NOMEM;
    h->n_pairs = n_pairs;
    h->from = from;
    h->half_life = half_life;
    h->n_dates = n_dates;
    h->as_of = datum_malloc(ctx, n_dates, sizeof *h->as_of);
    h->period = datum_calloc(ctx, n_dates, sizeof *h->period);
    h->previous = datum_malloc(ctx, n_pairs ? n_pairs : 1, sizeof *h->previous);
    h->av = datum_malloc(ctx, 3 * (size_t)(n_pairs ? n_pairs : 1), sizeof *h->av);
    int rc = h->as_of && h->period && h->previous && h->av ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        h->ax_start = h->av + (n_pairs ? n_pairs : 1);
        h->work = h->ax_start + (n_pairs ? n_pairs : 1);
    }
    datum_rate_window w = {from, as_of[0], half_life};
    /* The running problem checks the window (half-life, from) for every date. */
    if (rc == DATUM_OK) rc = datum_rate_problem_create(ctx, n_pairs, &w, &h->running);
    if (rc == DATUM_OK) rc = rate_reuse_create(ctx, n_pairs, &h->factor);
    for (size_t k = 0; rc == DATUM_OK && k < n_dates; k++) {
        h->as_of[k] = as_of[k];
        w.as_of = as_of[k];
        rc = datum_rate_problem_create(ctx, n_pairs, &w, &h->period[k]);
    }
    if (rc != DATUM_OK) {
        datum_rate_history_free(&h);
        return rc;
    }
    for (uint32_t j = 0; j < n_pairs; j++) h->previous[j] = NAN;
    *out = h;
    return DATUM_OK;
}

/* The first as-of date at or after `date` (n_dates if none). */
static size_t period_of(const datum_rate_history *h, int32_t date)
{
    size_t lo = 0, hi = h->n_dates;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->as_of[mid] < date) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Periods of the first and last real row of each field inside the window
 * (-1 when none); DATUM_E_ARG when a half-life would decay a field below
 * 2^-1000 by the last date. */
static int field_periods(datum_ctx *ctx, datum_rate_history *h, const datum_rate_chunk *c)
{
    void *arrays[] = {&h->first_period, &h->last_period};
    size_t sizes[] = {sizeof *h->first_period, sizeof *h->last_period};
    if (datum_reserve_all(ctx, &h->fields_cap, c->n_fields + 1, 2, arrays, sizes) != DATUM_OK)
        return DATUM_E_NOMEM;
    int32_t last = h->as_of[h->n_dates - 1];
    for (size_t f = 0; f < c->n_fields; f++) {
        int32_t lo = INT32_MAX, hi = INT32_MIN;
        for (uint64_t i = c->offset[f]; i < c->offset[f + 1]; i++) {
            int32_t date = c->date ? c->date[i] : c->field_date[f];
            if (date < h->from || date > last || (c->adjusted && c->adjusted[i] != DATUM_ADJ_NONE))
                continue;
            if (date < lo) lo = date;
            if (date > hi) hi = date;
        }
        h->first_period[f] = h->last_period[f] = -1;
        if (lo > hi) continue;
        if (h->half_life > 0 && ((double)last - lo) / h->half_life > 1000)
            return datum_ctx_fail(ctx, DATUM_E_ARG,
                                  "a half-life of %g days decays boards below 2^-1000 over the "
                                  "history: rate those dates separately", h->half_life);
        h->first_period[f] = (int32_t)period_of(h, lo);
        h->last_period[f] = (int32_t)period_of(h, hi);
    }
    return DATUM_OK;
}

/* A field whose rows fall in several periods: its version as of each of
 * them comes in there and withdraws the one before. */
static int add_versions(datum_ctx *ctx, datum_rate_history *h, const datum_method *m,
                        const datum_rate_chunk *c, size_t f)
{
    datum_rate_chunk one = {1, c->offset + f, c->field_date + f, c->date,
                            c->ns_pair, c->ew_pair, c->ns_score, c->adjusted};
    rate_kept *before = &h->version[0], *now = &h->version[1];
    before->n_fields = 0;
    for (int32_t k = h->first_period[f]; k <= h->last_period[f]; k++) {
        datum_rate_window w = {h->from, h->as_of[k], h->half_life};
        int rc = rate_keep(ctx, &w, m, &one, h->n_pairs, now);
        if (rc < 0) return rc;
        if (now->n_fields == 1 && (rc = rate_problem_add_field(ctx, h->period[k], now, 0, 1.0)) != DATUM_OK)
            return rc;
        if (before->n_fields == 1 &&
            (rc = rate_problem_add_field(ctx, h->period[k], before, 0, -1.0)) != DATUM_OK)
            return rc;
        h->versions |= before->n_fields == 1;
        rate_kept *swap = before;
        before = now;
        now = swap;
    }
    return DATUM_OK;
}

int datum_rate_history_add(datum_ctx *ctx, datum_rate_history *h, const datum_method *m,
                           const datum_rate_chunk *c)
{
    if (h->next > 0)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the history is being solved: no more results");
    int rc = field_periods(ctx, h, c);
    if (rc != DATUM_OK) return rc;
    datum_rate_window w = {h->from, h->as_of[h->n_dates - 1], h->half_life};
    if ((rc = rate_keep(ctx, &w, m, c, h->n_pairs, &h->chunk)) < 0) return rc;
    const rate_kept *k = &h->chunk;
    for (size_t f = 0; f < k->n_fields; f++) {
        size_t src = k->source[f];
        if (h->first_period[src] != h->last_period[src]) continue; /* below */
        if ((rc = rate_problem_add_field(ctx, h->period[h->last_period[src]], k, f, 1.0)) != DATUM_OK)
            return rc;
    }
    for (size_t f = 0; f < c->n_fields; f++)
        if (h->first_period[f] != h->last_period[f] && (rc = add_versions(ctx, h, m, c, f)) != DATUM_OK)
            return rc;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Solving                                                                  */

size_t datum_rate_history_count(const datum_rate_history *h) { return h->n_dates; }

int32_t datum_rate_history_as_of(const datum_rate_history *h, size_t k)
{
    return k < h->n_dates ? h->as_of[k] : INT32_MIN;
}

int datum_rate_history_solve(datum_ctx *ctx, datum_rate_history *h, size_t k,
                             const datum_rate_options *options, datum_rate_result **out)
{
    *out = NULL;
    if (h->failed) return datum_ctx_fail(ctx, DATUM_E_ARG, "the history failed at an earlier date");
    if (k != h->next)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "history date %zu solved out of turn (next: %zu)",
                              k, h->next);
    datum_rate_options opt = options ? *options : (datum_rate_options)DATUM_RATE_OPTIONS_INIT;
    double decay = k > 0 && h->half_life > 0
                       ? exp2(-((double)h->as_of[k] - (double)h->as_of[k - 1]) / h->half_life)
                       : 1.0;
    /* A(T_k) = decay A(T_{k-1}) + the A of period k's boards alone. */
    rate_matrix delta = {0};
    int rc = k == 0 ? rate_unions_init(ctx, h->n_pairs, &h->unions) : DATUM_OK;
    if (rc == DATUM_OK) rc = rate_matrix_assemble(ctx, h->period[k], &delta);
    if (rc == DATUM_OK) rc = rate_matrix_add(ctx, &h->a, decay, &delta);
    /* A(T_k) v(T_{k-1}) = decay A(T_{k-1}) v(T_{k-1}) + the period's A v:
     * the first residual of date k needs no product with the whole A. */
    int start = rc == DATUM_OK && h->have_av;
    if (start) {
        for (uint32_t j = 0; j < h->n_pairs; j++)
            h->work[j] = isfinite(h->previous[j]) ? h->previous[j] : 0;
        rate_matvec(ctx, &delta, NULL, h->work, h->ax_start);
        for (uint32_t j = 0; j < h->n_pairs; j++) h->ax_start[j] += decay * h->av[j];
    }
    h->have_av = 0;
    if (rc == DATUM_OK) rate_recycle_update(rate_reuse_recycle(h->factor), decay, &delta);
    rate_matrix_free(&delta);
    if (rc == DATUM_OK) rc = rate_problem_append(ctx, h->running, h->period[k], decay);
    if (rc != DATUM_OK) {
        h->failed = 1;
        return rc;
    }
    datum_rate_problem_free(&h->period[k]);
    h->running->window.as_of = h->as_of[k];
    h->next = k + 1;
    if (k > 0) opt.warm_start = h->previous;
    double period_weight = 0;
    for (uint32_t j = 0; j < h->n_pairs; j++) period_weight += h->running->n[j];
    h->added = decay * h->added + (period_weight - decay * h->weight);
    h->weight = period_weight;
    uint32_t pairs = 0;
    for (uint32_t j = 0; j < h->n_pairs; j++) pairs += h->running->n[j] > 0;
    if (h->added > HISTORY_REFACTOR_SHARE * h->weight || pairs > h->factor_pairs + h->factor_pairs / 100)
        rate_reuse_expire(h->factor);
    rate_reuse_trust(h->factor, !h->versions && h->factor_numeric == 0 && pairs == h->factor_pairs);
    int reused = opt.solver == DATUM_RATE_AUTO && rate_reuse_ready(h->factor);
    const double *ax_start = start ? h->ax_start : NULL;
    rc = rate_solve_with(ctx, h->running, &opt, &h->a, &h->unions, h->factor, ax_start, h->av, out);
    if (rc == DATUM_W_INACCURATE && reused) { /* the earlier factor was not enough: afresh */
        datum_rate_result_free(out);
        rate_reuse_expire(h->factor);
        rc = rate_solve_with(ctx, h->running, &opt, &h->a, &h->unions, h->factor, ax_start, h->av,
                             out);
    } else if (rc >= 0 && reused && (*out)->stats.iterations > HISTORY_REFACTOR_ITERATIONS) {
        rate_reuse_expire(h->factor); /* the next date factorises afresh */
    }
    if (rc < 0) {
        h->failed = 1;
        return rc;
    }
    if (rate_reuse_ready(h->factor) && (*out)->stats.path == DATUM_RATE_DIRECT) { /* a new factor */
        h->added = 0;
        h->factor_pairs = pairs;
        h->factor_numeric = (int)(*out)->stats.null_numeric;
    }
    memcpy(h->previous, (*out)->rating, h->n_pairs * sizeof *h->previous);
    h->have_av = (*out)->stats.pairs > 0; /* residuals ran: h->av holds A v */
    return rc;
}
