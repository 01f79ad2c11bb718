/* cmd_score.c - `datum score` (Butler against a datum), `datum cross`
 * (cross-IMPs) and `datum barking` (barking cross-IMPs, §5): one streaming
 * pipeline over chunks of whole fields. Memory is bounded by the chunk size
 * and the number of pairs, not by the archive. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { JOB_BUTLER, JOB_CROSS, JOB_BARKING } job_kind;

typedef struct {
    job_kind kind;
    cli_method_options mo;
    int threads;
    int ranking; /* print the ranking even when files are written */
    int compare_published; /* --compare-published (score, cross) */
    const char *out_h5, *results_csv, *pairs_csv;
    size_t chunk_rows;
} score_job;

/* Per-chunk result buffers, grown when a chunk is larger than any before. */
typedef struct {
    size_t fields_cap, rows_cap;
    double *datum;       /* Butler: per field */
    double *a, *b;       /* Butler: ns_imps, ew_imps; cross: ns_raw, ns_avg */
    int32_t *terms;      /* cross */
    int64_t *terms_wide; /* cross, for the HDF5 int column; barking's terms */
} buffers;

/* Totals per pair, accumulated in archive order (deterministic). */
typedef struct {
    uint32_t n;
    double *imps, *raw;
    int64_t *boards;
} pair_totals;

/* Output column numbers in the HDF5 file. */
typedef struct {
    int datum, a, b, terms, boards, imps, per_board, raw;
} columns;

static int grow(datum_ctx *ctx, buffers *bf, size_t fields, size_t rows)
{
    if (fields > bf->fields_cap) {
        free(bf->datum);
        bf->datum = malloc(fields * sizeof *bf->datum);
        bf->fields_cap = bf->datum ? fields : 0;
        if (!bf->datum) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    }
    if (rows > bf->rows_cap) {
        free(bf->a); free(bf->b); free(bf->terms); free(bf->terms_wide);
        bf->a = malloc(rows * sizeof *bf->a);
        bf->b = malloc(rows * sizeof *bf->b);
        bf->terms = malloc(rows * sizeof *bf->terms);
        bf->terms_wide = malloc(rows * sizeof *bf->terms_wide);
        bf->rows_cap = (bf->a && bf->b && bf->terms && bf->terms_wide) ? rows : 0;
        if (!bf->rows_cap) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    }
    return DATUM_OK;
}

static void buffers_free(buffers *bf)
{
    free(bf->datum); free(bf->a); free(bf->b); free(bf->terms); free(bf->terms_wide);
}

/* event,section,board,table,ns_pair,ew_pair,ns_score of one row. */
static void write_row_key(datum_csv_writer *w, const datum_archive *a, const datum_chunk *c,
                          uint64_t field, uint64_t row)
{
    datum_csv_str(w, datum_archive_event(a, c->field_event[field]));
    datum_csv_str(w, datum_archive_section(a, c->field_section[field]));
    datum_csv_int(w, c->field_board[field]);
    datum_csv_int(w, c->table[row]);
    datum_csv_str(w, datum_archive_pair(a, (uint32_t)c->ns_pair[row]));
    datum_csv_str(w, datum_archive_pair(a, (uint32_t)c->ew_pair[row]));
    if (c->adjusted && c->adjusted[row] != DATUM_ADJ_NONE) datum_csv_empty(w);
    else datum_csv_int(w, c->ns_score[row]);
}

static void write_results_header(datum_csv_writer *w, const score_job *job, int has_adjusted)
{
    const char *butler[] = {"event", "section", "board", "table", "ns_pair", "ew_pair",
                            "ns_score", "datum", "ns_imps", "adjusted", "ew_imps"};
    const char *cross[] = {"event", "section", "board", "table", "ns_pair",  "ew_pair",
                           "ns_score", "ns_raw", "ns_avg", "terms", "ew_raw", "ew_avg"};
    size_t n = job->kind == JOB_BARKING ? 12 : job->kind == JOB_CROSS ? 10 : has_adjusted ? 11 : 9;
    for (size_t i = 0; i < n; i++) datum_csv_str(w, job->kind != JOB_BUTLER ? cross[i] : butler[i]);
    if (job->compare_published) datum_csv_str(w, "published_ns");
    datum_csv_end_row(w);
}

