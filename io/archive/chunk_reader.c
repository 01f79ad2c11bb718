/*
 * chunk_reader.c - reads an archive's fields in order, in chunks of whole
 * fields, only the columns asked for. Every value is range-checked before it
 * reaches the engine: a damaged archive gives an error, never an index out of
 * bounds downstream.
 */
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(DATUM_COL_TABLE == 1u << IO_R_TABLE && DATUM_COL_NS_SCORE == 1u << IO_R_NS_SCORE &&
                   DATUM_COL_ADJUSTED == 1u << IO_R_ADJUSTED && DATUM_COL_DATE == 1u << IO_R_DATE &&
                   DATUM_COL_NS_TEAM == 1u << IO_R_NS_TEAM && DATUM_COL_MATCH == 1u << IO_R_MATCH &&
                   DATUM_COL_PUBLISHED_NS == 1u << IO_R_PUBLISHED_NS &&
                   DATUM_COL_PUBLISHED_METHOD == 1u << IO_R_PUBLISHED_METHOD &&
                   DATUM_COL_PUBLISHED_NS_PERCENT == 1u << IO_R_PUBLISHED_NS_PERCENT &&
                   DATUM_COL_PUBLISHED_EW_PERCENT == 1u << IO_R_PUBLISHED_EW_PERCENT &&
                   DATUM_COL_ALL == (1u << IO_N_RESULT_COLS) - 1,
               "a /results column's number is its DATUM_COL_* bit");

/* A growable array of one column. */
typedef struct {
    void *data;
    size_t cap;
} column_buf;

/* The windows of one column: one per part of the archive (each part's
 * chunks are decoded apart). */
typedef io_window *part_windows;

struct datum_chunk_reader {
    datum_ctx *ctx;
    datum_archive *a;
    unsigned columns;
    size_t max_rows;
    int whole_events; /* chunks of whole events (datum_chunk_reader_set_whole_events) */
    uint64_t next_field, end_field; /* the fields read: next_field .. end_field - 1 */
    uint64_t *win; /* win[i] = archive offset[win_first + i] */
    uint64_t win_first, win_len, win_cap;
    uint64_t *offset; /* the chunk's offsets, from 0 */
    size_t offset_cap;
    column_buf field[IO_N_FIELD_COLS]; /* all but the offsets */
    column_buf row[IO_N_RESULT_COLS];
    part_windows offset_win;
    part_windows field_win[IO_N_FIELD_COLS];
    part_windows row_win[IO_N_RESULT_COLS];
    column_buf ahead;   /* whole events: the events of the fields read ahead */
    part_windows ahead_win;
    /* The deal sets of a part that records none, in an archive whose other
     * parts do: the sections and boards of an event (deal_sets_of). */
    column_buf event_section, event_board;
    part_windows section_win, board_win;
};

static int64_t kind_value(int kind, const void *buf, size_t i)
{
    switch (kind) {
    case IO_KIND_U8: return ((const uint8_t *)buf)[i];
    case IO_KIND_U32: return ((const uint32_t *)buf)[i];
    default: return ((const int32_t *)buf)[i];
    }
}

/* Reads elements first..first+n-1 of a column of part q into out and checks
 * them against the part's bounds; then turns its dictionary indices into
 * the archive's. */
