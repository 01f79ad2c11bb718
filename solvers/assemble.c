/*
 * assemble.c - A of methods.md §6, column by column (Gustavson): for pair j,
 * each table t it sat at, in a layout of L tables and weight w, adds to
 * column j, straight from seed 000's equation for pair j,
 *     +w at j, -w at its opponent a,
 *     -w/(L-1) at every same-direction pair of the other tables (mo),
 *     +w/(L-1) at every other-direction pair of the other tables (ao),
 * into a dense accumulator with a marker and a list of the rows touched.
 * With g the layout's signs (+1 North-South, -1 East-West) and k = w/(L-1),
 * that is A = sum over layouts of -k g g' + (w + k) sum over its tables of
 * (e_ns - e_ew)(e_ns - e_ew)'. The g g' part depends on the layout's signed
 * pairs only, so consecutive layouts with the same signed pairs (the rounds
 * of a Mitchell: North-South stay, East-West move) form one group whose
 * k add up: the column adds the group's g once, not once per round.
 * Columns go in fixed blocks of RATE_BLOCK_COLS; each block's output is kept
 * by itself (no atomics, no concatenation), so the matrix is the same bit for
 * bit whatever the thread count. Work: sum over groups of (2L)^2 and over
 * tables of 4; memory: 12 bytes per entry of A plus 20 bytes per pair and
 * thread, and 12 per layout.
 */
#include "rate_internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* The dense accumulator: each row's value beside the column that last
 * touched it (one cache line for both). */
typedef struct {
    double value;
    int32_t mark; /* column + 1 */
} slot;

typedef struct {
    slot *acc;
    int32_t *touched;
} accumulator;

static inline void add(accumulator *w, int32_t stamp, uint32_t *count, int32_t i, double x)
{
    slot *s = &w->acc[i];
    if (s->mark != stamp) {
        s->mark = stamp;
        s->value = x;
        w->touched[(*count)++] = i;
    } else {
        s->value += x;
    }
}

/* Groups of consecutive layouts with the same signed pairs: group[l] is the
 * first layout of l's group, and sum_k[first] the sum of w/(L-1) over the
 * group. */
typedef struct {
    uint32_t *group;
    double *sum_k;
} layout_groups;

static int group_layouts(datum_ctx *ctx, const datum_rate_problem *p, layout_groups *g)
{
    size_t nl = p->n_layouts;
    g->group = datum_malloc(ctx, nl ? nl : 1, sizeof *g->group);
    g->sum_k = datum_malloc(ctx, nl ? nl : 1, sizeof *g->sum_k);
    /* Per pair: the group it was last seen in (+1) and its side there. */
    uint32_t *seen = datum_calloc(ctx, (size_t)p->n_pairs + 1, sizeof *seen);
    int8_t *side = datum_malloc(ctx, (size_t)p->n_pairs + 1, sizeof *side);
    int rc = g->group && g->sum_k && seen && side ? DATUM_OK : DATUM_E_NOMEM;
    uint32_t current = 0;
    for (size_t l = 0; rc == DATUM_OK && l < nl; l++) {
        uint64_t first = p->lay_off[l], last = p->lay_off[l + 1];
        double k = p->lay_w[l] / (double)(last - first - 1);
        int same = l > 0 && last - first == p->lay_off[current + 1] - p->lay_off[current];
        for (uint64_t t = first; same && t < last; t++)
            same = seen[p->t_ns[t]] == current + 1 && side[p->t_ns[t]] == 1 &&
                   seen[p->t_ew[t]] == current + 1 && side[p->t_ew[t]] == -1;
        if (same) {
            g->group[l] = current;
            g->sum_k[current] += k;
            continue;
        }
        current = (uint32_t)l;
        g->group[l] = current;
        g->sum_k[current] = k;
        for (uint64_t t = first; t < last; t++) {
            seen[p->t_ns[t]] = seen[p->t_ew[t]] = current + 1;
            side[p->t_ns[t]] = 1;
            side[p->t_ew[t]] = -1;
        }
    }
    datum_free(seen);
    datum_free(side);
    return rc;
}

