/* cmd_import.c - `datum import`: results into a new archive (bridge results
 * as CSV, USEBIO XML or PBN, or with --format tarot a tarot Attaque-Défense
 * tournament). */
#include "cli.h"
#include "datum_tarot_io.h"

#include <stdlib.h>
#include <string.h>

static const char kHelp[] =
    "usage: datum import RESULTS.csv [MORE.csv ...] -o ARCHIVE.h5 [options]\n"
    "       datum import --append NEW.csv [MORE.csv ...] -o ARCHIVE.h5 [options]\n"
    "\n"
    "Reads bridge results (one row per table result, formats in docs/cli.md) and\n"
    "writes a new archive. Every row is checked; the first bad row stops the\n"
    "import with FILE:LINE: column NAME and no archive is written. A sit-out row\n"
    "(a pair without an opponent, no result) is skipped, and counted on stderr.\n"
    "\n"
    "  -o ARCHIVE.h5       the archive to write (replaced only on success)\n"
    "  --append            add the input's events to the existing ARCHIVE.h5\n"
    "                      instead (any format but tarot): the new rows go into a\n"
    "                      segment beside it (ARCHIVE.h5.d); an event already in\n"
    "                      the archive is refused (FILE:LINE); a kill at any\n"
    "                      moment leaves the archive as it was or fully appended\n"
    "  --no-compress       store the columns uncompressed (faster to read)\n"
    "  --deflate LEVEL     deflate level 1..9 (default 1)\n"
    "\n"
    "  datum import --format tarot AD.csv --players PLAYERS.csv --defenses DEFENSES.csv\n"
    "               [--penalties PENALTIES.csv] -o TAROT.h5\n"
    "\n"
    "  --format bridge|tarot   bridge results (the default), or a tarot\n"
    "                      Attaque-Défense tournament: AD.csv holds\n"
    "                      event,date,etui,contract,position,attacker,defense,score\n"
    "  --players FILE      player,classement (tarot)\n"
    "  --defenses FILE     defense,player1,player2,player3 (tarot)\n"
    "  --penalties FILE    event,side,id,pm (tarot; optional)\n"
    "\n"
    "  datum import --format usebio EVENT.xml [MORE.xml ...] -o ARCHIVE.h5\n"
    "\n"
    "  --format usebio     USEBIO 1.2 XML (EBUScore, Compscore3, Pianola, ...); the\n"
    "                      points published per line (Butler, cross-IMPs,\n"
    "                      matchpoints) are kept in the archive, for\n"
    "                      datum score/cross --compare-published\n"
    "\n"
    "  datum import --format pbn HANDS.pbn [MORE.pbn ...] -o ARCHIVE.h5 [--strict]\n"
    "\n"
    "  --format pbn        PBN 2.1 [ScoreTable]s; missing scores are computed from\n"
    "                      Contract, Declarer, Result and the vulnerability; the\n"
    "                      published IMP_NS, MP_NS, Percentage_NS (and EW) are kept,\n"
    "                      for datum score/cross --compare-published\n"
    "  --strict            an impossible score is an error (default: a warning\n"
    "                      on stderr, FILE:LINE, and the import goes on)\n";

static void print_warning(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "datum import: warning: %s\n", message);
}

/* The PBN import, once the options are parsed. */
static int import_pbn(const char *const *paths, size_t n, const char *out, int strict,
                      const datum_write_options *wo)
{
    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    po.strict = strict;
    datum_ctx_set_warning(ctx, print_warning, NULL);
    int rc = datum_import_pbn(ctx, paths, n, out, &po, wo);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    datum_archive *a;
    if (rc >= 0 && datum_archive_open(ctx, out, &a) == DATUM_OK) {
        datum_archive_info info;
        datum_archive_get_info(a, &info);
        printf("imported %llu results (%llu scores computed, %llu warnings) in %llu board "
               "fields, %u pairs, into %s\n",
               (unsigned long long)info.n_results, (unsigned long long)po.n_computed,
               (unsigned long long)datum_ctx_warnings(ctx), (unsigned long long)info.n_fields,
               info.n_pairs, out);
        datum_archive_close(&a);
    }
    datum_ctx_free(&ctx);
    return status;
}

