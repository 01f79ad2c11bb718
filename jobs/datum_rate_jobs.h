/*
 * datum_rate_jobs.h - the ratings' jobs (jobs/rate.c). The one read of an
 * archive for the ratings: every chunk of a range of fields, merged across sections or not,
 * added to a rating problem, a rating history or an out-of-sample
 * prediction. `datum rate` (one rating, --every, --evaluate) and datum-mpi
 * read through it. Also the history job that follows such a read
 * (`datum rate --every`): each date solved and written.
 *
 * Conventions are datum.h's: DATUM_OK or a negative DATUM_E_* recorded in the
 * context with a message; progress through datum_ctx_progress (rows read of
 * the archive's results).
 */
#ifndef DATUM_RATE_JOBS_H
#define DATUM_RATE_JOBS_H

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

/* What one as-of date of a rating history did, for a report. */
typedef struct {
    int32_t as_of;          /* days since 1970-01-01 */
    int status;             /* DATUM_OK, DATUM_W_EMPTY or DATUM_W_INACCURATE */
    datum_rate_stats stats; /* the solve's */
    double seconds;         /* the solve's wall time */
} datum_rate_history_date;

/* Where a rating history goes; every string borrowed for the call. */
typedef struct {
    /* The long table pair,as_of,boards,rating (pair names, dates
     * YYYY-MM-DD), one row per pair rated as of each date; "-": standard
     * output; NULL: none. */
    const char *csv;
    /* The same table as the HDF5 group "history" (pair: index into
     * /dict/pairs, as_of: days since 1970-01-01); NULL: none. Its root
     * attributes: command and n_attrs key/value pairs (datum_output_create). */
    const char *h5;
    const char *command;
    const char *const *attr_keys;
    const char *const *attr_values;
    size_t n_attrs;
} datum_rate_history_outputs;

/* The history job (`datum rate --every`): solves history h (its chunks
 * added, datum_rate_read) at each of its n_dates as-of dates in order
 * (datum_rate_history_solve with opt), writes each date's rated pairs to
 * out->csv as they come and to out->h5's temporary file once all are
 * solved; then the CSV is committed, then the HDF5 file. Takes: a (the archive h was read from: its pair names),
 * h, dates (h's dates, datum_rate_history_dates), opt and out borrowed;
 * h is consumed (only freeing remains). per_date (n_dates elements, the
 * caller's) receives each solved date's figures, *n_solved how many were
 * solved (also on failure), *write_seconds the time spent writing.
 * Returns DATUM_OK once every date is solved and every output committed
 * (dates with a warning status included: see per_date); on failure the
 * error of the solve (DATUM_E_ARG, DATUM_E_NOMEM, DATUM_E_NUMERIC), of the
 * CSV (DATUM_E_IO "cannot write PATH: ...", DATUM_E_NOMEM) or of the HDF5
 * output (datum_output_*), DATUM_E_NOMEM "out of memory" keeping the HDF5
 * table, DATUM_E_ARG for a NULL argument; then neither output is left on
 * disk, unless the HDF5 file's commit (its last buffered chunks, the
 * rename) failed after the CSV's. */
int datum_rate_history_run(datum_ctx *ctx, const datum_archive *a, datum_rate_history *h,
                           const int32_t *dates, size_t n_dates, const datum_rate_options *opt,
                           const datum_rate_history_outputs *out,
                           datum_rate_history_date *per_date, size_t *n_solved,
                           double *write_seconds);

#ifdef __cplusplus
}
#endif

#endif
