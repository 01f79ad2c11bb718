/*
 * problem.c - the kept results of an archive: which rows count (real, inside
 * the date window, in fields of at least 2 such rows), their Butler IMPs from
 * the engine, r and n per pair, and the table layouts A is built from.
 */
#include "rate_internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

double rate_now(void) { return omp_get_wtime(); }

double rate_weight(const datum_rate_window *w, int32_t date)
{
    if (!(w->half_life > 0)) return 1.0;
    return exp2(-((double)w->as_of - (double)date) / w->half_life);
}

/* ------------------------------------------------------------------------ */
/* Kept rows                                                                */

static int grow_kept(datum_ctx *ctx, rate_kept *k, size_t fields, size_t rows)
{
    void *per_field[] = {&k->offset, &k->date, &k->datum, &k->source, &k->field_start, &k->field_latest};
    size_t field_size[] = {sizeof *k->offset, sizeof *k->date, sizeof *k->datum, sizeof *k->source,
                           sizeof *k->field_start, sizeof *k->field_latest};
    void *per_row[] = {&k->score, &k->ns, &k->ew, &k->ns_imps, &k->ew_imps};
    size_t row_size[] = {sizeof *k->score, sizeof *k->ns, sizeof *k->ew, sizeof *k->ns_imps,
                         sizeof *k->ew_imps};
    if (datum_reserve_all(ctx, &k->fields_cap, fields + 1, 6, per_field, field_size) != DATUM_OK)
        return DATUM_E_NOMEM;
    return datum_reserve_all(ctx, &k->rows_cap, rows, 5, per_row, row_size);
}

/* Below this many rows a chunk is kept on one thread (a history's one-field
 * chunks): the result is the same either way. */
#define KEEP_PARALLEL_ROWS 65536

/* A row counts when it is real and inside the window. */
static inline int row_kept(const datum_rate_window *w, const datum_rate_chunk *c, size_t f, uint64_t i,
                           int32_t *date)
{
    *date = c->date ? c->date[i] : c->field_date[f];
    return *date >= w->from && *date <= w->as_of && !(c->adjusted && c->adjusted[i] != DATUM_ADJ_NONE);
}

int rate_keep(datum_ctx *ctx, const datum_rate_window *w, const datum_method *m,
              const datum_rate_chunk *c, uint32_t n_pairs, rate_kept *k)
{
    size_t n_rows = c->n_fields ? (size_t)c->offset[c->n_fields] : 0;
    int64_t n_fields = (int64_t)c->n_fields;
    k->n_fields = k->n_rows = 0;
    if (grow_kept(ctx, k, c->n_fields, n_rows) != DATUM_OK) return DATUM_E_NOMEM;
    /* Each field's kept rows counted (0: fewer than 2), then placed: fields
     * are independent, so any split of them over threads gives the same. */
    uint64_t bad = UINT64_MAX, outside = 0, one = 0;
    int threads = n_rows >= KEEP_PARALLEL_ROWS ? datum_ctx_threads(ctx) : 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : bad) \
    reduction(+ : outside, one)
    for (int64_t f = 0; f < n_fields; f++) {
        uint64_t kept = 0, in_window = 0;
        int32_t latest = INT32_MIN;
        for (uint64_t i = c->offset[f]; i < c->offset[f + 1]; i++) {
            int32_t ns = c->ns_pair[i], ew = c->ew_pair[i], date;
            if (ns < 0 || ew < 0 || (uint32_t)ns >= n_pairs || (uint32_t)ew >= n_pairs || ns == ew) {
                if (i < bad) bad = i;
                break;
            }
            int counts = row_kept(w, c, (size_t)f, i, &date);
            int inside = date >= w->from && date <= w->as_of;
            in_window += inside;
            outside += !inside;
            kept += counts;
            if (counts && date > latest) latest = date;
        }
        if (kept < 2) { /* a lone table compares with nothing */
            one += in_window > 0;
            kept = 0;
        }
        k->field_start[f] = kept;
        k->field_latest[f] = latest;
    }
    if (bad != UINT64_MAX)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "row %llu of the chunk: pairs %d and %d (of %u pairs)",
                              (unsigned long long)bad, (int)c->ns_pair[bad], (int)c->ew_pair[bad],
                              n_pairs);
    k->rows_outside += outside;
    k->fields_one += one;
    k->offset[0] = 0;
    for (size_t f = 0; f < c->n_fields; f++) {
        uint64_t kept = k->field_start[f];
        k->field_start[f] = k->n_rows;
        if (kept == 0) continue;
        k->date[k->n_fields] = k->field_latest[f];
        k->source[k->n_fields] = f;
        k->n_rows += kept;
        k->offset[++k->n_fields] = k->n_rows;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t f = 0; f < n_fields; f++) {
        uint64_t at = k->field_start[f], first = c->offset[f], rows = c->offset[f + 1] - first;
        uint64_t kept = (f + 1 < n_fields ? k->field_start[f + 1] : k->n_rows) - at;
        if (kept == 0) continue; /* dropped */
        if (kept == rows) { /* every row kept (most fields): copied whole */
            memcpy(k->score + at, c->ns_score + first, rows * sizeof *k->score);
            memcpy(k->ns + at, c->ns_pair + first, rows * sizeof *k->ns);
            memcpy(k->ew + at, c->ew_pair + first, rows * sizeof *k->ew);
            continue;
        }
        for (uint64_t i = first; i < c->offset[f + 1]; i++) {
            int32_t date;
            if (!row_kept(w, c, (size_t)f, i, &date)) continue;
            k->score[at] = c->ns_score[i];
            k->ns[at] = c->ns_pair[i];
            k->ew[at] = c->ew_pair[i];
            at++;
        }
    }
    if (k->n_fields == 0) return DATUM_OK;
    datum_fields in = {k->n_fields, k->offset, k->score, NULL};
    return datum_score_fields(ctx, m, &in, k->datum, k->ns_imps, k->ew_imps);
}

