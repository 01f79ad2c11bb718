/*
 * csv_read.c - a streaming RFC 4180 reader with a header row (io_csv_* in
 * io_common.h, for every CSV input) and, on top of it, the validating
 * reader of bridge results (formats.md "In: bridge results").
 *
 * The file is read through a fixed buffer. A record that lies whole in the
 * buffer, on one line and without quotes (nearly every record of a results
 * file) is parsed in place: its fields are the buffer's bytes, each comma
 * and the line end overwritten with a NUL. Any other record goes through the
 * byte-by-byte reader, which copies it (at most MAX_RECORD bytes). Every
 * error names "FILE:LINE: column NAME", LINE being the physical line where
 * the record starts.
 */
#include "io_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_BUFFER (256 * 1024)
#define MAX_RECORD (1024 * 1024) /* no sane results row comes near */
/* Records are parsed in place when this much is in the buffer at least
 * (the buffer is refilled below it). */
#define MAX_LINE_IN_PLACE (16 * 1024)

/* ------------------------------------------------------------------------ */
/* RFC 4180 records                                                         */

struct io_csv {
    datum_ctx *ctx;
    const char *path;
    FILE *f;
    unsigned char in[READ_BUFFER];
    size_t in_pos, in_len;
    uint64_t in_offset;   /* file offset of in[0] */
    uint64_t range_end;   /* no record starts at or after this offset (UINT64_MAX: none) */
    uint64_t line;        /* physical line of the next byte (1-based) */
    uint64_t record_line; /* line where the current record starts */
    char *buf;            /* the byte-by-byte reader's record: fields NUL-terminated */
    size_t len, cap;
    /* The current record's fields, wherever they lie (in[] or buf): field i
     * is the NUL-terminated base + at[i], of length at[i + 1] - at[i] - 1
     * (at[n_fields]: one past the last field's NUL). One offset a field,
     * not a pointer and a length: the in-place reader stores one word a
     * separator. */
    const char *base;
    uint32_t *at;
    size_t n_fields, at_cap;
    int ascii; /* 1 if the current record is all ASCII (no UTF-8 check needed) */
    const char *const *names; /* column names for messages, once known */
    size_t n_names;
    char *header;              /* the header's fields, once read (owned) */
    const char **header_names; /* pointers into header (owned) */
};
typedef struct io_csv csv_file;

enum { BYTE_EOF = -1, BYTE_ERROR = -2 };

/* "column NAME" of field i (0-based), or "column N" before the header. */
static const char *column_label(const csv_file *c, size_t i, char *buf, size_t size)
{
    if (i < c->n_names) snprintf(buf, size, "column %s", c->names[i]);
    else snprintf(buf, size, "column %zu", i + 1);
    return buf;
}

