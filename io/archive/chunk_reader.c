/*
 * chunk_reader.c - reads an archive's fields in order, in chunks of whole
 * fields, only the columns asked for. Every value is range-checked before it
 * reaches the engine: a damaged archive gives an error, never an index out of
 * bounds downstream.
 */
#include "io_internal.h"

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

struct datum_chunk_reader {
    datum_ctx *ctx;
    datum_archive *a;
    unsigned columns;
    size_t max_rows;
    int whole_events; /* chunks of whole events (datum_chunk_reader_set_whole_events) */
    uint64_t next_field;
    uint64_t *win; /* win[i] = archive offset[win_first + i] */
    uint64_t win_first, win_len, win_cap;
    uint64_t *offset; /* the chunk's offsets, from 0 */
    size_t offset_cap;
    column_buf field[IO_N_FIELD_COLS]; /* all but the offsets */
    column_buf row[IO_N_RESULT_COLS];
    io_window offset_win;
    io_window field_win[IO_N_FIELD_COLS];
    io_window row_win[IO_N_RESULT_COLS];
    column_buf ahead;   /* whole events: the events of the fields read ahead */
    io_window ahead_win;
};

static int64_t kind_value(int kind, const void *buf, size_t i)
{
    switch (kind) {
    case IO_KIND_U8: return ((const uint8_t *)buf)[i];
    case IO_KIND_U32: return ((const uint32_t *)buf)[i];
    default: return ((const int32_t *)buf)[i];
    }
}

