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
                   DATUM_COL_ALL == (1u << IO_N_RESULT_COLS) - 1,
               "a /results column's number is its DATUM_COL_* bit");

#define N_FIELD_DATA IO_F_OFFSET /* the /fields columns before the offsets */
/* Element-wise loops go parallel from this length: below it, waking the
 * threads costs more than the loop. */
#define PARALLEL_MIN_ELEMENTS 65536

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
    uint64_t next_field;
    uint64_t *win; /* win[i] = archive offset[win_first + i] */
    uint64_t win_first, win_len, win_cap;
    uint64_t *offset; /* the chunk's offsets, from 0 */
    size_t offset_cap;
    column_buf field[N_FIELD_DATA];
    column_buf row[IO_N_RESULT_COLS];
    io_window offset_win;
    io_window field_win[N_FIELD_DATA];
    io_window row_win[IO_N_RESULT_COLS];
};

/* Sets up the direct path for ds: 1, or -1 when the library must read it (a
 * pipeline h5chunk.c does not reproduce, or a type that is not a
 * little-endian integer). */
static int window_open(hid_t ds, io_window *w)
{
    hid_t type = H5Dget_type(ds);
    int ok = type >= 0 && H5Tget_class(type) == H5T_INTEGER && H5Tget_order(type) == H5T_ORDER_LE &&
             io_chunked_open(ds, &w->codec) == 0 && io_h5_length(ds, &w->length) >= 0;
    if (ok) w->is_signed = H5Tget_sign(type) == H5T_SGN_2;
    if (type >= 0) H5Tclose(type);
    return ok ? 1 : -1;
}

/* Loads element i of a little-endian integer array of `size` bytes
 * (memcpy: no alignment assumed; the machine is little-endian, as the
 * direct path requires). */
static inline int64_t load_int(const unsigned char *p, size_t i, size_t size, int is_signed)
{
    switch (size * 2 + (is_signed != 0)) {
    case 2: return p[i];
    case 3: return (int8_t)p[i];
    case 4: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 5: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 8: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case 9: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case 16: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v > INT64_MAX ? INT64_MAX : (int64_t)v; }
    default: { int64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

/* Converts file values in[from..to) (`size` bytes, signed or not) to the
 * chunk's C type, saturating like HDF5, and widens [*lo, *hi] to the file
 * values met. Always inlined with constant size and sign (widen_block), so
 * that each file type gets its own loops with the load specialised. */
static inline int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static inline __attribute__((always_inline)) void widen_span(const unsigned char *in, size_t from,
                                                             size_t to, int kind, void *out,
                                                             int64_t *lo, int64_t *hi,
                                                             size_t size, int sgn)
{
    /* T: the narrowest type that holds every file value, so that the loops
     * vectorise (int32 minima and maxima exist in SIMD, int64 ones barely).
     * The span's range starts at [T_MAX, T_MIN]: merged into [*lo, *hi] it
     * changes nothing that a value of type T would not. */
#define WIDEN_LOOP(T, T_MIN, T_MAX, STORE)                                                        \
    {                                                                                              \
        T l = T_MAX, h = T_MIN;                                                                    \
        for (size_t i = from; i < to; i++) {                                                       \
            T v = (T)load_int(in, i, size, sgn);                                                   \
            l = v < l ? v : l;                                                                     \
            h = v > h ? v : h;                                                                     \
            STORE;                                                                                 \
        }                                                                                          \
        if (l < *lo) *lo = l;                                                                      \
        if (h > *hi) *hi = h;                                                                      \
    }
#define WIDEN_KINDS(T, T_MIN, T_MAX)                                                              \
    switch (kind) {                                                                                \
    case IO_KIND_U8:                                                                               \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((uint8_t *)out)[i] = (uint8_t)clamp(v, 0, UINT8_MAX))         \
        break;                                                                                     \
    case IO_KIND_U32:                                                                              \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((uint32_t *)out)[i] = (uint32_t)clamp(v, 0, UINT32_MAX))      \
        break;                                                                                     \
    case IO_KIND_U64:                                                                              \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((uint64_t *)out)[i] = (uint64_t)clamp(v, 0, INT64_MAX))       \
        break;                                                                                     \
    default:                                                                                       \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((int32_t *)out)[i] = (int32_t)clamp(v, INT32_MIN, INT32_MAX)) \
    }
    if (size <= 2) WIDEN_KINDS(int32_t, INT32_MIN, INT32_MAX)
    else WIDEN_KINDS(int64_t, INT64_MIN, INT64_MAX)
