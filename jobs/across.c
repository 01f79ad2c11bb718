/* across.c - fields merged across the sections of an event (docs/methods.md,
 * "Across the field"): the fields of a chunk of whole events that played the
 * same board with the same deal become one field, by a permutation of the
 * rows; the engine's kernels run on it unchanged, and their per-row and
 * per-field figures are put back in archive order. Sequential and
 * deterministic: the merged order depends on the chunk only. */
#include "datum_alloc.h"
#include "datum_jobs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The row arrays of a datum_chunk, entry k that of the column DATUM_COL_*
 * bit 1 << k: where each is, and its element size. */
static const struct {
    size_t member, size;
} kRowColumns[] = {
    {offsetof(datum_chunk, table), sizeof(int32_t)},
    {offsetof(datum_chunk, ns_pair), sizeof(int32_t)},
    {offsetof(datum_chunk, ew_pair), sizeof(int32_t)},
    {offsetof(datum_chunk, ns_score), sizeof(int32_t)},
    {offsetof(datum_chunk, adjusted), sizeof(uint8_t)},
    {offsetof(datum_chunk, date), sizeof(int32_t)},
    {offsetof(datum_chunk, ns_team), sizeof(int32_t)},
    {offsetof(datum_chunk, ew_team), sizeof(int32_t)},
    {offsetof(datum_chunk, match), sizeof(int32_t)},
    {offsetof(datum_chunk, published_ns), sizeof(double)},
    {offsetof(datum_chunk, published_ew), sizeof(double)},
    {offsetof(datum_chunk, published_method), sizeof(uint8_t)},
    {offsetof(datum_chunk, published_ns_percent), sizeof(double)},
    {offsetof(datum_chunk, published_ew_percent), sizeof(double)},
};
enum { N_ROW_COLUMNS = sizeof kRowColumns / sizeof *kRowColumns };
_Static_assert(DATUM_COL_ALL == (1u << N_ROW_COLUMNS) - 1 && DATUM_COL_NS_SCORE == 1u << 3 &&
                   DATUM_COL_PUBLISHED_METHOD == 1u << 11 &&
                   DATUM_COL_PUBLISHED_EW_PERCENT == 1u << 13,
               "kRowColumns follows the DATUM_COL_* bits");

/* Copies go parallel from this many elements (below, waking the threads
 * costs more); each element is copied once, so any thread count gives the
 * same bytes. */
#define PARALLEL_MIN 65536

/* to[i] = from[map[i]] (gather) or to[map[i]] = from[i] (scatter, the
 * inverse), for n elements of `size` bytes (1, 4 or 8). */
#define PERMUTE(T, dst, src)                                                                       \
    _Pragma("omp parallel for num_threads(threads) schedule(static) if (n >= PARALLEL_MIN)")      \
    for (int64_t i = 0; i < (int64_t)n; i++) ((T *)to)[dst] = ((const T *)from)[src]
static void gather(void *to, const void *from, const uint64_t *map, size_t n, size_t size,
                   int threads)
{
    if (size == 1) { PERMUTE(uint8_t, i, map[i]); }
    else if (size == 4) { PERMUTE(uint32_t, i, map[i]); }
    else { PERMUTE(uint64_t, i, map[i]); }
}

static void scatter(void *to, const void *from, const uint64_t *map, size_t n, size_t size,
                    int threads)
{
    if (size == 1) { PERMUTE(uint8_t, map[i], i); }
    else if (size == 4) { PERMUTE(uint32_t, map[i], i); }
    else { PERMUTE(uint64_t, map[i], i); }
}
#undef PERMUTE

/* The row array at `member` of a chunk (a const T * member). */
static const void *row_column(const datum_chunk *c, size_t member)
{
    return *(const void *const *)(const void *)((const char *)c + member);
}

static const void **row_column_slot(datum_chunk *c, size_t member)
{
    return (const void **)(void *)((char *)c + member);
}