/* Reads elements first..first+n-1 of a column into b and checks them. */
static int read_column(datum_chunk_reader *r, hid_t ds, const io_dataset_desc *d,
                       const io_value_rule *rule, uint64_t first, size_t n, column_buf *b,
                       io_window *w)
{
    int64_t lo = rule->lo;
    int64_t hi = rule->dict >= 0 ? (int64_t)r->a->dict_len[rule->dict] - 1 : rule->hi;
    if (datum_reserve(r->ctx, &b->data, &b->cap, n, io_kind_size(rule->kind)) != DATUM_OK)
        return DATUM_E_NOMEM;
    int64_t seen_lo, seen_hi;
    int rc = io_window_read(r->ctx, w, ds, rule->kind, first, n, b->data,
                            datum_ctx_threads(r->ctx), &seen_lo, &seen_hi);
    if (rc == DATUM_E_NOMEM) return rc;
    if (rc != DATUM_OK)
        return io_archive_damaged(r->ctx, r->a, "cannot read %s, elements %llu to %llu", d->path,
                                  (unsigned long long)first, (unsigned long long)(first + n - 1));
    if (rule->kind == IO_KIND_F64) return DATUM_OK; /* reals index nothing: nothing to check */
    if (seen_lo >= lo && seen_hi <= hi) return DATUM_OK;
    /* The first value out of range, whatever the thread count. */
    int64_t bad = (int64_t)n;
#pragma omp parallel for num_threads(datum_ctx_threads(r->ctx)) reduction(min : bad) \
    if (n >= IO_PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        int64_t v = kind_value(rule->kind, b->data, (size_t)i);
        if ((v < lo || v > hi) && i < bad) bad = i;
    }
    if (bad == (int64_t)n) return DATUM_OK;
    return io_archive_damaged(r->ctx, r->a, "%s[%llu] = %lld is out of range (%lld to %lld)",
                              d->path, (unsigned long long)(first + (uint64_t)bad),
                              (long long)kind_value(rule->kind, b->data, (size_t)bad),
                              (long long)lo, (long long)hi);
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
    /* A chunk has at most max_rows fields: it needs max_rows + 1 offsets. */
    r->win_cap = (a->info.n_fields < max_rows ? a->info.n_fields : max_rows) + 1;
    /* ... and so do the chunk's own offsets: both are allocated once. */
    r->offset_cap = r->win_cap;
    r->win = datum_calloc(ctx, r->win_cap, sizeof *r->win);
    r->offset = r->win ? datum_calloc(ctx, r->offset_cap, sizeof *r->offset) : NULL;
    if (!r->offset) {
        datum_free(r->win);
        datum_free(r);
        return DATUM_E_NOMEM;
    }
    *out = r;
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
        hid_t ds = r->a->fields[IO_F_OFFSET];
        int64_t lo, hi; /* the offsets' order is checked by the caller */
        int rc = io_window_read(r->ctx, &r->offset_win, ds, IO_KIND_U64, f0, r->win_len, r->win,
                                datum_ctx_threads(r->ctx), &lo, &hi);
        if (rc != DATUM_OK) {
            r->win_len = 0;
            if (rc == DATUM_E_NOMEM) return rc;
            return io_archive_damaged(r->ctx, r->a, "cannot read %s from element %llu",
                                      io_field_cols[IO_F_OFFSET].path, (unsigned long long)f0);
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

/* Fields f0..f0+*k-1 of at most max_rows rows in all (at least one field),
 * starting at row *row0; their offsets, from 0, into r->offset. */
static int chunk_extent(datum_chunk_reader *r, uint64_t f0, size_t *k, uint64_t *row0)
{
    uint64_t n_fields = r->a->info.n_fields, prev, end = 0;
    int rc = offset_at(r, f0, f0, row0);
    *k = 0;
    if (rc != DATUM_OK) return rc;
    for (prev = *row0; f0 + *k < n_fields && *k < r->max_rows; prev = end) {
        if ((rc = next_offset(r, f0, *k + 1, prev, &end)) != DATUM_OK) return rc;
        if (*k > 0 && end - *row0 > r->max_rows) break;
        r->offset[++*k] = end - *row0; /* *k < offset_cap: see create */
    }
    r->offset[0] = 0;
    return DATUM_OK;
}

/* The events of fields first..first+n-1 into r->ahead (checked). */
static int events_ahead(datum_chunk_reader *r, uint64_t first, size_t n)
{
    return read_column(r, r->a->fields[IO_F_EVENT], &io_field_cols[IO_F_EVENT],
                       &io_field_rules[IO_F_EVENT], first, n, &r->ahead, &r->ahead_win);
}

/* Whole events: the *k fields from f0 that chunk_extent chose are cut back
 * to the end of the chunk's last complete event, or, when a single event
 * fills the chunk and goes on, grown to that event's end. */
static int whole_events(datum_chunk_reader *r, uint64_t f0, size_t *k, uint64_t row0)
{
    enum { BATCH = 1 << 16 }; /* events looked at per read, when growing */
    uint64_t n_fields = r->a->info.n_fields;
    if (f0 + *k >= n_fields) return DATUM_OK; /* the archive's last event ends the chunk */
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

int datum_chunk_reader_set_whole_events(datum_chunk_reader *r, int whole_events)
{
    r->whole_events = whole_events != 0;
    return DATUM_OK;
}

/* A /results column asked for and present in the archive. */
static int wanted(const datum_chunk_reader *r, int c)
{
    return (r->columns & (1u << c)) && r->a->results[c] >= 0;
}

int datum_chunk_reader_next(datum_chunk_reader *r, datum_chunk *chunk)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    datum_archive *a = r->a;
    uint64_t f0 = r->next_field, row0 = 0;
    size_t k = 0;
    int rc = DATUM_OK;
    memset(chunk, 0, sizeof *chunk);
    if (f0 >= a->info.n_fields) return DATUM_OK;
    if ((rc = chunk_extent(r, f0, &k, &row0)) != DATUM_OK) return rc;
    if (r->whole_events && (rc = whole_events(r, f0, &k, row0)) != DATUM_OK) return rc;
    size_t n_rows = (size_t)r->offset[k];
    for (int c = 0; c < IO_N_FIELD_COLS && rc == DATUM_OK; c++)
        if (c != IO_F_OFFSET && a->fields[c] >= 0)
            rc = read_column(r, a->fields[c], &io_field_cols[c], &io_field_rules[c], f0, k,
                             &r->field[c], &r->field_win[c]);
    for (int c = 0; c < IO_N_RESULT_COLS && rc == DATUM_OK; c++)
        if (wanted(r, c))
            rc = read_column(r, a->results[c], &io_result_cols[c], &io_result_rules[c], row0,
                             n_rows, &r->row[c], &r->row_win[c]);
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
    chunk->field_deal_set = a->fields[IO_F_DEAL_SET] >= 0 ? r->field[IO_F_DEAL_SET].data : NULL;
#define SET_MEMBER(column, member) chunk->member = row[column];
    IO_RESULT_MEMBERS(SET_MEMBER)
#undef SET_MEMBER
    r->next_field = f0 + k;
    return DATUM_OK;
}

void datum_chunk_reader_free(datum_chunk_reader **r)
{
    if (!r || !*r) return;
    for (int c = 0; c < IO_N_FIELD_COLS; c++) {
        datum_free((*r)->field[c].data);
        io_window_free(&(*r)->field_win[c]);
    }
    datum_free((*r)->ahead.data);
    io_window_free(&(*r)->ahead_win);
    for (int c = 0; c < IO_N_RESULT_COLS; c++) {
        datum_free((*r)->row[c].data);
        io_window_free(&(*r)->row_win[c]);
    }
    io_window_free(&(*r)->offset_win);
    datum_free((*r)->offset);
    datum_free((*r)->win);
    datum_free(*r);
    *r = NULL;
}