static void layout_groups_free(layout_groups *g)
{
    datum_free(g->group);
    datum_free(g->sum_k);
}

/* Column j into the accumulator; returns the number of rows touched. Each
 * table adds (w + k) at j and -(w + k) at the opponent; each group that j
 * is in adds -sigma_j K g once (j's tables are in table order, so its
 * layouts of one group are consecutive). */
/* How far ahead column() asks for the tables, then their layouts: a pair's
 * tables are far apart, so each read misses the cache, and the layout's
 * read waits for the table's. */
#define TABLES_AHEAD 16
#define LAYOUTS_AHEAD 8

static uint32_t column(const datum_rate_problem *p, const rate_structure *s,
                       const layout_groups *g, uint32_t j, accumulator *w)
{
    int32_t stamp = (int32_t)j + 1;
    uint32_t count = 0, last_group = UINT32_MAX;
    uint64_t end = s->app_off[j + 1];
    for (uint64_t e = s->app_off[j]; e < end; e++) {
        if (e + TABLES_AHEAD < end) {
            uint32_t ahead = s->app_table[e + TABLES_AHEAD];
            __builtin_prefetch(&s->t_layout[ahead]);
            __builtin_prefetch(&p->t_ns[ahead]);
            __builtin_prefetch(&p->t_ew[ahead]);
        }
        if (e + LAYOUTS_AHEAD < end) {
            uint32_t ahead = s->t_layout[s->app_table[e + LAYOUTS_AHEAD]];
            __builtin_prefetch(&p->lay_off[ahead]);
            __builtin_prefetch(&p->lay_w[ahead]);
            __builtin_prefetch(&g->group[ahead]);
        }
        uint32_t t = s->app_table[e], l = s->t_layout[t];
        uint64_t first = p->lay_off[l], last = p->lay_off[l + 1];
        double wt = p->lay_w[l], k = wt / (double)(last - first - 1);
        int ns_side = (uint32_t)p->t_ns[t] == j;
        add(w, stamp, &count, (int32_t)j, wt + k);
        add(w, stamp, &count, ns_side ? p->t_ew[t] : p->t_ns[t], -(wt + k));
        uint32_t group = g->group[l];
        if (group == last_group) continue;
        last_group = group;
        double c = ns_side ? -g->sum_k[group] : g->sum_k[group];
        for (uint64_t u = p->lay_off[group]; u < p->lay_off[group + 1]; u++) {
            add(w, stamp, &count, p->t_ns[u], c);
            add(w, stamp, &count, p->t_ew[u], -c);
        }
    }
    return count;
}

/* Block b's columns into a->blocks[b]; DATUM_OK or DATUM_E_NOMEM (recorded
 * in ctx; called inside a parallel region). */
static int assemble_block(datum_ctx *ctx, const datum_rate_problem *p, const rate_structure *s,
                          const layout_groups *g, uint32_t b, accumulator *w, rate_block *out,
                          double *colsum)
{
    uint32_t j0 = b * RATE_BLOCK_COLS, j1 = j0 + RATE_BLOCK_COLS;
    if (j1 > s->n) j1 = s->n;
    size_t cap = 0, nnz = 0;
    out->colptr = datum_calloc(ctx, RATE_BLOCK_COLS + 1, sizeof *out->colptr);
    if (!out->colptr) return DATUM_E_NOMEM;
    void *entries[] = {&out->row, &out->val};
    const size_t entry_size[] = {sizeof *out->row, sizeof *out->val};
    for (uint32_t j = j0; j < j1; j++) {
        uint32_t count = column(p, s, g, j, w);
        if (datum_reserve_all(ctx, &cap, nnz + count, 2, entries, entry_size) != DATUM_OK)
            return DATUM_E_NOMEM;
        double sum = 0;
        for (uint32_t e = 0; e < count; e++) {
            int32_t i = w->touched[e];
            out->row[nnz + e] = i;
            out->val[nnz + e] = w->acc[i].value;
            sum += fabs(w->acc[i].value);
        }
        colsum[j - j0] = sum;
        nnz += count;
        out->colptr[j - j0 + 1] = nnz;
    }
    for (uint32_t j = j1; j < j0 + RATE_BLOCK_COLS; j++) out->colptr[j - j0 + 1] = nnz;
    return DATUM_OK;
}

