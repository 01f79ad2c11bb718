/*
 * generate.c - a synthetic federation, written straight into an archive.
 *
 * Two phases. The plan (serial, small): clubs, players and partnerships year
 * by year, teams leagues, and the list of events in archive order (event
 * names sort as they are planned). Then the results: blocks of events are
 * generated in parallel, each from random streams keyed by (seed, what, ids)
 * alone (a counter-based generator), and written in order by one thread
 * while the others generate the next blocks; so the archive is the same for
 * any thread count.
 */
#include "generate.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The model's constants                                                    */

#define MEMBERS_MEDIAN 79.0   /* club members: lognormal */
#define MEMBERS_SIGMA 0.5
#define MEMBERS_MIN 24        /* enough for 3 tables whatever the partnerships */
#define MEMBERS_MAX 600
#define CLUB_MEAN_SD 0.5      /* a club's mean strength */
#define PLAYER_SD 1.0         /* a player around the club's mean */
#define CHEMISTRY_SD 0.35     /* a partnership around the mean of its players */
#define LEAVE_RATE 0.06       /* players leaving a club in a year */
#define PARTNERSHIP_KEEP 0.90 /* a partnership that lasts another year */
#define SECOND_SHARE 0.15     /* extra partnerships of players who have one */
#define SECOND_KEEP 0.70
#define HOLIDAY_RATE 0.07     /* club sessions not held */
#define SESSION_SD 0.15       /* tables of a session around the club's usual */
#define SECTION_MAX 14        /* tables; larger sessions are split */
#define SECTION_SPLIT 13      /* ... into sections of about this many */
#define SECTIONS_MAX 16
#define HOWELL_MAX 10         /* tables of the largest Howell */
#define REGION_CLUBS 10
#define REGIONALS_A_YEAR 4
#define REGIONAL_SHARE 0.08   /* of the region's partnerships at a regional */
#define NATIONAL_SHARE 0.02
#define CLUBS_PER_DIVISION 10 /* teams leagues: a division for so many clubs */
#define TRICKS_PER_STRENGTH 0.6  /* tricks for one unit of strength difference */
#define TRICK_SD 0.9
#define ADJUSTED_RATE 3e-4

/* ------------------------------------------------------------------------ */
/* Counter-based random numbers: the n-th number of stream (seed, tag, a, b)
 * is a hash of them and n (SplitMix64), so that anything can be generated
 * in any order, on any thread.                                              */

typedef struct {
    uint64_t key, n;
} rng;

enum { TAG_CLUB = 1, TAG_CLUB_YEAR, TAG_SESSIONS, TAG_LEAGUE, TAG_CONGRESS, TAG_EVENT, TAG_DEAL,
       TAG_TABLES };

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static rng stream(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    rng r = {mix64(seed ^ mix64(tag ^ mix64(a ^ mix64(b + 0x9E3779B97F4A7C15ull)))), 0};
    return r;
}

static uint64_t next64(rng *r) { return mix64(r->key + ++r->n * 0x9E3779B97F4A7C15ull); }

static double uniform(rng *r) { return (double)(next64(r) >> 11) * 0x1p-53; }

/* Uniform in 0..n-1. */
static uint32_t below(rng *r, uint32_t n) { return (uint32_t)(((next64(r) >> 32) * n) >> 32); }