void rate_kept_free(rate_kept *k)
{
    datum_free(k->offset); datum_free(k->date); datum_free(k->datum); datum_free(k->source);
    datum_free(k->field_start); datum_free(k->field_latest);
    datum_free(k->score); datum_free(k->ns); datum_free(k->ew); datum_free(k->ns_imps); datum_free(k->ew_imps);
    memset(k, 0, sizeof *k);
}

/* ------------------------------------------------------------------------ */
/* The problem                                                              */

int datum_rate_problem_create(datum_ctx *ctx, uint32_t n_pairs, const datum_rate_window *window,
                              datum_rate_problem **out)
{
    *out = NULL;
    datum_rate_window w = window ? *window : (datum_rate_window)DATUM_RATE_WINDOW_INIT;
    if (n_pairs > INT32_MAX)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "%u pairs: at most 2^31 - 1", n_pairs);
    if (w.from > w.as_of)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the window starts after it ends");
    if (!(w.half_life >= 0) || !isfinite(w.half_life))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the half-life must be a positive number of days");
    if (w.half_life > 0 && w.as_of == INT32_MAX)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "time decay needs an as-of date");
    datum_rate_problem *p = datum_calloc(ctx, 1, sizeof *p);
    if (!p) return DATUM_E_NOMEM;
    p->n_pairs = n_pairs;
    p->window = w;
    p->r = datum_calloc(ctx, n_pairs, sizeof *p->r);
    p->n = datum_calloc(ctx, n_pairs, sizeof *p->n);
    void *layouts[] = {&p->lay_off, &p->lay_w};
    size_t layout_size[] = {sizeof *p->lay_off, sizeof *p->lay_w};
    if (!p->r || !p->n || datum_reserve_all(ctx, &p->layouts_cap, 1, 2, layouts, layout_size)) {
        datum_rate_problem_free(&p);
        return DATUM_E_NOMEM;
    }
    p->lay_off[0] = 0;
    *out = p;
    return DATUM_OK;
}

void datum_rate_problem_free(datum_rate_problem **pp)
{
    if (!pp || !*pp) return;
    datum_rate_problem *p = *pp;
    datum_free(p->r); datum_free(p->n); datum_free(p->lay_off); datum_free(p->lay_w); datum_free(p->t_ns); datum_free(p->t_ew);
    rate_kept_free(&p->kept);
    datum_free(p);
    *pp = NULL;
}

/* Whether kept field f of k has the tables of the problem's last layout (the
 * same pairs at the same tables, in the same directions). */
static int same_as_last(const datum_rate_problem *p, const rate_kept *k, size_t f)
{
    if (p->n_layouts == 0) return 0;
    uint64_t a = k->offset[f], len = k->offset[f + 1] - a, b = p->lay_off[p->n_layouts - 1];
    return p->lay_off[p->n_layouts] - b == len &&
           memcmp(p->t_ns + b, k->ns + a, len * sizeof *k->ns) == 0 &&
           memcmp(p->t_ew + b, k->ew + a, len * sizeof *k->ew) == 0;
}

