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
} datum_generate_options;

/* Fills *o with a preset: "small" (about 100 thousand results), "decade"
 * (200 clubs over 10 years, about 80 million), "national" (1000 clubs over
 * 10 years, about 400 million); seed 1. Returns DATUM_OK or DATUM_E_ARG. */
int datum_generate_preset(datum_generate_options *o, const char *name);

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
