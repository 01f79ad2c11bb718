/*
 * import.c - results into an archive (CSV, PBN and USEBIO: the text side's
 * row sources, io/text/), in bounded memory: read and validate every row
 * into runs of at most the memory budget, give the names dictionary indices
 * in byte order and the rows the order (event, section, board, table), so
 * that the archive depends only on the set of rows, never on their order in
 * the files nor on how they fell into runs; then check the fields and hand
 * them to the archive writer, with the exact value ranges (narrowest types).
 *
 * A run that fills the budget is sorted and spilled to a scratch file beside
 * the output (unlinked as soon as it is created: nothing is left behind,
 * even after a kill); the runs are merged at the end. Names get provisional
 * ids as they come; a run is sorted by the ranks of the names known when it
 * is spilled, which order its rows as the final ranks do (a subset of the
 * names keeps its byte order), so the merge needs only the final ranks.
 */
#include "io_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* ------------------------------------------------------------------------ */
/* Dictionaries: interned names, then renumbered in byte order              */

/* A slot of a dictionary's hash table: the id + 1 of a name (0: empty),
 * its tag (slot_tag) and its first eight bytes, zero-padded: a name of at
 * most eight bytes (a pair number) is found in the slot alone, without
 * reading the names; a longer one mostly told apart there too. */
typedef struct {
    uint32_t id1, tag;
    uint64_t head;
} dict_slot;

/* A recently seen name of at most eight bytes: its first bytes (all of
 * it, zero-padded), its length and its id + 1 (0: none). */
typedef struct {
    uint64_t head;
    uint32_t len, id1;
} dict_recent;

enum { DICT_RECENT = 256 };

typedef struct {
    /* The short names seen last, by their bytes: the pairs of an event come
     * again and again, found here without the table (a cache miss). */
    dict_recent recent[DICT_RECENT];
    char *bytes; /* the names, NUL-terminated one after another */
    size_t len, bytes_cap;
    size_t *start; /* start of name id in bytes */
    uint32_t n;
    size_t start_cap;
    dict_slot *slot; /* open addressing */
    size_t n_slots;
    const char **sorted; /* after dict_sort: names in byte order */
    uint32_t *rank;      /* after dict_sort: id -> index in sorted */
} dict;

/* A hash of s[0..len), a word at a time (names are short: pair numbers,
 * events); it places names in the table only, never decides an id. */
