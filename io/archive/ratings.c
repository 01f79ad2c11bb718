/*
 * ratings.c - a ratings CSV (pair,rating) read back against an archive's pair
 * dictionary: the warm start of `datum rate`. On the archive side because it
 * needs the archive; the CSV records come from the text side's reader.
 */
#include "io_common.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Index of the pair named `name` in the archive's sorted dictionary, or -1. */
static int64_t find_pair(const datum_archive *a, uint32_t n_pairs, const char *name)
{
    uint32_t lo = 0, hi = n_pairs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(datum_archive_pair(a, mid), name); /* byte order, as stored */
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

int datum_ratings_read(datum_ctx *ctx, const char *path, const datum_archive *a, double *rating,
                       uint64_t *unknown)
{
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    for (uint32_t p = 0; p < info.n_pairs; p++) rating[p] = NAN;
    if (unknown) *unknown = 0;
    io_csv *c;
    int rc = io_csv_open(ctx, path, &c);
    if (rc != DATUM_OK) return rc;
    static const char *const names[] = {"pair", "rating"};
    size_t col[2];
    rc = io_csv_columns(c, names, 2, 2, col);
    while (rc == DATUM_OK) {
        int more = io_csv_next(c);
        if (more <= 0) {
            rc = more;
            break;
        }
        const char *text = io_csv_field(c, col[1]);
        if (!text[0]) continue; /* a pair without a rating */
        double v;
        if (datum_parse_real(text, strlen(text), -DBL_MAX, DBL_MAX, &v) != DATUM_PARSE_OK) {
            char q[64];
            rc = io_csv_fail(c, col[1], "%s is not a number", io_csv_quote(text, q, sizeof q));
            break;
        }
        int64_t p = find_pair(a, info.n_pairs, io_csv_field(c, col[0]));
        if (p < 0) {
            if (unknown) ++*unknown;
            continue;
        }
        if (!isnan(rating[p])) {
            rc = io_csv_fail(c, col[0], "pair named twice");
            break;
        }
        rating[p] = v;
    }
    io_csv_close(&c);
    return rc;
}
