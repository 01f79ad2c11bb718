/*
 * import.c - CSV results into an archive: read and validate every row, give
 * the names dictionary indices in byte order and the rows the order (event,
 * section, board, table), so that the archive depends only on the set of
 * rows, never on their order in the files; then check the fields and write.
 */
#include "io_internal.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Dictionaries: interned names, then renumbered in byte order              */

typedef struct {
    char *bytes; /* the names, NUL-terminated one after another */
    size_t len, bytes_cap;
    size_t *start; /* start of name id in bytes */
    uint32_t n;
    size_t start_cap;
    uint32_t *slot; /* open addressing: id + 1, 0 for an empty slot */
    size_t n_slots;
    const char **sorted; /* after dict_sort: names in byte order */
    uint32_t *rank;      /* after dict_sort: id -> index in sorted */
} dict;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Inserts id into the hash table (which has room). */
static void dict_place(dict *d, uint32_t id)
{
    size_t i = hash_name(d->bytes + d->start[id]) & (d->n_slots - 1);
    while (d->slot[i]) i = (i + 1) & (d->n_slots - 1);
    d->slot[i] = id + 1;
}

/* Keeps the table at most half full; rehashes into twice the slots. */
static int dict_grow_table(datum_ctx *ctx, dict *d)
{
    if ((size_t)d->n + 1 <= d->n_slots / 2) return DATUM_OK;
    size_t n_slots = d->n_slots ? d->n_slots * 2 : 64;
    uint32_t *slot = io_calloc(ctx, n_slots, sizeof *slot);
    if (!slot) return DATUM_E_NOMEM;
    free(d->slot);
    d->slot = slot;
    d->n_slots = n_slots;
    for (uint32_t id = 0; id < d->n; id++) dict_place(d, id);
    return DATUM_OK;
}

/* The id of name s, adding it if new. */
static int dict_intern(datum_ctx *ctx, dict *d, const char *s, uint32_t *id)
{
    int rc = dict_grow_table(ctx, d);
    if (rc != DATUM_OK) return rc;
    size_t i = hash_name(s) & (d->n_slots - 1), len = strlen(s) + 1;
    for (; d->slot[i]; i = (i + 1) & (d->n_slots - 1))
        if (strcmp(d->bytes + d->start[d->slot[i] - 1], s) == 0) {
            *id = d->slot[i] - 1;
            return DATUM_OK;
        }
    if (d->n == INT32_MAX)
        return datum_ctx_fail(ctx, DATUM_E_INPUT, "more than 2^31-1 distinct names");
    if ((rc = io_reserve(ctx, &d->bytes, &d->bytes_cap, d->len + len, 1)) != DATUM_OK) return rc;
    rc = io_reserve(ctx, &d->start, &d->start_cap, (size_t)d->n + 1, sizeof *d->start);
    if (rc != DATUM_OK) return rc;
    memcpy(d->bytes + d->len, s, len);
    d->start[d->n] = d->len;
    d->len += len;
    d->slot[i] = d->n + 1;
    *id = d->n++;
    return DATUM_OK;
}

typedef struct {
    const char *name;
    uint32_t id;
} named;

static int compare_named(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name); /* as unsigned bytes */
}

/* Fills d->sorted and d->rank. */
static int dict_sort(datum_ctx *ctx, dict *d)
{
    named *order = io_calloc(ctx, d->n, sizeof *order);
    d->sorted = io_calloc(ctx, d->n, sizeof *d->sorted);
    d->rank = io_calloc(ctx, d->n, sizeof *d->rank);
    int rc = order && d->sorted && d->rank ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        for (uint32_t id = 0; id < d->n; id++) order[id] = (named){d->bytes + d->start[id], id};
        qsort(order, d->n, sizeof *order, compare_named);
        for (uint32_t r = 0; r < d->n; r++) {
            d->sorted[r] = order[r].name;
            d->rank[order[r].id] = r;
        }
    }
    free(order);
    return rc;
}

