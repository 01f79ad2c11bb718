/* cmd_score.c - `datum score` (Butler against a datum), `datum cross`
 * (cross-IMPs), `datum barking` (barking cross-IMPs, §5) and `datum
 * matchpoints`: the options, a pass of jobs/ (datum_jobs.h) with one method,
 * and the printed ranking. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { JOB_BUTLER, JOB_CROSS, JOB_BARKING, JOB_MATCHPOINTS } job_kind;

typedef struct {
    job_kind kind;
    cli_method_options mo;
    int threads;
    int ranking; /* print the ranking even when files are written */
    int compare_published; /* --compare-published (score, cross, matchpoints) */
    const char *out_h5, *results_csv, *pairs_csv;
    cli_mp_options mpo; /* matchpoints */
    const char *tolerance; /* --published-tolerance */
    double tolerance_value; /* parsed by score_main when tolerance is set */
} score_job;

static void print_ranking(const score_job *job, const datum_archive *a, const datum_pair_totals *t,
                          const uint32_t *order, uint32_t n)
{
    if (job->kind == JOB_MATCHPOINTS) {
        /* A Mitchell (every pair always one way, both ways present) ranks
         * North-South and East-West apart; anything else, every pair together. */
        int fixed = 1, ns = 0, ew = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = order[i];
            ns |= t->ns_boards[p] == t->boards[p];
            ew |= t->ns_boards[p] == 0;
            fixed &= t->ns_boards[p] == t->boards[p] || t->ns_boards[p] == 0;
        }
        int apart = fixed && ns && ew;
        for (int side = apart ? 1 : 0; side <= (apart ? 2 : 0); side++) {
            printf("%sMatchpoints, top %s, %s%s%s\n", side == 2 ? "\n" : "",
                   job->mpo.mp.half ? "n-1" : "2(n-1)",
                   job->mpo.mp.neuberg ? (job->mpo.mp.neuberg_to_field ? "Neuberg to the field" : "Neuberg")
                                   : "no Neuberg",
                   job->mo.across_sections ? ", across sections" : "",
                   side == 1 ? ", North-South" : side == 2 ? ", East-West" : "");
            printf("%5s  %-20s %7s %12s %10s %8s\n", "rank", "pair", "boards", "matchpoints", "top",
                   "%");
            for (uint32_t i = 0, rank = 0; i < n; i++) {
                uint32_t p = order[i];
                if (side && (t->ns_boards[p] != 0) != (side == 1)) continue;
                printf("%5u  %-20s %7lld %12.2f %10.2f %8.2f\n", ++rank, datum_archive_pair(a, p),
                       (long long)t->boards[p], t->imps[p], t->raw[p], t->per_board[p]);
            }
        }
        return;
    }
    const char *title[] = {"Butler", "Cross-IMPs", "Barking cross-IMPs"};
    printf("%s, datum %s, scale %s%s%s%s\n", title[job->kind],
           job->kind != JOB_BUTLER ? "-" : job->mo.preset, job->mo.scale,
           job->mo.doubled ? ", doubled" : "", job->mo.halved ? ", halved" : "",
           job->mo.across_sections ? ", across sections" : "");
    printf("%5s  %-20s %7s %10s %10s\n", "rank", "pair", "boards", "IMPs", "IMPs/board");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = order[i];
        printf("%5u  %-20s %7lld %10.2f %10.3f\n", i + 1, datum_archive_pair(a, p),
               (long long)t->boards[p], t->imps[p], t->per_board[p]);
    }
}