/* Whether kept fields e and f of k have the same tables. */
static int same_fields(const rate_kept *k, size_t e, size_t f)
{
    uint64_t a = k->offset[e], b = k->offset[f], len = k->offset[f + 1] - b;
    return k->offset[e + 1] - a == len && memcmp(k->ns + a, k->ns + b, len * sizeof *k->ns) == 0 &&
           memcmp(k->ew + a, k->ew + b, len * sizeof *k->ew) == 0;
}

/* Stores kept field f of k with weight w, or adds w to the last layout when
 * it is the same (same tables, same pairs, same directions). */
static int add_layout(datum_ctx *ctx, datum_rate_problem *p, const rate_kept *k, size_t f, double w)
{
    uint64_t a = k->offset[f], len = k->offset[f + 1] - a;
    if (same_as_last(p, k, f)) {
        p->lay_w[p->n_layouts - 1] += w;
        return DATUM_OK;
    }
    if (p->n_tables + len > UINT32_MAX)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "more than 2^32 - 1 distinct tables");
    void *tables[] = {&p->t_ns, &p->t_ew};
    size_t table_size[] = {sizeof *p->t_ns, sizeof *p->t_ew};
    void *layouts[] = {&p->lay_off, &p->lay_w};
    size_t layout_size[] = {sizeof *p->lay_off, sizeof *p->lay_w};
    if (datum_reserve_all(ctx, &p->tables_cap, p->n_tables + len, 2, tables, table_size) ||
        datum_reserve_all(ctx, &p->layouts_cap, p->n_layouts + 2, 2, layouts, layout_size))
        return DATUM_E_NOMEM;
    memcpy(p->t_ns + p->n_tables, k->ns + a, len * sizeof *k->ns);
    memcpy(p->t_ew + p->n_tables, k->ew + a, len * sizeof *k->ew);
    p->n_tables += len;
    p->lay_w[p->n_layouts++] = w;
    p->lay_off[p->n_layouts] = p->n_tables;
    return DATUM_OK;
}

/* Counts kept field f of k, added, in the summary. */
static void count_field(datum_rate_summary *s, const rate_kept *k, size_t f)
{
    if (s->fields == 0 || k->date[f] < s->first_date) s->first_date = k->date[f];
    if (s->fields == 0 || k->date[f] > s->last_date) s->last_date = k->date[f];
    s->fields++;
    s->rows += k->offset[f + 1] - k->offset[f];
}

int rate_problem_add_field(datum_ctx *ctx, datum_rate_problem *p, const rate_kept *k, size_t f,
                           double sign)
{
    double w = rate_weight(&p->window, k->date[f]);
    if (!(w > 0)) { /* decayed below the smallest double: as if outside the window */
        p->summary.rows_outside += k->offset[f + 1] - k->offset[f];
        return DATUM_OK;
    }
    w *= sign;
    for (uint64_t i = k->offset[f]; i < k->offset[f + 1]; i++) {
        p->r[k->ns[i]] += w * k->ns_imps[i];
        p->r[k->ew[i]] += w * k->ew_imps[i];
        p->n[k->ns[i]] += w;
        p->n[k->ew[i]] += w;
    }
    int rc = add_layout(ctx, p, k, f, w);
    if (rc != DATUM_OK || sign < 0) return rc; /* a withdrawn field is counted where it came in */
    count_field(&p->summary, k, f);
    return DATUM_OK;
}

/* Below this many kept rows, or on one thread, a chunk is added field by
 * field (rate_problem_add_field); above, by add_chunk: the same problem, bit
 * for bit. */
#define ADD_PARALLEL_ROWS 65536

/* The layouts of every kept field of k, in field order, as
 * rate_problem_add_field's add_layout and count: from[0 .. *n_new) the
 * fields that make new layouts, whose tables are not copied yet (the
 * caller copies them). same[f]: whether field f has field f - 1's tables.
 * The tables and layouts must have room for the chunk. DATUM_OK, or
 * DATUM_E_ARG (more than 2^32 - 1 tables). */
