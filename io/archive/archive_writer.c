/*
 * archive_writer.c - writes an archive as a stream of whole fields, with
 * memory of one HDF5 chunk per column: the layout and the value rules are
 * archive.c's, each dataset grows chunk by chunk, and every rule of the
 * format is checked on the way in, so that what the reader trusts holds.
 */
#include "io_internal.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)DATUM_DICT_EVENTS == IO_D_EVENTS && (int)DATUM_DICT_SECTIONS == IO_D_SECTIONS &&
                   (int)DATUM_DICT_PAIRS == IO_D_PAIRS && (int)DATUM_DICT_TEAMS == IO_D_TEAMS &&
                   (int)DATUM_DICT_MATCHES == IO_D_MATCHES,
               "a datum_dict is its /dict dataset's number");

/* One dataset being written: its accepted values, and a buffer of exactly
 * one HDF5 chunk, so that every write is a whole chunk, compressed once.
 * When its filters are ones h5chunk.c reproduces (always, for the filters
 * the writer sets), full chunks are converted to the file's type and held
 * until HELD_CHUNKS of them are ready (small chunks: HELD_BYTES of them),
 * then compressed by our threads with
 * libdeflate and written as they are (io_chunked_write): HDF5's own deflate
 * ran on the one writing thread. Each chunk is compressed alone and the
 * chunks go to the file in the same order for any number of threads, so
 * the file does not depend on it. */
enum { HELD_CHUNKS = 2, HELD_BYTES = 1 << 20 };
typedef struct {
    hid_t ds;
    const char *path; /* for messages */
    int kind;         /* IO_KIND_*: the C type of the values handed in */
    int64_t lo, hi;   /* the values accepted */
    size_t chunk, n;  /* buffer capacity (the chunk length) and fill */
    uint64_t written; /* elements in the dataset (held chunks included) */
    unsigned char *buf;
    int direct;               /* 1: chunks go through codec */
    io_chunked codec;         /* its filters, when direct */
    unsigned char *held;      /* held chunks, in the file's type (direct) */
    size_t n_held, held_max;  /* chunks held, and held at most */
    size_t held_cap;          /* room in held, chunks */
    uint64_t held_first;      /* chunk number of held[0] */
} column;

struct datum_archive_writer {
    datum_ctx *ctx;
    char *path, *tmp;
    hid_t file;
    datum_write_options opt;
    datum_archive_plan plan;
    int dict_done[IO_N_DICTS], truth_done, started;
    uint32_t dict_len[IO_N_DICTS];
    column field[IO_N_FIELD_COLS], row[IO_N_RESULT_COLS];
    uint64_t n_fields, n_results;
    uint32_t last_event, last_section; /* key of the last field written */
    int32_t last_board;
    int32_t first_date, last_date;
    uint64_t *seen, stamp; /* seen[pair]: stamp of the last field checked where it plays */
    int32_t *field_date;   /* scratch of a chunk, per field: its date, its end */
    uint64_t *field_end;
    size_t date_cap, end_cap;
    io_scratch scratch;    /* the columns' compression, one after the other */
    /* Shared compression (io_archive_writer_share): the held chunks of one
     * column at a time are a job, packed by the writer and by a helper
     * thread (io_archive_writer_help), then put in order by the writer. */
    int shared, lock_ready;
    omp_lock_t lock; /* guards job */
    struct {
        const column *c;      /* the column whose held chunks are packed; NULL: none */
        size_t next, done, n; /* chunks claimed, packed, in all */
        size_t room;          /* io_chunked_pack_room: each chunk's in scratch */
        int rc;               /* the first failure */
    } job;
    io_compressor z; /* the writer's own */
    const unsigned char **packed; /* chunk k's bytes and size, once packed */
    size_t *packed_size, packed_cap, packed_size_cap;
};

static int io_failure(datum_archive_writer *w, const char *what)
{
    return io_h5_fail_write(w->ctx, w->path, what);
}