static void dict_free(dict *d)
{
    free(d->bytes);
    free(d->start);
    free(d->slot);
    free(d->sorted);
    free(d->rank);
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                     */

typedef struct {
    uint32_t event, section, ns_pair, ew_pair; /* dictionary ids, then ranks */
    int32_t board, table, ns_score, date;
    uint32_t file; /* index into the input paths */
    uint8_t adjusted;
    uint64_t line;
} row;

typedef struct {
    datum_ctx *ctx;
    const char *const *paths;
    dict dict[IO_N_DICTS];
    row *rows;
    size_t n_rows, rows_cap;
    uint64_t *offset; /* field f owns rows offset[f] .. offset[f+1]-1 */
    size_t n_fields;
    int has_adjusted;
} importer;

static int read_file(importer *im, uint32_t file)
{
    io_results_reader *reader = NULL;
    io_result_row in;
    int rc = io_results_open(im->ctx, im->paths[file], &reader);
    if (rc == DATUM_OK && io_results_has_adjusted(reader)) im->has_adjusted = 1;
    while (rc == DATUM_OK && (rc = io_results_next(reader, &in)) == 1) {
        dict *d = im->dict;
        rc = io_reserve(im->ctx, &im->rows, &im->rows_cap, im->n_rows + 1, sizeof *im->rows);
        if (rc != DATUM_OK) break;
        row *r = &im->rows[im->n_rows];
        if ((rc = dict_intern(im->ctx, &d[IO_D_EVENTS], in.event, &r->event)) != DATUM_OK ||
            (rc = dict_intern(im->ctx, &d[IO_D_SECTIONS], in.section, &r->section)) != DATUM_OK ||
            (rc = dict_intern(im->ctx, &d[IO_D_PAIRS], in.ns_pair, &r->ns_pair)) != DATUM_OK ||
            (rc = dict_intern(im->ctx, &d[IO_D_PAIRS], in.ew_pair, &r->ew_pair)) != DATUM_OK)
            break;
        r->board = in.board;
        r->table = in.table;
        r->ns_score = in.ns_score;
        r->date = in.date;
        r->adjusted = in.adjusted;
        r->file = file;
        r->line = in.line;
        im->n_rows++;
        rc = DATUM_OK;
    }
    io_results_close(&reader);
    return rc;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int same_field(const row *a, const row *b)
{
    return a->event == b->event && a->section == b->section && a->board == b->board;
}

/* Order of the rows in the input. */
static int compare_place(const row *a, const row *b)
{
    int c = CMP(a->file, b->file);
    return c ? c : CMP(a->line, b->line);
}

/* (event, section, board, table), then the place in the input: a total
 * order, in which the first of two clashing rows comes first in the input. */
static int compare_rows(const void *x, const void *y)
{
    const row *a = x, *b = y;
    int c = CMP(a->event, b->event);
    if (!c) c = CMP(a->section, b->section);
    if (!c) c = CMP(a->board, b->board);
    if (!c) c = CMP(a->table, b->table);
    return c ? c : compare_place(a, b);
}

static int sort_rows(importer *im)
{
    for (int k = 0; k < IO_N_DICTS; k++) {
        int rc = dict_sort(im->ctx, &im->dict[k]);
        if (rc != DATUM_OK) return rc;
    }
    const uint32_t *event = im->dict[IO_D_EVENTS].rank, *section = im->dict[IO_D_SECTIONS].rank,
                   *pair = im->dict[IO_D_PAIRS].rank;
    for (size_t i = 0; i < im->n_rows; i++) {
        row *r = &im->rows[i];
        r->event = event[r->event];
        r->section = section[r->section];
        r->ns_pair = pair[r->ns_pair];
        r->ew_pair = pair[r->ew_pair];
    }
    qsort(im->rows, im->n_rows, sizeof *im->rows, compare_rows);
    return DATUM_OK;
}

/* `event "E" section "S" board B` of a row, for messages. */
static const char *field_name(const importer *im, const row *r, char *buf, size_t size)
{
    snprintf(buf, size, "event \"%s\" section \"%s\" board %d",
             im->dict[IO_D_EVENTS].sorted[r->event], im->dict[IO_D_SECTIONS].sorted[r->section],
             (int)r->board);
    return buf;
}

/* One appearance of a pair in a field, for the check below. */
typedef struct {
    uint32_t pair;
    const char *column; /* "ns_pair" or "ew_pair" */
    const row *r;
} seat;

static int compare_seats(const void *x, const void *y)
{
    const seat *a = x, *b = y;
    int c = CMP(a->pair, b->pair);
    return c ? c : compare_place(a->r, b->r);
}

/* Rejects a table given twice in the field rows[0..n) (sorted). */
static int check_tables(const importer *im, const row *rows, size_t n)
{
    char name[512];
    for (size_t i = 1; i < n; i++)
        if (rows[i].table == rows[i - 1].table)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column table: %s table %d already appears at %s:%llu",
                                  im->paths[rows[i].file], (unsigned long long)rows[i].line,
                                  field_name(im, &rows[i], name, sizeof name), (int)rows[i].table,
                                  im->paths[rows[i - 1].file],
                                  (unsigned long long)rows[i - 1].line);
    return DATUM_OK;
}

/* Rejects a pair that sits twice in the field rows[0..n), at whichever
 * seats; seats has room for 2n. */
static int check_pairs(const importer *im, const row *rows, size_t n, seat *seats)
{
    char name[512];
    for (size_t i = 0; i < n; i++) {
        seats[2 * i] = (seat){rows[i].ns_pair, "ns_pair", &rows[i]};
        seats[2 * i + 1] = (seat){rows[i].ew_pair, "ew_pair", &rows[i]};
    }
    qsort(seats, 2 * n, sizeof *seats, compare_seats);
    for (size_t i = 1; i < 2 * n; i++) {
        const row *later = seats[i].r, *earlier = seats[i - 1].r;
        if (seats[i].pair == seats[i - 1].pair)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: pair \"%s\" already plays %s at %s:%llu",
                                  im->paths[later->file], (unsigned long long)later->line,
                                  seats[i].column, im->dict[IO_D_PAIRS].sorted[seats[i].pair],
                                  field_name(im, later, name, sizeof name),
                                  im->paths[earlier->file], (unsigned long long)earlier->line);
    }
    return DATUM_OK;
}

