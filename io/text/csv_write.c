/*
 * csv_write.c - CSV output (RFC 4180 quoting, UTF-8, LF line ends) through a
 * large buffer, written to PATH.tmp-XXXXXX and renamed at commit; "-" is
 * standard output. The field functions cannot fail: the first write error is
 * kept and reported by datum_csv_commit.
 *
 * Numbers go through printf/strtod, which assume the "C" LC_NUMERIC locale
 * (the library never calls setlocale).
 */
#include "io_common.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFFER_SIZE (1 << 20)

struct datum_csv_writer {
    datum_ctx *ctx;
    char *path; /* as given; "-" for standard output */
    char *tmp;  /* the temporary file until renamed; NULL for standard output */
    int to_stdout;
    FILE *f;
    int error;   /* errno of the first failed write, 0 if none */
    int refused; /* the DATUM_E_ARG of a call refused (datum_csv_str(w, NULL)), 0 if none */
    int in_row;
    size_t len;
    char buf[BUFFER_SIZE];
};

/* Keeps the first write error: errno, or EIO if the library set none. */
static void note_failure(datum_csv_writer *w, int failed)
{
    if (failed && !w->error) w->error = errno ? errno : EIO;
}

static void flush_buffer(datum_csv_writer *w)
{
    errno = 0;
    if (w->len && !w->error) note_failure(w, fwrite(w->buf, 1, w->len, w->f) != w->len);
    w->len = 0;
}

static void put(datum_csv_writer *w, const char *s, size_t n)
{
    while (n > 0) {
        if (w->len == BUFFER_SIZE) flush_buffer(w);
        size_t k = BUFFER_SIZE - w->len < n ? BUFFER_SIZE - w->len : n;
        memcpy(w->buf + w->len, s, k);
        w->len += k;
        s += k;
        n -= k;
    }
}

/* The separator before every field but the first of a row. */
static void next_field(datum_csv_writer *w)
{
    if (w->in_row) put(w, ",", 1);
    w->in_row = 1;
}

int datum_csv_create(datum_ctx *ctx, const char *path, datum_csv_writer **out)
{
    datum_csv_writer *w = datum_calloc(ctx, 1, sizeof *w);
    int fd = -1, rc = w ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    w->ctx = ctx;
    if (!(w->path = datum_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    else if ((w->to_stdout = strcmp(path, "-") == 0)) w->f = stdout;
    else if ((rc = io_temp_create(ctx, path, &w->tmp, &fd)) == DATUM_OK) {
        if ((w->f = fdopen(fd, "wb")) == NULL) {
            rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot write %s", path);
            close(fd);
        } else {
            setvbuf(w->f, NULL, _IONBF, 0); /* we buffer ourselves */
        }
    }
    if (rc != DATUM_OK) datum_csv_abort(&w);
    *out = w;
    return rc;
}

void datum_csv_str(datum_csv_writer *w, const char *s)
{
    if (!s) { /* refused: the file is not committed */
        if (!w->refused)
            w->refused = datum_ctx_fail(w->ctx, DATUM_E_ARG, "cannot write %s: a NULL string field",
                                        w->to_stdout ? "standard output" : w->path);
        return;
    }
    next_field(w);
    if (!strpbrk(s, ",\"\r\n")) {
        put(w, s, strlen(s));
        return;
    }
    put(w, "\"", 1);
    for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
        put(w, s, (size_t)(q - s) + 1);
        put(w, "\"", 1); /* a quote is written twice */
    }
    put(w, s, strlen(s));
    put(w, "\"", 1);
}

void datum_csv_int(datum_csv_writer *w, int64_t v)
{
    /* By hand, not snprintf: exports write hundreds of millions of them. */
    char text[24], *end = text + sizeof text, *p = end;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0) *--p = '-';
    next_field(w);
    put(w, p, (size_t)(end - p));
}

void datum_csv_real(datum_csv_writer *w, double v)
{
    char text[32];
    next_field(w);
    datum_format_real(v, text);
    put(w, text, strlen(text));
}

void datum_csv_empty(datum_csv_writer *w) { next_field(w); }

void datum_csv_end_row(datum_csv_writer *w)
{
    put(w, "\n", 1);
    w->in_row = 0;
}

int datum_csv_commit(datum_csv_writer **w)
{
    datum_csv_writer *p = *w;
    int rc = DATUM_OK;
    *w = NULL;
    if (!p) return rc;
    flush_buffer(p);
    errno = 0;
    note_failure(p, (p->to_stdout ? fflush(stdout) : fclose(p->f)) != 0);
    if (!p->to_stdout) p->f = NULL;
    if (p->refused) rc = p->refused; /* recorded when refused */
    else if (p->error)
        rc = io_fail_errno(p->ctx, DATUM_E_IO, p->error, "cannot write %s",
                           p->to_stdout ? "standard output" : p->path);
    else if (!p->to_stdout && (rc = io_temp_commit(p->ctx, p->tmp, p->path)) == DATUM_OK) {
        datum_free(p->tmp); /* renamed: nothing to remove */
        p->tmp = NULL;
    }
    datum_csv_abort(&p);
    return rc;
}

void datum_csv_abort(datum_csv_writer **w)
{
    if (!w || !*w) return;
    datum_csv_writer *p = *w;
    if (p->f && !p->to_stdout) fclose(p->f);
    io_temp_discard(&p->tmp);
    datum_free(p->path);
    datum_free(p);
    *w = NULL;
}

char *datum_format_real(double v, char *buf)
{
    /* Integral values print as integers, without exponent, while %.0f is
     * exact and short (below 1e17 it has at most 17 digits). */
    if (isnan(v)) {
        buf[0] = '\0';
    } else if (v == floor(v) && fabs(v) < 1e17) {
        snprintf(buf, 32, "%.0f", v);
    } else {
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, 32, "%.*g", digits, v);
            if (strtod(buf, NULL) == v) break; /* the shortest that reads back */
        }
    }
    return buf;
}