/* Cross and barking: the terms of row r's score (0: the row has none). */
static int64_t terms_of(const score_job *job, const buffers *bf, uint64_t r)
{
    return job->kind == JOB_BARKING ? bf->terms_wide[r] : bf->terms[r];
}

static void write_results_rows(datum_csv_writer *w, const score_job *job, const datum_archive *a,
                               const datum_chunk *c, const buffers *bf)
{
    for (uint64_t f = 0; f < c->n_fields; f++) {
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            if (job->kind != JOB_BUTLER) {
                if (terms_of(job, bf, r) == 0) continue; /* rows without a score */
                write_row_key(w, a, c, f, r);
                datum_csv_real(w, bf->a[r]);
                datum_csv_real(w, bf->b[r]);
                datum_csv_int(w, terms_of(job, bf, r));
                if (job->kind == JOB_BARKING) { /* EW: exactly the negation (§5) */
                    datum_csv_real(w, 0.0 - bf->a[r]);
                    datum_csv_real(w, 0.0 - bf->b[r]);
                }
            } else {
                write_row_key(w, a, c, f, r);
                datum_csv_real(w, bf->datum[f]);
                datum_csv_real(w, bf->a[r]);
                if (c->adjusted) {
                    datum_csv_str(w, datum_adjusted_token(c->adjusted[r]));
                    datum_csv_real(w, bf->b[r]);
                }
            }
            if (c->published_ns) datum_csv_real(w, c->published_ns[r]); /* --compare-published */
            datum_csv_end_row(w);
        }
    }
}

/* Adds a chunk's rows to the pair totals. Cross: the average per
 * comparison is the score, the raw sum is kept beside it. */
static void accumulate(pair_totals *t, const score_job *job, const datum_chunk *c,
                       const buffers *bf)
{
    if (job->kind == JOB_BUTLER) {
        datum_pairs_accumulate(c->n_rows, c->ns_pair, c->ew_pair, bf->a, bf->b, t->imps, t->boards);
        return;
    }
    datum_pairs_accumulate(c->n_rows, c->ns_pair, c->ew_pair, bf->b, NULL, t->imps, t->boards);
    for (uint64_t r = 0; r < c->n_rows; r++) {
        if (terms_of(job, bf, r) == 0) continue;
        t->raw[c->ns_pair[r]] += bf->a[r];
        t->raw[c->ew_pair[r]] -= bf->a[r];
    }
}

static double per_board(const pair_totals *t, uint32_t p)
{
    return t->boards[p] ? t->imps[p] / (double)t->boards[p] : NAN;
}

/* The narrowest type holding every Butler IMP of the method exactly: WBF
 * IMPs are integers from -24 to 24 (int8), halves with --half (float32);
 * the adjusted awards must fit too. The linear scale needs float64. */
static datum_store_type imps_store_type(const datum_method *m)
{
    const double award[3] = {m->award.plus, m->award.average, m->award.minus};
    int ints = !m->scale.halved, floats = 1;
    for (int i = 0; i < 3; i++) {
        ints &= award[i] == (double)(int8_t)award[i] && award[i] >= -128 && award[i] <= 127;
        floats &= (double)(float)award[i] == award[i];
    }
    if (m->scale.kind != DATUM_SCALE_WBF || !floats) return DATUM_STORE_F64;
    return ints ? DATUM_STORE_I8 : DATUM_STORE_F32;
}

/* A rounded datum (or par's) is an integer no larger than a score (at most
 * 10^6 in magnitude), which float32 holds exactly, NaN included; other
 * datums are fractions and need float64. */
static datum_store_type datums_store_type(const datum_method *m)
{
    int integral = m->rule.rounding != DATUM_ROUND_NONE || m->rule.center == DATUM_CENTER_PAR;
    return integral ? DATUM_STORE_F32 : DATUM_STORE_F64;
}

