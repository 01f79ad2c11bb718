/* cmd_compare.c - `datum compare`: the methods' specs and options, a
 * comparison of jobs/ (datum_compare.h), and the printed tables. Everything
 * computed lives in the library; this file parses and prints. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char kHelp[] =
    "usage: datum compare ARCHIVE.h5 --method SPEC --method SPEC [...] [options]\n"
    "\n"
    "Compares scoring methods over an archive: every per-board method in one pass,\n"
    "the rankings they give per event (or year, or the whole archive) and, for every\n"
    "two methods, Spearman and Kendall tau-b, winner and podium changes, top-k\n"
    "overlap, rank changes, mean absolute difference per board; each method against\n"
    "the true strengths of a generated archive; the continuity of each method when\n"
    "one result changes (seed 003). See docs/methods.md, \"Comparing methods\".\n"
    "\n"
    "  --method SPEC         NAME[:OPTION]...  (twice at least, 16 at most)\n"
    "                        NAME: mean | nbb | bastille | par | acbl | bridgewx (Butler\n"
    "                        against that datum), cross, barking, mp (matchpoints),\n"
    "                        rate (compensated Butler ratings, their own solve)\n"
    "                        OPTION: wbf | linear | double | half | KEY=VALUE, KEY an\n"
    "                        option of datum score, cross or matchpoints without its\n"
    "                        dashes: nbb:wbf, bastille:linear, mean:trim=1:round=away,\n"
    "                        cross:divisor=n, mp:top=n-1:no-neuberg, rate:datum=nbb\n"
    "  --by G                event (default) | year | all: the groups ranked\n"
    "  --top-k K             the top-k overlap's k (default 10)\n"
    "  --sample N            continuity: about N board fields perturbed (default\n"
    "                        10000; 0: none)\n"
    "  --seed S              of the sample (default 1)\n"
    "  --groups FILE.csv     one row per group and two methods (and truth)\n"
    "  --report DIR          DIR/index.html, a page with every table and figure, and\n"
    "                        the tables as CSV beside it\n"
    "  --threads N           worker threads, default all processors (results never depend on N)\n";

typedef struct {
    datum_compare_method method[DATUM_COMPARE_MAX_METHODS];
    size_t n;
    datum_compare_options opt;
    const char *report;
    int threads;
    char *command_line;
    cli_parser *parser;
} compare_job;

static int add_method(cli_parser *p, const char *value, void *target)
{
    compare_job *job = target;
    if (job->n >= DATUM_COMPARE_MAX_METHODS)
        return cli_usage_error(p, "at most %d methods", DATUM_COMPARE_MAX_METHODS);
    if (cli_method_spec(p, value, &job->method[job->n]) != 0) return -1;
    job->n++;
    return 0;
}

static int set_by(cli_parser *p, const char *value, void *target)
{
    static const char *const names[] = {"event", "year", "all"};
    for (int i = 0; i < 3; i++)
        if (strcmp(value, names[i]) == 0) {
            *(datum_compare_by *)target = (datum_compare_by)i;
            return 0;
        }
    return cli_usage_error(p, "--by takes event, year or all, not '%s'", value);
}

/* "CPU MODEL, N CPUs online, T threads, load L" for the report. */
static void describe_machine(int threads, char *out, size_t size)
{
    char model[256] = "unknown CPU", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    if (f) fclose(f);
    double load = NAN;
    f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &load) != 1) load = NAN;
    if (f) fclose(f);
    snprintf(out, size, "%s, %ld CPUs online, %d threads used, load average %.2f at the end", model,
             sysconf(_SC_NPROCESSORS_ONLN), threads, load);
}

/* A figure in a column of width w: "–" where it is not defined (NaN), as
 * the report's tables show it, rather than printf's "nan". The dash is three
 * bytes of UTF-8 and one column, so the padding is written by hand. */
static void print_cell(int width, int decimals, double v)
{
    if (isnan(v)) printf(" %*s\u2013", width - 1, "");
    else printf(" %*.*f", width, decimals, v);
}

