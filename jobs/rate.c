/*
 * rate.c - the ratings' read of an archive (datum_rate_read.h): the chunk
 * reader, the merger across sections, and the sink each chunk goes to.
 */
#include "datum_rate_read.h"

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