/* Records "FILE:LINE: column NAME: WHAT" for field i of the current record. */
static int csv_fail(const csv_file *c, size_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int csv_fail(const csv_file *c, size_t i, const char *fmt, ...)
{
    char label[160], what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return datum_ctx_fail(c->ctx, DATUM_E_INPUT, "%s:%llu: %s: %s", c->path,
                          (unsigned long long)c->record_line,
                          column_label(c, i, label, sizeof label), what);
}

static int next_byte(csv_file *c)
{
    if (c->in_pos == c->in_len) {
        c->in_offset += c->in_len;
        c->in_len = fread(c->in, 1, sizeof c->in, c->f);
        c->in_pos = 0;
        if (c->in_len == 0) {
            if (!ferror(c->f)) return BYTE_EOF;
            io_fail_errno(c->ctx, DATUM_E_IO, errno, "cannot read %s", c->path);
            return BYTE_ERROR;
        }
    }
    return c->in[c->in_pos++];
}

/* Moves the unread bytes to the front of the buffer and fills the rest from
 * the file, so that a record cut by the buffer's end can be parsed in
 * place. DATUM_OK (nothing more at the end of the file) or DATUM_E_IO. */
static int refill(csv_file *c)
{
    size_t left = c->in_len - c->in_pos;
    if (c->in_pos == 0 && left == sizeof c->in) return DATUM_OK; /* full: a long record */
    memmove(c->in, c->in + c->in_pos, left);
    c->in_offset += c->in_pos;
    c->in_pos = 0;
    c->in_len = left;
    while (c->in_len < sizeof c->in) {
        size_t got = fread(c->in + c->in_len, 1, sizeof c->in - c->in_len, c->f);
        if (got == 0) {
            if (!ferror(c->f)) break;
            return io_fail_errno(c->ctx, DATUM_E_IO, errno, "cannot read %s", c->path);
        }
        c->in_len += got;
    }
    return DATUM_OK;
}

/* Room for n fields in at (and its end). */
static int reserve_fields(csv_file *c, size_t n)
{
    if (n + 1 <= c->at_cap) return DATUM_OK;
    return datum_reserve(c->ctx, &c->at, &c->at_cap, n + 1, sizeof *c->at);
}

/* The 16 bytes at q as bit masks (bit i: byte q[i]): its separators, its
 * line feeds, the bytes the in-place reader leaves to the byte-by-byte one
 * or must look at (quotes, carriage returns, NULs), and the bytes that are
 * not ASCII. */
typedef struct {
    unsigned comma, lf, other, high;
} byte_masks;

#if defined(__SSE2__)
#include <emmintrin.h>
static byte_masks masks16(const unsigned char *q)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
    __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                              _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))),
                                 _mm_cmpeq_epi8(v, _mm_setzero_si128()));
    return (byte_masks){(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(','))),
                        (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                        (unsigned)_mm_movemask_epi8(other), (unsigned)_mm_movemask_epi8(v)};
}
#else
static byte_masks masks16(const unsigned char *q)
{
    byte_masks m = {0, 0, 0, 0};
    for (unsigned i = 0; i < 16; i++) {
        m.comma |= (unsigned)(q[i] == ',') << i;
        m.lf |= (unsigned)(q[i] == '\n') << i;
        m.other |= (unsigned)(q[i] == '"' || q[i] == '\r' || q[i] == 0) << i;
        m.high |= (unsigned)(q[i] >> 7) << i;
    }
    return m;
}
#endif

/* The number of the lowest set bit of m (not 0). */
static unsigned lowest_bit(unsigned m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned k = 0;
    while (!(m >> k & 1)) k++;
    return k;
#endif
}

/* Puts back the separators after the first n fields of a record parsed in
 * place (record_in_place made them NULs) and returns 0: the record goes to
 * the byte-by-byte reader as it was. */
static int put_back(csv_file *c, size_t n)
{
    for (size_t i = 0; i < n; i++) ((char *)c->base)[c->at[i + 1] - 1] = ',';
    return 0;
}

/* Parses the record at the reading position in place, if it is a simple
 * one (whole in the buffer, on one line, no quote, no NUL, no carriage
 * return but before the line feed): 1 with the record (base, at,
 * n_fields, ascii set; the position after it), 0 to leave it to the
 * byte-by-byte reader (nothing changed), or DATUM_E_NOMEM. An empty line is
 * a record of one empty field. The bytes are looked at sixteen at a time,
 * as masks, with no branch per byte; each separator becomes its field's
 * NUL as it is found (put back if the record is left to the other reader). */
static int record_in_place(csv_file *c)
{
    unsigned char *end = c->in + c->in_len, *from = c->in + c->in_pos, *line_end = NULL;
    unsigned high = 0;
    size_t n = 0;
    c->base = (const char *)from;
    for (unsigned char *block = from; !line_end; block += 16) {
        if (end - block < 16) return put_back(c, n); /* the file's last bytes */
        /* Room for the block's fields: at most 16 separators, then the last. */
        if (n + 18 > c->at_cap && reserve_fields(c, n + 17) != DATUM_OK)
            return put_back(c, n), DATUM_E_NOMEM;
        uint32_t *at = c->at;
        at[0] = 0;
        byte_masks m = masks16(block);
        unsigned before = m.lf ? (m.lf & (0u - m.lf)) - 1 : 0xffffu; /* the bytes before a line feed */
        high |= m.high & before;
        for (unsigned other = m.other & before; other; other &= other - 1) {
            unsigned k = lowest_bit(other); /* only a carriage return just before the line feed */
            if (block[k] != '\r' || block + k + 1 >= end || block[k + 1] != '\n') return put_back(c, n);
        }
        for (unsigned comma = m.comma & before; comma; comma &= comma - 1) {
            unsigned char *sep = block + lowest_bit(comma);
            *sep = '\0';
            at[++n] = (uint32_t)(sep + 1 - from);
        }
        if (m.lf) {
            line_end = block + lowest_bit(m.lf);
            unsigned char *last = line_end > from + at[n] && line_end[-1] == '\r' ? line_end - 1 : line_end;
            *last = '\0';
            at[++n] = (uint32_t)(last + 1 - from);
        }
    }
    c->n_fields = n;
    c->ascii = high == 0;
    c->in_pos = (size_t)(line_end + 1 - c->in);
    c->line++;
    return 1;
}