static uint64_t hash_name(const char *s, size_t len)
{
    uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ull, w;
    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (len > 0) {
        w = 0;
        memcpy(&w, s, len);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* Bits of a name's hash, its length in the low four (up to 15): with
 * name_head, a name of at most eight bytes whole. */
static uint32_t slot_tag(uint64_t h, size_t len)
{
    return ((uint32_t)(h >> 32) & ~15u) | (uint32_t)(len < 15 ? len : 15);
}

/* The first eight bytes of s[0..len), zero-padded (a load of eight
 * bytes for a name that long, as a pair number is: no call of memcpy). */
static uint64_t name_head(const char *s, size_t len)
{
    uint64_t w = 0;
    if (len >= 8) memcpy(&w, s, 8);
    else memcpy(&w, s, len);
    return w;
}

/* The length of name id. */
static size_t name_len(const dict *d, uint32_t id)
{
    return (id + 1 < d->n ? d->start[id + 1] : d->len) - d->start[id] - 1;
}

/* Inserts id into the hash table (which has room). */
static void dict_place(dict *d, uint32_t id)
{
    const char *s = d->bytes + d->start[id];
    size_t len = name_len(d, id);
    uint64_t h = hash_name(s, len);
    size_t i = h & (d->n_slots - 1);
    while (d->slot[i].id1) i = (i + 1) & (d->n_slots - 1);
    d->slot[i] = (dict_slot){id + 1, slot_tag(h, len), name_head(s, len)};
}

/* Keeps the table at most half full; rehashes into twice the slots. */
static int dict_grow_table(datum_ctx *ctx, dict *d)
{
    if ((size_t)d->n + 1 <= d->n_slots / 2) return DATUM_OK;
    size_t n_slots = d->n_slots ? d->n_slots * 2 : 64;
    dict_slot *slot = datum_calloc(ctx, n_slots, sizeof *slot);
    if (!slot) return DATUM_E_NOMEM;
    datum_free(d->slot);
    d->slot = slot;
    d->n_slots = n_slots;
    for (uint32_t id = 0; id < d->n; id++) dict_place(d, id);
    return DATUM_OK;
}

/* The id of name s (of length len, first bytes head), found in the table
 * or added to it. */
static int dict_find(datum_ctx *ctx, dict *d, const char *s, size_t len, uint64_t head,
                     uint32_t *id)
{
    int rc = dict_grow_table(ctx, d);
    if (rc != DATUM_OK) return rc;
    uint64_t h = hash_name(s, len);
    uint32_t tag = slot_tag(h, len);
    size_t i = h & (d->n_slots - 1);
    for (; d->slot[i].id1; i = (i + 1) & (d->n_slots - 1)) {
        uint32_t at = d->slot[i].id1 - 1;
        if (d->slot[i].tag == tag && d->slot[i].head == head &&
            (len <= 8 || (name_len(d, at) == len &&
                          io_same_bytes(d->bytes + d->start[at] + 8, s + 8, len - 8)))) {
            *id = at;
            return DATUM_OK;
        }
    }
    if (d->n == INT32_MAX)
        return datum_ctx_fail(ctx, DATUM_E_INPUT, "more than 2^31-1 distinct names");
    if ((rc = datum_reserve(ctx, &d->bytes, &d->bytes_cap, d->len + len + 1, 1)) != DATUM_OK) return rc;
    rc = datum_reserve(ctx, &d->start, &d->start_cap, (size_t)d->n + 1, sizeof *d->start);
    if (rc != DATUM_OK) return rc;
    memcpy(d->bytes + d->len, s, len + 1);
    d->start[d->n] = d->len;
    d->len += len + 1;
    d->slot[i] = (dict_slot){d->n + 1, tag, head};
    *id = d->n++;
    return DATUM_OK;
}

/* dict_intern's way when the name is not among the recent ones: the
 * table, and the name made a recent one. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int dict_intern_table(datum_ctx *ctx, dict *d, const char *s, size_t len, uint64_t head,
                             dict_recent *recent, uint32_t *id)
{
    int rc = dict_find(ctx, d, s, len, head, id);
    if (rc == DATUM_OK && len <= 8) *recent = (dict_recent){head, (uint32_t)len, *id + 1};
    return rc;
}

/* The id of name s (of length len), adding it if new. Inline where it is
 * called, the table apart: most names (the pairs of an event, again and
 * again) are recent ones. */
static inline int dict_intern(datum_ctx *ctx, dict *d, const char *s, size_t len, uint32_t *id)
{
    uint64_t head = name_head(s, len);
    dict_recent *recent = &d->recent[(head * 0x9e3779b97f4a7c15ull) >> 56];
    if (len <= 8 && recent->id1 && recent->head == head && recent->len == len) {
        *id = recent->id1 - 1;
        return DATUM_OK;
    }
    return dict_intern_table(ctx, d, s, len, head, recent, id);
}

typedef struct {
    const char *name;
    uint32_t id;
} named;

static int compare_named(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name); /* as unsigned bytes */
}

/* Fills d->sorted and d->rank (again after new names). */
static int dict_sort(datum_ctx *ctx, dict *d)
{
    datum_free(d->sorted);
    datum_free(d->rank);
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

/* A part of the input: a file, or bytes begin..end-1 of a large CSV file,
 * which several threads read at once. Its first line is `line`: 1 while it
 * is read (its rows' lines are counted from there), then, for the parts of
 * a large file, the line in the file (read_parts, from where the part
 * before it ended). */
typedef struct {
    uint32_t file;
    int format;
    uint64_t begin, end, line; /* end 0: the whole file */
    uint64_t end_offset, end_line; /* once read: where its reader stood (io_results_position) */
} input_part;

#define NO_TEAM UINT32_MAX /* ns_team, ew_team and match of a result outside a teams match */
#define NO_DEAL UINT32_MAX /* a row whose deal is not known */

/* One result as the runs hold it (48 bytes): what every row has, and its
 * place in the input for the messages. */
typedef struct {
    uint32_t event, section, ns_pair, ew_pair; /* dictionary ids, then ranks */
    int32_t board, table, ns_score, date;
    uint64_t line; /* counted from its part's first line (row_line) */
    uint32_t part; /* index into the importer's parts: its file */
    uint8_t adjusted;
    uint8_t method; /* the published figures' datum_published_method */
} row;

/* What only some rows have: teams, a deal, published figures. Kept beside
 * the rows of the runs that have any, so that a CSV import without teams
 * moves 48 bytes a row, not 96. */
typedef struct {
    uint32_t ns_team, ew_team, match; /* dictionary ids, then ranks; or NO_TEAM */
    uint32_t deal;                    /* the deal's id in importer.deals, or NO_DEAL */
    double ns, ew;                    /* published figures (NaN: none) */
    double ns_percent, ew_percent;    /* published percentages (NaN: none) */
} extra;

static const extra kNoExtra = {NO_TEAM, NO_TEAM, NO_TEAM, NO_DEAL, NAN, NAN, NAN, NAN};

/* Bytes a row takes while it is in memory: the row and the sort's keys and
 * indices (two of each), and its extra in a run that has them. */
#define ROW_BYTES (sizeof(row) + 2 * (sizeof(uint64_t) + sizeof(uint32_t)))
#define ROW_BYTES_EXTRA (ROW_BYTES + sizeof(extra))

/* A spilled row's fields, packed: each in the fewest bits that the values
 * of its worker's rows so far need (the names' ids below their
 * dictionary's size, the score and the date above the worker's least, the
 * line, part and codes below the next power of two of all of them), none
 * across a 64-bit word. A run's records keep one size, so the merge still
 * reads any row of it at once; on an export of a decade a row spills in 16
 * bytes instead of 48 (the kernel's copies of the scratch file a third). */
enum {
    P_EVENT, P_SECTION, P_NS_PAIR, P_EW_PAIR, P_BOARD, P_TABLE, P_SCORE, P_DATE, P_LINE, P_PART,
    P_ADJUSTED, P_METHOD, N_PACKED
};
enum { PACKED_WORDS_MAX = 6 }; /* 32 * 8 + 64 + 32 + 8 + 8 bits at most */

typedef struct {
    uint8_t word[N_PACKED], shift[N_PACKED];
    uint64_t mask[N_PACKED];
    int32_t score_base, date_base;
    size_t words;
} packing;

/* A field's place in the order of the archive, (event, section, board):
 * in a worker's ids in a run's samples, in final ranks in the merge's cuts. */
typedef struct {
    uint32_t event, section;
    int32_t board;
} field_key;

/* A spilled run keeps the field of every SAMPLE_EVERY-th row and of its
 * last in memory (12 bytes a 1024 rows, less than the names take): the
 * merge's cuts come from them, not from a read of the scratch file a
 * sample (a million reads, waiting on the disk once the scratch file has
 * left the page cache: 5 s of a national import). */
enum { SAMPLE_EVERY = 1024 };

/* A sorted run in the scratch file: n records of `record` bytes from byte
 * offset, each a row packed by `pack` followed, if has_extras, by its
 * extra; its names are the ids of worker `worker`'s dictionaries; samples:
 * the fields of its rows 0, SAMPLE_EVERY, 2 SAMPLE_EVERY, ... and n - 1
 * (n_samples of them, in that order, owned). */
typedef struct {
    uint64_t offset, n;
    int has_extras;
    size_t worker, record;
    packing pack;
    field_key *samples;
    size_t n_samples;
} run_info;

/* The last row's name in a dictionary: its id + 1 (0: none), its length
 * and where its bytes start among the dictionary's (they may move). */
typedef struct {
    uint32_t id1;
    size_t len, at;
} last_name;

typedef struct importer importer;

/* What one thread reads: its own dictionaries (provisional ids), its run,
 * the value ranges and the counts of its rows. */
typedef struct {
    importer *im;
    dict dict[IO_N_DICTS];
    dict deals; /* the deal keys of the rows (interned, never sorted) */
    int has_adjusted, has_teams, has_published, has_published_percent, has_deals;
    uint64_t n_sitouts, n_rows;
    int32_t max_board, max_table, min_score, max_score, min_date, max_date;
    uint64_t line_bits; /* the OR of the rows' lines, parts and codes: their widths (packing) */
    uint32_t part_bits;
    uint8_t adjusted_bits, method_bits;
    /* The run being read: rows[0..n), and extras[0..n) once a row has one.
     * run_cap, run_cap_extra: the rows its share of the budget holds,
     * without and with extras (run_cap 0: reading again for an error). */
    row *rows;
    extra *extras;
    size_t n, rows_cap, extras_cap, run_cap, run_cap_extra;
    uint32_t *order; /* after sort_run: the run's rows in order */
    uint64_t *keys;  /* sort_run's scratch: keys, and the radix sort's second order */
    uint32_t *idx2;
    size_t order_cap, keys_cap, idx2_cap;
    last_name last_event, last_section; /* the last row's: rows come in events */
    int out_of_order; /* a row of the run does not come strictly after the one before it */
    /* After all is read: each id's final rank (deals: its global id). */
    uint32_t *final[IO_N_DICTS], *final_deal;
    /* The workers lie side by side and each writes its counts and flags
     * at every row: the next one's first fields kept off this one's last
     * cache line (out_of_order shared a line with the next worker's `im`
     * at some addresses: its reading a sixth slower on 2 threads). */
    char tail_pad[64];
} worker;

struct importer {
    datum_ctx *ctx;
    const char *const *paths;
    const char *out_path;
    dict dict[IO_N_DICTS]; /* every worker's names, sorted at the end */
    dict deals;
    worker *workers;
    size_t n_workers;
    int has_adjusted, has_teams, has_published, has_published_percent, has_deals;
    int any_extras; /* a row has an extra (open_sources): else the merge moves none */
    uint64_t n_sitouts, n_rows;
    int32_t max_board, max_table, min_score, max_score, min_date, max_date;
    /* The scratch file and the runs spilled to it (under the critical section
     * import_scratch when the workers run in parallel). */
    int scratch_fd;
    uint64_t scratch_len;
    run_info *runs;
    size_t n_runs, runs_cap;
    size_t memory; /* the budget, bytes */
    input_part *parts; /* the input's parts, in input order: a row's place is (part, line) */
    size_t n_parts;
};

static void note_ranges(worker *im, const row *r)
{
    if (im->n_rows == 0) {
        im->max_board = r->board;
        im->max_table = r->table;
        im->min_score = im->max_score = r->ns_score;
        im->min_date = im->max_date = r->date;
    }
    if (r->board > im->max_board) im->max_board = r->board;
    if (r->table > im->max_table) im->max_table = r->table;
    if (r->ns_score < im->min_score) im->min_score = r->ns_score;
    if (r->ns_score > im->max_score) im->max_score = r->ns_score;
    if (r->date < im->min_date) im->min_date = r->date;
    if (r->date > im->max_date) im->max_date = r->date;
    im->line_bits |= r->line;
    im->part_bits |= r->part;
    im->adjusted_bits |= r->adjusted;
    im->method_bits |= r->method;
}

/* The id of a name that is usually the previous row's (events and sections
 * come in blocks): compared first, with its length and place kept (no
 * look at the dictionary's starts), hashed only when it changed. */
static inline int intern_repeated(worker *im, dict *d, const char *s, size_t len, last_name *last,
                                  uint32_t *id)
{
    if (last->id1 && last->len == len && io_same_bytes(d->bytes + last->at, s, len)) {
        *id = last->id1 - 1;
        return DATUM_OK;
    }
    int rc = dict_intern(im->im->ctx, d, s, len, id);
    if (rc == DATUM_OK) *last = (last_name){*id + 1, len, d->start[*id]};
    return rc;
}

static int spill_run(worker *w);

/* The order of the names a and b of d, in bytes (as dict_sort ranks them). */
static int name_order(const dict *d, uint32_t a, uint32_t b)
{
    return a == b ? 0 : strcmp(d->bytes + d->start[a], d->bytes + d->start[b]);
}

/* 1 if row r comes strictly after row prev in the archive's order (event,
 * section, board, table; the names in byte order): a run whose every row
 * does is in order, found as it is read (no pass over it, no sort). */
static int comes_after(const worker *w, const row *prev, const row *r)
{
    int c = name_order(&w->dict[IO_D_EVENTS], prev->event, r->event);
    if (!c) c = name_order(&w->dict[IO_D_SECTIONS], prev->section, r->section);
    if (!c) c = CMP(prev->board, r->board);
    return (c ? c : CMP(prev->table, r->table)) < 0;
}

/* The id of the NUL-terminated name s in d, adding it if new. */
static int intern(datum_ctx *ctx, dict *d, const char *s, uint32_t *id)
{
    return dict_intern(ctx, d, s, strlen(s), id);
}

/* Room for one more row in the run's arrays, grown by doubling up to the
 * run's capacity (the budget's share, never more). */
static int reserve_row(worker *w, size_t cap)
{
    datum_ctx *ctx = w->im->ctx;
    size_t grow = w->rows_cap < 1024 ? 1024 : 2 * w->rows_cap;
    if (grow > cap) grow = cap;
    if (w->n == w->rows_cap) {
        if (datum_resize(ctx, &w->rows, grow, sizeof *w->rows) != DATUM_OK) return DATUM_E_NOMEM;
        w->rows_cap = grow;
    }
    if (w->extras && w->n >= w->extras_cap) {
        size_t want = w->rows_cap < cap ? w->rows_cap : cap;
        if (datum_resize(ctx, &w->extras, want, sizeof *w->extras) != DATUM_OK) return DATUM_E_NOMEM;
        w->extras_cap = want;
    }
    return DATUM_OK;
}

/* Adds a row read from src to the run, spilling the run first when it is
 * full. */
static int add_row(worker *im, const io_row_source *src, uint32_t part, const io_result_row *in)
{
    datum_ctx *ctx = im->im->ctx;
    dict *d = im->dict;
    int rc = DATUM_OK;
    if (im->run_cap == 0) return DATUM_OK; /* reading again for the error only */
    int has_deal = src->has_deals && in->deal;
    int wants_extra = in->match || has_deal || src->has_published || src->has_published_percent;
    size_t cap = im->extras || wants_extra ? im->run_cap_extra : im->run_cap;
    if (im->n >= cap && (rc = spill_run(im)) != DATUM_OK) return rc;
    if (wants_extra && !im->extras) {
        /* The first row with an extra gives the run its column; the rows
         * before it had none. */
        size_t want = im->rows_cap > im->n ? im->rows_cap : im->n + 1;
        if (want > im->run_cap_extra) want = im->run_cap_extra;
        if (im->rows_cap > want) { /* grown for a run without extras: its share is less now */
            if (datum_resize(ctx, &im->rows, want, sizeof *im->rows) != DATUM_OK) return DATUM_E_NOMEM;
            im->rows_cap = want;
        }
        if (!(im->extras = datum_malloc(ctx, want, sizeof *im->extras))) return DATUM_E_NOMEM;
        im->extras_cap = want;
        for (size_t i = 0; i < im->n; i++) im->extras[i] = kNoExtra;
    }
    if ((rc = reserve_row(im, im->extras ? im->run_cap_extra : im->run_cap)) != DATUM_OK) return rc;
    row *r = &im->rows[im->n];
    int known = in->lengths_known;
    if ((rc = intern_repeated(im, &d[IO_D_EVENTS], in->event,
                              known ? in->event_len : strlen(in->event), &im->last_event,
                              &r->event)) != DATUM_OK ||
        (rc = intern_repeated(im, &d[IO_D_SECTIONS], in->section,
                              known ? in->section_len : strlen(in->section), &im->last_section,
                              &r->section)) != DATUM_OK ||
        (rc = dict_intern(ctx, &d[IO_D_PAIRS], in->ns_pair,
                          known ? in->ns_pair_len : strlen(in->ns_pair), &r->ns_pair)) != DATUM_OK ||
        (rc = dict_intern(ctx, &d[IO_D_PAIRS], in->ew_pair,
                          known ? in->ew_pair_len : strlen(in->ew_pair), &r->ew_pair)) != DATUM_OK)
        return rc;
    r->board = in->board;
    r->table = in->table;
    r->ns_score = in->ns_score;
    r->date = in->date;
    r->adjusted = in->adjusted;
    r->part = part;
    r->line = in->line;
    r->method = src->has_published ? in->published_method : DATUM_PUBLISHED_NONE;
    if (im->extras) {
        extra *x = &im->extras[im->n];
        *x = kNoExtra;
        if (in->match &&
            ((rc = intern(ctx, &d[IO_D_TEAMS], in->ns_team, &x->ns_team)) != DATUM_OK ||
             (rc = intern(ctx, &d[IO_D_TEAMS], in->ew_team, &x->ew_team)) != DATUM_OK ||
             (rc = intern(ctx, &d[IO_D_MATCHES], in->match, &x->match)) != DATUM_OK))
            return rc;
        if (has_deal && (rc = intern(ctx, &im->deals, in->deal, &x->deal)) != DATUM_OK) return rc;
        if (src->has_published) x->ns = in->published_ns, x->ew = in->published_ew;
        if (src->has_published_percent)
            x->ns_percent = in->published_ns_percent, x->ew_percent = in->published_ew_percent;
    }
    if (im->n > 0 && !im->out_of_order) im->out_of_order = !comes_after(im, r - 1, r);
    note_ranges(im, r);
    im->n++;
    im->n_rows++;
    return DATUM_OK;
}


/* Reads part k of the input into the worker's runs; a part of a large
 * file notes where its reader ended. */
static int read_part(worker *w, size_t k, void *pbn)
{
    datum_ctx *ctx = w->im->ctx;
    input_part *part = &w->im->parts[k];
    io_row_source src = {0};
    io_result_row in;
    int rc = io_format_source(part->format)(ctx, w->im->paths[part->file],
                                     part->format == DATUM_FORMAT_PBN ? pbn : NULL, &src);
    if (rc == DATUM_OK && part->end) rc = io_results_range(src.self, part->begin, part->end, part->line);
    if (rc == DATUM_OK && src.has_adjusted) w->has_adjusted = 1;
    if (rc == DATUM_OK && src.has_teams) w->has_teams = 1;
    if (rc == DATUM_OK && src.has_published) w->has_published = 1;
    if (rc == DATUM_OK && src.has_published_percent) w->has_published_percent = 1;
    if (rc == DATUM_OK && src.has_deals) w->has_deals = 1;
    while (rc == DATUM_OK && (rc = src.next(src.self, &in)) == 1) rc = add_row(w, &src, (uint32_t)k, &in);
    if (rc == DATUM_OK && src.n_sitouts) w->n_sitouts += *src.n_sitouts;
    if (rc == DATUM_OK && part->end) io_results_position(src.self, &part->end_offset, &part->end_line);
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

static int same_field(const row *a, const row *b)
{
    return a->event == b->event && a->section == b->section && a->board == b->board;
}

/* Order of the rows in the input. */
static int compare_place(const row *a, const row *b)
{
    int c = CMP(a->part, b->part);
    return c ? c : CMP(a->line, b->line);
}

/* Board, table, then the place in the input. */
static int compare_tail(const row *a, const row *b)
{
    int c = CMP(a->board, b->board);
    if (!c) c = CMP(a->table, b->table);
    return c ? c : compare_place(a, b);
}

/* (event, section, board, table) by the ranks given, then the place in the
 * input: a total order, in which the first of two clashing rows comes first
 * in the input. */
static int compare_ranked(const row *a, const row *b, const uint32_t *event_rank,
                          const uint32_t *section_rank)
{
    int c = CMP(event_rank[a->event], event_rank[b->event]);
    if (!c) c = CMP(section_rank[a->section], section_rank[b->section]);
    return c ? c : compare_tail(a, b);
}

/* The same order for rows whose names are ranked already. */
static int compare_rows(const row *a, const row *b)
{
    int c = CMP(a->event, b->event);
    if (!c) c = CMP(a->section, b->section);
    return c ? c : compare_tail(a, b);
}

/* ------------------------------------------------------------------------ */
/* Sorting a run                                                            */

static int bits_for(uint64_t v)
{
    int b = 0;
    while (v >> b) b++;
    return b;
}

/* Sorts key[0..n) with idx alongside, least significant byte first, stable;
 * key2 and idx2 are scratch of n. Bytes where every key agrees are skipped.
 * Returns 1 if the result is in key2/idx2, 0 if in key/idx. */
static int radix_sort(uint64_t *key, uint32_t *idx, uint64_t *key2, uint32_t *idx2, size_t n,
                      int bits)
{
    int swapped = 0;
    for (int shift = 0; shift < bits; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++) count[(key[i] >> shift) & 255]++;
        if (count[(key[0] >> shift) & 255] == n) continue;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t to = count[(key[i] >> shift) & 255]++;
            key2[to] = key[i];
            idx2[to] = idx[i];
        }
        uint64_t *k = key; key = key2; key2 = k;
        uint32_t *x = idx; idx = idx2; idx2 = x;
        swapped ^= 1;
    }
    return swapped;
}

/* For qsort of the run's order when the key does not fit 64 bits. */
static _Thread_local const worker *g_sorting; /* set by sort_run for qsort */
static _Thread_local const uint32_t *g_event_rank, *g_section_rank;

static int compare_order(const void *x, const void *y)
{
    const row *rows = g_sorting->rows;
    return compare_ranked(&rows[*(const uint32_t *)x], &rows[*(const uint32_t *)y], g_event_rank,
                          g_section_rank);
}

/* im->order = the run's rows in the order (event, section, board, table,
 * place in the input), the events and sections ranked among the names known
 * now. A radix sort on one 64-bit key when the four fit (always in
 * practice), rows of equal keys (a clash, reported later) then put in input
 * order; else a comparison sort. */
static int sort_run(worker *im)
{
    datum_ctx *ctx = im->im->ctx;
    size_t n = im->n;
    /* The buffers stay from run to run (the budget counts them): fresh
     * pages would be cleared by the kernel for every run. */
    if (datum_reserve(ctx, &im->order, &im->order_cap, n + 1, sizeof *im->order) != DATUM_OK)
        return DATUM_E_NOMEM;
    for (size_t i = 0; i < n; i++) im->order[i] = (uint32_t)i;
    /* A run in order already, without two equal keys (an export, most
     * scoring programs' files), as add_row found: no sort. */
    if (!im->out_of_order) return DATUM_OK;
    int rc = dict_sort(ctx, &im->dict[IO_D_EVENTS]);
    if (rc == DATUM_OK) rc = dict_sort(ctx, &im->dict[IO_D_SECTIONS]);
    if (rc != DATUM_OK) return rc;
    const uint32_t *er = im->dict[IO_D_EVENTS].rank, *sr = im->dict[IO_D_SECTIONS].rank;
    int32_t max_board = 1, max_table = 0;
    for (size_t i = 0; i < n; i++) {
        if (im->rows[i].board > max_board) max_board = im->rows[i].board;
        if (im->rows[i].table > max_table) max_table = im->rows[i].table;
    }
    int eb = bits_for(im->dict[IO_D_EVENTS].n), sb = bits_for(im->dict[IO_D_SECTIONS].n),
        bb = bits_for((uint64_t)max_board), tb = bits_for((uint64_t)max_table);
    if (eb + sb + bb + tb > 64) {
        g_sorting = im, g_event_rank = er, g_section_rank = sr;
        qsort(im->order, n, sizeof *im->order, compare_order);
        return DATUM_OK;
    }
#define RUN_KEY(r)                                                                              \
    (((((uint64_t)er[(r)->event] << sb | sr[(r)->section]) << bb | (uint64_t)(r)->board) << tb) | \
     (uint64_t)(r)->table)
    if (datum_reserve(ctx, &im->keys, &im->keys_cap, 2 * n + 2, sizeof *im->keys) != DATUM_OK ||
        datum_reserve(ctx, &im->idx2, &im->idx2_cap, n + 1, sizeof *im->idx2) != DATUM_OK)
        return DATUM_E_NOMEM;
    uint64_t *key = im->keys;
    uint32_t *idx2 = im->idx2;
    int in_order = 1;
    for (size_t i = 0; i < n; i++) {
        key[i] = RUN_KEY(&im->rows[i]);
        in_order &= i == 0 || key[i] >= key[i - 1]; /* in order but for a clash */
    }
#undef RUN_KEY
    if (n > 0) {
        uint64_t *k = key;
        if (!in_order && radix_sort(key, im->order, key + n + 1, idx2, n, eb + sb + bb + tb)) {
            memcpy(im->order, idx2, n * sizeof *idx2);
            k = key + n + 1;
        }
        /* Equal keys: a clash, in input order for its message. */
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i + 1; j < n && k[j] == k[i];) j++;
            if (j - i > 1) {
                g_sorting = im, g_event_rank = er, g_section_rank = sr;
                qsort(im->order + i, j - i, sizeof *im->order, compare_order);
            }
        }
    }
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* The scratch file                                                         */

