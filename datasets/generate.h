/*
 * generate.h - synthetic federations (`datum generate`): years of duplicate
 * bridge results with known pair strengths, written straight into an
 * archive, and the duplicate scoring table they are scored with.
 *
 * The model (clubs, partnerships, movements, congresses, teams leagues,
 * contracts and tricks) is described in docs/cli.md, "datum generate".
 * Conventions as in engine/datum.h: 0 ok, negative DATUM_E_* recorded in
 * the context.
 */
#ifndef DATUM_GENERATE_H
#define DATUM_GENERATE_H

#include "datum.h"
#include "datum_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Duplicate bridge scoring (datum_bridge_score, datum_board_vulnerability,
 * datum_strain) lives in the engine: engine/datum.h. */

/* ------------------------------------------------------------------------ */
/* Generating an archive                                                    */

typedef struct {
    uint64_t seed;
    int clubs;             /* 1..9999 */
    int years;             /* 1..50 */
    int sessions_per_week; /* club sessions a week, 1..7 */
    int boards;            /* boards of a session or a league match, 2..99 */
    int first_year;        /* calendar year of the first season, 1900..2100 */
    /* Mixing (set together by datum_generate_mixing; docs/cli.md). */
    double multi_club;       /* share of partnerships that are also members of 1 or 2
                                other clubs of their region (as many of each), 0..1 */
    double visitors_region;  /* share of a club session's pairs from the region's other
                                clubs, 0..0.9 */
    double visitors_nation;  /* share from clubs of the other regions (of the region
                                when it is the only one), 0..0.9; the two visitor
                                shares add up to at most 0.9 */
    int regionals;           /* regional congress weekends a year in each region, 0..52 */
    double regional_share;   /* share of the region's partnerships at a regional, 0..1 */
    int nationals;           /* national congress weekends a year, 0..12 */
    double national_share;   /* share of all partnerships at a national, 0..1 */
    /* Attendance and turnover. */
    double attendance;       /* mean share of a club's partnerships at one of its
                                sessions (each club within +-32% of it), 0.01..1 */
    double leave_rate;       /* players leaving their club in a year, 0..1 */
    double partnership_keep; /* a partnership lasting another year, 0..1 */
} datum_generate_options;

/* Fills every field of *o with a preset: "small" (4 clubs over 1 year,
 * about 100 thousand results; mixing "low"), "decade" (200 clubs over 10
 * years, about 80 million; mixing "medium"), "national" (1000 clubs over 10
 * years, about 400 million; mixing "medium"); seed 1, attendance 0.44, leave
 * rate 0.06, partnership keep 0.9. Returns DATUM_OK or DATUM_E_ARG (an
 * unknown name; *o untouched). */
int datum_generate_preset(datum_generate_options *o, const char *name);

/* Sets the mixing fields of *o (multi_club to national_share) to a named
 * level, leaving the others: "low" (every partnership in one club, no
 * visitors, 4 regionals and 1 national a year: the generator before issue
 * 12), "medium", "high" (docs/cli.md gives the values and why). Returns
 * DATUM_OK or DATUM_E_ARG (an unknown name; *o untouched). */
int datum_generate_mixing(datum_generate_options *o, const char *level);

/* What was generated. */
typedef struct {
    uint64_t results, fields;
    uint32_t events, pairs, players, teams, matches;
} datum_generate_summary;

/* Generates a federation as *o says and writes it to a new archive at path
 * (atomically; wo NULL: the default compression), with /truth/pair_strength
 * and the options as attributes of /truth. Deterministic: the same options
 * give the same archive contents for any thread count (datum_ctx_threads;
 * blocks of events are generated in parallel and written in order). Memory:
 * the population and the event list, a few blocks of results and the
 * writer's chunk buffers, not the archive. Progress: events done out of all.
 * summary may be NULL. */
int datum_generate(datum_ctx *ctx, const datum_generate_options *o, const char *path,
                   const datum_write_options *wo, datum_generate_summary *summary);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_GENERATE_H */
