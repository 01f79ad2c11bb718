/*
 * tarot_archive.c - the tarot archive, format "datum-tarot" version 1
 * (docs/archive-format.md, "The tarot archive"): its layout, the writer, and
 * the reader, which checks every value before the scoring trusts it.
 *
 * A tournament is small (hundreds of results), so the reader loads it
 * whole; the layout follows the bridge archive's principles (names once in
 * /dict, integers in the narrowest type, order-free, no time stamps: the
 * same input gives the same bytes).
 */
#include "io_internal.h"
#include "tarot_internal.h" /* the CSV side of datum_tarot_import_csv */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DATE_UNITS "days since 1970-01-01"

/* /dict string lists. */
enum { D_EVENTS, D_PLAYERS, D_DEFENSES, D_CLASSEMENTS, D_CONTRACTS, N_DICTS };
static const io_dataset_desc kDict[N_DICTS] = {
    {"dict/events", "event names, sorted by their UTF-8 bytes", NULL},
    {"dict/players", "player identifiers, sorted by their UTF-8 bytes", NULL},
    {"dict/defenses", "defense identifiers, sorted by their UTF-8 bytes", NULL},
    {"dict/classements", "national classification codes, in the order of their index", NULL},
    {"dict/contracts", "contract codes (G, GS, GC), in the order of their index", NULL},
};

/* Integer datasets, with the bounds a reader checks (hi < 0: an index into
 * the dictionary or table of that kind, see bound()). */
enum {
    I_CLASSEMENT, I_PLAYER1, I_PLAYER2, I_PLAYER3,
    I_ETUI_EVENT, I_ETUI_NUMBER, I_ETUI_CONTRACT, I_ETUI_OFFSET,
    I_POSITION, I_ATTACKER, I_DEFENSE, I_SCORE, I_DATE,
    I_PEN_EVENT, I_PEN_SIDE, I_PEN_ID,
    N_INTS
};
static const io_dataset_desc kInts[N_INTS] = {
    {"players/classement", "national classification: index into /dict/classements", NULL},
    {"defenses/player1", "first player of the defense: index into /dict/players", NULL},
    {"defenses/player2", "second player of the defense: index into /dict/players", NULL},
    {"defenses/player3", "third player of the defense: index into /dict/players", NULL},
    {"etuis/event", "event of the étui: index into /dict/events", NULL},
    {"etuis/etui", "étui number, >= 1", NULL},
    {"etuis/contract", "imposed contract: index into /dict/contracts", NULL},
    {"etuis/offset", "étui e owns results offset[e] .. offset[e+1]-1", NULL},
    {"results/position", "position (table) of the result in its étui, >= 1", NULL},
    {"results/attacker", "the attacker (South): index into /dict/players", NULL},
    {"results/defense", "the defense: index into /dict/defenses", NULL},
    {"results/score", "the attacker's score (never 0; the defense's is its negation)", NULL},
    {"results/date", "date of the result", DATE_UNITS},
    {"penalties/event", "event of the penalty: index into /dict/events", NULL},
    {"penalties/side", "0: an attacker (id into /dict/players), 1: a defense (into /dict/defenses)",
     NULL},
    {"penalties/id", "the side penalised: index into /dict/players or /dict/defenses", NULL},
};
static const io_dataset_desc kPenaltyPm = {
    "penalties/pm", "PM taken from the side's total (< 0: a compensation, added)", NULL};

static const char *const kGroups[] = {"dict",    "players", "defenses",
                                      "etuis",   "results", "penalties"};

/* Root attributes after format and engine_version. */
enum { A_VERSION, A_N_ETUIS, A_N_RESULTS, A_N_PENALTIES, N_ATTRS };
static const char *const kAttrs[N_ATTRS] = {"format_version", "n_etuis", "n_results",
                                            "n_penalties"};

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

typedef struct {
    const datum_tarot_data *d;
    const datum_write_options *opt;
    int64_t *stage; /* room for the longest integer dataset */
} writer;

/* Where the values of an integer dataset are: count elements of `size`
 * bytes (1: uint8, 4: int32, 8: uint64), every stride-th from first. */
typedef struct {
    const void *base;
    size_t size;
    uint64_t count;
    size_t first, stride;
} int_source;