static void print_summary(const datum_compare_summary *s)
{
    static const char *const by[] = {"event", "year", "all"};
    size_t m = s->n_methods, np = m * (m - 1) / 2;
    printf("%llu groups (by %s), %llu pairs ranked\n\n", (unsigned long long)s->groups, by[s->by],
           (unsigned long long)s->group_pairs);
    printf("%-24s %-24s %8s %9s %9s %8s %8s %7s %9s\n", "method A", "method B", "groups",
           "spearman", "kendall", "winner%", "podium%", "top-k", "|A-B|");
    for (size_t p = 0; p < np; p++) {
        const datum_compare_pair *x = &s->pairs[p];
        printf("%-24s %-24s %8llu", s->methods[x->a].name, s->methods[x->b].name,
               (unsigned long long)x->groups);
        print_cell(9, 4, x->spearman);
        print_cell(9, 4, x->kendall);
        print_cell(8, 2, x->groups ? 100.0 * (double)x->winner_changes / (double)x->groups : NAN);
        print_cell(8, 2, x->podium_groups ? 100.0 * (double)x->podium_changes / (double)x->podium_groups
                                          : NAN);
        print_cell(7, 3, x->topk_overlap);
        print_cell(9, 3, x->mean_abs_diff); /* methods of different units: no difference */
        printf("\n");
    }
    if (s->has_truth) {
        printf("\n%-24s %9s %9s   (against the true strengths)\n", "method", "spearman", "kendall");
        for (size_t i = 0; i < m; i++) {
            printf("%-24s", s->methods[i].name);
            print_cell(9, 4, s->truth[i].spearman);
            print_cell(9, 4, s->truth[i].kendall);
            printf("\n");
        }
    }
    printf("\nseconds: pass %.2f, rankings and statistics %.2f, ratings %.2f\n", s->seconds_pass,
           s->seconds_stats, s->seconds_rate);
    static const char *const kind[] = {"+10", "trick", "adjusted"};
    printf("\ncontinuity (%llu fields perturbed): other pairs' event totals, and ranks\n",
           (unsigned long long)s->sampled_fields);
    printf("%-24s %-8s %8s %10s %9s %10s %10s\n", "method", "change", "made", "mean move",
           "max move", "rank chg%", "gain more%");
    for (size_t i = 0; i < m; i++) {
        if (s->methods[i].kind == DATUM_COMPARE_RATE) continue;
        for (int k = 0; k < DATUM_PERTURB_KINDS; k++) {
            const datum_compare_continuity *x = &s->continuity[i * DATUM_PERTURB_KINDS + (size_t)k];
            double made = (double)x->made;
            printf("%-24s %-8s %8llu", s->methods[i].name, kind[k], (unsigned long long)x->made);
            print_cell(10, 4, x->mean_move);
            print_cell(9, 3, x->max_move);
            print_cell(10, 2, made ? 100.0 * (double)x->rank_perturbations / made : NAN);
            print_cell(10, 2, made ? 100.0 * (double)x->gain_more / made : NAN);
            printf("\n");
        }
    }
}

static int run(datum_ctx *ctx, const char *archive_path, void *arg)
{
    compare_job *job = arg;
    datum_compare *c = NULL;
    int rc = datum_compare_create(ctx, archive_path, &job->opt, &c);
    for (size_t i = 0; rc >= 0 && i < job->n; i++) rc = datum_compare_add(c, &job->method[i]);
    cli_progress progress;
    cli_progress_start(&progress, ctx, "compare");
    if (rc >= 0) rc = datum_compare_run(c);
    cli_progress_finish(&progress);
    if (rc >= 0 && job->report) {
        char machine[512];
        describe_machine(datum_ctx_threads(ctx), machine, sizeof machine);
        rc = datum_compare_write_report(c, job->report, job->command_line, machine);
    }
    datum_compare_summary s;
    if (rc >= 0 && (rc = datum_compare_get(c, &s)) >= 0) {
        print_summary(&s);
        if (s.rate_status == DATUM_W_INACCURATE)
            fprintf(stderr, "datum compare: warning: the ratings' residual is above the tolerance\n");
    }
    datum_compare_free(&c);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_job job = {.opt = DATUM_COMPARE_OPTIONS_INIT, .threads = cli_default_threads()};
    static cli_bounded_int top_k;
    top_k = (cli_bounded_int){&job.opt.top_k, 1, 1000000, "--top-k"};
    cli_u64 sample = {&job.opt.sample, "--sample"}, seed = {&job.opt.seed, "--seed"};
    cli_option table[] = {
        {"--method", 1, add_method, &job},
        {"--by", 1, set_by, &job.opt.by},
        {"--top-k", 1, cli_set_bounded_int, &top_k},
        {"--sample", 1, cli_set_u64, &sample},
        {"--seed", 1, cli_set_u64, &seed},
        {"--groups", 1, cli_set_string, &job.opt.groups_csv},
        {"--report", 1, cli_set_string, &job.report},
        {"--threads", 1, cli_set_threads, &job.threads},
    };
    const char *positional[argc + 1];
    cli_parser p = {"compare", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1) {
        cli_usage_error(&p, "expected one archive, got %d arguments", p.n_positional);
        return EXIT_BAD_INPUT;
    }
    if (job.n < 2) {
        cli_usage_error(&p, "compare needs two --method at least, got %zu", job.n);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < job.n; i++)
        for (size_t k = i + 1; k < job.n; k++)
            if (job.method[i].kind == DATUM_COMPARE_RATE && job.method[k].kind == DATUM_COMPARE_RATE) {
                cli_usage_error(&p, "rate can be compared once only");
                return EXIT_BAD_INPUT;
            }
    /* The command line, as the report shows it. */
    size_t len = 16;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
    job.command_line = malloc(len);
    if (!job.command_line) {
        fprintf(stderr, "datum: out of memory\n");
        return EXIT_FAILURE_RUN;
    }
    strcpy(job.command_line, "datum");
    for (int i = 0; i < argc; i++) strcat(strcat(job.command_line, " "), argv[i]);
    int status = cli_run_job(job.threads, run, positional[0], &job);
    free(job.command_line);
    return status;
}
