/*
 * generate.c - a synthetic federation, written straight into an archive.
 *
 * The plan (population.c) says who plays which event. Here the events are
 * played: blocks of events are generated in parallel, each from random
 * streams keyed by (seed, what, ids) alone (a counter-based generator), and
 * written in order by one thread while the others generate the next blocks;
 * so the archive is the same for any thread count.
 */
#include "gen_internal.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Deals and tables                                                         */

typedef struct {
    int level, strain, doubled, side; /* side 0: North-South declare */
    double tricks;                    /* what an average pair makes */
} contract;

/* A board: the contract most tables reach, another that some reach, and
 * how often; shared by every table of the event. */
typedef struct {
    contract main, alt;
    double p_alt;
    int passed;
} deal;

static int suit_or_notrump(rng *r, double notrump, double major)
{
    double u = uniform(r);
    if (u < notrump) return DATUM_NOTRUMP;
    if (u < notrump + major) return DATUM_HEARTS + (int)below(r, 2);
    return DATUM_CLUBS + (int)below(r, 2);
}

/* The lowest game in a strain. */
static int game_level(int strain)
{
    return strain == DATUM_NOTRUMP ? 3 : strain >= DATUM_HEARTS ? 4 : 5;
}

static deal make_deal(const plan *g, uint32_t e, int board)
{
    rng r = stream(g->o.seed, TAG_DEAL, e, (uint64_t)board);
    deal d = {0};
    int side = (int)below(&r, 2);
    if (uniform(&r) < 0.005) {
        d.passed = 1;
        return d;
    }
    double u = uniform(&r);
    if (u < 0.42) { /* a partscore, some tables one level higher or lower */
        int strain = suit_or_notrump(&r, 0.2, 0.45);
        int level = strain == DATUM_NOTRUMP ? 1 + (int)below(&r, 2) : 1 + (int)below(&r, 3);
        d.main = (contract){level, strain, 0, side, 6 + level + 0.6 + normal(&r)};
        d.alt = d.main;
        d.alt.level = level < 3 ? level + 1 : level - 1;
        d.p_alt = 0.35;
    } else if (u < 0.84) { /* a game; some stop in a partscore or play another game */
        int strain = suit_or_notrump(&r, 0.45, 0.45), level = game_level(strain);
        d.main = (contract){level, strain, 0, side, 6 + level + 0.4 + 0.9 * normal(&r)};
        d.alt = d.main;
        if (uniform(&r) < 0.5) d.alt.level = level - 1;
        else if (strain == DATUM_NOTRUMP)
            d.alt = (contract){4, DATUM_HEARTS + (int)below(&r, 2), 0, side,
                               d.main.tricks + 0.3 + 0.6 * normal(&r)};
        else d.alt = (contract){3, DATUM_NOTRUMP, 0, side, d.main.tricks - 0.5 + 0.6 * normal(&r)};
        d.p_alt = 0.3;
    } else if (u < 0.90) { /* a slam; some stay in game */
        int strain = suit_or_notrump(&r, 0.3, 0.5), level = uniform(&r) < 0.85 ? 6 : 7;
        d.main = (contract){level, strain, 0, side, 6 + level - 0.2 + 0.8 * normal(&r)};
        d.alt = d.main;
        d.alt.level = game_level(strain);
        d.p_alt = 0.35;
    } else { /* a doubled sacrifice against a major game, which some tables play */
        int game = DATUM_HEARTS + (int)below(&r, 2);
        int level = game == DATUM_HEARTS && uniform(&r) < 0.5 ? 4 : 5;
        int strain = level == 4 ? DATUM_SPADES : DATUM_CLUBS + (int)below(&r, 2);
        d.main = (contract){level, strain, 1, side, 6 + level - 2 + 0.7 * normal(&r)};
        d.alt = (contract){4, game, 0, 1 - side, 10.2 + 0.6 * normal(&r)};
        d.p_alt = 0.4;
    }
    return d;
}

/* North-South's score at one table: the deal's contract (or its other one),
 * the tricks shifted by the declarers' strength over the defenders' plus
 * noise; a contract two down or more is sometimes doubled. */