static int create_h5(datum_ctx *ctx, const score_job *job, const datum_archive *a,
                     const char *archive_path, const datum_archive_info *info,
                     datum_output **out, columns *col)
{
    const char *command[] = {"score", "cross", "barking"};
    int rc = cli_output_create(ctx, job->out_h5, a, archive_path, command[job->kind], &job->mo, out);
    if (rc < 0) return rc;
    datum_output *o = *out;
    memset(col, 0xff, sizeof *col); /* -1: not declared */
    if (job->kind == JOB_BUTLER) {
        col->datum = datum_output_add_stored_column(o, "fields", "datum", info->n_fields,
                                                    "datum of the field (NaN: no real score)",
                                                    datums_store_type(&job->mo.method));
        /* East-West's IMPs differ from -ns_imps only on adjusted rows, so
         * they are stored only then. */
        datum_store_type store = imps_store_type(&job->mo.method);
        col->a = datum_output_add_stored_column(o, "results", "ns_imps", info->n_results,
                                                "North-South IMPs", store);
        if (info->has_adjusted)
            col->b = datum_output_add_stored_column(o, "results", "ew_imps", info->n_results,
                                                    "East-West IMPs (-ns_imps except on adjusted rows)",
                                                    store);
    } else if (job->kind == JOB_BARKING) {
        col->a = datum_output_add_column(o, "results", "ns_raw", info->n_results,
                                         "North-South barking cross-IMPs, raw sum (NaN: no score; "
                                         "East-West: the negation)");
        col->b = datum_output_add_column(o, "results", "ns_avg", info->n_results,
                                         "North-South barking cross-IMPs per term");
        col->terms = datum_output_add_int_column(o, "results", "terms", info->n_results,
                                                 "terms summed, (n-1)*C(n-2,2) (0: no score)");
    } else {
        col->a = datum_output_add_column(o, "results", "ns_raw", info->n_results,
                                         "North-South cross-IMPs, raw sum (NaN: no score)");
        col->b = datum_output_add_column(o, "results", "ns_avg", info->n_results,
                                         "North-South cross-IMPs divided by the divisor");
        col->terms = datum_output_add_int_column(o, "results", "terms", info->n_results,
                                                 "comparisons made (0: no score)");
    }
    if (job->kind != JOB_BUTLER) {
        col->raw = datum_output_add_column(o, "pairs", "raw_imps", info->n_pairs,
                                           "sum of raw cross-IMPs");
    }
    col->boards = datum_output_add_int_column(o, "pairs", "boards", info->n_pairs, "boards scored");
    col->imps = datum_output_add_column(o, "pairs", "imps", info->n_pairs, "total IMPs");
    col->per_board = datum_output_add_column(o, "pairs", "imps_per_board", info->n_pairs,
                                             "IMPs per board (NaN: no board)");
    return datum_ctx_code(ctx) < 0 ? datum_ctx_code(ctx) : DATUM_OK; /* first failed column */
}

static int write_h5_chunk(datum_output *o, const columns *col, const score_job *job,
                          const datum_chunk *c, buffers *bf)
{
    int rc = DATUM_OK;
    if (job->kind == JOB_BUTLER) {
        rc = datum_output_write(o, col->datum, c->first_field, c->n_fields, bf->datum);
    } else {
        if (job->kind == JOB_CROSS)
            for (uint64_t r = 0; r < c->n_rows; r++) bf->terms_wide[r] = bf->terms[r];
        rc = datum_output_write(o, col->terms, c->first_row, c->n_rows, bf->terms_wide);
    }
    if (rc >= 0) rc = datum_output_write(o, col->a, c->first_row, c->n_rows, bf->a);
    if (rc >= 0 && col->b >= 0) rc = datum_output_write(o, col->b, c->first_row, c->n_rows, bf->b);
    return rc;
}

static int write_h5_pairs(datum_ctx *ctx, datum_output *o, const columns *col,
                          const score_job *job, const pair_totals *t)
{
    double *ratio = malloc((t->n + 1) * sizeof *ratio);
    if (!ratio) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    for (uint32_t p = 0; p < t->n; p++) ratio[p] = per_board(t, p);
    int rc = datum_output_write(o, col->boards, 0, t->n, t->boards);
    if (rc >= 0) rc = datum_output_write(o, col->imps, 0, t->n, t->imps);
    if (rc >= 0) rc = datum_output_write(o, col->per_board, 0, t->n, ratio);
    if (rc >= 0 && job->kind != JOB_BUTLER) rc = datum_output_write(o, col->raw, 0, t->n, t->raw);
    free(ratio);
    return rc;
}