/* Opens the scratch file beside the output, OUT.import-XXXXXX, and unlinks
 * it at once: it is gone when the import ends, however it ends. */
static int scratch_open(importer *im)
{
    size_t len = strlen(im->out_path);
    char *path = datum_malloc(im->ctx, len + 16, 1);
    if (!path) return DATUM_E_NOMEM;
    snprintf(path, len + 16, "%s.import-XXXXXX", im->out_path);
    im->scratch_fd = mkstemp(path);
    int rc = im->scratch_fd < 0 ? io_fail_errno(im->ctx, DATUM_E_IO, errno,
                                                "cannot write %s (scratch file for the import)", path)
                                : DATUM_OK;
    if (rc == DATUM_OK) unlink(path);
    datum_free(path);
    return rc;
}

/* Writes buf[0..len) at byte `at` of the scratch file. */
static int scratch_write(importer *im, uint64_t at, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t k = pwrite(im->scratch_fd, p, len, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            return io_fail_errno(im->ctx, DATUM_E_IO, k < 0 ? errno : ENOSPC,
                                 "cannot write the import's scratch file beside %s", im->out_path);
        p += k;
        at += (uint64_t)k;
        len -= (size_t)k;
    }
    return DATUM_OK;
}

/* The packing of the worker's rows so far (its ranges cover every row of
 * its run). */
static packing packing_of(const worker *w)
{
    const dict *d = w->dict;
    uint64_t top[N_PACKED] = {
        [P_EVENT] = d[IO_D_EVENTS].n ? d[IO_D_EVENTS].n - 1 : 0,
        [P_SECTION] = d[IO_D_SECTIONS].n ? d[IO_D_SECTIONS].n - 1 : 0,
        [P_NS_PAIR] = d[IO_D_PAIRS].n ? d[IO_D_PAIRS].n - 1 : 0,
        [P_EW_PAIR] = d[IO_D_PAIRS].n ? d[IO_D_PAIRS].n - 1 : 0,
        [P_BOARD] = (uint32_t)w->max_board,
        [P_TABLE] = (uint32_t)w->max_table,
        [P_SCORE] = (uint64_t)((int64_t)w->max_score - w->min_score),
        [P_DATE] = (uint64_t)((int64_t)w->max_date - w->min_date),
        [P_LINE] = w->line_bits,
        [P_PART] = w->part_bits,
        [P_ADJUSTED] = w->adjusted_bits,
        [P_METHOD] = w->method_bits};
    packing p = {.score_base = w->min_score, .date_base = w->min_date};
    int used = 0, word = 0;
    for (int f = 0; f < N_PACKED; f++) {
        int bits = bits_for(top[f]);
        if (bits == 0) continue; /* always 0: word 0, shift 0, mask 0 */
        if (used + bits > 64) word++, used = 0;
        p.word[f] = (uint8_t)word;
        p.shift[f] = (uint8_t)used;
        p.mask[f] = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
        used += bits;
    }
    p.words = (size_t)word + 1;
    return p;
}

/* Copies n words (1 to PACKED_WORDS_MAX) from `from` to `to`: moves of a
 * known size, not a call of memcpy (a row at a time). */
static void copy_words(void *to, const void *from, size_t n)
{
    switch (n) {
    case 1: memcpy(to, from, 8); break;
    case 2: memcpy(to, from, 16); break;
    case 3: memcpy(to, from, 24); break;
    case 4: memcpy(to, from, 32); break;
    case 5: memcpy(to, from, 40); break;
    default: memcpy(to, from, 48); break;
    }
}

/* Row r packed into to[0 .. 8 p->words) (the fields one by one: a loop
 * over a table of them costs half as much again). */
static void pack_row(const packing *p, const row *r, unsigned char *to)
{
    uint64_t word[PACKED_WORDS_MAX] = {0};
#define PUT(f, value) (word[p->word[f]] |= (uint64_t)(value) << p->shift[f])
    PUT(P_EVENT, r->event);
    PUT(P_SECTION, r->section);
    PUT(P_NS_PAIR, r->ns_pair);
    PUT(P_EW_PAIR, r->ew_pair);
    PUT(P_BOARD, (uint32_t)r->board);
    PUT(P_TABLE, (uint32_t)r->table);
    PUT(P_SCORE, (int64_t)r->ns_score - p->score_base);
    PUT(P_DATE, (int64_t)r->date - p->date_base);
    PUT(P_LINE, r->line);
    PUT(P_PART, r->part);
    PUT(P_ADJUSTED, r->adjusted);
    PUT(P_METHOD, r->method);
#undef PUT
    copy_words(to, word, p->words);
}

/* The row packed at from (pack_row). */
static void unpack_row(const packing *p, const unsigned char *from, row *r)
{
    uint64_t word[PACKED_WORDS_MAX] = {0};
    copy_words(word, from, p->words);
#define GET(f) (word[p->word[f]] >> p->shift[f] & p->mask[f])
    r->event = (uint32_t)GET(P_EVENT);
    r->section = (uint32_t)GET(P_SECTION);
    r->ns_pair = (uint32_t)GET(P_NS_PAIR);
    r->ew_pair = (uint32_t)GET(P_EW_PAIR);
    r->board = (int32_t)GET(P_BOARD);
    r->table = (int32_t)GET(P_TABLE);
    r->ns_score = (int32_t)((int64_t)GET(P_SCORE) + p->score_base);
    r->date = (int32_t)((int64_t)GET(P_DATE) + p->date_base);
    r->line = GET(P_LINE);
    r->part = (uint32_t)GET(P_PART);
    r->adjusted = (uint8_t)GET(P_ADJUSTED);
    r->method = (uint8_t)GET(P_METHOD);
#undef GET
}

/* Sorts the worker's run and writes it to the scratch file as a new run,
 * its rows packed; the run is empty after. */