/* A chunk field's place in the sort that groups the fields to merge. */
typedef struct {
    uint32_t event, deal;
    int32_t board;
    uint32_t field;
} group_key;

struct datum_across {
    datum_ctx *ctx;
    const datum_archive *a;
    uint32_t n_pairs;
    uint64_t *seen, stamp; /* seen[pair]: the stamp of the last merged field it plays in */
    uint32_t *seat_field;  /* seat_field[pair]: the chunk field where seen last saw it */
    /* The chunk last merged. */
    size_t n_fields, n_rows;
    int identity; /* no field merged with another: merged rows are the chunk's */
    size_t n_merged;
    group_key *key;
    uint32_t *field_map;     /* chunk field -> merged field */
    uint32_t *member;        /* chunk fields by merged field, in archive order */
    uint64_t *member_offset; /* merged field m: member[member_offset[m] .. [m + 1]) */
    uint64_t *row_map;       /* merged row -> chunk row */
    size_t fields_cap, rows_cap;
    /* The merged chunk's arrays. */
    uint64_t *offset;
    uint32_t *event, *section, *deal_set;
    int32_t *board, *date;
    unsigned char *rows[N_ROW_COLUMNS];
    size_t row_cap[N_ROW_COLUMNS];
    double *scratch; /* unmerging: one value per row (or field) */
    size_t scratch_cap;
    uint64_t fields_read, fields_scored;
};

int datum_across_create(datum_ctx *ctx, const datum_archive *a, datum_across **out)
{
    *out = NULL;
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    datum_across *x = datum_calloc(ctx, 1, sizeof *x);
    if (!x) return DATUM_E_NOMEM;
    x->ctx = ctx;
    x->a = a;
    x->n_pairs = info.n_pairs;
    x->seen = datum_calloc(ctx, (size_t)info.n_pairs + 1, sizeof *x->seen);
    x->seat_field = x->seen ? datum_calloc(ctx, (size_t)info.n_pairs + 1, sizeof *x->seat_field)
                            : NULL;
    if (!x->seat_field) {
        datum_across_free(&x);
        return DATUM_E_NOMEM;
    }
    *out = x;
    return DATUM_OK;
}

void datum_across_free(datum_across **px)
{
    if (!px || !*px) return;
    datum_across *x = *px;
    void *all[] = {x->seen,   x->seat_field, x->key,     x->field_map, x->member,
                   x->member_offset, x->row_map, x->offset, x->event, x->section,
                   x->deal_set, x->board, x->date, x->scratch};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) datum_free(all[k]);
    for (int k = 0; k < N_ROW_COLUMNS; k++) datum_free(x->rows[k]);
    datum_free(x);
    *px = NULL;
}

/* 1 if two fields are merged: one event, one board, one deal. */
static int same_group(const group_key *a, const group_key *b)
{
    return a->event == b->event && a->board == b->board && a->deal == b->deal;
}

static int compare_keys(const void *p, const void *q)
{
    const group_key *a = p, *b = q;
    if (a->event != b->event) return a->event < b->event ? -1 : 1;
    if (a->board != b->board) return a->board < b->board ? -1 : 1;
    if (a->deal != b->deal) return a->deal < b->deal ? -1 : 1;
    return a->field < b->field ? -1 : a->field > b->field;
}

static int room(datum_across *x, size_t fields, size_t rows)
{
    void *const per_field[] = {&x->key,   &x->field_map, &x->member,   &x->member_offset,
                               &x->offset, &x->event,    &x->section, &x->deal_set,
                               &x->board,  &x->date};
    const size_t field_size[] = {sizeof *x->key,    sizeof *x->field_map, sizeof *x->member,
                                 sizeof *x->member_offset, sizeof *x->offset, sizeof *x->event,
                                 sizeof *x->section, sizeof *x->deal_set, sizeof *x->board,
                                 sizeof *x->date};
    int rc = datum_reserve_all(x->ctx, &x->fields_cap, fields + 1, 10, per_field, field_size);
    if (rc == DATUM_OK) rc = datum_reserve(x->ctx, &x->row_map, &x->rows_cap, rows + 1,
                                           sizeof *x->row_map);
    size_t scratch = rows > fields ? rows : fields;
    if (rc == DATUM_OK)
        rc = datum_reserve(x->ctx, &x->scratch, &x->scratch_cap, scratch + 1, sizeof *x->scratch);
    return rc;
}