#undef WIDEN_KINDS
#undef WIDEN_LOOP
}

static void widen_block(const io_window *w, const unsigned char *in, size_t from, size_t to,
                        int kind, void *out, int64_t *lo, int64_t *hi)
{
    switch (w->codec.elem * 2 + (w->is_signed != 0)) {
    case 2: widen_span(in, from, to, kind, out, lo, hi, 1, 0); break;
    case 3: widen_span(in, from, to, kind, out, lo, hi, 1, 1); break;
    case 4: widen_span(in, from, to, kind, out, lo, hi, 2, 0); break;
    case 5: widen_span(in, from, to, kind, out, lo, hi, 2, 1); break;
    case 8: widen_span(in, from, to, kind, out, lo, hi, 4, 0); break;
    case 9: widen_span(in, from, to, kind, out, lo, hi, 4, 1); break;
    case 16: widen_span(in, from, to, kind, out, lo, hi, 8, 0); break;
    default: widen_span(in, from, to, kind, out, lo, hi, 8, 1);
    }
}

/* widen_block over n values, in blocks spread over the threads; [*seen_lo,
 * *seen_hi] grows to the file values met, so that the range check needs no
 * pass of its own unless a value is out of range. */
static void widen(const io_window *w, const unsigned char *in, size_t n, int kind, void *out,
                  int threads, int64_t *seen_lo, int64_t *seen_hi)
{
    enum { BLOCK = 1 << 14 };
    int64_t lo = *seen_lo, hi = *seen_hi, blocks = (int64_t)((n + BLOCK - 1) / BLOCK);
    if (n < PARALLEL_MIN_ELEMENTS) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : lo) reduction(max : hi)
    for (int64_t b = 0; b < blocks; b++) {
        size_t from = (size_t)b * BLOCK, to = from + BLOCK < n ? from + BLOCK : n;
        widen_block(w, in, from, to, kind, out, &lo, &hi);
    }
    *seen_lo = lo;
    *seen_hi = hi;
}

int io_window_read(io_window *w, hid_t ds, int kind, uint64_t first, size_t n, void *out,
                   int threads, int64_t *seen_lo, int64_t *seen_hi)
{
    *seen_lo = INT64_MAX;
    *seen_hi = INT64_MIN;
    if (w->state == 0) w->state = window_open(ds, w);
    if (w->state < 0 || n == 0) {
        *seen_lo = INT64_MIN;
        *seen_hi = INT64_MAX;
        return io_h5_read_range(ds, io_kind_memtype(kind), first, n, out);
    }
    uint64_t chunk = w->codec.chunk, n_chunks = (w->length + chunk - 1) / chunk;
    uint64_t batch = 2 * (uint64_t)threads; /* two chunks per thread per round */
    if (first + n > w->length) return -1;
    for (size_t done = 0; done < n;) {
        uint64_t pos = first + done, c = pos / chunk;
        if (c < w->first || c >= w->first + w->count) {
            uint64_t count = n_chunks - c < batch ? n_chunks - c : batch;
            if (count > w->cap) {
                free(w->raw);
                w->raw = malloc((size_t)(count * chunk) * w->codec.elem);
                w->cap = w->raw ? count : 0;
                if (!w->raw) return -1;
            }
            w->first = c;
            w->count = 0; /* invalid until decoded */
            /* A damaged chunk further on fails the batch: decode only the chunk
             * needed now, so the error names the rows the damage is in. */
            if (io_chunked_read(&w->codec, c, (size_t)count, w->raw, threads) < 0) {
                if (count == 1 || io_chunked_read(&w->codec, c, 1, w->raw, 1) < 0) return -1;
                count = 1;
            }
            w->count = count;
        }
        uint64_t end = (w->first + w->count) * chunk;
        size_t take = (size_t)(end - pos < n - done ? end - pos : n - done);
        widen(w, w->raw + (size_t)(pos - w->first * chunk) * w->codec.elem, take, kind,
              (unsigned char *)out + done * io_kind_size(kind), threads, seen_lo, seen_hi);
        done += take;
    }
    return 0;
}