static int spill_run(worker *w)
{
    enum { SPILL_BUFFER = 1 << 20 };
    importer *im = w->im;
    int has_extras = w->extras != NULL;
    packing pack = packing_of(w);
    size_t packed = pack.words * sizeof(uint64_t),
           record = packed + (has_extras ? sizeof(extra) : 0);
    uint64_t at = 0;
    int rc = sort_run(w);
    const uint32_t *order = w->out_of_order ? w->order : NULL; /* in order: the rows as they lie */
    size_t n_samples = w->n ? (w->n - 1) / SAMPLE_EVERY + 2 : 0;
    field_key *samples = NULL;
    if (rc == DATUM_OK && n_samples && !(samples = datum_malloc(im->ctx, n_samples, sizeof *samples)))
        rc = DATUM_E_NOMEM;
    for (size_t j = 0; rc == DATUM_OK && j < n_samples; j++) {
        size_t i = j + 1 < n_samples ? j * SAMPLE_EVERY : w->n - 1;
        const row *r = &w->rows[order ? order[i] : i];
        samples[j] = (field_key){r->event, r->section, r->board};
    }
#pragma omp critical(import_scratch)
    {
        if (rc == DATUM_OK && im->scratch_fd < 0) rc = scratch_open(im);
        if (rc == DATUM_OK)
            rc = datum_reserve(im->ctx, &im->runs, &im->runs_cap, im->n_runs + 1, sizeof *im->runs);
        if (rc == DATUM_OK) {
            at = im->scratch_len;
            im->scratch_len += (uint64_t)w->n * record;
            run_info run = {.offset = at, .n = w->n, .has_extras = has_extras,
                            .worker = (size_t)(w - im->workers), .record = record, .pack = pack,
                            .samples = samples, .n_samples = n_samples};
            im->runs[im->n_runs++] = run;
            samples = NULL; /* the run's */
        }
    }
    datum_free(samples);
    unsigned char *buf = rc == DATUM_OK ? datum_malloc(im->ctx, SPILL_BUFFER, 1) : NULL;
    if (rc == DATUM_OK && !buf) rc = DATUM_E_NOMEM;
    size_t fill = 0;
    for (size_t i = 0; rc == DATUM_OK && i < w->n; i++) {
        if (fill + record > SPILL_BUFFER) {
            rc = scratch_write(im, at, buf, fill);
            at += fill;
            fill = 0;
        }
        size_t k = order ? order[i] : i;
        pack_row(&pack, &w->rows[k], buf + fill);
        if (has_extras) memcpy(buf + fill + packed, &w->extras[k], sizeof(extra));
        fill += record;
    }
    if (rc == DATUM_OK) rc = scratch_write(im, at, buf, fill);
    datum_free(buf);
    if (rc != DATUM_OK) return rc;
    w->n = 0;
    w->out_of_order = 0;
    datum_free(w->extras);
    w->extras = NULL;
    w->extras_cap = 0;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Merging the runs                                                         */

/* A sorted run as the merge reads it: a worker's run in memory (never
 * spilled: its rows in `order`) or a run of the scratch file. */
typedef struct {
    const worker *w;       /* whose names the run's rows hold */
    const uint32_t *order; /* in memory; NULL: spilled */
    run_info run;          /* spilled */
    uint64_t n;
    size_t record; /* spilled: the bytes of a record (a row, and its extra if the run has them) */
} source;

/* Row r of worker w and its extra x (NULL: none) into *to and *to_x, their
 * names given their final ranks (the deal, its global id); to_x NULL: no
 * row of the import has an extra (none is copied). */
static void ranked(const worker *w, const row *r, const extra *x, row *to, extra *to_x)
{
    *to = *r;
    to->event = w->final[IO_D_EVENTS][r->event];
    to->section = w->final[IO_D_SECTIONS][r->section];
    to->ns_pair = w->final[IO_D_PAIRS][r->ns_pair];
    to->ew_pair = w->final[IO_D_PAIRS][r->ew_pair];
    if (!to_x) return;
    *to_x = x ? *x : kNoExtra;
    if (!x) return;
    if (x->match != NO_TEAM) {
        to_x->ns_team = w->final[IO_D_TEAMS][x->ns_team];
        to_x->ew_team = w->final[IO_D_TEAMS][x->ew_team];
        to_x->match = w->final[IO_D_MATCHES][x->match];
    }
    if (x->deal != NO_DEAL) to_x->deal = w->final_deal[x->deal];
}

/* Reads the records lo..hi-1 of the spilled source s into buf. */
static int source_read(const importer *im, const source *s, uint64_t lo, uint64_t hi,
                       unsigned char *buf)
{
    size_t want = (size_t)(hi - lo) * s->record, got = 0;
    off_t at = (off_t)(s->run.offset + lo * s->record);
    while (got < want) {
        ssize_t r = pread(im->scratch_fd, buf + got, want - got, at + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return io_fail_errno(im->ctx, DATUM_E_IO, r < 0 ? errno : EIO,
                                 "cannot read the import's scratch file beside %s", im->out_path);
        got += (size_t)r;
    }
    return DATUM_OK;
}

/* Row i of the source, ranked: in memory, or record p of a spilled one. */
static void source_ranked(const source *s, uint64_t i, const unsigned char *p, row *to,
                          extra *to_x)
{
    if (s->order) {
        uint32_t k = s->order[i];
        ranked(s->w, &s->w->rows[k], s->w->extras ? &s->w->extras[k] : NULL, to, to_x);
        return;
    }
    row r;
    extra x;
    unpack_row(&s->run.pack, p, &r);
    if (s->run.has_extras) memcpy(&x, p + s->run.pack.words * sizeof(uint64_t), sizeof(extra));
    ranked(s->w, &r, s->run.has_extras ? &x : NULL, to, to_x);
}

/* Row i of the source, ranked, read alone (for the segments' bounds). */
static int source_row(const importer *im, const source *s, uint64_t i, row *to)
{
    unsigned char p[PACKED_WORDS_MAX * sizeof(uint64_t) + sizeof(extra)];
    extra x;
    int rc = s->order ? DATUM_OK : source_read(im, s, i, i + 1, p);
    if (rc == DATUM_OK) source_ranked(s, i, p, to, &x);
    return rc;
}

/* The rows lo..end-1 of a source in one segment of the merge: in memory,
 * or (spilled) read into recs first. */
typedef struct {
    const source *s;
    const unsigned char *recs; /* spilled: the records from lo on */
    uint64_t lo, at, end;
    row current; /* its names ranked (ranked()) */
    extra current_extra; /* when the import has extras (importer.any_extras) */
    int extras;
} cursor;

/* Loads the cursor's next row as its current one; 0 at the end. */
static int cursor_next(cursor *c)
{
    if (c->at == c->end) return 0;
    source_ranked(c->s, c->at, c->recs ? c->recs + (c->at - c->lo) * c->s->record : NULL,
                  &c->current, c->extras ? &c->current_extra : NULL);
    c->at++;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Fields: checked, their deal sets found, batched to the writer             */

/* The file of a row, for messages. */
static const char *row_path(const importer *im, const row *r)
{
    return im->paths[im->parts[r->part].file];
}

/* The line of a row in its file, for messages. */
static unsigned long long row_line(const importer *im, const row *r)
{
    return (unsigned long long)(im->parts[r->part].line + r->line - 1);
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
    const extra *x; /* the row's extra */
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
                                  row_path(im, &rows[i]), row_line(im, &rows[i]),
                                  field_name(im, &rows[i], name, sizeof name), (int)rows[i].table,
                                  row_path(im, &rows[i - 1]),
                                  row_line(im, &rows[i - 1]));
    return DATUM_OK;
}

/* The 2n seats of the field rows[0..n) (extras xs, NULL when the import
 * has none: pairs only): its pairs, or its teams, sorted by identifier,
 * then by place in the input. */
static void sort_seats(const row *rows, const extra *xs, size_t n, int teams, seat *seats)
{
    for (size_t i = 0; i < n; i++) {
        const extra *x = xs ? &xs[i] : NULL; /* teams: never NULL */
        seats[2 * i] = teams ? (seat){x->ns_team, "ns_team", &rows[i], x}
                             : (seat){rows[i].ns_pair, "ns_pair", &rows[i], x};
        seats[2 * i + 1] = teams ? (seat){x->ew_team, "ew_team", &rows[i], x}
                                 : (seat){rows[i].ew_pair, "ew_pair", &rows[i], x};
    }
    qsort(seats, 2 * n, sizeof *seats, compare_seats);
}

/* Rejects a pair that sits twice in the field rows[0..n), at whichever
 * seats; seats has room for 2n. */
static int check_pairs(const importer *im, const row *rows, const extra *xs, size_t n,
                       seat *seats)
{
    char name[512];
    sort_seats(rows, xs, n, 0, seats);
    for (size_t i = 1; i < 2 * n; i++) {
        const row *later = seats[i].r, *earlier = seats[i - 1].r;
        if (seats[i].id == seats[i - 1].id)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: pair \"%s\" already plays %s at %s:%llu",
                                  row_path(im, later), row_line(im, later),
                                  seats[i].column, im->dict[IO_D_PAIRS].sorted[seats[i].id],
                                  field_name(im, later, name, sizeof name),
                                  row_path(im, earlier), row_line(im, earlier));
    }
    return DATUM_OK;
}

/* Rejects, in the field rows[0..n) (extras xs), teams results beside
 * others, a match whose tables are not all between the same two teams, and
 * a team in two matches; seats has room for 2n. */
static int check_teams(const importer *im, const row *rows, const extra *xs, size_t n,
                       seat *seats)
{
    const char *const *team = im->dict[IO_D_TEAMS].sorted;
    const char *const *match = im->dict[IO_D_MATCHES].sorted;
    const row *with = NULL, *without = NULL;
    char name[512];
    for (size_t i = 0; i < n; i++) *(xs[i].match == NO_TEAM ? &without : &with) = &rows[i];
    if (!with) return DATUM_OK;
    if (without)
        return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                              "%s:%llu: column match: %s also has a result outside any match, at "
                              "%s:%llu",
                              row_path(im, with), row_line(im, with),
                              field_name(im, with, name, sizeof name), row_path(im, without),
                              row_line(im, without));
    /* By match: every table between the two teams of the match's first one. */
    for (size_t i = 0; i < n; i++) seats[i] = (seat){xs[i].match, "match", &rows[i], &xs[i]};
    qsort(seats, n, sizeof *seats, compare_seats);
    for (size_t i = 1, first = 0; i < n; i++) {
        const row *a = seats[first].r, *b = seats[i].r;
        const extra *ax = seats[first].x, *bx = seats[i].x;
        if (seats[i].id != seats[first].id) {
            first = i;
            continue;
        }
        int ns_ok = bx->ns_team == ax->ns_team || bx->ns_team == ax->ew_team;
        int ew_ok = bx->ew_team == ax->ns_team || bx->ew_team == ax->ew_team;
        if (!ns_ok || !ew_ok)
            return datum_ctx_fail(
                im->ctx, DATUM_E_INPUT,
                "%s:%llu: column %s: team \"%s\" is not in match \"%s\" of %s (teams \"%s\" and "
                "\"%s\" at %s:%llu)",
                row_path(im, b), row_line(im, b), ns_ok ? "ew_team" : "ns_team",
                team[ns_ok ? bx->ew_team : bx->ns_team], match[bx->match],
                field_name(im, b, name, sizeof name), team[ax->ns_team], team[ax->ew_team],
                row_path(im, a), row_line(im, a));
    }
    /* By team: one match. */
    sort_seats(rows, xs, n, 1, seats);
    for (size_t i = 1; i < 2 * n; i++) {
        const row *later = seats[i].r, *earlier = seats[i - 1].r;
        if (seats[i].id == seats[i - 1].id && seats[i].x->match != seats[i - 1].x->match)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: team \"%s\" already plays match \"%s\" of "
                                  "%s at %s:%llu",
                                  row_path(im, later), row_line(im, later),
                                  seats[i].column, team[seats[i].id], match[seats[i - 1].x->match],
                                  field_name(im, later, name, sizeof name),
                                  row_path(im, earlier), row_line(im, earlier));
    }
    return DATUM_OK;
}

/* A batch of whole fields in the layout of datum_chunk. */
typedef struct {
    uint64_t *offset;
    uint32_t *event, *section, *deal_set;
    int32_t *board, *table, *ns_pair, *ew_pair, *ns_score, *date, *ns_team, *ew_team, *match;
    uint8_t *adjusted, *published_method;
    double *published_ns, *published_ew, *published_ns_percent, *published_ew_percent;
} batch;

/* Room for `rows` rows in b: the columns every archive has, and those of
 * the teams and of the published figures when the import has them (no
 * others are written: finish_field, batch_chunk). */
static int batch_alloc(const importer *im, batch *b, size_t rows)
{
    datum_ctx *ctx = im->ctx;
    int32_t **row32[] = {&b->board, &b->table, &b->ns_pair, &b->ew_pair, &b->ns_score, &b->date};
    int32_t **team32[] = {&b->ns_team, &b->ew_team, &b->match};
    double **figures[] = {&b->published_ns, &b->published_ew, &b->published_ns_percent,
                          &b->published_ew_percent};
    int published = im->has_published || im->has_published_percent;
    int ok = (b->offset = datum_calloc(ctx, rows + 1, sizeof *b->offset)) &&
             (b->event = datum_calloc(ctx, rows, sizeof *b->event)) &&
             (b->section = datum_calloc(ctx, rows, sizeof *b->section)) &&
             (b->deal_set = datum_calloc(ctx, rows, sizeof *b->deal_set)) &&
             (b->adjusted = datum_calloc(ctx, rows, sizeof *b->adjusted)) &&
             (!published ||
              (b->published_method = datum_calloc(ctx, rows, sizeof *b->published_method)));
    for (size_t k = 0; ok && k < sizeof row32 / sizeof *row32; k++)
        ok = (*row32[k] = datum_calloc(ctx, rows, sizeof **row32[k])) != NULL;
    for (size_t k = 0; ok && im->has_teams && k < sizeof team32 / sizeof *team32; k++)
        ok = (*team32[k] = datum_calloc(ctx, rows, sizeof **team32[k])) != NULL;
    for (size_t k = 0; ok && published && k < sizeof figures / sizeof *figures; k++)
        ok = (*figures[k] = datum_calloc(ctx, rows, sizeof **figures[k])) != NULL;
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
    memset(b, 0, sizeof *b);
}

