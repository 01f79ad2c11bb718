/* cmd_import.c - `datum import`: results into a new archive (bridge results
 * as CSV, USEBIO XML or PBN, or with --format tarot a tarot Attaque-Défense
 * tournament). */
#include "cli.h"
#include "datum_tarot_io.h"

#include <stdlib.h>
#include <string.h>

static const char kHelp[] =
    "usage: datum import INPUT [MORE ...] -o ARCHIVE.h5 [options]\n"
    "       datum import --append INPUT [MORE ...] -o ARCHIVE.h5 [options]\n"
    "\n"
    "Reads bridge results and writes a new archive. An INPUT is a file (results\n"
    "CSV, USEBIO XML or PBN, each recognised by its content) or a directory (every\n"
    "file under it, recursively, in path order). Every row is checked; the first\n"
    "bad row stops the import with FILE:LINE: column NAME and no archive is\n"
    "written. A sit-out row (a pair without an opponent, no result) is skipped,\n"
    "and counted on stderr. Formats in docs/cli.md.\n"
    "\n"
    "  -o ARCHIVE.h5       the archive to write (replaced only on success)\n"
    "  --append            add the input's events to the existing ARCHIVE.h5\n"
    "                      instead (any format but tarot): the new rows go into a\n"
    "                      segment beside it (ARCHIVE.h5.d); an event already in\n"
    "                      the archive is refused (FILE:LINE); a kill at any\n"
    "                      moment leaves the archive as it was or fully appended\n"
    "  --max-segments K    with --append: past K segments, segments of like size are\n"
    "                      merged into one (default 8; 0: never; the base never)\n"
    "  --format F          auto (default: each file's own), csv, usebio or pbn\n"
    "                      for every file (bridge = auto); tarot below\n"
    "  --list FILE         also the inputs named in FILE, one a line (- = stdin)\n"
    "  --memory SIZE       memory for the rows held, e.g. 256M, 4G (default 1G);\n"
    "                      more rows are sorted in runs in a scratch file beside\n"
    "                      the archive, removed at the end\n"
    "  --threads N         worker threads, default all processors (the archive never depends on N)\n"
    "  --no-compress       store the columns uncompressed (faster to read)\n"
    "  --deflate LEVEL     deflate level 1..9 (default 1)\n"
    "  --strict            PBN: an impossible score is an error (default: a warning\n"
    "                      on stderr, FILE:LINE, and the import goes on)\n"
    "\n"
    "  USEBIO 1.2 XML (EBUScore, Compscore3, Pianola, ...): the points published\n"
    "  per line (Butler, cross-IMPs, matchpoints) are kept in the archive, for\n"
    "  datum score/cross --compare-published. PBN 2.1 [ScoreTable]s: missing\n"
    "  scores are computed from Contract, Declarer, Result and the vulnerability;\n"
    "  the published IMP_NS, MP_NS, Percentage_NS (and EW) are kept.\n"
    "\n"
    "  datum import --format tarot AD.csv --players PLAYERS.csv --defenses DEFENSES.csv\n"
    "               [--penalties PENALTIES.csv] -o TAROT.h5\n"
    "\n"
    "  --format tarot      a tarot Attaque-Défense tournament: AD.csv holds\n"
    "                      event,date,etui,contract,position,attacker,defense,score\n"
    "  --players FILE      player,classement (tarot)\n"
    "  --defenses FILE     defense,player1,player2,player3 (tarot)\n"
    "  --penalties FILE    event,side,id,pm (tarot; optional)\n";

static void print_warning(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "datum import: warning: %s\n", message);
}

/* The tarot import, once the options are parsed. */
static int import_tarot(cli_parser *p, const datum_tarot_inputs *in, const char *out,
                        const datum_write_options *wo)
{
    if (p->n_positional != 1)
        return cli_usage_error(p, "--format tarot takes one results file (AD.csv)"), EXIT_BAD_INPUT;
    if (!in->players || !in->defenses)
        return cli_usage_error(p, "--format tarot needs --players and --defenses"), EXIT_BAD_INPUT;
    datum_ctx *ctx;
    datum_tarot_data *d = NULL;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    int rc = datum_tarot_import_csv(ctx, in, out, wo);
    if (rc == DATUM_OK) rc = datum_tarot_archive_read(ctx, out, &d);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    if (rc == DATUM_OK)
        printf("imported %llu results in %llu étuis of %u event%s, %u players, %u defenses, "
               "%llu penalties, into %s\n",
               (unsigned long long)d->n_results, (unsigned long long)d->n_etuis, d->n_events,
               d->n_events == 1 ? "" : "s", d->n_players, d->n_defenses,
               (unsigned long long)d->n_penalties, out);
    datum_tarot_data_free(&d);
    datum_ctx_free(&ctx);
    return status;
}