/* pair,boards,imps,imps_per_board[,raw_imps] for every pair with a board. */
static int write_pairs_csv(datum_ctx *ctx, const char *path, const score_job *job,
                           const datum_archive *a, const pair_totals *t)
{
    datum_csv_writer *w;
    int rc = datum_csv_create(ctx, path, &w);
    if (rc < 0) return rc;
    const char *header[] = {"pair", "boards", "imps", "imps_per_board", "raw_imps"};
    for (int i = 0; i < (job->kind != JOB_BUTLER ? 5 : 4); i++) datum_csv_str(w, header[i]);
    datum_csv_end_row(w);
    for (uint32_t p = 0; p < t->n; p++) {
        if (!t->boards[p]) continue;
        datum_csv_str(w, datum_archive_pair(a, p));
        datum_csv_int(w, t->boards[p]);
        datum_csv_real(w, t->imps[p]);
        datum_csv_real(w, per_board(t, p));
        if (job->kind != JOB_BUTLER) datum_csv_real(w, t->raw[p]);
        datum_csv_end_row(w);
    }
    return datum_csv_commit(&w);
}

/* Ranking by IMPs per board, ties by pair id. */
typedef struct {
    double per_board;
    const char *name;
    uint32_t pair;
} rank_entry;

static int by_rank(const void *x, const void *y)
{
    const rank_entry *a = x, *b = y;
    if (a->per_board != b->per_board) return a->per_board > b->per_board ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int print_ranking(datum_ctx *ctx, const score_job *job, const datum_archive *a,
                         const pair_totals *t)
{
    rank_entry *rank = malloc((t->n + 1) * sizeof *rank);
    uint32_t n = 0;
    if (!rank) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    for (uint32_t p = 0; p < t->n; p++)
        if (t->boards[p]) rank[n++] = (rank_entry){per_board(t, p), datum_archive_pair(a, p), p};
    qsort(rank, n, sizeof *rank, by_rank);
    const char *title[] = {"Butler", "Cross-IMPs", "Barking cross-IMPs"};
    printf("%s, datum %s, scale %s%s%s\n", title[job->kind],
           job->kind != JOB_BUTLER ? "-" : job->mo.preset, job->mo.scale,
           job->mo.doubled ? ", doubled" : "", job->mo.halved ? ", halved" : "");
    printf("%5s  %-20s %7s %10s %10s\n", "rank", "pair", "boards", "IMPs", "IMPs/board");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = rank[i].pair;
        printf("%5u  %-20s %7lld %10.2f %10.3f\n", i + 1, rank[i].name, (long long)t->boards[p],
               t->imps[p], rank[i].per_board);
    }
    free(rank);
    return DATUM_OK;
}