static int append_byte(csv_file *c, char ch)
{
    if (c->len == c->cap) {
        if (c->cap >= MAX_RECORD)
            return csv_fail(c, c->n_fields - 1, "record longer than %d bytes (unterminated quote?)",
                            MAX_RECORD);
        if (datum_reserve(c->ctx, &c->buf, &c->cap, c->len + 1, 1) != DATUM_OK) return DATUM_E_NOMEM;
    }
    c->buf[c->len++] = ch;
    return DATUM_OK;
}

/* Appends in[0..n) to the record (a run of ordinary bytes). */
static int append_bytes(csv_file *c, const unsigned char *in, size_t n)
{
    if (c->len + n > MAX_RECORD)
        return csv_fail(c, c->n_fields - 1, "record longer than %d bytes (unterminated quote?)",
                        MAX_RECORD);
    if (datum_reserve(c->ctx, &c->buf, &c->cap, c->len + n, 1) != DATUM_OK) return DATUM_E_NOMEM;
    memcpy(c->buf + c->len, in, n);
    c->len += n;
    return DATUM_OK;
}

/* The bytes that end a run of ordinary ones: in an unquoted field, a
 * separator, a quote, a line end or a NUL; in a quoted field (kInQuotes), a
 * quote, a line feed (counted) or a NUL. */
static const unsigned char kUnquotedStop[256] = {[','] = 1, ['"'] = 1, ['\n'] = 1, ['\r'] = 1, [0] = 1};
static const unsigned char kQuotedStop[256] = {['"'] = 1, ['\n'] = 1, [0] = 1};

/* The longest run of ordinary bytes at the reading position, moved into
 * the record at once rather than byte by byte: most of a file. */
static int take_run(csv_file *c, const unsigned char *stop)
{
    const unsigned char *p = c->in + c->in_pos, *end = c->in + c->in_len, *q = p;
    while (q < end && !stop[*q]) q++;
    if (q == p) return DATUM_OK;
    c->in_pos += (size_t)(q - p);
    return append_bytes(c, p, (size_t)(q - p));
}

static int begin_field(csv_file *c)
{
    if (reserve_fields(c, c->n_fields + 1) != DATUM_OK) return DATUM_E_NOMEM;
    c->at[c->n_fields++] = (uint32_t)c->len;
    return DATUM_OK;
}

static int csv_open(datum_ctx *ctx, const char *path, csv_file **out)
{
    csv_file *c = datum_calloc(ctx, 1, sizeof *c);
    *out = NULL;
    if (!c) return DATUM_E_NOMEM;
    c->ctx = ctx;
    c->path = path;
    c->line = 1;
    c->range_end = UINT64_MAX;
    c->f = fopen(path, "rb");
    if (!c->f) {
        int rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot open %s", path);
        datum_free(c);
        return rc;
    }
    *out = c;
    return DATUM_OK;
}

static void csv_close(csv_file **c)
{
    if (!c || !*c) return;
    if ((*c)->f) fclose((*c)->f);
    datum_free((*c)->buf);
    datum_free((*c)->at);
    datum_free((*c)->header);
    datum_free((*c)->header_names);
    datum_free(*c);
    *c = NULL;
}

/* Skips a UTF-8 byte order mark at the start of the file. */
static int skip_bom(csv_file *c)
{
    static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
    int ch = next_byte(c);
    if (ch == BYTE_ERROR) return DATUM_E_IO;
    if (ch == BYTE_EOF) return DATUM_OK;
    c->in_pos--;
    if (c->in_len - c->in_pos >= 3 && memcmp(c->in + c->in_pos, bom, 3) == 0) c->in_pos += 3;
    return DATUM_OK;
}

/* Points base and at's end at the fields of the record in buf (begin_field
 * put their starts in at, with room for the end). 1. */