void io_window_free(io_window *w)
{
    free(w->raw);
    w->raw = NULL;
    w->cap = w->count = 0;
}

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
    if (io_reserve(r->ctx, &b->data, &b->cap, n, io_kind_size(rule->kind)) != DATUM_OK)
        return DATUM_E_NOMEM;
    int64_t seen_lo, seen_hi;
    if (io_window_read(w, ds, rule->kind, first, n, b->data, datum_ctx_threads(r->ctx), &seen_lo,
                       &seen_hi) < 0)
        return io_archive_damaged(r->ctx, r->a, "cannot read %s, elements %llu to %llu", d->path,
                                  (unsigned long long)first, (unsigned long long)(first + n - 1));
    if (rule->kind == IO_KIND_F64) return DATUM_OK; /* reals index nothing: nothing to check */
    if (seen_lo >= lo && seen_hi <= hi) return DATUM_OK;
    /* The first value out of range, whatever the thread count. */
    int64_t bad = (int64_t)n;
#pragma omp parallel for num_threads(datum_ctx_threads(r->ctx)) reduction(min : bad) \
    if (n >= PARALLEL_MIN_ELEMENTS)
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
    if (!(r = io_calloc(ctx, 1, sizeof *r))) return DATUM_E_NOMEM;
    r->ctx = ctx;
    r->a = a;
    r->columns = columns;
    r->max_rows = max_rows;
    /* A chunk has at most max_rows fields: it needs max_rows + 1 offsets. */
    r->win_cap = (a->info.n_fields < max_rows ? a->info.n_fields : max_rows) + 1;
    /* ... and so do the chunk's own offsets: both are allocated once. */
    r->offset_cap = r->win_cap;
    r->win = io_calloc(ctx, r->win_cap, sizeof *r->win);
    r->offset = r->win ? io_calloc(ctx, r->offset_cap, sizeof *r->offset) : NULL;
    if (!r->offset) {
        free(r->win);
        free(r);
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
        if (io_window_read(&r->offset_win, ds, IO_KIND_U64, f0, r->win_len, r->win,
                           datum_ctx_threads(r->ctx), &lo, &hi) < 0) {
            r->win_len = 0;
            return io_archive_damaged(r->ctx, r->a, "cannot read %s from element %llu",
                                      io_field_cols[IO_F_OFFSET].path, (unsigned long long)f0);
        }
    }
    *v = r->win[i - r->win_first];
    return DATUM_OK;
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
        if ((rc = offset_at(r, f0, f0 + *k + 1, &end)) != DATUM_OK) return rc;
        if (end < prev) /* checked at open; the file may have changed since */
            return io_archive_damaged(r->ctx, r->a, "%s decreases at element %llu",
                                      io_field_cols[IO_F_OFFSET].path,
                                      (unsigned long long)(f0 + *k + 1));
        if (*k > 0 && end - *row0 > r->max_rows) break;
        r->offset[++*k] = end - *row0; /* *k < offset_cap: see create */
    }
    r->offset[0] = 0;
    return DATUM_OK;
}

/* A /results column asked for and present in the archive. */
static int wanted(const datum_chunk_reader *r, int c)
{
    return (r->columns & (1u << c)) && r->a->results[c] >= 0;
}

int datum_chunk_reader_next(datum_chunk_reader *r, datum_chunk *chunk)
{
    datum_archive *a = r->a;
    uint64_t f0 = r->next_field, row0 = 0;
    size_t k = 0;
    int rc = DATUM_OK;
    memset(chunk, 0, sizeof *chunk);
    if (f0 >= a->info.n_fields) return DATUM_OK;
    if ((rc = chunk_extent(r, f0, &k, &row0)) != DATUM_OK) return rc;
    size_t n_rows = (size_t)r->offset[k];
    for (int c = 0; c < N_FIELD_DATA && rc == DATUM_OK; c++)
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
#define SET_MEMBER(column, member) chunk->member = row[column];
    IO_RESULT_MEMBERS(SET_MEMBER)
#undef SET_MEMBER
    r->next_field = f0 + k;
    return DATUM_OK;
}

void datum_chunk_reader_free(datum_chunk_reader **r)
{
    if (!r || !*r) return;
    for (int c = 0; c < N_FIELD_DATA; c++) {
        free((*r)->field[c].data);
        io_window_free(&(*r)->field_win[c]);
    }
    for (int c = 0; c < IO_N_RESULT_COLS; c++) {
        free((*r)->row[c].data);
        io_window_free(&(*r)->row_win[c]);
    }
    io_window_free(&(*r)->offset_win);
    free((*r)->offset);
    free((*r)->win);
    free(*r);
    *r = NULL;
}