int rate_matrix_assemble(datum_ctx *ctx, const datum_rate_problem *p, const rate_structure *s,
                         rate_matrix *a)
{
    memset(a, 0, sizeof *a);
    a->n = s->n;
    a->n_blocks = (s->n + RATE_BLOCK_COLS - 1) / RATE_BLOCK_COLS;
    int threads = datum_ctx_threads(ctx);
    a->blocks = datum_calloc(ctx, a->n_blocks, sizeof *a->blocks);
    accumulator *work = datum_calloc(ctx, (size_t)threads, sizeof *work);
    double *colsum = datum_calloc(ctx, s->n, sizeof *colsum);
    layout_groups groups = {0};
    int failed = !a->blocks || !work || !colsum || group_layouts(ctx, p, &groups) != DATUM_OK;
    for (int t = 0; t < threads && !failed; t++) {
        work[t].acc = datum_calloc(ctx, s->n + 1, sizeof *work[t].acc); /* marks 0: no column */
        work[t].touched = datum_malloc(ctx, s->n + 1, sizeof *work[t].touched);
        failed = !work[t].acc || !work[t].touched;
    }
    if (!failed) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(| : failed)
        for (uint32_t b = 0; b < a->n_blocks; b++) {
            accumulator *w = &work[omp_get_thread_num()];
            if (assemble_block(ctx, p, s, &groups, b, w, &a->blocks[b],
                               colsum + (size_t)b * RATE_BLOCK_COLS))
                failed = 1;
        }
    }
    for (int t = 0; work && t < threads; t++) {
        datum_free(work[t].acc);
        datum_free(work[t].touched);
    }
    datum_free(work);
    layout_groups_free(&groups);
    if (!failed) {
        for (uint32_t b = 0; b < a->n_blocks; b++) a->nnz += a->blocks[b].colptr[RATE_BLOCK_COLS];
        for (uint32_t j = 0; j < s->n; j++)
            if (colsum[j] > a->norm1) a->norm1 = colsum[j];
    }
    datum_free(colsum);
    if (failed) { /* recorded by the allocator */
        rate_matrix_free(a);
        return DATUM_E_NOMEM;
    }
    return DATUM_OK;
}

void rate_matrix_free(rate_matrix *a)
{
    for (uint32_t b = 0; a->blocks && b < a->n_blocks; b++) {
        datum_free(a->blocks[b].colptr);
        datum_free(a->blocks[b].row);
        datum_free(a->blocks[b].val);
    }
    datum_free(a->blocks);
    memset(a, 0, sizeof *a);
}

void rate_matvec(datum_ctx *ctx, const rate_matrix *a, const uint8_t *mask, const double *x,
                 double *y)
{
    /* A is symmetric: row j of A x is column j's entries against x. */
#pragma omp parallel for num_threads(datum_ctx_threads(ctx)) schedule(static)
    for (uint32_t j = 0; j < a->n; j++) {
        if (mask && !mask[j]) {
            y[j] = 0;
            continue;
        }
        const int32_t *row;
        const double *val;
        uint64_t n = rate_column(a, j, &row, &val);
        double sum = 0;
        for (uint64_t e = 0; e < n; e++) sum += val[e] * x[row[e]];
        y[j] = sum;
    }
}

double rate_dot(size_t n, const double *x, const double *y)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[i] * y[i];
    return sum;
}

double rate_norm(size_t n, const double *x) { return sqrt(rate_dot(n, x, x)); }

/* Block b of scale * a + d into out: each column's rows of a first (in
 * their order), then the rows only d has (in d's order). */
