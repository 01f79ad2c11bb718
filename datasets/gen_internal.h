/*
 * gen_internal.h - what the two halves of the generator share (not public):
 * the model's constants, the counter-based random streams, the plan (the
 * population, the leagues and the events) and the helpers that seat pairs.
 * population.c makes the plan; generate.c plays the events and writes them.
 */
#ifndef DATUM_GEN_INTERNAL_H
#define DATUM_GEN_INTERNAL_H

#include "datum_alloc.h"
#include "generate.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* The model's constants                                                    */

#define MEMBERS_MEDIAN      79.0 /* club members: lognormal */
#define MEMBERS_SIGMA       0.5
#define MEMBERS_MIN         24 /* enough for 3 tables whatever the partnerships */
#define MEMBERS_MAX         600
#define CLUB_MEAN_SD        0.5  /* a club's mean strength */
#define PLAYER_SD           1.0  /* a player around the club's mean */
#define CHEMISTRY_SD        0.35 /* a partnership around the mean of its players */
#define ATTENDANCE_SPREAD   0.318 /* a club's attendance: the option's, +-31.8% (uniform) */
#define SECOND_SHARE        0.15 /* extra partnerships of players who have one */
#define SECOND_KEEP         0.70
#define HOLIDAY_RATE        0.07 /* club sessions not held */
#define SESSION_SD          0.15 /* tables of a session around the club's usual */
#define SECTION_MAX         14   /* tables; larger sessions are split */
#define SECTION_SPLIT       13   /* ... into sections of about this many */
#define SECTIONS_MAX        16
#define HOWELL_MAX          10 /* tables of the largest Howell */
#define REGION_CLUBS        10
#define VISIT_TRIES         8 /* draws for a visitor whose players are free */
#define CLUBS_PER_DIVISION  10  /* teams leagues: a division for so many clubs */
#define TRICKS_PER_STRENGTH 0.5 /* tricks for one unit of strength difference */
#define TRICK_SD            0.9
#define ADJUSTED_RATE       3e-4

/* ------------------------------------------------------------------------ */
/* Counter-based random numbers: the n-th number of stream (seed, tag, a, b)
 * is a hash of them and n (SplitMix64), so that anything can be generated
 * in any order, on any thread.                                              */

typedef struct {
    uint64_t key, n;
} rng;

enum {
    TAG_CLUB = 1,
    TAG_CLUB_YEAR,
    TAG_SESSIONS,
    TAG_LEAGUE,
    TAG_CONGRESS,
    TAG_EVENT,
    TAG_DEAL,
    TAG_TABLES,
    TAG_MULTI
};

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline rng stream(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    rng r = {mix64(seed ^ mix64(tag ^ mix64(a ^ mix64(b + 0x9E3779B97F4A7C15ull)))), 0};
    return r;
}

static inline uint64_t next64(rng *r) { return mix64(r->key + ++r->n * 0x9E3779B97F4A7C15ull); }

static inline double uniform(rng *r) { return (double)(next64(r) >> 11) * 0x1p-53; }

/* Uniform in 0..n-1. */
static inline uint32_t below(rng *r, uint32_t n)
{
    return (uint32_t)(((next64(r) >> 32) * n) >> 32);
}

static inline double normal(rng *r)
{
    double u = 1.0 - uniform(r), v = uniform(r); /* u in (0, 1] */
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* ------------------------------------------------------------------------ */
/* The plan (population.c)                                                  */

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

/* Partnerships of each club and year: pairs[offset[c * years + y] ..
 * offset[c * years + y + 1]). */
typedef struct {
    uint64_t *offset;
    uint32_t *pairs;
    uint32_t n;
    size_t cap;
} club_lists;

typedef struct {
    datum_ctx *ctx;
    datum_generate_options o;
    int n_regions;
    club *clubs;
    pair *pairs;
    uint32_t n_pairs;
    size_t pairs_cap;
    double *skill; /* per player */
    uint32_t n_players;
    size_t players_cap;
    club_lists home;    /* the active partnerships whose home is the club */
    club_lists members; /* the club's own, then those of other clubs also members */
    division *divisions;
    uint32_t n_divisions, n_teams, n_matches;
    size_t divisions_cap;
    event *events;
    uint32_t n_events;
    size_t events_cap;
    int32_t *jan1; /* per year */
    uint64_t max_results;
} plan;

/* ------------------------------------------------------------------------ */
/* Picking pairs whose players are free (one seat per player per event)     */

typedef struct {
    uint32_t *busy; /* per player: the stamp of the last pick that seated it */
    uint32_t stamp;
    uint32_t *pool, *picked, *seat;
    size_t pool_cap, picked_cap;
} scratch;

enum { NAME_SIZE = 32 }; /* every generated name fits */

/* Fisher-Yates shuffle of a[0..n) from stream r. */
void gen_shuffle(rng *r, uint32_t *a, uint32_t n);

/* Builds the whole plan from g->o (g->ctx set): clubs, players and
 * partnerships year by year, the leagues, the events in archive order. */
int gen_plan_build(plan *g);
void gen_plan_free(plan *g);

/* The partnerships of club c (home club) active in year y: *n of them. */
const uint32_t *gen_club_year(const plan *g, uint32_t c, int y, uint32_t *n);
/* The clubs of a region: lo..hi-1. */
void gen_region_clubs(const plan *g, int region, uint32_t *lo, uint32_t *hi);
/* The event's name: its dictionary entry (names sort in event order). */
void gen_event_name(const plan *g, const event *e, char out[NAME_SIZE]);
/* Tables of a congress for a pool of `pool` partnerships. */
int gen_congress_tables(uint32_t pool, double share);

/* Per-thread scratch: player stamps for the plan's players. DATUM_OK or
 * DATUM_E_NOMEM (recorded in g->ctx, also from a parallel region). */
int gen_scratch_init(const plan *g, scratch *s);
void gen_scratch_free(scratch *s);
/* The partnerships of lists l (g->home or g->members) of clubs lo..hi-1 in
 * year y into s->pool (*n of them), room for *n + 1 in s->picked. DATUM_OK
 * or DATUM_E_NOMEM (recorded in g->ctx). */
int gen_gather(const plan *g, const club_lists *l, scratch *s, uint32_t lo, uint32_t hi, int y,
               uint32_t *n);
/* Up to `want` pairs of s->pool[0..n) (shuffled in place) with no player in
 * two of them, into s->picked; returns how many. */
uint32_t gen_pick_pairs(const plan *g, scratch *s, rng *r, uint32_t n, uint32_t want);
/* A visitor after gen_pick_pairs: a partnership active in year y of a random
 * club of lo..hi-1 other than skip_lo..skip_hi-1 (inside lo..hi), whose
 * players are free, appended to s->picked[*got] (room for it is the
 * caller's); up to VISIT_TRIES draws. Returns 1 if one was seated, else 0. */
int gen_pick_visitor(const plan *g, scratch *s, rng *r, uint32_t lo, uint32_t hi, uint32_t skip_lo,
                     uint32_t skip_hi, int y, uint32_t *got);

#endif
