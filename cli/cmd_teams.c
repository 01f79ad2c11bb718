/* cmd_teams.c - `datum teams`: the teams matches themselves (§5): per match
 * and board the aggregate of a team's own-perspective scores converted to
 * IMPs, and per match the totals of each team. Streams the archive in chunks
 * of whole fields, like cmd_score.c; memory is bounded by the chunk size and
 * the number of matches. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cli_method_options mo;
    int threads;
    const char *out_h5, *matches_csv, *totals_csv;
    size_t chunk_rows;
} teams_job;

/* A match within one (event, section): its two teams (a: the one first in
 * the team dictionary, b the other) and team a's totals. */
typedef struct {
    int32_t team_a, team_b;
    int64_t boards;
    double imps_for, imps_against; /* IMPs won and lost by team a */
    uint64_t stamp;                /* 1 + the field (archive numbering) last seen in */
    uint64_t first_row;            /* its first row in that field (chunk numbering) */
    int64_t tables;                /* its tables in that field */
} match_state;

typedef struct {
    uint32_t n;         /* match dictionary size */
    match_state *m;     /* by match index */
    uint32_t *touched;  /* matches of the current (event, section), first seen first */
    uint32_t n_touched;
    uint32_t *in_field; /* matches of the current field */
    uint64_t block_event, block_section;
    int in_block;
} match_table;

/* Team a's view of a match board from row r (whose NS team has the view the
 * engine computed). */
static void team_a_view(const datum_chunk *c, const double *agg, const double *imps, uint64_t r,
                        int32_t team_a, double *a_agg, double *a_imps)
{
    int flip = c->ns_team[r] != team_a;
    *a_agg = flip ? 0.0 - agg[r] : agg[r];
    *a_imps = flip ? 0.0 - imps[r] : imps[r];
}

static void write_totals_rows(datum_csv_writer *w, const datum_archive *a, match_table *t)
{
    for (uint32_t i = 0; i < t->n_touched; i++) {
        const match_state *s = &t->m[t->touched[i]];
        for (int side = 0; side < 2; side++) {
            datum_csv_str(w, datum_archive_event(a, (uint32_t)t->block_event));
            datum_csv_str(w, datum_archive_section(a, (uint32_t)t->block_section));
            datum_csv_str(w, datum_archive_match(a, t->touched[i]));
            datum_csv_str(w, datum_archive_team(a, (uint32_t)(side ? s->team_b : s->team_a)));
            datum_csv_str(w, datum_archive_team(a, (uint32_t)(side ? s->team_a : s->team_b)));
            datum_csv_int(w, s->boards);
            double won = side ? s->imps_against : s->imps_for;
            double lost = side ? s->imps_for : s->imps_against;
            datum_csv_real(w, won);
            datum_csv_real(w, lost);
            datum_csv_real(w, won - lost);
            datum_csv_end_row(w);
        }
    }
}

static void print_totals(const datum_archive *a, const match_table *t)
{
    for (uint32_t i = 0; i < t->n_touched; i++) {
        const match_state *s = &t->m[t->touched[i]];
        printf("%-20s %-12s %-16s %-16s %-16s %6lld %8.1f %8.1f\n",
               datum_archive_event(a, (uint32_t)t->block_event),
               datum_archive_section(a, (uint32_t)t->block_section),
               datum_archive_match(a, t->touched[i]), datum_archive_team(a, (uint32_t)s->team_a),
               datum_archive_team(a, (uint32_t)s->team_b), (long long)s->boards, s->imps_for,
               s->imps_against);
    }
}

/* Ends the current (event, section): its match totals go out. */
static void flush_block(match_table *t, const datum_archive *a, datum_csv_writer *totals, int print)
{
    if (!t->in_block) return;
    if (totals) write_totals_rows(totals, a, t);
    if (print) print_totals(a, t);
    for (uint32_t i = 0; i < t->n_touched; i++) t->m[t->touched[i]].stamp = 0;
    t->n_touched = 0;
    t->in_block = 0;
}

/* One chunk: per field, each match's board (in order of first table) to the
 * matches CSV and into the totals. */