static int32_t play(const plan *g, const deal *d, int board, uint32_t ns, uint32_t ew, rng *r,
                    uint8_t *adjusted)
{
    *adjusted = DATUM_ADJ_NONE;
    if (uniform(r) < ADJUSTED_RATE) {
        static const uint8_t codes[4] = {DATUM_ADJ_A, DATUM_ADJ_A, DATUM_ADJ_AP, DATUM_ADJ_AM};
        *adjusted = codes[below(r, 4)];
        return 0;
    }
    if (d->passed) return 0;
    const contract *c = uniform(r) < d->p_alt ? &d->alt : &d->main;
    double edge = g->pairs[c->side ? ew : ns].strength - g->pairs[c->side ? ns : ew].strength;
    long tricks = lround(c->tricks + TRICKS_PER_STRENGTH * edge + TRICK_SD * normal(r));
    tricks = tricks < 0 ? 0 : tricks > 13 ? 13 : tricks;
    int doubled = c->doubled;
    if (!doubled && tricks <= 4 + c->level && uniform(r) < 0.35) doubled = 1;
    int vulnerable = (datum_board_vulnerability(board) >> c->side) & 1;
    int score =
        datum_bridge_score(c->level, (datum_strain)c->strain, doubled, vulnerable, (int)tricks);
    return c->side ? -score : score;
}

/* ------------------------------------------------------------------------ */
/* Blocks of results, in the layout of datum_chunk                          */

typedef struct {
    size_t n_fields, n_rows, fields_cap, rows_cap;
    uint64_t *offset;
    uint32_t *event, *section;
    int32_t *board, *table, *ns, *ew, *score, *date, *ns_team, *ew_team, *match;
    uint8_t *adjusted;
    int failed;
} block;

/* Room for one more field of `rows` rows. DATUM_OK or DATUM_E_NOMEM
 * (recorded in ctx; called inside a parallel region). */
static int block_room(datum_ctx *ctx, block *b, size_t rows)
{
    void *per_field[] = {&b->offset, &b->event, &b->section, &b->board};
    const size_t field_size[] = {sizeof *b->offset, sizeof *b->event, sizeof *b->section,
                                 sizeof *b->board};
    void *per_row[] = {&b->table, &b->ns,      &b->ew,      &b->score,   &b->date,
                       &b->ns_team, &b->ew_team, &b->match, &b->adjusted};
    const size_t row_size[] = {sizeof *b->table, sizeof *b->ns,      sizeof *b->ew,
                               sizeof *b->score, sizeof *b->date,    sizeof *b->ns_team,
                               sizeof *b->ew_team, sizeof *b->match, sizeof *b->adjusted};
    int rc = datum_reserve_all(ctx, &b->fields_cap, b->n_fields + 2, 4, per_field, field_size);
    if (rc == DATUM_OK)
        rc = datum_reserve_all(ctx, &b->rows_cap, b->n_rows + rows, 9, per_row, row_size);
    return rc;
}

static void block_free(block *b)
{
    void *all[] = {b->offset, b->event, b->section, b->board,   b->table, b->ns,      b->ew,
                   b->score,  b->date,  b->ns_team, b->ew_team, b->match, b->adjusted};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) datum_free(all[k]);
    memset(b, 0, sizeof *b);
}

static void begin_field(block *b, uint32_t e, uint32_t section, int board)
{
    b->event[b->n_fields] = e;
    b->section[b->n_fields] = section;
    b->board[b->n_fields] = board;
}

static void end_field(block *b) { b->offset[++b->n_fields] = b->n_rows; }

/* A row of the current field; teams -1 when not a teams match. */
static void add_row(block *b, int table, uint32_t ns, uint32_t ew, int32_t score, uint8_t adjusted,
                    int32_t date, int32_t ns_team, int32_t ew_team, int32_t match)
{
    size_t i = b->n_rows++;
    b->table[i] = table;
    b->ns[i] = (int32_t)ns;
    b->ew[i] = (int32_t)ew;
    b->score[i] = score;
    b->adjusted[i] = adjusted;
    b->date[i] = date;
    b->ns_team[i] = ns_team;
    b->ew_team[i] = ew_team;
    b->match[i] = match;
}

