/* cmd_compact.c - `datum compact`: an archive with appended segments made
 * one file again (datum_archive_compact). */
#include "cli.h"

#include <stdlib.h>

static const char kHelp[] =
    "usage: datum compact ARCHIVE.h5 [--memory SIZE] [--threads N] [--no-compress]\n"
    "                     [--deflate LEVEL]\n"
    "\n"
    "Rewrites an archive that `datum import --append` made of a base and segments\n"
    "(ARCHIVE.h5.d) as one file again: the file a fresh `datum import` of all its\n"
    "rows writes, as fast to read. Under the append's lock; a kill at any moment\n"
    "leaves the archive as it was or compacted; the folder ARCHIVE.h5.d is removed\n"
    "once the new file is in place. An archive of one file is left as it is.\n"
    "\n"
    "  --memory SIZE       memory for the rows read at a time, e.g. 256M (default\n"
    "                      1G; SIZE/128 rows, at most a million); besides: the\n"
    "                      writer's chunks and the archive's names\n"
    "  --threads N         worker threads, default all processors (the file never\n"
    "                      depends on N)\n"
    "  --no-compress       store the columns uncompressed (faster to read)\n"
    "  --deflate LEVEL     deflate level 1..9 (default 1)\n";

typedef struct {
    size_t memory;
    datum_write_options wo;
} compact_job;

static int run(datum_ctx *ctx, const char *archive, void *arg)
{
    compact_job *job = arg;
    datum_compact_info info;
    int rc = datum_archive_compact(ctx, archive, &info, job->memory, &job->wo);
    if (rc >= 0 && info.n_parts == 0)
        printf("%s is one file already (format version 1): nothing to compact\n", archive);
    else if (rc >= 0)
        printf("compacted %u parts of %s into one file: %llu results in %llu board fields, %llu "
               "bytes\n",
               info.n_parts, archive, (unsigned long long)info.n_results,
               (unsigned long long)info.n_fields, (unsigned long long)info.bytes);
    return rc;
}

int cmd_compact(int argc, char **argv)
{
    int no_compress = 0, threads = cli_default_threads();
    compact_job job = {0, DATUM_WRITE_OPTIONS_INIT};
    const cli_option table[] = {
        {"--memory", 1, cli_set_memory, &job.memory},
        {"--threads", 1, cli_set_threads, &threads},
        {"--no-compress", 0, cli_set_flag, &no_compress},
        {"--deflate", 1, cli_set_deflate, &job.wo.deflate_level},
    };
    const char *positional[argc + 1];
    cli_parser p = {"compact", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1) return cli_usage_error(&p, "give one archive"), EXIT_BAD_INPUT;
    job.wo.compress = !no_compress;
    return cli_run_job(threads, run, positional[0], &job);
}
