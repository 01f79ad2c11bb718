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
 * A column reads its pair's seats (layout, opponent: a counting sort of the
 * tables by pair, built here in a few passes of bounded size) and
 * one record per layout (its coefficients and its group's members), so that
 * each seat costs one cache miss, not one per array it needs.
 * A is symmetric and stored once: column j keeps its rows i <= j, each
 * with the same bits as when both triangles were stored. A group's members
 * are kept sorted by pair, so a column reads the members at or above its
 * row only and never computes the lower triangle (an opponent below goes
 * to a sink row, not written).
 * Columns go in fixed blocks of RATE_BLOCK_COLS; each block's output is kept
 * by itself (no atomics, no concatenation), so the matrix is the same bit for
 * bit whatever the thread count. Work: sum over groups of about (2L)^2 / 2
 * and over tables of 4; memory: 12 bytes per entry of A's upper triangle
 * plus 28 bytes per pair and thread, 32 per layout, 4 per member of a group
 * and 8 per seat of a pass.
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

/* What a column needs of layout l, in one place (a pair's layouts are far
 * apart: one cache miss for all of it; 32 bytes, so never across two
 * lines): its table coefficient w + w/(L-1), and its group's members and
 * sum of w/(L-1). Groups are runs of consecutive layouts with the same
 * signed pairs. */
typedef struct {
    double coef;
    double group_k;
    uint64_t group_start; /* its group's first member in the members array */
    uint32_t group_len, head;
} layout_info;

/* A group's member: pair << 1, plus 1 when it sits East-West. A group's
 * members are sorted, so that column j reads those at or above its row j
 * only (a prefix) and never the rest, which lie below the diagonal. */
typedef uint32_t member;

/* Layout l's members into g, sorted: each placed at its rank, the count of
 * the layout's members below it (members are distinct: a pair sits at one
 * table of a layout). (2L)^2 comparisons, twice the assembly's own
 * additions for the group, and no branch to mispredict. */
static void sort_members(const datum_rate_problem *p, size_t l, member *g)
{
    uint64_t first = p->lay_off[l], last = p->lay_off[l + 1];
    for (uint64_t t = first; t < last; t++) {
        member ns = (member)p->t_ns[t] << 1, ew = (member)p->t_ew[t] << 1 | 1;
        uint32_t below_ns = 0, below_ew = 0;
        for (uint64_t u = first; u < last; u++) {
            member ns_u = (member)p->t_ns[u] << 1, ew_u = (member)p->t_ew[u] << 1 | 1;
            below_ns += (ns_u < ns) + (ew_u < ns);
            below_ew += (ns_u < ew) + (ew_u < ew);
        }
        g[below_ns] = ns;
        g[below_ew] = ew;
    }
}

/* info[l] for every layout and *members (the groups' sorted members, into
 * which info's group_start points); DATUM_OK or DATUM_E_NOMEM (*members
 * then NULL). */
static int layout_infos(datum_ctx *ctx, const datum_rate_problem *p, layout_info *info,
                        member **members)
{
    size_t nl = p->n_layouts;
    uint64_t n_members = 0;
    *members = NULL;
    /* Per pair: the group it was last seen in (+1) and its side there. */
    uint32_t *seen = datum_calloc(ctx, (size_t)p->n_pairs + 1, sizeof *seen);
    int8_t *side = datum_malloc(ctx, (size_t)p->n_pairs + 1, sizeof *side);
    if (!seen || !side) {
        datum_free(seen);
        datum_free(side);
        return DATUM_E_NOMEM;
    }
    uint32_t current = 0;
    for (size_t l = 0; l < nl; l++) {
        uint64_t first = p->lay_off[l], last = p->lay_off[l + 1];
        double k = p->lay_w[l] / (double)(last - first - 1);
        info[l].coef = p->lay_w[l] + k;
        int same = l > 0 && last - first == p->lay_off[current + 1] - p->lay_off[current];
        for (uint64_t t = first; same && t < last; t++)
            same = seen[p->t_ns[t]] == current + 1 && side[p->t_ns[t]] == 1 &&
                   seen[p->t_ew[t]] == current + 1 && side[p->t_ew[t]] == -1;
        if (same) {
            info[current].group_k += k;
            info[l].head = 0; /* filled below from its group's first */
            continue;
        }
        current = (uint32_t)l;
        info[l].head = 1;
        info[l].group_k = k;
        info[l].group_start = n_members;
        info[l].group_len = (uint32_t)(2 * (last - first));
        n_members += 2 * (last - first);
        for (uint64_t t = first; t < last; t++) {
            seen[p->t_ns[t]] = seen[p->t_ew[t]] = current + 1;
            side[p->t_ns[t]] = 1;
            side[p->t_ew[t]] = -1;
        }
    }
    datum_free(seen);
    datum_free(side);
    *members = datum_malloc(ctx, n_members ? n_members : 1, sizeof **members);
    if (!*members) return DATUM_E_NOMEM;
    /* Every layout of a group gets its first layout's members and sum. */
    for (size_t l = 0, head = 0; l < nl; l++) {
        if (info[l].head) {
            head = l;
            continue;
        }
        info[l].group_start = info[head].group_start;
        info[l].group_len = info[head].group_len;
        info[l].group_k = info[head].group_k;
    }
    member *m = *members;
#pragma omp taskloop grainsize(4096)
    for (size_t l = 0; l < nl; l++) {
        if (info[l].head) sort_members(p, l, m + info[l].group_start);
    }
    return DATUM_OK;
}

/* One seat of a pair, in the pair's table order: the layout, and the
 * opponent (~opponent when the pair sat East-West). */
typedef struct {
    uint32_t layout;
    int32_t other;
} seat;

/* The pairs' seats by ranges of pairs (a counting sort of the tables):
 * count[q][j] is how many seats pair j has among the layouts of range q
 * (ranges: a fixed split of the layouts by thread), turned into where they
 * go for the pairs of the pass. A pair's seats are in table order whatever
 * the split, so the result does not depend on the thread count. */
typedef struct {
    uint32_t n, threads;
    uint64_t *count;        /* threads x (n + 1) */
    uint64_t *off;          /* n + 1: pair j's seats start at off[j] in its pass */
    seat *seats;            /* the largest pass's seats and a spare */
} seats;

/* As many passes as 2^25 seats a pass (8 bytes each: 256 MiB) need, four
 * at most, the seats shared evenly among them: the index takes a bounded
 * memory, and each pass reads every table once more, in order. */
#define SEATS_PER_PASS ((uint64_t)1 << 25)
#define SEAT_PASSES 4

static void layout_range(const datum_rate_problem *p, uint32_t q, uint32_t threads, size_t *l0,
                         size_t *l1)
{
    *l0 = p->n_layouts * q / threads;
    *l1 = p->n_layouts * (q + 1) / threads;
}

/* Pairs j0 .. j1-1's seats into x->seats, x->off[j0 .. j1] from 0. */
static void place_seats(const datum_rate_problem *p, seats *x, uint32_t j0, uint32_t j1)
{
    uint32_t n = x->n, threads = x->threads;
    uint64_t at = 0;
    for (uint32_t j = j0; j < j1; j++) { /* where each range's seats of pair j start */
        x->off[j] = at;
        for (uint32_t q = 0; q < threads; q++) {
            uint64_t *c = &x->count[(size_t)q * (n + 1) + j], k = *c;
            *c = at;
            at += k;
        }
    }
    x->off[j1] = at;
#pragma omp taskloop grainsize(1)
    for (uint32_t q = 0; q < threads; q++) {
        uint64_t *next = x->count + (size_t)q * (n + 1);
        size_t l0, l1;
        layout_range(p, q, threads, &l0, &l1);
        for (size_t l = l0; l < l1; l++)
            for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
                uint32_t ns = (uint32_t)p->t_ns[t], ew = (uint32_t)p->t_ew[t];
                if (ns - j0 < j1 - j0) x->seats[next[ns]++] = (seat){(uint32_t)l, (int32_t)ew};
                if (ew - j0 < j1 - j0) x->seats[next[ew]++] = (seat){(uint32_t)l, ~(int32_t)ns};
            }
    }
}

