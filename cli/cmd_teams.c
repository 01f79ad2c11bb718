/* cmd_teams.c - `datum teams`: the teams matches themselves (§5): per match
 * and board the aggregate of a team's own-perspective scores converted to
 * IMPs, and per match the totals of each team. The options, a pass of jobs/
 * (datum_jobs.h) with the teams method, and the printed totals. */
#include "cli.h"

typedef struct {
    cli_method_options mo;
    int threads;
    const char *out_h5, *matches_csv, *totals_csv;
} teams_job;

/* Prints one (event, section)'s match totals. */
static int print_block(void *user, const datum_teams_block *b)
{
    const datum_archive *a = user;
    for (size_t i = 0; i < b->n_matches; i++) {
        const datum_match_total *s = &b->matches[i];
        printf("%-20s %-12s %-16s %-16s %-16s %6lld %8.1f %8.1f\n",
               datum_archive_event(a, b->event), datum_archive_section(a, b->section),
               datum_archive_match(a, s->match), datum_archive_team(a, (uint32_t)s->team_a),
               datum_archive_team(a, (uint32_t)s->team_b), (long long)s->boards, s->imps_won,
               s->imps_lost);
    }
    return DATUM_OK;
}

static int run(datum_ctx *ctx, const char *archive_path, void *arg)
{
    teams_job *job = arg;
    int print = !(job->out_h5 || job->matches_csv || job->totals_csv);
    datum_pass *pass = NULL;
    cli_output_attrs attrs;
    datum_pass_outputs o = cli_pass_outputs(&attrs, &job->mo, archive_path);
    o.h5 = job->out_h5;
    o.matches_csv = job->matches_csv;
    o.totals_csv = job->totals_csv;
    int id;
    int rc = datum_pass_create(ctx, archive_path, &pass);
    if (rc >= 0) {
        void *archive = (void *)datum_pass_archive(pass); /* read only, by print_block */
        rc = datum_pass_add_teams(pass, &job->mo.method, &o, print ? print_block : NULL, archive,
                                  &id);
    }
    if (rc >= 0 && print)
        printf("%-20s %-12s %-16s %-16s %-16s %6s %8s %8s\n", "event", "section", "match", "team",
               "opponent", "boards", "won", "lost");
    if (rc >= 0) rc = datum_pass_run(pass);
    datum_pass_free(&pass);
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
    "  --threads N           worker threads, default all processors (results never depend on N)\n"
    "  --matches FILE.csv    one row per match and board (- for standard output)\n"
    "  --totals FILE.csv     two rows per match: each team's totals\n"
    "  -o OUT.h5             per result: its match's aggregate and IMPs (NS side)\n";

int cmd_teams(int argc, char **argv)
{
    teams_job job = {.threads = cli_default_threads()};
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
