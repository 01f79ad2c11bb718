/* cmd_import.c - `datum import`: CSV results into a new archive. */
#include "cli.h"

#include <stdlib.h>

static const char kHelp[] =
    "usage: datum import RESULTS.csv [MORE.csv ...] -o ARCHIVE.h5 [options]\n"
    "\n"
    "Reads bridge results (one row per table result, formats in docs/cli.md) and\n"
    "writes a new archive. Every row is checked; the first bad row stops the\n"
    "import with FILE:LINE: column NAME and no archive is written.\n"
    "\n"
    "  -o ARCHIVE.h5       the archive to write (replaced only on success)\n"
    "  --no-compress       store the columns uncompressed (faster to read)\n"
    "  --deflate LEVEL     deflate level 1..9 (default 1)\n";

static int set_level(cli_parser *p, const char *value, void *target)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (*end || end == value || v < 1 || v > 9)
        return cli_usage_error(p, "--deflate takes a level from 1 to 9, not '%s'", value);
    *(int *)target = (int)v;
    return 0;
}

int cmd_import(int argc, char **argv)
{
    const char *out = NULL;
    int no_compress = 0;
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    const cli_option table[] = {
        {"-o", 1, cli_set_string, &out},
        {"--no-compress", 0, cli_set_flag, &no_compress},
        {"--deflate", 1, set_level, &wo.deflate_level},
    };
    const char *positional[argc + 1];
    cli_parser p = {"import", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (!out) return cli_usage_error(&p, "-o ARCHIVE.h5 is required"), EXIT_BAD_INPUT;
    if (p.n_positional < 1) return cli_usage_error(&p, "no input file given"), EXIT_BAD_INPUT;
    wo.compress = !no_compress;

    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    int rc = datum_import_csv(ctx, positional, (size_t)p.n_positional, out, &wo);
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