static int run(datum_ctx *ctx, const char *archive_path, void *arg)
{
    score_job *job = arg;
    static int (*const add[])(datum_pass *, const datum_method *, const datum_pass_outputs *,
                              int *) = {datum_pass_add_butler, datum_pass_add_cross,
                                        datum_pass_add_barking};
    datum_pass *pass = NULL;
    cli_output_attrs attrs;
    datum_pass_outputs o = cli_pass_outputs(&attrs, &job->mo, archive_path);
    o.h5 = job->out_h5;
    o.results_csv = job->results_csv;
    o.pairs_csv = job->pairs_csv;
    o.compare_published = job->compare_published;
    if (job->tolerance) o.published_tolerance = job->tolerance_value;
    if (job->kind == JOB_MATCHPOINTS) { /* the matchpoints' own method, not a datum's */
        const datum_mp_method *m = &job->mpo.mp;
        static const char *const keys[] = {"method", "top", "neuberg", "adjusted_shares", "archive"};
        char(*b)[96] = attrs.buffers;
        snprintf(b[0], sizeof b[0], "matchpoints");
        snprintf(b[1], sizeof b[1], "%s", m->half ? "n-1" : "2(n-1)");
        snprintf(b[2], sizeof b[2], "%s", m->neuberg ? "yes" : "no");
        snprintf(b[3], sizeof b[3], "%.17g,%.17g,%.17g", m->award.plus, m->award.average,
                 m->award.minus);
        for (int i = 0; i < 4; i++) attrs.values[i] = b[i];
        attrs.values[4] = archive_path;
        o.attr_keys = keys;
        o.attr_values = attrs.values;
        o.n_attrs = 5;
    }
    int id;
    int rc = datum_pass_create(ctx, archive_path, &pass);
    if (rc >= 0 && job->mo.across_sections) rc = datum_pass_set_across_sections(pass, 1);
    if (rc >= 0)
        rc = job->kind == JOB_MATCHPOINTS ? datum_pass_add_matchpoints(pass, &job->mpo.mp, &o, &id)
                                          : add[job->kind](pass, &job->mo.method, &o, &id);
    if (rc < 0) goto done;
    const char *label[] = {"score", "cross", "barking", "matchpoints"};
    cli_progress progress;
    cli_progress_start(&progress, ctx, label[job->kind]);
    if ((rc = cli_pass_run(ctx, pass)) < 0) goto done;
    cli_progress_finish(&progress);

    const datum_archive *a = datum_pass_archive(pass);
    uint64_t fields_read, fields_scored;
    if (job->mo.across_sections && datum_pass_across_counts(pass, &fields_read, &fields_scored) >= 0)
        cli_across_report(label[job->kind], a, archive_path, fields_read, fields_scored);
    if (job->ranking || !(job->out_h5 || job->results_csv || job->pairs_csv)) {
        datum_pair_totals t;
        const uint32_t *order;
        uint32_t n;
        if ((rc = datum_pass_totals(pass, id, &t)) < 0 ||
            (rc = datum_pass_ranking(pass, id, &order, &n)) < 0)
            goto done;
        print_ranking(job, a, &t, order, n);
    }
    datum_published_summary published;
    if (job->compare_published && (rc = datum_pass_published(pass, id, &published)) >= 0)
        cli_published_report(&published, a, stderr);
done:
    datum_pass_free(&pass);
    return rc;
}

/* --compare-published, for score (ns_imps) and cross (ns_avg). */
#define COMPARE_PUBLISHED_HELP(figure)                                                             \
    "  --compare-published   compare every " figure " (and East-West's) with the\n"               \
    "                        figures the scoring program published (a USEBIO or\n"              \
    "                        PBN import): the count that agree and the first that\n"           \
    "                        do not, on stderr; --results gets a published_ns column\n"

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
    "  --threads N           worker threads, default all processors (results never depend on N)\n"
    "  -o OUT.h5             write datums, IMPs and pair totals to an HDF5 file\n"
    "  --results FILE.csv    one row per result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    CLI_ACROSS_HELP
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
    "  --threads N           worker threads, default all processors (results never depend on N)\n"
    "  -o OUT.h5             write per-result and per-pair figures to an HDF5 file\n"
    "  --results FILE.csv    one row per scored result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    CLI_ACROSS_HELP
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
    "  --threads N           worker threads, default all processors (results never depend on N)\n"
    "  -o OUT.h5             write per-result and per-pair figures to an HDF5 file\n"
    "  --results FILE.csv    one row per scored result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    CLI_ACROSS_HELP
    "\n"
    "The scale is wbf (--scale linear is refused); see docs/methods.md.\n";