/* Records DATUM_E_ARG "cannot write PATH: WHAT" (a broken rule). */
static int refuse(datum_archive_writer *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int refuse(datum_archive_writer *w, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return datum_ctx_fail(w->ctx, DATUM_E_ARG, "cannot write %s: %s", w->path, what);
}

static int check_plan(datum_ctx *ctx, const datum_archive_plan *p)
{
    if ((p->has_adjusted != 0 && p->has_adjusted != 1) ||
        (p->has_teams != 0 && p->has_teams != 1) ||
        (p->has_published != 0 && p->has_published != 1) ||
        (p->has_published_percent != 0 && p->has_published_percent != 1) ||
        (p->has_deal_sets != 0 && p->has_deal_sets != 1) || p->max_results > INT64_MAX ||
        p->max_fields > INT64_MAX || p->max_board < 1 || p->max_table < 0 ||
        p->min_score < -IO_MAX_SCORE || p->max_score > IO_MAX_SCORE ||
        p->min_score > p->max_score || p->min_date > p->max_date)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "archive plan out of range (see datum_io.h)");
    return DATUM_OK;
}

static void writer_free(datum_archive_writer *w)
{
    if (w->file >= 0) io_h5_close_file(w->file); /* strong close: the datasets go too */
    io_temp_discard(&w->tmp);
    for (int k = 0; k < IO_N_FIELD_COLS; k++) {
        datum_free(w->field[k].buf);
        datum_free(w->field[k].held);
    }
    for (int k = 0; k < IO_N_RESULT_COLS; k++) {
        datum_free(w->row[k].buf);
        datum_free(w->row[k].held);
    }
    datum_free(w->seen);
    datum_free(w->field_date);
    datum_free(w->field_end);
    datum_free(w->scratch.p);
    datum_free(w->packed);
    datum_free(w->packed_size);
    io_compressor_free(&w->z);
    if (w->lock_ready) omp_destroy_lock(&w->lock);
    datum_free(w->path);
    datum_free(w);
}

int datum_archive_writer_create(datum_ctx *ctx, const char *path, const datum_archive_plan *plan,
                                const datum_write_options *opt, datum_archive_writer **out)
{
    static const datum_archive_plan defaults = DATUM_ARCHIVE_PLAN_INIT;
    static const char *const groups[] = {"dict", "fields", "results"};
    datum_archive_writer *w = datum_calloc(ctx, 1, sizeof *w);
    int rc = w ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    w->ctx = ctx;
    w->file = H5I_INVALID_HID;
    w->plan = plan ? *plan : defaults;
    for (int k = 0; k < IO_N_FIELD_COLS; k++) w->field[k].ds = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_RESULT_COLS; k++) w->row[k].ds = H5I_INVALID_HID;
    rc = io_write_options(ctx, opt, &w->opt);
    if (rc == DATUM_OK) rc = check_plan(ctx, &w->plan);
    if (rc == DATUM_OK && !(w->path = datum_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = io_h5_temp_create(ctx, path, &w->tmp, &w->file);
    for (size_t g = 0; g < sizeof groups / sizeof *groups && rc == DATUM_OK; g++)
        if (io_h5_ensure_group(w->file, groups[g]) < 0) rc = io_failure(w, groups[g]);
    if (rc != DATUM_OK) writer_free(w);
    else *out = w;
    return rc;
}

int datum_archive_writer_dict(datum_archive_writer *w, datum_dict which, const char *const *names,
                              uint32_t n)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    int k = (int)which;
    if (k < 0 || k >= IO_N_DICTS) return refuse(w, "no dictionary number %d", k);
    const char *name = io_dict_cols[k].path;
    if (!io_has_dict(k, w->plan.has_teams)) return refuse(w, "%s without teams in the plan", name);
    if (w->dict_done[k]) return refuse(w, "%s written twice", name);
    if (n > INT32_MAX) return refuse(w, "%s: more than 2^31-1 names", name);
    for (uint32_t i = 0; i < n; i++) {
        if (!names[i] || (names[i][0] == '\0' && k != IO_D_SECTIONS) ||
            !io_utf8_valid(names[i], strlen(names[i])))
            return refuse(w, "%s[%u] is missing, empty or not UTF-8", name, i);
        if (i > 0 && strcmp(names[i - 1], names[i]) >= 0)
            return refuse(w, "%s[%u] \"%s\" does not come after \"%s\" (sorted, no repeats)", name,
                          i, names[i], names[i - 1]);
    }
    if (io_h5_write_strings(w->file, &io_dict_cols[k], names, n) < 0) return io_failure(w, name);
    w->dict_done[k] = 1;
    w->dict_len[k] = n;
    return DATUM_OK;
}

