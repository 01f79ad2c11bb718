/*
 * datum_rate_read.h - the one read of an archive for the ratings (jobs/
 * rate.c): every chunk of a range of fields, merged across sections or not,
 * added to a rating problem, a rating history or an out-of-sample
 * prediction. `datum rate` (one rating, --every, --evaluate) and datum-mpi
 * read through it.
 *
 * Conventions are datum.h's: DATUM_OK or a negative DATUM_E_* recorded in the
 * context with a message; progress through datum_ctx_progress (rows read of
 * the archive's results).
 */
#ifndef DATUM_RATE_READ_H
#define DATUM_RATE_READ_H

#include "datum.h"
#include "datum_io.h"
#include "datum_jobs.h"
#include "datum_rate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the chunks go to: exactly one of problem, history and predict. */
typedef struct {
    const datum_method *method;    /* Butler's datum and scale (borrowed) */
    datum_rate_problem *problem;   /* datum_rate_problem_add */
    datum_rate_history *history;   /* datum_rate_history_add */
    /* datum_rate_predict of rating and of raw (the raw Butler average)
     * against the boards of predict_window, into with_rating and with_raw. */
    const datum_rate_window *predict_window;
    uint32_t n_pairs;
    const double *rating, *raw;
    datum_rate_prediction *with_rating, *with_raw;
    /* 1: the rows' dates are not read, each row taking its field's (the
     * latest of its rows): the same rows kept when the window holds every
     * date, one column less to decode. Only the kept fields' dates can then
     * differ (the summary's first and last dates, the time decay), where a
     * field's rows span several days. */
    int field_dates_only;
} datum_rate_sink;

/* Reads fields first_field .. end_field - 1 of archive a (all of them:
 * 0 .. n_fields; datum-mpi: a process's slice) in chunks of whole fields, or
 * of whole events merged across sections when across is not NULL (a merger
 * of a, datum_across_create), and adds every chunk to the sink in archive
 * order. Takes: a, across and every object of the sink borrowed, used only
 * during the call. Returns DATUM_OK once every chunk is added; on failure
 * the error of the reader (DATUM_E_INPUT: a damaged archive, naming it),
 * of the merger (a pair twice in a merged field) or of the sink
 * (DATUM_E_ARG, DATUM_E_NOMEM), and the sink holds the chunks before the
 * failing one: free it, do not solve it. DATUM_E_ARG also when the range is
 * outside the archive or the sink names no target or several. */
int datum_rate_read(datum_ctx *ctx, datum_archive *a, datum_across *across, uint64_t first_field,
                    uint64_t end_field, const datum_rate_sink *sink);

#ifdef __cplusplus
}
#endif

#endif