static void take_chunk(match_table *t, const datum_archive *a, const datum_chunk *c,
                       const double *agg, const double *imps, datum_csv_writer *matches,
                       datum_csv_writer *totals, int print)
{
    for (uint64_t f = 0; f < c->n_fields; f++) {
        uint64_t stamp = c->first_field + f + 1;
        uint32_t k = 0;
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            if (c->match[r] < 0) continue;
            if (!t->in_block || t->block_event != c->field_event[f] ||
                t->block_section != c->field_section[f]) {
                flush_block(t, a, totals, print);
                t->in_block = 1;
                t->block_event = c->field_event[f];
                t->block_section = c->field_section[f];
            }
            match_state *s = &t->m[c->match[r]];
            if (s->stamp == 0) { /* first board of this match in the block */
                int32_t x = c->ns_team[r], y = c->ew_team[r];
                *s = (match_state){.team_a = x < y ? x : y, .team_b = x < y ? y : x};
                t->touched[t->n_touched++] = (uint32_t)c->match[r];
            }
            if (s->stamp != stamp) {
                s->stamp = stamp;
                s->first_row = r;
                s->tables = 0;
                t->in_field[k++] = (uint32_t)c->match[r];
            }
            s->tables++;
        }
        for (uint32_t i = 0; i < k; i++) {
            match_state *s = &t->m[t->in_field[i]];
            double a_agg, a_imps;
            team_a_view(c, agg, imps, s->first_row, s->team_a, &a_agg, &a_imps);
            if (!isnan(a_imps)) {
                s->boards++;
                if (a_imps > 0) s->imps_for += a_imps;
                else s->imps_against -= a_imps;
            }
            if (!matches) continue;
            datum_csv_str(matches, datum_archive_event(a, c->field_event[f]));
            datum_csv_str(matches, datum_archive_section(a, c->field_section[f]));
            datum_csv_int(matches, c->field_board[f]);
            datum_csv_str(matches, datum_archive_match(a, t->in_field[i]));
            datum_csv_str(matches, datum_archive_team(a, (uint32_t)s->team_a));
            datum_csv_str(matches, datum_archive_team(a, (uint32_t)s->team_b));
            datum_csv_int(matches, s->tables);
            datum_csv_real(matches, a_agg);
            datum_csv_real(matches, a_imps);
            datum_csv_end_row(matches);
        }
    }
}

static void header(datum_csv_writer *w, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) datum_csv_str(w, names[i]);
    datum_csv_end_row(w);
}

static int create_h5(datum_ctx *ctx, const teams_job *job, const datum_archive *a,
                     const char *archive_path, const datum_archive_info *info,
                     datum_output **out, int col[2])
{
    int rc = cli_output_create(ctx, job->out_h5, a, archive_path, "teams", &job->mo, out);
    if (rc < 0) return rc;
    col[0] = datum_output_add_column(*out, "results", "match_aggregate", info->n_results,
                                     "aggregate of the match on this board, from the NS team's "
                                     "side (NaN: outside a match, or adjusted)");
    col[1] = datum_output_add_column(*out, "results", "match_imps", info->n_results,
                                     "IMPs of that aggregate for the NS team");
    return datum_ctx_code(ctx) < 0 ? datum_ctx_code(ctx) : DATUM_OK;
}

/* The field named in an error about chunk field f. */
static int bad_match(datum_ctx *ctx, const datum_archive *a, const datum_chunk *c, size_t f)
{
    datum_ctx_clear(ctx);
    return datum_ctx_fail(ctx, DATUM_E_INPUT,
                          "%s, section %s, board %d: a match whose tables do not oppose the same "
                          "two teams",
                          datum_archive_event(a, c->field_event[f]),
                          datum_archive_section(a, c->field_section[f]), c->field_board[f]);
}

