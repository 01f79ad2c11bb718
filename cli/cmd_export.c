/* cmd_export.c - `datum export`: an archive's results back as CSV, in the
 * format `datum import` reads. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char kHelp[] =
    "usage: datum export ARCHIVE.h5 -o ROWS.csv [--event NAME ...] [--from DATE] [--to DATE]\n"
    "\n"
    "Writes the archive's results as results CSV, one row per table result, in\n"
    "the archive's order (event, section, board, table): the format `datum\n"
    "import` reads, so that importing the file gives the archive back. Published\n"
    "figures, deal sets and a generated archive's truth are not written (the CSV\n"
    "format has no column for them).\n"
    "\n"
    "  -o ROWS.csv         the file to write (replaced only on success; - for stdout)\n"
    "  --event NAME        only this event (repeatable)\n"
    "  --from DATE         only the rows dated DATE (YYYY-MM-DD) or later\n"
    "  --to DATE           only the rows dated DATE or earlier\n"
    "  --threads N         worker threads reading the archive, default all processors (the file never\n"
    "                      depends on N)\n";

/* The --event names, collected in order. */
typedef struct {
    const char **names;
    size_t n;
} event_list;

static int add_event(cli_parser *p, const char *value, void *target)
{
    (void)p;
    event_list *l = target;
    l->names[l->n++] = value;
    return 0;
}

int cmd_export(int argc, char **argv)
{
    const char *out = NULL, *from = NULL, *to = NULL;
    const char *names[argc + 1];
    event_list events = {names, 0};
    int threads = cli_default_threads();
    const cli_option table[] = {
        {"-o", 1, cli_set_string, &out},       {"--event", 1, add_event, &events},
        {"--from", 1, cli_set_string, &from},  {"--to", 1, cli_set_string, &to},
        {"--threads", 1, cli_set_threads, &threads},
    };
    const char *positional[argc + 1];
    cli_parser p = {"export", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1) return cli_usage_error(&p, "give one archive"), EXIT_BAD_INPUT;
    if (!out) return cli_usage_error(&p, "-o ROWS.csv is required"), EXIT_BAD_INPUT;
    datum_export_options eo = DATUM_EXPORT_OPTIONS_INIT;
    eo.events = events.names;
    eo.n_events = events.n;
    if ((from && cli_parse_day(&p, "--from", from, &eo.from)) ||
        (to && cli_parse_day(&p, "--to", to, &eo.to)))
        return EXIT_BAD_INPUT;
    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    int rc = datum_ctx_set_threads(ctx, threads);
    if (rc == DATUM_OK) rc = datum_export_csv(ctx, positional[0], out, &eo);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    if (rc == DATUM_OK && strcmp(out, "-") != 0)
        printf("exported %llu results from %s into %s\n", (unsigned long long)eo.n_rows,
               positional[0], out);
    datum_ctx_free(&ctx);
    return status;
}
