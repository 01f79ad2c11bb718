/*
 * rate.c - the ratings' read of an archive (datum_rate_jobs.h): the chunk
 * reader, the merger across sections, and the sink each chunk goes to; and
 * the rating history's job, each as-of date solved and written.
 */
#include "datum_rate_jobs.h"
#include "datum_alloc.h"
#include "datum_text.h"

#include <omp.h>
#include <stdlib.h>

/* The rating's columns: the pairs, the score, whether it was adjusted and
 * its date (the window and the time decay). */
#define RATE_COLUMNS                                                                               \
    (DATUM_COL_NS_PAIR | DATUM_COL_EW_PAIR | DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED |             \
     DATUM_COL_DATE)

static int add_to_sink(datum_ctx *ctx, const datum_rate_sink *s, const datum_rate_chunk *c)
{
    if (s->problem) return datum_rate_problem_add(ctx, s->problem, s->method, c);
    if (s->history) return datum_rate_history_add(ctx, s->history, s->method, c);
    int rc = datum_rate_predict(ctx, s->predict_window, s->method, c, s->n_pairs, s->rating,
                                s->with_rating);
    if (rc >= 0)
        rc = datum_rate_predict(ctx, s->predict_window, s->method, c, s->n_pairs, s->raw,
                                s->with_raw);
    return rc;
}

int datum_rate_read(datum_ctx *ctx, datum_archive *a, datum_across *across, uint64_t first_field,
                    uint64_t end_field, const datum_rate_sink *sink)
{
    int targets = (sink->problem != NULL) + (sink->history != NULL) + (sink->predict_window != NULL);
    if (targets != 1 || !sink->method)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_rate_read: %s",
                              targets != 1 ? "one target, a problem, a history or a prediction"
                                           : "no method");
    unsigned columns = sink->field_dates_only ? RATE_COLUMNS & ~DATUM_COL_DATE : RATE_COLUMNS;
    datum_chunk_reader *reader;
    int rc = datum_chunk_reader_create(ctx, a, columns, (size_t)1 << 20, &reader);
    if (rc < 0) return rc;
    datum_chunk_reader_set_whole_events(reader, across != NULL);
    rc = datum_chunk_reader_set_range(reader, first_field, end_field);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    while (rc >= 0) {
        datum_chunk read, c;
        if ((rc = datum_chunk_reader_next(reader, &read)) < 0 || read.n_fields == 0) break;
        c = read;
        if (across && (rc = datum_across_merge(across, &read, columns, &c)) < 0) break;
        datum_rate_chunk chunk = {c.n_fields, c.offset,  c.field_date, c.date,
                                  c.ns_pair,  c.ew_pair, c.ns_score,   c.adjusted};
        if ((rc = add_to_sink(ctx, sink, &chunk)) < 0) break;
        datum_ctx_progress(ctx, read.first_row + read.n_rows, info.n_results);
    }
    datum_chunk_reader_free(&reader);
    return rc < 0 ? rc : DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* The history job                                                          */

/* The long table pair,as_of,boards,rating, kept for the HDF5 output. */
typedef struct {
    size_t n, cap;
    int64_t *pair, *as_of;
    double *boards, *rating;
} history_rows;

static int history_keep(datum_ctx *ctx, history_rows *t, int32_t as_of, const datum_rate_result *r)
{
    void *const arrays[] = {&t->pair, &t->as_of, &t->boards, &t->rating};
    const size_t sizes[] = {sizeof *t->pair, sizeof *t->as_of, sizeof *t->boards, sizeof *t->rating};
    for (uint32_t p = 0; p < r->n_pairs; p++) {
        if (r->component[p] < 0) continue;
        if (t->n == t->cap && datum_reserve_all(ctx, &t->cap, t->n + 1, 4, arrays, sizes) != DATUM_OK)
            return DATUM_E_NOMEM;
        t->pair[t->n] = p;
        t->as_of[t->n] = as_of;
        t->boards[t->n] = r->boards[p];
        t->rating[t->n] = r->rating[p];
        t->n++;
    }
    return DATUM_OK;
}

