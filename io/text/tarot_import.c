/*
 * tarot_import.c - the CSV files of a tarot Attaque-Défense tournament
 * (formats.md "In: tarot Attaque-Défense") read for a tarot archive: players,
 * defenses, results and penalties, each row validated, then the checks that
 * need all rows (a position, attacker or defense twice in an étui, an étui
 * with two contracts), in an order that depends only on the set of rows.
 * Every fault names "FILE:LINE: column NAME"; the first one stops the import.
 */
#include "tarot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Players and defenses start with their identifier and line, so that one
 * lookup and one duplicate check serve both tables. */
typedef struct {
    char *id;
    uint64_t line;
} id_head;

typedef struct {
    id_head h;
    uint8_t cls;
} player_rec;

typedef struct {
    id_head h;
    int32_t player[3]; /* indices into the sorted players */
} defense_rec;

typedef struct {
    uint32_t event; /* interned id, then its rank among the sorted names */
    int32_t date, etui, position, score, attacker, defense;
    uint8_t contract;
    uint64_t line;
} result_rec;

typedef struct {
    uint32_t event;
    uint8_t side;
    int32_t id;
    double pm;
    uint64_t line;
} penalty_rec;

typedef struct {
    datum_ctx *ctx;
    const datum_tarot_inputs *in;
    player_rec *players;
    size_t n_players, players_cap;
    defense_rec *defenses;
    size_t n_defenses, defenses_cap;
    char **events; /* interned names, sorted once the results are read */
    uint32_t n_events;
    size_t events_cap;
    uint64_t *event_results; /* [n_events + 1]: event e owns sorted results [e] .. [e+1]-1 */
    result_rec *results;
    size_t n_results, results_cap;
    penalty_rec *penalties;
    size_t n_penalties, penalties_cap;
} importer;

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* ------------------------------------------------------------------------ */
/* Identifiers                                                              */

static int compare_key_id(const void *key, const void *rec)
{
    return strcmp(key, ((const id_head *)rec)->id);
}

/* Index of id in a table sorted by identifier (records of `size` bytes
 * starting with their char *id), or -1. */
static int32_t find_id(const void *table, size_t n, size_t size, const char *id)
{
    const char *hit = n ? bsearch(id, table, n, size, compare_key_id) : NULL;
    return hit ? (int32_t)((size_t)(hit - (const char *)table) / size) : -1;
}

/* Records by (identifier, line); both kinds start with their id_head. */
static int compare_heads(const void *x, const void *y)
{
    const id_head *a = x, *b = y;
    int c = strcmp(a->id, b->id);
    return c ? c : CMP(a->line, b->line);
}

/* Sorts a table by (identifier, line) and refuses an identifier given twice,
 * naming the later line and the first. */
static int sort_ids(const importer *im, void *table, size_t n, size_t size, const char *path,
                    const char *column)
{
    if (n > 0) qsort(table, n, size, compare_heads);
    for (size_t i = 1; i < n; i++) {
        const id_head *a = (const void *)((char *)table + (i - 1) * size);
        const id_head *b = (const void *)((char *)table + i * size);
        char q[64];
        if (strcmp(a->id, b->id) == 0)
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: %s already appears at %s:%llu", path,
                                  (unsigned long long)b->line, column,
                                  io_csv_quote(b->id, q, sizeof q), path,
                                  (unsigned long long)a->line);
    }
    return DATUM_OK;
}