static int run(datum_ctx *ctx, const char *archive_path, void *arg)
{
    score_job *job = arg;
    datum_archive *a = NULL;
    datum_chunk_reader *reader = NULL;
    datum_output *h5 = NULL;
    datum_csv_writer *results = NULL;
    cli_published *published = NULL;
    buffers bf = {0};
    pair_totals t = {0};
    columns col;
    cli_progress progress;
    int rc = datum_archive_open(ctx, archive_path, &a);
    if (rc < 0) goto done;
    datum_archive_info info;
    datum_archive_get_info(a, &info);

    t.n = info.n_pairs;
    t.imps = calloc(t.n + 1, sizeof *t.imps);
    t.raw = calloc(t.n + 1, sizeof *t.raw);
    t.boards = calloc(t.n + 1, sizeof *t.boards);
    if (!t.imps || !t.raw || !t.boards) {
        rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (%u pairs)", t.n);
        goto done;
    }
    datum_published_method own = job->kind == JOB_CROSS ? DATUM_PUBLISHED_CROSS_IMPS
                                                        : DATUM_PUBLISHED_BUTLER;
    if (job->compare_published &&
        (rc = cli_published_create(ctx, a, archive_path, own, &published)) < 0)
        goto done;
    if (job->out_h5 && (rc = create_h5(ctx, job, a, archive_path, &info, &h5, &col)) < 0) goto done;
    if (job->results_csv) {
        if ((rc = datum_csv_create(ctx, job->results_csv, &results)) < 0) goto done;
        write_results_header(results, job, info.has_adjusted);
    }
    unsigned need = DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED | DATUM_COL_NS_PAIR | DATUM_COL_EW_PAIR;
    if (results) need |= DATUM_COL_TABLE;
    if (published) need |= CLI_PUBLISHED_COLUMNS;
    if ((rc = datum_chunk_reader_create(ctx, a, need, job->chunk_rows, &reader)) < 0) goto done;

    const char *label[] = {"score", "cross", "barking"};
    cli_progress_start(&progress, ctx, label[job->kind]);
    for (;;) {
        datum_chunk c;
        if ((rc = datum_chunk_reader_next(reader, &c)) < 0) goto done;
        if (c.n_fields == 0) break;
        if ((rc = grow(ctx, &bf, c.n_fields, c.n_rows)) < 0) goto done;
        datum_fields in = {c.n_fields, c.offset, c.ns_score, c.adjusted};
        if (job->kind == JOB_BARKING)
            rc = datum_barking_fields(ctx, &job->mo.method.scale, &in, bf.a, bf.b, bf.terms_wide);
        else
            rc = job->kind == JOB_CROSS
                     ? datum_cross_fields(ctx, &job->mo.method, &in, bf.a, bf.b, bf.terms)
                     : datum_score_fields(ctx, &job->mo.method, &in, bf.datum, bf.a, bf.b);
        if (rc < 0) goto done;
        accumulate(&t, job, &c, &bf);
        if (h5 && (rc = write_h5_chunk(h5, &col, job, &c, &bf)) < 0) goto done;
        if (results) write_results_rows(results, job, a, &c, &bf);
        if (published) /* Butler: ns_imps, ew_imps; cross: ns_avg, EW its negation */
            cli_published_add(published, &c, job->kind == JOB_CROSS ? bf.b : bf.a,
                              job->kind == JOB_CROSS ? NULL : bf.b);
        datum_ctx_progress(ctx, c.first_row + c.n_rows, info.n_results);
    }
    cli_progress_finish(&progress);

    if (h5 && (rc = write_h5_pairs(ctx, h5, &col, job, &t)) < 0) goto done;
    if (job->pairs_csv && (rc = write_pairs_csv(ctx, job->pairs_csv, job, a, &t)) < 0) goto done;
    if (results && (rc = datum_csv_commit(&results)) < 0) goto done;
    if (h5 && (rc = datum_output_commit(&h5)) < 0) goto done;
    if (job->ranking || !(job->out_h5 || job->results_csv || job->pairs_csv))
        rc = print_ranking(ctx, job, a, &t);
    if (published && rc >= 0) cli_published_report(published, stderr);
done:
    cli_published_free(&published);
    datum_csv_abort(&results);
    datum_output_abort(&h5);
    datum_chunk_reader_free(&reader);
    datum_archive_close(&a);
    buffers_free(&bf);
    free(t.imps); free(t.raw); free(t.boards);
    return rc;
}

/* --compare-published, for score (ns_imps) and cross (ns_avg). */
#define COMPARE_PUBLISHED_HELP(figure)                                                             \
    "  --compare-published   compare every " figure " (and East-West's) with the\n"               \
    "                        figures the scoring program published (a USEBIO\n"                 \
    "                        import): the count that agree and the first that do\n"            \
    "                        not, on stderr; --results gets a published_ns column\n"

static const char kScoreHelp[] =
    "usage: datum score ARCHIVE.h5 --datum RULE [options]\n"
    "\n"
    "Butler scoring: every board field's datum, every result's IMPs against it,\n"
    "and each pair's total. Without -o, --results or --pairs the ranking is printed.\n"
    "\n"
    "  --datum RULE          mean | nbb | bastille | par | acbl | bridgewx\n"
    "  --scale SCALE         wbf (default) | linear\n"
    "  --double              convert 2*(score - datum)\n"
    "  --half                halve the IMPs\n"
    "  --middle-weight W     weight of the inner scores of a 3-5 table field (nbb: 2)\n"
    "  --trim T              scores dropped at each end: none | tenth | K | P%\n"
    "  --trim-round R        how P% becomes a count: ceil (default) | floor | nearest\n"
    "  --trim-min N          drop scores only in fields of at least N results\n"
    "  --small-max N         weighted mean for fields of 3..N results (0: off)\n"
    "  --center C            mean | median-low | median-high | median | par\n"
    "  --round R             none | toward-zero | away | up | even (halves of the unit)\n"
    "                        | truncate (toward zero, not to the nearest)\n"
    "  --round-unit U        round to a multiple of U (default 10)\n"
    "  --adjusted-imps P,A,M IMPs for average-plus, average, average-minus (3,0,-3)\n"
    "  --threads N           worker threads (results never depend on N)\n"
    "  -o OUT.h5             write datums, IMPs and pair totals to an HDF5 file\n"
    "  --results FILE.csv    one row per result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    COMPARE_PUBLISHED_HELP("ns_imps")
    "\n"
    "The recipe options override the preset's values; see docs/methods.md.\n";