/* ------------------------------------------------------------------------ */
/* Sessions                                                                  */

/* Round r of a circle-method schedule of n = 2T entries at T tables: the
 * entries at table t, the first one North-South (home). This orientation
 * alternates every entry's direction, with at most one break, so that over
 * three rounds or more every entry has played both ways (a Howell). */
static void circle(int T, int r, int t, int *first, int *second)
{
    int n = 2 * T, a, b;
    if (t == 0) a = n - 1, b = r % (n - 1);
    else a = (r + t) % (n - 1), b = (r - t + n - 1) % (n - 1);
    int home = t == 0 ? r % 2 == 0 : t % 2 == 1;
    *first = home ? a : b;
    *second = home ? b : a;
}

/* Plays a pairs session: the 2T pairs in seat order at T tables, in
 * sections of at most SECTION_MAX tables, each a Howell (if howell and
 * small enough: every pair meets every other, changing direction) or a
 * Mitchell (North-South stay, East-West move); every board of the session
 * is played at every table of a section, round by round. */
static int play_session(const plan *g, uint32_t e, const uint32_t *pairs, int T, int howell,
                        block *b)
{
    const int boards = g->o.boards;
    const event *ev = &g->events[e];
    int n_sec = T <= SECTION_MAX ? 1 : (T + SECTION_SPLIT - 1) / SECTION_SPLIT;
    deal deals[100];
    for (int j = 1; j <= boards; j++) deals[j] = make_deal(g, e, j);
    for (int s = 0, first = 0; s < n_sec; s++) {
        int tables = T / n_sec + (s < T % n_sec), rounds_max;
        const uint32_t *p = pairs + 2 * first;
        int is_howell = howell && tables <= HOWELL_MAX;
        rounds_max = is_howell ? 2 * tables - 1 : tables;
        int per_round = (boards + rounds_max - 1) / rounds_max;
        if (per_round < 2) per_round = 2;
        if (is_howell && boards >= 3 && (boards + per_round - 1) / per_round < 3)
            per_round = (boards + 2) / 3; /* three rounds at least: both directions */
        for (int j = 1; j <= boards; j++) {
            rng r = stream(g->o.seed, TAG_TABLES, e, (uint64_t)s << 8 | (uint64_t)j);
            int round = (j - 1) / per_round;
            int rc = block_room(g->ctx, b, (size_t)tables);
            if (rc != DATUM_OK) return rc;
            begin_field(b, e, n_sec == 1 ? 0 : (uint32_t)s + 1, j);
            for (int t = 0; t < tables; t++) {
                int x, y;
                if (is_howell) circle(tables, round, t, &x, &y);
                else x = t, y = tables + (t + round) % tables;
                uint8_t adjusted;
                int32_t score = play(g, &deals[j], j, p[x], p[y], &r, &adjusted);
                add_row(b, t + 1, p[x], p[y], score, adjusted, ev->date, -1, -1, -1);
            }
            end_field(b);
        }
        first += tables;
    }
    return DATUM_OK;
}

/* A club session: about the club's usual number of tables (from its own
 * partnerships and its attendance); each seat goes to a visitor from the
 * region's other clubs, or from the other regions, with the options'
 * probabilities, else to one of the club's members (its own partnerships
 * and the other clubs' that are also members); seated in random order. */
