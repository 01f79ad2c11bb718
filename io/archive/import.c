/*
 * import.c - results into an archive (CSV, PBN and USEBIO: the text side's
 * row sources, io/text/): read and validate every row, give
 * the names dictionary indices in byte order and the rows the order (event,
 * section, board, table), so that the archive depends only on the set of
 * rows, never on their order in the files; then check the fields and hand
 * them to the archive writer, with the exact value ranges (narrowest types).
 */
#include "io_internal.h"

#include <math.h>
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
    uint32_t *slot = datum_calloc(ctx, n_slots, sizeof *slot);
    if (!slot) return DATUM_E_NOMEM;
    datum_free(d->slot);
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
    if ((rc = datum_reserve(ctx, &d->bytes, &d->bytes_cap, d->len + len, 1)) != DATUM_OK) return rc;
    rc = datum_reserve(ctx, &d->start, &d->start_cap, (size_t)d->n + 1, sizeof *d->start);
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
    named *order = datum_calloc(ctx, d->n, sizeof *order);
    d->sorted = datum_calloc(ctx, d->n, sizeof *d->sorted);
    d->rank = datum_calloc(ctx, d->n, sizeof *d->rank);
    int rc = order && d->sorted && d->rank ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        for (uint32_t id = 0; id < d->n; id++) order[id] = (named){d->bytes + d->start[id], id};
        qsort(order, d->n, sizeof *order, compare_named);
        for (uint32_t r = 0; r < d->n; r++) {
            d->sorted[r] = order[r].name;
            d->rank[order[r].id] = r;
        }
    }
    datum_free(order);
    return rc;
}