static int set_level(cli_parser *p, const char *value, void *target)
{
    int64_t v;
    if (datum_parse_int(value, strlen(value), 1, 9, &v) != DATUM_PARSE_OK)
        return cli_usage_error(p, "--deflate takes a level from 1 to 9, not '%s'", value);
    *(int *)target = (int)v;
    return 0;
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

/* `--append`: the input's events added to the archive out. */
static int import_append(const char *const *paths, size_t n, const char *out,
                         datum_input_format format, int strict, const datum_write_options *wo)
{
    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    datum_ctx_set_warning(ctx, print_warning, NULL);
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    po.strict = strict;
    datum_append_info info;
    int rc = datum_archive_append(ctx, out, format, paths, n, &po, wo, &info);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    if (rc >= 0)
        printf("appended %llu results in %llu board fields of %u new event%s to %s (%u "
               "segment%s)\n",
               (unsigned long long)info.n_results, (unsigned long long)info.n_fields,
               info.n_events, info.n_events == 1 ? "" : "s", out, info.n_segments,
               info.n_segments == 1 ? "" : "s");
    datum_ctx_free(&ctx);
    return status;
}

int cmd_import(int argc, char **argv)
{
    const char *out = NULL, *format = "bridge";
    int no_compress = 0, strict = 0, append = 0;
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    datum_tarot_inputs tarot = {NULL, NULL, NULL, NULL};
    const cli_option table[] = {
        {"-o", 1, cli_set_string, &out},
        {"--no-compress", 0, cli_set_flag, &no_compress},
        {"--deflate", 1, set_level, &wo.deflate_level},
        {"--format", 1, cli_set_string, &format},
        {"--players", 1, cli_set_string, &tarot.players},
        {"--defenses", 1, cli_set_string, &tarot.defenses},
        {"--penalties", 1, cli_set_string, &tarot.penalties},
        {"--strict", 0, cli_set_flag, &strict},
        {"--append", 0, cli_set_flag, &append},
    };
    const char *positional[argc + 1];
    cli_parser p = {"import", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (!out) return cli_usage_error(&p, "-o ARCHIVE.h5 is required"), EXIT_BAD_INPUT;
    if (p.n_positional < 1) return cli_usage_error(&p, "no input file given"), EXIT_BAD_INPUT;
    wo.compress = !no_compress;
    int is_tarot = strcmp(format, "tarot") == 0;
    int is_usebio = strcmp(format, "usebio") == 0, is_pbn = strcmp(format, "pbn") == 0;
    if (!is_tarot && !is_usebio && !is_pbn && strcmp(format, "bridge") != 0)
        return cli_usage_error(&p, "--format takes bridge, tarot, usebio or pbn, not '%s'",
                               format),
               EXIT_BAD_INPUT;
    if (strict && !is_pbn)
        return cli_usage_error(&p, "--strict goes with --format pbn"), EXIT_BAD_INPUT;
    if (append && is_tarot)
        return cli_usage_error(&p, "--append takes bridge results (CSV, USEBIO, PBN), not a tarot "
                                   "tournament"),
               EXIT_BAD_INPUT;
    if (is_tarot) {
        tarot.results = positional[0];
        return import_tarot(&p, &tarot, out, &wo);
    }
    if (tarot.players || tarot.defenses || tarot.penalties)
        return cli_usage_error(&p, "--players, --defenses and --penalties go with --format tarot"),
               EXIT_BAD_INPUT;
    if (append)
        return import_append(positional, (size_t)p.n_positional, out,
                             is_pbn ? DATUM_INPUT_PBN : is_usebio ? DATUM_INPUT_USEBIO : DATUM_INPUT_CSV,
                             strict, &wo);
    if (is_pbn) return import_pbn(positional, (size_t)p.n_positional, out, strict, &wo);

    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    datum_ctx_set_warning(ctx, print_warning, NULL); /* the sit-outs skipped */
    int rc = is_usebio ? datum_import_usebio(ctx, positional, (size_t)p.n_positional, out, &wo)
                       : datum_import_csv(ctx, positional, (size_t)p.n_positional, out, &wo);
    int status = EXIT_OK;
    if (rc < 0) {
        status = cli_fail(ctx, rc);
    } else {
        datum_archive *a;
        if (datum_archive_open(ctx, out, &a) == DATUM_OK) {
            datum_archive_info info;
            datum_archive_get_info(a, &info);
            printf("imported %llu results in %llu board fields, %u pairs, into %s\n",
                   (unsigned long long)info.n_results, (unsigned long long)info.n_fields,
                   info.n_pairs, out);
            datum_archive_close(&a);
        }
    }
    datum_ctx_free(&ctx);
    return status;
}