static int gen_club(const plan *g, uint32_t e, scratch *s, block *b)
{
    const event *ev = &g->events[e];
    const club *cl = &g->clubs[ev->who];
    rng r = stream(g->o.seed, TAG_EVENT, e, 0);
    uint32_t own, n, c = ev->who, lo, hi;
    gen_club_year(g, c, ev->year, &own);
    int rc = gen_gather(g, &g->members, s, c, c + 1, ev->year, &n);
    if (rc != DATUM_OK) return rc;
    long tables = lround(cl->attendance * own / 2 * (1 + SESSION_SD * normal(&r)));
    tables = tables < 2 ? 2 : tables > (long)own / 2 ? (long)own / 2 : tables;
    gen_region_clubs(g, cl->region, &lo, &hi);
    int nation = hi - lo < (uint32_t)g->o.clubs; /* else the region is the nation */
    uint32_t seats = 2 * (uint32_t)tables, from_region = 0, from_nation = 0;
    for (uint32_t k = 0; k < seats; k++) {
        double u = uniform(&r);
        if (u < g->o.visitors_nation) from_nation++;
        else if (u < g->o.visitors_nation + g->o.visitors_region) from_region++;
    }
    if (!nation) from_region += from_nation, from_nation = 0;
    if (hi - lo < 2) from_region = 0; /* a region of one club: members only */
    if (datum_reserve(g->ctx, &s->picked, &s->picked_cap, seats + 1, sizeof *s->picked) != DATUM_OK)
        return DATUM_E_NOMEM;
    uint32_t got = gen_pick_pairs(g, s, &r, n, seats - from_region - from_nation);
    for (uint32_t k = 0; k < from_region; k++)
        gen_pick_visitor(g, s, &r, lo, hi, c, c + 1, ev->year, &got);
    for (uint32_t k = 0; k < from_nation; k++)
        gen_pick_visitor(g, s, &r, 0, (uint32_t)g->o.clubs, lo, hi, ev->year, &got);
    got &= ~1u;
    gen_shuffle(&r, s->picked, got);
    return got >= 4 ? play_session(g, e, s->picked, (int)(got / 2), cl->howell, b) : DATUM_OK;
}

/* A congress session: a share of the region's (or the nation's)
 * partnerships, the same in both sessions, seated anew in each. */
static int gen_congress(const plan *g, uint32_t e, scratch *s, block *b)
{
    const event *ev = &g->events[e];
    int national = ev->kind == EV_NATIONAL;
    uint32_t lo = 0, hi = (uint32_t)g->o.clubs, n;
    if (!national) gen_region_clubs(g, (int)ev->who, &lo, &hi);
    int rc = gen_gather(g, &g->home, s, lo, hi, ev->year, &n);
    if (rc != DATUM_OK) return rc;
    rng r = stream(g->o.seed, TAG_CONGRESS, (uint64_t)ev->kind << 32 | ev->who,
                   (uint64_t)ev->year << 8 | ev->round);
    int tables = gen_congress_tables(n, national ? g->o.national_share : g->o.regional_share);
    uint32_t got = gen_pick_pairs(g, s, &r, n, 2 * (uint32_t)tables) & ~1u;
    rng seating = stream(g->o.seed, TAG_EVENT, e, 0);
    gen_shuffle(&seating, s->picked, got);
    return got >= 4 ? play_session(g, e, s->picked, (int)(got / 2), 0, b) : DATUM_OK;
}

/* A round of a teams league: the division's matches (circle method, home
 * and away swapped in the second half of the double round robin) at four
 * tables each, all on the same boards; each team's four pairs take turns at
 * the seats, so that every pair plays both directions. */
static int gen_league(const plan *g, uint32_t e, block *b)
{
    const event *ev = &g->events[e];
    const division *v = &g->divisions[ev->who];
    int n = v->n_teams, half = n - 1, r = (int)ev->round % half, swap = (int)ev->round >= half;
    for (int j = 1; j <= g->o.boards; j++) {
        deal d = make_deal(g, e, j);
        rng rr = stream(g->o.seed, TAG_TABLES, e, (uint64_t)j);
        int rc = block_room(g->ctx, b, 2 * (size_t)n);
        if (rc != DATUM_OK) return rc;
        begin_field(b, e, 0, j);
        for (int k = 0; k < n / 2; k++) {
            int home, away,
                match = (int)(v->first_match + ev->round * (uint32_t)(n / 2) + (uint32_t)k);
            circle(n / 2, r, k, &home, &away);
            if (swap) {
                int t = home;
                home = away;
                away = t;
            }
            const uint32_t *hp = v->pairs + 4 * home, *ap = v->pairs + 4 * away;
            int32_t ht = (int32_t)(v->first_team + (uint32_t)home),
                    at = (int32_t)(v->first_team + (uint32_t)away);
            for (int t = 0; t < 4; t++) {
                int ns_home = t < 2, seat = (int)ev->round + t % 2;
                uint32_t ns = ns_home ? hp[seat % 4] : ap[seat % 4];
                uint32_t ew = ns_home ? ap[(seat + 2) % 4] : hp[(seat + 2) % 4];
                uint8_t adjusted;
                int32_t score = play(g, &d, j, ns, ew, &rr, &adjusted);
                add_row(b, 4 * k + t + 1, ns, ew, score, adjusted, ev->date, ns_home ? ht : at,
                        ns_home ? at : ht, match);
            }
        }
        end_field(b);
    }
    return 0;
}

