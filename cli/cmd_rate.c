/* cmd_rate.c - `datum rate`: compensated Butler ratings (seed 000) of every
 * pair of an archive, with the report of how they were solved and, for a
 * generated archive, how well they find the truth. The numbers come from
 * solvers/ (datum_rate.h); this file parses, reads chunks, writes and prints. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "datum_alloc.h"
#include "datum_rate.h"
#include "datum_rate_jobs.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const char kHelp[] =
    "usage: datum rate ARCHIVE.h5 [--out RATINGS.csv] [-o OUT.h5] [--report REPORT.json]\n"
    "                  [--evaluate] [options]     (at least one of these four)\n"
    "\n"
    "Compensated Butler ratings (seed 000): every board's Butler IMPs corrected for\n"
    "the strength of the opponent, the allies and the indirect opponents, solved as\n"
    "one system over the whole archive (docs/methods.md, \"Ratings\").\n"
    "\n"
    "  --out RATINGS.csv     pair,boards,rating,butler_per_board,component (- for stdout)\n"
    "  -o OUT.h5             the same per pair, in an HDF5 output file\n"
    "  --report REPORT.json  residuals, components, null directions, solver, times\n"
    "  --datum RULE          the datum of the Butler IMPs (default mean; see datum score)\n"
    "  --scale SCALE         wbf (default) | linear; --double, --half and the recipe\n"
    "                        options of datum score apply as well\n"
    "  --half-life DAYS      weigh a board 0.5^(age / DAYS), its age counted to --as-of\n"
    "  --as-of DATE          ignore results after DATE (default: the archive's last date)\n"
    "  --from DATE           ignore results before DATE\n"
    "  --ridge LAMBDA        ridge prior, in boards: (A + LAMBDA W) v = r_c\n"
    "  --solver S            auto (default: least predicted time) | direct | iterative\n"
    "  --calibration FILE    auto: this machine's rates (`name value` lines: factor_flops,\n"
    "                        block_flops, matvec, solve, analyse; default built in)\n"
    "  --memory SIZE         auto: the direct factor's budget, e.g. 8G (K, M, G, T)\n"
    "  --ordering O          direct: default (AMD, METIS if AMD fills in much) | amd |\n"
    "                        metis | nesdis\n"
    "  --block-size N        iterative: preconditioner block size (512; 1: Jacobi)\n"
    "  --tolerance T         relative residual on the range of A (default 1e-10)\n"
    "  --warm-start F.csv    start the iterative solver from earlier ratings\n"
    "  --every P             month | quarter | year: the ratings as of every period's end\n"
    "                        (--from or the first data to --as-of), one long table\n"
    "                        pair,as_of,boards,rating (--out, -o); warm-started\n"
    "  --evaluate            against the generator's true strengths\n"
    "  --fit-until DATE      with --evaluate: fit up to DATE, predict the later boards\n"
    CLI_ACROSS_HELP
    "  --threads N           worker threads, default all processors (results never depend on N)\n"
    "\n"
    "Dates are YYYY-MM-DD.\n";

typedef struct {
    cli_method_options mo;
    datum_rate_options opt;
    datum_rate_window window;
    const char *half_life, *as_of, *from, *fit_until, *ridge, *solver, *ordering, *memory, *tolerance;
    const char *warm_start, *out_csv, *out_h5, *report, *calibration, *every;
    datum_rate_calibration rates; /* --calibration */
    datum_rate_every every_months;
    int threads, evaluate, block_size;
    int32_t as_of_day, from_day, fit_day;
    int has_as_of, has_from, has_fit;
} rate_job;

/* What the run measured, for the report. */
typedef struct {
    datum_archive_info info;
    datum_rate_summary summary;
    double t_read, t_write, t_evaluate, t_total;
    uint64_t warm_unknown;
    int warm_pairs;
    /* --evaluate */
    int has_truth;
    size_t truth_pairs;
    double r_raw, r_rating, rw_raw, rw_rating;
    int has_prediction;
    datum_rate_prediction pred_rating, pred_raw;
    uint64_t across_read, across_scored; /* --across-sections: fields read, scored */
} rate_run;

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

/* A decimal real (datum_parse_real) in lo..hi: 0, or -1. */
static int parse_real(const char *text, double lo, double hi, double *out)
{
    return datum_parse_real(text, strlen(text), lo, hi, out) == DATUM_PARSE_OK ? 0 : -1;
}

static const char *const kSolvers[] = {"auto", "direct", "iterative"};
static const char *const kPaths[] = {"direct", "jacobi", "block"}; /* auto's choice */
static const char *const kOrderings[] = {"default", "amd", "metis", "nesdis"};

/* Index of text among n names, or -1. */
static int choice(const char *text, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(text, names[k]) == 0) return k;
    return -1;
}