static int read_piece(datum_chunk_reader *r, const io_part *q, hid_t ds, const io_dataset_desc *d,
                      const io_value_rule *rule, uint64_t first, size_t n, void *out,
                      io_window *w)
{
    int64_t lo = rule->lo;
    int64_t hi = rule->dict >= 0 ? (int64_t)q->dict_len[rule->dict] - 1 : rule->hi;
    int64_t seen_lo, seen_hi;
    int threads = n >= IO_PARALLEL_MIN_ELEMENTS ? datum_ctx_threads(r->ctx) : 1;
    int rc = io_window_read(r->ctx, w, ds, rule->kind, first, n, out, datum_ctx_threads(r->ctx),
                            &seen_lo, &seen_hi);
    if (rc == DATUM_E_NOMEM) return rc;
    if (rc != DATUM_OK)
        return io_part_damaged(r->ctx, q, "cannot read %s, elements %llu to %llu", d->path,
                               (unsigned long long)first, (unsigned long long)(first + n - 1));
    if (rule->kind == IO_KIND_F64) return DATUM_OK; /* reals index nothing: nothing to check */
    if (seen_lo < lo || seen_hi > hi) {
        /* The first value out of range, whatever the thread count. */
        int64_t bad = (int64_t)n;
#pragma omp parallel for num_threads(threads) reduction(min : bad)
        for (int64_t i = 0; i < (int64_t)n; i++) {
            int64_t v = kind_value(rule->kind, out, (size_t)i);
            if ((v < lo || v > hi) && i < bad) bad = i;
        }
        if (bad < (int64_t)n)
            return io_part_damaged(r->ctx, q, "%s[%llu] = %lld is out of range (%lld to %lld)",
                                   d->path, (unsigned long long)(first + (uint64_t)bad),
                                   (long long)kind_value(rule->kind, out, (size_t)bad),
                                   (long long)lo, (long long)hi);
    }
    /* Serial: a gather from a table in cache costs less than waking the
     * threads, once per piece, on a busy machine. */
    const uint32_t *remap = rule->dict >= 0 ? q->remap[rule->dict] : NULL;
    if (!remap) return DATUM_OK;
    if (rule->kind == IO_KIND_U32) {
        uint32_t *v = out;
        for (size_t i = 0; i < n; i++) v[i] = remap[v[i]];
    } else { /* int32: the teams columns' -1 stays */
        int32_t *v = out;
        for (size_t i = 0; i < n; i++) v[i] = v[i] < 0 ? v[i] : (int32_t)remap[v[i]];
    }
    return DATUM_OK;
}

/* A /results column that part q lacks and the archive has: what a single
 * import gives the rows of a file without it (no adjusted result, no teams
 * match, nothing published). */
static void fill_absent(int c, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) switch (io_result_rules[c].kind) {
        case IO_KIND_F64: ((double *)out)[i] = NAN; break;
        case IO_KIND_U8: ((uint8_t *)out)[i] = 0; break;
        default: ((int32_t *)out)[i] = -1; /* the teams columns */
        }
}

static int read_column(datum_chunk_reader *r, int by_row, int c, uint64_t first, size_t n,
                       column_buf *b, part_windows w);

/* The deal sets that a single import gives the fields out[0..n) of a part
 * that records none (their deals are not known: each board of an event is
 * one deal, whose set is the first section that played it), those fields
 * being the chunk's from `at` on, whose events r->field[IO_F_EVENT] holds. */
static int deal_sets_of(datum_chunk_reader *r, size_t at, size_t n, uint32_t *out)
{
    const uint32_t *event = r->field[IO_F_EVENT].data;
    const datum_archive *a = r->a;
    int rc = DATUM_OK;
    for (size_t i = 0, j; i < n && rc == DATUM_OK; i = j) {
        const io_event_span *s = &a->events[event[at + i]];
        for (j = i + 1; j < n && event[at + j] == event[at + i];) j++;
        /* The event's fields, read in the archive's numbering. */
        const io_part *q = &a->parts[s->part];
        size_t len = (size_t)(s->end - s->first);
        io_window *sw = &r->section_win[s->part], *bw = &r->board_win[s->part];
        if (datum_reserve(r->ctx, &r->event_section.data, &r->event_section.cap, len, 4) ||
            datum_reserve(r->ctx, &r->event_board.data, &r->event_board.cap, len, 4))
            return DATUM_E_NOMEM;
        rc = read_piece(r, q, q->fields[IO_F_SECTION], &io_field_cols[IO_F_SECTION],
                        &io_field_rules[IO_F_SECTION], s->first, len, r->event_section.data, sw);
        if (rc == DATUM_OK)
            rc = read_piece(r, q, q->fields[IO_F_BOARD], &io_field_cols[IO_F_BOARD],
                            &io_field_rules[IO_F_BOARD], s->first, len, r->event_board.data, bw);
        const uint32_t *section = r->event_section.data;
        const int32_t *board = r->event_board.data, *mine = r->field[IO_F_BOARD].data;
        for (size_t f = i; f < j && rc == DATUM_OK; f++) {
            size_t g = 0; /* sorted by section, then board: the first is the least section */
            while (g < len && board[g] != mine[at + f]) g++;
            out[f] = g < len ? section[g] : 0;
        }
    }
    return rc;
}

/* Reads elements first..first+n-1 of the archive's /fields (by_row == 0)
 * or /results column c into b, piece by piece from the parts that hold
 * them (w: the column's windows, one per part). */