/* (board, deal) -> the first section of the event that played it: the
 * deal sets of the current event, found as its fields go to the writer, in
 * order. */
typedef struct {
    int32_t board;
    uint32_t deal, section; /* section: UINT32_MAX for an empty slot */
} deal_slot;

typedef struct {
    datum_ctx *ctx;
    deal_slot *slot; /* open addressing, at most half full */
    size_t n_slots, used;
    uint32_t event;
} deal_sets;

static uint64_t deal_hash(int32_t board, uint32_t deal)
{
    return ((uint64_t)(uint32_t)board * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)deal * 0xc2b2ae3d27d4eb4full);
}

/* The deal set of a field of the event `event` (fields in order): the first
 * section that played its board's deal. */
static int deal_set_of(deal_sets *s, uint32_t event, int32_t board, uint32_t deal, uint32_t section,
                       uint32_t *set)
{
    if (event != s->event || s->n_slots == 0) { /* a new event */
        for (size_t i = 0; i < s->n_slots; i++) s->slot[i].section = UINT32_MAX;
        s->used = 0;
        s->event = event;
    }
    if (2 * (s->used + 1) > s->n_slots) { /* rehash into twice the slots */
        size_t n = s->n_slots ? 2 * s->n_slots : 64;
        deal_slot *t = datum_malloc(s->ctx, n, sizeof *t);
        if (!t) return DATUM_E_NOMEM;
        for (size_t i = 0; i < n; i++) t[i].section = UINT32_MAX;
        for (size_t i = 0; i < s->n_slots; i++) {
            if (s->slot[i].section == UINT32_MAX) continue;
            size_t j = deal_hash(s->slot[i].board, s->slot[i].deal) & (n - 1);
            while (t[j].section != UINT32_MAX) j = (j + 1) & (n - 1);
            t[j] = s->slot[i];
        }
        datum_free(s->slot);
        s->slot = t;
        s->n_slots = n;
    }
    size_t j = deal_hash(board, deal) & (s->n_slots - 1);
    for (; s->slot[j].section != UINT32_MAX; j = (j + 1) & (s->n_slots - 1))
        if (s->slot[j].board == board && s->slot[j].deal == deal) {
            *set = s->slot[j].section;
            return DATUM_OK;
        }
    s->slot[j] = (deal_slot){board, deal, section};
    s->used++;
    *set = section;
    return DATUM_OK;
}

/* The deal of the field rows[0..n) (extras xs): that of its rows whose
 * deal is known, which must all agree (NO_DEAL when none is known). */
static int field_deal(const importer *im, const row *rows, const extra *xs, size_t n,
                      uint32_t *deal)
{
    const row *first = NULL;
    char name[512];
    *deal = NO_DEAL;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (xs[i].deal == NO_DEAL || xs[i].deal == *deal) continue;
        if (first)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: %s was played with another deal at %s:%llu",
                                  row_path(im, r), row_line(im, r),
                                  field_name(im, r, name, sizeof name), row_path(im, first),
                                  row_line(im, first));
        *deal = xs[i].deal;
        first = r;
    }
    return DATUM_OK;
}

/* The batch as a chunk for the writer. */
static void batch_chunk(const importer *im, batch *b, size_t n_fields, size_t n_rows,
                        datum_chunk *c)
{
    *c = (datum_chunk){.n_fields = n_fields,
                       .n_rows = n_rows,
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

/* The plan of the archive: the exact ranges, hence the narrowest types. The
 * number of fields is known only at the end: the rows bound it. */
static datum_archive_plan exact_plan(const importer *im)
{
    datum_archive_plan p = DATUM_ARCHIVE_PLAN_INIT;
    p.has_adjusted = im->has_adjusted;
    p.has_teams = im->has_teams;
    p.has_published = im->has_published;
    p.has_published_percent = im->has_published_percent;
    p.has_deal_sets = im->has_deals;
    p.max_results = im->n_rows;
    p.max_fields = im->n_rows;
    p.max_board = im->max_board;
    p.max_table = im->max_table;
    p.min_score = im->min_score;
    p.max_score = im->max_score;
    p.min_date = im->min_date;
    p.max_date = im->max_date;
    return p;
}

/* ------------------------------------------------------------------------ */
/* Merging in segments                                                      */

/* The merge is cut into segments of whole fields, each a key range of
 * every source (about SEGMENT_ROWS rows in all): the threads merge
 * segments at once, each into a slot, and the initial thread hands the
 * slots to the writer in the segments' order. The writer sees the same
 * fields in the same order for any thread count and any cut. */
enum { SEGMENT_ROWS = 1 << 16, SLOTS = 8 };

/* A merged segment: its fields in the layout of the writer's chunk (the
 * deal_set column holds each field's deal until the writer's thread finds
 * its set). */
typedef struct {
    batch b;
    size_t cap, n_fields, n_rows;
    size_t segment; /* the segment it holds, when ready */
    int ready;
} slot;

/* One thread's merging: the field being gathered, the checks' scratch,
 * the segment's records and cursors, and a compressor to help the writer. */
typedef struct {
    importer *im;
    row *field; /* the current field's rows and their extras */
    extra *field_extra;
    size_t field_n, field_cap;
    seat *seats;
    size_t seats_cap;
    uint64_t *pair_seen, stamp; /* pair_seen[pair]: stamp of the last field it sat in */
    unsigned char *recs;        /* the segment's spilled records */
    size_t recs_cap;
    cursor *cur;
    cursor **heap;
    io_compressor z;
    char tail_pad[64]; /* the mergers lie side by side: no cache line shared (see worker) */
} merger;

static void merger_free(merger *m)
{
    datum_free(m->field);
    datum_free(m->field_extra);
    datum_free(m->seats);
    datum_free(m->pair_seen);
    datum_free(m->recs);
    datum_free(m->cur);
    datum_free(m->heap);
    io_compressor_free(&m->z);
}

/* 1 if a pair sits twice in the field rows[0..n): a pass with stamps,
 * then check_pairs, which sorts, only to name the two lines. */
static int pairs_repeat(merger *m, const row *rows, size_t n)
{
    uint64_t stamp = ++m->stamp;
    for (size_t i = 0; i < n; i++) {
        if (m->pair_seen[rows[i].ns_pair] == stamp || m->pair_seen[rows[i].ew_pair] == stamp)
            return 1;
        m->pair_seen[rows[i].ns_pair] = m->pair_seen[rows[i].ew_pair] = stamp;
    }
    return 0;
}

/* Checks the field gathered in m and adds it to the slot (which has room:
 * its capacity is the segment's rows). */
static int finish_field(merger *m, slot *t)
{
    importer *im = m->im;
    const row *rows = m->field;
    const extra *xs = im->any_extras ? m->field_extra : NULL; /* NULL: no teams, deals, figures */
    size_t n = m->field_n;
    uint32_t deal = NO_DEAL;
    if (n == 0) return DATUM_OK;
    int rc = check_tables(im, rows, n);
    if (rc == DATUM_OK) rc = datum_reserve(im->ctx, &m->seats, &m->seats_cap, 2 * n, sizeof *m->seats);
    if (rc == DATUM_OK && pairs_repeat(m, rows, n)) rc = check_pairs(im, rows, xs, n, m->seats);
    if (rc == DATUM_OK && xs) rc = check_teams(im, rows, xs, n, m->seats);
    if (rc == DATUM_OK && xs && im->has_deals) rc = field_deal(im, rows, xs, n, &deal);
    if (rc != DATUM_OK) return rc;
    batch *b = &t->b;
    size_t f = t->n_fields, at = t->n_rows;
    b->event[f] = rows[0].event;
    b->section[f] = rows[0].section;
    b->board[f] = rows[0].board;
    b->deal_set[f] = deal;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        b->table[at + i] = r->table;
        b->ns_pair[at + i] = (int32_t)r->ns_pair;
        b->ew_pair[at + i] = (int32_t)r->ew_pair;
        b->ns_score[at + i] = r->ns_score;
        b->date[at + i] = r->date;
        b->adjusted[at + i] = r->adjusted;
    }
    /* The columns the archive has (batch_chunk hands on no others). */
    for (size_t i = 0; im->has_teams && i < n; i++) {
        const extra *x = xs ? &xs[i] : &kNoExtra;
        b->ns_team[at + i] = x->match == NO_TEAM ? -1 : (int32_t)x->ns_team;
        b->ew_team[at + i] = x->match == NO_TEAM ? -1 : (int32_t)x->ew_team;
        b->match[at + i] = x->match == NO_TEAM ? -1 : (int32_t)x->match;
    }
    for (size_t i = 0; (im->has_published || im->has_published_percent) && i < n; i++) {
        const extra *p = xs ? &xs[i] : &kNoExtra;
        b->published_method[at + i] = rows[i].method;
        b->published_ns[at + i] = p->ns;
        b->published_ew[at + i] = p->ew;
        b->published_ns_percent[at + i] = p->ns_percent;
        b->published_ew_percent[at + i] = p->ew_percent;
    }
    t->n_fields++;
    t->n_rows += n;
    b->offset[0] = 0;
    b->offset[t->n_fields] = t->n_rows;
    m->field_n = 0;
    return DATUM_OK;
}

/* One merged row, its names already ranked, and its extra (NULL: the
 * import has none). */
static int merger_row(merger *m, slot *t, const row *r, const extra *x)
{
    datum_ctx *ctx = m->im->ctx;
    int rc = DATUM_OK;
    if (m->field_n > 0 && !same_field(&m->field[0], r) && (rc = finish_field(m, t)) != DATUM_OK)
        return rc;
    size_t need = m->field_n + 1, cap = m->field_cap;
    if (m->field_n == m->field_cap &&
        ((rc = datum_reserve(ctx, &m->field, &m->field_cap, need, sizeof *m->field)) != DATUM_OK ||
         (rc = datum_reserve(ctx, &m->field_extra, &cap, need, sizeof *m->field_extra)) != DATUM_OK))
        return rc;
    m->field[m->field_n] = *r;
    if (x) m->field_extra[m->field_n] = *x;
    m->field_n++;
    return DATUM_OK;
}

/* heap[0..n) of cursors, the least row first. */
static int cursor_less(const cursor *a, const cursor *b)
{
    return compare_rows(&a->current, &b->current) < 0;
}

static void sift_down(cursor **heap, size_t n, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < n && cursor_less(heap[l], heap[least])) least = l;
        if (r < n && cursor_less(heap[r], heap[least])) least = r;
        if (least == i) return;
        cursor *t = heap[i];
        heap[i] = heap[least];
        heap[least] = t;
        i = least;
    }
}

/* The segments: segment k is the rows pos[k * n_src + i] ..
 * pos[(k + 1) * n_src + i] - 1 of every source i, k = 0 .. n_seg - 1. */
typedef struct {
    const source *src;
    size_t n_src, n_seg;
    uint64_t *pos;
} segments;

