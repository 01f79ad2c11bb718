/* cmd_generate.c - `datum generate`: a synthetic federation into a new archive. */
#include "cli.h"
#include "generate.h"

#include <stdlib.h>
#include <string.h>

static const char kHelp[] =
    "usage: datum generate -o ARCHIVE.h5 [--preset NAME] [options]\n"
    "\n"
    "Writes a synthetic federation into a new archive: clubs and their pairs\n"
    "sessions (Howell or Mitchell, sections), regional and national congresses,\n"
    "teams-of-eight leagues; every score a legal duplicate score; the true\n"
    "strength of every pair stored in /truth. The same options and seed give the\n"
    "same archive for any number of threads. The options override --mixing,\n"
    "which overrides the preset.\n"
    "\n"
    "  -o ARCHIVE.h5           the archive to write (replaced only on success)\n"
    "  --preset NAME           small (default; about 100 thousand results),\n"
    "                          decade (200 clubs, 10 years, about 80 million),\n"
    "                          national (1000 clubs, 10 years, about 400 million)\n"
    "  --clubs N               clubs, 1..9999\n"
    "  --years N               years, 1..50\n"
    "  --sessions-per-week N   club sessions a week, 1..7\n"
    "  --boards N              boards of a session or a league match, 2..99\n"
    "  --first-year Y          calendar year of the first season\n"
    "  --seed S                random seed (default 1)\n"
    "\n"
    "Mixing (docs/cli.md says what each level sets and why):\n"
    "  --mixing LEVEL          low (small's: one club each, 4 regionals and 1\n"
    "                          national a year), medium (decade's, national's), high;\n"
    "                          the options below override it\n"
    "  --multi-club S          share of partnerships also members of 1 or 2 other\n"
    "                          clubs of their region, 0..1\n"
    "  --visitors-region S     share of a club session's pairs from the region's\n"
    "                          other clubs, 0..0.9\n"
    "  --visitors-nation S     share from the other regions' clubs, 0..0.9 (the two\n"
    "                          shares add up to at most 0.9)\n"
    "  --regionals N           regional congress weekends a year per region, 0..52\n"
    "  --regional-share S      share of the region's partnerships at one, 0..1\n"
    "  --nationals N           national congress weekends a year, 0..12\n"
    "  --national-share S      share of all partnerships at one, 0..1\n"
    "Attendance and turnover:\n"
    "  --attendance S          mean share of a club's partnerships at a session,\n"
    "                          0.01..1 (default 0.44)\n"
    "  --leave-rate S          players leaving their club in a year, 0..1 (0.06)\n"
    "  --partnership-keep S    a partnership lasting another year, 0..1 (0.9)\n"
    "\n"
    "  --threads N             worker threads, default all processors (the archive never depends on N)\n"
    "  --no-compress           store the columns uncompressed\n"
    "  --deflate LEVEL         deflate level 1..9 (default 1)\n";

/* A real option whose value must be in [lo, hi]. */
typedef struct {
    double *value;
    double lo, hi;
    const char *name;
} bounded_real;

static int set_bounded_real(cli_parser *p, const char *value, void *target)
{
    bounded_real *b = target;
    if (datum_parse_real(value, strlen(value), b->lo, b->hi, b->value) != DATUM_PARSE_OK)
        return cli_usage_error(p, "%s takes a number from %g to %g, not '%s'", b->name, b->lo,
                               b->hi, value);
    return 0;
}

/* The value of option `name` (the last one given), or fallback: the preset
 * and the mixing level are applied before the options that override them. */
static const char *find_value(int argc, char **argv, const char *name, const char *fallback)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0 && i + 1 < argc) fallback = argv[i + 1];
        else if (strncmp(argv[i], name, len) == 0 && argv[i][len] == '=') fallback = argv[i] + len + 1;
    }
    return fallback;
}