static void dict_free(dict *d)
{
    datum_free(d->bytes);
    datum_free(d->start);
    datum_free(d->slot);
    datum_free(d->sorted);
    datum_free(d->rank);
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                     */

#define NO_TEAM UINT32_MAX /* ns_team, ew_team and match of a result outside a teams match */
#define NO_EXTRA UINT32_MAX /* a row without published figures or deal */
#define NO_DEAL UINT32_MAX  /* a row whose deal is not known */

typedef struct {
    uint32_t event, section, ns_pair, ew_pair; /* dictionary ids, then ranks */
    uint32_t ns_team, ew_team, match;          /* likewise, or NO_TEAM */
    int32_t board, table, ns_score, date;
    uint32_t file; /* index into the input paths */
    uint8_t adjusted;
    uint32_t extra; /* index into importer.extra, or NO_EXTRA */
    uint64_t line;
} row;

/* A row's published figures and its deal, kept beside the rows rather than
 * in them so that a row stays 64 bytes for the imports that have neither
 * (CSV). */
typedef struct {
    double ns, ew;  /* published figures (NaN: none) */
    uint8_t method; /* their datum_published_method */
    double ns_percent, ew_percent; /* published percentages (NaN: none) */
    uint32_t deal;  /* the deal's id in importer.deals, or NO_DEAL */
} extra;

typedef struct {
    datum_ctx *ctx;
    const char *const *paths;
    dict dict[IO_N_DICTS];
    row *rows;
    size_t n_rows, rows_cap;
    uint64_t *offset; /* field f owns rows offset[f] .. offset[f+1]-1 */
    size_t n_fields;
    int has_adjusted, has_teams, has_published, has_published_percent, has_deals;
    extra *extra; /* in input order */
    size_t n_extra, extra_cap;
    dict deals;         /* the deal keys of the rows (interned, never sorted) */
    uint32_t *deal_set; /* has_deals: per field, its /fields/deal_set */
    uint64_t n_sitouts; /* rows the sources skipped */
} importer;

/* Keeps the published figures and the deal of row r, read from a source
 * that has some (src). */
static int keep_extra(importer *im, const io_row_source *src, row *r, const io_result_row *in)
{
    extra x = {NAN, NAN, DATUM_PUBLISHED_NONE, NAN, NAN, NO_DEAL};
    if (im->n_extra == NO_EXTRA)
        return datum_ctx_fail(im->ctx, DATUM_E_INPUT, "more than 2^32-1 results with published "
                                                      "figures or deals");
    int rc = datum_reserve(im->ctx, &im->extra, &im->extra_cap, im->n_extra + 1,
                        sizeof *im->extra);
    if (rc != DATUM_OK) return rc;
    if (src->has_published) {
        x.ns = in->published_ns;
        x.ew = in->published_ew;
        x.method = in->published_method;
    }
    if (src->has_published_percent) {
        x.ns_percent = in->published_ns_percent;
        x.ew_percent = in->published_ew_percent;
    }
    if (src->has_deals && in->deal &&
        (rc = dict_intern(im->ctx, &im->deals, in->deal, &x.deal)) != DATUM_OK)
        return rc;
    im->extra[im->n_extra] = x;
    r->extra = (uint32_t)im->n_extra++;
    return DATUM_OK;
}

static int read_file(importer *im, uint32_t file, io_row_source_open open, void *arg)
{
    io_row_source src = {0};
    io_result_row in;
    int rc = open(im->ctx, im->paths[file], arg, &src);
    if (rc == DATUM_OK && src.has_adjusted) im->has_adjusted = 1;
    if (rc == DATUM_OK && src.has_teams) im->has_teams = 1;
    if (rc == DATUM_OK && src.has_published) im->has_published = 1;
    if (rc == DATUM_OK && src.has_published_percent) im->has_published_percent = 1;
    if (rc == DATUM_OK && src.has_deals) im->has_deals = 1;
    while (rc == DATUM_OK && (rc = src.next(src.self, &in)) == 1) {
        dict *d = im->dict;
        rc = datum_reserve(im->ctx, &im->rows, &im->rows_cap, im->n_rows + 1, sizeof *im->rows);
        if (rc != DATUM_OK) break;
        row *r = &im->rows[im->n_rows];
        if ((rc = dict_intern(im->ctx, &d[IO_D_EVENTS], in.event, &r->event)) != DATUM_OK ||
            (rc = dict_intern(im->ctx, &d[IO_D_SECTIONS], in.section, &r->section)) != DATUM_OK ||
            (rc = dict_intern(im->ctx, &d[IO_D_PAIRS], in.ns_pair, &r->ns_pair)) != DATUM_OK ||
            (rc = dict_intern(im->ctx, &d[IO_D_PAIRS], in.ew_pair, &r->ew_pair)) != DATUM_OK)
            break;
        r->ns_team = r->ew_team = r->match = NO_TEAM;
        if (in.match &&
            ((rc = dict_intern(im->ctx, &d[IO_D_TEAMS], in.ns_team, &r->ns_team)) != DATUM_OK ||
             (rc = dict_intern(im->ctx, &d[IO_D_TEAMS], in.ew_team, &r->ew_team)) != DATUM_OK ||
             (rc = dict_intern(im->ctx, &d[IO_D_MATCHES], in.match, &r->match)) != DATUM_OK))
            break;
        r->board = in.board;
        r->table = in.table;
        r->ns_score = in.ns_score;
        r->date = in.date;
        r->adjusted = in.adjusted;
        r->file = file;
        r->line = in.line;
        r->extra = NO_EXTRA;
        if ((src.has_published || src.has_published_percent || src.has_deals) &&
            (rc = keep_extra(im, &src, r, &in)) != DATUM_OK)
            break;
        im->n_rows++;
        rc = DATUM_OK;
    }
    if (rc == DATUM_OK && src.n_sitouts) im->n_sitouts += *src.n_sitouts;
    if (src.close) src.close(src.self);
    return rc;
}

/* The CSV reader as a row source. */
static int csv_next(void *self, io_result_row *out)
{
    return io_results_next(self, out);
}

static void csv_close(void *self)
{
    io_results_reader *r = self;
    io_results_close(&r);
}

int io_csv_source_open(datum_ctx *ctx, const char *path, void *arg, io_row_source *src)
{
    io_results_reader *r = NULL;
    (void)arg;
    int rc = io_results_open(ctx, path, &r);
    if (rc != DATUM_OK) return rc;
    *src = (io_row_source){.self = r, .next = csv_next, .close = csv_close,
                           .has_adjusted = io_results_has_adjusted(r),
                           .has_teams = io_results_has_teams(r), .n_sitouts = io_results_sitouts(r)};
    return DATUM_OK;
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
                   *pair = im->dict[IO_D_PAIRS].rank, *team = im->dict[IO_D_TEAMS].rank,
                   *match = im->dict[IO_D_MATCHES].rank;
    for (size_t i = 0; i < im->n_rows; i++) {
        row *r = &im->rows[i];
        r->event = event[r->event];
        r->section = section[r->section];
        r->ns_pair = pair[r->ns_pair];
        r->ew_pair = pair[r->ew_pair];
        if (r->match != NO_TEAM) {
            r->ns_team = team[r->ns_team];
            r->ew_team = team[r->ew_team];
            r->match = match[r->match];
        }
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

/* One appearance of a pair, team or match in a field, for the checks below. */
typedef struct {
    uint32_t id;
    const char *column; /* "ns_pair", "ew_pair", "ns_team", ... */
    const row *r;
} seat;

static int compare_seats(const void *x, const void *y)
{
    const seat *a = x, *b = y;
    int c = CMP(a->id, b->id);
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

/* The 2n seats of the field rows[0..n): its pairs, or its teams, sorted by
 * identifier, then by place in the input. */
static void sort_seats(const row *rows, size_t n, int teams, seat *seats)
{
    for (size_t i = 0; i < n; i++) {
        seats[2 * i] = teams ? (seat){rows[i].ns_team, "ns_team", &rows[i]}
                             : (seat){rows[i].ns_pair, "ns_pair", &rows[i]};
        seats[2 * i + 1] = teams ? (seat){rows[i].ew_team, "ew_team", &rows[i]}
                                 : (seat){rows[i].ew_pair, "ew_pair", &rows[i]};
    }
    qsort(seats, 2 * n, sizeof *seats, compare_seats);
}

/* Rejects a pair that sits twice in the field rows[0..n), at whichever
 * seats; seats has room for 2n. */
static int check_pairs(const importer *im, const row *rows, size_t n, seat *seats)
{
    char name[512];
    sort_seats(rows, n, 0, seats);
    for (size_t i = 1; i < 2 * n; i++) {
        const row *later = seats[i].r, *earlier = seats[i - 1].r;
        if (seats[i].id == seats[i - 1].id)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: pair \"%s\" already plays %s at %s:%llu",
                                  im->paths[later->file], (unsigned long long)later->line,
                                  seats[i].column, im->dict[IO_D_PAIRS].sorted[seats[i].id],
                                  field_name(im, later, name, sizeof name),
                                  im->paths[earlier->file], (unsigned long long)earlier->line);
    }
    return DATUM_OK;
}

/* Rejects, in the field rows[0..n), teams results beside others, a match
 * whose tables are not all between the same two teams, and a team in two
 * matches; seats has room for 2n. */
static int check_teams(const importer *im, const row *rows, size_t n, seat *seats)
{
    const char *const *team = im->dict[IO_D_TEAMS].sorted;
    const char *const *match = im->dict[IO_D_MATCHES].sorted;
    const row *with = NULL, *without = NULL;
    char name[512];
    for (size_t i = 0; i < n; i++) *(rows[i].match == NO_TEAM ? &without : &with) = &rows[i];
    if (!with) return DATUM_OK;
    if (without)
        return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                              "%s:%llu: column match: %s also has a result outside any match, at "
                              "%s:%llu",
                              im->paths[with->file], (unsigned long long)with->line,
                              field_name(im, with, name, sizeof name), im->paths[without->file],
                              (unsigned long long)without->line);
    /* By match: every table between the two teams of the match's first one. */
    for (size_t i = 0; i < n; i++) seats[i] = (seat){rows[i].match, "match", &rows[i]};
    qsort(seats, n, sizeof *seats, compare_seats);
    for (size_t i = 1, first = 0; i < n; i++) {
        const row *a = seats[first].r, *b = seats[i].r;
        if (seats[i].id != seats[first].id) {
            first = i;
            continue;
        }
        int ns_ok = b->ns_team == a->ns_team || b->ns_team == a->ew_team;
        int ew_ok = b->ew_team == a->ns_team || b->ew_team == a->ew_team;
        if (!ns_ok || !ew_ok)
            return datum_ctx_fail(
                im->ctx, DATUM_E_INPUT,
                "%s:%llu: column %s: team \"%s\" is not in match \"%s\" of %s (teams \"%s\" and "
                "\"%s\" at %s:%llu)",
                im->paths[b->file], (unsigned long long)b->line, ns_ok ? "ew_team" : "ns_team",
                team[ns_ok ? b->ew_team : b->ns_team], match[b->match],
                field_name(im, b, name, sizeof name), team[a->ns_team], team[a->ew_team],
                im->paths[a->file], (unsigned long long)a->line);
    }
    /* By team: one match. */
    sort_seats(rows, n, 1, seats);
    for (size_t i = 1; i < 2 * n; i++) {
        const row *later = seats[i].r, *earlier = seats[i - 1].r;
        if (seats[i].id == seats[i - 1].id && later->match != earlier->match)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: team \"%s\" already plays match \"%s\" of "
                                  "%s at %s:%llu",
                                  im->paths[later->file], (unsigned long long)later->line,
                                  seats[i].column, team[seats[i].id], match[earlier->match],
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
    if (!(im->offset = datum_calloc(im->ctx, im->n_rows + 1, sizeof *im->offset))) rc = DATUM_E_NOMEM;
    for (size_t begin = 0, end; rc == DATUM_OK && begin < im->n_rows; begin = end) {
        const row *field = im->rows + begin;
        for (end = begin + 1; end < im->n_rows && same_field(field, &im->rows[end]);) end++;
        im->offset[im->n_fields++] = begin;
        rc = check_tables(im, field, end - begin);
        if (rc == DATUM_OK)
            rc = datum_reserve(im->ctx, &seats, &seats_cap, 2 * (end - begin), sizeof *seats);
        if (rc == DATUM_OK) rc = check_pairs(im, field, end - begin, seats);
        if (rc == DATUM_OK) rc = check_teams(im, field, end - begin, seats);
    }
    if (rc == DATUM_OK) im->offset[im->n_fields] = im->n_rows;
    datum_free(seats);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Deal sets: which fields of an event played the same deal                 */

/* A field's place among the fields of its event that played its board. */
typedef struct {
    uint32_t event;
    int32_t board;
    uint32_t deal; /* its rows' deal id, or NO_DEAL */
    uint32_t section;
    size_t field;
} deal_key;

static int compare_deal_keys(const void *x, const void *y)
{
    const deal_key *a = x, *b = y;
    int c = CMP(a->event, b->event);
    if (!c) c = CMP(a->board, b->board);
    if (!c) c = CMP(a->deal, b->deal);
    return c ? c : CMP(a->section, b->section);
}

static uint32_t deal_of(const importer *im, const row *r)
{
    return r->extra == NO_EXTRA ? NO_DEAL : im->extra[r->extra].deal;
}

/* The deal of field f: that of its rows whose deal is known, which must all
 * agree (NO_DEAL when none is known). */
static int field_deal(const importer *im, size_t f, uint32_t *deal)
{
    const row *first = NULL;
    char name[512];
    *deal = NO_DEAL;
    for (uint64_t i = im->offset[f]; i < im->offset[f + 1]; i++) {
        const row *r = &im->rows[i];
        uint32_t d = deal_of(im, r);
        if (d == NO_DEAL || d == *deal) continue;
        if (first)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: %s was played with another deal at %s:%llu",
                                  im->paths[r->file], (unsigned long long)r->line,
                                  field_name(im, r, name, sizeof name), im->paths[first->file],
                                  (unsigned long long)first->line);
        *deal = d;
        first = r;
    }
    return DATUM_OK;
}

/* /fields/deal_set: the first section (in dictionary order) of the field's
 * event that played the same deal on its board; the fields whose deal is
 * not known count as one more deal of the board. A function of the set of
 * rows only, whatever the ids of the deals. */
static int find_deal_sets(importer *im)
{
    deal_key *key = datum_calloc(im->ctx, im->n_fields + 1, sizeof *key);
    im->deal_set = datum_calloc(im->ctx, im->n_fields + 1, sizeof *im->deal_set);
    int rc = key && im->deal_set ? DATUM_OK : DATUM_E_NOMEM;
    for (size_t f = 0; f < im->n_fields && rc == DATUM_OK; f++) {
        const row *first = &im->rows[im->offset[f]];
        key[f] = (deal_key){first->event, first->board, NO_DEAL, first->section, f};
        rc = field_deal(im, f, &key[f].deal);
    }
    if (rc == DATUM_OK) qsort(key, im->n_fields, sizeof *key, compare_deal_keys);
    for (size_t i = 0, run = 0; rc == DATUM_OK && i < im->n_fields; i++) {
        if (key[i].event != key[run].event || key[i].board != key[run].board ||
            key[i].deal != key[run].deal)
            run = i;
        im->deal_set[key[i].field] = key[run].section;
    }
    datum_free(key);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Writing: whole fields, in batches, to the archive writer                  */

enum { BATCH_ROWS = 1 << 16 };

/* A batch of whole fields in the layout of datum_chunk. */
typedef struct {
    uint64_t *offset;
    uint32_t *event, *section, *deal_set;
    int32_t *board, *table, *ns_pair, *ew_pair, *ns_score, *date, *ns_team, *ew_team, *match;
    uint8_t *adjusted, *published_method;
    double *published_ns, *published_ew, *published_ns_percent, *published_ew_percent;
} batch;

static int batch_alloc(datum_ctx *ctx, batch *b, size_t rows)
{
    int32_t **row32[] = {&b->board, &b->table,   &b->ns_pair, &b->ew_pair, &b->ns_score,
                         &b->date,  &b->ns_team, &b->ew_team, &b->match};
    int ok = (b->offset = datum_calloc(ctx, rows + 1, sizeof *b->offset)) &&
             (b->event = datum_calloc(ctx, rows, sizeof *b->event)) &&
             (b->section = datum_calloc(ctx, rows, sizeof *b->section)) &&
             (b->deal_set = datum_calloc(ctx, rows, sizeof *b->deal_set)) &&
             (b->adjusted = datum_calloc(ctx, rows, sizeof *b->adjusted)) &&
             (b->published_method = datum_calloc(ctx, rows, sizeof *b->published_method)) &&
             (b->published_ns = datum_calloc(ctx, rows, sizeof *b->published_ns)) &&
             (b->published_ew = datum_calloc(ctx, rows, sizeof *b->published_ew)) &&
             (b->published_ns_percent = datum_calloc(ctx, rows, sizeof *b->published_ns_percent)) &&
             (b->published_ew_percent = datum_calloc(ctx, rows, sizeof *b->published_ew_percent));
    for (size_t k = 0; ok && k < sizeof row32 / sizeof *row32; k++)
        ok = (*row32[k] = datum_calloc(ctx, rows, sizeof **row32[k])) != NULL;
    return ok ? DATUM_OK : DATUM_E_NOMEM;
}

static void batch_free(batch *b)
{
    void *all[] = {b->offset,  b->event,  b->section,  b->deal_set, b->board,   b->table,
                   b->ns_pair, b->ew_pair, b->ns_score, b->date,    b->ns_team,
                   b->ew_team, b->match,   b->adjusted, b->published_method,
                   b->published_ns, b->published_ew, b->published_ns_percent,
                   b->published_ew_percent};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) datum_free(all[k]);
}

/* Fields f0..f1-1 as a chunk for the writer. */
static void batch_fill(const importer *im, batch *b, size_t f0, size_t f1, datum_chunk *c)
{
    uint64_t row0 = im->offset[f0];
    for (size_t f = f0; f < f1; f++) {
        const row *first = &im->rows[im->offset[f]];
        b->offset[f - f0] = im->offset[f] - row0;
        b->event[f - f0] = first->event;
        b->section[f - f0] = first->section;
        b->board[f - f0] = first->board;
        if (im->has_deals) b->deal_set[f - f0] = im->deal_set[f];
    }
    b->offset[f1 - f0] = im->offset[f1] - row0;
    for (uint64_t i = 0; i < b->offset[f1 - f0]; i++) {
        const row *r = &im->rows[row0 + i];
        b->table[i] = r->table;
        b->ns_pair[i] = (int32_t)r->ns_pair;
        b->ew_pair[i] = (int32_t)r->ew_pair;
        b->ns_score[i] = r->ns_score;
        b->date[i] = r->date;
        b->adjusted[i] = r->adjusted;
        b->ns_team[i] = r->match == NO_TEAM ? -1 : (int32_t)r->ns_team;
        b->ew_team[i] = r->match == NO_TEAM ? -1 : (int32_t)r->ew_team;
        b->match[i] = r->match == NO_TEAM ? -1 : (int32_t)r->match;
        if (!im->has_published && !im->has_published_percent) continue;
        const extra none = {NAN, NAN, DATUM_PUBLISHED_NONE, NAN, NAN, NO_DEAL};
        const extra *p = r->extra == NO_EXTRA ? &none : &im->extra[r->extra];
        b->published_ns[i] = p->ns;
        b->published_ew[i] = p->ew;
        b->published_method[i] = p->method;
        b->published_ns_percent[i] = p->ns_percent;
        b->published_ew_percent[i] = p->ew_percent;
    }
    *c = (datum_chunk){.n_fields = f1 - f0,
                       .n_rows = b->offset[f1 - f0],
                       .offset = b->offset,
                       .field_event = b->event,
                       .field_section = b->section,
                       .field_board = b->board,
                       .table = b->table,
                       .ns_pair = b->ns_pair,
                       .ew_pair = b->ew_pair,
                       .ns_score = b->ns_score,
                       .adjusted = im->has_adjusted ? b->adjusted : NULL,
                       .date = b->date,
                       .ns_team = im->has_teams ? b->ns_team : NULL,
                       .ew_team = im->has_teams ? b->ew_team : NULL,
                       .match = im->has_teams ? b->match : NULL,
                       .published_ns = im->has_published ? b->published_ns : NULL,
                       .published_ew = im->has_published ? b->published_ew : NULL,
                       .published_method = im->has_published ? b->published_method : NULL,
                       .published_ns_percent = im->has_published_percent ? b->published_ns_percent
                                                                         : NULL,
                       .published_ew_percent = im->has_published_percent ? b->published_ew_percent
                                                                         : NULL,
                       .field_deal_set = im->has_deals ? b->deal_set : NULL};
}

/* The plan of the archive: the exact ranges, hence the narrowest types. */
static datum_archive_plan exact_plan(const importer *im)
{
    datum_archive_plan p = DATUM_ARCHIVE_PLAN_INIT;
    const row *rows = im->rows;
    p.has_adjusted = im->has_adjusted;
    p.has_teams = im->has_teams;
    p.has_published = im->has_published;
    p.has_published_percent = im->has_published_percent;
    p.has_deal_sets = im->has_deals;
    p.max_results = im->n_rows;
    p.max_fields = im->n_fields;
    p.max_board = 1;
    p.max_table = 0;
    p.min_score = p.max_score = rows[0].ns_score;
    p.min_date = p.max_date = rows[0].date;
    for (size_t i = 0; i < im->n_rows; i++) {
        if (rows[i].board > p.max_board) p.max_board = rows[i].board;
        if (rows[i].table > p.max_table) p.max_table = rows[i].table;
        if (rows[i].ns_score < p.min_score) p.min_score = rows[i].ns_score;
        if (rows[i].ns_score > p.max_score) p.max_score = rows[i].ns_score;
        if (rows[i].date < p.min_date) p.min_date = rows[i].date;
        if (rows[i].date > p.max_date) p.max_date = rows[i].date;
    }
    return p;
}

static int write_archive(importer *im, const char *path, const datum_write_options *opt)
{
    datum_archive_plan plan = exact_plan(im);
    datum_archive_writer *w = NULL;
    batch b = {0};
    size_t cap = BATCH_ROWS; /* rows of a batch: BATCH_ROWS, or the largest field */
    for (size_t f = 0; f < im->n_fields; f++)
        if (im->offset[f + 1] - im->offset[f] > cap) cap = im->offset[f + 1] - im->offset[f];
    if (cap > im->n_rows) cap = im->n_rows;
    int rc = batch_alloc(im->ctx, &b, cap);
    if (rc == DATUM_OK) rc = datum_archive_writer_create(im->ctx, path, &plan, opt, &w);
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++)
        if (io_has_dict(k, im->has_teams))
            rc = datum_archive_writer_dict(w, (datum_dict)k, im->dict[k].sorted, im->dict[k].n);
    for (size_t f0 = 0, f1; f0 < im->n_fields && rc == DATUM_OK; f0 = f1) {
        datum_chunk c;
        for (f1 = f0 + 1; f1 < im->n_fields && im->offset[f1 + 1] - im->offset[f0] <= cap;) f1++;
        batch_fill(im, &b, f0, f1, &c);
        rc = datum_archive_writer_append(w, &c);
    }
    if (rc == DATUM_OK) rc = datum_archive_writer_commit(&w);
    datum_archive_writer_abort(&w);
    batch_free(&b);
    return rc;
}

/* Imports the rows of the paths, opened with open(arg); *n_sitouts
 * receives the number of sit-out rows the sources skipped. */
static int import_rows(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                       io_row_source_open open, void *arg, const char *out_path,
                       const datum_write_options *opt, uint64_t *n_sitouts)
{
    importer im = {.ctx = ctx, .paths = paths};
    datum_write_options o;
    int rc = io_write_options(ctx, opt, &o);
    if (rc == DATUM_OK && n_paths == 0) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "no input file");
    if (rc == DATUM_OK && n_paths > UINT32_MAX)
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "too many input files");
    for (size_t f = 0; f < n_paths && rc == DATUM_OK; f++)
        rc = read_file(&im, (uint32_t)f, open, arg);
    if (rc == DATUM_OK && im.n_rows == 0)
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT, "no results in the input (only headers%s)",
                            im.n_sitouts ? " and sit-out rows" : "");
    if (rc == DATUM_OK) rc = sort_rows(&im);
    if (rc == DATUM_OK) rc = check_fields(&im);
    if (rc == DATUM_OK && im.has_deals) rc = find_deal_sets(&im);
    if (rc == DATUM_OK) rc = write_archive(&im, out_path, &o);
    *n_sitouts = im.n_sitouts;
    for (int k = 0; k < IO_N_DICTS; k++) dict_free(&im.dict[k]);
    datum_free(im.rows);
    datum_free(im.offset);
    datum_free(im.extra);
    dict_free(&im.deals);
    datum_free(im.deal_set);
    return rc;
}