/* Events e0..e1-1 into b; b->failed on DATUM_E_NOMEM (recorded in g->ctx). */
static void gen_block(const plan *g, uint32_t e0, uint32_t e1, scratch *s, block *b)
{
    b->n_fields = b->n_rows = 0;
    int rc = block_room(g->ctx, b, 0);
    if (rc == DATUM_OK) b->offset[0] = 0;
    for (uint32_t e = e0; e < e1 && rc == DATUM_OK; e++) {
        switch (g->events[e].kind) {
        case EV_CLUB: rc = gen_club(g, e, s, b); break;
        case EV_LEAGUE: rc = gen_league(g, e, b); break;
        default: rc = gen_congress(g, e, s, b);
        }
    }
    b->failed = rc != DATUM_OK;
}

static datum_chunk block_chunk(const block *b)
{
    return (datum_chunk){.n_fields = b->n_fields,
                         .n_rows = b->n_rows,
                         .offset = b->offset,
                         .field_event = b->event,
                         .field_section = b->section,
                         .field_board = b->board,
                         .table = b->table,
                         .ns_pair = b->ns,
                         .ew_pair = b->ew,
                         .ns_score = b->score,
                         .adjusted = b->adjusted,
                         .date = b->date,
                         .ns_team = b->ns_team,
                         .ew_team = b->ew_team,
                         .match = b->match};
}

/* ------------------------------------------------------------------------ */
/* The plan, the dictionaries, the run                                      */

/* The options' bounds, in the order of datum_generate_options: each as
 * "name lo..hi" in the messages. */
typedef struct {
    const char *name;
    double value, lo, hi;
} bound;

static int check_options(datum_ctx *ctx, const datum_generate_options *o)
{
    if (o->clubs < 1 || o->clubs > 9999 || o->years < 1 || o->years > 50 ||
        o->sessions_per_week < 1 || o->sessions_per_week > 7 || o->boards < 2 || o->boards > 99 ||
        o->first_year < 1900 || o->first_year > 2100)
        return datum_ctx_fail(ctx, DATUM_E_ARG,
                              "generate: clubs 1..9999, years 1..50, sessions a week 1..7, boards "
                              "2..99, first year 1900..2100");
    const bound reals[] = {
        {"multi_club", o->multi_club, 0, 1},
        {"visitors_region", o->visitors_region, 0, 0.9},
        {"visitors_nation", o->visitors_nation, 0, 0.9},
        {"visitors_region + visitors_nation", o->visitors_region + o->visitors_nation, 0, 0.9},
        {"regionals", o->regionals, 0, 52},
        {"regional_share", o->regional_share, 0, 1},
        {"nationals", o->nationals, 0, 12},
        {"national_share", o->national_share, 0, 1},
        {"attendance", o->attendance, 0.01, 1},
        {"leave_rate", o->leave_rate, 0, 1},
        {"partnership_keep", o->partnership_keep, 0, 1},
    };
    for (size_t k = 0; k < sizeof reals / sizeof *reals; k++)
        if (!(reals[k].value >= reals[k].lo && reals[k].value <= reals[k].hi)) /* NaN too */
            return datum_ctx_fail(ctx, DATUM_E_ARG, "generate: %s is %g, not in %g..%g",
                                  reals[k].name, reals[k].value, reals[k].lo, reals[k].hi);
    return DATUM_OK;
}

/* The mixing levels, in the order of the fields multi_club..national_share:
 * why these values, docs/cli.md ("datum generate", mixing). */