/* A text field copied out of the record (the record is reused). */
static int copy_text(importer *im, io_csv *c, size_t col, char **out)
{
    const char *s;
    int rc = io_csv_text(c, col, 0, &s);
    if (rc == DATUM_OK && !(*out = datum_strdup(im->ctx, s))) rc = DATUM_E_NOMEM;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* players.csv and defenses.csv                                             */

/* Reads every row of a CSV file through row(), which validates and keeps it. */
typedef int (*row_reader)(importer *im, io_csv *c, const size_t *col);

static int read_rows(importer *im, const char *path, const char *const *names, size_t n,
                     row_reader row)
{
    size_t col[8]; /* room for the widest of the four files */
    io_csv *c = NULL;
    int rc = io_csv_open(im->ctx, path, &c);
    if (rc == DATUM_OK) rc = io_csv_columns(c, names, n, n, col);
    while (rc == DATUM_OK && (rc = io_csv_next(c)) == 1) rc = row(im, c, col);
    io_csv_close(&c);
    return rc;
}

static const char *const kPlayerCols[] = {"player", "classement"};
static const char *const kDefenseCols[] = {"defense", "player1", "player2", "player3"};

static int player_row(importer *im, io_csv *c, const size_t *col)
{
    int rc = datum_reserve(im->ctx, &im->players, &im->players_cap, im->n_players + 1,
                        sizeof *im->players);
    if (rc != DATUM_OK) return rc;
    player_rec *p = &im->players[im->n_players];
    *p = (player_rec){{NULL, io_csv_line(c)}, 0};
    if ((rc = copy_text(im, c, col[0], &p->h.id)) != DATUM_OK) return rc;
    im->n_players++; /* owns its id from here */
    const char *code = io_csv_field(c, col[1]);
    int cls = datum_tarot_class_parse(code, strlen(code));
    char q[64];
    if (cls < 0)
        return io_csv_fail(c, col[1],
                           "%s is not a national classification (1N, 1P, 1C, 1K, 1T, 2P, 2C, 2K, "
                           "2T, 3P, 3C, 3K, 3T, 4P, 4C, 4K, 4T or NC)",
                           io_csv_quote(code, q, sizeof q));
    p->cls = (uint8_t)cls;
    return DATUM_OK;
}

static int defense_row(importer *im, io_csv *c, const size_t *col)
{
    int rc = datum_reserve(im->ctx, &im->defenses, &im->defenses_cap, im->n_defenses + 1,
                        sizeof *im->defenses);
    if (rc != DATUM_OK) return rc;
    defense_rec *d = &im->defenses[im->n_defenses];
    *d = (defense_rec){{NULL, io_csv_line(c)}, {-1, -1, -1}};
    if ((rc = copy_text(im, c, col[0], &d->h.id)) != DATUM_OK) return rc;
    im->n_defenses++;
    for (int k = 0; k < 3; k++) {
        const char *s;
        char q[64];
        if ((rc = io_csv_text(c, col[k + 1], 1, &s)) != DATUM_OK) return rc;
        if (!*s) return io_csv_fail(c, col[k + 1], "empty (a defense has three players)");
        d->player[k] = find_id(im->players, im->n_players, sizeof *im->players, s);
        if (d->player[k] < 0)
            return io_csv_fail(c, col[k + 1], "unknown player %s (not in %s)",
                               io_csv_quote(s, q, sizeof q), im->in->players);
        for (int j = 0; j < k; j++)
            if (d->player[j] == d->player[k])
                return io_csv_fail(c, col[k + 1], "%s is already %s of this defense",
                                   io_csv_quote(s, q, sizeof q), kDefenseCols[j + 1]);
    }
    return DATUM_OK;
}

static int read_players_and_defenses(importer *im)
{
    int rc = read_rows(im, im->in->players, kPlayerCols, 2, player_row);
    if (rc == DATUM_OK)
        rc = sort_ids(im, im->players, im->n_players, sizeof *im->players, im->in->players,
                      "player");
    if (rc == DATUM_OK) rc = read_rows(im, im->in->defenses, kDefenseCols, 4, defense_row);
    if (rc == DATUM_OK)
        rc = sort_ids(im, im->defenses, im->n_defenses, sizeof *im->defenses, im->in->defenses,
                      "defense");
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The results                                                              */

enum { R_EVENT, R_DATE, R_ETUI, R_CONTRACT, R_POSITION, R_ATTACKER, R_DEFENSE, R_SCORE, R_COLS };
static const char *const kResultCols[R_COLS] = {"event",    "date",     "etui",    "contract",
                                                "position", "attacker", "defense", "score"};

/* The id of an event name, adding it if new (events are few: a linear
 * search, from the last one added, as rows come grouped). */
static int intern_event(importer *im, const char *name, uint32_t *id)
{
    for (uint32_t i = im->n_events; i-- > 0;)
        if (strcmp(im->events[i], name) == 0) {
            *id = i;
            return DATUM_OK;
        }
    int rc = datum_reserve(im->ctx, &im->events, &im->events_cap, (size_t)im->n_events + 1,
                        sizeof *im->events);
    if (rc != DATUM_OK) return rc;
    if (!(im->events[im->n_events] = datum_strdup(im->ctx, name))) return DATUM_E_NOMEM;
    *id = im->n_events++;
    return DATUM_OK;
}

/* Parses and keeps one results row. */
static int result_row(importer *im, io_csv *c, const size_t *col)
{
    const char *event, *s;
    char q[64];
    int rc = datum_reserve(im->ctx, &im->results, &im->results_cap, im->n_results + 1,
                        sizeof *im->results);
    if (rc != DATUM_OK) return rc;
    result_rec *r = &im->results[im->n_results];
    r->line = io_csv_line(c);
    if ((rc = io_csv_text(c, col[R_EVENT], 0, &event)) != DATUM_OK ||
        (rc = intern_event(im, event, &r->event)) != DATUM_OK ||
        (rc = io_csv_date(c, col[R_DATE], &r->date)) != DATUM_OK ||
        (rc = io_csv_int(c, col[R_ETUI], 1, INT32_MAX, &r->etui)) != DATUM_OK)
        return rc;
    s = io_csv_field(c, col[R_CONTRACT]);
    int contract = datum_tarot_contract_parse(s, strlen(s));
    if (contract < 0)
        return io_csv_fail(c, col[R_CONTRACT], "%s is not a contract (G, GS or GC)",
                           io_csv_quote(s, q, sizeof q));
    r->contract = (uint8_t)contract;
    if ((rc = io_csv_int(c, col[R_POSITION], 1, INT32_MAX, &r->position)) != DATUM_OK ||
        (rc = io_csv_text(c, col[R_ATTACKER], 0, &s)) != DATUM_OK)
        return rc;
    if ((r->attacker = find_id(im->players, im->n_players, sizeof *im->players, s)) < 0)
        return io_csv_fail(c, col[R_ATTACKER], "unknown attacker %s (not a player of %s)",
                           io_csv_quote(s, q, sizeof q), im->in->players);
    if ((rc = io_csv_text(c, col[R_DEFENSE], 0, &s)) != DATUM_OK) return rc;
    if ((r->defense = find_id(im->defenses, im->n_defenses, sizeof *im->defenses, s)) < 0)
        return io_csv_fail(c, col[R_DEFENSE], "unknown defense %s (not in %s)",
                           io_csv_quote(s, q, sizeof q), im->in->defenses);
    if ((rc = io_csv_int(c, col[R_SCORE], -IO_MAX_SCORE, IO_MAX_SCORE, &r->score)) != DATUM_OK)
        return rc;
    /* Won or lost, a contract scores at least its 25 points times its
     * multiplier: a zero is a typing error, never a result. */
    if (r->score == 0)
        return io_csv_fail(c, col[R_SCORE], "a score of 0 is impossible in tarot (a contract "
                                            "is won or lost by at least 25 points)");
    im->n_results++;
    return DATUM_OK;
}

static int read_results(importer *im)
{
    int rc = read_rows(im, im->in->results, kResultCols, R_COLS, result_row);
    if (rc == DATUM_OK && im->n_results == 0)
        rc = datum_ctx_fail(im->ctx, DATUM_E_INPUT, "%s: no results (only a header)",
                            im->in->results);
    return rc;
}

static int compare_strings(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* (event, étui, position), then the place in the file: a total order in
 * which the first of two clashing rows comes first in the file. */
static int compare_results(const void *x, const void *y)
{
    const result_rec *a = x, *b = y;
    int c = CMP(a->event, b->event);
    if (!c) c = CMP(a->etui, b->etui);
    if (!c) c = CMP(a->position, b->position);
    return c ? c : CMP(a->line, b->line);
}

/* Gives the events their rank among the sorted names and sorts the rows. */
static int sort_results(importer *im)
{
    char **by_id = datum_calloc(im->ctx, im->n_events, sizeof *by_id);
    uint32_t *rank = datum_calloc(im->ctx, im->n_events, sizeof *rank);
    im->event_results = datum_calloc(im->ctx, (size_t)im->n_events + 1, sizeof *im->event_results);
    int rc = by_id && rank && im->event_results ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        memcpy(by_id, im->events, im->n_events * sizeof *by_id);
        qsort(im->events, im->n_events, sizeof *im->events, compare_strings);
        for (uint32_t i = 0; i < im->n_events; i++) /* names are distinct */
            rank[i] = (uint32_t)((char **)bsearch(&by_id[i], im->events, im->n_events,
                                                  sizeof *im->events, compare_strings) -
                                 im->events);
        for (size_t i = 0; i < im->n_results; i++) {
            im->results[i].event = rank[im->results[i].event];
            im->event_results[im->results[i].event + 1]++;
        }
        for (uint32_t e = 0; e < im->n_events; e++)
            im->event_results[e + 1] += im->event_results[e];
        qsort(im->results, im->n_results, sizeof *im->results, compare_results);
    }
    datum_free(by_id);
    datum_free(rank);
    return rc;
}

/* One side's appearance in an étui, for the check below. */
typedef struct {
    int32_t side;
    uint64_t line;
} seat;

static int compare_seats(const void *x, const void *y)
{
    const seat *a = x, *b = y;
    int c = CMP(a->side, b->side);
    return c ? c : CMP(a->line, b->line);
}

/* Refuses an attacker (attack = 1) or a defense that plays the étui rows[0..n) twice. */
static int check_sides(const importer *im, const result_rec *rows, size_t n, int attack,
                       seat *seats)
{
    for (size_t i = 0; i < n; i++)
        seats[i] = (seat){attack ? rows[i].attacker : rows[i].defense, rows[i].line};
    qsort(seats, n, sizeof *seats, compare_seats);
    for (size_t i = 1; i < n; i++)
        if (seats[i].side == seats[i - 1].side) {
            const char *id =
                attack ? im->players[seats[i].side].h.id : im->defenses[seats[i].side].h.id;
            char q[64];
            return datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: %s %s already plays étui %d of event "
                                  "\"%s\" at %s:%llu",
                                  im->in->results, (unsigned long long)seats[i].line,
                                  attack ? "attacker" : "defense", attack ? "attacker" : "defense",
                                  io_csv_quote(id, q, sizeof q), (int)rows[0].etui,
                                  im->events[rows[0].event], im->in->results,
                                  (unsigned long long)seats[i - 1].line);
        }
    return DATUM_OK;
}

/* Checks each étui of the sorted rows: positions, its one contract, sides. */
static int check_etuis(importer *im)
{
    const char *path = im->in->results;
    seat *seats = NULL;
    size_t seats_cap = 0;
    int rc = DATUM_OK;
    for (size_t begin = 0, end; rc == DATUM_OK && begin < im->n_results; begin = end) {
        const result_rec *first = &im->results[begin];
        for (end = begin + 1; end < im->n_results && im->results[end].event == first->event &&
                              im->results[end].etui == first->etui;)
            end++;
        for (size_t i = begin + 1; i < end && rc == DATUM_OK; i++) {
            const result_rec *r = &im->results[i], *prev = r - 1;
            if (r->position == prev->position)
                rc = datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                    "%s:%llu: column position: étui %d position %d of event "
                                    "\"%s\" already appears at %s:%llu",
                                    path, (unsigned long long)r->line, (int)r->etui,
                                    (int)r->position, im->events[r->event], path,
                                    (unsigned long long)prev->line);
            else if (r->contract != first->contract)
                rc = datum_ctx_fail(im->ctx, DATUM_E_INPUT,
                                    "%s:%llu: column contract: %s, but étui %d of event \"%s\" "
                                    "is %s at %s:%llu",
                                    path, (unsigned long long)r->line,
                                    datum_tarot_contract_code(r->contract), (int)r->etui,
                                    im->events[r->event],
                                    datum_tarot_contract_code(first->contract),
                                    path, (unsigned long long)first->line);
        }
        if (rc == DATUM_OK)
            rc = datum_reserve(im->ctx, &seats, &seats_cap, end - begin, sizeof *seats);
        if (rc == DATUM_OK) rc = check_sides(im, first, end - begin, 1, seats);
        if (rc == DATUM_OK) rc = check_sides(im, first, end - begin, 0, seats);
    }
    datum_free(seats);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* penalties.csv                                                            */

/* A decimal number of PM (datum_parse_real, written without an exponent:
 * [+-]digits[.digits]), within the bound. */
static int parse_pm(io_csv *c, size_t col, double *out)
{
    const char *s = io_csv_field(c, col);
    char q[64];
    int rc = datum_parse_real(s, strlen(s), -IO_TAROT_MAX_PENALTY, IO_TAROT_MAX_PENALTY, out);
    if (rc == DATUM_PARSE_EMPTY || rc == DATUM_PARSE_SYNTAX || strpbrk(s, "eE"))
        return io_csv_fail(c, col, "%s is not a number of PM (such as 2, -1.5)",
                           io_csv_quote(s, q, sizeof q));
    if (rc != DATUM_PARSE_OK)
        return io_csv_fail(c, col, "%s is out of range (-%.0f to %.0f)",
                           io_csv_quote(s, q, sizeof q), IO_TAROT_MAX_PENALTY,
                           IO_TAROT_MAX_PENALTY);
    return DATUM_OK;
}

/* 1 if the side plays in the event. */
static int side_plays(const importer *im, uint32_t event, int side, int32_t id)
{
    for (uint64_t i = im->event_results[event]; i < im->event_results[event + 1]; i++)
        if ((side == DATUM_TAROT_ATTACK ? im->results[i].attacker : im->results[i].defense) == id)
            return 1;
    return 0;
}

/* Parses and keeps one penalties row. */
static int penalty_row(importer *im, io_csv *c, const size_t *col)
{
    static const char *const kSides[2] = {"attack", "defense"};
    const char *s;
    char q[64];
    int rc = datum_reserve(im->ctx, &im->penalties, &im->penalties_cap, im->n_penalties + 1,
                        sizeof *im->penalties);
    if (rc != DATUM_OK) return rc;
    penalty_rec *p = &im->penalties[im->n_penalties];
    p->line = io_csv_line(c);
    if ((rc = io_csv_text(c, col[0], 0, &s)) != DATUM_OK) return rc;
    char **hit = bsearch(&s, im->events, im->n_events, sizeof *im->events, compare_strings);
    if (!hit)
        return io_csv_fail(c, col[0], "unknown event %s (not in %s)", io_csv_quote(s, q, sizeof q),
                           im->in->results);
    p->event = (uint32_t)(hit - im->events);
    s = io_csv_field(c, col[1]);
    if (strcmp(s, kSides[0]) != 0 && strcmp(s, kSides[1]) != 0)
        return io_csv_fail(c, col[1], "%s is not a side (attack or defense)",
                           io_csv_quote(s, q, sizeof q));
    p->side = strcmp(s, kSides[0]) == 0 ? DATUM_TAROT_ATTACK : DATUM_TAROT_DEFENSE;
    if ((rc = io_csv_text(c, col[2], 0, &s)) != DATUM_OK) return rc;
    int attack = p->side == DATUM_TAROT_ATTACK;
    p->id = attack ? find_id(im->players, im->n_players, sizeof *im->players, s)
                   : find_id(im->defenses, im->n_defenses, sizeof *im->defenses, s);
    if (p->id < 0)
        return io_csv_fail(c, col[2], "unknown %s %s (not in %s)", attack ? "attacker" : "defense",
                           io_csv_quote(s, q, sizeof q),
                           attack ? im->in->players : im->in->defenses);
    if (!side_plays(im, p->event, p->side, p->id))
        return io_csv_fail(c, col[2], "%s %s does not play in event \"%s\"",
                           attack ? "attacker" : "defense", io_csv_quote(s, q, sizeof q),
                           im->events[p->event]);
    if ((rc = parse_pm(c, col[3], &p->pm)) == DATUM_OK) im->n_penalties++;
    return rc;
}

static int read_penalties(importer *im)
{
    static const char *const kCols[] = {"event", "side", "id", "pm"};
    return read_rows(im, im->in->penalties, kCols, 4, penalty_row);
}

/* By content, so that the archive does not depend on the rows' order. */
static int compare_penalties(const void *x, const void *y)
{
    const penalty_rec *a = x, *b = y;
    int c = CMP(a->event, b->event);
    if (!c) c = CMP(a->side, b->side);
    if (!c) c = CMP(a->id, b->id);
    if (!c) c = CMP(a->pm, b->pm);
    return c ? c : CMP(a->line, b->line);
}

/* ------------------------------------------------------------------------ */
/* The archive                                                              */

/* Lays the sorted tables out as datum_tarot_data (arrays in *d, owned by
 * the caller; the strings stay the importer's) and hands them to consume. */
static int lay_out(importer *im, io_tarot_consumer consume, void *user)
{
    datum_tarot_data d = {.n_events = im->n_events,
                          .n_players = (uint32_t)im->n_players,
                          .n_defenses = (uint32_t)im->n_defenses,
                          .n_results = im->n_results,
                          .n_penalties = im->n_penalties,
                          .event = im->events};
    size_t nr = im->n_results, np = im->n_penalties, n_etuis = 0;
    for (size_t i = 0; i < nr; i++)
        n_etuis += i == 0 || im->results[i].event != im->results[i - 1].event ||
                   im->results[i].etui != im->results[i - 1].etui;
    d.n_etuis = n_etuis;
    datum_ctx *ctx = im->ctx;
    d.player = datum_calloc(ctx, im->n_players, sizeof *d.player);
    d.player_class = datum_calloc(ctx, im->n_players, 1);
    d.defense = datum_calloc(ctx, im->n_defenses, sizeof *d.defense);
    d.defense_player = datum_calloc(ctx, 3 * im->n_defenses, sizeof *d.defense_player);
    d.etui_event = datum_calloc(ctx, n_etuis, sizeof *d.etui_event);
    d.etui_number = datum_calloc(ctx, n_etuis, sizeof *d.etui_number);
    d.etui_contract = datum_calloc(ctx, n_etuis, 1);
    d.etui_offset = datum_calloc(ctx, n_etuis + 1, sizeof *d.etui_offset);
    d.result_position = datum_calloc(ctx, nr, sizeof(int32_t));
    d.result_attacker = datum_calloc(ctx, nr, sizeof(int32_t));
    d.result_defense = datum_calloc(ctx, nr, sizeof(int32_t));
    d.result_score = datum_calloc(ctx, nr, sizeof(int32_t));
    d.result_date = datum_calloc(ctx, nr, sizeof(int32_t));
    d.penalty_event = datum_calloc(ctx, np, sizeof(int32_t));
    d.penalty_side = datum_calloc(ctx, np, 1);
    d.penalty_id = datum_calloc(ctx, np, sizeof(int32_t));
    d.penalty_pm = datum_calloc(ctx, np, sizeof(double));
    void *arrays[] = {d.player,          d.player_class,    d.defense,        d.defense_player,
                      d.etui_event,      d.etui_number,     d.etui_contract,  d.etui_offset,
                      d.result_position, d.result_attacker, d.result_defense, d.result_score,
                      d.result_date,     d.penalty_event,   d.penalty_side,   d.penalty_id,
                      d.penalty_pm};
    int rc = DATUM_OK;
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        if (!arrays[i]) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        for (size_t i = 0; i < im->n_players; i++) {
            d.player[i] = im->players[i].h.id;
            d.player_class[i] = im->players[i].cls;
        }
        for (size_t i = 0; i < im->n_defenses; i++) {
            d.defense[i] = im->defenses[i].h.id;
            memcpy(d.defense_player + 3 * i, im->defenses[i].player, 3 * sizeof(int32_t));
        }
        for (size_t i = 0, e = 0; i < nr; i++) {
            const result_rec *r = &im->results[i];
            if (i == 0 || r->event != r[-1].event || r->etui != r[-1].etui) {
                d.etui_event[e] = (int32_t)r->event;
                d.etui_number[e] = r->etui;
                d.etui_contract[e] = r->contract;
                d.etui_offset[e++] = i;
            }
            d.result_position[i] = r->position;
            d.result_attacker[i] = r->attacker;
            d.result_defense[i] = r->defense;
            d.result_score[i] = r->score;
            d.result_date[i] = r->date;
        }
        d.etui_offset[n_etuis] = nr;
        for (size_t i = 0; i < np; i++) {
            const penalty_rec *p = &im->penalties[i];
            d.penalty_event[i] = (int32_t)p->event;
            d.penalty_side[i] = p->side;
            d.penalty_id[i] = p->id;
            d.penalty_pm[i] = p->pm;
        }
        rc = consume(ctx, &d, user);
    }
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) datum_free(arrays[i]);
    return rc;
}