static int_source source_of(const datum_tarot_data *d, int k)
{
    uint64_t ne = d->n_etuis, nr = d->n_results, np = d->n_penalties;
    switch (k) {
    case I_CLASSEMENT: return (int_source){d->player_class, 1, d->n_players, 0, 1};
    case I_PLAYER1:
    case I_PLAYER2:
    case I_PLAYER3:
        return (int_source){d->defense_player, 4, d->n_defenses, (size_t)(k - I_PLAYER1), 3};
    case I_ETUI_EVENT: return (int_source){d->etui_event, 4, ne, 0, 1};
    case I_ETUI_NUMBER: return (int_source){d->etui_number, 4, ne, 0, 1};
    case I_ETUI_CONTRACT: return (int_source){d->etui_contract, 1, ne, 0, 1};
    case I_ETUI_OFFSET: return (int_source){d->etui_offset, 8, ne + 1, 0, 1};
    case I_POSITION: return (int_source){d->result_position, 4, nr, 0, 1};
    case I_ATTACKER: return (int_source){d->result_attacker, 4, nr, 0, 1};
    case I_DEFENSE: return (int_source){d->result_defense, 4, nr, 0, 1};
    case I_SCORE: return (int_source){d->result_score, 4, nr, 0, 1};
    case I_DATE: return (int_source){d->result_date, 4, nr, 0, 1};
    case I_PEN_EVENT: return (int_source){d->penalty_event, 4, np, 0, 1};
    case I_PEN_SIDE: return (int_source){d->penalty_side, 1, np, 0, 1};
    default: return (int_source){d->penalty_id, 4, np, 0, 1}; /* I_PEN_ID */
    }
}

/* The values of integer dataset k, widened into out; returns their number. */
static uint64_t fill_ints(const datum_tarot_data *d, int k, int64_t *out)
{
    int_source s = source_of(d, k);
    for (uint64_t i = 0; i < s.count; i++) {
        const char *p = (const char *)s.base + (s.first + i * s.stride) * s.size;
        if (s.size == 1) out[i] = *(const uint8_t *)p;
        else if (s.size == 4) out[i] = *(const int32_t *)p;
        else out[i] = (int64_t) * (const uint64_t *)p;
    }
    return s.count;
}

