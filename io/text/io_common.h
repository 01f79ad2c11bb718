/*
 * io_common.h - the HDF5-free internals of io/: errors, write
 * options, atomic files, text and dates (common.c) and the results CSV reader
 * (csv_read.c). Not public; the text-format files include it, not hdf5.h.
 */
#ifndef DATUM_IO_COMMON_H
#define DATUM_IO_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "datum_alloc.h" /* the one allocator: datum_malloc, datum_calloc, ... */
#include "datum_io.h"
#include "datum_text.h"

#define IO_MAX_SCORE 1000000 /* |ns_score| bound; keeps the kernels exact */

/* ------------------------------------------------------------------------ */
/* common.c                                                                 */

/* Records `code` with the message "MESSAGE: strerror(err)". */
int io_fail_errno(datum_ctx *ctx, int code, int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Checks *opt (NULL: defaults) and copies it into *out. DATUM_E_ARG if bad. */
int io_write_options(datum_ctx *ctx, const datum_write_options *opt, datum_write_options *out);

/* Atomic replacement of `path`: create PATH.tmp-XXXXXX (mode 0666 minus the
 * umask, unlike mkstemp's 0600, since the result is shared), fill it, then
 * io_temp_commit (fsync + rename) or io_temp_discard. *tmp is malloc'd. */
int io_temp_create(datum_ctx *ctx, const char *path, char **tmp, int *fd);
/* Syncs tmp to disk and renames it to path; on failure removes tmp. */
int io_temp_commit(datum_ctx *ctx, const char *tmp, const char *path);
/* Removes tmp (if not NULL) and frees it. */
void io_temp_discard(char **tmp);

/* 1 if s[0..n) is valid UTF-8 (no overlong forms, no surrogates). */
int io_utf8_valid(const char *s, size_t n);

/* 1 if a[0..len) and b[0..len) are the same bytes. For the short strings
 * of every row (names, dates): a word at a time (the last word overlapping
 * the one before), not a call of memcmp. */
static inline int io_same_bytes(const char *a, const char *b, size_t len)
{
    if (len >= 8) {
        uint64_t x, y;
        for (size_t i = 0; i + 8 < len; i += 8) {
            memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        memcpy(&x, a + len - 8, 8), memcpy(&y, b + len - 8, 8);
        return x == y;
    }
    if (len >= 4) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4), memcpy(&a1, a + len - 4, 4);
        memcpy(&b0, b, 4), memcpy(&b1, b + len - 4, 4);
        return a0 == b0 && a1 == b1;
    }
    return len == 0 || (a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1]);
}

/* ------------------------------------------------------------------------ */
/* csv_read.c: bridge results (formats.md "In: bridge results")             */

typedef struct io_results_reader io_results_reader;

/* One validated row. The strings belong to the reader and are valid until
 * the next call of io_results_next. */
typedef struct {
    uint64_t line; /* physical line where the record starts */
    const char *event, *section, *ns_pair, *ew_pair;
    int32_t date; /* days since 1970-01-01 */
    int32_t board, table, ns_score;
    uint8_t adjusted; /* datum_adjusted code; ns_score is 0 when not NONE */
    const char *ns_team, *ew_team, *match; /* non-empty; NULL without the teams columns */
    /* The figures the scoring program published (NaN: none) and their
     * datum_published_method; read only from a source with has_published. */
    double published_ns, published_ew;
    uint8_t published_method;
    /* The percentages published beside them (NaN: none); read only from a
     * source with has_published_percent. */
    double published_ns_percent, published_ew_percent;
    /* The deal of the row's board as a key: rows of one event and board
     * with equal keys played the same deal; NULL: not known. Read only from
     * a source with has_deals. */
    const char *deal;
    /* The lengths of event, section, ns_pair and ew_pair when lengths_known
     * (the CSV reader knows them: no strlen); else 0. */
    size_t event_len, section_len, ns_pair_len, ew_pair_len;
    int lengths_known;
} io_result_row;

/* Opens a results CSV and reads its header. */
int io_results_open(datum_ctx *ctx, const char *path, io_results_reader **out);
/* 1 if the file has an `adjusted` column. */
int io_results_has_adjusted(const io_results_reader *r);
/* 1 if the file has the teams columns ns_team, ew_team and match. */
int io_results_has_teams(const io_results_reader *r);
/* 1 with the next row in *row, 0 at the end of the file, or an error. A
 * sit-out row (one of ns_pair and ew_pair empty, and ns_score and adjusted
 * empty) is skipped and counted (io_results_sitouts). */