/* Counts every pair's seats by range; DATUM_OK or DATUM_E_NOMEM. */
static int count_seats(datum_ctx *ctx, const datum_rate_problem *p, seats *x)
{
    uint32_t n = x->n, threads = x->threads;
    x->count = datum_calloc(ctx, (size_t)threads * (n + 1), sizeof *x->count);
    x->off = datum_malloc(ctx, (size_t)n + 1, sizeof *x->off);
    if (!x->count || !x->off) return DATUM_E_NOMEM;
#pragma omp taskloop grainsize(1)
    for (uint32_t q = 0; q < threads; q++) {
        uint64_t *mine = x->count + (size_t)q * (n + 1);
        size_t l0, l1;
        layout_range(p, q, threads, &l0, &l1);
        for (uint64_t t = p->lay_off[l0]; t < p->lay_off[l1]; t++) {
            mine[p->t_ns[t]]++;
            mine[p->t_ew[t]]++;
        }
    }
    return DATUM_OK;
}

static void seats_free(seats *x)
{
    datum_free(x->count);
    datum_free(x->off);
    datum_free(x->seats);
    memset(x, 0, sizeof *x);
}

/* Row n of the accumulator takes the opponents below the diagonal. */
#define SINK_ROWS 1

/* How far ahead column() asks for the layouts of its seats, then for their
 * groups' members (found in the layout's information). */