/* Creates one column's dataset for values lo..hi, and its chunk buffer. */
static int open_column(datum_archive_writer *w, column *c, const io_dataset_desc *d,
                       const io_value_rule *rule, int64_t lo, int64_t hi, uint64_t hint)
{
    uint64_t chunk = 0;
    c->path = d->path;
    c->kind = rule->kind;
    c->lo = lo;
    c->hi = hi;
    hid_t type = c->kind == IO_KIND_F64 ? H5T_IEEE_F64LE : io_h5_int_type(lo, hi);
    c->ds = io_h5_create_growing(w->file, d, type, hint, &w->opt, io_shuffled(d), &chunk);
    if (c->ds < 0) return io_failure(w, d->path);
    c->chunk = (size_t)chunk;
    if (!(c->buf = datum_calloc(w->ctx, c->chunk, io_kind_size(c->kind)))) return DATUM_E_NOMEM;
    c->direct = io_chunked_open(c->ds, &c->codec) == 0 &&
                c->codec.chunk == (hsize_t)c->chunk;
    size_t bytes = c->chunk * (c->direct ? c->codec.elem : 1);
    c->held_max = HELD_BYTES / bytes > HELD_CHUNKS ? HELD_BYTES / bytes : HELD_CHUNKS;
    return DATUM_OK;
}

/* The values a column accepts: the format's rule narrowed by the plan and
 * the dictionary sizes. */
static void bounds(const datum_archive_writer *w, const io_value_rule *rule, int is_field, int k,
                   int64_t *lo, int64_t *hi)
{
    const datum_archive_plan *p = &w->plan;
    *lo = rule->lo;
    *hi = rule->dict >= 0 ? (int64_t)w->dict_len[rule->dict] - 1 : rule->hi;
    if (is_field && k == IO_F_BOARD) *hi = p->max_board;
    if (is_field && k == IO_F_OFFSET) *hi = (int64_t)p->max_results;
    if (!is_field && k == IO_R_TABLE) *hi = p->max_table;
    if (!is_field && k == IO_R_NS_SCORE) *lo = p->min_score, *hi = p->max_score;
    if ((is_field && k == IO_F_DATE) || (!is_field && k == IO_R_DATE))
        *lo = p->min_date, *hi = p->max_date;
}

static int put(datum_archive_writer *w, column *c, const void *src, size_t n);

/* Creates the datasets, once every dictionary is known (the index types
 * depend on their sizes). */
static int start(datum_archive_writer *w)
{
    const datum_archive_plan *p = &w->plan;
    int64_t lo, hi;
    int rc = DATUM_OK;
    for (int k = 0; k < IO_N_DICTS; k++)
        if (io_has_dict(k, p->has_teams) && !w->dict_done[k])
            return refuse(w, "%s must be written before the first field", io_dict_cols[k].path);
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++) {
        if (!io_has_field_col(k, p->has_deal_sets)) continue;
        bounds(w, &io_field_rules[k], 1, k, &lo, &hi);
        rc = open_column(w, &w->field[k], &io_field_cols[k], &io_field_rules[k], lo, hi,
                         p->max_fields + (k == IO_F_OFFSET));
    }
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++) {
        if (!io_has_result_col(k, p->has_adjusted, p->has_teams, p->has_published,
                               p->has_published_percent))
            continue;
        bounds(w, &io_result_rules[k], 0, k, &lo, &hi);
        rc = open_column(w, &w->row[k], &io_result_cols[k], &io_result_rules[k], lo, hi,
                         p->max_results);
    }
    if (rc == DATUM_OK && !(w->seen = datum_calloc(w->ctx, w->dict_len[IO_D_PAIRS], sizeof *w->seen)))
        rc = DATUM_E_NOMEM;
    static const uint64_t zero = 0;
    if (rc == DATUM_OK) rc = put(w, &w->field[IO_F_OFFSET], &zero, 1);
    w->started = rc == DATUM_OK;
    return rc;
}

/* Packs chunks of the current job until none is left to claim (z: the
 * calling thread's compressor); 1 if it packed any. */