static int resolve(cli_parser *p, rate_job *job)
{
    datum_rate_options *o = &job->opt;
    double v;
    if (cli_method_resolve(p, &job->mo) != 0) return -1;
    if (!job->out_csv && !job->out_h5 && !job->report && !job->evaluate)
        return cli_usage_error(p, "nothing to write: give --out, -o, --report or --evaluate");
    if (job->half_life) {
        if (parse_real(job->half_life, 1e-9, 1e9, &v) != 0)
            return cli_usage_error(p, "--half-life takes a positive number of days, not '%s'",
                                   job->half_life);
        job->window.half_life = v;
    }
    if (job->as_of && cli_parse_day(p, "--as-of", job->as_of, &job->as_of_day)) return -1;
    if (job->from && cli_parse_day(p, "--from", job->from, &job->from_day)) return -1;
    if (job->fit_until && cli_parse_day(p, "--fit-until", job->fit_until, &job->fit_day)) return -1;
    job->has_as_of = job->as_of != NULL;
    job->has_from = job->from != NULL;
    job->has_fit = job->fit_until != NULL;
    if (job->has_fit && !job->evaluate)
        return cli_usage_error(p, "--fit-until goes with --evaluate");
    if (job->ridge) {
        if (parse_real(job->ridge, 0, 1e12, &v) != 0)
            return cli_usage_error(p, "--ridge takes a number of boards >= 0, not '%s'", job->ridge);
        o->ridge = v;
    }
    if (job->solver) {
        int k = choice(job->solver, kSolvers, 3);
        if (k < 0)
            return cli_usage_error(p, "--solver takes auto, direct or iterative, not '%s'", job->solver);
        o->solver = (datum_rate_solver)k;
    }
    if (job->ordering) {
        int k = choice(job->ordering, kOrderings, 4);
        if (k < 0)
            return cli_usage_error(p, "--ordering takes default, amd, metis or nesdis, not '%s'",
                                   job->ordering);
        o->ordering = (datum_rate_ordering)k;
    }
    if (job->memory && cli_parse_size(job->memory, &o->memory) != 0)
        return cli_usage_error(p, "--memory takes a size such as 8G or 512M, not '%s'", job->memory);
    if (job->tolerance) {
        if (parse_real(job->tolerance, 1e-16, 0.1, &v) != 0)
            return cli_usage_error(p, "--tolerance takes a number in [1e-16, 0.1], not '%s'",
                                   job->tolerance);
        o->tolerance = v;
    }
    if (job->block_size > 0) o->block_size = job->block_size;
#ifdef DATUM_MPI
    /* datum-mpi solves on PETSc (mpi/rate_petsc.c): conjugate gradients on
     * the structural null space; CHOLMOD's options and the runs built on
     * one process's solver are datum rate's only (docs/scale-out.md). */
    const char *serial_only = job->every ? "--every" : job->evaluate ? "--evaluate"
                              : job->warm_start ? "--warm-start" : job->ridge ? "--ridge"
                              : job->ordering ? "--ordering" : job->memory ? "--memory"
                              : o->solver == DATUM_RATE_DIRECT ? "--solver direct" : NULL;
    if (serial_only)
        return cli_usage_error(p, "%s is datum rate's only, not datum-mpi's (docs/scale-out.md)",
                               serial_only);
#endif
    if (job->every) {
        static const char *const kEvery[] = {"month", "quarter", "year"};
        static const datum_rate_every kMonths[] = {DATUM_RATE_EVERY_MONTH, DATUM_RATE_EVERY_QUARTER,
                                                   DATUM_RATE_EVERY_YEAR};
        int k = choice(job->every, kEvery, 3);
        if (k < 0)
            return cli_usage_error(p, "--every takes month, quarter or year, not '%s'", job->every);
        job->every_months = kMonths[k];
        if (job->evaluate || job->warm_start)
            return cli_usage_error(p, "--every goes with neither --evaluate nor --warm-start");
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */

/* Every chunk of this process's fields (all of them but in datum-mpi) to
 * the sink, with the progress line `label`. */
static int read_into(datum_ctx *ctx, datum_archive *a, datum_across *across, const char *label,
                     const datum_rate_sink *sink)
{
    uint64_t first, end;
    int rc = cli_slice(ctx, a, across != NULL, &first, &end);
    if (rc < 0) return rc;
    cli_progress progress;
    cli_progress_start(&progress, ctx, label);
    rc = datum_rate_read(ctx, a, across, first, end, sink);
    cli_progress_finish(&progress);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

static int write_csv(datum_ctx *ctx, const char *path, const datum_archive *a,
                     const datum_rate_result *r)
{
    datum_csv_writer *w;
    int rc = datum_csv_create(ctx, path, &w);
    if (rc < 0) return rc;
    const char *header[] = {"pair", "boards", "rating", "butler_per_board", "component"};
    for (int i = 0; i < 5; i++) datum_csv_str(w, header[i]);
    datum_csv_end_row(w);
    for (uint32_t p = 0; p < r->n_pairs; p++) {
        if (r->component[p] < 0) continue; /* no kept board */
        datum_csv_str(w, datum_archive_pair(a, p));
        datum_csv_real(w, r->boards[p]);
        datum_csv_real(w, r->rating[p]);
        datum_csv_real(w, r->butler_per_board[p]);
        datum_csv_int(w, r->component[p]);
        datum_csv_end_row(w);
    }
    return datum_csv_commit(&w);
}

static int write_h5(datum_ctx *ctx, const rate_job *job, const char *archive_path,
                    const datum_archive *a, const datum_rate_result *r)
{
    datum_output *o;
    int rc = cli_output_create(ctx, job->out_h5, a, archive_path, "rate", &job->mo, &o);
    if (rc < 0) return rc;
    uint32_t n = r->n_pairs;
    int64_t *component = malloc((n + 1) * sizeof *component);
    if (!component) rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    for (uint32_t p = 0; component && p < n; p++) component[p] = r->component[p];
    struct {
        const char *name, *description;
        const void *values;
        int integer;
    } cols[] = {
        {"boards", "board weight sum n_j (NaN-free; 0 without a kept board)", r->boards, 0},
        {"rating", "compensated Butler rating, IMPs per board (NaN: no kept board)", r->rating, 0},
        {"butler_per_board", "raw Butler IMPs per weighted board (NaN: no kept board)",
         r->butler_per_board, 0},
        {"component", "connected component of the rating system (-1: none)", component, 1},
    };
    for (size_t k = 0; rc >= 0 && k < sizeof cols / sizeof *cols; k++) {
        int col = cols[k].integer
                      ? datum_output_add_int_column(o, "pairs", cols[k].name, n, cols[k].description)
                      : datum_output_add_column(o, "pairs", cols[k].name, n, cols[k].description);
        rc = col < 0 ? col : datum_output_write(o, col, 0, n, cols[k].values);
    }
    free(component);
    if (rc >= 0) rc = datum_output_commit(&o);
    datum_output_abort(&o);
    return rc;
}

/* JSON: a number (null when not finite), a date (null when absent). */
static void json_real(FILE *f, const char *key, double v, const char *after)
{
    char buf[32];
    fprintf(f, "\"%s\": %s%s", key, isfinite(v) ? datum_format_real(v, buf) : "null", after);
}

/* Several numbers: key: value, ..., then `after`. */
typedef struct {
    const char *key;
    double value;
} json_num;

static void json_reals(FILE *f, const json_num *v, size_t n, const char *after)
{
    for (size_t i = 0; i < n; i++) json_real(f, v[i].key, v[i].value, i + 1 < n ? ", " : after);
}
#define JSON_REALS(f, after, ...) \
    json_reals(f, (const json_num[]){__VA_ARGS__}, \
               sizeof((const json_num[]){__VA_ARGS__}) / sizeof(json_num), after)

static void json_date(FILE *f, const char *key, int has, int32_t day, const char *after)
{
    char buf[DATUM_DATE_SIZE];
    if (has) datum_format_date(day, buf);
    if (has) fprintf(f, "\"%s\": \"%s\"%s", key, buf, after);
    else fprintf(f, "\"%s\": null%s", key, after);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static const char *ordering_name(datum_rate_ordering ordering)
{
    if (ordering == DATUM_RATE_ORDER_NONE) return "none";
    if (ordering == DATUM_RATE_ORDER_NATURAL) return "natural";
    return kOrderings[ordering];
}

/* Which sparse components the structure certifies, which it leaves to the
 * numerical search (listed, the first REPORT_SEARCHED_MAX, with their pairs). */
#define REPORT_SEARCHED_MAX 20
static void report_certificate(FILE *f, const datum_rate_result *r)
{
    const datum_rate_stats *s = &r->stats;
    fprintf(f, "  \"null_space\": {\"certified_components\": %u, \"certified_pairs\": %u, "
               "\"searched_components\": %u, \"searched_pairs\": %u, \"certificate_rounds\": %u, "
               "\"searched\": [",
            s->certified_components, s->certified_pairs, s->searched_components, s->searched_pairs,
            s->certify_rounds);
    uint32_t listed = 0;
    for (uint32_t c = 0; c < r->n_components && listed < REPORT_SEARCHED_MAX; c++) {
        int how = r->component_null[c];
        if (how != DATUM_RATE_NULL_SEARCH && how != DATUM_RATE_NULL_FACTOR) continue;
        uint32_t pairs = 0;
        for (uint32_t j = 0; j < r->n_pairs; j++) pairs += r->component[j] == (int32_t)c;
        fprintf(f, "%s{\"component\": %u, \"pairs\": %u, \"how\": \"%s\"}", listed ? ", " : "", c,
                pairs, how == DATUM_RATE_NULL_SEARCH ? "pieces and blocks" : "whole factor");
        listed++;
    }
    fprintf(f, "]},\n");
}

/* What auto predicted, with which rates, what it chose and why. */
static void report_choice(FILE *f, const datum_rate_stats *s)
{
    const datum_rate_calibration *c = &s->calibration;
    const datum_rate_forecast *fc = &s->forecast;
    const datum_rate_choice *ch = &s->choice;
    fprintf(f, "  \"blas\": ");
    json_string(f, datum_rate_blas_library());
    fprintf(f, ",\n");
    if (!s->chose) return;
    fprintf(f, "  \"auto\": {\"chosen\": \"%s\", \"reason\": ", kPaths[ch->path]);
    json_string(f, ch->reason);
    fprintf(f, ",\n    \"predicted_seconds\": {");
    JSON_REALS(f, "},\n", {"direct", ch->seconds[0]}, {"jacobi", ch->seconds[1]},
               {"block", ch->seconds[2]});
    fprintf(f, "    \"predicted_iterations\": {");
    JSON_REALS(f, "},\n", {"jacobi", ch->iterations[1]}, {"block", ch->iterations[2]});
    fprintf(f, "    \"forecast\": {\"analysed\": %s, \"block_size\": %d, \"trial_iterations\": %d, ",
            fc->analysed ? "true" : "false", fc->block_size, fc->trial_iterations);
    JSON_REALS(f, "},\n", {"pairs", fc->pairs}, {"matrix_nnz", fc->matrix_nnz},
               {"factor_nnz", fc->factor_nnz}, {"factor_flops", fc->factor_flops},
               {"factor_bytes", fc->factor_bytes}, {"trial_residual", fc->trial_residual},
               {"trial_rate", fc->trial_rate});
    fprintf(f, "    \"calibration\": {\"source\": ");
    json_string(f, c->source);
    fprintf(f, ", ");
    JSON_REALS(f, "}},\n", {"factor_flops", c->factor_flops}, {"block_flops", c->block_flops},
               {"matvec", c->matvec}, {"solve", c->solve}, {"analyse", c->analyse});
}

/* The report's first lines: the command, the archive, the method. */
/* --across-sections: the fields read and the merged fields scored. */
static void report_across(FILE *f, const rate_job *job, const rate_run *run)
{
    if (job->mo.across_sections)
        fprintf(f, "  \"across_sections\": {\"fields_read\": %llu, \"fields_scored\": %llu},\n",
                (unsigned long long)run->across_read, (unsigned long long)run->across_scored);
}

static void report_head(FILE *f, const rate_job *job, const char *archive)
{
    fprintf(f, "{\n  \"command\": \"rate\",\n  \"archive\": ");
    json_string(f, archive);
    fprintf(f, ",\n  \"engine_version\": \"%s\",\n", datum_version());
    fprintf(f, "  \"method\": {\"datum\": ");
    json_string(f, job->mo.preset);
    fprintf(f, ", \"scale\": ");
    json_string(f, job->mo.scale);
    fprintf(f, ", \"double\": %d, \"half\": %d},\n", job->mo.doubled, job->mo.halved);
}

static void report_json(FILE *f, const rate_job *job, const char *archive, const rate_run *run,
                        const datum_rate_result *r)
{
    const datum_rate_stats *s = &r->stats;
    const datum_rate_summary *d = &run->summary;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    report_head(f, job, archive);
    fprintf(f, "  \"window\": {");
    json_date(f, "from", job->has_from, job->window.from, ", ");
    json_date(f, "as_of", 1, job->window.as_of, ", ");
    json_real(f, "half_life_days", job->window.half_life > 0 ? job->window.half_life : NAN, ", ");
    json_date(f, "fit_until", job->has_fit, job->fit_day, "},\n");
    fprintf(f, "  \"data\": {\"results\": %llu, \"pairs\": %u, \"rated_pairs\": %u, "
               "\"fields\": %llu, \"fields_one_table\": %llu, \"rows\": %llu, "
               "\"rows_outside_window\": %llu, \"layouts\": %llu},\n",
            (unsigned long long)run->info.n_results, run->info.n_pairs, s->pairs,
            (unsigned long long)d->fields, (unsigned long long)d->fields_one,
            (unsigned long long)d->rows, (unsigned long long)d->rows_outside,
            (unsigned long long)d->layouts);
    report_across(f, job, run);
    fprintf(f, "  \"components\": {\"total\": %u, \"dense\": %u, \"largest\": %u, "
               "\"opponent\": %u, \"fixed_direction\": %u, \"groups\": %u},\n",
            s->components, s->dense_components, s->largest_component, s->opponent_components,
            s->fixed_components, s->groups);
    fprintf(f, "  \"null_directions\": {\"total\": %u, \"structural\": %u, \"numerical\": %u, "
               "\"dense\": %u, \"dense_structural\": %u, \"search_complete\": %s, ",
            s->null_total, s->null_structural, s->null_numeric, s->null_dense,
            s->null_dense_structural, s->null_complete ? "true" : "false");
    json_real(f, "worst_null_check", s->null_check, "},\n");
    report_certificate(f, r);
    fprintf(f, "  \"residual\": {");
    JSON_REALS(f, ", ", {"norm_Av_minus_r", s->residual}, {"least_possible", s->least_residual},
               {"relative_on_range", s->range_residual}, {"tolerance", job->opt.tolerance});
    fprintf(f, "\"converged\": %s},\n", s->converged ? "true" : "false");
    fprintf(f, "  \"solver\": {\"requested\": \"%s\", \"path\": \"%s\", \"ordering_requested\": "
               "\"%s\", \"ordering\": \"%s\", \"supernodal\": %s, ",
            kSolvers[job->opt.solver], kSolvers[s->path], kOrderings[job->opt.ordering],
            ordering_name(s->ordering), s->supernodal ? "true" : "false");
    json_real(f, "ridge", job->opt.ridge, ", ");
    fprintf(f, "\"iterations\": %d, \"blocks\": %u, \"peeled_pieces\": %u, \"factorizations\": %d, "
               "\"warm_start_pairs\": %d, ",
            s->iterations, s->blocks, s->peeled_pieces, s->factorizations, run->warm_pairs);
    JSON_REALS(f, "},\n", {"matrix_nnz", s->matrix_nnz}, {"factor_nnz", s->factor_nnz},
               {"factor_flops", s->factor_flops}, {"factor_bytes", s->factor_bytes},
               {"predicted_factor_nnz", s->predicted_nnz},
               {"predicted_factor_flops", s->predicted_flops},
               {"predicted_factor_bytes", s->predicted_bytes},
               {"memory_budget_bytes", job->opt.memory});
    report_choice(f, s);
    fprintf(f, "  \"memory\": {\"peak_rss_bytes\": %lld},\n", (long long)ru.ru_maxrss * 1024);
    fprintf(f, "  \"time_seconds\": {");
    JSON_REALS(f, "}", {"read", run->t_read}, {"assemble", s->time_assemble},
               {"analyse", s->time_analyse}, {"factorise", s->time_factorise},
               {"solve", s->time_solve}, {"auto_trial", s->time_trial}, {"write", run->t_write}, {"evaluate", run->t_evaluate},
               {"total", run->t_total});
    if (run->has_truth) {
        fprintf(f, ",\n  \"evaluation\": {\"truth\": {\"pairs\": %zu, ", run->truth_pairs);
        JSON_REALS(f, "}", {"pearson_raw_butler", run->r_raw}, {"pearson_rating", run->r_rating},
                   {"pearson_raw_butler_board_weighted", run->rw_raw},
                   {"pearson_rating_board_weighted", run->rw_rating});
        if (run->has_prediction) {
            double rmse[2], corr[2];
            datum_rate_prediction_summary(&run->pred_rating, &rmse[0], &corr[0]);
            datum_rate_prediction_summary(&run->pred_raw, &rmse[1], &corr[1]);
            fprintf(f, ", \"prediction\": {");
            json_date(f, "fit_until", 1, job->fit_day, ", ");
            fprintf(f, "\"predictions\": %llu, \"unrated\": %llu, ",
                    (unsigned long long)run->pred_rating.count,
                    (unsigned long long)run->pred_rating.skipped);
            JSON_REALS(f, "}", {"rmse_rating", rmse[0]}, {"pearson_rating", corr[0]},
                       {"rmse_raw_butler", rmse[1]}, {"pearson_raw_butler", corr[1]});
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n}\n");
}

/* The report: `fill` prints it into memory, then it is written in one go. */
typedef struct {
    const rate_job *job;
    const char *archive;
    const rate_run *run;
    const datum_rate_result *result;          /* one rating */
    const datum_rate_history_date *dates;     /* --every */
    size_t n_dates;
} report_args;

static void report_one(FILE *f, const report_args *a)
{
    report_json(f, a->job, a->archive, a->run, a->result);
}

static int write_report(datum_ctx *ctx, const report_args *args,
                        void (*fill)(FILE *f, const report_args *args))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (report)");
    fill(f, args);
    int failed = fclose(f) != 0;
    int rc = failed ? datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (report)")
                    : datum_text_write(ctx, args->job->report, text, len);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Evaluation                                                               */

static int evaluate(datum_ctx *ctx, datum_archive *a, datum_across *across, const rate_job *job,
                    const datum_method *m, const datum_rate_result *r, rate_run *run)
{
    uint32_t n = r->n_pairs;
    double *truth = malloc((n + 1) * sizeof *truth);
    if (!truth) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    int rc = datum_archive_read_truth(ctx, a, truth);
    if (rc == DATUM_OK) {
        run->has_truth = 1;
        run->r_raw = datum_rate_pearson(n, r->butler_per_board, truth, r->boards, 0, &run->truth_pairs);
        run->r_rating = datum_rate_pearson(n, r->rating, truth, r->boards, 0, NULL);
        run->rw_raw = datum_rate_pearson(n, r->butler_per_board, truth, r->boards, 1, NULL);
        run->rw_rating = datum_rate_pearson(n, r->rating, truth, r->boards, 1, NULL);
    }
    free(truth);
    if (rc < 0 || !job->has_fit) return rc;
    /* Out of sample: the boards after --fit-until, up to --as-of. */
    datum_rate_window later = {job->fit_day + 1, job->window.as_of, 0};
    datum_rate_sink predict = {.method = m, .predict_window = &later, .n_pairs = n,
                               .rating = r->rating, .raw = r->butler_per_board,
                               .with_rating = &run->pred_rating, .with_raw = &run->pred_raw};
    rc = read_into(ctx, a, across, "predict", &predict);
    run->has_prediction = rc == DATUM_OK;
    return rc;
}

static void print_summary(const rate_job *job, const rate_run *run, const datum_rate_result *r)
{
    const datum_rate_stats *s = &r->stats;
    printf("rated %u pairs from %llu results: %u components (%u solved densely), "
           "null dimension %u (%u structural, %u numerical, %u dense)\n",
           s->pairs, (unsigned long long)run->summary.rows, s->components, s->dense_components,
           s->null_total, s->null_structural - s->null_dense_structural, s->null_numeric,
           s->null_dense);
    printf("solver %s%s: ||Av - r|| = %.6g (least possible %.6g), relative on the range %.3g%s\n",
           kSolvers[s->path], s->path == DATUM_RATE_ITERATIVE ? "" : " (CHOLMOD)", s->residual,
           s->least_residual, s->range_residual, s->converged ? "" : " (above the tolerance)");
    if (s->path == DATUM_RATE_ITERATIVE)
        printf("%d conjugate gradient iterations, %u preconditioner blocks\n", s->iterations, s->blocks);
    if (s->certified_components + s->searched_components > 0)
        printf("null space: %u components (%u pairs) certified by the structure, %u (%u pairs) "
               "searched numerically%s\n",
               s->certified_components, s->certified_pairs, s->searched_components,
               s->searched_pairs, s->null_complete ? "" : " (search not complete)");
    if (s->chose) printf("auto: %s (%s)\n", s->choice.reason, s->calibration.source);
    if (run->has_truth) {
        printf("correlation with the true strengths over %zu pairs: raw Butler %.4f, "
               "compensated %.4f (board-weighted %.4f, %.4f)\n",
               run->truth_pairs, run->r_raw, run->r_rating, run->rw_raw, run->rw_rating);
    }
    if (run->has_prediction) {
        double rmse[2], corr[2];
        datum_rate_prediction_summary(&run->pred_rating, &rmse[0], &corr[0]);
        datum_rate_prediction_summary(&run->pred_raw, &rmse[1], &corr[1]);
        printf("predicting %llu later results: compensated RMSE %.4f r %.4f, raw Butler RMSE "
               "%.4f r %.4f IMPs\n",
               (unsigned long long)run->pred_rating.count, rmse[0], corr[0], rmse[1], corr[1]);
    }
    (void)job;
}

/* ------------------------------------------------------------------------ */

/* --calibration: auto's rates from the file, over the built-in ones. */
static int read_calibration(datum_ctx *ctx, rate_job *job)
{
    if (!job->calibration) return DATUM_OK;
    datum_rate_calibration_builtin(&job->rates);
    int rc = datum_rate_calibration_read(ctx, job->calibration, &job->rates);
    if (rc >= 0) job->opt.calibration = &job->rates;
    return rc;
}

static int run_rate(datum_ctx *ctx, const char *archive_path, void *arg)
{
    rate_job *job = arg;
    rate_run run = {0};
    datum_archive *a = NULL;
    datum_rate_problem *problem = NULL;
    datum_rate_result *r = NULL;
    datum_across *across = NULL;
    double *warm = NULL, t0 = cli_now();
    int rc = datum_archive_open(ctx, archive_path, &a), solved = DATUM_OK;
    if (rc >= 0 && job->mo.across_sections) rc = datum_across_create(ctx, a, &across);
    if (rc < 0) goto done;
    datum_archive_get_info(a, &run.info);
    if (job->evaluate && !run.info.has_truth) {
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT,
                            "%s holds no true strengths (not made by datum generate): "
                            "nothing to evaluate against", archive_path);
        goto done;
    }
    job->window.as_of = job->has_as_of ? job->as_of_day : run.info.last_date;
    job->window.from = job->has_from ? job->from_day : INT32_MIN;
    datum_rate_window fit = job->window;
    if (job->has_fit) {
        if (job->fit_day >= job->window.as_of || job->fit_day < job->window.from) {
            rc = datum_ctx_fail(ctx, DATUM_E_ARG, "--fit-until must be inside the window, before --as-of");
            goto done;
        }
        fit.as_of = job->fit_day; /* fitted as of that day: its age counts from it */
    }
    if ((rc = datum_rate_problem_create(ctx, run.info.n_pairs, &fit, &problem)) < 0) goto done;
    datum_rate_sink add = {.method = &job->mo.method, .problem = problem};
    if ((rc = read_into(ctx, a, across, "read", &add)) < 0) goto done;
    datum_rate_problem_summary(problem, &run.summary);
    if ((rc = cli_rate_summary(ctx, &run.summary)) < 0) goto done;
    if (across) datum_across_counts(across, &run.across_read, &run.across_scored);
    if (job->warm_start) {
        if (!(warm = malloc((run.info.n_pairs + 1) * sizeof *warm))) {
            rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
            goto done;
        }
        if ((rc = datum_ratings_read(ctx, job->warm_start, a, warm, &run.warm_unknown)) < 0) goto done;
        for (uint32_t p = 0; p < run.info.n_pairs; p++) run.warm_pairs += !isnan(warm[p]);
        job->opt.warm_start = warm;
    }
    if ((rc = read_calibration(ctx, job)) < 0) goto done;
    run.t_read = cli_now() - t0;

    solved = cli_rate_solve(ctx, problem, &job->opt, &r);
    if ((rc = solved) < 0) goto done;
    if (job->evaluate) {
        double t = cli_now();
        if ((rc = evaluate(ctx, a, across, job, &job->mo.method, r, &run)) < 0) goto done;
        run.t_evaluate = cli_now() - t;
    }
    double t = cli_now();
    int writer = cli_writes_files(); /* the HDF5 output is every process's */
    if (writer && job->out_csv && (rc = write_csv(ctx, job->out_csv, a, r)) < 0) goto done;
    if (job->out_h5 && (rc = write_h5(ctx, job, archive_path, a, r)) < 0) goto done;
    run.t_write = cli_now() - t;
    run.t_total = cli_now() - t0;
    report_args report = {job, archive_path, &run, r, NULL, 0};
    if (writer && job->report && (rc = write_report(ctx, &report, report_one)) < 0) goto done;
    if (!job->out_csv || strcmp(job->out_csv, "-") != 0) print_summary(job, &run, r);
    if (across) cli_across_report("rate", a, archive_path, run.across_read, run.across_scored);
    if (solved == DATUM_W_EMPTY) fprintf(stderr, "datum rate: warning: no result to rate\n");
    if (solved == DATUM_W_INACCURATE)
        fprintf(stderr, "datum rate: warning: the residual %.3g is above the tolerance %.3g\n",
                r->stats.range_residual, job->opt.tolerance);
    if (run.warm_unknown)
        fprintf(stderr, "datum rate: %llu pairs of %s are not in the archive (ignored)\n",
                (unsigned long long)run.warm_unknown, job->warm_start);
    rc = DATUM_OK;
done:
    datum_rate_result_free(&r);
    datum_rate_problem_free(&problem);
    datum_across_free(&across);
    datum_archive_close(&a);
    free(warm);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* --every: the rating history                                              */

static void history_report(FILE *f, const report_args *args)
{
    const rate_job *job = args->job;
    const rate_run *run = args->run;
    const datum_rate_history_date *d = args->dates;
    size_t n = args->n_dates;
    static const char *const kEvery[] = {[1] = "month", [3] = "quarter", [12] = "year"};
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long long iterations = 0;
    double solve = 0, worst = 0;
    int converged = 1;
    for (size_t k = 0; k < n; k++) {
        iterations += d[k].stats.iterations;
        solve += d[k].seconds;
        if (d[k].stats.pairs > 0 && !(d[k].stats.range_residual <= worst)) worst = d[k].stats.range_residual;
        converged &= d[k].stats.pairs == 0 || d[k].stats.converged;
    }
    report_head(f, job, args->archive);
    fprintf(f, "  \"window\": {\"every\": \"%s\", ", kEvery[job->every_months]);
    json_date(f, "from", job->has_from, job->window.from, ", ");
    json_date(f, "first_as_of", n > 0, n > 0 ? d[0].as_of : 0, ", ");
    json_date(f, "last_as_of", n > 0, n > 0 ? d[n - 1].as_of : 0, ", ");
    json_real(f, "half_life_days", job->window.half_life > 0 ? job->window.half_life : NAN, "},\n");
    report_across(f, job, args->run);
    fprintf(f, "  \"solver\": {\"requested\": \"%s\", \"blas\": ", kSolvers[job->opt.solver]);
    json_string(f, datum_rate_blas_library());
    fprintf(f, ", ");
    json_real(f, "ridge", job->opt.ridge, ", ");
    json_real(f, "tolerance", job->opt.tolerance, "},\n");
    fprintf(f, "  \"history\": [");
    for (size_t k = 0; k < n; k++) {
        const datum_rate_stats *s = &d[k].stats;
        fprintf(f, "%s\n    {", k ? "," : "");
        json_date(f, "as_of", 1, d[k].as_of, ", ");
        fprintf(f, "\"pairs\": %u, \"components\": %u, \"null_total\": %u, \"path\": \"%s\", "
                   "\"auto\": %s%s%s, \"iterations\": %d, \"factorizations\": %d, ",
                s->pairs, s->components, s->null_total, s->pairs ? kSolvers[s->path] : "none",
                s->chose ? "\"" : "", s->chose ? kPaths[s->choice.path] : "null",
                s->chose ? "\"" : "", s->iterations, s->factorizations);
        fprintf(f, "\"null_space\": {\"certified_components\": %u, \"certified_pairs\": %u, "
                   "\"searched_components\": %u, \"searched_pairs\": %u, \"search_complete\": %s}, ",
                s->certified_components, s->certified_pairs, s->searched_components,
                s->searched_pairs, s->null_complete ? "true" : "false");
        JSON_REALS(f, ", ", {"relative_on_range", s->pairs ? s->range_residual : NAN},
                   {"norm_Av_minus_r", s->pairs ? s->residual : NAN},
                   {"assemble_seconds", s->time_assemble},
                   {"solve_seconds", s->time_analyse + s->time_factorise + s->time_solve},
                   {"seconds", d[k].seconds});
        fprintf(f, "\"converged\": %s}", s->pairs == 0 || s->converged ? "true" : "false");
    }
    unsigned long long rows = 0;
    for (size_t k = 0; k < n; k++) rows += d[k].stats.pairs;
    fprintf(f, "\n  ],\n  \"totals\": {\"as_of_dates\": %zu, \"rows\": %llu, \"iterations\": %lld, "
               "\"converged\": %s, ",
            n, rows, iterations, converged ? "true" : "false");
    JSON_REALS(f, "},\n", {"worst_relative_on_range", worst});
    fprintf(f, "  \"memory\": {\"peak_rss_bytes\": %lld},\n", (long long)ru.ru_maxrss * 1024);
    fprintf(f, "  \"time_seconds\": {");
    JSON_REALS(f, "}\n}\n", {"read", run->t_read}, {"solve", solve}, {"write", run->t_write},
               {"total", run->t_total});
}

static int run_history(datum_ctx *ctx, const char *archive_path, void *arg)
{
    rate_job *job = arg;
    rate_run run = {0};
    datum_archive *a = NULL;
    datum_rate_history *h = NULL;
    datum_rate_history_date *d = NULL;
    datum_across *across = NULL;
    int32_t *dates = NULL;
    size_t n = 0, solved = 0;
    double t0 = cli_now();
    int rc = datum_archive_open(ctx, archive_path, &a), inaccurate = 0;
    if (rc >= 0 && job->mo.across_sections) rc = datum_across_create(ctx, a, &across);
    if (rc < 0) goto done;
    datum_archive_get_info(a, &run.info);
    job->window.as_of = job->has_as_of ? job->as_of_day : run.info.last_date;
    job->window.from = job->has_from ? job->from_day : INT32_MIN;
    int32_t first = job->has_from && job->from_day > run.info.first_date ? job->from_day
                                                                          : run.info.first_date;
    if (first > job->window.as_of) first = job->window.as_of; /* refused below if --from is later */
    if (job->has_from && job->from_day > job->window.as_of) {
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "--from is after the last as-of date");
        goto done;
    }
    if ((rc = datum_rate_history_dates(ctx, job->every_months, first, job->window.as_of, &dates, &n)) < 0 ||
        (rc = datum_rate_history_create(ctx, run.info.n_pairs, job->window.from, job->window.half_life,
                                        dates, n, &h)) < 0)
        goto done;
    datum_rate_sink add = {.method = &job->mo.method, .history = h};
    if ((rc = read_into(ctx, a, across, "read", &add)) < 0) goto done;
    if (across) datum_across_counts(across, &run.across_read, &run.across_scored);
    if ((rc = read_calibration(ctx, job)) < 0) goto done;
    run.t_read = cli_now() - t0;
    if (!(d = calloc(n, sizeof *d))) {
        rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
        goto done;
    }
    cli_output_attrs attrs;
    cli_pass_outputs(&attrs, &job->mo, archive_path);
    datum_rate_history_outputs out = {job->out_csv, job->out_h5, "rate", attrs.keys, attrs.values,
                                      attrs.n};
    if ((rc = datum_rate_history_run(ctx, a, h, dates, n, &job->opt, &out, d, &solved,
                                     &run.t_write)) < 0)
        goto done;
    for (size_t k = 0; k < n; k++) inaccurate += d[k].status == DATUM_W_INACCURATE;
    run.t_total = cli_now() - t0;
    report_args report = {job, archive_path, &run, NULL, d, solved};
    if (job->report && (rc = write_report(ctx, &report, history_report)) < 0) goto done;
    if (!job->out_csv || strcmp(job->out_csv, "-") != 0) {
        char from[DATUM_DATE_SIZE], to[DATUM_DATE_SIZE];
        long long iterations = 0;
        double solve = 0;
        for (size_t k = 0; k < n; k++) iterations += d[k].stats.iterations, solve += d[k].seconds;
        printf("rated %zu as-of dates, %s to %s: %llu pairs rated as of the last; "
               "%lld conjugate gradient iterations; read %.2f s, solve %.2f s\n",
               n, datum_format_date(dates[0], from), datum_format_date(dates[n - 1], to),
               (unsigned long long)d[n - 1].stats.pairs, iterations, run.t_read, solve);
    }
    if (across) cli_across_report("rate", a, archive_path, run.across_read, run.across_scored);
    if (inaccurate)
        fprintf(stderr, "datum rate: warning: %d as-of dates have a residual above the tolerance "
                        "%.3g (see the report)\n", inaccurate, job->opt.tolerance);
    rc = DATUM_OK;
done:
    datum_rate_history_free(&h);
    datum_across_free(&across);
    datum_archive_close(&a);
    datum_free(dates);
    free(d);
    return rc;
}

int cmd_rate(int argc, char **argv)
{
    rate_job job = {.threads = cli_default_threads(), .block_size = 0};
    job.opt = (datum_rate_options)DATUM_RATE_OPTIONS_INIT;
    job.window = (datum_rate_window)DATUM_RATE_WINDOW_INIT;
    cli_method_defaults(&job.mo, "mean"); /* seed 000's datum */
    cli_bounded_int block = {&job.block_size, 1, 1000000, "--block-size"};
    cli_option table[48];
    size_t n = cli_method_option_table(&job.mo, table, 0, 1, 0);
    const cli_option own[] = {
        {"--out", 1, cli_set_string, &job.out_csv},
        {"-o", 1, cli_set_string, &job.out_h5},
        {"--report", 1, cli_set_string, &job.report},
        {"--half-life", 1, cli_set_string, &job.half_life},
        {"--as-of", 1, cli_set_string, &job.as_of},
        {"--from", 1, cli_set_string, &job.from},
        {"--ridge", 1, cli_set_string, &job.ridge},
        {"--solver", 1, cli_set_string, &job.solver},
        {"--calibration", 1, cli_set_string, &job.calibration},
        {"--memory", 1, cli_set_string, &job.memory},
        {"--ordering", 1, cli_set_string, &job.ordering},
        {"--block-size", 1, cli_set_bounded_int, &block},
        {"--tolerance", 1, cli_set_string, &job.tolerance},
        {"--warm-start", 1, cli_set_string, &job.warm_start},
        {"--evaluate", 0, cli_set_flag, &job.evaluate},
        {"--fit-until", 1, cli_set_string, &job.fit_until},
        {"--threads", 1, cli_set_threads, &job.threads},
        {"--every", 1, cli_set_string, &job.every},
        cli_across_option(&job.mo),
    };
    for (size_t k = 0; k < sizeof own / sizeof *own; k++) table[n++] = own[k];
    const char *positional[argc + 1];
    cli_parser p = {"rate", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, n, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1)
        return cli_usage_error(&p, "expected one archive, got %d arguments", p.n_positional),
               EXIT_BAD_INPUT;
    if (resolve(&p, &job) != 0) return EXIT_BAD_INPUT;
    return cli_run_job(job.threads, job.every ? run_history : run_rate, positional[0], &job);
}
