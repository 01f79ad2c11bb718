/*
 * export.c - an archive's rows back as results CSV (formats.md "In: bridge
 * results"), streamed: the chunk reader in, the CSV writer out, so that
 * memory does not grow with the archive. Importing the file gives the
 * archive back (the columns the CSV format carries: docs/cli.md).
 */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

/* Rows read per chunk: large enough for the reader's parallel decoding. */
enum { EXPORT_CHUNK_ROWS = 1 << 20 };

/* keep[e] = 1 for the archive's events named in opt (every event without
 * names). An unknown name is DATUM_E_INPUT: a typo should not give an empty
 * file. */
static int select_events(datum_ctx *ctx, const datum_archive *a, const datum_export_options *opt,
                         uint8_t *keep)
{
    uint32_t n = a->info.n_events;
    memset(keep, opt->n_events ? 0 : 1, n);
    for (size_t k = 0; k < opt->n_events; k++) {
        uint32_t lo = 0, hi = n; /* the dictionary is sorted by bytes */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (strcmp(datum_archive_event(a, mid), opt->events[k]) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo == n || strcmp(datum_archive_event(a, lo), opt->events[k]) != 0)
            return datum_ctx_fail(ctx, DATUM_E_INPUT, "%s: no event named \"%s\"", a->path,
                                  opt->events[k]);
        keep[lo] = 1;
    }
    return DATUM_OK;
}

static void write_header(datum_csv_writer *w, const datum_archive_info *info)
{
    static const char *const base[] = {"event",   "date",    "section", "board",
                                       "table",   "ns_pair", "ew_pair", "ns_score"};
    static const char *const teams[] = {"ns_team", "ew_team", "match"};
    for (size_t k = 0; k < sizeof base / sizeof *base; k++) datum_csv_str(w, base[k]);
    if (info->has_adjusted) datum_csv_str(w, "adjusted");
    for (size_t k = 0; info->has_teams && k < sizeof teams / sizeof *teams; k++)
        datum_csv_str(w, teams[k]);
    datum_csv_end_row(w);
}

/* Row i of field f of the chunk. */
static void write_row(datum_csv_writer *w, const datum_archive *a, const datum_chunk *c,
                      uint64_t f, uint64_t i)
{
    char date[DATUM_DATE_SIZE];
    int adjusted = c->adjusted ? c->adjusted[i] : DATUM_ADJ_NONE;
    datum_csv_str(w, datum_archive_event(a, c->field_event[f]));
    datum_csv_str(w, datum_format_date(c->date[i], date));
    datum_csv_str(w, datum_archive_section(a, c->field_section[f]));
    datum_csv_int(w, c->field_board[f]);
    datum_csv_int(w, c->table[i]);
    datum_csv_str(w, datum_archive_pair(a, (uint32_t)c->ns_pair[i]));
    datum_csv_str(w, datum_archive_pair(a, (uint32_t)c->ew_pair[i]));
    if (adjusted == DATUM_ADJ_NONE) datum_csv_int(w, c->ns_score[i]);
    else datum_csv_empty(w); /* an adjusted result has no score */
    if (c->adjusted) datum_csv_str(w, datum_adjusted_token(adjusted));
    if (c->match && c->match[i] >= 0) {
        datum_csv_str(w, datum_archive_team(a, (uint32_t)c->ns_team[i]));
        datum_csv_str(w, datum_archive_team(a, (uint32_t)c->ew_team[i]));
        datum_csv_str(w, datum_archive_match(a, (uint32_t)c->match[i]));
    } else if (c->match) { /* a result outside any match: the three cells empty */
        datum_csv_empty(w);
        datum_csv_empty(w);
        datum_csv_empty(w);
    }
    datum_csv_end_row(w);
}

int datum_export_csv(datum_ctx *ctx, const char *archive_path, const char *csv_path,
                     datum_export_options *opt)
{
    datum_export_options all = DATUM_EXPORT_OPTIONS_INIT;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_csv_writer *w = NULL;
    uint8_t *keep = NULL;
    uint64_t n_rows = 0;
    if (!opt) opt = &all;
    opt->n_rows = 0;
    int rc = datum_archive_open(ctx, archive_path, &a);
    if (rc == DATUM_OK && !(keep = datum_malloc(ctx, a->info.n_events + 1, 1))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = select_events(ctx, a, opt, keep);
    unsigned columns = DATUM_COL_TABLE | DATUM_COL_NS_PAIR | DATUM_COL_EW_PAIR |
                       DATUM_COL_NS_SCORE | DATUM_COL_DATE;
    if (rc == DATUM_OK && a->info.has_adjusted) columns |= DATUM_COL_ADJUSTED;
    if (rc == DATUM_OK && a->info.has_teams)
        columns |= DATUM_COL_NS_TEAM | DATUM_COL_EW_TEAM | DATUM_COL_MATCH;
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, a, columns, EXPORT_CHUNK_ROWS, &r);
    if (rc == DATUM_OK) rc = datum_csv_create(ctx, csv_path, &w);
    if (rc == DATUM_OK) write_header(w, &a->info);
    while (rc == DATUM_OK) {
        datum_chunk c;
        if ((rc = datum_chunk_reader_next(r, &c)) != DATUM_OK || c.n_fields == 0) break;
        for (uint64_t f = 0; f < c.n_fields; f++) {
            if (!keep[c.field_event[f]]) continue;
            for (uint64_t i = c.offset[f]; i < c.offset[f + 1]; i++)
                if (c.date[i] >= opt->from && c.date[i] <= opt->to) {
                    write_row(w, a, &c, f, i);
                    n_rows++;
                }
        }
    }
    if (rc == DATUM_OK) rc = datum_csv_commit(&w);
    if (rc == DATUM_OK) opt->n_rows = n_rows;
    datum_csv_abort(&w);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_free(keep);
    return rc;
}