#define LAYOUTS_AHEAD 16
#define MEMBERS_AHEAD 8

/* Column j's rows i <= j into the accumulator (the diagonal first);
 * returns the number of rows touched (the sink's among them). Each seat
 * adds (w + k) at j and -(w + k) at the opponent; each group that j is in
 * adds -sigma_j K g once (j's seats are in table order, so its layouts of
 * one group are consecutive), over the group's members up to row j. A row
 * gets the same additions in the same order as when the lower triangle was
 * computed too (a pair is in a group once): only the rows' order in the
 * column differs. */
static uint32_t column(const layout_info *info, const member *members, const seats *x, uint32_t j,
                       accumulator *w)
{
    int32_t stamp = (int32_t)j + 1, top = (int32_t)j, sink = (int32_t)x->n;
    uint32_t count = 0;
    member limit = (member)j << 1 | 1;
    uint64_t last_group = UINT64_MAX;
    const seat *at = x->seats + x->off[j], *end = x->seats + x->off[j + 1];
    for (; at < end; at++) {
        if (at + LAYOUTS_AHEAD < end) __builtin_prefetch(&info[at[LAYOUTS_AHEAD].layout]);
        if (at + MEMBERS_AHEAD < end)
            __builtin_prefetch(&members[info[at[MEMBERS_AHEAD].layout].group_start]);
        const layout_info *l = &info[at->layout];
        int ns_side = at->other >= 0;
        int32_t opponent = ns_side ? at->other : ~at->other;
        add(w, stamp, &count, top, l->coef);
        add(w, stamp, &count, opponent <= top ? opponent : sink, -l->coef);
        if (l->group_start == last_group) continue;
        last_group = l->group_start;
        double c = ns_side ? -l->group_k : l->group_k;
        const double by_side[2] = {c, -c}; /* North-South, East-West */
        for (const member *m = members + l->group_start, *m_end = m + l->group_len;
             m < m_end && *m <= limit; m++)
            add(w, stamp, &count, (int32_t)(*m >> 1), by_side[*m & 1]);
    }
    return count;
}

/* Block b's columns into a->blocks[b]; DATUM_OK or DATUM_E_NOMEM (recorded
 * in ctx; called by a task, w the accumulator of the thread that runs it). */
static int assemble_block(datum_ctx *ctx, const layout_info *info, const member *members,
                          const seats *x, uint32_t b, accumulator *w, rate_block *out)
{
    uint32_t j0 = b * RATE_BLOCK_COLS, j1 = j0 + RATE_BLOCK_COLS;
    if (j1 > x->n) j1 = x->n;
    size_t cap = 0, nnz = 0;
    out->colptr = datum_calloc(ctx, RATE_BLOCK_COLS + 1, sizeof *out->colptr);
    if (!out->colptr) return DATUM_E_NOMEM;
    void *entries[] = {&out->row, &out->val};
    const size_t entry_size[] = {sizeof *out->row, sizeof *out->val};
    for (uint32_t j = j0; j < j1; j++) {
        uint32_t count = column(info, members, x, j, w);
        if (datum_reserve_all(ctx, &cap, nnz + count, 2, entries, entry_size) != DATUM_OK)
            return DATUM_E_NOMEM;
        uint64_t kept = nnz;
        for (uint32_t e = 0; e < count; e++) { /* the sink's row (n) left out */
            int32_t i = w->touched[e];
            out->row[kept] = i;
            out->val[kept] = w->acc[i].value;
            kept += i < (int32_t)x->n;
        }
        nnz = kept;
        out->colptr[j - j0 + 1] = nnz;
    }
    for (uint32_t j = j1; j < j0 + RATE_BLOCK_COLS; j++) out->colptr[j - j0 + 1] = nnz;
    return DATUM_OK;
}

