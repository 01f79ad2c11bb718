/* pass.c - one pass over an archive feeding several methods: the chunk
 * reader, the method kernels (engine/), the pair totals in archive order and
 * the outputs (io/). Memory is bounded by the chunk size and the numbers of
 * pairs and matches, not by the archive. */
#include "datum_alloc.h"
#include "jobs_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { KIND_BUTLER, KIND_CROSS, KIND_BARKING, KIND_TEAMS, KIND_MATCHPOINTS } method_kind;

static const char *const kCommand[] = {"score", "cross", "barking", "teams", "matchpoints"};

/* Output column numbers in the HDF5 file (-1: not declared). */
typedef struct {
    int datum, a, b, terms, boards, imps, per_board, raw, across_field;
} columns;

typedef struct {
    method_kind kind;
    datum_method m;
    datum_mp_method mp; /* matchpoints */
    datum_pass_outputs out;
    datum_teams_block_fn on_block;
    void *user;
    /* Per-chunk figures, grown when a chunk is larger than any before:
     * Butler datum (per field), ns_imps (a), ew_imps (b); cross and barking
     * ns_raw (a), ns_avg (b), terms; teams aggregate (a), imps (b);
     * matchpoints top (per field, in datum), ns_mp (a), ew_mp (b), and the
     * field sizes Neuberg scores to (target). */
    size_t fields_cap, rows_cap, target_cap;
    double *datum, *a, *b;
    uint32_t *target;
    int32_t *terms;       /* cross, as its kernel gives them */
    int64_t *terms_wide;  /* cross and barking */
    /* Totals per pair (not teams), accumulated in archive order; for
     * matchpoints imps holds the matchpoints, raw the tops and per_board the
     * percentage. */
    double *imps, *raw, *per_board;
    int64_t *boards, *ns_boards; /* ns_boards: matchpoints (a Mitchell's two rankings) */
    uint32_t *order; /* the ranking, computed on demand */
    uint32_t n_ranked;
    int scored; /* this chunk's kernel has run (kernels_together) */
    /* Outputs. */
    datum_output *h5;
    columns col;
    datum_csv_writer *results, *matches, *totals;
    datum_published *published;
    match_table *teams;
} method;

/* Deferred totals (datum_pass_run_slice): what one chunk adds to the pair
 * totals, kept until the totals of the slices before are known: the chunk's
 * offsets and pairs, and per method its rows' figures a, b and per field
 * datum (one allocation; datum NULL for cross and barking). */
typedef struct {
    uint64_t n_fields, n_rows;
    uint64_t *offset;
    int32_t *ns_pair, *ew_pair;
    double *fig; /* per method: a[n_rows], b[n_rows], datum[n_fields] */
} ledger_chunk;

struct datum_pass {
    datum_ctx *ctx;
    char *path;
    datum_archive *a;
    datum_archive_info info;
    size_t chunk_rows;
    method *m;
    size_t n, cap;
    datum_pass_chunk_fn on_chunk;
    void *user;
    unsigned columns;
    enum { READY, SLICED, DONE, FAILED } state;
    int whole_events; /* datum_pass_set_whole_events */
    int no_totals;    /* datum_pass_set_pair_totals(p, 0) */
    int by_range;     /* datum_pass_set_kernels_by_range */
    /* A slice (datum_pass_set_fields): fields first_field .. end_field - 1;
     * with defer, the ledger of what its chunks add to the totals. */
    int sliced, defer;
    uint64_t first_field, end_field;
    ledger_chunk *ledger;
    size_t n_ledger, ledger_cap;
    /* Across sections: the merger, the merged chunk the kernels see, and
     * per field of the chunk its merged field's first (/fields/across_field)
     * and its sections (field_sections, into label). */
    int across;
    datum_across *merger;
    datum_chunk merged;
    int64_t *across_field;
    size_t across_cap;
    char *label;
    size_t label_cap;
    /* The Butler and cross-IMP kernels run together on a chunk (n_together
     * of them; by_range: the caller's, largest the chunk's largest field). */
    datum_field_kernel *together;
    method **together_method;
    size_t together_cap, together_method_cap, n_together, largest;
};

int datum_pass_create(datum_ctx *ctx, const char *archive_path, datum_pass **out)
{
    if (out) *out = NULL;
    if (!ctx || !archive_path || !out)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_pass_create: invalid argument");
    datum_pass *p = datum_calloc(ctx, 1, sizeof *p);
    if (!p) return DATUM_E_NOMEM;
    p->ctx = ctx;
    p->chunk_rows = (size_t)1 << 20;
    p->path = datum_strdup(ctx, archive_path);
    int rc = p->path ? datum_archive_open(ctx, archive_path, &p->a) : DATUM_E_NOMEM;
    if (rc < 0) {
        datum_pass_free(&p);
        return rc;
    }
    datum_archive_get_info(p->a, &p->info);
    *out = p;
    return DATUM_OK;
}

const datum_archive *datum_pass_archive(const datum_pass *p) { return p->a; }

int datum_pass_set_chunk_rows(datum_pass *p, size_t max_rows)
{
    if (max_rows == 0 || p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_chunk_rows: %s",
                              max_rows ? "the pass has run" : "0 rows");
    p->chunk_rows = max_rows;
    return DATUM_OK;
}

int datum_pass_set_across_sections(datum_pass *p, int on)
{
    for (size_t i = 0; on && i < p->n; i++)
        if (p->m[i].kind == KIND_TEAMS)
            return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_across_sections: teams "
                                                       "matches are not merged across sections");
    if (p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_across_sections: the pass has run");
    p->across = on != 0;
    return DATUM_OK;
}