int io_results_next(io_results_reader *r, io_result_row *row);
/* Reads, from now on, only the records that start in bytes begin..end-1
 * of the file, begin being the start of line `line` (and of a record: not
 * inside a quoted field; begin 0: where the reader is, after the header);
 * a part of a large file, read by one of several threads. DATUM_OK or
 * DATUM_E_IO. */
int io_results_range(io_results_reader *r, uint64_t begin, uint64_t end, uint64_t line);
/* Where the reader stands: *offset, the file offset just past the last
 * record read (past the range's end if that record crossed it: a quoted
 * field over a line feed); *line, the line after it, counted from the
 * range's `line`. */
void io_results_position(const io_results_reader *r, uint64_t *offset, uint64_t *line);
/* The sit-out rows skipped so far (a pointer that stays valid until close). */
const uint64_t *io_results_sitouts(const io_results_reader *r);
void io_results_close(io_results_reader **r);

/* ------------------------------------------------------------------------ */
/* Row sources: any input format as a stream of result rows                */

/* An opened input file as a stream of validated rows (the CSV reader above,
 * or usebio.c). next: 1 with a row (strings valid until the next call), 0 at
 * the end, or an error. close frees self (accepts NULL). Sit-out rows (a
 * pair without an opponent and without a result: docs/cli.md) are never
 * handed on; n_sitouts, when not NULL, points at the count of those the
 * source skipped so far (final once next has returned 0). */
typedef struct {
    void *self;
    int (*next)(void *self, io_result_row *row);
    void (*close)(void *self);
    int has_adjusted, has_teams, has_published;
    const uint64_t *n_sitouts;
    int has_published_percent;
    int has_deals; /* its rows say which deal they played (io_result_row.deal) */
} io_row_source;

/* The format of the file at path, by its first bytes (datum_import's
 * DATUM_FORMAT_AUTO): *format = DATUM_FORMAT_USEBIO, _PBN or _CSV. DATUM_OK,
 * or DATUM_E_IO "cannot open PATH: REASON". */
int io_detect_format(datum_ctx *ctx, const char *path, int *format);

/* Opens path as a source; arg is the one given to the importer. */
typedef int (*io_row_source_open)(datum_ctx *ctx, const char *path, void *arg,
                                  io_row_source *src);

/* The row sources of the other formats: a PBN file (pbn.c; arg is the
 * datum_pbn_options, whose n_computed it counts up) and a USEBIO XML file
 * (usebio.c; arg unused). */
int io_pbn_open(datum_ctx *ctx, const char *path, void *arg, io_row_source *src);
int io_usebio_open(datum_ctx *ctx, const char *path, void *arg, io_row_source *src);

/* ------------------------------------------------------------------------ */
/* csv_read.c: any UTF-8 CSV file with a header row (RFC 4180 quoting)      */
/* The record reader under io_results_*, for the other input formats.       */

typedef struct io_csv io_csv;

/* Opens path (a UTF-8 byte order mark is skipped) and reads its header row;
 * an empty file is DATUM_E_INPUT "FILE: empty file (...)". */
int io_csv_open(datum_ctx *ctx, const char *path, io_csv **out);
void io_csv_close(io_csv **c);
/* col[k] = the field index of the column named names[k], SIZE_MAX if the
 * header lacks it; the first n_required names are required ("FILE:1: column
 * NAME: missing from the header"), and a name given twice is an error. */
int io_csv_columns(const io_csv *c, const char *const *names, size_t n, size_t n_required,
                   size_t *col);
/* Reads the next record (empty lines are skipped): 1 with a record of as
 * many fields as the header, 0 at the end of the file, or an error. */
int io_csv_next(io_csv *c);
const char *io_csv_path(const io_csv *c);
/* Physical line where the current record starts (1-based). */
uint64_t io_csv_line(const io_csv *c);
/* Field i of the current record (valid until the next io_csv_next). */
const char *io_csv_field(const io_csv *c, size_t i);
/* Records DATUM_E_INPUT "FILE:LINE: column NAME: MESSAGE" for field i of
 * the current record and returns it. */
int io_csv_fail(const io_csv *c, size_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Field parsers; each records io_csv_fail's message on bad input. A decimal
 * integer in lo..hi; a real YYYY-MM-DD date as days since 1970-01-01; UTF-8
 * text, non-empty unless allowed (*out points into the record). */
int io_csv_int(const io_csv *c, size_t i, int64_t lo, int64_t hi, int32_t *out);
int io_csv_date(const io_csv *c, size_t i, int32_t *out);
int io_csv_text(const io_csv *c, size_t i, int allow_empty, const char **out);
/* s quoted for a message ("..."; at most 40 bytes, control characters as
 * '?') in buf, which should hold 64 bytes. Returns buf. */
const char *io_csv_quote(const char *s, char *buf, size_t size);

#endif