/* Finds the fields of the sorted rows and checks each. */
static int check_fields(importer *im)
{
    seat *seats = NULL;
    size_t seats_cap = 0;
    int rc = DATUM_OK;
    if (!(im->offset = io_calloc(im->ctx, im->n_rows + 1, sizeof *im->offset))) rc = DATUM_E_NOMEM;
    for (size_t begin = 0, end; rc == DATUM_OK && begin < im->n_rows; begin = end) {
        const row *field = im->rows + begin;
        for (end = begin + 1; end < im->n_rows && same_field(field, &im->rows[end]);) end++;
        im->offset[im->n_fields++] = begin;
        rc = check_tables(im, field, end - begin);
        if (rc == DATUM_OK)
            rc = io_reserve(im->ctx, &seats, &seats_cap, 2 * (end - begin), sizeof *seats);
        if (rc == DATUM_OK) rc = check_pairs(im, field, end - begin, seats);
    }
    if (rc == DATUM_OK) im->offset[im->n_fields] = im->n_rows;
    free(seats);
    return rc;
}

/* io_archive_content.fill: one column of the sorted rows. */
static void fill_column(const void *user, int is_field, int col, int64_t *out)
{
    const importer *im = user;
    const row *rows = im->rows;
    const uint64_t *offset = im->offset;
    if (is_field && col == IO_F_OFFSET) {
        for (size_t f = 0; f <= im->n_fields; f++) out[f] = (int64_t)offset[f];
    } else if (is_field) {
        for (size_t f = 0; f < im->n_fields; f++) {
            const row *first = &rows[offset[f]];
            switch (col) {
            case IO_F_EVENT: out[f] = first->event; break;
            case IO_F_SECTION: out[f] = first->section; break;
            case IO_F_BOARD: out[f] = first->board; break;
            default: /* IO_F_DATE: the field's latest date */
                out[f] = first->date;
                for (uint64_t i = offset[f]; i < offset[f + 1]; i++)
                    if (rows[i].date > out[f]) out[f] = rows[i].date;
            }
        }
    } else {
        for (size_t i = 0; i < im->n_rows; i++) {
            switch (col) {
            case IO_R_TABLE: out[i] = rows[i].table; break;
            case IO_R_NS_PAIR: out[i] = rows[i].ns_pair; break;
            case IO_R_EW_PAIR: out[i] = rows[i].ew_pair; break;
            case IO_R_NS_SCORE: out[i] = rows[i].ns_score; break;
            case IO_R_ADJUSTED: out[i] = rows[i].adjusted; break;
            default: out[i] = rows[i].date; /* IO_R_DATE */
            }
        }
    }
}

int datum_import_csv(datum_ctx *ctx, const char *const *csv_paths, size_t n_paths,
                     const char *out_path, const datum_write_options *opt)
{
    importer im = {.ctx = ctx, .paths = csv_paths};
    datum_write_options o;
    int rc = io_write_options(ctx, opt, &o);
    if (rc == DATUM_OK && n_paths == 0) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "no input file");
    if (rc == DATUM_OK && n_paths > UINT32_MAX)
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "too many input files");
    for (size_t f = 0; f < n_paths && rc == DATUM_OK; f++) rc = read_file(&im, (uint32_t)f);
    if (rc == DATUM_OK && im.n_rows == 0)
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT, "no results in the input (only headers)");
    if (rc == DATUM_OK) rc = sort_rows(&im);
    if (rc == DATUM_OK) rc = check_fields(&im);
    if (rc == DATUM_OK) {
        io_archive_content c = {.n_results = im.n_rows,
                                .n_fields = im.n_fields,
                                .has_adjusted = im.has_adjusted,
                                .fill = fill_column,
                                .user = &im};
        for (int k = 0; k < IO_N_DICTS; k++) {
            c.dict[k] = im.dict[k].sorted;
            c.dict_len[k] = im.dict[k].n;
        }
        c.first_date = c.last_date = im.rows[0].date;
        for (size_t i = 1; i < im.n_rows; i++) {
            if (im.rows[i].date < c.first_date) c.first_date = im.rows[i].date;
            if (im.rows[i].date > c.last_date) c.last_date = im.rows[i].date;
        }
        rc = io_archive_write(ctx, out_path, &c, &o);
    }
    for (int k = 0; k < IO_N_DICTS; k++) dict_free(&im.dict[k]);
    free(im.rows);
    free(im.offset);
    return rc;
}
