/* cmd_info.c - `datum info`: what an archive holds. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char kHelp[] =
    "usage: datum info ARCHIVE.h5\n"
    "\n"
    "Prints the archive's events, date range, board fields, results, pairs and\n"
    "the histogram of tables per field; for teams events, the teams, matches and\n"
    "divisions (matches playing the same boards) and the histogram of matches per\n"
    "field.\n";

/* Histogram buckets: 1..16 tables one by one, then powers of two. */
enum { EXACT = 16, BUCKETS = EXACT + 32 };

static int bucket_of(uint64_t tables)
{
    if (tables <= EXACT) return (int)tables - 1;
    int b = EXACT;
    for (uint64_t hi = 2 * EXACT; tables > hi; hi *= 2) b++;
    return b;
}

static void bucket_label(int b, char out[32])
{
    if (b < EXACT) {
        snprintf(out, 32, "%d", b + 1);
        return;
    }
    uint64_t lo = (uint64_t)EXACT << (b - EXACT), hi = 2 * lo;
    snprintf(out, 32, "%llu-%llu", (unsigned long long)lo + 1, (unsigned long long)hi);
}

/* Prints a histogram of fields, one bar per non-empty bucket. */
static void print_histogram(const char *title, const uint64_t hist[BUCKETS])
{
    uint64_t most = 1;
    printf("%s:\n", title);
    for (int b = 0; b < BUCKETS; b++) most = hist[b] > most ? hist[b] : most;
    for (int b = 0; b < BUCKETS; b++) {
        if (!hist[b]) continue;
        char label[32], bar[41];
        bucket_label(b, label);
        int len = (int)((40 * hist[b] + most - 1) / most);
        memset(bar, '#', (size_t)len);
        bar[len] = '\0';
        printf("  %9s %12llu  %s\n", label, (unsigned long long)hist[b], bar);
    }
}

/* Teams fields: matches per field, and divisions (the matches that play
 * the same boards: one per event and section with matches). */
typedef struct {
    uint64_t hist[BUCKETS], fields, divisions;
    uint32_t event, section; /* of the last teams field */
} teams_stats;

static void count_teams(teams_stats *t, const datum_chunk *c)
{
    for (uint64_t f = 0; f < c->n_fields; f++) {
        uint64_t matches = 0;
        for (uint64_t i = c->offset[f]; i < c->offset[f + 1]; i++) {
            uint64_t j = c->offset[f];
            while (j < i && c->match[j] != c->match[i]) j++;
            matches += c->match[i] >= 0 && j == i; /* first row of its match */
        }
        if (!matches) continue;
        if (!t->fields++ || c->field_event[f] != t->event || c->field_section[f] != t->section)
            t->divisions++;
        t->event = c->field_event[f];
        t->section = c->field_section[f];
        t->hist[bucket_of(matches)]++;
    }
}

static int describe(datum_ctx *ctx, const char *path)
{
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    uint64_t hist[BUCKETS] = {0}, adjusted = 0;
    teams_stats teams = {0};
    int rc = datum_archive_open(ctx, path, &a);
    if (rc < 0) goto done;
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    unsigned columns = (info.has_adjusted ? DATUM_COL_ADJUSTED : 0) |
                       (info.has_teams ? DATUM_COL_MATCH : 0);
    if ((rc = datum_chunk_reader_create(ctx, a, columns, (size_t)1 << 22, &r)) < 0) goto done;
    for (;;) {
        datum_chunk c;
        if ((rc = datum_chunk_reader_next(r, &c)) < 0) goto done;
        if (c.n_fields == 0) break;
        for (uint64_t f = 0; f < c.n_fields; f++) hist[bucket_of(c.offset[f + 1] - c.offset[f])]++;
        for (uint64_t row = 0; c.adjusted && row < c.n_rows; row++) adjusted += c.adjusted[row] != 0;
        if (c.match) count_teams(&teams, &c);
    }
    char first[DATUM_DATE_SIZE], last[DATUM_DATE_SIZE];
    datum_format_date(info.first_date, first);
    datum_format_date(info.last_date, last);
    printf("archive    %s (format %d)\n", path, info.format_version);
    if (info.n_segments) {
        uint64_t n;
        printf("parts      the base and %u segment%s appended (format 2: docs/archive-format.md)\n",
               info.n_segments, info.n_segments == 1 ? "" : "s");
        for (uint32_t i = 0; i <= info.n_segments; i++) {
            const char *part = datum_archive_part(a, i, &n);
            printf("             %s: %llu results\n", part, (unsigned long long)n);
        }
    }
    printf("events     %u\n", info.n_events);
    for (uint32_t e = 0; e < info.n_events && e < 20; e++) printf("             %s\n", datum_archive_event(a, e));
    if (info.n_events > 20) printf("             ... and %u more\n", info.n_events - 20);
    printf("sections   %u\n", info.n_sections);
    printf("dates      %s .. %s\n", first, last);
    printf("fields     %llu\n", (unsigned long long)info.n_fields);
    printf("results    %llu (%llu adjusted)\n", (unsigned long long)info.n_results,
           (unsigned long long)adjusted);
    printf("pairs      %u\n", info.n_pairs);
    if (info.has_truth) printf("truth      the true strength of every pair (generated)\n");
    if (info.has_published)
        printf("published  the points the scoring program published per result (USEBIO, PBN; "
               "datum score/cross --compare-published)\n");
    if (info.has_published_percent)
        printf("published  the percentages the scoring program published per result (PBN)\n");
    print_histogram("tables per field", hist);
    if (info.has_teams) {
        printf("teams      %u\n", info.n_teams);
        printf("matches    %u\n", info.n_matches);
        printf("divisions  %llu (events and sections with matches; %llu teams fields)\n",
               (unsigned long long)teams.divisions, (unsigned long long)teams.fields);
        print_histogram("matches per field", teams.hist);
    }
done:
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    const char *positional[argc + 1];
    cli_parser p = {"info", positional, 0};
    int parsed = cli_parse(&p, argc, argv, NULL, 0, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1) return cli_usage_error(&p, "expected one archive"), EXIT_BAD_INPUT;
    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    int rc = describe(ctx, positional[0]);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    datum_ctx_free(&ctx);
    return status;
}