/* The end of pass k, which starts at block b0 (*before seats in the
 * passes before it): the block that reaches (k + 1) / passes of all the
 * seats, at least one block. Its seats into *pass_seats, added to *before. */
static uint32_t pass_end(const seats *x, uint32_t n_blocks, uint32_t b0, uint64_t all,
                         uint64_t passes, uint32_t k, uint64_t *before, uint64_t *pass_seats)
{
    uint32_t n = x->n, b1 = b0;
    uint64_t goal = all / passes * (k + 1) + all % passes * (k + 1) / passes, in = 0;
    for (; b1 < n_blocks && (b1 == b0 || *before + in < goal); b1++) {
        uint32_t j1 = (b1 + 1) * RATE_BLOCK_COLS < n ? (b1 + 1) * RATE_BLOCK_COLS : n;
        for (uint32_t j = b1 * RATE_BLOCK_COLS; j < j1; j++)
            for (uint32_t q = 0; q < x->threads; q++) in += x->count[(size_t)q * (n + 1) + j];
    }
    *before += in;
    *pass_seats = in;
    return b1;
}

/* The blocks of columns, pass by pass: each pass places the seats of the
 * next blocks (about an equal share of the seats, at least one block), then
 * assembles them, a task a block. */
static int assemble_passes(datum_ctx *ctx, const datum_rate_problem *p, const layout_info *info,
                           const member *members, seats *x, accumulator *work, rate_matrix *a)
{
    uint32_t n = x->n, threads = x->threads;
    uint64_t all = 0, passes, before = 0, most = 0, pass_seats;
    for (size_t e = 0; e < (size_t)threads * (n + 1); e++) all += x->count[e];
    passes = (all + SEATS_PER_PASS - 1) / SEATS_PER_PASS;
    passes = passes < 1 ? 1 : passes > SEAT_PASSES ? SEAT_PASSES : passes;
    for (uint32_t b0 = 0, k = 0; b0 < a->n_blocks; k++) { /* the largest pass, allocated once */
        b0 = pass_end(x, a->n_blocks, b0, all, passes, k, &before, &pass_seats);
        most = pass_seats > most ? pass_seats : most;
    }
    if (!(x->seats = datum_malloc(ctx, most + 1, sizeof *x->seats))) return DATUM_E_NOMEM;
    before = 0;
    for (uint32_t b0 = 0, b1, k = 0; b0 < a->n_blocks; b0 = b1, k++) {
        b1 = pass_end(x, a->n_blocks, b0, all, passes, k, &before, &pass_seats);
        uint32_t j1 = b1 * RATE_BLOCK_COLS < n ? b1 * RATE_BLOCK_COLS : n;
        place_seats(p, x, b0 * RATE_BLOCK_COLS, j1);
        int failed = 0;
#pragma omp taskloop grainsize(1) shared(failed)
        for (uint32_t b = b0; b < b1; b++) {
            accumulator *w = &work[omp_get_thread_num()]; /* tasks are tied to their thread */
            if (assemble_block(ctx, info, members, x, b, w, &a->blocks[b])) {
#pragma omp atomic write
                failed = 1;
            }
        }
        if (failed) return DATUM_E_NOMEM; /* recorded by the allocator */
    }
    return DATUM_OK;
}

/* nnz, the product's slices (balanced by the entries stored, one more per
 * column) and its scratch, once the columns are filled. DATUM_OK or
 * DATUM_E_NOMEM. */
static int matrix_finish(datum_ctx *ctx, rate_matrix *a)
{
    uint64_t stored = 0, diagonal = 0, total, at = 0;
    for (uint32_t b = 0; b < a->n_blocks; b++) {
        const uint64_t *cp = a->blocks[b].colptr;
        stored += cp[RATE_BLOCK_COLS];
        for (uint32_t c = 0; c < RATE_BLOCK_COLS; c++) diagonal += cp[c + 1] > cp[c];
    }
    a->nnz = 2 * stored - diagonal;
    total = stored + a->n;
    a->slice[0] = 0;
    for (uint32_t j = 0, s = 1; s <= RATE_PRODUCT_SLICES; s++) {
        uint64_t goal = total * s / RATE_PRODUCT_SLICES;
        while (j < a->n && at < goal) {
            const rate_block *k = &a->blocks[j / RATE_BLOCK_COLS];
            uint32_t c = j % RATE_BLOCK_COLS;
            at += k->colptr[c + 1] - k->colptr[c] + 1;
            j++;
        }
        a->slice[s] = s == RATE_PRODUCT_SLICES ? a->n : j;
    }
    if (!a->partial)
        a->partial = datum_malloc(ctx, (size_t)RATE_PRODUCT_SLICES * (a->n ? a->n : 1),
                                  sizeof *a->partial);
    return a->partial ? DATUM_OK : DATUM_E_NOMEM;
}

