/* io_tool.c - a minimal driver of io/ for the scripted tests (doc_example.py):
 *   io_tool import OUT.h5 IN.csv...   imports CSV files into an archive
 *   io_tool append OUT.h5 IN.csv...   appends CSV files' events to an archive
 *   io_tool open FILE.h5              opens an archive and prints its counts
 * Errors go to standard error as the library words them; exit status 1. */
#include "datum_io.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    int rc = DATUM_E_ARG;
    if (datum_ctx_create(&ctx) != DATUM_OK) return 1;
    if (argc >= 4 && strcmp(argv[1], "import") == 0) {
        rc = datum_import_csv(ctx, (const char *const *)argv + 3, (size_t)argc - 3, argv[2], NULL);
    } else if (argc >= 4 && strcmp(argv[1], "append") == 0) {
        datum_import_options csv = DATUM_IMPORT_OPTIONS_INIT;
        csv.format = DATUM_FORMAT_CSV;
        rc = datum_archive_append(ctx, argv[2], (const char *const *)argv + 3, (size_t)argc - 3,
                                  &csv, NULL, NULL);
    } else if (argc == 3 && strcmp(argv[1], "open") == 0) {
        rc = datum_archive_open(ctx, argv[2], &a);
        if (rc == DATUM_OK) {
            datum_archive_info info;
            datum_archive_get_info(a, &info);
            printf("%llu results in %llu fields\n", (unsigned long long)info.n_results,
                   (unsigned long long)info.n_fields);
        }
        datum_archive_close(&a);
    } else {
        datum_ctx_fail(ctx, rc, "usage: io_tool import|append OUT.h5 IN.csv... | io_tool open FILE.h5");
    }
    if (rc != DATUM_OK) fprintf(stderr, "%s\n", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
    return rc != DATUM_OK;
}