static int decide_layouts(datum_ctx *ctx, datum_rate_problem *p, const rate_kept *k,
                          const unsigned char *same, size_t *from, size_t *n_new)
{
    /* The last layout is field f - 1's when that field was added; else the
     * one field `made` made in this chunk, or one of an earlier chunk. */
    size_t made = SIZE_MAX;
    int previous_added = 0;
    *n_new = 0;
    for (size_t f = 0; f < k->n_fields; f++) {
        uint64_t len = k->offset[f + 1] - k->offset[f];
        double w = rate_weight(&p->window, k->date[f]);
        if (!(w > 0)) { /* as rate_problem_add_field */
            p->summary.rows_outside += len;
            previous_added = 0;
            continue;
        }
        int merged = previous_added    ? same[f]
                     : made != SIZE_MAX ? same_fields(k, made, f)
                                        : same_as_last(p, k, f);
        if (merged) {
            p->lay_w[p->n_layouts - 1] += w;
        } else {
            if (p->n_tables + len > UINT32_MAX)
                return datum_ctx_fail(ctx, DATUM_E_ARG, "more than 2^32 - 1 distinct tables");
            from[(*n_new)++] = made = f;
            p->n_tables += len;
            p->lay_w[p->n_layouts++] = w;
            p->lay_off[p->n_layouts] = p->n_tables;
        }
        previous_added = 1;
        count_field(&p->summary, k, f);
    }
    return DATUM_OK;
}

/* Adds every kept field of k with its window's weight, as
 * rate_problem_add_field(..., 1.0) field after field would, bit for bit, on
 * `threads` (>= 2) threads. The sums r and n are independent of each other:
 * one thread sums r, another n, each over the rows in order (each pair's
 * additions in the same order as one thread's); the second then compares
 * each field's tables with the previous field's and decides the layouts in
 * field order (per field, not per row) while the first still sums. The new
 * layouts' tables are then copied in parallel. DATUM_OK, DATUM_E_NOMEM or
 * DATUM_E_ARG (more than 2^32 - 1 tables). */