static int point_fields(csv_file *c)
{
    unsigned char seen = 0;
    for (size_t i = 0; i < c->len; i++) seen |= (unsigned char)c->buf[i];
    c->base = c->buf;
    c->at[c->n_fields] = (uint32_t)c->len;
    c->ascii = seen < 0x80;
    return 1;
}

/* Reads the next record, skipping empty lines. Returns 1 with a record, 0 at
 * the end of the file, or an error. */
static int csv_next(csv_file *c)
{
    enum { FIELD_START, UNQUOTED, QUOTED, QUOTED_QUOTE, CR };
    for (;;) {
        int state = FIELD_START, quoted = 0, rc;
        c->len = 0;
        c->n_fields = 0;
        c->record_line = c->line;
        if (c->in_offset + c->in_pos >= c->range_end) return 0; /* the next range's */
        if (c->in_len - c->in_pos < MAX_LINE_IN_PLACE && !feof(c->f) && (rc = refill(c)) != DATUM_OK)
            return rc;
        if ((rc = record_in_place(c)) < 0) return rc;
        if (rc == 1 && c->n_fields == 1 && c->at[1] == 1) continue; /* an empty line */
        if (rc == 1) return 1;
        if ((rc = begin_field(c)) != DATUM_OK) return rc;
        for (;;) {
            if (state == FIELD_START || state == UNQUOTED || state == QUOTED) {
                size_t before = c->len;
                if ((rc = take_run(c, state == QUOTED ? kQuotedStop : kUnquotedStop)) != DATUM_OK)
                    return rc;
                if (c->len > before && state == FIELD_START) state = UNQUOTED;
            }
            int ch = next_byte(c);
            if (ch == BYTE_ERROR) return DATUM_E_IO;
            if (ch == 0) return csv_fail(c, c->n_fields - 1, "NUL byte (not a text file?)");
            if (state == QUOTED) {
                if (ch == BYTE_EOF)
                    return csv_fail(c, c->n_fields - 1, "unterminated quoted field");
                if (ch == '"') {
                    state = QUOTED_QUOTE;
                    continue;
                }
                if (ch == '\n') c->line++;
                if ((rc = append_byte(c, (char)ch)) != DATUM_OK) return rc;
                continue;
            }
            if (state == CR && ch != '\n')
                return csv_fail(c, c->n_fields - 1, "carriage return without a line feed");
            if (ch == BYTE_EOF || ch == '\n') {
                if (ch == '\n') c->line++;
                int blank = c->n_fields == 1 && c->len == 0 && !quoted;
                if (blank && ch == BYTE_EOF) return 0;
                if (blank) break; /* an empty line: read the next one */
                if ((rc = append_byte(c, '\0')) != DATUM_OK) return rc;
                return point_fields(c);
            }
            if (ch == ',') {
                if ((rc = append_byte(c, '\0')) != DATUM_OK || (rc = begin_field(c)) != DATUM_OK)
                    return rc;
                state = FIELD_START;
            } else if (ch == '\r') {
                state = CR;
            } else if (ch == '"' && state == FIELD_START) {
                state = QUOTED;
                quoted = 1;
            } else if (ch == '"' && state == QUOTED_QUOTE) { /* "" inside quotes */
                if ((rc = append_byte(c, '"')) != DATUM_OK) return rc;
                state = QUOTED;
            } else if (state == QUOTED_QUOTE) {
                return csv_fail(c, c->n_fields - 1, "unexpected character after a closing quote");
            } else { /* a quote inside an unquoted field is kept, as most readers do */
                if ((rc = append_byte(c, (char)ch)) != DATUM_OK) return rc;
                state = UNQUOTED;
            }
        }
    }
}

static const char *field(const csv_file *c, size_t i) { return c->base + c->at[i]; }
static size_t field_len(const csv_file *c, size_t i) { return c->at[i + 1] - c->at[i] - 1; }