/* Merges segment k of the sources into the slot t (its fields checked). */
static int merge_segment(merger *m, const segments *sg, size_t k, slot *t)
{
    importer *im = m->im;
    datum_ctx *ctx = im->ctx;
    size_t n_src = sg->n_src, rows = 0, bytes = 0, n = 0;
    const uint64_t *lo = sg->pos + k * n_src, *hi = lo + n_src;
    for (size_t i = 0; i < n_src; i++) {
        rows += (size_t)(hi[i] - lo[i]);
        if (!sg->src[i].order) bytes += (size_t)(hi[i] - lo[i]) * sg->src[i].record;
    }
    m->field_n = 0;
    t->n_fields = t->n_rows = 0;
    if (rows > t->cap) {
        /* The slot grows to the segment's rows and an eighth more (segments
         * vary a little in size; a small import's slots stay small). */
        size_t cap = rows + rows / 8;
        batch_free(&t->b);
        t->cap = 0;
        if (batch_alloc(im, &t->b, cap) != DATUM_OK) return DATUM_E_NOMEM;
        t->cap = cap;
    }
    if ((!m->pair_seen &&
         !(m->pair_seen = datum_calloc(ctx, im->dict[IO_D_PAIRS].n + 1, sizeof *m->pair_seen))) ||
        (!m->cur && !(m->cur = datum_calloc(ctx, n_src, sizeof *m->cur))) ||
        (!m->heap && !(m->heap = datum_calloc(ctx, n_src, sizeof *m->heap))) ||
        datum_reserve(ctx, &m->recs, &m->recs_cap, bytes + 1, 1) != DATUM_OK)
        return DATUM_E_NOMEM;
    int rc = DATUM_OK;
    for (size_t i = 0, at = 0; i < n_src && rc == DATUM_OK; i++) {
        const source *s = &sg->src[i];
        m->cur[i] = (cursor){.s = s, .lo = lo[i], .at = lo[i], .end = hi[i], .extras = im->any_extras};
        if (s->order || hi[i] == lo[i]) continue;
        m->cur[i].recs = m->recs + at;
        rc = source_read(im, s, lo[i], hi[i], m->recs + at);
        at += (size_t)(hi[i] - lo[i]) * s->record;
    }
    for (size_t i = 0; i < n_src && rc == DATUM_OK; i++)
        if (cursor_next(&m->cur[i])) m->heap[n++] = &m->cur[i];
    for (size_t i = n; rc == DATUM_OK && i-- > 0;) sift_down(m->heap, n, i);
    while (rc == DATUM_OK && n > 0) {
        cursor *c = m->heap[0];
        if ((rc = merger_row(m, t, &c->current, c->extras ? &c->current_extra : NULL)) != DATUM_OK)
            break;
        if (!cursor_next(c)) m->heap[0] = m->heap[--n];
        sift_down(m->heap, n, 0);
    }
    if (rc == DATUM_OK) rc = finish_field(m, t);
    return rc;
}

static field_key key_of(const row *r)
{
    return (field_key){r->event, r->section, r->board};
}

static int compare_keys(const field_key *a, const field_key *b)
{
    int c = CMP(a->event, b->event);
    if (!c) c = CMP(a->section, b->section);
    return c ? c : CMP(a->board, b->board);
}

static int compare_keys_q(const void *a, const void *b)
{
    return compare_keys(a, b);
}

/* The first row of source s (samples: its rows' keys at the rows `at`, the
 * first and the last among them, in order) whose field is at or after key;
 * *j: the first sample at or after key so far (the keys come in order). A
 * spilled source's rows between two samples are read at once into *buf
 * (grown as needed; the caller frees it) and searched there. */
static int lower_bound(const importer *im, const source *s, const field_key *keys,
                       const uint64_t *at, size_t n_samples, size_t *j, const field_key *key,
                       unsigned char **buf, size_t *buf_cap, uint64_t *pos)
{
    while (*j < n_samples && compare_keys(&keys[*j], key) < 0) (*j)++;
    if (*j == 0 || *j == n_samples) { /* before the first row, or after the last */
        *pos = *j == 0 ? 0 : s->n;
        return DATUM_OK;
    }
    uint64_t first = at[*j - 1] + 1, lo = first, hi = at[*j]; /* the row sought is in lo..hi */
    int rc = DATUM_OK;
    if (!s->order && lo < hi &&
        ((rc = datum_reserve(im->ctx, buf, buf_cap, (size_t)(hi - lo) * s->record, 1)) != DATUM_OK ||
         (rc = source_read(im, s, lo, hi, *buf)) != DATUM_OK))
        return rc;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        row r;
        extra x;
        source_ranked(s, mid, s->order ? NULL : *buf + (size_t)(mid - first) * s->record, &r, &x);
        field_key k = key_of(&r);
        if (compare_keys(&k, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return DATUM_OK;
}

/* Sample j of a spilled source (a row at a multiple of SAMPLE_EVERY, or its
 * last), in final ranks. */
static field_key sample_ranked(const source *s, size_t j)
{
    const field_key *k = &s->run.samples[j];
    const worker *w = s->w;
    return (field_key){w->final[IO_D_EVENTS][k->event], w->final[IO_D_SECTIONS][k->section], k->board};
}

/* Cuts the sources into segments: every source sampled every SEGMENT_ROWS
 * / n_src rows (and at its last), the samples' keys sorted, every n_src-th
 * a cut, found in each source by a binary search between its own samples.
 * A segment then holds about SEGMENT_ROWS rows, at most about twice that
 * plus a field per source (with more than MAX_SAMPLES samples, fewer, and
 * the segments larger). */
static int plan_segments(importer *im, const source *src, size_t n_src, segments *sg)
{
    datum_ctx *ctx = im->ctx;
    /* At most about MAX_SAMPLES samples (many runs: a small budget for the
     * input), every `every`-th a cut. */
    enum { MAX_SAMPLES = 1 << 20 };
    uint64_t rows = 0;
    for (size_t i = 0; i < n_src; i++) rows += src[i].n;
    size_t spacing = SEGMENT_ROWS / n_src, n_samples = 0;
    if (spacing < rows / MAX_SAMPLES) spacing = (size_t)(rows / MAX_SAMPLES);
    if (spacing == 0) spacing = 1;
    int spilled = n_src > 0 && !src[0].order; /* then every source is a spilled run */
    if (spilled) spacing = (spacing + SAMPLE_EVERY - 1) / SAMPLE_EVERY * SAMPLE_EVERY; /* kept samples */
    size_t every = SEGMENT_ROWS / spacing ? SEGMENT_ROWS / spacing : 1;
    size_t *first = datum_calloc(ctx, n_src + 1, sizeof *first);
    int rc = first ? DATUM_OK : DATUM_E_NOMEM;
    for (size_t i = 0; i < n_src && rc == DATUM_OK; i++) {
        first[i] = n_samples;
        n_samples += src[i].n ? (size_t)((src[i].n - 1) / spacing) + 2 : 0;
    }
    if (first) first[n_src] = n_samples;
    field_key *keys = rc == DATUM_OK ? datum_malloc(ctx, n_samples + 1, sizeof *keys) : NULL;
    field_key *cuts = rc == DATUM_OK ? datum_malloc(ctx, n_samples + 1, sizeof *cuts) : NULL;
    uint64_t *at = rc == DATUM_OK ? datum_malloc(ctx, n_samples + 1, sizeof *at) : NULL;
    if (rc == DATUM_OK && (!keys || !cuts || !at)) rc = DATUM_E_NOMEM;
    int failed = 0; /* the loops' own: each thread's starts at 0 */
    if (rc == DATUM_OK)
#pragma omp parallel for num_threads(datum_ctx_threads(ctx)) schedule(dynamic, 1) reduction(| : failed)
    for (size_t i = 0; i < n_src; i++) {
        for (size_t j = first[i]; !failed && j < first[i + 1]; j++) {
            int last = j + 1 == first[i + 1];
            at[j] = last ? src[i].n - 1 : (uint64_t)(j - first[i]) * spacing;
            if (spilled) {
                size_t sample = last ? src[i].run.n_samples - 1 : (size_t)(at[j] / SAMPLE_EVERY);
                keys[j] = sample_ranked(&src[i], sample);
                continue;
            }
            row r = {0};
            failed |= source_row(im, &src[i], at[j], &r) != DATUM_OK;
            keys[j] = key_of(&r);
        }
    }
    if (rc == DATUM_OK && failed) rc = datum_ctx_code(ctx);
    size_t n_cuts = 0;
    if (rc == DATUM_OK) {
        memcpy(cuts, keys, n_samples * sizeof *keys);
        qsort(cuts, n_samples, sizeof *cuts, compare_keys_q);
        for (size_t j = every; j < n_samples; j += every)
            if (compare_keys(&cuts[j], &cuts[0]) > 0 &&
                (n_cuts == 0 || compare_keys(&cuts[j], &cuts[n_cuts - 1]) > 0))
                cuts[n_cuts++] = cuts[j];
    }
    sg->src = src;
    sg->n_src = n_src;
    sg->n_seg = n_cuts + 1;
    sg->pos = rc == DATUM_OK ? datum_malloc(ctx, (sg->n_seg + 1) * n_src, sizeof *sg->pos) : NULL;
    if (rc == DATUM_OK && !sg->pos) rc = DATUM_E_NOMEM;
    failed = 0;
    if (rc == DATUM_OK)
#pragma omp parallel for num_threads(datum_ctx_threads(ctx)) schedule(dynamic, 1) reduction(| : failed)
    for (size_t i = 0; i < n_src; i++) {
        size_t j = 0, n = first[i + 1] - first[i], buf_cap = 0;
        unsigned char *buf = NULL;
        sg->pos[i] = 0;
        sg->pos[sg->n_seg * n_src + i] = src[i].n;
        for (size_t k = 0; k < n_cuts && !failed; k++)
            failed |= lower_bound(im, &src[i], keys + first[i], at + first[i], n, &j, &cuts[k], &buf,
                                  &buf_cap, &sg->pos[(k + 1) * n_src + i]) != DATUM_OK;
        datum_free(buf);
    }
    if (rc == DATUM_OK && failed) rc = datum_ctx_code(ctx);
    datum_free(first);
    datum_free(keys);
    datum_free(cuts);
    datum_free(at);
    return rc;
}

/* The merge's threads and the writer: segments claimed in order by any
 * thread, each merged into its slot (segment k's is k % SLOTS, free once
 * segment k - SLOTS is written); the initial thread alone calls the writer
 * (HDF5 fails worst on a thread of OpenMP's when memory runs out), in the
 * segments' order, and merges too while the next slot is not ready; the
 * others, with nothing to merge, pack the writer's chunks. */
typedef struct {
    importer *im;
    datum_archive_writer *w;
    const segments *sg;
    slot slots[SLOTS];
    omp_lock_t lock; /* guards what follows */
    size_t next, written; /* segments claimed, and written */
    size_t failed;        /* the first segment whose merge failed (n_seg: none) */
    int stop;             /* a merge or the writer failed */
} pipeline;

/* The next segment to merge, or SIZE_MAX (none, or its slot not free). */
static size_t claim(pipeline *p)
{
    size_t k = SIZE_MAX;
    omp_set_lock(&p->lock);
    if (!p->stop && p->next < p->sg->n_seg && p->next < p->written + SLOTS) k = p->next++;
    omp_unset_lock(&p->lock);
    return k;
}

/* Merges segment k into its slot with m, which then is ready. */
static void merge_claimed(pipeline *p, merger *m, size_t k)
{
    slot *t = &p->slots[k % SLOTS];
    int rc = merge_segment(m, p->sg, k, t);
    omp_set_lock(&p->lock);
    if (rc != DATUM_OK) {
        p->stop = 1;
        if (k < p->failed) p->failed = k;
    } else {
        t->segment = k;
        t->ready = 1;
    }
    omp_unset_lock(&p->lock);
}

/* Waiting with nothing to do: a yield, then short sleeps (not a spin on a
 * shared machine). */
static void idle(int *rounds)
{
    if (++*rounds < 64) sched_yield();
    else nanosleep(&(struct timespec){0, 20000}, NULL);
}

/* The initial thread's part: the segments to the writer, in order. */
static int write_segments(pipeline *p, merger *m)
{
    const importer *im = p->im;
    deal_sets sets = {.ctx = im->ctx, .event = UINT32_MAX};
    int rc = DATUM_OK;
    for (size_t k = 0; k < p->sg->n_seg && rc == DATUM_OK; k++) {
        slot *t = &p->slots[k % SLOTS];
        int ready = 0, stop = 0;
        for (int rounds = 0;;) {
            omp_set_lock(&p->lock);
            ready = t->ready && t->segment == k;
            stop = p->stop;
            omp_unset_lock(&p->lock);
            if (ready || stop) break;
            size_t j = claim(p);
            if (j != SIZE_MAX) merge_claimed(p, m, j), rounds = 0;
            else idle(&rounds);
        }
        if (!ready) break; /* a merge failed */
        for (size_t f = 0; im->has_deals && f < t->n_fields && rc == DATUM_OK; f++)
            rc = deal_set_of(&sets, t->b.event[f], t->b.board[f], t->b.deal_set[f],
                             t->b.section[f], &t->b.deal_set[f]);
        datum_chunk c;
        batch_chunk(im, &t->b, t->n_fields, t->n_rows, &c);
        if (rc == DATUM_OK && t->n_fields > 0) rc = datum_archive_writer_append(p->w, &c);
        omp_set_lock(&p->lock);
        t->ready = 0;
        p->written = k + 1;
        if (rc != DATUM_OK) p->stop = 1;
        omp_unset_lock(&p->lock);
    }
    datum_free(sets.slot);
    return rc;
}

/* The other threads' part: segments merged while there are slots for
 * them, else the writer's chunks packed. */
static void help_segments(pipeline *p, merger *m)
{
    for (int rounds = 0;;) {
        omp_set_lock(&p->lock);
        int done = p->stop || p->written == p->sg->n_seg;
        omp_unset_lock(&p->lock);
        if (done) return;
        size_t k = SIZE_MAX;
        if (io_archive_writer_help(p->w, &m->z)) rounds = 0; /* the writer first: it is the slower */
        else if ((k = claim(p)) != SIZE_MAX) merge_claimed(p, m, k), rounds = 0;
        else idle(&rounds);
    }
}

/* The sources of the merge: the workers' runs in memory when none was
 * spilled, else the spilled runs. */
static int open_sources(importer *im, source **out, size_t *n_out)
{
    size_t n = im->n_runs ? im->n_runs : im->n_workers;
    source *s = datum_calloc(im->ctx, n, sizeof *s);
    *out = s;
    *n_out = n;
    if (!s) return DATUM_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (im->n_runs == 0) {
            const worker *w = &im->workers[i];
            s[i] = (source){.w = w, .order = w->order, .n = w->n};
            im->any_extras |= w->extras != NULL;
        } else {
            const run_info *r = &im->runs[i];
            s[i] = (source){.w = &im->workers[r->worker], .run = *r, .n = r->n, .record = r->record};
            im->any_extras |= r->has_extras;
        }
    }
    return DATUM_OK;
}

/* Merges the segments into the writer on `threads` threads. The first
 * failing segment's error is the one reported, whatever the threads did. */
static int merge_segments(importer *im, datum_archive_writer *w, const segments *sg)
{
    datum_ctx *ctx = im->ctx;
    int threads = datum_ctx_threads(ctx), rc = DATUM_OK;
    pipeline p = {.im = im, .w = w, .sg = sg, .failed = sg->n_seg};
    merger *m = datum_calloc(ctx, (size_t)threads, sizeof *m);
    if (!m) return DATUM_E_NOMEM;
    for (int i = 0; i < threads; i++) m[i].im = im;
    omp_init_lock(&p.lock);
    if (threads > 1) io_archive_writer_share(w, 1);
#pragma omp parallel num_threads(threads)
    {
        if (omp_get_thread_num() == 0) rc = write_segments(&p, &m[0]);
        else help_segments(&p, &m[omp_get_thread_num()]);
    }
    io_archive_writer_share(w, 0); /* the commit's last chunks on every thread */
    if (p.failed < sg->n_seg && threads > 1 && datum_ctx_code(ctx) != DATUM_E_NOMEM) {
        /* Threads may have failed in another order: the first failing
         * segment, merged again alone, gives the error to report. */
        char message[1024];
        int code = datum_ctx_code(ctx);
        snprintf(message, sizeof message, "%s", datum_ctx_message(ctx));
        datum_ctx_clear(ctx);
        slot *t = &p.slots[p.failed % SLOTS];
        rc = merge_segment(&m[0], sg, p.failed, t);
        if (rc == DATUM_OK) rc = datum_ctx_fail(ctx, code, "%s", message);
    } else if (p.failed < sg->n_seg) {
        rc = datum_ctx_code(ctx);
    }
    omp_destroy_lock(&p.lock);
    for (int i = 0; i < threads; i++) merger_free(&m[i]);
    datum_free(m);
    for (int i = 0; i < SLOTS; i++) batch_free(&p.slots[i].b);
    return rc;
}

/* The workers' names into the importer's dictionaries, sorted: each
 * worker's final[k][id] = the name's rank (final_deal: the deal's id). */
static int merge_dictionaries(importer *im)
{
    datum_ctx *ctx = im->ctx;
    int rc = DATUM_OK;
    for (size_t i = 0; i < im->n_workers && rc == DATUM_OK; i++) {
        worker *w = &im->workers[i];
        for (int k = 0; k <= IO_N_DICTS && rc == DATUM_OK; k++) {
            dict *from = k < IO_N_DICTS ? &w->dict[k] : &w->deals;
            dict *to = k < IO_N_DICTS ? &im->dict[k] : &im->deals;
            uint32_t **map = k < IO_N_DICTS ? &w->final[k] : &w->final_deal;
            if (!(*map = datum_malloc(ctx, from->n + 1, sizeof **map))) rc = DATUM_E_NOMEM;
            for (uint32_t id = 0; id < from->n && rc == DATUM_OK; id++)
                rc = dict_intern(ctx, to, from->bytes + from->start[id], name_len(from, id),
                                 &(*map)[id]);
        }
    }
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++) rc = dict_sort(ctx, &im->dict[k]);
    for (size_t i = 0; i < im->n_workers && rc == DATUM_OK; i++)
        for (int k = 0; k < IO_N_DICTS; k++)
            for (uint32_t id = 0; id < im->workers[i].dict[k].n; id++)
                im->workers[i].final[k][id] = im->dict[k].rank[im->workers[i].final[k][id]];
    return rc;
}