/* The fields of chunk c grouped: x->member in merged order, x->member_offset,
 * x->field_map; x->identity when no group has two fields. */
static void group_fields(datum_across *x, const datum_chunk *c)
{
    size_t n = (size_t)c->n_fields, m = 0;
    for (size_t f = 0; f < n; f++)
        x->key[f] = (group_key){c->field_event[f], c->field_deal_set ? c->field_deal_set[f] : 0,
                                c->field_board[f], (uint32_t)f};
    /* Sorted event by event (the chunk's fields are by event, section,
     * board); an event of one section has one field per board: no sort. */
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && c->field_event[b] == c->field_event[a];) b++;
        if (c->field_section[b - 1] != c->field_section[a])
            qsort(x->key + a, b - a, sizeof *x->key, compare_keys);
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same_group(&x->key[i], &x->key[i - 1])) m++;
        x->field_map[x->key[i].field] = (uint32_t)(m - 1); /* numbered in key order, for now */
    }
    /* Merged fields in the order of their first fields (archive order). */
    uint32_t *renumber = x->member; /* scratch: group in key order -> merged field */
    for (size_t g = 0; g < m; g++) renumber[g] = UINT32_MAX;
    size_t next = 0;
    for (size_t f = 0; f < n; f++)
        if (renumber[x->field_map[f]] == UINT32_MAX) renumber[x->field_map[f]] = (uint32_t)next++;
    for (size_t f = 0; f < n; f++) x->field_map[f] = renumber[x->field_map[f]];
    memset(x->member_offset, 0, (m + 1) * sizeof *x->member_offset);
    for (size_t f = 0; f < n; f++) x->member_offset[x->field_map[f] + 1]++;
    for (size_t g = 0; g < m; g++) x->member_offset[g + 1] += x->member_offset[g];
    uint64_t *fill = x->offset; /* scratch: next member slot per merged field */
    memcpy(fill, x->member_offset, m * sizeof *fill);
    for (size_t f = 0; f < n; f++) x->member[fill[x->field_map[f]]++] = (uint32_t)f;
    x->n_merged = m;
    x->identity = m == n;
}

/* The rows of merged field g: no pair twice. */
static int check_pairs(datum_across *x, const datum_chunk *c, size_t g)
{
    uint64_t stamp = ++x->stamp;
    for (uint64_t k = x->member_offset[g]; k < x->member_offset[g + 1]; k++) {
        uint32_t f = x->member[k];
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            const int32_t seat[2] = {c->ns_pair[r], c->ew_pair[r]};
            for (int s = 0; s < 2; s++) {
                uint32_t p = (uint32_t)seat[s];
                if (p >= x->n_pairs) continue; /* the chunk reader checked the indices */
                if (x->seen[p] == stamp) {
                    const datum_archive *a = x->a;
                    return datum_ctx_fail(
                        x->ctx, DATUM_E_INPUT,
                        "%s, board %d: pair \"%s\" plays in section \"%s\" and in section \"%s\" "
                        "(across sections, a pair plays a board once: are pair names unique in "
                        "the event?)",
                        datum_archive_event(a, c->field_event[f]), (int)c->field_board[f],
                        datum_archive_pair(a, p),
                        datum_archive_section(a, c->field_section[x->seat_field[p]]),
                        datum_archive_section(a, c->field_section[f]));
                }
                x->seen[p] = stamp;
                x->seat_field[p] = f;
            }
        }
    }
    return DATUM_OK;
}