static int pack_claimed(datum_archive_writer *w, io_compressor *z)
{
    int any = 0;
    for (;;) {
        const column *c = NULL;
        size_t k = 0;
        omp_set_lock(&w->lock);
        if (w->job.c && w->job.next < w->job.n) c = w->job.c, k = w->job.next++;
        omp_unset_lock(&w->lock);
        if (!c) return any;
        any = 1;
        /* The job, its room and chunk k stay until chunk k is counted done. */
        unsigned char *room = (unsigned char *)w->scratch.p + k * w->job.room;
        int rc = io_chunked_pack(w->ctx, &c->codec, z, c->held + k * c->chunk * c->codec.elem, room,
                                 &w->packed[k], &w->packed_size[k]);
        omp_set_lock(&w->lock);
        if (rc != DATUM_OK && w->job.rc == DATUM_OK) w->job.rc = rc;
        w->job.done++;
        omp_unset_lock(&w->lock);
    }
}

/* io_chunked_write's work in shared compression: the column's held chunks
 * packed by this thread and the helper, then put in order. */
static int write_shared(datum_archive_writer *w, column *c)
{
    size_t n = c->n_held, room = io_chunked_pack_room(&c->codec);
    if (datum_reserve(w->ctx, &w->scratch.p, &w->scratch.cap, n * room, 1) != DATUM_OK ||
        datum_reserve(w->ctx, &w->packed, &w->packed_cap, n, sizeof *w->packed) != DATUM_OK ||
        datum_reserve(w->ctx, &w->packed_size, &w->packed_size_cap, n, sizeof *w->packed_size) !=
            DATUM_OK)
        return DATUM_E_NOMEM;
    omp_set_lock(&w->lock);
    w->job.c = c, w->job.next = 0, w->job.done = 0, w->job.n = n, w->job.room = room;
    w->job.rc = DATUM_OK;
    omp_unset_lock(&w->lock);
    pack_claimed(w, &w->z);
    int rc;
    for (;;) { /* the helper's last chunks */
        omp_set_lock(&w->lock);
        int left = w->job.done < w->job.n;
        if (!left) w->job.c = NULL;
        rc = w->job.rc;
        omp_unset_lock(&w->lock);
        if (!left) break;
        sched_yield();
    }
    for (size_t k = 0; k < n && rc == DATUM_OK; k++)
        if (io_chunked_put(&c->codec, c->held_first + k, w->packed[k], w->packed_size[k]) < 0)
            rc = DATUM_E_IO;
    return rc;
}

int io_archive_writer_share(datum_archive_writer *w, int on)
{
    if (on && !w->lock_ready) {
        omp_init_lock(&w->lock);
        w->lock_ready = 1;
    }
    w->shared = on;
    return DATUM_OK;
}

int io_archive_writer_help(datum_archive_writer *w, io_compressor *z)
{
    return w->shared ? pack_claimed(w, z) : 0;
}

/* Compresses and writes the held chunks. */
static int write_held(datum_archive_writer *w, column *c)
{
    if (c->n_held == 0) return DATUM_OK;
    hsize_t extent = c->written;
    if (H5Dset_extent(c->ds, &extent) < 0) return io_failure(w, c->path);
    int rc = w->shared ? write_shared(w, c)
                       : io_chunked_write(w->ctx, &c->codec, &w->scratch, c->held_first, c->n_held,
                                          c->held, datum_ctx_threads(w->ctx));
    if (rc == DATUM_E_NOMEM) return rc;
    if (rc != DATUM_OK) return io_failure(w, c->path);
    c->held_first += c->n_held;
    c->n_held = 0;
    return DATUM_OK;
}

/* The n values of buf (of the column's kind, within its bounds, hence
 * within its file type) in the file type's little-endian bytes at out, the
 * rest of the chunk zero. */
static void to_file_type(const column *c, unsigned char *out)
{
    size_t elem = c->codec.elem, n = c->n, from = io_kind_size(c->kind);
    const unsigned char *in = c->buf;
    if (c->kind == IO_KIND_F64 || elem == from) {
        memcpy(out, in, n * elem); /* the same bytes on a little-endian machine */
    } else if (from == 4 && elem == 2) { /* the usual narrowing: its own loop */
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, in + 4 * i, 4);
            uint16_t x = (uint16_t)v;
            memcpy(out + 2 * i, &x, 2);
        }
    } else if (from == 4 && elem == 1) {
        for (size_t i = 0; i < n; i++) out[i] = in[4 * i];
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = 0;
            memcpy(&v, in + i * from, from);
            if (c->kind == IO_KIND_I32 && (v & 0x80000000u)) v |= ~(uint64_t)0xffffffffu;
            memcpy(out + i * elem, &v, elem); /* the low bytes */
        }
    }
    memset(out + n * elem, 0, (c->chunk - n) * elem);
}