/* The assembly's steps in order, by the thread of a single construct;
 * their loops are tasks that the team's other threads take when free.
 * DATUM_OK or DATUM_E_NOMEM. */
static int assemble_steps(datum_ctx *ctx, const datum_rate_problem *p, rate_matrix *a,
                          layout_info *info, member **members, seats *x, accumulator *work)
{
    int rc = layout_infos(ctx, p, info, members);
    if (rc == DATUM_OK) rc = count_seats(ctx, p, x);
    for (uint32_t t = 0; t < x->threads && rc == DATUM_OK; t++) {
        work[t].acc = datum_calloc(ctx, a->n + SINK_ROWS, sizeof *work[t].acc); /* marks 0: no column */
        work[t].touched = datum_malloc(ctx, a->n + SINK_ROWS, sizeof *work[t].touched);
        if (!work[t].acc || !work[t].touched) rc = DATUM_E_NOMEM;
    }
    if (rc == DATUM_OK && a->n_blocks > 0) rc = assemble_passes(ctx, p, info, *members, x, work, a);
    return rc;
}

int rate_matrix_assemble_beside(datum_ctx *ctx, const datum_rate_problem *p, rate_matrix *a,
                                const rate_side_job *job)
{
    uint32_t n = p->n_pairs;
    memset(a, 0, sizeof *a);
    a->n = n;
    a->n_blocks = (n + RATE_BLOCK_COLS - 1) / RATE_BLOCK_COLS;
    int threads = datum_ctx_threads(ctx), job_rc = DATUM_OK;
    a->blocks = datum_calloc(ctx, a->n_blocks ? a->n_blocks : 1, sizeof *a->blocks);
    accumulator *work = datum_calloc(ctx, (size_t)threads, sizeof *work);
    layout_info *info = datum_malloc(ctx, p->n_layouts + 1, sizeof *info);
    member *members = NULL;
    seats x = {.n = n, .threads = (uint32_t)threads};
    int rc = a->blocks && work && info ? DATUM_OK : DATUM_E_NOMEM;
    /* The job is a task of its own from the start: a thread takes it while
     * another begins the assembly, whose tasks the job's thread joins once
     * done (the serial steps of each overlap with the other). */
#pragma omp parallel num_threads(threads)
#pragma omp single
    {
        if (job) {
#pragma omp task shared(job_rc)
            job_rc = job->run(ctx, job->arg);
        }
        if (rc == DATUM_OK) rc = assemble_steps(ctx, p, a, info, &members, &x, work);
    }
    if (rc == DATUM_OK && job_rc != DATUM_OK) rc = job_rc;
    for (int t = 0; work && t < threads; t++) {
        datum_free(work[t].acc);
        datum_free(work[t].touched);
    }
    datum_free(work);
    datum_free(info);
    datum_free(members);
    seats_free(&x);
    if (rc == DATUM_OK) rc = matrix_finish(ctx, a);
    if (rc != DATUM_OK) rate_matrix_free(a);
    return rc;
}

int rate_matrix_assemble(datum_ctx *ctx, const datum_rate_problem *p, rate_matrix *a)
{
    return rate_matrix_assemble_beside(ctx, p, a, NULL);
}

void rate_matrix_free(rate_matrix *a)
{
    for (uint32_t b = 0; a->blocks && b < a->n_blocks; b++) {
        datum_free(a->blocks[b].colptr);
        datum_free(a->blocks[b].row);
        datum_free(a->blocks[b].val);
    }
    datum_free(a->blocks);
    datum_free(a->partial);
    memset(a, 0, sizeof *a);
}

