/* main.c - `datum`: git-style dispatch to the subcommands. */
#include "cli.h"

#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command kCommands[] = {
    {"import", cmd_import, "import results (CSV, USEBIO, PBN; tarot CSV) into an archive"},
    {"export", cmd_export, "write an archive's results back as CSV (the import format)"},
    {"compact", cmd_compact, "make an archive with appended segments one file again"},
    {"info", cmd_info, "describe an archive"},
    {"score", cmd_score, "Butler: datum per board, IMPs per result, pair totals"},
    {"cross", cmd_cross, "cross-IMPs per result and pair totals"},
    {"matchpoints", cmd_matchpoints, "matchpoints per result (Neuberg), pair percentages"},
    {"generate", cmd_generate, "a synthetic federation with known strengths, into an archive"},
    {"barking", cmd_barking, "barking cross-IMPs (teams of eight and beyond), pair totals"},
    {"teams", cmd_teams, "teams matches: aggregate IMPs per match and board, match totals"},
    {"rate", cmd_rate, "compensated Butler ratings of every pair (seed 000), on CHOLMOD"},
    {"compare", cmd_compare, "compare scoring methods: rank correlations, continuity, a report"},
    {"tarot", cmd_tarot, "tarot Attaque-Défense: PM per étui, rankings, roadmap sheets"},
};

/* The hooks of cli.h: one process does everything. */
int cli_pass_run(datum_ctx *ctx, datum_pass *pass)
{
    (void)ctx;
    return datum_pass_run(pass);
}

int cli_slice(datum_ctx *ctx, const datum_archive *a, int whole_events, uint64_t *first,
              uint64_t *end)
{
    (void)ctx, (void)whole_events;
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    *first = 0;
    *end = info.n_fields;
    return DATUM_OK;
}

int cli_rate_solve(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *opt,
                   datum_rate_result **out)
{
    return datum_rate_solve(ctx, p, opt, out);
}

int cli_rate_summary(datum_ctx *ctx, datum_rate_summary *s)
{
    (void)ctx, (void)s;
    return DATUM_OK;
}

int cli_writes_files(void) { return 1; }

int cli_default_threads(void) { return datum_available_threads(); }

static void usage(FILE *out)
{
    fprintf(out, "usage: datum [--version] [--help] COMMAND [ARGS]\n\n"
                 "Scores duplicate games against a datum, at federation scale.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof kCommands / sizeof *kCommands; i++)
        fprintf(out, "  %-8s %s\n", kCommands[i].name, kCommands[i].summary);
    fprintf(out, "\n'datum COMMAND --help' describes a command. Exit codes: 0 ok, 1 failure,\n"
                 "2 bad input or usage.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            char *help_argv[] = {argv[2], "--help", NULL};
            for (size_t i = 0; i < sizeof kCommands / sizeof *kCommands; i++)
                if (strcmp(argv[2], kCommands[i].name) == 0) return kCommands[i].run(2, help_argv);
        }
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("datum %s\n", datum_version());
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof kCommands / sizeof *kCommands; i++)
        if (strcmp(argv[1], kCommands[i].name) == 0) return kCommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "datum: '%s' is not a datum command (see 'datum --help')\n", argv[1]);
    return EXIT_BAD_INPUT;
}