/* Writes the buffered values of a column at its end; at_end: the last
 * ones (a partial chunk, padded, and every chunk held goes out). */
static int flush(datum_archive_writer *w, column *c, int at_end)
{
    if (c->direct) {
        size_t bytes = c->chunk * c->codec.elem;
        if (c->n > 0 && c->n_held == c->held_cap) { /* room for twice as many, up to held_max */
            size_t cap = c->held_cap ? 2 * c->held_cap : 1;
            if (cap > c->held_max) cap = c->held_max;
            if (datum_resize(w->ctx, &c->held, cap, bytes) != DATUM_OK) return DATUM_E_NOMEM;
            c->held_cap = cap;
        }
        if (c->n > 0) {
            to_file_type(c, c->held + c->n_held * bytes);
            c->n_held++;
            c->written += c->n;
            c->n = 0;
        }
        return c->n_held == c->held_max || at_end ? write_held(w, c) : DATUM_OK;
    }
    if (c->n == 0) return DATUM_OK;
    if (io_h5_append(c->ds, io_kind_memtype(c->kind), c->written, c->n, c->buf) < 0)
        return io_failure(w, c->path);
    c->written += c->n;
    c->n = 0;
    return DATUM_OK;
}

/* Appends n values of the column's kind from src (NULL: n times the value
 * that means "none": 0 adjusted or no method, -1 no team, NaN no figure),
 * flushing each full chunk. */
static int put(datum_archive_writer *w, column *c, const void *src, size_t n)
{
    size_t size = io_kind_size(c->kind);
    const unsigned char *from = src;
    while (n > 0) {
        size_t k = c->chunk - c->n < n ? c->chunk - c->n : n;
        unsigned char *to = c->buf + c->n * size;
        if (from) {
            memcpy(to, from, k * size);
            from += k * size;
        } else if (c->kind == IO_KIND_F64) {
            for (size_t i = 0; i < k; i++) ((double *)(void *)to)[i] = NAN;
        } else {
            memset(to, c->lo < 0 ? 0xff : 0, k * size); /* -1 in two's complement, or 0 */
        }
        c->n += k;
        n -= k;
        if (c->n == c->chunk) {
            int rc = flush(w, c, 0);
            if (rc != DATUM_OK) return rc;
        }
    }
    return DATUM_OK;
}

/* The value of row i of an input array of the column's kind. */
static int64_t value_at(int kind, const void *values, size_t i)
{
    switch (kind) {
    case IO_KIND_U8: return ((const uint8_t *)values)[i];
    case IO_KIND_U32: return ((const uint32_t *)values)[i];
    case IO_KIND_U64: return (int64_t)((const uint64_t *)values)[i];
    default: return ((const int32_t *)values)[i];
    }
}

/* 1 if every integer of values[0..n) (of the column's kind) lies within its
 * bounds: the least and the greatest found by a loop per kind (the
 * compiler's vector code), not value by value through value_at. */
static int within_bounds(const column *c, const void *values, size_t n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
#define MIN_MAX(type)                                                                              \
    {                                                                                              \
        const type *v = values;                                                                    \
        type least = n ? v[0] : 0, most = least;                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            least = v[i] < least ? v[i] : least;                                                   \
            most = v[i] > most ? v[i] : most;                                                      \
        }                                                                                          \
        lo = (int64_t)least, hi = (int64_t)most;                                                   \
    }
    switch (c->kind) {
    case IO_KIND_U8: MIN_MAX(uint8_t) break;
    case IO_KIND_U32: MIN_MAX(uint32_t) break;
    case IO_KIND_U64: return 0; /* values past INT64_MAX: value_at's own reading */
    default: MIN_MAX(int32_t) break;
    }
#undef MIN_MAX
    return n == 0 || (lo >= c->lo && hi <= c->hi);
}

/* Every value of values[0..n) within the column's bounds (a real: finite
 * or NaN); first = the archive number of values[0], for the message. */