static int read_column(datum_chunk_reader *r, int by_row, int c, uint64_t first, size_t n,
                       column_buf *b, part_windows w)
{
    const datum_archive *a = r->a;
    const io_value_rule *rule = by_row ? &io_result_rules[c] : &io_field_rules[c];
    const io_dataset_desc *d = by_row ? &io_result_cols[c] : &io_field_cols[c];
    size_t size = io_kind_size(rule->kind), done = 0;
    if (datum_reserve(r->ctx, &b->data, &b->cap, n, size) != DATUM_OK) return DATUM_E_NOMEM;
    int rc = DATUM_OK;
    for (size_t k = n ? io_run_find(a, by_row, first) : 0; done < n && rc == DATUM_OK; k++) {
        const io_run *run = &a->runs[k];
        uint64_t start = by_row ? run->row : run->field, len = by_row ? run->n_rows : run->n_fields;
        uint64_t pos = first + done;
        size_t take = (size_t)(start + len - pos < n - done ? start + len - pos : n - done);
        const io_part *q = &a->parts[run->part];
        uint64_t local = (by_row ? run->part_row : run->part_field) + (pos - start);
        void *out = (unsigned char *)b->data + done * size;
        hid_t ds = by_row ? q->results[c] : q->fields[c];
        if (ds >= 0) rc = read_piece(r, q, ds, d, rule, local, take, out, &w[run->part]);
        else if (by_row) fill_absent(c, take, out);
        else rc = deal_sets_of(r, done, take, out); /* the one optional field column */
        done += take;
    }
    return rc;
}

int datum_chunk_reader_create(datum_ctx *ctx, datum_archive *a, unsigned columns, size_t max_rows,
                              datum_chunk_reader **out)
{
    datum_chunk_reader *r = NULL;
    *out = NULL;
    if (max_rows < 1) return datum_ctx_fail(ctx, DATUM_E_ARG, "max_rows must be at least 1");
    if (columns & ~(unsigned)DATUM_COL_ALL)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "unknown column bits 0x%x",
                              columns & ~(unsigned)DATUM_COL_ALL);
    if (!(r = datum_calloc(ctx, 1, sizeof *r))) return DATUM_E_NOMEM;
    r->ctx = ctx;
    r->a = a;
    r->columns = columns;
    r->max_rows = max_rows;
    r->end_field = a->info.n_fields;
    /* A chunk has at most max_rows fields: it needs max_rows + 1 offsets. */
    r->win_cap = (a->info.n_fields < max_rows ? a->info.n_fields : max_rows) + 1;
    /* ... and so do the chunk's own offsets: both are allocated once. */
    r->offset_cap = r->win_cap;
    r->win = datum_calloc(ctx, r->win_cap, sizeof *r->win);
    r->offset = r->win ? datum_calloc(ctx, r->offset_cap, sizeof *r->offset) : NULL;
    part_windows *all[] = {&r->offset_win, &r->ahead_win, &r->section_win, &r->board_win};
    int ok = r->offset != NULL;
    for (size_t k = 0; ok && k < sizeof all / sizeof *all; k++)
        ok = (*all[k] = datum_calloc(ctx, a->n_parts, sizeof **all[k])) != NULL;
    for (int c = 0; ok && c < IO_N_FIELD_COLS; c++)
        ok = (r->field_win[c] = datum_calloc(ctx, a->n_parts, sizeof *r->field_win[c])) != NULL;
    for (int c = 0; ok && c < IO_N_RESULT_COLS; c++)
        ok = (r->row_win[c] = datum_calloc(ctx, a->n_parts, sizeof *r->row_win[c])) != NULL;
    *out = r;
    if (!ok) datum_chunk_reader_free(out);
    return ok ? DATUM_OK : DATUM_E_NOMEM;
}

/* The archive's offsets of fields f0 .. f0+len-1 into out, from the parts'
 * (offset[n_fields] is n_results). */