/* The bridge import, once the options are parsed. */
static int import_bridge(const char *const *args, size_t n_args, const char *list, const char *out,
                         int append, datum_import_options *io, int threads,
                         const datum_write_options *wo)
{
    datum_ctx *ctx;
    char **paths = NULL;
    size_t n_paths = 0;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    datum_ctx_set_warning(ctx, print_warning, NULL); /* suspect scores, the sit-outs skipped */
    int rc = datum_ctx_set_threads(ctx, threads);
    if (rc == DATUM_OK) rc = datum_import_paths(ctx, args, n_args, list, &paths, &n_paths);
    datum_append_info appended;
    if (rc == DATUM_OK)
        rc = append ? datum_archive_append(ctx, out, (const char *const *)paths, n_paths, io, wo,
                                           &appended)
                    : datum_import(ctx, (const char *const *)paths, n_paths, out, io, wo);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    datum_archive *a;
    if (rc >= 0 && append) {
        printf("appended %llu results in %llu board fields of %u new event%s to %s (%u "
               "segment%s",
               (unsigned long long)appended.n_results, (unsigned long long)appended.n_fields,
               appended.n_events, appended.n_events == 1 ? "" : "s", out, appended.n_segments,
               appended.n_segments == 1 ? "" : "s");
        if (appended.n_merged)
            printf("; %u segments of %llu results merged into one", appended.n_merged,
                   (unsigned long long)appended.merged_results);
        printf(")\n");
    } else if (rc >= 0 && datum_archive_open(ctx, out, &a) == DATUM_OK) {
        datum_archive_info info;
        datum_archive_get_info(a, &info);
        printf("imported %llu results", (unsigned long long)info.n_results);
        if (io->format == DATUM_FORMAT_PBN || io->n_computed > 0)
            printf(" (%llu scores computed, %llu warnings)", (unsigned long long)io->n_computed,
                   (unsigned long long)datum_ctx_warnings(ctx));
        printf(" in %llu board fields, %u pairs, into %s", (unsigned long long)info.n_fields,
               info.n_pairs, out);
        if (io->n_runs) printf(" (sorted in %llu runs)", (unsigned long long)io->n_runs);
        printf("\n");
        datum_archive_close(&a);
    }
    if (rc >= 0 && !append && getenv("DATUM_IMPORT_PHASES")) { /* scripts/bench-import */
        fprintf(stderr, "import phases (wall/CPU seconds):");
        for (int i = 0; i < DATUM_IMPORT_N_PHASES; i++)
            fprintf(stderr, " %s %.2f/%.2f", datum_import_phase_name(i), io->phase_wall[i],
                    io->phase_cpu[i]);
        fprintf(stderr, "\n");
    }
    datum_import_paths_free(paths, n_paths);
    datum_ctx_free(&ctx);
    return status;
}

int cmd_import(int argc, char **argv)
{
    const char *out = NULL, *format = "auto", *list = NULL;
    int no_compress = 0, strict = 0, threads = cli_default_threads(), append = 0;
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    datum_tarot_inputs tarot = {NULL, NULL, NULL, NULL};
    int segments = -1; /* not given */
    cli_bounded_int max_segments = {&segments, 0, 1000000, "--max-segments"};
    const cli_option table[] = {
        {"-o", 1, cli_set_string, &out},
        {"--no-compress", 0, cli_set_flag, &no_compress},
        {"--deflate", 1, cli_set_deflate, &wo.deflate_level},
        {"--format", 1, cli_set_string, &format},
        {"--list", 1, cli_set_string, &list},
        {"--memory", 1, cli_set_memory, &io.memory},
        {"--threads", 1, cli_set_threads, &threads},
        {"--players", 1, cli_set_string, &tarot.players},
        {"--defenses", 1, cli_set_string, &tarot.defenses},
        {"--penalties", 1, cli_set_string, &tarot.penalties},
        {"--strict", 0, cli_set_flag, &strict},
        {"--append", 0, cli_set_flag, &append},
        {"--max-segments", 1, cli_set_bounded_int, &max_segments},
    };
    static const char *const kFormats[] = {"auto", "csv", "usebio", "pbn"};
    const char *positional[argc + 1];
    cli_parser p = {"import", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (!out) return cli_usage_error(&p, "-o ARCHIVE.h5 is required"), EXIT_BAD_INPUT;
    if (p.n_positional < 1 && !list) return cli_usage_error(&p, "no input file given"), EXIT_BAD_INPUT;
    wo.compress = !no_compress;
    if (strcmp(format, "tarot") == 0) {
        if (strict || list || io.memory || append)
            return cli_usage_error(&p, "--strict, --list, --memory and --append are not for "
                                       "--format tarot"),
                   EXIT_BAD_INPUT;
        tarot.results = p.n_positional ? positional[0] : NULL;
        return import_tarot(&p, &tarot, out, &wo);
    }
    if (tarot.players || tarot.defenses || tarot.penalties)
        return cli_usage_error(&p, "--players, --defenses and --penalties go with --format tarot"),
               EXIT_BAD_INPUT;
    if (strcmp(format, "bridge") == 0) format = "auto"; /* the spelling of before */
    int k = 0;
    while (k < 4 && strcmp(format, kFormats[k]) != 0) k++;
    if (k == 4)
        return cli_usage_error(&p, "--format takes auto, csv, usebio, pbn or tarot, not '%s'",
                               format),
               EXIT_BAD_INPUT;
    if (strict && k != DATUM_FORMAT_AUTO && k != DATUM_FORMAT_PBN)
        return cli_usage_error(&p, "--strict goes with PBN input"), EXIT_BAD_INPUT;
    if (segments >= 0 && !append)
        return cli_usage_error(&p, "--max-segments goes with --append"), EXIT_BAD_INPUT;
    io.max_segments = segments >= 0 ? (uint32_t)segments : DATUM_MAX_SEGMENTS_DEFAULT;
    io.format = (datum_input_format)k;
    io.strict = strict;
    return import_bridge(positional, (size_t)p.n_positional, list, out, append, &io, threads, &wo);
}