int datum_pass_set_whole_events(datum_pass *p, int on)
{
    if (p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_whole_events: the pass has run");
    p->whole_events = on != 0;
    return DATUM_OK;
}

int datum_pass_set_pair_totals(datum_pass *p, int on)
{
    for (size_t i = 0; !on && i < p->n; i++)
        if (p->m[i].out.pairs_csv || p->m[i].out.h5)
            return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_pair_totals: a method "
                                                       "writes pair totals");
    if (p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_pair_totals: the pass has run");
    p->no_totals = on == 0;
    return DATUM_OK;
}

int datum_pass_set_kernels_by_range(datum_pass *p, int on)
{
    if (p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_kernels_by_range: the pass has run");
    p->by_range = on != 0;
    return DATUM_OK;
}

int datum_pass_across_counts(const datum_pass *p, uint64_t *fields_read, uint64_t *fields_scored)
{
    *fields_read = *fields_scored = 0;
    if (!p->merger)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_across_counts: not across sections");
    datum_across_counts(p->merger, fields_read, fields_scored);
    return DATUM_OK;
}

int datum_pass_set_chunk_callback(datum_pass *p, unsigned extra_columns, datum_pass_chunk_fn fn,
                                  void *user)
{
    if (p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_chunk_callback: the pass has run");
    p->on_chunk = fn;
    p->user = user;
    p->columns = extra_columns;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Adding a method                                                          */

static void method_free(method *x)
{
    datum_free(x->datum); datum_free(x->a); datum_free(x->b);
    datum_free(x->terms); datum_free(x->terms_wide); datum_free(x->target);
    datum_free(x->imps); datum_free(x->raw); datum_free(x->per_board); datum_free(x->boards);
    datum_free(x->ns_boards);
    datum_free(x->order);
    datum_output_abort(&x->h5);
    datum_csv_abort(&x->results);
    datum_csv_abort(&x->matches);
    datum_csv_abort(&x->totals);
    datum_published_free(&x->published);
    match_table_free(&x->teams);
}

/* Why method x cannot be added, or NULL. */
static const char *refused(const datum_pass *p, const method *x)
{
    const datum_pass_outputs *o = &x->out;
    if (p->state != READY) return "the pass has run";
    if (x->kind == KIND_BARKING && x->m.scale.kind != DATUM_SCALE_WBF)
        return "barking is defined on the wbf scale only";
    if (x->kind == KIND_TEAMS && (o->results_csv || o->pairs_csv || o->compare_published))
        return "teams writes no results or pairs CSV and compares no published figures";
    if (x->kind != KIND_TEAMS && (o->matches_csv || o->totals_csv))
        return "only teams writes matches and totals CSV";
    if (x->kind == KIND_BARKING && o->compare_published)
        return "barking compares no published figures";
    if (x->kind == KIND_TEAMS && p->across) return "teams matches are not merged across sections";
    if (!(o->published_tolerance >= 0)) return "published_tolerance must be >= 0";
    return NULL;
}

static int add_method(datum_pass *p, method_kind kind, const datum_method *m,
                      const datum_mp_method *mp, const datum_pass_outputs *o,
                      datum_teams_block_fn on_block, void *user, int *id)
{
    if (id) *id = -1;
    if (!p) return DATUM_E_ARG;
    datum_ctx *ctx = p->ctx;
    if (!m || !id) return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_pass_add: invalid argument");
    method x = {.kind = kind, .m = *m, .on_block = on_block, .user = user};
    if (mp) x.mp = *mp;
    if (o) x.out = *o;
    const char *why = refused(p, &x);
    if (why) return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_pass_add_%s: %s", kCommand[kind], why);
    if (kind == KIND_TEAMS && !p->info.has_teams)
        return datum_ctx_fail(ctx, DATUM_E_INPUT,
                              "%s has no teams (import results with ns_team, ew_team and match "
                              "columns)",
                              p->path);
    int rc = datum_reserve(ctx, &p->m, &p->cap, p->n + 1, sizeof *p->m);
    if (rc < 0) return rc;
    if (kind != KIND_TEAMS) {
        size_t n = (size_t)p->info.n_pairs + 1;
        x.imps = datum_calloc(ctx, n, sizeof *x.imps);
        x.raw = x.imps && kind != KIND_BUTLER ? datum_calloc(ctx, n, sizeof *x.raw) : NULL;
        x.boards = x.imps && (x.raw || kind == KIND_BUTLER)
                       ? datum_calloc(ctx, n, sizeof *x.boards) : NULL;
        x.per_board = x.boards ? datum_calloc(ctx, n, sizeof *x.per_board) : NULL;
        if (x.per_board && kind == KIND_MATCHPOINTS)
            x.ns_boards = datum_calloc(ctx, n, sizeof *x.ns_boards);
        if (!x.per_board || (kind == KIND_MATCHPOINTS && !x.ns_boards)) {
            method_free(&x);
            return DATUM_E_NOMEM;
        }
    }
    if (x.out.compare_published) {
        datum_published_method own = kind == KIND_CROSS         ? DATUM_PUBLISHED_CROSS_IMPS
                                     : kind == KIND_MATCHPOINTS ? DATUM_PUBLISHED_MATCHPOINTS
                                                                : DATUM_PUBLISHED_BUTLER;
        double tolerance =
            x.out.published_tolerance > 0 ? x.out.published_tolerance : DATUM_PUBLISHED_TOLERANCE;
        rc = datum_published_create(ctx, p->a, p->path, own, tolerance, DATUM_PUBLISHED_SHOWN,
                                    &x.published);
        if (rc < 0) {
            method_free(&x);
            return rc;
        }
    }
    p->m[p->n] = x;
    *id = (int)p->n++;
    return DATUM_OK;
}

int datum_pass_add_butler(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                          int *id)
{
    return add_method(p, KIND_BUTLER, m, NULL, o, NULL, NULL, id);
}

int datum_pass_add_cross(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                         int *id)
{
    return add_method(p, KIND_CROSS, m, NULL, o, NULL, NULL, id);
}

int datum_pass_add_barking(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                           int *id)
{
    return add_method(p, KIND_BARKING, m, NULL, o, NULL, NULL, id);
}

int datum_pass_add_teams(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                         datum_teams_block_fn on_block, void *user, int *id)
{
    return add_method(p, KIND_TEAMS, m, NULL, o, on_block, user, id);
}

int datum_pass_add_matchpoints(datum_pass *p, const datum_mp_method *mp,
                               const datum_pass_outputs *o, int *id)
{
    datum_method m;
    datum_method_init(&m, "mean"); /* unused: matchpoints compare scores only */
    if (!mp) return add_method(p, KIND_MATCHPOINTS, NULL, NULL, o, NULL, NULL, id);
    return add_method(p, KIND_MATCHPOINTS, &m, mp, o, NULL, NULL, id);
}

/* ------------------------------------------------------------------------ */
/* Outputs                                                                  */

static int create_h5(datum_pass *p, method *x)
{
    const datum_archive_info *info = &p->info;
    const datum_pass_outputs *o = &x->out;
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    int rc = datum_output_create(p->ctx, o->h5, p->a, o->command ? o->command : kCommand[x->kind],
                                 o->attr_keys, o->attr_values, o->n_attrs, &wo, &x->h5);
    if (rc < 0) return rc;
    datum_output *h5 = x->h5;
    columns *col = &x->col;
    memset(col, 0xff, sizeof *col);
    switch (x->kind) {
    case KIND_BUTLER: {
        col->datum = datum_output_add_stored_column(h5, "fields", "datum", info->n_fields,
                                                    "datum of the field (NaN: no real score)",
                                                    datum_datums_store_type(&x->m));
        /* East-West's IMPs differ from -ns_imps only on adjusted rows, so
         * they are stored only then. */
        datum_store_type store = datum_imps_store_type(&x->m);
        col->a = datum_output_add_stored_column(h5, "results", "ns_imps", info->n_results,
                                                "North-South IMPs", store);
        if (info->has_adjusted)
            col->b = datum_output_add_stored_column(h5, "results", "ew_imps", info->n_results,
                                                    "East-West IMPs (-ns_imps except on adjusted rows)",
                                                    store);
        break;
    }
    case KIND_CROSS:
    case KIND_BARKING: {
        static const char *const kAbout[2][3] = {
            {"North-South cross-IMPs, raw sum (NaN: no score)",
             "North-South cross-IMPs divided by the divisor", "comparisons made (0: no score)"},
            {"North-South barking cross-IMPs, raw sum (NaN: no score; East-West: the negation)",
             "North-South barking cross-IMPs per term",
             "terms summed, (n-1)*C(n-2,2) (0: no score)"}};
        const char *const *about = kAbout[x->kind == KIND_BARKING];
        col->a = datum_output_add_column(h5, "results", "ns_raw", info->n_results, about[0]);
        col->b = datum_output_add_column(h5, "results", "ns_avg", info->n_results, about[1]);
        col->terms = datum_output_add_int_column(h5, "results", "terms", info->n_results, about[2]);
        break;
    }
    case KIND_MATCHPOINTS:
        /* A few hundred values repeat (halves, and the fractions of a few
         * field sizes; the tops of a few field sizes): deflated as repeats,
         * not searched. */
        col->datum = datum_output_add_stored_column(h5, "fields", "top", info->n_fields,
                                                    "top of the field (its matchpoints' maximum)",
                                                    DATUM_STORE_F64_REPEATS);
        col->a = datum_output_add_stored_column(h5, "results", "ns_mp", info->n_results,
                                                "North-South matchpoints", DATUM_STORE_F64_REPEATS);
        col->b = datum_output_add_stored_column(
            h5, "results", "ew_mp", info->n_results,
            "East-West matchpoints (top - ns_mp on a real result)", DATUM_STORE_F64_REPEATS);
        break;
    case KIND_TEAMS:
        col->a = datum_output_add_column(h5, "results", "match_aggregate", info->n_results,
                                         "aggregate of the match on this board, from the NS "
                                         "team's side (NaN: outside a match, or adjusted)");
        col->b = datum_output_add_column(h5, "results", "match_imps", info->n_results,
                                         "IMPs of that aggregate for the NS team");
        return datum_ctx_code(p->ctx) < 0 ? datum_ctx_code(p->ctx) : DATUM_OK;
    }
    int mp = x->kind == KIND_MATCHPOINTS;
    if (x->kind != KIND_BUTLER)
        col->raw = datum_output_add_column(h5, "pairs", mp ? "top" : "raw_imps", info->n_pairs,
                                           mp ? "sum of the tops of its boards"
                                              : "sum of raw cross-IMPs");
    col->boards = datum_output_add_int_column(h5, "pairs", "boards", info->n_pairs, "boards scored");
    col->imps = datum_output_add_column(h5, "pairs", mp ? "matchpoints" : "imps", info->n_pairs,
                                        mp ? "total matchpoints" : "total IMPs");
    col->per_board = datum_output_add_column(
        h5, "pairs", mp ? "percentage" : "imps_per_board", info->n_pairs,
        mp ? "100 matchpoints / top (NaN: no top)" : "IMPs per board (NaN: no board)");
    if (p->across)
        col->across_field = datum_output_add_int_column(
            h5, "fields", "across_field", info->n_fields,
            "scored across sections: the index of the first field of the merged field that "
            "holds this field (fields with the same value were scored as one)");
    return datum_ctx_code(p->ctx) < 0 ? datum_ctx_code(p->ctx) : DATUM_OK; /* first failed column */
}

static void write_results_header(datum_csv_writer *w, const method *x, int has_adjusted,
                                 int across)
{
    const char *butler[] = {"event", "section", "board", "table", "ns_pair", "ew_pair",
                            "ns_score", "datum", "ns_imps", "adjusted", "ew_imps"};
    const char *cross[] = {"event", "section", "board", "table", "ns_pair",  "ew_pair",
                           "ns_score", "ns_raw", "ns_avg", "terms", "ew_raw", "ew_avg"};
    const char *mp[] = {"event", "section", "board", "table", "ns_pair", "ew_pair",
                        "ns_score", "top", "ns_mp", "ew_mp", "ns_percent", "adjusted"};
    size_t n = x->kind == KIND_BARKING        ? 12
               : x->kind == KIND_CROSS        ? 10
               : x->kind == KIND_MATCHPOINTS ? (has_adjusted ? 12 : 11)
               : has_adjusted                 ? 11
                                              : 9;
    const char *const *names = x->kind == KIND_MATCHPOINTS ? mp : x->kind != KIND_BUTLER ? cross : butler;
    for (size_t i = 0; i < n; i++) datum_csv_str(w, names[i]);
    if (x->published) datum_csv_str(w, "published_ns");
    if (across) datum_csv_str(w, "field_sections");
    datum_csv_end_row(w);
}

/* Creates method x's files and the state they need. */
static int open_outputs(datum_pass *p, method *x)
{
    const datum_pass_outputs *o = &x->out;
    int rc = DATUM_OK;
    if (o->h5 && (rc = create_h5(p, x)) < 0) return rc;
    if (o->results_csv) {
        if ((rc = datum_csv_create(p->ctx, o->results_csv, &x->results)) < 0) return rc;
        write_results_header(x->results, x, p->info.has_adjusted, p->across);
    }
    if (o->matches_csv) {
        if ((rc = datum_csv_create(p->ctx, o->matches_csv, &x->matches)) < 0) return rc;
        match_table_matches_header(x->matches);
    }
    if (o->totals_csv) {
        if ((rc = datum_csv_create(p->ctx, o->totals_csv, &x->totals)) < 0) return rc;
        match_table_totals_header(x->totals);
    }
    if (x->kind == KIND_TEAMS)
        rc = match_table_create(p->ctx, p->a, p->info.n_matches, x->totals, x->on_block, x->user,
                                &x->teams);
    return rc;
}

/* The chunk columns method x reads. */
static unsigned columns_of(const method *x)
{
    if (x->kind == KIND_TEAMS)
        return DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED | DATUM_COL_NS_TEAM | DATUM_COL_EW_TEAM |
               DATUM_COL_MATCH;
    unsigned need = DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED | DATUM_COL_NS_PAIR | DATUM_COL_EW_PAIR;
    if (x->results) need |= DATUM_COL_TABLE;
    if (x->published) need |= DATUM_COL_PUBLISHED | DATUM_COL_TABLE;
    return need;
}

/* event,section,board,table,ns_pair,ew_pair,ns_score of one row. */
static void write_row_key(datum_csv_writer *w, const datum_archive *a, const datum_chunk *c,
                          uint64_t field, uint64_t row)
{
    datum_csv_str(w, datum_archive_event(a, c->field_event[field]));
    datum_csv_str(w, datum_archive_section(a, c->field_section[field]));
    datum_csv_int(w, c->field_board[field]);
    datum_csv_int(w, c->table[row]);
    datum_csv_str(w, datum_archive_pair(a, (uint32_t)c->ns_pair[row]));
    datum_csv_str(w, datum_archive_pair(a, (uint32_t)c->ew_pair[row]));
    if (c->adjusted && c->adjusted[row] != DATUM_ADJ_NONE) datum_csv_empty(w);
    else datum_csv_int(w, c->ns_score[row]);
}

/* Across sections: the sections of chunk field f's merged field, joined by
 * '+', into p->label. */
static int field_sections(datum_pass *p, const datum_chunk *c, uint64_t f)
{
    const uint32_t *member;
    size_t n = datum_across_members(p->merger, datum_across_field_of(p->merger, f), &member), len = 0;
    for (size_t k = 0; k < n; k++) {
        const char *name = datum_archive_section(p->a, c->field_section[member[k]]);
        size_t add = strlen(name) + 1;
        int rc = datum_reserve(p->ctx, &p->label, &p->label_cap, len + add + 1, 1);
        if (rc < 0) return rc;
        if (k) p->label[len++] = '+';
        memcpy(p->label + len, name, add);
        len += add - 1;
    }
    return DATUM_OK;
}

static int write_results_rows(datum_pass *p, const method *x, const datum_chunk *c)
{
    const datum_archive *a = p->a;
    datum_csv_writer *w = x->results;
    for (uint64_t f = 0; f < c->n_fields; f++) {
        int rc = p->across ? field_sections(p, c, f) : DATUM_OK;
        if (rc < 0) return rc;
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            if (x->kind == KIND_MATCHPOINTS) {
                write_row_key(w, a, c, f, r);
                datum_csv_real(w, x->datum[f]);
                datum_csv_real(w, x->a[r]);
                datum_csv_real(w, x->b[r]);
                datum_csv_real(w, x->datum[f] > 0 ? 100.0 * x->a[r] / x->datum[f] : NAN);
                if (c->adjusted) datum_csv_str(w, datum_adjusted_token(c->adjusted[r]));
            } else if (x->kind != KIND_BUTLER) {
                if (x->terms_wide[r] == 0) continue; /* rows without a score */
                write_row_key(w, a, c, f, r);
                datum_csv_real(w, x->a[r]);
                datum_csv_real(w, x->b[r]);
                datum_csv_int(w, x->terms_wide[r]);
                if (x->kind == KIND_BARKING) { /* EW: exactly the negation (§5) */
                    datum_csv_real(w, 0.0 - x->a[r]);
                    datum_csv_real(w, 0.0 - x->b[r]);
                }
            } else {
                write_row_key(w, a, c, f, r);
                datum_csv_real(w, x->datum[f]);
                datum_csv_real(w, x->a[r]);
                if (c->adjusted) {
                    datum_csv_str(w, datum_adjusted_token(c->adjusted[r]));
                    datum_csv_real(w, x->b[r]);
                }
            }
            if (x->published) datum_csv_real(w, c->published_ns[r]);
            if (p->across) datum_csv_str(w, p->label);
            datum_csv_end_row(w);
        }
    }
    return DATUM_OK;
}

static int write_h5_chunk(datum_pass *p, method *x, const datum_chunk *c)
{
    datum_output *o = x->h5;
    const columns *col = &x->col;
    int rc = DATUM_OK;
    if (p->across && x->kind != KIND_TEAMS)
        rc = datum_output_write(o, col->across_field, c->first_field, c->n_fields, p->across_field);
    if (rc < 0) return rc;
    if (x->kind == KIND_BUTLER || x->kind == KIND_MATCHPOINTS)
        rc = datum_output_write(o, col->datum, c->first_field, c->n_fields, x->datum);
    else if (x->kind != KIND_TEAMS)
        rc = datum_output_write(o, col->terms, c->first_row, c->n_rows, x->terms_wide);
    if (rc >= 0) rc = datum_output_write(o, col->a, c->first_row, c->n_rows, x->a);
    if (rc >= 0 && col->b >= 0) rc = datum_output_write(o, col->b, c->first_row, c->n_rows, x->b);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */

static int grow(datum_ctx *ctx, method *x, size_t fields, size_t rows)
{
    if ((x->kind == KIND_BUTLER || x->kind == KIND_MATCHPOINTS) && fields > x->fields_cap) {
        int rc = datum_reserve(ctx, &x->datum, &x->fields_cap, fields, sizeof *x->datum);
        if (rc < 0) return rc;
    }
    if (x->kind == KIND_MATCHPOINTS && fields > x->target_cap) {
        int rc = datum_reserve(ctx, &x->target, &x->target_cap, fields, sizeof *x->target);
        if (rc < 0) return rc;
    }
    if (rows <= x->rows_cap) return DATUM_OK;
    void *const arrays[] = {&x->a, &x->b, &x->terms_wide, &x->terms};
    const size_t sizes[] = {sizeof *x->a, sizeof *x->b, sizeof *x->terms_wide, sizeof *x->terms};
    int count = x->kind == KIND_CROSS ? 4 : x->kind == KIND_BARKING ? 3 : 2;
    return datum_reserve_all(ctx, &x->rows_cap, rows, count, arrays, sizes);
}

/* The field named in an error about chunk field f of a teams match. */
static int bad_match(datum_pass *p, const datum_chunk *c, size_t f)
{
    datum_ctx_clear(p->ctx);
    return datum_ctx_fail(p->ctx, DATUM_E_INPUT,
                          "%s, section %s, board %d: a match whose tables do not oppose the same "
                          "two teams",
                          datum_archive_event(p->a, c->field_event[f]),
                          datum_archive_section(p->a, c->field_section[f]), c->field_board[f]);
}

/* Across sections: method x's figures, computed on the merged fields, back
 * in the chunk's order. */
static void unmerge(datum_pass *p, method *x)
{
    if (!p->across) return;
    datum_across_unmerge_rows(p->merger, x->a, sizeof *x->a);
    datum_across_unmerge_rows(p->merger, x->b, sizeof *x->b);
    if (x->kind == KIND_BUTLER || x->kind == KIND_MATCHPOINTS)
        datum_across_unmerge_fields(p->merger, x->datum);
    else datum_across_unmerge_rows(p->merger, x->terms_wide, sizeof *x->terms_wide);
}

/* Per field of a chunk of whole events, the size Neuberg scores it to: the
 * largest field of its event (rows, adjusted ones included). */
static void event_targets(const datum_chunk *k, uint32_t *target)
{
    for (uint64_t f = 0, g; f < k->n_fields; f = g) {
        uint64_t largest = 0;
        for (g = f; g < k->n_fields && k->field_event[g] == k->field_event[f]; g++)
            if (k->offset[g + 1] - k->offset[g] > largest) largest = k->offset[g + 1] - k->offset[g];
        for (uint64_t h = f; h < g; h++) target[h] = (uint32_t)largest;
    }
}

/* Cross-IMP's terms as the outputs keep them (barking's are wide already). */
static void widen_terms(uint64_t rows, const int32_t *terms, int64_t *terms_wide)
{
    for (uint64_t r = 0; r < rows; r++) terms_wide[r] = terms[r];
}

/* Method x's kernel (not teams) on fields `in`: per field x->datum (Butler's
 * datum, matchpoints' top), per row a and b (Butler ns_imps and ew_imps;
 * cross and barking ns_raw and ns_avg, with terms_wide; matchpoints ns_mp and
 * ew_mp); target: per field the size Neuberg scores matchpoints to (NULL:
 * each field's own rows). */
static int kernel(datum_ctx *ctx, const method *x, const datum_fields *in, const uint32_t *target,
                  double *datum, double *a, double *b, int32_t *terms, int64_t *terms_wide)
{
    int rc = DATUM_OK;
    switch (x->kind) {
    case KIND_BUTLER: return datum_score_fields(ctx, &x->m, in, datum, a, b);
    case KIND_CROSS:
        rc = datum_cross_fields(ctx, &x->m, in, a, b, terms);
        if (rc >= 0) widen_terms(in->offset[in->n_fields], terms, terms_wide);
        return rc;
    case KIND_BARKING: return datum_barking_fields(ctx, &x->m.scale, in, a, b, terms_wide);
    case KIND_MATCHPOINTS: return datum_matchpoint_fields(ctx, &x->mp, in, target, datum, a, b);
    case KIND_TEAMS: break;
    }
    return datum_ctx_fail(ctx, DATUM_E_ARG, "teams matches are not scored field by field");
}

/* Adds to method x's pair totals what rows 0..n_rows-1 of a chunk give:
 * their pairs, their figures a and b (x's layout) and per field datum
 * (matchpoints: the tops), in row order. */
static void add_totals(method *x, uint64_t n_fields, const uint64_t *offset, uint64_t n_rows,
                       const int32_t *ns_pair, const int32_t *ew_pair, const double *a,
                       const double *b, const double *datum, int threads)
{
    switch (x->kind) {
    case KIND_BUTLER:
        datum_pairs_accumulate(n_rows, ns_pair, ew_pair, a, b, x->imps, x->boards);
        break;
    case KIND_CROSS:
    case KIND_BARKING:
        /* The average per comparison is the score; the raw sum is kept beside it. */
        datum_pairs_accumulate(n_rows, ns_pair, ew_pair, b, NULL, x->imps, x->boards);
        datum_pairs_accumulate_raw(n_rows, ns_pair, ew_pair, a, x->raw);
        break;
    case KIND_MATCHPOINTS: /* with the tops, for the percentages */
        datum_pairs_accumulate_mp(n_fields, offset, ns_pair, ew_pair, a, b, datum, x->imps, x->raw,
                                  x->boards, x->ns_boards, threads);
        break;
    case KIND_TEAMS:
        break;
    }
}

static int together_kind(const method *x) { return x->kind == KIND_BUTLER || x->kind == KIND_CROSS; }

/* Without across sections, the kernels of every Butler and cross-IMP method
 * on chunk c at once (datum_fields_many: each field's scores read and
 * gathered once for all of them, not once per method), and their x->scored
 * set; with fewer than two such methods, none. With kernels by range, their
 * list only (p->together, checked): the callback scores the fields. */
static int kernels_together(datum_pass *p, const datum_chunk *c)
{
    size_t count = 0;
    p->n_together = 0;
    for (size_t i = 0; i < p->n; i++) p->m[i].scored = 0, count += (size_t)together_kind(&p->m[i]);
    if (p->across || (count < 2 && !p->by_range) || count == 0) return DATUM_OK;
    int rc = datum_reserve(p->ctx, &p->together, &p->together_cap, count, sizeof *p->together);
    if (rc >= 0)
        rc = datum_reserve(p->ctx, &p->together_method, &p->together_method_cap, count,
                           sizeof *p->together_method);
    for (size_t i = 0, t = 0; rc >= 0 && i < p->n; i++) {
        method *x = &p->m[i];
        if (!together_kind(x)) continue;
        if (p->by_range && (x->h5 || x->results || x->published || !p->no_totals || p->defer))
            return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_kernels_by_range: a method "
                                  "of the pass has outputs or totals, which need its figures first");
        if ((rc = grow(p->ctx, x, c->n_fields, c->n_rows)) < 0) break;
        p->together_method[t] = x;
        p->together[t++] = (datum_field_kernel){&x->m, x->kind == KIND_CROSS, x->datum, x->a, x->b,
                                                x->terms};
    }
    if (rc >= 0 && p->by_range) { /* the caller scores the fields (datum_pass_score_range) */
        rc = datum_fields_check(p->ctx, count, p->together);
        p->n_together = rc >= 0 ? count : 0;
        datum_fields in = {c->n_fields, c->offset, c->ns_score, c->adjusted};
        p->largest = datum_largest_field(&in);
    } else if (rc >= 0) {
        datum_fields in = {c->n_fields, c->offset, c->ns_score, c->adjusted};
        rc = datum_fields_many(p->ctx, &in, count, p->together);
    }
    for (size_t i = 0; rc >= 0 && i < p->n; i++) {
        method *x = &p->m[i];
        if (!together_kind(x)) continue;
        if (x->kind == KIND_CROSS && !p->by_range) widen_terms(c->n_rows, x->terms, x->terms_wide);
        x->scored = 1;
    }
    return rc;
}

size_t datum_pass_range_scratch_bytes(const datum_pass *p)
{
    return datum_fields_scratch_bytes(p->largest);
}

void datum_pass_score_range(const datum_pass *p, const datum_chunk *c, uint64_t f0, uint64_t f1,
                            void *scratch)
{
    if (!p->n_together) return;
    datum_fields in = {c->n_fields, c->offset, c->ns_score, c->adjusted};
    datum_fields_many_range(&in, (size_t)f0, (size_t)f1, p->n_together, p->together, scratch,
                            p->largest);
    uint64_t r0 = c->offset[f0];
    for (size_t t = 0; t < p->n_together; t++)
        if (p->together[t].cross)
            widen_terms(c->offset[f1] - r0, p->together[t].terms + r0,
                        p->together_method[t]->terms_wide + r0);
}

/* Method x on chunk c: its kernel (on the merged fields across sections),
 * its totals (unless deferred), its outputs. */
static int run_kernel_and_outputs(datum_pass *p, method *x, const datum_chunk *c)
{
    datum_ctx *ctx = p->ctx;
    int rc = DATUM_OK; /* the kernel may have run already (x->scored) */
    const datum_chunk *k = p->across ? &p->merged : c; /* never more fields or rows than c */
    datum_fields in = {k->n_fields, k->offset, k->ns_score, k->adjusted};
    int to_event = x->kind == KIND_MATCHPOINTS && x->mp.neuberg && !x->mp.neuberg_to_field;
    if (to_event) event_targets(k, x->target);
    if (x->kind != KIND_TEAMS) {
        if (!x->scored)
            rc = kernel(ctx, x, &in, to_event ? x->target : NULL, x->datum, x->a, x->b, x->terms,
                        x->terms_wide);
        if (rc < 0) return rc;
        unmerge(p, x);
    } else {
        size_t bad;
        rc = datum_match_fields(ctx, &x->m.scale, &in, c->match, c->ns_team, c->ew_team, x->a,
                                x->b, &bad);
        if (rc == DATUM_E_INPUT && bad < c->n_fields) rc = bad_match(p, c, bad);
        if (rc < 0) return rc;
        if ((rc = match_table_add(x->teams, c, x->a, x->b, x->matches)) < 0) return rc;
    }
    if (!p->defer && !p->no_totals) /* no_totals: compare keeps its own, per group */
        add_totals(x, c->n_fields, c->offset, c->n_rows, c->ns_pair, c->ew_pair, x->a, x->b,
                   x->datum, datum_ctx_threads(ctx));
    if (x->results && (rc = write_results_rows(p, x, c)) < 0) return rc;
    if (x->published) /* Butler, matchpoints: NS and EW; cross: ns_avg, EW its negation */
        datum_published_add(x->published, c, x->kind == KIND_CROSS ? x->b : x->a,
                            x->kind == KIND_CROSS ? NULL : x->b);
    /* Last: written in place, a and b are the output's from here on. */
    if (x->h5 && (rc = write_h5_chunk(p, x, c)) < 0) return rc;
    return DATUM_OK;
}

/* run_kernel_and_outputs, with matchpoints' rows in the output's buffer
 * when it can take them. */
static int run_chunk(datum_pass *p, method *x, const datum_chunk *c)
{
    datum_ctx *ctx = p->ctx;
    int rc = grow(ctx, x, c->n_fields, c->n_rows);
    if (rc < 0) return rc;
    /* Matchpoints' rows go straight into the output's buffer when nothing
     * reads them after this chunk (no ledger, no chunk callback): their
     * copy was 5 % of the run. */
    double *own_a = x->a, *own_b = x->b;
    if (x->kind == KIND_MATCHPOINTS && x->h5 && !p->defer && !p->on_chunk) {
        double *slot_a = datum_output_slot(x->h5, x->col.a, c->first_row, c->n_rows);
        double *slot_b = datum_output_slot(x->h5, x->col.b, c->first_row, c->n_rows);
        x->a = slot_a ? slot_a : x->a;
        x->b = slot_b ? slot_b : x->b;
    }
    rc = run_kernel_and_outputs(p, x, c);
    x->a = own_a;
    x->b = own_b;
    return rc;
}

int datum_pass_score_fields(datum_pass *p, int id, const datum_fields *in, const uint32_t *target,
                            double *field_value, double *ns, double *ew)
{
    if (!p || id < 0 || (size_t)id >= p->n || !in || !ns || !ew || p->m[id].kind == KIND_TEAMS)
        return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG,
                              "datum_pass_score_fields: invalid argument or a teams method");
    const method *x = &p->m[id];
    size_t rows = (size_t)in->offset[in->n_fields], fields = (size_t)in->n_fields;
    int own = x->kind == KIND_BUTLER || x->kind == KIND_MATCHPOINTS; /* NS and EW figures */
    double *datum = datum_malloc(p->ctx, fields + 1, sizeof *datum);
    double *raw = own ? NULL : datum_malloc(p->ctx, rows + 1, sizeof *raw);
    int32_t *terms = own ? NULL : datum_malloc(p->ctx, rows + 1, sizeof *terms);
    int64_t *wide = own ? NULL : datum_malloc(p->ctx, rows + 1, sizeof *wide);
    int rc = !datum || (!own && (!raw || !terms || !wide)) ? DATUM_E_NOMEM : DATUM_OK;
    if (rc >= 0 && x->kind == KIND_MATCHPOINTS && !(x->mp.neuberg && !x->mp.neuberg_to_field))
        target = NULL; /* each field to its own rows, as the pass scores them */
    if (rc >= 0) rc = kernel(p->ctx, x, in, target, datum, own ? ns : raw, own ? ew : ns, terms, wide);
    for (size_t r = 0; rc >= 0 && !own && r < rows; r++) ew[r] = 0.0 - ns[r];
    if (rc >= 0 && field_value)
        for (size_t f = 0; f < fields; f++) field_value[f] = own ? datum[f] : NAN;
    datum_free(datum);
    datum_free(raw);
    datum_free(terms);
    datum_free(wide);
    return rc;
}

/* pair,boards,imps,imps_per_board[,raw_imps] (matchpoints: pair,boards,
 * matchpoints,top,percentage) for every pair with a board. */
static int write_pairs_csv(datum_pass *p, const method *x)
{
    datum_csv_writer *w;
    int rc = datum_csv_create(p->ctx, x->out.pairs_csv, &w);
    if (rc < 0) return rc;
    int mp = x->kind == KIND_MATCHPOINTS;
    const char *header[] = {"pair", "boards", "imps", "imps_per_board", "raw_imps"};
    const char *mp_header[] = {"pair", "boards", "matchpoints", "top", "percentage"};
    for (int i = 0; i < (x->raw ? 5 : 4); i++) datum_csv_str(w, mp ? mp_header[i] : header[i]);
    datum_csv_end_row(w);
    /* The reals of a block of pairs formatted over the threads, then
     * written in order: the shortest round trip (up to three snprintf and
     * strtod a value) on one thread was a twentieth of a 2-thread
     * matchpoints -o, while the other waited. The same text. */
    enum { BLOCK = 4096, REALS = 3, TEXT = 32 };
    char (*text)[REALS][TEXT] = datum_malloc(p->ctx, BLOCK, sizeof *text);
    if (!text) {
        datum_csv_abort(&w);
        return DATUM_E_NOMEM;
    }
    uint32_t n = p->info.n_pairs;
    int threads = datum_ctx_threads(p->ctx);
    for (uint32_t q0 = 0; q0 < n; q0 += BLOCK) {
        int64_t k = n - q0 < BLOCK ? n - q0 : BLOCK;
#pragma omp parallel for num_threads(threads) schedule(static, 256)
        for (int64_t i = 0; i < k; i++) {
            uint32_t q = q0 + (uint32_t)i;
            if (!x->boards[q]) continue;
            datum_format_real(x->imps[q], text[i][0]);
            datum_format_real(mp ? x->raw[q] : x->per_board[q], text[i][1]);
            if (x->raw) datum_format_real(mp ? x->per_board[q] : x->raw[q], text[i][2]);
        }
        for (int64_t i = 0; i < k; i++) {
            uint32_t q = q0 + (uint32_t)i;
            if (!x->boards[q]) continue;
            datum_csv_str(w, datum_archive_pair(p->a, q));
            datum_csv_int(w, x->boards[q]);
            for (int r = 0; r < (x->raw ? 3 : 2); r++) datum_csv_str(w, text[i][r]);
            datum_csv_end_row(w);
        }
    }
    datum_free(text);
    return datum_csv_commit(&w);
}

/* After the last chunk: the pair figures, and their outputs (when
 * write_pairs: a slice's pass leaves them to one process). */
static int finish_method(datum_pass *p, method *x, int write_pairs)
{
    if (x->kind == KIND_TEAMS) return match_table_finish(x->teams);
    uint32_t n = p->info.n_pairs;
    for (uint32_t q = 0; q < n; q++)
        x->per_board[q] = x->kind == KIND_MATCHPOINTS ? (x->raw[q] > 0 ? 100.0 * x->imps[q] / x->raw[q] : NAN)
                          : x->boards[q] ? x->imps[q] / (double)x->boards[q] : NAN;
    int rc = DATUM_OK;
    if (!write_pairs) return rc;
    if (x->h5) {
        const columns *col = &x->col;
        rc = datum_output_write(x->h5, col->boards, 0, n, x->boards);
        if (rc >= 0) rc = datum_output_write(x->h5, col->imps, 0, n, x->imps);
        if (rc >= 0) rc = datum_output_write(x->h5, col->per_board, 0, n, x->per_board);
        if (rc >= 0 && x->raw) rc = datum_output_write(x->h5, col->raw, 0, n, x->raw);
        if (rc < 0) return rc;
    }
    if (x->out.pairs_csv) rc = write_pairs_csv(p, x);
    return rc;
}

static int commit_method(method *x)
{
    int rc = DATUM_OK;
    if (x->results && (rc = datum_csv_commit(&x->results)) < 0) return rc;
    if (x->matches && (rc = datum_csv_commit(&x->matches)) < 0) return rc;
    if (x->totals && (rc = datum_csv_commit(&x->totals)) < 0) return rc;
    if (x->h5 && (rc = datum_output_commit(&x->h5)) < 0) return rc;
    return rc;
}

/* Across sections: merges chunk c into p->merged, and the first field of
 * each field's merged field into p->across_field. */
static int merge_chunk(datum_pass *p, const datum_chunk *c)
{
    /* The kernels read the scores; everything else stays in archive order. */
    int rc = datum_across_merge(p->merger, c, DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED, &p->merged);
    if (rc >= 0) rc = datum_reserve(p->ctx, &p->across_field, &p->across_cap, c->n_fields,
                                    sizeof *p->across_field);
    for (uint64_t f = 0; rc >= 0 && f < c->n_fields; f++) {
        const uint32_t *member;
        datum_across_members(p->merger, datum_across_field_of(p->merger, f), &member);
        p->across_field[f] = (int64_t)(c->first_field + member[0]);
    }
    return rc;
}

/* Method x's figures of chunk c into the ledger's record k (deferred
 * totals). */
static void ledger_figures(const method *x, const ledger_chunk *k, size_t i)
{
    double *fig = k->fig + i * (2 * k->n_rows + k->n_fields);
    memcpy(fig, x->a, k->n_rows * sizeof *fig);
    memcpy(fig + k->n_rows, x->b, k->n_rows * sizeof *fig);
    if (x->datum) memcpy(fig + 2 * k->n_rows, x->datum, k->n_fields * sizeof *fig);
}

/* Deferred totals: keeps what chunk c adds to every method's totals. */
static int ledger_add(datum_pass *p, const datum_chunk *c)
{
    int rc = datum_reserve(p->ctx, &p->ledger, &p->ledger_cap, p->n_ledger + 1, sizeof *p->ledger);
    if (rc < 0) return rc;
    size_t figs = p->n * (2 * c->n_rows + c->n_fields);
    size_t bytes = (c->n_fields + 1) * sizeof(uint64_t) + figs * sizeof(double) +
                   2 * c->n_rows * sizeof(int32_t);
    unsigned char *block = datum_malloc(p->ctx, 1, bytes);
    if (!block) return DATUM_E_NOMEM;
    ledger_chunk *k = &p->ledger[p->n_ledger++];
    *k = (ledger_chunk){.n_fields = c->n_fields, .n_rows = c->n_rows};
    k->offset = (uint64_t *)block; /* the widest members first: each stays aligned */
    k->fig = (double *)(k->offset + c->n_fields + 1);
    k->ns_pair = (int32_t *)(k->fig + figs);
    k->ew_pair = k->ns_pair + c->n_rows;
    memcpy(k->offset, c->offset, (c->n_fields + 1) * sizeof *k->offset);
    memcpy(k->ns_pair, c->ns_pair, c->n_rows * sizeof *k->ns_pair);
    memcpy(k->ew_pair, c->ew_pair, c->n_rows * sizeof *k->ew_pair);
    for (size_t i = 0; i < p->n; i++) ledger_figures(&p->m[i], k, i);
    return DATUM_OK;
}

static void ledger_free(datum_pass *p)
{
    for (size_t i = 0; i < p->n_ledger; i++) datum_free(p->ledger[i].offset);
    datum_free(p->ledger);
    p->ledger = NULL;
    p->n_ledger = p->ledger_cap = 0;
}

/* Every output opened, every chunk of the pass's fields read and run. */
static int read_chunks(datum_pass *p)
{
    datum_chunk_reader *reader = NULL;
    unsigned need = p->columns;
    int rc = DATUM_OK;
    for (size_t i = 0; i < p->n && rc >= 0; i++) rc = open_outputs(p, &p->m[i]);
    if (rc < 0) return rc;
    for (size_t i = 0; i < p->n; i++) need |= columns_of(&p->m[i]);
    if ((rc = datum_chunk_reader_create(p->ctx, p->a, need, p->chunk_rows, &reader)) < 0) return rc;
    int whole_events = datum_pass_whole_events(p);
    if (p->across) rc = datum_across_create(p->ctx, p->a, &p->merger);
    if (rc >= 0 && whole_events) rc = datum_chunk_reader_set_whole_events(reader, 1);
    if (rc >= 0 && p->sliced) rc = datum_chunk_reader_set_range(reader, p->first_field, p->end_field);
    while (rc >= 0) {
        datum_chunk c;
        if ((rc = datum_chunk_reader_next(reader, &c)) < 0 || c.n_fields == 0) break;
        if (p->across && (rc = merge_chunk(p, &c)) < 0) break;
        if ((rc = kernels_together(p, &c)) < 0) break;
        for (size_t i = 0; i < p->n && rc >= 0; i++) rc = run_chunk(p, &p->m[i], &c);
        if (rc >= 0 && p->defer) rc = ledger_add(p, &c);
        if (rc >= 0 && p->on_chunk) rc = p->on_chunk(p->user, p, &c);
        if (rc < 0) break;
        datum_ctx_progress(p->ctx, c.first_row + c.n_rows, p->info.n_results);
    }
    datum_chunk_reader_free(&reader);
    return rc;
}

/* After the chunks: the pair figures, their outputs, and every file committed. */
static int finish_all(datum_pass *p, int write_pairs)
{
    int rc = DATUM_OK;
    for (size_t i = 0; i < p->n && rc >= 0; i++) rc = finish_method(p, &p->m[i], write_pairs);
    for (size_t i = 0; i < p->n && rc >= 0; i++) rc = commit_method(&p->m[i]);
    return rc;
}

static int read_all(datum_pass *p)
{
    int rc = read_chunks(p);
    return rc < 0 ? rc : finish_all(p, 1);
}

int datum_pass_run(datum_pass *p)
{
    if (!p) return DATUM_E_ARG;
    if (p->sliced)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_run: a slice runs with "
                                                   "datum_pass_run_slice");
    if (p->state != READY || p->n == 0)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_run: %s",
                              p->n ? "the pass has run" : "no method");
    int rc = read_all(p);
    p->state = rc < 0 ? FAILED : DONE;
    if (rc < 0) /* no output of a failed pass is left behind */
        for (size_t i = 0; i < p->n; i++) {
            method *x = &p->m[i];
            datum_output_abort(&x->h5);
            datum_csv_abort(&x->results);
            datum_csv_abort(&x->matches);
            datum_csv_abort(&x->totals);
        }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Accessors                                                                */

/* Method id of a pass in state `want` (DONE, or READY for the chunk
 * callback's), or NULL. */
static const method *method_of(const datum_pass *p, int id, int done)
{
    if (!p || id < 0 || (size_t)id >= p->n || (done && p->state != DONE)) return NULL;
    return &p->m[id];
}

int datum_pass_chunk_rows(const datum_pass *p, int id, datum_pass_rows *out)
{
    memset(out, 0, sizeof *out);
    const method *x = method_of(p, id, 0);
    if (!x) return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG, "datum_pass_chunk_rows: bad method %d", id);
    int own = x->kind == KIND_BUTLER || x->kind == KIND_MATCHPOINTS; /* NS and EW figures */
    out->field_datum = own ? x->datum : NULL;
    out->ns = own ? x->a : x->b;
    out->ew = own ? x->b : NULL;
    out->ns_raw = own ? NULL : x->a;
    out->terms = x->kind == KIND_CROSS || x->kind == KIND_BARKING ? x->terms_wide : NULL;
    return DATUM_OK;
}