int cmd_generate(int argc, char **argv)
{
    const char *out = NULL, *preset = find_value(argc, argv, "--preset", "small");
    const char *mixing = find_value(argc, argv, "--mixing", NULL);
    int threads = cli_default_threads(), no_compress = 0;
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    datum_generate_options go;
    int known = datum_generate_preset(&go, preset) == DATUM_OK;
    int known_mixing = !mixing || !known || datum_generate_mixing(&go, mixing) == DATUM_OK;
    cli_bounded_int clubs = {&go.clubs, 1, 9999, "--clubs"}, years = {&go.years, 1, 50, "--years"};
    cli_bounded_int sessions = {&go.sessions_per_week, 1, 7, "--sessions-per-week"};
    cli_bounded_int boards = {&go.boards, 2, 99, "--boards"};
    cli_bounded_int first = {&go.first_year, 1900, 2100, "--first-year"};
    cli_bounded_int level = {&wo.deflate_level, 1, 9, "--deflate"};
    cli_bounded_int regionals = {&go.regionals, 0, 52, "--regionals"};
    cli_bounded_int nationals = {&go.nationals, 0, 12, "--nationals"};
    bounded_real reals[] = {
        {&go.multi_club, 0, 1, "--multi-club"},
        {&go.visitors_region, 0, 0.9, "--visitors-region"},
        {&go.visitors_nation, 0, 0.9, "--visitors-nation"},
        {&go.regional_share, 0, 1, "--regional-share"},
        {&go.national_share, 0, 1, "--national-share"},
        {&go.attendance, 0.01, 1, "--attendance"},
        {&go.leave_rate, 0, 1, "--leave-rate"},
        {&go.partnership_keep, 0, 1, "--partnership-keep"},
    };
    const char *ignored = NULL;
    cli_u64 seed = {&go.seed, "--seed"};
    const cli_option table[] = {
        {"-o", 1, cli_set_string, &out},
        {"--preset", 1, cli_set_string, &ignored},
        {"--clubs", 1, cli_set_bounded_int, &clubs},
        {"--years", 1, cli_set_bounded_int, &years},
        {"--sessions-per-week", 1, cli_set_bounded_int, &sessions},
        {"--boards", 1, cli_set_bounded_int, &boards},
        {"--first-year", 1, cli_set_bounded_int, &first},
        {"--seed", 1, cli_set_u64, &seed},
        {"--mixing", 1, cli_set_string, &ignored},
        {"--multi-club", 1, set_bounded_real, &reals[0]},
        {"--visitors-region", 1, set_bounded_real, &reals[1]},
        {"--visitors-nation", 1, set_bounded_real, &reals[2]},
        {"--regionals", 1, cli_set_bounded_int, &regionals},
        {"--regional-share", 1, set_bounded_real, &reals[3]},
        {"--nationals", 1, cli_set_bounded_int, &nationals},
        {"--national-share", 1, set_bounded_real, &reals[4]},
        {"--attendance", 1, set_bounded_real, &reals[5]},
        {"--leave-rate", 1, set_bounded_real, &reals[6]},
        {"--partnership-keep", 1, set_bounded_real, &reals[7]},
        {"--threads", 1, cli_set_threads, &threads},
        {"--no-compress", 0, cli_set_flag, &no_compress},
        {"--deflate", 1, cli_set_bounded_int, &level},
    };
    const char *positional[argc + 1];
    cli_parser p = {"generate", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (!known)
        return cli_usage_error(&p, "--preset is small, decade or national, not '%s'", preset),
               EXIT_BAD_INPUT;
    if (!known_mixing)
        return cli_usage_error(&p, "--mixing is low, medium or high, not '%s'", mixing),
               EXIT_BAD_INPUT;
    if (go.visitors_region + go.visitors_nation > 0.9)
        return cli_usage_error(&p, "--visitors-region and --visitors-nation add up to at most "
                                   "0.9, not %g",
                               go.visitors_region + go.visitors_nation),
               EXIT_BAD_INPUT;
    if (!out) return cli_usage_error(&p, "-o ARCHIVE.h5 is required"), EXIT_BAD_INPUT;
    if (p.n_positional > 0)
        return cli_usage_error(&p, "unexpected argument '%s'", positional[0]), EXIT_BAD_INPUT;
    wo.compress = !no_compress;

    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    datum_generate_summary sum;
    cli_progress progress;
    double start = cli_now();
    int rc = datum_ctx_set_threads(ctx, threads);
    if (rc == DATUM_OK) {
        cli_progress_start(&progress, ctx, "generate");
        rc = datum_generate(ctx, &go, out, &wo, &sum);
        cli_progress_finish(&progress);
    }
    int status = EXIT_OK;
    if (rc < 0) status = cli_fail(ctx, rc);
    else
        printf("generated %llu results in %llu board fields (%u events, %u pairs of %u players, "
               "%u teams, %u matches) into %s in %.1f s\n",
               (unsigned long long)sum.results, (unsigned long long)sum.fields, sum.events,
               sum.pairs, sum.players, sum.teams, sum.matches, out, cli_now() - start);
    datum_ctx_free(&ctx);
    return status;
}