int datum_across_merge(datum_across *x, const datum_chunk *c, unsigned columns,
                       datum_chunk *merged)
{
    size_t n = (size_t)c->n_fields, n_rows = (size_t)c->n_rows;
    int rc = room(x, n, n_rows);
    if (rc != DATUM_OK) return rc;
    x->n_fields = n;
    x->n_rows = n_rows;
    group_fields(x, c);
    x->fields_read += n;
    x->fields_scored += x->n_merged;
    for (size_t g = 0; c->ns_pair && c->ew_pair && g < x->n_merged && rc == DATUM_OK; g++)
        if (x->member_offset[g + 1] - x->member_offset[g] > 1) rc = check_pairs(x, c, g);
    if (rc != DATUM_OK) return rc;
    if (x->identity) {
        *merged = *c;
        return DATUM_OK;
    }
    /* The merged fields and the row permutation. */
    uint64_t row = 0;
    x->offset[0] = 0;
    for (size_t g = 0; g < x->n_merged; g++) {
        uint32_t first = x->member[x->member_offset[g]];
        int32_t latest = c->field_date ? c->field_date[first] : 0;
        for (uint64_t k = x->member_offset[g]; k < x->member_offset[g + 1]; k++) {
            uint32_t f = x->member[k];
            for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) x->row_map[row++] = r;
            if (c->field_date && c->field_date[f] > latest) latest = c->field_date[f];
        }
        x->offset[g + 1] = row;
        x->event[g] = c->field_event[first];
        x->section[g] = c->field_section[first];
        x->board[g] = c->field_board[first];
        x->date[g] = latest;
        if (c->field_deal_set) x->deal_set[g] = c->field_deal_set[first];
    }
    *merged = *c;
    merged->n_fields = x->n_merged;
    merged->offset = x->offset;
    merged->field_event = x->event;
    merged->field_section = x->section;
    merged->field_board = x->board;
    merged->field_date = c->field_date ? x->date : NULL;
    merged->field_deal_set = c->field_deal_set ? x->deal_set : NULL;
    for (int k = 0; k < N_ROW_COLUMNS; k++) {
        const unsigned char *from = row_column(c, kRowColumns[k].member);
        size_t size = kRowColumns[k].size;
        *row_column_slot(merged, kRowColumns[k].member) = NULL;
        if (!from || !(columns & 1u << k)) continue;
        if ((rc = datum_reserve(x->ctx, &x->rows[k], &x->row_cap[k], (n_rows + 1) * size, 1)) < 0)
            return rc;
        gather(x->rows[k], from, x->row_map, n_rows, size, datum_ctx_threads(x->ctx));
        *row_column_slot(merged, kRowColumns[k].member) = x->rows[k];
    }
    return DATUM_OK;
}

void datum_across_unmerge_rows(datum_across *x, void *values, size_t size)
{
    if (x->identity) return;
    memcpy(x->scratch, values, x->n_rows * size); /* the scratch holds n_rows doubles */
    scatter(values, x->scratch, x->row_map, x->n_rows, size, datum_ctx_threads(x->ctx));
}

void datum_across_unmerge_fields(datum_across *x, double *values)
{
    if (x->identity) return;
    memcpy(x->scratch, values, x->n_merged * sizeof *values);
    for (size_t f = 0; f < x->n_fields; f++) values[f] = x->scratch[x->field_map[f]];
}

size_t datum_across_field_of(const datum_across *x, size_t field) { return x->field_map[field]; }

size_t datum_across_members(const datum_across *x, size_t merged, const uint32_t **fields)
{
    *fields = x->member + x->member_offset[merged];
    return (size_t)(x->member_offset[merged + 1] - x->member_offset[merged]);
}

void datum_across_counts(const datum_across *x, uint64_t *fields_read, uint64_t *fields_scored)
{
    *fields_read = x->fields_read;
    *fields_scored = x->fields_scored;
}