static int check_values(datum_archive_writer *w, const column *c, const io_dataset_desc *d,
                        const void *values, size_t n, uint64_t first)
{
    for (size_t i = 0; values && c->kind == IO_KIND_F64 && i < n; i++)
        if (isinf(((const double *)values)[i]))
            return refuse(w, "%s[%llu] is infinite (a real or NaN)", d->path,
                          (unsigned long long)(first + i));
    if (!values || c->kind == IO_KIND_F64 || within_bounds(c, values, n)) return DATUM_OK;
    for (size_t i = 0; i < n; i++) { /* the first value out of bounds, for the message */
        int64_t v = value_at(c->kind, values, i);
        if (v < c->lo || v > c->hi)
            return refuse(w, "%s[%llu] = %lld is out of range (%lld to %lld)", d->path,
                          (unsigned long long)(first + i), (long long)v, (long long)c->lo,
                          (long long)c->hi);
    }
    return DATUM_OK;
}

/* The row arrays of a chunk, by /results column number. */
static void row_arrays(const datum_chunk *c, const void *a[IO_N_RESULT_COLS])
{
#define GET_MEMBER(column, member) a[column] = c->member;
    IO_RESULT_MEMBERS(GET_MEMBER)
#undef GET_MEMBER
}

/* The shape of a chunk: arrays present as the plan says, offsets of whole
 * non-empty fields, room left in the plan. */
static int check_shape(datum_archive_writer *w, const datum_chunk *c, const void *const *row)
{
    const datum_archive_plan *p = &w->plan;
    int teams = (c->ns_team != NULL) + (c->ew_team != NULL) + (c->match != NULL);
    int published = (c->published_ns != NULL) + (c->published_ew != NULL) +
                    (c->published_method != NULL);
    int percent = (c->published_ns_percent != NULL) + (c->published_ew_percent != NULL);
    if (!c->offset || !c->field_event || !c->field_section || !c->field_board || !c->table ||
        !c->ns_pair || !c->ew_pair || !c->ns_score || !c->date)
        return refuse(w, "a chunk lacks a required array");
    if ((c->adjusted && !p->has_adjusted) || (teams && !p->has_teams) ||
        (published && !p->has_published) || (percent && !p->has_published_percent) ||
        (c->field_deal_set && !p->has_deal_sets))
        return refuse(w, "a chunk has a column that the plan did not declare");
    if (!c->field_deal_set && p->has_deal_sets)
        return refuse(w, "a chunk lacks field_deal_set, which the plan declared");
    if (teams != 0 && teams != 3) return refuse(w, "ns_team, ew_team and match: all or none");
    if (published != 0 && published != 3)
        return refuse(w, "published_ns, published_ew and published_method: all or none");
    if (percent == 1)
        return refuse(w, "published_ns_percent and published_ew_percent: both or none");
    if (c->offset[0] != 0 || c->offset[c->n_fields] != c->n_rows)
        return refuse(w, "a chunk's offsets do not run from 0 to its n_rows");
    for (uint64_t f = 0; f < c->n_fields; f++)
        if (c->offset[f + 1] <= c->offset[f])
            return refuse(w, "field %llu has no result", (unsigned long long)(w->n_fields + f));
    if (c->n_rows > p->max_results - w->n_results || c->n_fields > p->max_fields - w->n_fields)
        return refuse(w, "more results or fields than the plan's maximum");
    for (int k = 0; k < IO_N_RESULT_COLS; k++)
        if (row[k]) {
            int rc =
                check_values(w, &w->row[k], &io_result_cols[k], row[k], c->n_rows, w->n_results);
            if (rc != DATUM_OK) return rc;
        }
    const void *field[IO_N_FIELD_COLS] = {[IO_F_EVENT] = c->field_event,
                                          [IO_F_SECTION] = c->field_section,
                                          [IO_F_BOARD] = c->field_board,
                                          [IO_F_DEAL_SET] = c->field_deal_set};
    for (int k = 0; k < IO_N_FIELD_COLS; k++) {
        int rc =
            check_values(w, &w->field[k], &io_field_cols[k], field[k], c->n_fields, w->n_fields);
        if (rc != DATUM_OK) return rc;
    }
    return DATUM_OK;
}

/* The rules of one field, rows[b..e) of the chunk: tables increase, each
 * pair plays once, the adjusted and teams columns agree with themselves. */