/* The phases of an import: wall and process CPU seconds at its steps,
 * given back in datum_import_options (the cli prints them when asked). */
enum {
    PHASE_START,
    PHASE_PLANNED,
    PHASE_READ,
    PHASE_SORTED,
    PHASE_NAMED,
    PHASE_CUT,
    PHASE_WRITTEN,
    N_PHASES
};
_Static_assert(N_PHASES - 1 == DATUM_IMPORT_N_PHASES, "one figure per phase");
typedef struct {
    double wall[N_PHASES], cpu[N_PHASES];
} phases;

static void phase_mark(phases *p, int at)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    p->wall[at] = omp_get_wtime();
    p->cpu[at] = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *datum_import_phase_name(int i)
{
    static const char *const name[DATUM_IMPORT_N_PHASES] = {
        "plan", "read", "last runs", "names", "merge's cuts", "merge and write"};
    return i >= 0 && i < DATUM_IMPORT_N_PHASES ? name[i] : NULL;
}

static void phases_report(const phases *p, datum_import_options *io)
{
    for (int i = PHASE_PLANNED; i < N_PHASES; i++) {
        io->phase_wall[i - 1] = p->wall[i] - p->wall[i - 1];
        io->phase_cpu[i - 1] = p->cpu[i] - p->cpu[i - 1];
    }
}

static int write_archive(importer *im, const datum_write_options *opt, phases *ph)
{
    datum_archive_plan plan = exact_plan(im);
    datum_archive_writer *w = NULL;
    source *src = NULL;
    size_t n_src = 0;
    segments sg = {0};
    int rc = merge_dictionaries(im);
    phase_mark(ph, PHASE_NAMED);
    if (rc == DATUM_OK) rc = open_sources(im, &src, &n_src);
    if (rc == DATUM_OK) rc = plan_segments(im, src, n_src, &sg);
    phase_mark(ph, PHASE_CUT);
    if (rc == DATUM_OK) rc = datum_archive_writer_create(im->ctx, im->out_path, &plan, opt, &w);
    for (int d = 0; d < IO_N_DICTS && rc == DATUM_OK; d++)
        if (io_has_dict(d, im->has_teams))
            rc = datum_archive_writer_dict(w, (datum_dict)d, im->dict[d].sorted, im->dict[d].n);
    if (rc == DATUM_OK) rc = merge_segments(im, w, &sg);
    if (rc == DATUM_OK) rc = datum_archive_writer_commit(&w);
    datum_archive_writer_abort(&w);
    datum_free(sg.pos);
    datum_free(src);
    return rc;
}
/* ------------------------------------------------------------------------ */
/* The import                                                               */

/* The row source of each input format, and its argument. */
io_row_source_open io_format_source(int format)
{
    switch (format) {
    case DATUM_FORMAT_USEBIO: return io_usebio_open;
    case DATUM_FORMAT_PBN: return io_pbn_open;
    default: return io_csv_source_open;
    }
}

/* A CSV file of at least this many bytes is read by all the threads, in
 * parts (datum_import_options.split_bytes). */
#define SPLIT_MIN_BYTES ((uint64_t)32 << 20)

/* A large CSV file is cut into this many parts a thread, taken by the next
 * free thread: a thread slowed (a shared machine) takes fewer, and the
 * reading ends within about a part's time on every thread. */
#define PARTS_PER_THREAD 32

/* The parts of a CSV file of `size` bytes for `threads` threads: cut just
 * after a line feed near each (size * i / parts), each part's lines counted
 * from 1 while it is read (read_parts numbers them in the file after: no
 * pass over the file before the reading). A line feed inside a quoted field
 * makes a bad cut; read_parts finds it (the part before it read past its
 * end) and reads that file again whole. A small file is one part. */
static int split_csv(datum_ctx *ctx, uint32_t file, const char *path, uint64_t size, int threads,
                     uint64_t split_bytes, input_part *parts, size_t *n)
{
    uint64_t cut[65];
    int t = threads > 64 / PARTS_PER_THREAD ? 64 : threads * PARTS_PER_THREAD, rc = DATUM_OK;
    *n = 1;
    parts[0] = (input_part){file, DATUM_FORMAT_CSV, 0, 0, 1, 0, 0};
    if (threads < 2 || size < split_bytes) return DATUM_OK;
    FILE *f = fopen(path, "rb");
    if (!f) return io_fail_errno(ctx, DATUM_E_IO, errno, "cannot open %s", path);
    cut[0] = 0;
    cut[t] = size;
    for (int i = 1; i < t && rc == DATUM_OK; i++) {
        uint64_t at = size / (uint64_t)t * (uint64_t)i;
        int ch = 0;
        if (fseeko(f, (off_t)at, SEEK_SET) != 0) rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot read %s", path);
        while (rc == DATUM_OK && at < size && (ch = getc(f)) != EOF && ch != '\n') at++;
        cut[i] = at < size ? at + 1 : size;
    }
    fclose(f);
    if (rc != DATUM_OK) return rc;
    *n = 0;
    for (int i = 0; i < t; i++)
        if (cut[i + 1] > cut[i]) parts[(*n)++] = (input_part){file, DATUM_FORMAT_CSV, cut[i], cut[i + 1], 1, 0, 0};
    return DATUM_OK;
}

/* The parts of the input: each file, the large CSV files cut in parts. */
static int plan_parts(importer *im, size_t n_paths, int forced, int threads, uint64_t split_bytes,
                      input_part **out, size_t *n_out)
{
    datum_ctx *ctx = im->ctx;
    input_part *parts = NULL;
    size_t n = 0, cap = 0;
    int rc = DATUM_OK;
    for (size_t f = 0; f < n_paths && rc == DATUM_OK; f++) {
        int format = forced;
        struct stat st;
        if (format == DATUM_FORMAT_AUTO) rc = io_detect_format(ctx, im->paths[f], &format);
        if (rc == DATUM_OK) rc = datum_reserve(ctx, &parts, &cap, n + 64, sizeof *parts);
        if (rc != DATUM_OK) break;
        size_t k = 1;
        parts[n] = (input_part){(uint32_t)f, format, 0, 0, 1, 0, 0};
        if (format == DATUM_FORMAT_CSV && stat(im->paths[f], &st) == 0 && S_ISREG(st.st_mode))
            rc = split_csv(ctx, (uint32_t)f, im->paths[f], (uint64_t)st.st_size, threads,
                           split_bytes, parts + n, &k);
        n += k;
    }
    *out = parts;
    *n_out = n;
    return rc;
}

static void worker_free(worker *w);

/* The runs' samples freed, and no run left (the scratch file's bytes stay). */
static void runs_free(importer *im)
{
    for (size_t i = 0; i < im->n_runs; i++) datum_free(im->runs[i].samples);
    im->n_runs = 0;
}

/* The workers emptied, the runs forgotten: the reading starts again. */
static void reset_reading(importer *im)
{
    for (size_t i = 0; i < im->n_workers; i++) {
        worker *w = &im->workers[i];
        worker_free(w);
        *w = (worker){.im = im, .run_cap = w->run_cap, .run_cap_extra = w->run_cap_extra};
    }
    runs_free(im);
    im->scratch_len = 0;
}

/* Reads the parts i < *first_failed that `pick` takes, each by the next
 * free thread; *first_failed: the first failing part (SIZE_MAX: none). */