static int write_content(hid_t file, void *user, const char **what)
{
    const writer *w = user;
    const datum_tarot_data *d = w->d;
    const int64_t attr[N_ATTRS] = {DATUM_TAROT_ARCHIVE_FORMAT_VERSION, (int64_t)d->n_etuis,
                                   (int64_t)d->n_results, (int64_t)d->n_penalties};
    const hid_t attr_type[N_ATTRS] = {H5T_STD_I32LE, H5T_STD_U64LE, H5T_STD_U64LE, H5T_STD_U64LE};
    *what = "attributes";
    if (io_h5_set_str_attr(file, "format", io_tarot_archive.format) < 0 ||
        io_h5_set_str_attr(file, "engine_version", datum_version()) < 0)
        return -1;
    for (int i = 0; i < N_ATTRS; i++)
        if (io_h5_set_int_attr(file, kAttrs[i], attr_type[i], attr[i]) < 0) return -1;
    for (size_t g = 0; g < sizeof kGroups / sizeof *kGroups; g++) {
        *what = kGroups[g];
        if (io_h5_ensure_group(file, kGroups[g]) < 0) return -1;
    }

    const char *classes[DATUM_TAROT_CLASS_COUNT], *contracts[3];
    for (int c = 0; c < DATUM_TAROT_CLASS_COUNT; c++) classes[c] = datum_tarot_class_code(c);
    for (int c = 0; c < 3; c++) contracts[c] = datum_tarot_contract_code(c);
    const char *const *dict[N_DICTS] = {(const char *const *)d->event,
                                        (const char *const *)d->player,
                                        (const char *const *)d->defense, classes, contracts};
    const uint64_t dict_len[N_DICTS] = {d->n_events, d->n_players, d->n_defenses,
                                        DATUM_TAROT_CLASS_COUNT, 3};
    for (int k = 0; k < N_DICTS; k++) {
        *what = kDict[k].path;
        if (io_h5_write_strings(file, &kDict[k], dict[k], dict_len[k]) < 0) return -1;
    }
    for (int k = 0; k < N_INTS; k++) {
        *what = kInts[k].path;
        uint64_t n = fill_ints(d, k, w->stage);
        if (io_h5_write_ints(file, &kInts[k], w->stage, n, w->opt) < 0) return -1;
    }
    *what = kPenaltyPm.path;
    hid_t ds = io_h5_create_dataset(file, &kPenaltyPm, H5T_IEEE_F64LE, d->n_penalties, w->opt);
    int rc = ds >= 0 ? io_h5_write_range(ds, H5T_NATIVE_DOUBLE, 0, d->n_penalties, d->penalty_pm)
                     : -1;
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

typedef struct {
    const char *path;
    const datum_write_options *opt; /* checked */
} archive_target;

/* Writes d (sorted and checked as datum_tarot_data promises; the event
 * dates are not stored) as a tarot archive at t->path, atomically: the
 * consumer of io_tarot_read_csv. */
static int write_archive(datum_ctx *ctx, const datum_tarot_data *d, void *target)
{
    const archive_target *t = target;
    uint64_t longest = d->n_etuis + 1;
    if (d->n_results > longest) longest = d->n_results;
    if (d->n_penalties > longest) longest = d->n_penalties;
    if (d->n_players > longest) longest = d->n_players;
    if (d->n_defenses > longest) longest = d->n_defenses;
    writer w = {d, t->opt, datum_calloc(ctx, longest, sizeof(int64_t))};
    if (!w.stage) return DATUM_E_NOMEM;
    int rc = io_h5_write_file(ctx, t->path, write_content, &w);
    datum_free(w.stage);
    return rc;
}

int datum_tarot_import_csv(datum_ctx *ctx, const datum_tarot_inputs *in, const char *out_path,
                           const datum_write_options *opt)
{
    datum_write_options o;
    int rc = io_write_options(ctx, opt, &o);
    archive_target t = {out_path, &o};
    return rc == DATUM_OK ? io_tarot_read_csv(ctx, in, write_archive, &t) : rc;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */

typedef struct {
    datum_ctx *ctx;
    const char *path;
    hid_t file;
    datum_tarot_data *d;
    int64_t *tmp; /* room for the longest integer dataset */
} reader;

/* Records DATUM_E_FORMAT "PATH: damaged tarot archive: WHAT". */
#define damaged(r, ...) io_damaged((r)->ctx, (r)->path, &io_tarot_archive, __VA_ARGS__)

/* The format, then the counts. */
static int check_format(reader *r, int64_t *attr)
{
    int rc = io_check_format(r->ctx, r->file, r->path, &io_tarot_archive);
    if (rc != DATUM_OK) return rc;
    for (int i = A_N_ETUIS; i < N_ATTRS; i++)
        if (io_h5_get_int_attr(r->file, kAttrs[i], &attr[i]) < 0)
            return damaged(r, "attribute %s is missing or not an integer", kAttrs[i]);
    for (int i = A_N_ETUIS; i < N_ATTRS; i++)
        if (attr[i] < 0 || attr[i] > INT32_MAX)
            return damaged(r, "attribute %s = %lld is out of range", kAttrs[i],
                           (long long)attr[i]);
    return DATUM_OK;
}

/* Reads a string list (freed with io_free_dict). */
static int read_dict(reader *r, int k, uint32_t *n_out, char ***out)
{
    return io_read_dict(r->ctx, r->file, r->path, &io_tarot_archive, kDict[k].path, n_out, out);
}

/* Identifiers are sorted and distinct (lookups and file names rely on it). */
static int check_sorted(reader *r, int k, char *const *s, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (strcmp(s[i - 1], s[i]) >= 0)
            return damaged(r, "%s is not sorted or has a duplicate at element %u",
                           kDict[k].path, i);
    return DATUM_OK;
}

/* Reads integer dataset k, which must have n elements in lo..hi, into r->tmp. */
static int read_ints(reader *r, int k, uint64_t n, int64_t lo, int64_t hi)
{
    const char *name = kInts[k].path;
    uint64_t len;
    hid_t ds = io_h5_open_dataset(r->file, name);
    int rc = DATUM_OK;
    if (ds < 0) rc = damaged(r, "%s is missing", name);
    else if (io_h5_has_class(ds, H5T_INTEGER) != 1 || io_h5_length(ds, &len) < 0)
        rc = damaged(r, "%s is not a 1-D integer dataset", name);
    else if (len != n)
        rc = damaged(r, "%s has %llu elements, expected %llu", name, (unsigned long long)len,
                     (unsigned long long)n);
    else if (io_h5_read_range(ds, H5T_NATIVE_INT64, 0, n, r->tmp) < 0)
        rc = damaged(r, "cannot read %s", name);
    for (uint64_t i = 0; rc == DATUM_OK && i < n; i++)
        if (r->tmp[i] < lo || r->tmp[i] > hi)
            rc = damaged(r, "%s[%llu] = %lld is out of range (%lld to %lld)", name,
                         (unsigned long long)i, (long long)r->tmp[i], (long long)lo,
                         (long long)hi);
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

/* read_ints into a new array of int32 / uint8 / uint64. */
static int read_i32(reader *r, int k, uint64_t n, int64_t lo, int64_t hi, int32_t **out)
{
    int rc = read_ints(r, k, n, lo, hi);
    if (rc == DATUM_OK && !(*out = datum_calloc(r->ctx, n, sizeof **out))) rc = DATUM_E_NOMEM;
    for (uint64_t i = 0; rc == DATUM_OK && i < n; i++) (*out)[i] = (int32_t)r->tmp[i];
    return rc;
}

static int read_u8(reader *r, int k, uint64_t n, int64_t hi, uint8_t **out)
{
    int rc = read_ints(r, k, n, 0, hi);
    if (rc == DATUM_OK && !(*out = datum_calloc(r->ctx, n, sizeof **out))) rc = DATUM_E_NOMEM;
    for (uint64_t i = 0; rc == DATUM_OK && i < n; i++) (*out)[i] = (uint8_t)r->tmp[i];
    return rc;
}

static int read_players(reader *r)
{
    datum_tarot_data *d = r->d;
    int rc = read_u8(r, I_CLASSEMENT, d->n_players, DATUM_TAROT_CLASS_COUNT - 1, &d->player_class);
    if (rc == DATUM_OK &&
        !(d->defense_player = datum_calloc(r->ctx, 3 * (size_t)d->n_defenses, sizeof(int32_t))))
        rc = DATUM_E_NOMEM;
    for (int p = 0; p < 3 && rc == DATUM_OK; p++) {
        rc = read_ints(r, I_PLAYER1 + p, d->n_defenses, 0, (int64_t)d->n_players - 1);
        for (uint32_t i = 0; rc == DATUM_OK && i < d->n_defenses; i++)
            d->defense_player[3 * (size_t)i + (size_t)p] = (int32_t)r->tmp[i];
    }
    for (uint32_t i = 0; rc == DATUM_OK && i < d->n_defenses; i++) {
        const int32_t *p = d->defense_player + 3 * (size_t)i;
        if (p[0] == p[1] || p[0] == p[2] || p[1] == p[2])
            rc = damaged(r, "defense %u has a player twice", i);
    }
    return rc;
}

/* Étuis: by event, then number; offsets increasing (no empty étui). Also
 * finds each event's étuis. */
static int read_etuis(reader *r)
{
    datum_tarot_data *d = r->d;
    uint64_t n = d->n_etuis;
    int rc = read_i32(r, I_ETUI_EVENT, n, 0, (int64_t)d->n_events - 1, &d->etui_event);
    if (rc == DATUM_OK) rc = read_i32(r, I_ETUI_NUMBER, n, 1, INT32_MAX, &d->etui_number);
    if (rc == DATUM_OK) rc = read_u8(r, I_ETUI_CONTRACT, n, 2, &d->etui_contract);
    if (rc == DATUM_OK) rc = read_ints(r, I_ETUI_OFFSET, n + 1, 0, (int64_t)d->n_results);
    if (rc == DATUM_OK && !(d->etui_offset = datum_calloc(r->ctx, n + 1, sizeof *d->etui_offset)))
        rc = DATUM_E_NOMEM;
    for (uint64_t e = 0; rc == DATUM_OK && e <= n; e++) {
        d->etui_offset[e] = (uint64_t)r->tmp[e];
        if (e > 0 && d->etui_offset[e] <= d->etui_offset[e - 1])
            rc = damaged(r, "%s does not increase at element %llu", kInts[I_ETUI_OFFSET].path,
                         (unsigned long long)e);
        else if (e < n && e > 0 &&
                 (d->etui_event[e] < d->etui_event[e - 1] ||
                  (d->etui_event[e] == d->etui_event[e - 1] &&
                   d->etui_number[e] <= d->etui_number[e - 1])))
            rc = damaged(r, "étui %llu is out of order", (unsigned long long)e);
    }
    if (rc == DATUM_OK && (d->etui_offset[0] != 0 || d->etui_offset[n] != d->n_results))
        rc = damaged(r, "%s does not run from 0 to n_results", kInts[I_ETUI_OFFSET].path);
    if (rc == DATUM_OK &&
        !(d->event_etuis = datum_calloc(r->ctx, (size_t)d->n_events + 1, sizeof *d->event_etuis)))
        rc = DATUM_E_NOMEM;
    for (uint64_t e = 0; rc == DATUM_OK && e < n; e++) d->event_etuis[d->etui_event[e] + 1]++;
    for (uint32_t v = 0; rc == DATUM_OK && v < d->n_events; v++) {
        if (d->event_etuis[v + 1] == 0) rc = damaged(r, "event %u has no étui", v);
        d->event_etuis[v + 1] += d->event_etuis[v];
    }
    return rc;
}

static int read_results(reader *r)
{
    datum_tarot_data *d = r->d;
    uint64_t n = d->n_results;
    int rc = read_i32(r, I_POSITION, n, 1, INT32_MAX, &d->result_position);
    if (rc == DATUM_OK)
        rc = read_i32(r, I_ATTACKER, n, 0, (int64_t)d->n_players - 1, &d->result_attacker);
    if (rc == DATUM_OK)
        rc = read_i32(r, I_DEFENSE, n, 0, (int64_t)d->n_defenses - 1, &d->result_defense);
    if (rc == DATUM_OK) rc = read_i32(r, I_SCORE, n, -IO_MAX_SCORE, IO_MAX_SCORE, &d->result_score);
    if (rc == DATUM_OK) rc = read_i32(r, I_DATE, n, INT32_MIN, INT32_MAX, &d->result_date);
    for (uint64_t e = 0; rc == DATUM_OK && e < d->n_etuis; e++)
        for (uint64_t i = d->etui_offset[e]; rc == DATUM_OK && i < d->etui_offset[e + 1]; i++) {
            if (d->result_score[i] == 0) rc = damaged(r, "result %llu has a score of 0",
                                                      (unsigned long long)i);
            else if (i > d->etui_offset[e] && d->result_position[i] <= d->result_position[i - 1])
                rc = damaged(r, "result %llu is out of order", (unsigned long long)i);
        }
    if (rc == DATUM_OK &&
        (!(d->event_first_date = datum_calloc(r->ctx, d->n_events, sizeof(int32_t))) ||
         !(d->event_last_date = datum_calloc(r->ctx, d->n_events, sizeof(int32_t)))))
        rc = DATUM_E_NOMEM;
    for (uint32_t v = 0; rc == DATUM_OK && v < d->n_events; v++) {
        uint64_t first = d->etui_offset[d->event_etuis[v]];
        uint64_t end = d->etui_offset[d->event_etuis[v + 1]];
        int32_t *lo = &d->event_first_date[v], *hi = &d->event_last_date[v];
        *lo = *hi = d->result_date[first];
        for (uint64_t i = first; i < end; i++) {
            if (d->result_date[i] < *lo) *lo = d->result_date[i];
            if (d->result_date[i] > *hi) *hi = d->result_date[i];
        }
    }
    return rc;
}

static int read_penalties(reader *r)
{
    datum_tarot_data *d = r->d;
    uint64_t n = d->n_penalties, len;
    int rc = read_i32(r, I_PEN_EVENT, n, 0, (int64_t)d->n_events - 1, &d->penalty_event);
    if (rc == DATUM_OK) rc = read_u8(r, I_PEN_SIDE, n, 1, &d->penalty_side);
    if (rc == DATUM_OK) {
        int64_t most = d->n_players > d->n_defenses ? d->n_players : d->n_defenses;
        rc = read_i32(r, I_PEN_ID, n, 0, most - 1, &d->penalty_id);
    }
    for (uint64_t i = 0; rc == DATUM_OK && i < n; i++)
        if ((uint32_t)d->penalty_id[i] >= (d->penalty_side[i] ? d->n_defenses : d->n_players))
            rc = damaged(r, "%s[%llu] is out of range", kInts[I_PEN_ID].path,
                         (unsigned long long)i);
    hid_t ds = rc == DATUM_OK ? io_h5_open_dataset(r->file, kPenaltyPm.path) : H5I_INVALID_HID;
    if (rc == DATUM_OK && ds < 0) rc = damaged(r, "%s is missing", kPenaltyPm.path);
    else if (rc == DATUM_OK && (io_h5_length(ds, &len) < 0 || len != n))
        rc = damaged(r, "%s is not a 1-D dataset of n_penalties elements", kPenaltyPm.path);
    else if (rc == DATUM_OK && !(d->penalty_pm = datum_calloc(r->ctx, n, sizeof *d->penalty_pm)))
        rc = DATUM_E_NOMEM;
    else if (rc == DATUM_OK && io_h5_read_range(ds, H5T_NATIVE_DOUBLE, 0, n, d->penalty_pm) < 0)
        rc = damaged(r, "cannot read %s", kPenaltyPm.path);
    for (uint64_t i = 0; rc == DATUM_OK && i < n; i++)
        if (!(fabs(d->penalty_pm[i]) <= IO_TAROT_MAX_PENALTY)) /* NaN fails too */
            rc = damaged(r, "%s[%llu] is out of range", kPenaltyPm.path, (unsigned long long)i);
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

int datum_tarot_archive_read(datum_ctx *ctx, const char *path, datum_tarot_data **out)
{
    reader r = {ctx, path, H5I_INVALID_HID, datum_calloc(ctx, 1, sizeof(datum_tarot_data)), NULL};
    datum_tarot_data *d = r.d;
    int64_t attr[N_ATTRS];
    uint32_t n_codes = 0;
    char **codes = NULL;
    *out = NULL;
    if (!d) return DATUM_E_NOMEM;
    int rc = io_h5_open_checked(ctx, path, &r.file);
    if (rc == DATUM_OK) rc = check_format(&r, attr);
    if (rc == DATUM_OK) {
        d->n_etuis = (uint64_t)attr[A_N_ETUIS];
        d->n_results = (uint64_t)attr[A_N_RESULTS];
        d->n_penalties = (uint64_t)attr[A_N_PENALTIES];
        rc = read_dict(&r, D_EVENTS, &d->n_events, &d->event);
    }
    if (rc == DATUM_OK) rc = read_dict(&r, D_PLAYERS, &d->n_players, &d->player);
    if (rc == DATUM_OK) rc = read_dict(&r, D_DEFENSES, &d->n_defenses, &d->defense);
    if (rc == DATUM_OK) rc = check_sorted(&r, D_EVENTS, d->event, d->n_events);
    if (rc == DATUM_OK) rc = check_sorted(&r, D_PLAYERS, d->player, d->n_players);
    if (rc == DATUM_OK) rc = check_sorted(&r, D_DEFENSES, d->defense, d->n_defenses);
    /* The codes are there for other readers; ours are the engine's. */
    if (rc == DATUM_OK) rc = read_dict(&r, D_CLASSEMENTS, &n_codes, &codes);
    for (uint32_t c = 0; rc == DATUM_OK && c < DATUM_TAROT_CLASS_COUNT; c++)
        if (n_codes != DATUM_TAROT_CLASS_COUNT || strcmp(codes[c], datum_tarot_class_code((int)c)))
            rc = damaged(&r, "%s is not the list of classification codes",
                         kDict[D_CLASSEMENTS].path);
    if (rc == DATUM_OK) {
        uint64_t longest = d->n_etuis + 1;
        const uint64_t other[] = {d->n_results, d->n_penalties, d->n_players, d->n_defenses};
        for (size_t i = 0; i < sizeof other / sizeof *other; i++)
            if (other[i] > longest) longest = other[i];
        if (!(r.tmp = datum_calloc(ctx, longest, sizeof *r.tmp))) rc = DATUM_E_NOMEM;
    }
    if (rc == DATUM_OK) rc = read_players(&r);
    if (rc == DATUM_OK) rc = read_etuis(&r);
    if (rc == DATUM_OK) rc = read_results(&r);
    if (rc == DATUM_OK) rc = read_penalties(&r);
    io_free_dict(codes, n_codes);
    datum_free(r.tmp);
    if (r.file >= 0) io_h5_close_file(r.file);
    if (rc == DATUM_OK) *out = d;
    else datum_tarot_data_free(&d);
    return rc;
}

void datum_tarot_data_free(datum_tarot_data **dp)
{
    if (!dp || !*dp) return;
    datum_tarot_data *d = *dp;
    io_free_dict(d->event, d->n_events);
    io_free_dict(d->player, d->n_players);
    io_free_dict(d->defense, d->n_defenses);
    void *arrays[] = {d->event_etuis,     d->event_first_date, d->event_last_date,
                      d->player_class,    d->defense_player,   d->etui_event,
                      d->etui_number,     d->etui_contract,    d->etui_offset,
                      d->result_position, d->result_attacker,  d->result_defense,
                      d->result_score,    d->result_date,      d->penalty_event,
                      d->penalty_side,    d->penalty_id,       d->penalty_pm};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) datum_free(arrays[i]);
    datum_free(d);
    *dp = NULL;
}