static const char kMatchpointsHelp[] =
    "usage: datum matchpoints ARCHIVE.h5 [options]\n"
    "\n"
    "Matchpoints: every real result against the other real results of its field,\n"
    "2 per result beaten and 1 per tie; Neuberg's formula for fields smaller than\n"
    "their event's largest and for the real results of fields with adjusted ones.\n"
    "Without -o, --results or --pairs the ranking (percentage) is printed.\n"
    "\n"
    "  --top T               2(n-1) (default: 2 per result beaten, 1 per tie)\n"
    "                        | n-1 (1 and 1/2, North American)\n"
    "  --neuberg             factor with Neuberg's formula (default)\n"
    "  --no-neuberg          score each field on its own real results\n"
    "  --neuberg-to TO       event (default: the event's largest field) | field\n"
    "                        (the field's own rows: only adjusted results factor)\n"
    "  --adjusted P,A,M      percent of the top for average-plus, average,\n"
    "                        average-minus (60,50,40)\n"
    "  --threads N           worker threads, default all processors (results never depend on N)\n"
    "  -o OUT.h5             write tops, matchpoints and pair totals to an HDF5 file\n"
    "  --results FILE.csv    one row per result (- for standard output)\n"
    "  --pairs FILE.csv      one row per pair\n"
    "  --ranking             print the ranking even when writing files\n"
    CLI_ACROSS_HELP
    COMPARE_PUBLISHED_HELP("ns_mp")
    "  --published-tolerance T  a figure agrees within T (default 0.005; 0.05 for\n"
    "                        programs that publish tenths)\n"
    "\n"
    "See docs/methods.md, \"Matchpoints\".\n";

static int score_main(int argc, char **argv, job_kind kind)
{
    const char *name[] = {"score", "cross", "barking", "matchpoints"};
    const char *help[] = {kScoreHelp, kCrossHelp, kBarkingHelp, kMatchpointsHelp};
    score_job job = {.kind = kind, .threads = cli_default_threads()};
    cli_method_defaults(&job.mo, kind != JOB_BUTLER ? "mean" : NULL);
    cli_option table[32];
    size_t n = 0;
    if (kind == JOB_MATCHPOINTS) {
        n = cli_mp_option_table(&job.mpo, table, 0);
        table[n++] = (cli_option){"--published-tolerance", 1, cli_set_string, &job.tolerance};
    } else {
        n = cli_method_option_table(&job.mo, table, 0, kind == JOB_BUTLER, kind == JOB_CROSS);
    }
    table[n++] = (cli_option){"--threads", 1, cli_set_threads, &job.threads};
    table[n++] = (cli_option){"-o", 1, cli_set_string, &job.out_h5};
    table[n++] = (cli_option){"--results", 1, cli_set_string, &job.results_csv};
    table[n++] = (cli_option){"--pairs", 1, cli_set_string, &job.pairs_csv};
    table[n++] = (cli_option){"--ranking", 0, cli_set_flag, &job.ranking};
    table[n++] = cli_across_option(&job.mo);
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
    if (kind == JOB_MATCHPOINTS && cli_mp_resolve(&p, &job.mpo) != 0) return EXIT_BAD_INPUT;
    if (job.tolerance && datum_parse_real(job.tolerance, strlen(job.tolerance), 0, 1e9,
                                          &job.tolerance_value) != DATUM_PARSE_OK) {
        cli_usage_error(&p, "--published-tolerance takes a number >= 0, not '%s'", job.tolerance);
        return EXIT_BAD_INPUT;
    }
    if (kind == JOB_BARKING && job.mo.method.scale.kind != DATUM_SCALE_WBF) {
        cli_usage_error(&p, "barking is defined on the wbf scale only");
        return EXIT_BAD_INPUT;
    }
    return cli_run_job(job.threads, run, positional[0], &job);
}

int cmd_score(int argc, char **argv) { return score_main(argc, argv, JOB_BUTLER); }
int cmd_cross(int argc, char **argv) { return score_main(argc, argv, JOB_CROSS); }
int cmd_barking(int argc, char **argv) { return score_main(argc, argv, JOB_BARKING); }
int cmd_matchpoints(int argc, char **argv) { return score_main(argc, argv, JOB_MATCHPOINTS); }