void rate_matvec(datum_ctx *ctx, const rate_matrix *a, const uint8_t *mask, const double *x,
                 double *y)
{
    uint32_t n = a->n;
#pragma omp parallel num_threads(datum_ctx_threads(ctx))
    {
        /* Slice s: its columns' sums into part[j], the products of their
         * entries above the diagonal into part[i], i < j; part covers the
         * rows up to the slice's last column. */
#pragma omp for schedule(dynamic, 1)
        for (int s = 0; s < RATE_PRODUCT_SLICES; s++) {
            uint32_t j1 = a->slice[s + 1];
            double *part = a->partial + (size_t)s * n;
            memset(part, 0, j1 * sizeof *part);
            for (uint32_t j = a->slice[s]; j < j1; j++) {
                if (mask && !mask[j]) continue; /* x_j = 0 */
                const int32_t *row;
                const double *val;
                uint64_t len = rate_column(a, j, &row, &val);
                if (len == 0) continue;
                /* Four running sums: one would chain every addition (its
                 * latency, not memory, would bound the product). */
                double xj = x[j], s0 = val[0] * xj, s1 = 0, s2 = 0, s3 = 0; /* the diagonal */
                uint64_t e = 1;
                for (; e + 4 <= len; e += 4) {
                    int32_t i0 = row[e], i1 = row[e + 1], i2 = row[e + 2], i3 = row[e + 3];
                    s0 += val[e] * x[i0];
                    s1 += val[e + 1] * x[i1];
                    s2 += val[e + 2] * x[i2];
                    s3 += val[e + 3] * x[i3];
                    part[i0] += val[e] * xj;
                    part[i1] += val[e + 1] * xj;
                    part[i2] += val[e + 2] * xj;
                    part[i3] += val[e + 3] * xj;
                }
                for (; e < len; e++) {
                    s0 += val[e] * x[row[e]];
                    part[row[e]] += val[e] * xj;
                }
                part[j] += (s0 + s1) + (s2 + s3);
            }
        }
        /* y_i: the slices that reach row i, in order (the first holds its
         * column). */
#pragma omp for schedule(static)
        for (int s = 0; s < RATE_PRODUCT_SLICES; s++)
            for (uint32_t i = a->slice[s]; i < a->slice[s + 1]; i++) {
                if (mask && !mask[i]) {
                    y[i] = 0;
                    continue;
                }
                double sum = a->partial[(size_t)s * n + i];
                for (int t = s + 1; t < RATE_PRODUCT_SLICES; t++) sum += a->partial[(size_t)t * n + i];
                y[i] = sum;
            }
    }
}

double rate_matrix_norm1(const rate_matrix *a)
{
    double *colsum = a->partial, norm = 0;
    if (a->n == 0) return 0;
    memset(colsum, 0, a->n * sizeof *colsum);
    for (uint32_t j = 0; j < a->n; j++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        for (uint64_t e = 0; e < len; e++) {
            colsum[j] += fabs(val[e]);
            if ((uint32_t)row[e] != j) colsum[row[e]] += fabs(val[e]);
        }
    }
    for (uint32_t j = 0; j < a->n; j++)
        if (colsum[j] > norm) norm = colsum[j];
    return norm;
}

void rate_matrix_rows_times(const rate_matrix *a, const uint8_t *rows, const double *z, int k,
                            int stride, double *out)
{
    for (uint32_t j = 0; j < a->n; j++)
        if (rows[j])
            for (int b = 0; b < k; b++) out[(size_t)j * stride + b] = 0;
    for (uint32_t j = 0; j < a->n; j++) {
        const int32_t *row;
        const double *val;
        uint64_t len = rate_column(a, j, &row, &val);
        double *oj = out + (size_t)j * stride;
        const double *zj = z + (size_t)j * stride;
        for (uint64_t e = 0; e < len; e++) {
            uint32_t i = (uint32_t)row[e];
            if (rows[j]) /* a_ij z_i into row j */
                for (int b = 0; b < k; b++) oj[b] += val[e] * z[(size_t)i * stride + b];
            if (i != j && rows[i]) /* a_ji z_j into row i */
                for (int b = 0; b < k; b++) out[(size_t)i * stride + b] += val[e] * zj[b];
        }
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
    if (!a->partial && !(a->partial = datum_malloc(ctx, (size_t)RATE_PRODUCT_SLICES * (d->n ? d->n : 1),
                                                   sizeof *a->partial)))
        return DATUM_E_NOMEM;
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
    return matrix_finish(ctx, a);
}