int io_tarot_read_csv(datum_ctx *ctx, const datum_tarot_inputs *in, io_tarot_consumer consume,
                      void *user)
{
    importer im = {.ctx = ctx, .in = in};
    int rc = DATUM_OK;
    if ((!in || !in->results || !in->players || !in->defenses))
        rc = datum_ctx_fail(ctx, DATUM_E_ARG,
                            "the results, players and defenses files are required");
    if (rc == DATUM_OK) rc = read_players_and_defenses(&im);
    if (rc == DATUM_OK) rc = read_results(&im);
    if (rc == DATUM_OK) rc = sort_results(&im);
    if (rc == DATUM_OK) rc = check_etuis(&im);
    if (rc == DATUM_OK && in->penalties) rc = read_penalties(&im);
    if (rc == DATUM_OK) {
        if (im.n_penalties > 0) /* qsort wants a table, even of nothing */
            qsort(im.penalties, im.n_penalties, sizeof *im.penalties, compare_penalties);
        rc = lay_out(&im, consume, user);
    }
    for (size_t i = 0; i < im.n_players; i++) datum_free(im.players[i].h.id);
    for (size_t i = 0; i < im.n_defenses; i++) datum_free(im.defenses[i].h.id);
    for (uint32_t i = 0; i < im.n_events; i++) datum_free(im.events[i]);
    datum_free(im.players);
    datum_free(im.defenses);
    datum_free(im.events);
    datum_free(im.event_results);
    datum_free(im.results);
    datum_free(im.penalties);
    return rc;
}