static int check_field(datum_archive_writer *w, const datum_chunk *c, uint64_t f, uint64_t b,
                       uint64_t e)
{
    unsigned long long field = (unsigned long long)(w->n_fields + f);
    uint64_t stamp = ++w->stamp;
    for (uint64_t i = b; i < e; i++) {
        unsigned long long row = (unsigned long long)(w->n_results + i);
        if (i > b && c->table[i] <= c->table[i - 1])
            return refuse(w, "field %llu: table %d comes after table %d (increasing, once each)",
                          field, (int)c->table[i], (int)c->table[i - 1]);
        if (c->ns_pair[i] == c->ew_pair[i])
            return refuse(w, "results row %llu: the pair plays against itself", row);
        const int32_t seat[2] = {c->ns_pair[i], c->ew_pair[i]};
        for (int s = 0; s < 2; s++) {
            if (w->seen[seat[s]] == stamp)
                return refuse(w, "field %llu: pair %d plays twice", field, (int)seat[s]);
            w->seen[seat[s]] = stamp;
        }
        if (c->adjusted && c->adjusted[i] != DATUM_ADJ_NONE && c->ns_score[i] != 0)
            return refuse(w, "results row %llu: an adjusted result with a score", row);
        if (c->match &&
            ((c->ns_team[i] < 0) != (c->match[i] < 0) || (c->ew_team[i] < 0) != (c->match[i] < 0) ||
             (c->match[i] >= 0 && c->ns_team[i] == c->ew_team[i])))
            return refuse(w,
                          "results row %llu: teams and match must be all set (two different "
                          "teams) or all -1",
                          row);
        if (c->published_method &&
            (c->published_method[i] == DATUM_PUBLISHED_NONE) !=
                (isnan(c->published_ns[i]) && isnan(c->published_ew[i])))
            return refuse(w,
                          "results row %llu: published_method must be 0 (none) exactly when "
                          "both published figures are NaN",
                          row);
    }
    return DATUM_OK;
}

/* Fields strictly after the last one, in (event, section, board). */
static int check_order(datum_archive_writer *w, const datum_chunk *c, uint64_t f)
{
    uint32_t ev = c->field_event[f], sec = c->field_section[f];
    int32_t board = c->field_board[f];
    uint32_t pev = f ? c->field_event[f - 1] : w->last_event;
    uint32_t psec = f ? c->field_section[f - 1] : w->last_section;
    int32_t pboard = f ? c->field_board[f - 1] : w->last_board;
    if (f == 0 && w->n_fields == 0) return DATUM_OK;
    if (ev > pev || (ev == pev && (sec > psec || (sec == psec && board > pboard)))) return DATUM_OK;
    return refuse(w,
                  "field %llu (event %u, section %u, board %d) does not come after (event %u, "
                  "section %u, board %d)",
                  (unsigned long long)(w->n_fields + f), ev, sec, (int)board, pev, psec,
                  (int)pboard);
}

int datum_archive_writer_append(datum_archive_writer *w, const datum_chunk *c)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    const void *row[IO_N_RESULT_COLS];
    int rc = w->started ? DATUM_OK : start(w);
    if (rc != DATUM_OK || c->n_fields == 0) return rc;
    row_arrays(c, row);
    if ((rc = check_shape(w, c, row)) != DATUM_OK) return rc;
    rc = datum_reserve(w->ctx, &w->field_date, &w->date_cap, c->n_fields, sizeof *w->field_date);
    if (rc == DATUM_OK)
        rc = datum_reserve(w->ctx, &w->field_end, &w->end_cap, c->n_fields, sizeof *w->field_end);
    int32_t first = w->n_results ? w->first_date : c->date[0];
    int32_t last = w->n_results ? w->last_date : c->date[0];
    for (uint64_t f = 0; f < c->n_fields && rc == DATUM_OK; f++) {
        uint64_t b = c->offset[f], e = c->offset[f + 1];
        if ((rc = check_order(w, c, f)) != DATUM_OK ||
            (rc = check_field(w, c, f, b, e)) != DATUM_OK)
            break;
        int32_t latest = c->date[b];
        for (uint64_t i = b; i < e; i++) {
            if (c->date[i] > latest) latest = c->date[i];
            if (c->date[i] < first) first = c->date[i];
        }
        if (latest > last) last = latest;
        w->field_date[f] = latest;
        w->field_end[f] = w->n_results + e;
    }
    if (rc != DATUM_OK) return rc;

    /* All checked: into the buffers. */
    const void *field[IO_N_FIELD_COLS] = {c->field_event, c->field_section, c->field_board,
                                          w->field_date, w->field_end, c->field_deal_set};
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++)
        if (w->field[k].ds >= 0) rc = put(w, &w->field[k], field[k], c->n_fields);
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++)
        if (w->row[k].ds >= 0) rc = put(w, &w->row[k], row[k], c->n_rows);
    if (rc != DATUM_OK) return rc;
    w->n_fields += c->n_fields;
    w->n_results += c->n_rows;
    w->last_event = c->field_event[c->n_fields - 1];
    w->last_section = c->field_section[c->n_fields - 1];
    w->last_board = c->field_board[c->n_fields - 1];
    w->first_date = first;
    w->last_date = last;
    return DATUM_OK;
}