static int run(datum_ctx *ctx, const char *archive_path, void *arg)
{
    teams_job *job = arg;
    static const char *const kMatchCols[] = {"event", "section", "board", "match", "team",
                                             "opponent", "tables", "aggregate", "imps"};
    static const char *const kTotalCols[] = {"event", "section", "match", "team", "opponent",
                                             "boards", "imps_won", "imps_lost", "net"};
    datum_archive *a = NULL;
    datum_chunk_reader *reader = NULL;
    datum_output *h5 = NULL;
    datum_csv_writer *matches = NULL, *totals = NULL;
    double *agg = NULL, *imps = NULL;
    size_t cap = 0;
    match_table t = {0};
    int col[2] = {-1, -1}; /* set with h5 */
    int print = !(job->out_h5 || job->matches_csv || job->totals_csv);
    int rc = datum_archive_open(ctx, archive_path, &a);
    if (rc < 0) goto done;
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    if (!info.has_teams) {
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT,
                            "%s has no teams (import results with ns_team, ew_team and match "
                            "columns)",
                            archive_path);
        goto done;
    }
    t.n = info.n_matches;
    t.m = calloc(t.n + 1, sizeof *t.m);
    t.touched = malloc((t.n + 1) * sizeof *t.touched);
    t.in_field = malloc((t.n + 1) * sizeof *t.in_field);
    if (!t.m || !t.touched || !t.in_field) {
        rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (%u matches)", t.n);
        goto done;
    }
    if (job->out_h5 && (rc = create_h5(ctx, job, a, archive_path, &info, &h5, col)) < 0) goto done;
    if (job->matches_csv) {
        if ((rc = datum_csv_create(ctx, job->matches_csv, &matches)) < 0) goto done;
        header(matches, kMatchCols, 9);
    }
    if (job->totals_csv) {
        if ((rc = datum_csv_create(ctx, job->totals_csv, &totals)) < 0) goto done;
        header(totals, kTotalCols, 9);
    }
    if (print)
        printf("%-20s %-12s %-16s %-16s %-16s %6s %8s %8s\n", "event", "section", "match", "team",
               "opponent", "boards", "won", "lost");
    unsigned need = DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED | DATUM_COL_NS_TEAM |
                    DATUM_COL_EW_TEAM | DATUM_COL_MATCH;
    if ((rc = datum_chunk_reader_create(ctx, a, need, job->chunk_rows, &reader)) < 0) goto done;
    for (;;) {
        datum_chunk c;
        if ((rc = datum_chunk_reader_next(reader, &c)) < 0) goto done;
        if (c.n_fields == 0) break;
        if (c.n_rows > cap) {
            free(agg);
            free(imps);
            agg = malloc(c.n_rows * sizeof *agg);
            imps = malloc(c.n_rows * sizeof *imps);
            cap = agg && imps ? c.n_rows : 0;
            if (!cap) {
                rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
                goto done;
            }
        }
        datum_fields in = {c.n_fields, c.offset, c.ns_score, c.adjusted};
        size_t bad;
        rc = datum_match_fields(ctx, &job->mo.method.scale, &in, c.match, c.ns_team, c.ew_team, agg,
                                imps, &bad);
        if (rc == DATUM_E_INPUT && bad < c.n_fields) rc = bad_match(ctx, a, &c, bad);
        if (rc < 0) goto done;
        take_chunk(&t, a, &c, agg, imps, matches, totals, print);
        if (h5 && ((rc = datum_output_write(h5, col[0], c.first_row, c.n_rows, agg)) < 0 ||
                   (rc = datum_output_write(h5, col[1], c.first_row, c.n_rows, imps)) < 0))
            goto done;
    }
    flush_block(&t, a, totals, print);
    if (matches && (rc = datum_csv_commit(&matches)) < 0) goto done;
    if (totals && (rc = datum_csv_commit(&totals)) < 0) goto done;
    if (h5 && (rc = datum_output_commit(&h5)) < 0) goto done;
done:
    datum_csv_abort(&matches);
    datum_csv_abort(&totals);
    datum_output_abort(&h5);
    datum_chunk_reader_free(&reader);
    datum_archive_close(&a);
    free(agg);
    free(imps);
    free(t.m);
    free(t.touched);
    free(t.in_field);
    return rc;
}

static const char kHelp[] =
    "usage: datum teams ARCHIVE.h5 [options]\n"
    "\n"
    "Teams matches (teams of eight: four tables per match): per match and board\n"
    "the aggregate of a team's own-perspective scores (+score where it sits\n"
    "North-South, -score where it sits East-West) converted to IMPs, and per\n"
    "match each team's IMPs won and lost. Needs an archive imported with the\n"
    "ns_team, ew_team and match columns. Without an output file the match\n"
    "totals are printed.\n"
    "\n"
    "  --scale SCALE         wbf (default) | linear\n"
    "  --double              convert 2*(aggregate)\n"
    "  --half                halve the IMPs\n"
    "  --threads N           worker threads (results never depend on N)\n"
    "  --matches FILE.csv    one row per match and board (- for standard output)\n"
    "  --totals FILE.csv     two rows per match: each team's totals\n"
    "  -o OUT.h5             per result: its match's aggregate and IMPs (NS side)\n";

int cmd_teams(int argc, char **argv)
{
    teams_job job = {.threads = 1, .chunk_rows = (size_t)1 << 20};
    cli_method_defaults(&job.mo, "mean");
    cli_option table[16];
    size_t n = cli_method_option_table(&job.mo, table, 0, 0, 0);
    table[n++] = (cli_option){"--threads", 1, cli_set_threads, &job.threads};
    table[n++] = (cli_option){"-o", 1, cli_set_string, &job.out_h5};
    table[n++] = (cli_option){"--matches", 1, cli_set_string, &job.matches_csv};
    table[n++] = (cli_option){"--totals", 1, cli_set_string, &job.totals_csv};
    const char *positional[argc + 1];
    cli_parser p = {"teams", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, n, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1) {
        cli_usage_error(&p, "expected one archive, got %d arguments", p.n_positional);
        return EXIT_BAD_INPUT;
    }
    if (cli_method_resolve(&p, &job.mo) != 0) return EXIT_BAD_INPUT;
    return cli_run_job(job.threads, run, positional[0], &job);
}