static const struct {
    const char *name;
    double multi_club, visitors_region, visitors_nation;
    int regionals;
    double regional_share;
    int nationals;
    double national_share;
} kMixing[] = {
    {"low", 0, 0, 0, 4, 0.08, 1, 0.02},
    {"medium", 0.2, 0.1, 0.01, 12, 0.08, 2, 0.02},
    {"high", 0.35, 0.3, 0.03, 26, 0.1, 4, 0.03},
};

int datum_generate_mixing(datum_generate_options *o, const char *level)
{
    for (size_t i = 0; i < sizeof kMixing / sizeof *kMixing; i++)
        if (strcmp(level, kMixing[i].name) == 0) {
            o->multi_club = kMixing[i].multi_club;
            o->visitors_region = kMixing[i].visitors_region;
            o->visitors_nation = kMixing[i].visitors_nation;
            o->regionals = kMixing[i].regionals;
            o->regional_share = kMixing[i].regional_share;
            o->nationals = kMixing[i].nationals;
            o->national_share = kMixing[i].national_share;
            return DATUM_OK;
        }
    return DATUM_E_ARG;
}

int datum_generate_preset(datum_generate_options *o, const char *name)
{
    static const struct {
        const char *name, *mixing;
        int clubs, years, sessions_per_week, first_year;
    } presets[] = {
        {"small", "low", 4, 1, 2, 2024},
        {"decade", "medium", 200, 10, 3, 2015},
        {"national", "medium", 1000, 10, 3, 2015},
    };
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (strcmp(name, presets[i].name) == 0) {
            *o = (datum_generate_options){.seed = 1,
                                          .clubs = presets[i].clubs,
                                          .years = presets[i].years,
                                          .sessions_per_week = presets[i].sessions_per_week,
                                          .boards = 24,
                                          .first_year = presets[i].first_year,
                                          .attendance = 0.44,
                                          .leave_rate = 0.06,
                                          .partnership_keep = 0.9};
            return datum_generate_mixing(o, presets[i].mixing);
        }
    return DATUM_E_ARG;
}