int datum_pass_totals(const datum_pass *p, int id, datum_pair_totals *out)
{
    memset(out, 0, sizeof *out);
    const method *x = method_of(p, id, 1);
    if (!x || x->kind == KIND_TEAMS || p->no_totals)
        return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG,
                              "datum_pass_totals: method %d has no pair totals", id);
    *out = (datum_pair_totals){p->info.n_pairs, x->boards, x->imps, x->per_board, x->raw,
                               x->ns_boards};
    return DATUM_OK;
}

/* Ranking by IMPs per board, ties by pair name. */
typedef struct {
    double per_board;
    const char *name;
    uint32_t pair;
} rank_entry;

static int by_rank(const void *x, const void *y)
{
    const rank_entry *a = x, *b = y;
    if (a->per_board != b->per_board) return a->per_board > b->per_board ? -1 : 1;
    return strcmp(a->name, b->name);
}

int datum_pass_ranking(datum_pass *p, int id, const uint32_t **order, uint32_t *n_ranked)
{
    *order = NULL;
    *n_ranked = 0;
    datum_pair_totals t;
    int rc = datum_pass_totals(p, id, &t);
    if (rc < 0) return rc;
    method *x = &p->m[id];
    if (!x->order) {
        rank_entry *rank = datum_malloc(p->ctx, (size_t)t.n_pairs + 1, sizeof *rank);
        x->order = rank ? datum_malloc(p->ctx, (size_t)t.n_pairs + 1, sizeof *x->order) : NULL;
        if (!x->order) {
            datum_free(rank);
            return DATUM_E_NOMEM;
        }
        uint32_t n = 0;
        for (uint32_t q = 0; q < t.n_pairs; q++)
            if (t.boards[q])
                rank[n++] = (rank_entry){t.per_board[q], datum_archive_pair(p->a, q), q};
        qsort(rank, n, sizeof *rank, by_rank);
        for (uint32_t i = 0; i < n; i++) x->order[i] = rank[i].pair;
        x->n_ranked = n;
        datum_free(rank);
    }
    *order = x->order;
    *n_ranked = x->n_ranked;
    return DATUM_OK;
}