/* Reads the header row and keeps a copy of its names, for the messages. */
static int read_header_row(csv_file *c)
{
    int rc = csv_next(c);
    if (rc < 0) return rc;
    if (rc == 0)
        return datum_ctx_fail(c->ctx, DATUM_E_INPUT, "%s: empty file (a header row is required)",
                              c->path);
    size_t bytes = 0;
    for (size_t i = 0; i < c->n_fields; i++) bytes += field_len(c, i) + 1;
    c->header = datum_calloc(c->ctx, bytes, 1);
    c->header_names = datum_calloc(c->ctx, c->n_fields, sizeof *c->header_names);
    if (!c->header || !c->header_names) return DATUM_E_NOMEM;
    for (size_t i = 0, at = 0; i < c->n_fields; i++) {
        memcpy(c->header + at, field(c, i), field_len(c, i) + 1);
        c->header_names[i] = c->header + at;
        at += field_len(c, i) + 1;
    }
    c->names = c->header_names;
    c->n_names = c->n_fields;
    return DATUM_OK;
}

/* col[k] = the header field named known[k] (SIZE_MAX if absent); the first
 * n_required are required, and no known name may appear twice. */
static int find_columns(const csv_file *c, const char *const *known, size_t n_known,
                        size_t n_required, size_t *col)
{
    for (size_t k = 0; k < n_known; k++) col[k] = SIZE_MAX;
    for (size_t i = 0; i < c->n_names; i++)
        for (size_t k = 0; k < n_known; k++) {
            if (strcmp(c->names[i], known[k]) != 0) continue;
            if (col[k] != SIZE_MAX) return csv_fail(c, i, "appears twice in the header");
            col[k] = i;
        }
    for (size_t k = 0; k < n_required; k++)
        if (col[k] == SIZE_MAX)
            return datum_ctx_fail(c->ctx, DATUM_E_INPUT,
                                  "%s:%llu: column %s: missing from the header", c->path,
                                  (unsigned long long)c->record_line, known[k]);
    return DATUM_OK;
}