/* The sit-out rows an import skipped, as a warning (docs/cli.md): they are
 * not refused, and not lost without a word. rc: the import's. */
static int report_sitouts(datum_ctx *ctx, int rc, uint64_t n)
{
    if (rc >= 0 && n > 0)
        datum_ctx_warn(ctx, "skipped %llu sit-out row%s (a pair without an opponent and without "
                            "a result: not scored)",
                       (unsigned long long)n, n == 1 ? "" : "s");
    return rc;
}

int datum_import_csv(datum_ctx *ctx, const char *const *csv_paths, size_t n_paths,
                     const char *out_path, const datum_write_options *opt)
{
    uint64_t sitouts;
    int rc = import_rows(ctx, csv_paths, n_paths, io_csv_source_open, NULL, out_path, opt, &sitouts);
    return report_sitouts(ctx, rc, sitouts);
}

int datum_import_pbn(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                     const char *out_path, datum_pbn_options *po, const datum_write_options *opt)
{
    datum_pbn_options defaults = DATUM_PBN_OPTIONS_INIT;
    if (!po) po = &defaults;
    po->n_computed = 0;
    uint64_t warnings = datum_ctx_warnings(ctx), sitouts;
    int rc = import_rows(ctx, paths, n_paths, io_pbn_open, po, out_path, opt, &sitouts);
    if (rc == DATUM_OK && datum_ctx_warnings(ctx) > warnings) rc = DATUM_W_SCORE;
    return report_sitouts(ctx, rc, sitouts);
}

int datum_import_usebio(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                        const char *out_path, const datum_write_options *opt)
{
    uint64_t sitouts;
    int rc = import_rows(ctx, paths, n_paths, io_usebio_open, NULL, out_path, opt, &sitouts);
    return report_sitouts(ctx, rc, sitouts);
}