int datum_pass_published(const datum_pass *p, int id, datum_published_summary *out)
{
    memset(out, 0, sizeof *out);
    const method *x = method_of(p, id, 1);
    if (!x || !x->published)
        return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG,
                              "datum_pass_published: method %d compared no published figures", id);
    datum_published_get(x->published, out);
    return DATUM_OK;
}

void datum_pass_free(datum_pass **p)
{
    if (!p || !*p) return;
    datum_pass *q = *p;
    for (size_t i = 0; i < q->n; i++) method_free(&q->m[i]);
    datum_free(q->m);
    datum_archive_close(&q->a);
    datum_across_free(&q->merger);
    datum_free(q->across_field);
    datum_free(q->label);
    datum_free(q->together);
    datum_free(q->together_method);
    ledger_free(q);
    datum_free(q->path);
    datum_free(q);
    *p = NULL;
}

/* ------------------------------------------------------------------------ */
/* A slice of the archive, for a process of datum-mpi                       */

int datum_pass_set_fields(datum_pass *p, uint64_t first_field, uint64_t end_field)
{
    if (p->state != READY)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_fields: the pass has run");
    if (first_field > end_field || end_field > p->info.n_fields)
        return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_set_fields: fields %llu to %llu "
                              "are not a range of the archive's %llu",
                              (unsigned long long)first_field, (unsigned long long)end_field,
                              (unsigned long long)p->info.n_fields);
    p->sliced = 1;
    p->first_field = first_field;
    p->end_field = end_field;
    return DATUM_OK;
}