/* Writes the dictionaries, the truth and its attributes. */
static int write_header(plan *g, datum_archive_writer *w)
{
    uint32_t n = g->n_events;
    if (g->n_pairs > n) n = g->n_pairs;
    if (g->n_teams > n) n = g->n_teams;
    if (g->n_matches > n) n = g->n_matches;
    char *bytes = datum_calloc(g->ctx, (size_t)n, NAME_SIZE);
    const char **names = datum_calloc(g->ctx, (size_t)n, sizeof *names);
    double *truth = datum_calloc(g->ctx, g->n_pairs, sizeof *truth);
    int rc = bytes && names && truth ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t i = 0; i < n && rc == DATUM_OK; i++) names[i] = bytes + (size_t)i * NAME_SIZE;
    static const char *const sections[SECTIONS_MAX + 1] = {
        "", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P"};
    if (rc == DATUM_OK) {
        for (uint32_t e = 0; e < g->n_events; e++)
            gen_event_name(g, &g->events[e], bytes + (size_t)e * NAME_SIZE);
        rc = datum_archive_writer_dict(w, DATUM_DICT_EVENTS, names, g->n_events);
    }
    if (rc == DATUM_OK)
        rc = datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, sections, SECTIONS_MAX + 1);
    if (rc == DATUM_OK) {
        for (uint32_t p = 0; p < g->n_pairs; p++)
            snprintf(bytes + (size_t)p * NAME_SIZE, NAME_SIZE, "P%07u", p + 1);
        rc = datum_archive_writer_dict(w, DATUM_DICT_PAIRS, names, g->n_pairs);
    }
    if (rc == DATUM_OK && g->n_teams) {
        uint32_t k = 0;
        for (uint32_t d = 0; d < g->n_divisions; d++)
            for (int t = 0; t < g->divisions[d].n_teams; t++, k++)
                snprintf(bytes + (size_t)k * NAME_SIZE, NAME_SIZE, "%04u D%03u T%u",
                         (unsigned)(g->o.first_year + g->divisions[d].year) % 10000u,
                         (unsigned)(g->divisions[d].number + 1) % 1000u, (unsigned)t % 9u + 1);
        rc = datum_archive_writer_dict(w, DATUM_DICT_TEAMS, names, g->n_teams);
    }
    if (rc == DATUM_OK && g->n_teams) {
        uint32_t k = 0;
        for (uint32_t d = 0; d < g->n_divisions; d++) {
            const division *v = &g->divisions[d];
            for (int round = 0; round < 2 * (v->n_teams - 1); round++)
                for (int m = 0; m < v->n_teams / 2; m++, k++)
                    snprintf(bytes + (size_t)k * NAME_SIZE, NAME_SIZE, "%04u D%03u R%02u M%u",
                             (unsigned)(g->o.first_year + v->year) % 10000u,
                             (unsigned)(v->number + 1) % 1000u, (unsigned)(round + 1) % 100u,
                             (unsigned)m % 9u + 1);
        }
        rc = datum_archive_writer_dict(w, DATUM_DICT_MATCHES, names, g->n_matches);
    }
    if (rc == DATUM_OK) {
        for (uint32_t p = 0; p < g->n_pairs; p++) truth[p] = g->pairs[p].strength;
        rc = datum_archive_writer_truth(w, truth, g->n_pairs);
    }
    /* The options as attributes of /truth (what made the archive). */
    const datum_generate_options *o = &g->o;
    const struct {
        const char *key;
        double value;
    } attrs[] = {
        {"seed", 0}, /* written whole below */
        {"clubs", o->clubs},
        {"years", o->years},
        {"sessions_per_week", o->sessions_per_week},
        {"boards", o->boards},
        {"first_year", o->first_year},
        {"tricks_per_strength", TRICKS_PER_STRENGTH},
        {"multi_club", o->multi_club},
        {"visitors_region", o->visitors_region},
        {"visitors_nation", o->visitors_nation},
        {"regionals", o->regionals},
        {"regional_share", o->regional_share},
        {"nationals", o->nationals},
        {"national_share", o->national_share},
        {"attendance", o->attendance},
        {"leave_rate", o->leave_rate},
        {"partnership_keep", o->partnership_keep},
    };
    char value[32];
    if (rc == DATUM_OK) rc = datum_archive_writer_truth_attr(w, "generator", "datum generate");
    for (size_t k = 0; k < sizeof attrs / sizeof *attrs && rc == DATUM_OK; k++) {
        if (k == 0) snprintf(value, sizeof value, "%llu", (unsigned long long)o->seed);
        else snprintf(value, sizeof value, "%.15g", attrs[k].value);
        rc = datum_archive_writer_truth_attr(w, attrs[k].key, value);
    }
    datum_free(bytes);
    datum_free(names);
    datum_free(truth);
    return rc;
}

/* Event boundaries of the blocks: whole events of at most about BLOCK_ROWS
 * rows (by the plan's bound), from the plan alone. */
enum { BLOCK_ROWS = 1 << 17 };

static uint32_t *make_blocks(plan *g, uint32_t *n_blocks)
{
    uint32_t *start = datum_calloc(g->ctx, (size_t)g->n_events + 1, sizeof *start), n = 0;
    uint64_t rows = 0;
    if (!start) return NULL;
    for (uint32_t e = 0; e < g->n_events; e++) {
        uint64_t est = (uint64_t)g->o.boards * SECTIONS_MAX * SECTION_SPLIT; /* a congress */
        if (g->events[e].kind == EV_CLUB) {
            uint32_t k;
            gen_club_year(g, g->events[e].who, g->events[e].year, &k);
            est = (uint64_t)g->o.boards * (k / 2);
        }
        if (e == 0 || rows + est > BLOCK_ROWS) {
            start[n++] = e;
            rows = 0;
        }
        rows += est;
    }
    start[n] = g->n_events;
    *n_blocks = n;
    return start;
}