static double normal(rng *r)
{
    double u = 1.0 - uniform(r), v = uniform(r); /* u in (0, 1] */
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* ------------------------------------------------------------------------ */
/* The plan                                                                 */

typedef struct {
    uint32_t players[2];
    uint32_t club;
    double strength;
} pair;

typedef struct {
    int members, region, howell;
    double mean, attendance; /* share of the partnerships that play a session */
    int days[7], n_days;     /* weekdays of its sessions, as offsets 0..6 */
} club;

typedef struct {
    int year, number, region, n_teams; /* number: within its year, from 0 */
    uint32_t first_team, first_match;
    uint32_t *pairs; /* 4 per team */
} division;

enum { EV_CLUB, EV_LEAGUE, EV_NATIONAL, EV_REGIONAL }; /* the archive order of the kinds */

typedef struct {
    uint8_t kind, session;
    uint16_t year;  /* from 0 */
    uint32_t who;   /* club, division or region */
    uint32_t round; /* league round, or congress number in the year */
    int32_t date;
} event;

/* Growable arrays of the plan. */
#define GROW(g, arr, n, cap)                                                                       \
    ((n) < (cap) ? DATUM_OK : grow_array((g), (void **)&(arr), &(cap), sizeof *(arr)))

typedef struct {
    datum_ctx *ctx;
    datum_generate_options o;
    int n_regions;
    club *clubs;
    pair *pairs;
    uint32_t n_pairs, pairs_cap;
    double *skill; /* per player */
    uint32_t n_players, players_cap;
    uint64_t *cy_offset; /* active partnerships of club c in year y: cy_pairs[cy_offset[c*Y+y]..] */
    uint32_t *cy_pairs;
    uint32_t n_cy_pairs, cy_pairs_cap;
    division *divisions;
    uint32_t n_divisions, divisions_cap, n_teams, n_matches;
    event *events;
    uint32_t n_events, events_cap;
    int32_t *jan1; /* per year */
    uint64_t max_results;
} plan;

static int grow_array(plan *g, void **arr, uint32_t *cap, size_t size)
{
    uint32_t n = *cap ? 2 * *cap : 64;
    void *p = realloc(*arr, (size_t)n * size);
    if (!p) return datum_ctx_fail(g->ctx, DATUM_E_NOMEM, "out of memory (generating)");
    *arr = p;
    *cap = n;
    return DATUM_OK;
}

static void *alloc(datum_ctx *ctx, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (generating)");
    return p;
}

static int new_player(plan *g, double mean, rng *r, uint32_t *id)
{
    int rc = GROW(g, g->skill, g->n_players, g->players_cap);
    if (rc != DATUM_OK) return rc;
    g->skill[g->n_players] = mean + PLAYER_SD * normal(r);
    *id = g->n_players++;
    return DATUM_OK;
}

static int new_pair(plan *g, uint32_t a, uint32_t b, uint32_t c, rng *r, uint32_t *id)
{
    int rc = GROW(g, g->pairs, g->n_pairs, g->pairs_cap);
    if (rc != DATUM_OK) return rc;
    g->pairs[g->n_pairs] =
        (pair){{a, b}, c, (g->skill[a] + g->skill[b]) / 2 + CHEMISTRY_SD * normal(r)};
    *id = g->n_pairs++;
    return DATUM_OK;
}

static int add_active(plan *g, uint32_t p)
{
    int rc = GROW(g, g->cy_pairs, g->n_cy_pairs, g->cy_pairs_cap);
    if (rc == DATUM_OK) g->cy_pairs[g->n_cy_pairs++] = p;
    return rc;
}

static void shuffle(rng *r, uint32_t *a, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = below(r, i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* One club: its members and partnerships year by year. Partnerships last
 * while both players stay (and mostly do); the free players pair up anew;
 * a few players have a second partnership. */
static int plan_club(plan *g, uint32_t c)
{
    const int years = g->o.years;
    rng r = stream(g->o.seed, TAG_CLUB, c, 0);
    club *cl = &g->clubs[c];
    double members = MEMBERS_MEDIAN * exp(MEMBERS_SIGMA * normal(&r));
    cl->members = members < MEMBERS_MIN ? MEMBERS_MIN : members > MEMBERS_MAX ? MEMBERS_MAX
                                                                                : (int)members;
    cl->region = (int)((uint64_t)c * (uint64_t)g->n_regions / (uint64_t)g->o.clubs);
    cl->howell = c % 2 == 0; /* half the clubs play Howells when they are small enough */
    cl->mean = CLUB_MEAN_SD * normal(&r);
    cl->attendance = 0.30 + 0.28 * uniform(&r);
    int order[7] = {0, 1, 2, 3, 4, 5, 6};
    for (int i = 7; i > 1; i--) {
        int j = (int)below(&r, (uint32_t)i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    cl->n_days = g->o.sessions_per_week;
    for (int i = 0; i < cl->n_days; i++) cl->days[i] = order[i];
    for (int i = 1; i < cl->n_days; i++) /* in week order */
        for (int j = i; j > 0 && cl->days[j] < cl->days[j - 1]; j--) {
            int t = cl->days[j];
            cl->days[j] = cl->days[j - 1];
            cl->days[j - 1] = t;
        }

    int n = cl->members, rc = DATUM_OK;
    uint32_t *member = alloc(g->ctx, (size_t)n, sizeof *member);
    uint32_t *partner = alloc(g->ctx, (size_t)n, sizeof *partner); /* pair id or UINT32_MAX */
    uint32_t *second = alloc(g->ctx, (size_t)n, sizeof *second), n_second = 0;
    uint32_t *fresh = alloc(g->ctx, (size_t)n, sizeof *fresh);
    if (!member || !partner || !second || !fresh) rc = DATUM_E_NOMEM;
    for (int i = 0; i < n && rc == DATUM_OK; i++) {
        rc = new_player(g, cl->mean, &r, &member[i]);
        partner[i] = UINT32_MAX;
    }
    for (int y = 0; y < years && rc == DATUM_OK; y++) {
        rng ry = stream(g->o.seed, TAG_CLUB_YEAR, c, (uint64_t)y);
        g->cy_offset[(size_t)c * years + y] = g->n_cy_pairs;
        /* Players leave (their partnerships end); new players come. */
        for (int i = 0; y > 0 && i < n && rc == DATUM_OK; i++)
            if (uniform(&ry) < LEAVE_RATE) {
                uint32_t p = partner[i];
                for (int k = 0; p != UINT32_MAX && k < n; k++)
                    if (partner[k] == p) partner[k] = UINT32_MAX;
                rc = new_player(g, cl->mean, &ry, &member[i]);
            }
        /* Partnerships end; the free players pair up. */
        for (int i = 0; y > 0 && i < n; i++) {
            uint32_t p = partner[i];
            if (p == UINT32_MAX || g->pairs[p].players[0] != member[i]) continue;
            if (uniform(&ry) >= PARTNERSHIP_KEEP)
                for (int k = 0; k < n; k++)
                    if (partner[k] == p) partner[k] = UINT32_MAX;
        }
        uint32_t n_fresh = 0;
        for (int i = 0; i < n; i++)
            if (partner[i] == UINT32_MAX) fresh[n_fresh++] = (uint32_t)i;
        shuffle(&ry, fresh, n_fresh);
        for (uint32_t k = 0; k + 1 < n_fresh && rc == DATUM_OK; k += 2) {
            uint32_t p = UINT32_MAX, a = fresh[k], b = fresh[k + 1];
            rc = new_pair(g, member[a], member[b], c, &ry, &p);
            partner[a] = partner[b] = p;
        }
        uint32_t n_primary = 0;
        for (int i = 0; i < n && rc == DATUM_OK; i++) {
            uint32_t p = partner[i];
            if (p != UINT32_MAX && g->pairs[p].players[0] == member[i]) {
                rc = add_active(g, p);
                n_primary++;
            }
        }
        /* Second partnerships: some last, new ones between two members. */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < n_second; k++) {
            const pair *p = &g->pairs[second[k]];
            int stay = 0;
            for (int i = 0; i < n; i++) stay += member[i] == p->players[0] || member[i] == p->players[1];
            if (stay == 2 && uniform(&ry) < SECOND_KEEP) second[kept++] = second[k];
        }
        n_second = kept;
        uint32_t want = (uint32_t)lround(SECOND_SHARE * n_primary);
        while (n_second < want && n_second < (uint32_t)n && rc == DATUM_OK) {
            uint32_t a = below(&ry, (uint32_t)n), b = below(&ry, (uint32_t)n);
            if (a == b || (partner[a] != UINT32_MAX && partner[a] == partner[b])) continue;
            rc = new_pair(g, member[a], member[b], c, &ry, &second[n_second++]);
        }
        for (uint32_t k = 0; k < n_second && rc == DATUM_OK; k++) rc = add_active(g, second[k]);
    }
    free(member);
    free(partner);
    free(second);
    free(fresh);
    return rc;
}

static const uint32_t *club_year(const plan *g, uint32_t c, int y, uint32_t *n)
{
    size_t k = (size_t)c * g->o.years + y;
    *n = (uint32_t)(g->cy_offset[k + 1] - g->cy_offset[k]);
    return g->cy_pairs + g->cy_offset[k];
}

/* ------------------------------------------------------------------------ */
/* Picking pairs whose players are free (one seat per player per event)     */

typedef struct {
    uint32_t *busy; /* per player: the stamp of the last pick that seated it */
    uint32_t stamp;
    uint32_t *pool, *picked, *seat;
    size_t pool_cap, picked_cap;
} scratch;

static int reserve(uint32_t **a, size_t *cap, size_t n)
{
    if (n <= *cap) return 0;
    uint32_t *p = realloc(*a, n * sizeof *p);
    if (!p) return -1;
    *a = p;
    *cap = n;
    return 0;
}

/* Up to `want` pairs of pool[0..n) (shuffled in place) with no player in
 * two of them, into s->picked; returns how many. */
static uint32_t pick_pairs(const plan *g, scratch *s, rng *r, uint32_t n, uint32_t want)
{
    uint32_t got = 0, stamp = ++s->stamp;
    for (uint32_t i = 0; i < n && got < want; i++) {
        uint32_t j = i + below(r, n - i), p = s->pool[j];
        s->pool[j] = s->pool[i];
        s->pool[i] = p;
        const uint32_t *pl = g->pairs[p].players;
        if (s->busy[pl[0]] == stamp || s->busy[pl[1]] == stamp) continue;
        s->busy[pl[0]] = s->busy[pl[1]] = stamp;
        s->picked[got++] = p;
    }
    return got;
}

/* The partnerships of the clubs lo..hi-1 active in year y, into s->pool. */
static int gather(const plan *g, scratch *s, uint32_t lo, uint32_t hi, int y, uint32_t *n)
{
    *n = 0;
    for (uint32_t c = lo; c < hi; c++) {
        uint32_t k;
        const uint32_t *a = club_year(g, c, y, &k);
        if (reserve(&s->pool, &s->pool_cap, *n + k) < 0) return -1;
        memcpy(s->pool + *n, a, k * sizeof *a);
        *n += k;
    }
    return reserve(&s->picked, &s->picked_cap, *n + 1) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Teams leagues                                                            */

/* The next division number of year y. */
static int number_in_year(const plan *g, int y)
{
    const division *last = g->n_divisions ? &g->divisions[g->n_divisions - 1] : NULL;
    return last && last->year == y ? last->number + 1 : 0;
}

/* A division of 4 or 6 teams of four partnerships from one region, no
 * player in two teams; fewer teams if the region is short of pairs. */
static int plan_division(plan *g, scratch *s, int y, int d)
{
    rng r = stream(g->o.seed, TAG_LEAGUE, (uint64_t)y, (uint64_t)d);
    int region = d % g->n_regions;
    uint32_t lo = 0, hi = 0, n = 0;
    while (hi < (uint32_t)g->o.clubs && g->clubs[hi].region <= region) {
        if (g->clubs[hi].region < region) lo = hi + 1;
        hi++;
    }
    if (gather(g, s, lo, hi, y, &n) < 0) return datum_ctx_fail(g->ctx, DATUM_E_NOMEM, "out of memory");
    int teams = uniform(&r) < 0.5 ? 4 : 6;
    uint32_t got = pick_pairs(g, s, &r, n, 4u * (uint32_t)teams);
    teams = (int)(got / 8) * 2; /* an even number of teams */
    if (teams < 4) return DATUM_OK;
    int rc = GROW(g, g->divisions, g->n_divisions, g->divisions_cap);
    if (rc != DATUM_OK) return rc;
    division *v = &g->divisions[g->n_divisions];
    *v = (division){y, number_in_year(g, y), region, teams, g->n_teams, g->n_matches, NULL};
    if (!(v->pairs = alloc(g->ctx, 4u * (uint32_t)teams, sizeof *v->pairs))) return DATUM_E_NOMEM;
    memcpy(v->pairs, s->picked, 4u * (uint32_t)teams * sizeof *v->pairs);
    g->n_divisions++;
    g->n_teams += (uint32_t)teams;
    g->n_matches += (uint32_t)(teams - 1) * (uint32_t)teams; /* double round robin, n/2 a round */
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Events, in archive order                                                 */

static int add_event(plan *g, event e, uint64_t max_tables)
{
    int rc = GROW(g, g->events, g->n_events, g->events_cap);
    if (rc != DATUM_OK) return rc;
    g->events[g->n_events++] = e;
    g->max_results += max_tables * (uint64_t)g->o.boards;
    return DATUM_OK;
}

static int congress_tables(uint32_t pool, double share)
{
    double t = share * pool / 2 + 1;
    return t > SECTIONS_MAX * SECTION_SPLIT ? SECTIONS_MAX * SECTION_SPLIT : (int)t;
}

static int plan_events(plan *g)
{
    const int years = g->o.years;
    int rc = DATUM_OK;
    for (uint32_t c = 0; c < (uint32_t)g->o.clubs && rc == DATUM_OK; c++)
        for (int y = 0; y < years && rc == DATUM_OK; y++) {
            rng r = stream(g->o.seed, TAG_SESSIONS, c, (uint64_t)y);
            uint32_t n;
            club_year(g, c, y, &n);
            for (int w = 0; w < 52 && rc == DATUM_OK; w++)
                for (int k = 0; k < g->clubs[c].n_days && rc == DATUM_OK; k++)
                    if (uniform(&r) >= HOLIDAY_RATE)
                        rc = add_event(g,
                                       (event){EV_CLUB, 0, (uint16_t)y, c, 0,
                                               g->jan1[y] + 7 * w + g->clubs[c].days[k]},
                                       n / 2);
        }
    for (uint32_t d = 0; d < g->n_divisions && rc == DATUM_OK; d++) {
        const division *v = &g->divisions[d];
        for (int round = 0; round < 2 * (v->n_teams - 1) && rc == DATUM_OK; round++)
            rc = add_event(g,
                           (event){EV_LEAGUE, 0, (uint16_t)v->year, d, (uint32_t)round,
                                   g->jan1[v->year] + 14 + 21 * round},
                           2u * (uint32_t)v->n_teams);
    }
    for (int y = 0; y < years && rc == DATUM_OK; y++)
        for (int session = 0; session < 2 && rc == DATUM_OK; session++)
            rc = add_event(g,
                           (event){EV_NATIONAL, (uint8_t)session, (uint16_t)y, 0, 0,
                                   g->jan1[y] + 130},
                           SECTIONS_MAX * SECTION_SPLIT);
    for (int region = 0; region < g->n_regions && rc == DATUM_OK; region++)
        for (int y = 0; y < years && rc == DATUM_OK; y++)
            for (int q = 0; q < REGIONALS_A_YEAR && rc == DATUM_OK; q++)
                for (int session = 0; session < 2 && rc == DATUM_OK; session++)
                    rc = add_event(g,
                                   (event){EV_REGIONAL, (uint8_t)session, (uint16_t)y,
                                           (uint32_t)region, (uint32_t)q,
                                           g->jan1[y] + 40 + 91 * q},
                                   SECTIONS_MAX * SECTION_SPLIT);
    return rc;
}

/* Names are built with every number reduced to its field's width (the
 * values are in range; the modulo shows the compiler that nothing is cut). */

/* YYYY-MM-DD of day `doy` (0-based) of year y. */
static void format_day(int y, int doy, char out[11])
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0, m = 0;
    while (doy >= days[m] + (m == 1 && leap)) doy -= days[m] + (m == 1 && leap), m++;
    snprintf(out, 11, "%04u-%02u-%02u", (unsigned)y % 10000u, (unsigned)(m + 1) % 100u,
             (unsigned)(doy + 1) % 100u);
}

enum { NAME_SIZE = 32 }; /* every generated name fits */

static void event_name(const plan *g, const event *e, char out[NAME_SIZE])
{
    char day[11];
    unsigned year = (unsigned)(g->o.first_year + e->year) % 10000u, session = e->session % 9u + 1;
    format_day((int)year, e->date - g->jan1[e->year], day);
    switch (e->kind) {
    case EV_CLUB: snprintf(out, NAME_SIZE, "Club %04u %s", (e->who + 1) % 10000u, day); break;
    case EV_LEAGUE:
        snprintf(out, NAME_SIZE, "League %04u D%03u R%02u", year,
                 (unsigned)(g->divisions[e->who].number + 1) % 1000u, (e->round + 1) % 100u);
        break;
    case EV_NATIONAL: snprintf(out, NAME_SIZE, "National %s S%u", day, session); break;
    default: snprintf(out, NAME_SIZE, "Regional R%03u %s S%u", (e->who + 1) % 1000u, day, session);
    }
}

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
    int score = datum_bridge_score(c->level, (datum_strain)c->strain, doubled, vulnerable, (int)tricks);
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

static int grow_to(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* Room for one more field of `rows` rows. */
static int block_room(block *b, size_t rows)
{
    if (b->n_fields + 2 > b->fields_cap) {
        size_t n = b->fields_cap ? 2 * b->fields_cap : 1024;
        if (grow_to((void **)&b->offset, n, sizeof *b->offset) < 0 ||
            grow_to((void **)&b->event, n, sizeof *b->event) < 0 ||
            grow_to((void **)&b->section, n, sizeof *b->section) < 0 ||
            grow_to((void **)&b->board, n, sizeof *b->board) < 0)
            return -1;
        b->fields_cap = n;
    }
    if (b->n_rows + rows > b->rows_cap) {
        size_t n = b->rows_cap ? 2 * b->rows_cap : 16384;
        while (n < b->n_rows + rows) n *= 2;
        int32_t **cols[] = {&b->table, &b->ns,      &b->ew,      &b->score,
                            &b->date,  &b->ns_team, &b->ew_team, &b->match};
        for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
            if (grow_to((void **)cols[k], n, sizeof **cols[k]) < 0) return -1;
        if (grow_to((void **)&b->adjusted, n, 1) < 0) return -1;
        b->rows_cap = n;
    }
    return 0;
}

static void block_free(block *b)
{
    void *all[] = {b->offset, b->event, b->section, b->board, b->table, b->ns,      b->ew,
                   b->score,  b->date,  b->ns_team, b->ew_team, b->match, b->adjusted};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) free(all[k]);
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
            if (block_room(b, (size_t)tables) < 0) return -1;
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
    return 0;
}

/* A club session: some of the club's partnerships of the year, about its
 * usual number of tables. */
static int gen_club(const plan *g, uint32_t e, scratch *s, block *b)
{
    const event *ev = &g->events[e];
    const club *cl = &g->clubs[ev->who];
    rng r = stream(g->o.seed, TAG_EVENT, e, 0);
    uint32_t n;
    if (gather(g, s, ev->who, ev->who + 1, ev->year, &n) < 0) return -1;
    long tables = lround(cl->attendance * n / 2 * (1 + SESSION_SD * normal(&r)));
    tables = tables < 2 ? 2 : tables > (long)n / 2 ? (long)n / 2 : tables;
    uint32_t got = pick_pairs(g, s, &r, n, 2 * (uint32_t)tables);
    return got >= 4 ? play_session(g, e, s->picked, (int)(got / 2), cl->howell, b) : 0;
}

/* A congress session: a share of the region's (or the nation's)
 * partnerships, the same in both sessions, seated anew in each. */
static int gen_congress(const plan *g, uint32_t e, scratch *s, block *b)
{
    const event *ev = &g->events[e];
    int national = ev->kind == EV_NATIONAL;
    uint32_t lo = 0, hi = (uint32_t)g->o.clubs, n;
    if (!national) {
        while (lo < hi && g->clubs[lo].region < (int)ev->who) lo++;
        for (hi = lo; hi < (uint32_t)g->o.clubs && g->clubs[hi].region == (int)ev->who;) hi++;
    }
    if (gather(g, s, lo, hi, ev->year, &n) < 0) return -1;
    rng r = stream(g->o.seed, TAG_CONGRESS, (uint64_t)ev->kind << 32 | ev->who,
                   (uint64_t)ev->year << 8 | ev->round);
    int tables = congress_tables(n, national ? NATIONAL_SHARE : REGIONAL_SHARE);
    uint32_t got = pick_pairs(g, s, &r, n, 2 * (uint32_t)tables) & ~1u;
    rng seating = stream(g->o.seed, TAG_EVENT, e, 0);
    shuffle(&seating, s->picked, got);
    return got >= 4 ? play_session(g, e, s->picked, (int)(got / 2), 0, b) : 0;
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
        if (block_room(b, 2 * (size_t)n) < 0) return -1;
        begin_field(b, e, 0, j);
        for (int k = 0; k < n / 2; k++) {
            int home, away, match = (int)(v->first_match + ev->round * (uint32_t)(n / 2) + (uint32_t)k);
            circle(n / 2, r, k, &home, &away);
            if (swap) {
                int t = home;
                home = away;
                away = t;
            }
            const uint32_t *hp = v->pairs + 4 * home, *ap = v->pairs + 4 * away;
            int32_t ht = (int32_t)(v->first_team + (uint32_t)home), at = (int32_t)(v->first_team + (uint32_t)away);
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

/* Events e0..e1-1 into b. */
static void gen_block(const plan *g, uint32_t e0, uint32_t e1, scratch *s, block *b)
{
    b->n_fields = b->n_rows = 0;
    b->failed = block_room(b, 0) < 0;
    if (!b->failed) b->offset[0] = 0;
    for (uint32_t e = e0; e < e1 && !b->failed; e++) {
        switch (g->events[e].kind) {
        case EV_CLUB: b->failed = gen_club(g, e, s, b) < 0; break;
        case EV_LEAGUE: b->failed = gen_league(g, e, b) < 0; break;
        default: b->failed = gen_congress(g, e, s, b) < 0;
        }
    }
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

static int check_options(datum_ctx *ctx, const datum_generate_options *o)
{
    if (o->clubs < 1 || o->clubs > 9999 || o->years < 1 || o->years > 50 ||
        o->sessions_per_week < 1 || o->sessions_per_week > 7 || o->boards < 2 || o->boards > 99 ||
        o->first_year < 1900 || o->first_year > 2100)
        return datum_ctx_fail(ctx, DATUM_E_ARG,
                              "generate: clubs 1..9999, years 1..50, sessions a week 1..7, boards "
                              "2..99, first year 1900..2100");
    return DATUM_OK;
}

int datum_generate_preset(datum_generate_options *o, const char *name)
{
    static const struct {
        const char *name;
        datum_generate_options o;
    } presets[] = {
        {"small", {1, 4, 1, 2, 24, 2024}},
        {"decade", {1, 200, 10, 3, 24, 2015}},
        {"national", {1, 1000, 10, 3, 24, 2015}},
    };
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (strcmp(name, presets[i].name) == 0) {
            *o = presets[i].o;
            return DATUM_OK;
        }
    return DATUM_E_ARG;
}

static void plan_free(plan *g)
{
    for (uint32_t d = 0; d < g->n_divisions; d++) free(g->divisions[d].pairs);
    free(g->divisions);
    free(g->clubs);
    free(g->pairs);
    free(g->skill);
    free(g->cy_offset);
    free(g->cy_pairs);
    free(g->events);
    free(g->jan1);
}

static int scratch_init(const plan *g, scratch *s)
{
    memset(s, 0, sizeof *s);
    s->busy = calloc(g->n_players ? g->n_players : 1, sizeof *s->busy);
    return s->busy ? 0 : -1;
}

static void scratch_free(scratch *s)
{
    free(s->busy);
    free(s->pool);
    free(s->picked);
}

static int build_plan(plan *g)
{
    const int years = g->o.years;
    int rc = DATUM_OK;
    g->n_regions = (g->o.clubs + REGION_CLUBS - 1) / REGION_CLUBS;
    g->clubs = alloc(g->ctx, (size_t)g->o.clubs, sizeof *g->clubs);
    g->cy_offset = alloc(g->ctx, (size_t)g->o.clubs * years + 1, sizeof *g->cy_offset);
    g->jan1 = alloc(g->ctx, (size_t)years + 1, sizeof *g->jan1);
    if (!g->clubs || !g->cy_offset || !g->jan1) return DATUM_E_NOMEM;
    int32_t day = 0; /* 1970-01-01 */
    for (int y = 1970; y < g->o.first_year + years; y++) {
        if (y >= g->o.first_year) g->jan1[y - g->o.first_year] = day;
        day += 365 + ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
    }
    for (int y = 1969; y >= g->o.first_year; y--) { /* years before 1970 */
        day = (y == 1969 ? 0 : g->jan1[y + 1 - g->o.first_year]) -
              (365 + ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
        g->jan1[y - g->o.first_year] = day;
    }
    g->jan1[years] = g->jan1[years - 1] + 365 +
                     (((g->o.first_year + years - 1) % 4 == 0 && (g->o.first_year + years - 1) % 100 != 0) ||
                      (g->o.first_year + years - 1) % 400 == 0);
    for (uint32_t c = 0; c < (uint32_t)g->o.clubs && rc == DATUM_OK; c++) rc = plan_club(g, c);
    if (rc != DATUM_OK) return rc;
    g->cy_offset[(size_t)g->o.clubs * years] = g->n_cy_pairs;
    scratch s;
    if (scratch_init(g, &s) < 0) return datum_ctx_fail(g->ctx, DATUM_E_NOMEM, "out of memory");
    int per_year = (g->o.clubs + CLUBS_PER_DIVISION / 2) / CLUBS_PER_DIVISION;
    for (int y = 0; y < years && rc == DATUM_OK; y++)
        for (int d = 0; d < (per_year > 0 ? per_year : 1) && rc == DATUM_OK; d++)
            rc = plan_division(g, &s, y, d);
    scratch_free(&s);
    return rc == DATUM_OK ? plan_events(g) : rc;
}

/* Writes the dictionaries, the truth and its attributes. */
static int write_header(plan *g, datum_archive_writer *w)
{
    uint32_t n = g->n_events;
    if (g->n_pairs > n) n = g->n_pairs;
    if (g->n_teams > n) n = g->n_teams;
    if (g->n_matches > n) n = g->n_matches;
    char *bytes = alloc(g->ctx, (size_t)n, NAME_SIZE);
    const char **names = alloc(g->ctx, (size_t)n, sizeof *names);
    double *truth = alloc(g->ctx, g->n_pairs, sizeof *truth);
    int rc = bytes && names && truth ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t i = 0; i < n && rc == DATUM_OK; i++) names[i] = bytes + (size_t)i * NAME_SIZE;
    static const char *const sections[SECTIONS_MAX + 1] = {"", "A", "B", "C", "D", "E", "F", "G", "H",
                                                           "I", "J", "K", "L", "M", "N", "O", "P"};
    if (rc == DATUM_OK) {
        for (uint32_t e = 0; e < g->n_events; e++) event_name(g, &g->events[e], bytes + (size_t)e * NAME_SIZE);
        rc = datum_archive_writer_dict(w, DATUM_DICT_EVENTS, names, g->n_events);
    }
    if (rc == DATUM_OK) rc = datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, sections, SECTIONS_MAX + 1);
    if (rc == DATUM_OK) {
        for (uint32_t p = 0; p < g->n_pairs; p++) snprintf(bytes + (size_t)p * NAME_SIZE, NAME_SIZE, "P%07u", p + 1);
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
    char value[7][32];
    const char *keys[] = {"generator", "seed", "clubs", "years", "sessions_per_week", "boards",
                          "first_year", "tricks_per_strength"};
    snprintf(value[0], 32, "%llu", (unsigned long long)g->o.seed);
    snprintf(value[1], 32, "%d", g->o.clubs);
    snprintf(value[2], 32, "%d", g->o.years);
    snprintf(value[3], 32, "%d", g->o.sessions_per_week);
    snprintf(value[4], 32, "%d", g->o.boards);
    snprintf(value[5], 32, "%d", g->o.first_year);
    snprintf(value[6], 32, "%g", TRICKS_PER_STRENGTH);
    for (int k = 0; k < 8 && rc == DATUM_OK; k++)
        rc = datum_archive_writer_truth_attr(w, keys[k], k == 0 ? "datum generate" : value[k - 1]);
    free(bytes);
    free(names);
    free(truth);
    return rc;
}

/* Event boundaries of the blocks: whole events of at most about BLOCK_ROWS
 * rows (by the plan's bound), from the plan alone. */
enum { BLOCK_ROWS = 1 << 17 };

static uint32_t *make_blocks(plan *g, uint32_t *n_blocks)
{
    uint32_t *start = alloc(g->ctx, (size_t)g->n_events + 1, sizeof *start), n = 0;
    uint64_t rows = 0;
    if (!start) return NULL;
    for (uint32_t e = 0; e < g->n_events; e++) {
        uint64_t est = (uint64_t)g->o.boards * SECTIONS_MAX * SECTION_SPLIT; /* a congress */
        if (g->events[e].kind == EV_CLUB) {
            uint32_t k;
            club_year(g, g->events[e].who, g->events[e].year, &k);
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
    int threads = datum_ctx_threads(g->ctx), window = 4 * threads, rc = DATUM_OK, write_rc = DATUM_OK;
    uint32_t n_blocks = 0, *start = make_blocks(g, &n_blocks);
    block *buf = alloc(g->ctx, 2 * (size_t)window, sizeof *buf);
    scratch *s = alloc(g->ctx, (size_t)threads, sizeof *s);
    if (!start || !buf || !s) rc = DATUM_E_NOMEM;
    for (int t = 0; t < threads && rc == DATUM_OK; t++)
        if (scratch_init(g, &s[t]) < 0) rc = datum_ctx_fail(g->ctx, DATUM_E_NOMEM, "out of memory");
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
#pragma omp single nowait
            for (uint32_t i = p0; k > 0 && i < p0 + (uint32_t)window && i < n_blocks; i++) {
                datum_chunk c = block_chunk(&prev[i - p0]);
                if (write_rc == DATUM_OK && c.n_fields) write_rc = datum_archive_writer_append(w, &c);
                sum->results += c.n_rows;
                sum->fields += c.n_fields;
            }
            scratch *mine = &s[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1) nowait
            for (uint32_t i = b0; i < b1; i++) gen_block(g, start[i], start[i + 1], mine, &cur[i - b0]);
        }
        for (uint32_t i = b0; i < b1 && rc == DATUM_OK; i++)
            if (cur[i - b0].failed) rc = datum_ctx_fail(g->ctx, DATUM_E_NOMEM, "out of memory (generating)");
        if (write_rc != DATUM_OK) rc = write_rc;
        datum_ctx_progress(g->ctx, start[b0], g->n_events);
    }
    for (int i = 0; buf && i < 2 * window; i++) block_free(&buf[i]);
    for (int t = 0; s && t < threads; t++) scratch_free(&s[t]);
    free(buf);
    free(s);
    free(start);
    return rc;
}

int datum_generate(datum_ctx *ctx, const datum_generate_options *o, const char *path,
                   const datum_write_options *wo, datum_generate_summary *summary)
{
    plan g = {.ctx = ctx, .o = *o};
    datum_generate_summary sum = {0};
    datum_archive_writer *w = NULL;
    int rc = check_options(ctx, o);
    if (rc == DATUM_OK) rc = build_plan(&g);
    if (rc == DATUM_OK) {
        datum_archive_plan p = DATUM_ARCHIVE_PLAN_INIT;
        p.has_adjusted = 1;
        p.has_teams = g.n_teams > 0;
        p.max_results = p.max_fields = g.max_results;
        p.max_board = o->boards;
        p.max_table = SECTION_MAX;
        p.min_score = -7600; /* 13 down, redoubled, vulnerable */
        p.max_score = 3160; /* 1NT redoubled, 6 over, vulnerable */
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
    plan_free(&g);
    return rc;
}