size_t datum_pass_n_methods(const datum_pass *p) { return p->n; }

int datum_pass_whole_events(const datum_pass *p)
{
    int whole = p->across || p->whole_events; /* and Neuberg's largest field of each event */
    for (size_t i = 0; i < p->n; i++)
        whole |= p->m[i].kind == KIND_MATCHPOINTS && p->m[i].mp.neuberg &&
                 !p->m[i].mp.neuberg_to_field;
    return whole;
}

int datum_pass_run_slice(datum_pass *p, int defer_totals)
{
    if (!p) return DATUM_E_ARG;
    const char *why = !p->sliced ? "no slice (datum_pass_set_fields)"
                      : p->state != READY ? "the pass has run"
                      : p->n == 0 ? "no method" : NULL;
    for (size_t i = 0; !why && i < p->n; i++) {
        const method *x = &p->m[i];
        if (x->kind == KIND_TEAMS) why = "teams matches are not run in slices";
        else if (x->out.results_csv) why = "a slice writes no results CSV (the HDF5 output holds them)";
        else if (x->out.compare_published) why = "a slice compares no published figures";
    }
    if (why) return datum_ctx_fail(p->ctx, DATUM_E_ARG, "datum_pass_run_slice: %s", why);
    p->defer = defer_totals != 0;
    int rc = read_chunks(p);
    p->state = rc < 0 ? FAILED : SLICED;
    return rc;
}