static int read_offsets(datum_chunk_reader *r, uint64_t f0, size_t len, uint64_t *out)
{
    const datum_archive *a = r->a;
    uint64_t n_fields = a->info.n_fields;
    size_t done = 0;
    for (size_t k = f0 < n_fields ? io_run_find(a, 0, f0) : 0; done < len; k++) {
        uint64_t pos = f0 + done;
        if (pos >= n_fields) { /* the end */
            out[done++] = a->info.n_results;
            continue;
        }
        const io_run *run = &a->runs[k];
        const io_part *q = &a->parts[run->part];
        size_t take = (size_t)(run->field + run->n_fields - pos < len - done
                                   ? run->field + run->n_fields - pos : len - done);
        uint64_t local = run->part_field + (pos - run->field), *v = out + done;
        int64_t lo, hi; /* the offsets' order is checked by the caller */
        int rc = io_window_read(r->ctx, &r->offset_win[run->part], q->fields[IO_F_OFFSET],
                                IO_KIND_U64, local, take, v, datum_ctx_threads(r->ctx), &lo, &hi);
        if (rc == DATUM_E_NOMEM) return rc;
        if (rc != DATUM_OK)
            return io_part_damaged(r->ctx, q, "cannot read %s from element %llu",
                                   io_field_cols[IO_F_OFFSET].path, (unsigned long long)local);
        /* Checked without a branch a value, the run's bounds in locals (the
         * stores to v might alias them otherwise): a serial loop over every
         * field of the archive, on one thread while the others wait. */
        uint64_t part_row = run->part_row, n_rows = run->n_rows, row = run->row, bad = 0;
        for (size_t i = 0; i < take; i++) {
            bad |= (uint64_t)(v[i] - part_row > n_rows); /* v[i] < part_row wraps past it */
            v[i] = row + (v[i] - part_row);
        }
        for (size_t i = 0; bad && i < take; i++) /* the first one out of range, as read */
            if (v[i] - row > n_rows)
                return io_part_damaged(r->ctx, q, "%s[%llu] is out of range (checked at open: "
                                       "the file has changed since)",
                                       io_field_cols[IO_F_OFFSET].path,
                                       (unsigned long long)(local + i));
        done += take;
    }
    return DATUM_OK;
}

/* Archive offset[i], for f0 <= i <= f0 + max_rows; the window of offsets
 * is refilled from f0 when i passes its end. */
static int offset_at(datum_chunk_reader *r, uint64_t f0, uint64_t i, uint64_t *v)
{
    if (i < r->win_first || i >= r->win_first + r->win_len) {
        uint64_t left = r->a->info.n_fields + 1 - f0;
        r->win_first = f0;
        r->win_len = left < r->win_cap ? left : r->win_cap;
        int rc = read_offsets(r, f0, (size_t)r->win_len, r->win);
        if (rc != DATUM_OK) {
            r->win_len = 0;
            return rc;
        }
    }
    *v = r->win[i - r->win_first];
    return DATUM_OK;
}

/* Archive offset[f0 + i] into *end, checked not to come before prev. */
static int next_offset(datum_chunk_reader *r, uint64_t f0, uint64_t i, uint64_t prev, uint64_t *end)
{
    int rc = offset_at(r, f0, f0 + i, end);
    if (rc == DATUM_OK && *end < prev) /* checked at open; the file may have changed since */
        return io_archive_damaged(r->ctx, r->a, "%s decreases at element %llu",
                                  io_field_cols[IO_F_OFFSET].path, (unsigned long long)(f0 + i));
    return rc;
}

/* chunk_extent's common case, when the window holds every offset it needs
 * and they are in order there: the chunk's end found by bisection, the
 * order checked and the offsets copied in loops without branches (field by
 * field, this was a serial part of every chunk: about 2 % of a 2-thread
 * matchpoints run, the other threads waiting). 1 when done, 0 when
 * chunk_extent must look field by field (the same chunk, or the same error). */
static int extent_in_window(datum_chunk_reader *r, uint64_t f0, uint64_t row0, size_t *k)
{
    /* Indices into the window: w[i] is the archive's offset[win_first + i]. */
    const uint64_t *w = r->win;
    uint64_t lim = r->end_field - f0 < r->max_rows ? r->end_field : f0 + r->max_rows;
    if (f0 < r->win_first || f0 - r->win_first >= r->win_len || lim <= f0) return 0;
    uint64_t s = f0 - r->win_first, end = lim - r->win_first, held = r->win_len;
    /* The first end past max_rows from field f0 + 1 on (bisection, assuming order). */
    uint64_t lo = s + 2, hi = end < held ? end + 1 : held; /* candidates [lo, hi) */
    uint64_t first = lo, count = hi > lo ? hi - lo : 0;
    while (count > 0) {
        uint64_t half = count / 2;
        if (w[first + half] - row0 <= r->max_rows) first += half + 1, count -= half + 1;
        else count = half;
    }
    uint64_t last; /* the last offset the chunk uses */
    if (first < hi) last = first - 1; /* field first - s - 1 ends past max_rows */
    else if (end < held) last = end;  /* the range or max_rows ends the chunk */
    else return 0;                    /* the window ends first */
    /* In order up to the cut (and the end past it, which the loop reads). */
    uint64_t stop = first < hi ? first : last, bad = 0;
    for (uint64_t i = s + 1; i <= stop; i++) bad |= (uint64_t)(w[i] < w[i - 1]);
    if (bad || w[s] != row0 || (last > s + 1 && w[last] - row0 > r->max_rows) ||
        (first < hi && w[first] - row0 <= r->max_rows))
        return 0;
    for (uint64_t i = s; i <= last; i++) r->offset[i - s] = w[i] - row0;
    *k = (size_t)(last - s);
    return 1;
}