static int run(plan *g, datum_archive_writer *w, datum_generate_summary *sum)
{
    int threads = datum_ctx_threads(g->ctx), window = 4 * threads, rc = DATUM_OK,
        write_rc = DATUM_OK;
    uint32_t n_blocks = 0, *start = make_blocks(g, &n_blocks);
    block *buf = datum_calloc(g->ctx, 2 * (size_t)window, sizeof *buf);
    scratch *s = datum_calloc(g->ctx, (size_t)threads, sizeof *s);
    if (!start || !buf || !s) rc = DATUM_E_NOMEM;
    for (int t = 0; t < threads && rc == DATUM_OK; t++) rc = gen_scratch_init(g, &s[t]);
    uint32_t n_windows = (n_blocks + (uint32_t)window - 1) / (uint32_t)window;
    for (uint32_t k = 0; k <= n_windows && rc == DATUM_OK; k++) {
        /* Window k is generated while window k-1 is written. */
        block *cur = buf + (size_t)(k % 2) * window, *prev = buf + (size_t)((k + 1) % 2) * window;
        uint32_t b0 = k * (uint32_t)window, b1 = b0 + (uint32_t)window;
        uint32_t p0 = b0 - (uint32_t)window;
        if (b1 > n_blocks) b1 = n_blocks;
        if (b0 > n_blocks) b0 = n_blocks;
#pragma omp parallel num_threads(threads)
        {
            /* The writer on the initial thread: HDF5 fails worst on a worker
             * thread when memory runs out (no arena of its own to grow). */
#pragma omp masked
            for (uint32_t i = p0; k > 0 && i < p0 + (uint32_t)window && i < n_blocks; i++) {
                datum_chunk c = block_chunk(&prev[i - p0]);
                if (write_rc == DATUM_OK && c.n_fields)
                    write_rc = datum_archive_writer_append(w, &c);
                sum->results += c.n_rows;
                sum->fields += c.n_fields;
            }
            scratch *mine = &s[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1) nowait
            for (uint32_t i = b0; i < b1; i++)
                gen_block(g, start[i], start[i + 1], mine, &cur[i - b0]);
        }
        for (uint32_t i = b0; i < b1 && rc == DATUM_OK; i++)
            if (cur[i - b0].failed) rc = DATUM_E_NOMEM; /* recorded by the allocator */
        if (write_rc != DATUM_OK) rc = write_rc;
        datum_ctx_progress(g->ctx, start[b0], g->n_events);
    }
    for (int i = 0; buf && i < 2 * window; i++) block_free(&buf[i]);
    for (int t = 0; s && t < threads; t++) gen_scratch_free(&s[t]);
    datum_free(buf);
    datum_free(s);
    datum_free(start);
    return rc;
}

int datum_generate(datum_ctx *ctx, const datum_generate_options *o, const char *path,
                   const datum_write_options *wo, datum_generate_summary *summary)
{
    plan g = {.ctx = ctx, .o = *o};
    datum_generate_summary sum = {0};
    datum_archive_writer *w = NULL;
    int rc = check_options(ctx, o);
    if (rc == DATUM_OK) rc = gen_plan_build(&g);
    if (rc == DATUM_OK) {
        datum_archive_plan p = DATUM_ARCHIVE_PLAN_INIT;
        p.has_adjusted = 1;
        p.has_teams = g.n_teams > 0;
        p.max_results = p.max_fields = g.max_results;
        p.max_board = o->boards;
        p.max_table = SECTION_MAX;
        p.min_score = -7600; /* 13 down, redoubled, vulnerable */
        p.max_score = 3160;  /* 1NT redoubled, 6 over, vulnerable */
        p.min_date = g.jan1[0];
        p.max_date = g.jan1[o->years] - 1;
        rc = datum_archive_writer_create(ctx, path, &p, wo, &w);
    }
    if (rc == DATUM_OK) rc = write_header(&g, w);
    if (rc == DATUM_OK) rc = run(&g, w, &sum);
    if (rc == DATUM_OK) rc = datum_archive_writer_commit(&w);
    datum_archive_writer_abort(&w);
    sum.events = g.n_events;
    sum.pairs = g.n_pairs;
    sum.players = g.n_players;
    sum.teams = g.n_teams;
    sum.matches = g.n_matches;
    if (summary) *summary = sum;
    gen_plan_free(&g);
    return rc;
}
