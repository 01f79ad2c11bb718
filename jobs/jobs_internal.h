/* jobs_internal.h - what the files of jobs/ share: the teams match table of
 * teams.c, driven by pass.c. */
#ifndef DATUM_JOBS_INTERNAL_H
#define DATUM_JOBS_INTERNAL_H

#include "datum_jobs.h"

typedef struct match_table match_table;

/* A table for the n_matches matches of archive a; its totals go to the CSV
 * `totals` (may be NULL) and to on_block (may be NULL) per (event, section).
 * DATUM_OK or DATUM_E_NOMEM (*out NULL). */
int match_table_create(datum_ctx *ctx, const datum_archive *a, uint32_t n_matches,
                       datum_csv_writer *totals, datum_teams_block_fn on_block, void *user,
                       match_table **out);
/* One chunk (read with the teams columns), agg and imps from
 * datum_match_fields: each field's match boards into the totals and to the
 * CSV `matches` (may be NULL); a finished (event, section) is flushed.
 * Returns DATUM_OK or on_block's error. */
int match_table_add(match_table *t, const datum_chunk *c, const double *agg, const double *imps,
                    datum_csv_writer *matches);
/* Flushes the last (event, section). Returns DATUM_OK or on_block's error. */
int match_table_finish(match_table *t);
void match_table_free(match_table **t); /* accepts NULL and *t == NULL */

/* The header row of the teams CSVs. */
void match_table_matches_header(datum_csv_writer *w);
void match_table_totals_header(datum_csv_writer *w);

#endif