static void history_csv_rows(datum_csv_writer *w, const datum_archive *a, int32_t as_of,
                             const datum_rate_result *r)
{
    char day[DATUM_DATE_SIZE];
    datum_format_date(as_of, day);
    for (uint32_t p = 0; p < r->n_pairs; p++) {
        if (r->component[p] < 0) continue; /* no kept board as of this date */
        datum_csv_str(w, datum_archive_pair(a, p));
        datum_csv_str(w, day);
        datum_csv_real(w, r->boards[p]);
        datum_csv_real(w, r->rating[p]);
        datum_csv_end_row(w);
    }
}

/* The HDF5 history written into its temporary file, *op (committed by the
 * caller once the CSV is, so that a failure leaves neither). */
static int history_h5(datum_ctx *ctx, const datum_rate_history_outputs *out,
                      const datum_archive *a, const history_rows *t, datum_output **op)
{
    datum_output *o;
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    int rc = datum_output_create(ctx, out->h5, a, out->command, out->attr_keys, out->attr_values,
                                 out->n_attrs, &wo, &o);
    if (rc < 0) return rc;
    *op = o;
    struct {
        const char *name, *description;
        const void *values;
        int integer;
    } cols[] = {
        {"pair", "the pair, index into /dict/pairs", t->pair, 1},
        {"as_of", "the as-of date, days since 1970-01-01", t->as_of, 1},
        {"boards", "board weight sum n_j as of that date", t->boards, 0},
        {"rating", "compensated Butler rating as of that date, IMPs per board", t->rating, 0},
    };
    for (size_t k = 0; rc >= 0 && k < sizeof cols / sizeof *cols; k++) {
        int col = cols[k].integer
                      ? datum_output_add_int_column(o, "history", cols[k].name, t->n, cols[k].description)
                      : datum_output_add_column(o, "history", cols[k].name, t->n, cols[k].description);
        rc = col < 0 ? col : datum_output_write(o, col, 0, t->n, cols[k].values);
    }
    return rc;
}

int datum_rate_history_run(datum_ctx *ctx, const datum_archive *a, datum_rate_history *h,
                           const int32_t *dates, size_t n_dates, const datum_rate_options *opt,
                           const datum_rate_history_outputs *out,
                           datum_rate_history_date *per_date, size_t *n_solved,
                           double *write_seconds)
{
    if (n_solved) *n_solved = 0;
    if (write_seconds) *write_seconds = 0;
    if (!a || !h || (n_dates && !dates) || !opt || !out || (n_dates && !per_date) || !n_solved ||
        !write_seconds)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_rate_history_run: NULL argument");
    datum_csv_writer *csv = NULL;
    datum_output *h5 = NULL;
    datum_rate_result *r = NULL;
    history_rows rows = {0};
    int rc = DATUM_OK;
    if (out->csv) {
        const char *header[] = {"pair", "as_of", "boards", "rating"};
        if ((rc = datum_csv_create(ctx, out->csv, &csv)) < 0) goto done;
        for (int i = 0; i < 4; i++) datum_csv_str(csv, header[i]);
        datum_csv_end_row(csv);
    }
    for (size_t k = 0; k < n_dates; k++) {
        double t = omp_get_wtime();
        int status = datum_rate_history_solve(ctx, h, k, opt, &r);
        if ((rc = status) < 0) goto done;
        per_date[k] = (datum_rate_history_date){dates[k], status, r->stats, omp_get_wtime() - t};
        *n_solved = k + 1;
        t = omp_get_wtime();
        if (csv) history_csv_rows(csv, a, dates[k], r);
        if (out->h5 && (rc = history_keep(ctx, &rows, dates[k], r)) < 0) goto done;
        *write_seconds += omp_get_wtime() - t;
        datum_rate_result_free(&r);
    }
    double t = omp_get_wtime();
    if (out->h5 && (rc = history_h5(ctx, out, a, &rows, &h5)) < 0) goto done;
    if (csv && (rc = datum_csv_commit(&csv)) < 0) goto done;
    if (h5 && (rc = datum_output_commit(&h5)) < 0) goto done;
    *write_seconds += omp_get_wtime() - t;
    rc = DATUM_OK;
done:
    datum_rate_result_free(&r);
    if (csv) datum_csv_abort(&csv);
    datum_output_abort(&h5);
    datum_free(rows.pair);
    datum_free(rows.as_of);
    datum_free(rows.boards);
    datum_free(rows.rating);
    return rc;
}