/* Fields f0..f0+*k-1 of at most max_rows rows in all (at least one field),
 * starting at row *row0; their offsets, from 0, into r->offset. */
static int chunk_extent(datum_chunk_reader *r, uint64_t f0, size_t *k, uint64_t *row0)
{
    uint64_t n_fields = r->end_field, prev, end = 0;
    int rc = offset_at(r, f0, f0, row0);
    *k = 0;
    if (rc != DATUM_OK) return rc;
    if (extent_in_window(r, f0, *row0, k)) return DATUM_OK;
    for (prev = *row0; f0 + *k < n_fields && *k < r->max_rows; prev = end) {
        uint64_t i = f0 + *k + 1;
        if (i >= r->win_first && i - r->win_first < r->win_len && r->win[i - r->win_first] >= prev)
            end = r->win[i - r->win_first]; /* in the window and in order: the common case */
        else if ((rc = next_offset(r, f0, *k + 1, prev, &end)) != DATUM_OK)
            return rc;
        if (*k > 0 && end - *row0 > r->max_rows) break;
        r->offset[++*k] = end - *row0; /* *k < offset_cap: see create */
    }
    r->offset[0] = 0;
    return DATUM_OK;
}

/* The events of fields first..first+n-1 into r->ahead (checked). */
static int events_ahead(datum_chunk_reader *r, uint64_t first, size_t n)
{
    return read_column(r, 0, IO_F_EVENT, first, n, &r->ahead, r->ahead_win);
}

/* Whole events: the *k fields from f0 that chunk_extent chose are cut back
 * to the end of the chunk's last complete event, or, when a single event
 * fills the chunk and goes on, grown to that event's end. */
static int whole_events(datum_chunk_reader *r, uint64_t f0, size_t *k, uint64_t row0)
{
    enum { BATCH = 1 << 16 }; /* events looked at per read, when growing */
    uint64_t n_fields = r->end_field;
    if (f0 + *k >= n_fields) return DATUM_OK; /* the range's last event ends the chunk */
    int rc = events_ahead(r, f0, *k + 1);
    if (rc != DATUM_OK) return rc;
    const uint32_t *ev = r->ahead.data;
    size_t j = *k;
    while (j > 0 && ev[j] == ev[j - 1]) j--;
    if (j > 0) { /* field f0 + j begins an event: r->offset[0..j] hold the chunk */
        *k = j;
        return DATUM_OK;
    }
    uint32_t event = ev[0];
    size_t end = *k + 1; /* fields of the event: at least f0 .. f0 + *k */
    while (f0 + end < n_fields) {
        size_t n = n_fields - (f0 + end) < BATCH ? (size_t)(n_fields - (f0 + end)) : BATCH, i = 0;
        if ((rc = events_ahead(r, f0 + end, n)) != DATUM_OK) return rc;
        for (ev = r->ahead.data; i < n && ev[i] == event;) i++;
        end += i;
        if (i < n) break;
    }
    /* The offsets of fields f0 .. f0 + end: the windows grow to hold them. */
    size_t cap = r->offset_cap;
    void *const arrays[] = {&r->win, &r->offset};
    const size_t sizes[] = {sizeof *r->win, sizeof *r->offset};
    if ((rc = datum_reserve_all(r->ctx, &cap, end + 1, 2, arrays, sizes)) != DATUM_OK) return rc;
    r->offset_cap = cap;
    r->win_cap = cap;
    for (size_t i = *k + 1; i <= end; i++) {
        uint64_t v;
        if ((rc = next_offset(r, f0, i, row0 + r->offset[i - 1], &v)) != DATUM_OK) return rc;
        r->offset[i] = v - row0;
    }
    *k = end;
    return DATUM_OK;
}