/* A record must have as many fields as the header. */
static int check_width(const csv_file *c)
{
    if (c->n_fields < c->n_names)
        return csv_fail(c, c->n_fields, "missing field (the row has %zu fields, the header %zu)",
                        c->n_fields, c->n_names);
    if (c->n_fields > c->n_names)
        return csv_fail(c, c->n_names, "extra field (the row has %zu fields, the header %zu)",
                        c->n_fields, c->n_names);
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Bridge results                                                           */

enum {
    K_EVENT,
    K_DATE,
    K_SECTION,
    K_BOARD,
    K_TABLE,
    K_NS_PAIR,
    K_EW_PAIR,
    K_NS_SCORE,
    K_ADJUSTED,
    K_NS_TEAM, /* the teams columns: all three or none */
    K_EW_TEAM,
    K_MATCH,
    N_KNOWN
};
static const char *const kKnown[N_KNOWN] = {
    "event",   "date",     "section", "board",   "table", "ns_pair",
    "ew_pair", "ns_score", "adjusted", "ns_team", "ew_team", "match"};
#define N_REQUIRED K_ADJUSTED /* the columns before `adjusted` are required */

struct io_results_reader {
    csv_file *csv;
    size_t col[N_KNOWN]; /* field index of each known column; SIZE_MAX if absent */
    uint64_t n_sitouts;  /* sit-out rows skipped */
    /* The last date parsed and its value (rows come in events, each on one
     * date); last_date_len 0: none (an empty cell is no date). */
    char last_date[16];
    size_t last_date_len;
    int32_t last_days;
};

/* Quotes a value for a message: at most 40 bytes, control characters as '?'. */
static const char *quoted_value(const char *s, char *buf, size_t size)
{
    size_t n = strlen(s), max = 40, j = 0;
    buf[j++] = '"';
    for (size_t i = 0; i < n && i < max && j + 5 < size; i++)
        buf[j++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
    if (n > max) j += (size_t)snprintf(buf + j, size - j, "...");
    snprintf(buf + j, size - j, "\"");
    return buf;
}

/* The error of field i, which is not a decimal integer in lo..hi within
 * int32 (parse_int's message). */
static int int_error(const csv_file *c, size_t i, int64_t lo, int64_t hi)
{
    const char *s = field(c, i);
    char q[64];
    int64_t v;
    int rc = datum_parse_int(s, field_len(c, i), INT32_MIN, INT32_MAX, &v);
    if (rc == DATUM_PARSE_EMPTY) return csv_fail(c, i, "empty (an integer is required)");
    if (rc == DATUM_PARSE_SYNTAX)
        return csv_fail(c, i, "%s is not an integer", quoted_value(s, q, sizeof q));
    if (rc == DATUM_PARSE_RANGE)
        return csv_fail(c, i, "%s is out of range (not a 32-bit integer)",
                        quoted_value(s, q, sizeof q));
    if (hi >= INT32_MAX)
        return csv_fail(c, i, "%s is out of range (at least %lld)", quoted_value(s, q, sizeof q),
                        (long long)lo);
    return csv_fail(c, i, "%s is out of range (%lld to %lld)", quoted_value(s, q, sizeof q),
                    (long long)lo, (long long)hi);
}

/* Parses a decimal integer (datum_parse_int) into lo..hi, within int32. */
static inline int parse_int(const csv_file *c, size_t i, int64_t lo, int64_t hi, int32_t *out)
{
    int64_t v;
    if (datum_parse_int(field(c, i), field_len(c, i), lo < INT32_MIN ? INT32_MIN : lo,
                        hi > INT32_MAX ? INT32_MAX : hi, &v) != DATUM_PARSE_OK)
        return int_error(c, i, lo, hi);
    *out = (int32_t)v;
    return DATUM_OK;
}

/* Parses YYYY-MM-DD, a real calendar date, into days since 1970-01-01. */
static int parse_date(const csv_file *c, size_t i, int32_t *out)
{
    const char *s = field(c, i);
    char q[64];
    if (datum_parse_date(s, field_len(c, i), DATUM_DATE_ISO, out) != DATUM_PARSE_OK)
        return csv_fail(c, i, "%s is not a date (YYYY-MM-DD)", quoted_value(s, q, sizeof q));
    return DATUM_OK;
}

/* Checks a text column: UTF-8, and not empty unless allowed. */
static int parse_text(const csv_file *c, size_t i, int allow_empty, const char **out, size_t *len)
{
    const char *s = field(c, i);
    size_t n = field_len(c, i);
    if (n == 0 && !allow_empty) return csv_fail(c, i, "empty (a name is required)");
    if (!c->ascii && !io_utf8_valid(s, n)) return csv_fail(c, i, "not valid UTF-8");
    *out = s;
    *len = n;
    return DATUM_OK;
}

/* The row's date (parse_date), the last one's value when it is spelled
 * the same. */
static int parse_row_date(io_results_reader *r, int32_t *out)
{
    const csv_file *c = r->csv;
    size_t i = r->col[K_DATE], n = field_len(c, i);
    if (n > 0 && n == r->last_date_len && io_same_bytes(field(c, i), r->last_date, n)) {
        *out = r->last_days;
        return DATUM_OK;
    }
    int rc = parse_date(c, i, out);
    if (rc == DATUM_OK && n < sizeof r->last_date) {
        memcpy(r->last_date, field(c, i), n);
        r->last_date_len = n;
        r->last_days = *out;
    }
    return rc;
}

static int parse_adjusted(const csv_file *c, size_t i, uint8_t *out)
{
    const char *s = field(c, i);
    char q[64];
    int code = datum_adjusted_parse(s, field_len(c, i));
    if (code < 0)
        return csv_fail(c, i,
                        "%s is not an adjusted score (A+, A, A-, or NS/EW: two of them, "
                        "e.g. A+/A-)",
                        quoted_value(s, q, sizeof q));
    *out = (uint8_t)code;
    return DATUM_OK;
}

/* Locates the known columns by name in the header just read. */
static int read_header(io_results_reader *r)
{
    int rc = read_header_row(r->csv);
    if (rc == DATUM_OK) rc = find_columns(r->csv, kKnown, N_KNOWN, N_REQUIRED, r->col);
    int teams = 0;
    for (int k = K_NS_TEAM; k <= K_MATCH; k++) teams += r->col[k] != SIZE_MAX;
    for (int k = K_NS_TEAM; rc == DATUM_OK && teams > 0 && teams < 3 && k <= K_MATCH; k++)
        if (r->col[k] == SIZE_MAX)
            rc = datum_ctx_fail(r->csv->ctx, DATUM_E_INPUT,
                                "%s:%llu: column %s: missing from the header (ns_team, ew_team "
                                "and match come together)",
                                r->csv->path, (unsigned long long)r->csv->record_line, kKnown[k]);
    return rc;
}

int io_results_open(datum_ctx *ctx, const char *path, io_results_reader **out)
{
    io_results_reader *r = datum_calloc(ctx, 1, sizeof *r);
    int rc = r ? csv_open(ctx, path, &r->csv) : DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = skip_bom(r->csv);
    if (rc == DATUM_OK) rc = read_header(r);
    if (rc != DATUM_OK) io_results_close(&r);
    *out = r;
    return rc;
}

int io_results_has_adjusted(const io_results_reader *r) { return r->col[K_ADJUSTED] != SIZE_MAX; }

int io_results_has_teams(const io_results_reader *r) { return r->col[K_MATCH] != SIZE_MAX; }

/* A row with one pair empty: a sit-out (0) when it has no result, neither
 * a score nor an adjusted code, and its other cells are well formed; else
 * the error of the empty pair. */
static int sitout_row(const io_results_reader *r, const io_result_row *row)
{
    const csv_file *c = r->csv;
    const size_t *col = r->col;
    size_t missing = *row->ns_pair ? col[K_EW_PAIR] : col[K_NS_PAIR];
    const char *unused;
    size_t unused_len;
    if (!*row->ns_pair && !*row->ew_pair)
        return parse_text(c, col[K_NS_PAIR], 0, &unused, &unused_len);
    if (*field(c, col[K_NS_SCORE]) ||
        (col[K_ADJUSTED] != SIZE_MAX && *field(c, col[K_ADJUSTED])))
        return parse_text(c, missing, 0, &unused, &unused_len); /* a result needs both pairs */
    for (int k = K_NS_TEAM; col[K_MATCH] != SIZE_MAX && k <= K_MATCH; k++) {
        int rc = parse_text(c, col[k], 1, &unused, &unused_len);
        if (rc != DATUM_OK) return rc;
    }
    return 0;
}

/* The current record as a row: 1, 0 for a sit-out row, or an error. */
static int read_row(io_results_reader *r, io_result_row *row)
{
    csv_file *c = r->csv;
    const size_t *col = r->col;
    int rc = check_width(c);
    if (rc != DATUM_OK) return rc;
    /* Field by field, not memset: the row is 176 bytes and the call (a
     * `rep stos`) was a sixth of this function's time on the decade. */
    row->line = c->record_line;
    row->date = row->board = row->table = row->ns_score = 0;
    row->adjusted = DATUM_ADJ_NONE;
    row->ns_team = row->ew_team = row->match = row->deal = NULL;
    row->published_ns = row->published_ew = 0;
    row->published_ns_percent = row->published_ew_percent = 0;
    row->published_method = 0;
    row->event_len = row->section_len = row->ns_pair_len = row->ew_pair_len = 0;
    row->lengths_known = 0;
    if ((rc = parse_text(c, col[K_EVENT], 0, &row->event, &row->event_len)) != DATUM_OK ||
        (rc = parse_row_date(r, &row->date)) != DATUM_OK ||
        (rc = parse_text(c, col[K_SECTION], 1, &row->section, &row->section_len)) != DATUM_OK ||
        (rc = parse_int(c, col[K_BOARD], 1, INT32_MAX, &row->board)) != DATUM_OK ||
        (rc = parse_int(c, col[K_TABLE], 0, INT32_MAX, &row->table)) != DATUM_OK ||
        (rc = parse_text(c, col[K_NS_PAIR], 1, &row->ns_pair, &row->ns_pair_len)) != DATUM_OK ||
        (rc = parse_text(c, col[K_EW_PAIR], 1, &row->ew_pair, &row->ew_pair_len)) != DATUM_OK)
        return rc;
    if (!row->ns_pair_len || !row->ew_pair_len) {
        row->event_len = row->section_len = row->ns_pair_len = row->ew_pair_len = 0;
        return sitout_row(r, row);
    }
    row->lengths_known = 1;
    size_t ns_len = row->ns_pair_len;
    if (ns_len == row->ew_pair_len && io_same_bytes(row->ns_pair, row->ew_pair, ns_len)) {
        char q[64];
        return csv_fail(c, col[K_EW_PAIR], "%s is also the NS pair",
                        quoted_value(row->ew_pair, q, sizeof q));
    }
    if (col[K_ADJUSTED] != SIZE_MAX &&
        (rc = parse_adjusted(c, col[K_ADJUSTED], &row->adjusted)) != DATUM_OK)
        return rc;
    /* The three teams cells empty: a result outside any match (as datum
     * export writes one of a teams archive). */
    size_t team_len; /* the lengths of the teams cells: not handed on */
    int no_match = col[K_MATCH] == SIZE_MAX ||
                   (!*field(c, col[K_NS_TEAM]) && !*field(c, col[K_EW_TEAM]) &&
                    !*field(c, col[K_MATCH]));
    if (!no_match &&
        ((rc = parse_text(c, col[K_NS_TEAM], 0, &row->ns_team, &team_len)) != DATUM_OK ||
         (rc = parse_text(c, col[K_EW_TEAM], 0, &row->ew_team, &team_len)) != DATUM_OK ||
         (rc = parse_text(c, col[K_MATCH], 0, &row->match, &team_len)) != DATUM_OK))
        return rc;
    if (row->match && strcmp(row->ns_team, row->ew_team) == 0) {
        char q[64];
        return csv_fail(c, col[K_EW_TEAM], "%s is also the NS team",
                        quoted_value(row->ew_team, q, sizeof q));
    }
    /* An adjusted result has no score: whatever stands there is ignored. */
    if (row->adjusted == DATUM_ADJ_NONE)
        rc = parse_int(c, col[K_NS_SCORE], -IO_MAX_SCORE, IO_MAX_SCORE, &row->ns_score);
    return rc == DATUM_OK ? 1 : rc;
}

int io_results_next(io_results_reader *r, io_result_row *row)
{
    int rc;
    while ((rc = csv_next(r->csv)) == 1 && (rc = read_row(r, row)) == 0) r->n_sitouts++;
    return rc;
}

int io_results_range(io_results_reader *r, uint64_t begin, uint64_t end, uint64_t line)
{
    csv_file *c = r->csv;
    c->range_end = end;
    if (begin == 0) return DATUM_OK; /* the first part: the header is read, go on */
    if (fseeko(c->f, (off_t)begin, SEEK_SET) != 0)
        return io_fail_errno(c->ctx, DATUM_E_IO, errno, "cannot read %s", c->path);
    c->in_offset = begin;
    c->in_pos = c->in_len = 0;
    c->line = line;
    return DATUM_OK;
}

void io_results_position(const io_results_reader *r, uint64_t *offset, uint64_t *line)
{
    *offset = r->csv->in_offset + r->csv->in_pos;
    *line = r->csv->line;
}

const uint64_t *io_results_sitouts(const io_results_reader *r) { return &r->n_sitouts; }

void io_results_close(io_results_reader **r)
{
    if (!r || !*r) return;
    csv_close(&(*r)->csv);
    datum_free(*r);
    *r = NULL;
}

/* ------------------------------------------------------------------------ */
/* Any CSV with a header row (io_common.h): the record reader and the field  */
/* parsers above, for the other input formats.                               */

int io_csv_open(datum_ctx *ctx, const char *path, io_csv **out)
{
    int rc = csv_open(ctx, path, out);
    if (rc == DATUM_OK) rc = skip_bom(*out);
    if (rc == DATUM_OK) rc = read_header_row(*out);
    if (rc != DATUM_OK) csv_close(out);
    return rc;
}

void io_csv_close(io_csv **c) { csv_close(c); }

int io_csv_columns(const io_csv *c, const char *const *names, size_t n, size_t n_required,
                   size_t *col)
{
    return find_columns(c, names, n, n_required, col);
}

int io_csv_next(io_csv *c)
{
    int rc = csv_next(c);
    if (rc == 1 && (rc = check_width(c)) == DATUM_OK) rc = 1;
    return rc;
}

const char *io_csv_path(const io_csv *c) { return c->path; }
uint64_t io_csv_line(const io_csv *c) { return c->record_line; }
const char *io_csv_field(const io_csv *c, size_t i) { return field(c, i); }

int io_csv_fail(const io_csv *c, size_t i, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return csv_fail(c, i, "%s", what);
}

int io_csv_int(const io_csv *c, size_t i, int64_t lo, int64_t hi, int32_t *out)
{
    return parse_int(c, i, lo, hi, out);
}

int io_csv_date(const io_csv *c, size_t i, int32_t *out) { return parse_date(c, i, out); }

int io_csv_text(const io_csv *c, size_t i, int allow_empty, const char **out)
{
    size_t len;
    return parse_text(c, i, allow_empty, out, &len);
}

const char *io_csv_quote(const char *s, char *buf, size_t size)
{
    return quoted_value(s, buf, size);
}