static void read_parallel(importer *im, int (*pick)(const input_part *), void *pbn,
                          size_t *first_failed)
{
    size_t n = im->n_parts, failed = *first_failed;
#pragma omp parallel for num_threads((int)im->n_workers) schedule(dynamic, 1)
    for (size_t i = 0; i < n; i++) {
        size_t stop;
#pragma omp atomic read
        stop = failed;
        if (!pick(&im->parts[i]) || i > stop) continue;
        if (read_part(&im->workers[omp_get_thread_num()], i, pbn) != DATUM_OK) {
#pragma omp critical(import_failed)
            if (i < failed) failed = i;
        }
    }
    *first_failed = failed;
}

static int is_cut(const input_part *p) { return p->end != 0; }
static int is_whole_csv(const input_part *p) { return p->end == 0 && p->format == DATUM_FORMAT_CSV; }

/* After the cut files' parts before `read_to` are read: numbers each such
 * part's lines in its file (from where the part before it ended), or, where
 * a part read past its end (a line feed inside a quoted field), makes that
 * file one part again (*bad 1: the reading starts again). */
static int check_cuts(importer *im, size_t read_to, int *bad)
{
    input_part *p = im->parts;
    size_t n = 0;
    *bad = 0;
    for (size_t i = 0; i < im->n_parts;) {
        size_t j = i + 1;
        while (j < im->n_parts && p[j].file == p[i].file) j++; /* the file's parts: i..j-1 */
        int good = 1;
        for (size_t k = i; is_cut(&p[i]) && k + 1 < j && k < read_to; k++) {
            if (p[k].end_offset != p[k].end) good = 0;
            if (good && k + 1 <= read_to) p[k + 1].line = p[k].line + p[k].end_line - 1;
        }
        if (good) {
            memmove(&p[n], &p[i], (j - i) * sizeof *p);
            n += j - i;
        } else {
            p[n++] = (input_part){p[i].file, DATUM_FORMAT_CSV, 0, 0, 1, 0, 0};
            *bad = 1;
        }
        i = j;
    }
    im->n_parts = n;
    return DATUM_OK;
}

/* Reads the parts: those of the large CSV files first, on every thread (no
 * warnings: a bad cut then costs a new start, not a warning twice); then
 * the files whose readers issue warnings (PBN, USEBIO), by the calling
 * thread; then the other CSV files, on every thread. The first error in the
 * order of the parts is the one reported, whatever the threads did. */
static int read_parts(importer *im, void *pbn)
{
    datum_ctx *ctx = im->ctx;
    size_t first_failed = SIZE_MAX;
    for (int bad = 1; bad;) {
        first_failed = SIZE_MAX;
        read_parallel(im, is_cut, pbn, &first_failed);
        if (first_failed != SIZE_MAX && datum_ctx_code(ctx) == DATUM_E_NOMEM) return DATUM_E_NOMEM;
        check_cuts(im, first_failed, &bad);
        if (bad) {
            datum_ctx_clear(ctx);
            reset_reading(im);
        }
    }
    for (size_t i = 0; i < im->n_parts && i < first_failed; i++)
        if (im->parts[i].format != DATUM_FORMAT_CSV && read_part(&im->workers[0], i, pbn) != DATUM_OK)
            return datum_ctx_code(ctx); /* the last error made: its message stands */
    read_parallel(im, is_whole_csv, pbn, &first_failed);
    if (first_failed == SIZE_MAX) return DATUM_OK;
    int code = datum_ctx_code(ctx);
    if (code == DATUM_E_NOMEM) return code;
    /* Threads may have failed in another order, and a cut part counted its
     * lines from 1: the error of the first failing part, read again alone
     * from its line in the file, is the one to report. */
    char message[1024];
    snprintf(message, sizeof message, "%s", datum_ctx_message(ctx));
    worker again = {.im = im, .run_cap = 0};
    datum_ctx_clear(ctx);
    int rc = read_part(&again, first_failed, pbn);
    worker_free(&again);
    return rc != DATUM_OK ? rc : datum_ctx_fail(ctx, code, "%s", message);
}

/* The workers' flags, ranges and counts into the importer's. */
static void gather_workers(importer *im)
{
    for (size_t i = 0; i < im->n_workers; i++) {
        const worker *w = &im->workers[i];
        im->has_adjusted |= w->has_adjusted;
        im->has_teams |= w->has_teams;
        im->has_published |= w->has_published;
        im->has_published_percent |= w->has_published_percent;
        im->has_deals |= w->has_deals;
        im->n_sitouts += w->n_sitouts;
        if (w->n_rows == 0) continue;
        if (im->n_rows == 0) {
            im->max_board = w->max_board, im->max_table = w->max_table;
            im->min_score = w->min_score, im->max_score = w->max_score;
            im->min_date = w->min_date, im->max_date = w->max_date;
        }
        if (w->max_board > im->max_board) im->max_board = w->max_board;
        if (w->max_table > im->max_table) im->max_table = w->max_table;
        if (w->min_score < im->min_score) im->min_score = w->min_score;
        if (w->max_score > im->max_score) im->max_score = w->max_score;
        if (w->min_date < im->min_date) im->min_date = w->min_date;
        if (w->max_date > im->max_date) im->max_date = w->max_date;
        im->n_rows += w->n_rows;
    }
}

static void worker_free(worker *w)
{
    for (int k = 0; k < IO_N_DICTS; k++) {
        dict_free(&w->dict[k]);
        datum_free(w->final[k]);
    }
    dict_free(&w->deals);
    datum_free(w->final_deal);
    datum_free(w->rows);
    datum_free(w->extras);
    datum_free(w->order);
    datum_free(w->keys);
    datum_free(w->idx2);
}

/* Imports the rows of the paths into out_path; io gives the formats, the
 * budget and the PBN options. */
static int import_rows(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                       const char *out_path, datum_import_options *io,
                       const datum_write_options *opt)
{
    importer im = {.ctx = ctx, .paths = paths, .out_path = out_path, .scratch_fd = -1};
    datum_pbn_options pbn = {io->strict, 0};
    datum_write_options o;
    int threads = datum_ctx_threads(ctx);
    /* HDF5 initialises itself on its first call, and crashes when that runs
     * out of memory: called first, before the rows take the memory. */
    io_h5_silence();
    int rc = io_write_options(ctx, opt, &o);
    im.memory = io->memory ? io->memory : DATUM_IMPORT_MEMORY_DEFAULT;
    if (rc == DATUM_OK && im.memory < DATUM_IMPORT_MEMORY_MIN)
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "the import's memory budget is below %d bytes",
                            DATUM_IMPORT_MEMORY_MIN);
    if (rc == DATUM_OK && (io->format < DATUM_FORMAT_AUTO || io->format > DATUM_FORMAT_PBN))
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "no input format number %d", (int)io->format);
    if (rc == DATUM_OK && n_paths == 0) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "no input file");
    if (rc == DATUM_OK && n_paths > UINT32_MAX)
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "too many input files");
    if (rc == DATUM_OK && !(im.workers = datum_calloc(ctx, (size_t)threads, sizeof *im.workers)))
        rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) im.n_workers = (size_t)threads;
    for (size_t i = 0; i < im.n_workers; i++) {
        /* The runs take seven eighths of the budget: the rest is for the
         * dictionaries, the readers' buffers and the writer. */
        size_t share = im.memory / 8 * 7 / im.n_workers, cap = share / ROW_BYTES,
               cap_extra = share / ROW_BYTES_EXTRA;
        im.workers[i] = (worker){.im = &im, .run_cap = cap > UINT32_MAX ? UINT32_MAX : cap ? cap : 1,
                                 .run_cap_extra = cap_extra > UINT32_MAX ? UINT32_MAX
                                                  : cap_extra ? cap_extra : 1};
    }
    uint64_t split = io->split_bytes ? io->split_bytes : SPLIT_MIN_BYTES;
    phases ph;
    phase_mark(&ph, PHASE_START);
    if (rc == DATUM_OK) rc = plan_parts(&im, n_paths, io->format, threads, split, &im.parts, &im.n_parts);
    if (rc == DATUM_OK && im.n_parts > UINT32_MAX) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "too many input files");
    phase_mark(&ph, PHASE_PLANNED);
    if (rc == DATUM_OK) rc = read_parts(&im, &pbn);
    phase_mark(&ph, PHASE_READ);
    gather_workers(&im);
    if (rc == DATUM_OK && im.n_rows == 0)
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT, "no results in the input (only headers%s)",
                            im.n_sitouts ? " and sit-out rows" : "");
    /* The last runs: sorted in memory if none was spilled, else spilled. */
    int spilled = im.n_runs > 0, failed = rc != DATUM_OK;
#pragma omp parallel for num_threads((int)im.n_workers) schedule(static, 1) reduction(| : failed)
    for (size_t i = 0; i < im.n_workers; i++) {
        worker *w = &im.workers[i];
        if (failed) continue;
        if (!spilled) failed |= sort_run(w) != DATUM_OK;
        else if (w->n > 0) failed |= spill_run(w) != DATUM_OK;
    }
    if (rc == DATUM_OK && failed) rc = datum_ctx_code(ctx);
    for (size_t i = 0; i < im.n_workers; i++) { /* the merge's buffers and the writer take their room */
        worker *w = &im.workers[i];
        datum_free(w->keys);
        datum_free(w->idx2);
        w->keys = NULL, w->idx2 = NULL;
        w->keys_cap = w->idx2_cap = 0;
        if (!spilled) continue; /* the merge reads the rows in memory, in `order` */
        datum_free(w->rows);
        datum_free(w->order);
        w->rows = NULL, w->order = NULL;
        w->rows_cap = w->order_cap = 0;
    }
    phase_mark(&ph, PHASE_SORTED);
    if (rc == DATUM_OK) rc = write_archive(&im, &o, &ph);
    phase_mark(&ph, PHASE_WRITTEN);
    if (rc == DATUM_OK) phases_report(&ph, io);
    io->n_computed = pbn.n_computed;
    io->n_runs = im.n_runs;
    io->n_sitouts = im.n_sitouts;
    for (size_t i = 0; i < im.n_workers; i++) worker_free(&im.workers[i]);
    datum_free(im.workers);
    for (int k = 0; k < IO_N_DICTS; k++) dict_free(&im.dict[k]);
    dict_free(&im.deals);
    runs_free(&im);
    datum_free(im.runs);
    datum_free(im.parts);
    if (im.scratch_fd >= 0) close(im.scratch_fd);
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

int datum_import(datum_ctx *ctx, const char *const *paths, size_t n_paths, const char *out_path,
                 datum_import_options *io, const datum_write_options *opt)
{
    datum_import_options defaults = DATUM_IMPORT_OPTIONS_INIT;
    if (!io) io = &defaults;
    uint64_t warnings = datum_ctx_warnings(ctx);
    int rc = import_rows(ctx, paths, n_paths, out_path, io, opt);
    if (rc == DATUM_OK && datum_ctx_warnings(ctx) > warnings) rc = DATUM_W_SCORE;
    return report_sitouts(ctx, rc, io->n_sitouts);
}

/* The per-format entry points of before: datum_import with the format forced. */
static int import_as(datum_ctx *ctx, int format, const char *const *paths, size_t n_paths,
                     const char *out_path, int strict, uint64_t *n_computed,
                     const datum_write_options *opt)
{
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    io.format = format;
    io.strict = strict;
    int rc = datum_import(ctx, paths, n_paths, out_path, &io, opt);
    if (n_computed) *n_computed = io.n_computed;
    return rc;
}

int datum_import_csv(datum_ctx *ctx, const char *const *csv_paths, size_t n_paths,
                     const char *out_path, const datum_write_options *opt)
{
    return import_as(ctx, DATUM_FORMAT_CSV, csv_paths, n_paths, out_path, 0, NULL, opt);
}

int datum_import_pbn(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                     const char *out_path, datum_pbn_options *po, const datum_write_options *opt)
{
    datum_pbn_options defaults = DATUM_PBN_OPTIONS_INIT;
    if (!po) po = &defaults;
    return import_as(ctx, DATUM_FORMAT_PBN, paths, n_paths, out_path, po->strict, &po->n_computed,
                     opt);
}

int datum_import_usebio(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                        const char *out_path, const datum_write_options *opt)
{
    return import_as(ctx, DATUM_FORMAT_USEBIO, paths, n_paths, out_path, 0, NULL, opt);
}