int datum_chunk_reader_set_range(datum_chunk_reader *r, uint64_t first_field, uint64_t end_field)
{
    if (first_field > end_field || end_field > r->a->info.n_fields)
        return datum_ctx_fail(r->ctx, DATUM_E_ARG, "fields %llu to %llu are not a range of the "
                              "archive's %llu", (unsigned long long)first_field,
                              (unsigned long long)end_field, (unsigned long long)r->a->info.n_fields);
    r->next_field = first_field;
    r->end_field = end_field;
    return DATUM_OK;
}

int datum_chunk_reader_set_whole_events(datum_chunk_reader *r, int whole_events)
{
    r->whole_events = whole_events != 0;
    return DATUM_OK;
}

/* A /results column asked for and present in the archive. */
static int wanted(const datum_chunk_reader *r, int c)
{
    const datum_archive_info *i = &r->a->info;
    return (r->columns & (1u << c)) &&
           io_has_result_col(c, i->has_adjusted, i->has_teams, i->has_published,
                             i->has_published_percent);
}

int datum_chunk_reader_next(datum_chunk_reader *r, datum_chunk *chunk)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    datum_archive *a = r->a;
    uint64_t f0 = r->next_field, row0 = 0;
    size_t k = 0;
    int rc = DATUM_OK;
    memset(chunk, 0, sizeof *chunk);
    if (f0 >= r->end_field) return DATUM_OK;
    if ((rc = chunk_extent(r, f0, &k, &row0)) != DATUM_OK) return rc;
    if (r->whole_events && (rc = whole_events(r, f0, &k, row0)) != DATUM_OK) return rc;
    size_t n_rows = (size_t)r->offset[k];
    /* In column order: the deal sets that a part lacks are made from the
     * events and boards read before them. */
    for (int c = 0; c < IO_N_FIELD_COLS && rc == DATUM_OK; c++)
        if (c != IO_F_OFFSET && io_has_field_col(c, a->info.has_deal_sets))
            rc = read_column(r, 0, c, f0, k, &r->field[c], r->field_win[c]);
    for (int c = 0; c < IO_N_RESULT_COLS && rc == DATUM_OK; c++)
        if (wanted(r, c)) rc = read_column(r, 1, c, row0, n_rows, &r->row[c], r->row_win[c]);
    if (rc != DATUM_OK) return rc;

    const void *row[IO_N_RESULT_COLS] = {0};
    for (int c = 0; c < IO_N_RESULT_COLS; c++)
        if (wanted(r, c)) row[c] = r->row[c].data;
    chunk->first_field = f0;
    chunk->n_fields = k;
    chunk->first_row = row0;
    chunk->n_rows = n_rows;
    chunk->offset = r->offset;
    chunk->field_event = r->field[IO_F_EVENT].data;
    chunk->field_section = r->field[IO_F_SECTION].data;
    chunk->field_board = r->field[IO_F_BOARD].data;
    chunk->field_date = r->field[IO_F_DATE].data;
    chunk->field_deal_set = a->info.has_deal_sets ? r->field[IO_F_DEAL_SET].data : NULL;
#define SET_MEMBER(column, member) chunk->member = row[column];
    IO_RESULT_MEMBERS(SET_MEMBER)
#undef SET_MEMBER
    r->next_field = f0 + k;
    return DATUM_OK;
}

/* Frees the windows of a column, one per part. */
static void free_windows(part_windows w, uint32_t n_parts)
{
    for (uint32_t p = 0; w && p < n_parts; p++) io_window_free(&w[p]);
    datum_free(w);
}

void datum_chunk_reader_free(datum_chunk_reader **pr)
{
    if (!pr || !*pr) return;
    datum_chunk_reader *r = *pr;
    uint32_t n = r->a->n_parts;
    for (int c = 0; c < IO_N_FIELD_COLS; c++) {
        datum_free(r->field[c].data);
        free_windows(r->field_win[c], n);
    }
    for (int c = 0; c < IO_N_RESULT_COLS; c++) {
        datum_free(r->row[c].data);
        free_windows(r->row_win[c], n);
    }
    column_buf *bufs[] = {&r->ahead, &r->event_section, &r->event_board};
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++) datum_free(bufs[k]->data);
    part_windows wins[] = {r->ahead_win, r->offset_win, r->section_win, r->board_win};
    for (size_t k = 0; k < sizeof wins / sizeof *wins; k++) free_windows(wins[k], n);
    datum_free(r->offset);
    datum_free(r->win);
    datum_free(r);
    *pr = NULL;
}