static int add_block(datum_ctx *ctx, const rate_block *old, double scale, const rate_block *add,
                     slot *where, rate_block *out)
{
    uint64_t cap = old->colptr[RATE_BLOCK_COLS] + add->colptr[RATE_BLOCK_COLS];
    out->colptr = datum_calloc(ctx, RATE_BLOCK_COLS + 1, sizeof *out->colptr);
    out->row = datum_malloc(ctx, cap ? cap : 1, sizeof *out->row);
    out->val = datum_malloc(ctx, cap ? cap : 1, sizeof *out->val);
    if (!out->colptr || !out->row || !out->val) return DATUM_E_NOMEM;
    uint64_t nnz = 0;
    for (uint32_t c = 0; c < RATE_BLOCK_COLS; c++) {
        int32_t stamp = (int32_t)c + 1;
        for (uint64_t e = old->colptr[c]; e < old->colptr[c + 1]; e++) {
            where[old->row[e]] = (slot){(double)nnz, stamp};
            out->row[nnz] = old->row[e];
            out->val[nnz++] = scale * old->val[e];
        }
        for (uint64_t e = add->colptr[c]; e < add->colptr[c + 1]; e++) {
            slot *s = &where[add->row[e]];
            if (s->mark == stamp) {
                out->val[(uint64_t)s->value] += add->val[e];
                continue;
            }
            *s = (slot){(double)nnz, stamp};
            out->row[nnz] = add->row[e];
            out->val[nnz++] = add->val[e];
        }
        out->colptr[c + 1] = nnz;
    }
    /* Marks restart at 1 in every block: clear them for the next one. */
    for (uint64_t e = 0; e < nnz; e++) where[out->row[e]].mark = 0;
    return DATUM_OK;
}

int rate_matrix_add(datum_ctx *ctx, rate_matrix *a, double scale, const rate_matrix *d)
{
    if (a->n_blocks == 0) { /* the first: a copy of d, column by column */
        a->n = d->n;
        a->n_blocks = d->n_blocks;
        if (!(a->blocks = datum_calloc(ctx, a->n_blocks ? a->n_blocks : 1, sizeof *a->blocks)))
            return DATUM_E_NOMEM;
        for (uint32_t b = 0; b < a->n_blocks; b++)
            if (!(a->blocks[b].colptr = datum_calloc(ctx, RATE_BLOCK_COLS + 1, sizeof *a->blocks[b].colptr)))
                return DATUM_E_NOMEM;
    }
    int threads = datum_ctx_threads(ctx), failed = 0;
    slot **where = datum_calloc(ctx, (size_t)threads, sizeof *where);
    rate_block *next = datum_calloc(ctx, a->n_blocks ? a->n_blocks : 1, sizeof *next);
    failed = !where || !next;
    for (int t = 0; t < threads && !failed; t++)
        failed = !(where[t] = datum_calloc(ctx, (size_t)a->n + 1, sizeof **where));
    if (!failed) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(| : failed)
        for (uint32_t b = 0; b < a->n_blocks; b++)
            if (add_block(ctx, &a->blocks[b], scale, &d->blocks[b], where[omp_get_thread_num()], &next[b]))
                failed = 1;
    }
    for (int t = 0; where && t < threads; t++) datum_free(where[t]);
    datum_free(where);
    for (uint32_t b = 0; next && b < a->n_blocks; b++) { /* the new blocks, or the old ones kept */
        rate_block *keep = failed ? &next[b] : &a->blocks[b];
        datum_free(keep->colptr);
        datum_free(keep->row);
        datum_free(keep->val);
        if (!failed) a->blocks[b] = next[b];
    }
    datum_free(next);
    if (failed) return DATUM_E_NOMEM;
    a->nnz = 0;
    a->norm1 = 0;
    for (uint32_t j = 0; j < a->n; j++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        double sum = 0;
        for (uint64_t e = 0; e < len; e++) sum += fabs(val[e]);
        if (sum > a->norm1) a->norm1 = sum;
        a->nnz += len;
    }
    return DATUM_OK;
}