static int add_chunk(datum_ctx *ctx, datum_rate_problem *p, const rate_kept *k, int threads)
{
    size_t nf = k->n_fields, first = p->n_layouts, n_new = 0;
    void *tables[] = {&p->t_ns, &p->t_ew};
    size_t table_size[] = {sizeof *p->t_ns, sizeof *p->t_ew};
    void *layouts[] = {&p->lay_off, &p->lay_w};
    size_t layout_size[] = {sizeof *p->lay_off, sizeof *p->lay_w};
    /* from[j]: the field whose tables the chunk's j-th new layout holds;
     * same[f]: field f has the tables of field f - 1. */
    size_t *from = datum_malloc(ctx, nf, sizeof *from + 1);
    if (!from || datum_reserve_all(ctx, &p->tables_cap, p->n_tables + k->n_rows, 2, tables, table_size) ||
        datum_reserve_all(ctx, &p->layouts_cap, p->n_layouts + nf + 1, 2, layouts, layout_size)) {
        datum_free(from);
        return DATUM_E_NOMEM;
    }
    unsigned char *same = (unsigned char *)(from + nf);
    const datum_rate_window *win = &p->window;
    double *r = p->r, *n = p->n;
    int rc = DATUM_OK;
#pragma omp parallel num_threads(threads)
    {
        /* A team smaller than asked for (nested, limited): thread 0 does all. */
        int t = omp_get_thread_num(), sums_r = t == 0, second = t == (omp_get_num_threads() > 1);
        for (size_t f = 0; (sums_r || second) && f < nf; f++) {
            double w = rate_weight(win, k->date[f]);
            if (!(w > 0)) continue; /* decayed to nothing: counted by decide_layouts */
            uint64_t end = k->offset[f + 1];
            if (sums_r)
                for (uint64_t i = k->offset[f]; i < end; i++) {
                    r[k->ns[i]] += w * k->ns_imps[i];
                    r[k->ew[i]] += w * k->ew_imps[i];
                }
            if (second)
                for (uint64_t i = k->offset[f]; i < end; i++) {
                    n[k->ns[i]] += w;
                    n[k->ew[i]] += w;
                }
        }
        if (second) {
            for (size_t f = 1; f < nf; f++) same[f] = (unsigned char)same_fields(k, f - 1, f);
            rc = decide_layouts(ctx, p, k, same, from, &n_new);
        }
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
    for (int64_t j = 0; j < (int64_t)n_new; j++) {
        uint64_t a = k->offset[from[j]], at = p->lay_off[first + (size_t)j];
        uint64_t len = p->lay_off[first + (size_t)j + 1] - at;
        memcpy(p->t_ns + at, k->ns + a, len * sizeof *k->ns);
        memcpy(p->t_ew + at, k->ew + a, len * sizeof *k->ew);
    }
    datum_free(from);
    return rc;
}

int datum_rate_problem_add(datum_ctx *ctx, datum_rate_problem *p, const datum_method *m,
                           const datum_rate_chunk *c)
{
    if (p->sealed)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the problem is solved: no more results");
    rate_kept *k = &p->kept;
    uint64_t outside = k->rows_outside, one = k->fields_one;
    int rc = rate_keep(ctx, &p->window, m, c, p->n_pairs, k);
    p->summary.rows_outside += k->rows_outside - outside;
    p->summary.fields_one += k->fields_one - one;
    if (rc < 0) return rc;
    int threads = k->n_rows >= ADD_PARALLEL_ROWS ? datum_ctx_threads(ctx) : 1;
    if (threads >= 2) return add_chunk(ctx, p, k, threads);
    for (size_t f = 0; f < k->n_fields; f++)
        if ((rc = rate_problem_add_field(ctx, p, k, f, 1.0)) != DATUM_OK) return rc;
    return DATUM_OK;
}

int rate_problem_append(datum_ctx *ctx, datum_rate_problem *dst, const datum_rate_problem *src,
                        double scale)
{
    void *tables[] = {&dst->t_ns, &dst->t_ew};
    size_t table_size[] = {sizeof *dst->t_ns, sizeof *dst->t_ew};
    void *layouts[] = {&dst->lay_off, &dst->lay_w};
    size_t layout_size[] = {sizeof *dst->lay_off, sizeof *dst->lay_w};
    if (datum_reserve_all(ctx, &dst->tables_cap, dst->n_tables + src->n_tables, 2, tables, table_size) ||
        datum_reserve_all(ctx, &dst->layouts_cap, dst->n_layouts + src->n_layouts + 1, 2, layouts,
                          layout_size))
        return DATUM_E_NOMEM;
    if (scale != 1.0) {
        for (size_t l = 0; l < dst->n_layouts; l++) dst->lay_w[l] *= scale;
        for (uint32_t j = 0; j < dst->n_pairs; j++) {
            dst->r[j] *= scale;
            dst->n[j] *= scale;
        }
    }
    for (uint32_t j = 0; j < dst->n_pairs; j++) {
        dst->r[j] += src->r[j];
        dst->n[j] += src->n[j];
    }
    if (src->n_tables > 0) { /* a period without a kept field has no table array */
        memcpy(dst->t_ns + dst->n_tables, src->t_ns, src->n_tables * sizeof *src->t_ns);
        memcpy(dst->t_ew + dst->n_tables, src->t_ew, src->n_tables * sizeof *src->t_ew);
    }
    for (size_t l = 0; l < src->n_layouts; l++) {
        dst->lay_w[dst->n_layouts + l] = src->lay_w[l];
        dst->lay_off[dst->n_layouts + l + 1] = dst->n_tables + src->lay_off[l + 1];
    }
    dst->n_tables += src->n_tables;
    dst->n_layouts += src->n_layouts;
    datum_rate_summary *d = &dst->summary;
    const datum_rate_summary *s = &src->summary;
    if (s->fields > 0 && (d->fields == 0 || s->first_date < d->first_date)) d->first_date = s->first_date;
    if (s->fields > 0 && (d->fields == 0 || s->last_date > d->last_date)) d->last_date = s->last_date;
    d->fields += s->fields;
    d->rows += s->rows;
    d->fields_one += s->fields_one;
    d->rows_outside += s->rows_outside;
    return DATUM_OK;
}

void datum_rate_problem_summary(const datum_rate_problem *p, datum_rate_summary *s)
{
    *s = p->summary;
    s->layouts = p->n_layouts;
    s->pairs = 0;
    for (uint32_t j = 0; j < p->n_pairs; j++) s->pairs += p->n[j] > 0;
}

const double *datum_rate_problem_boards(const datum_rate_problem *p) { return p->n; }
uint32_t datum_rate_problem_pairs(const datum_rate_problem *p) { return p->n_pairs; }
const double *datum_rate_problem_butler(const datum_rate_problem *p) { return p->r; }