int datum_archive_writer_truth(datum_archive_writer *w, const double *pair_strength,
                               uint32_t n_pairs)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    const char *name = io_truth_strength.path;
    if (!w->dict_done[IO_D_PAIRS] || n_pairs != w->dict_len[IO_D_PAIRS])
        return refuse(w, "%s needs one value per pair of /dict/pairs, written first", name);
    if (w->truth_done) return refuse(w, "%s written twice", name);
    for (uint32_t i = 0; i < n_pairs; i++)
        if (!isfinite(pair_strength[i])) return refuse(w, "%s[%u] is not finite", name, i);
    hid_t ds = H5I_INVALID_HID;
    int ok = io_h5_ensure_group(w->file, "truth") == 0 &&
             (ds = io_h5_create_dataset(w->file, &io_truth_strength, H5T_IEEE_F64LE, n_pairs,
                                        NULL)) >= 0 &&
             io_h5_write_range(ds, H5T_NATIVE_DOUBLE, 0, n_pairs, pair_strength) == 0;
    if (ds >= 0) H5Dclose(ds);
    if (!ok) return io_failure(w, name);
    w->truth_done = 1;
    return DATUM_OK;
}

int datum_archive_writer_truth_attr(datum_archive_writer *w, const char *key, const char *value)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    if (io_h5_ensure_group(w->file, "truth") < 0) return io_failure(w, "truth");
    hid_t g = H5Gopen2(w->file, "truth", H5P_DEFAULT);
    int rc = DATUM_OK;
    if (g < 0) rc = io_failure(w, "truth");
    else if (key[0] == '\0' || H5Aexists(g, key) != 0)
        rc = refuse(w, "truth attribute \"%s\" is empty or repeated", key);
    else if (io_h5_set_str_attr(g, key, value) < 0) rc = io_failure(w, "truth");
    if (g >= 0) H5Gclose(g);
    return rc;
}

int datum_archive_writer_commit(datum_archive_writer **pw)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    datum_archive_writer *w = *pw;
    *pw = NULL;
    if (!w) return DATUM_OK;
    int rc = w->started ? DATUM_OK : start(w);
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++)
        if (w->field[k].ds >= 0) rc = flush(w, &w->field[k], 1);
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++)
        if (w->row[k].ds >= 0) rc = flush(w, &w->row[k], 1);
    io_archive_summary s = {w->n_results,        w->n_fields,        w->first_date,
                            w->last_date,        w->plan.has_adjusted, w->plan.has_teams,
                            w->plan.has_published, w->plan.has_published_percent};
    if (rc == DATUM_OK && io_archive_write_summary(w->file, &s, IO_ARCHIVE_FILE_VERSION) < 0)
        rc = io_failure(w, "attributes");
    if (rc == DATUM_OK) rc = io_h5_temp_commit(w->ctx, &w->file, &w->tmp, w->path);
    writer_free(w);
    return rc;
}

void datum_archive_writer_abort(datum_archive_writer **w)
{
    /* Nothing to do: HDF5 is not touched (its first use initialises the
     * library, which crashes when that runs out of memory). */
    if (!w || !*w) return;
    io_h5_silence(); /* this thread too: a caller may use several */
    writer_free(*w);
    *w = NULL;
}