static const char kCrossHelp[] =
    "usage: datum cross ARCHIVE.h5 [options]\n"
    "\n"
    "Cross-IMPs: every real result against every other real result of its field.\n"
    "Without -o, --results or --pairs the ranking is printed.\n"
    "\n"
    "  --scale SCALE         wbf (default) | linear\n"
    "  --double              convert 2*(difference)\n"
    "  --half                halve the IMPs\n"
    "  --divisor D           n-1 (default: per comparison) | n | none | tables (RealBridge)\n"
    "  --threads N           worker threads (results never depend on N)\n"
    "  -o OUT.h5             write per-result and per-pair figures to an HDF5 file\n"
    "  --results FILE.csv    one row per scored result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    COMPARE_PUBLISHED_HELP("ns_avg");

static const char kBarkingHelp[] =
    "usage: datum barking ARCHIVE.h5 [options]\n"
    "\n"
    "Barking cross-IMPs (seed 002): in every field of 4 real results or more,\n"
    "each pair against every other pair sitting the same way, combined with\n"
    "every two pairs sitting the other way, the four scores from four tables:\n"
    "(n-1)*C(n-2,2) terms (3 for one teams-of-eight match, 105 for two, 495\n"
    "for three). East-West's score is the negation of North-South's.\n"
    "Without -o, --results or --pairs the ranking is printed.\n"
    "\n"
    "  --double              convert 2*(sum of the four scores)\n"
    "  --half                halve the IMPs\n"
    "  --threads N           worker threads (results never depend on N)\n"
    "  -o OUT.h5             write per-result and per-pair figures to an HDF5 file\n"
    "  --results FILE.csv    one row per scored result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    "\n"
    "The scale is wbf (--scale linear is refused); see docs/methods.md.\n";

static int score_main(int argc, char **argv, job_kind kind)
{
    const char *name[] = {"score", "cross", "barking"};
    const char *help[] = {kScoreHelp, kCrossHelp, kBarkingHelp};
    score_job job = {.kind = kind, .threads = 1, .chunk_rows = (size_t)1 << 20};
    cli_method_defaults(&job.mo, kind != JOB_BUTLER ? "mean" : NULL);
    cli_option table[32];
    size_t n = cli_method_option_table(&job.mo, table, 0, kind == JOB_BUTLER, kind == JOB_CROSS);
    table[n++] = (cli_option){"--threads", 1, cli_set_threads, &job.threads};
    table[n++] = (cli_option){"-o", 1, cli_set_string, &job.out_h5};
    table[n++] = (cli_option){"--results", 1, cli_set_string, &job.results_csv};
    table[n++] = (cli_option){"--pairs", 1, cli_set_string, &job.pairs_csv};
    table[n++] = (cli_option){"--ranking", 0, cli_set_flag, &job.ranking};
    if (kind != JOB_BARKING)
        table[n++] = (cli_option){"--compare-published", 0, cli_set_flag, &job.compare_published};
    const char *positional[argc + 1];
    cli_parser p = {name[kind], positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, n, help[kind]);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1) {
        cli_usage_error(&p, "expected one archive, got %d arguments", p.n_positional);
        return EXIT_BAD_INPUT;
    }
    if (cli_method_resolve(&p, &job.mo) != 0) return EXIT_BAD_INPUT;
    if (kind == JOB_BARKING && job.mo.method.scale.kind != DATUM_SCALE_WBF) {
        cli_usage_error(&p, "barking is defined on the wbf scale only");
        return EXIT_BAD_INPUT;
    }
    return cli_run_job(job.threads, run, positional[0], &job);
}

int cmd_score(int argc, char **argv) { return score_main(argc, argv, JOB_BUTLER); }
int cmd_cross(int argc, char **argv) { return score_main(argc, argv, JOB_CROSS); }
int cmd_barking(int argc, char **argv) { return score_main(argc, argv, JOB_BARKING); }