int datum_pass_sums(datum_pass *p, int id, datum_pair_sums *out)
{
    memset(out, 0, sizeof *out);
    if (!p || id < 0 || (size_t)id >= p->n || p->state != SLICED || p->m[id].kind == KIND_TEAMS)
        return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG,
                              "datum_pass_sums: method %d has no sums to carry", id);
    method *x = &p->m[id];
    *out = (datum_pair_sums){p->info.n_pairs, x->boards, x->imps, x->raw, x->ns_boards};
    return DATUM_OK;
}

int datum_pass_add_deferred(datum_pass *p)
{
    if (!p || p->state != SLICED || !p->defer)
        return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG,
                              "datum_pass_add_deferred: no slice run with deferred totals");
    for (size_t j = 0; j < p->n_ledger; j++) {
        const ledger_chunk *k = &p->ledger[j];
        for (size_t i = 0; i < p->n; i++) {
            const double *fig = k->fig + i * (2 * k->n_rows + k->n_fields);
            add_totals(&p->m[i], k->n_fields, k->offset, k->n_rows, k->ns_pair, k->ew_pair, fig,
                       fig + k->n_rows, fig + 2 * k->n_rows, datum_ctx_threads(p->ctx));
        }
    }
    ledger_free(p);
    p->defer = 0;
    return DATUM_OK;
}

int datum_pass_finish(datum_pass *p, int write_pairs)
{
    if (!p || p->state != SLICED || p->defer)
        return datum_ctx_fail(p ? p->ctx : NULL, DATUM_E_ARG, "datum_pass_finish: %s",
                              p && p->defer ? "deferred totals not added" : "no slice run");
    int rc = finish_all(p, write_pairs);
    p->state = rc < 0 ? FAILED : DONE;
    return rc;
}
