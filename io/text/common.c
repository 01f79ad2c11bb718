/* common.c - error, option and atomic-file helpers of io/ (allocation: engine/datum_alloc.h). */
#include "io_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int io_fail_errno(datum_ctx *ctx, int code, int err, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return datum_ctx_fail(ctx, code, "%s: %s", what, strerror(err));
}

int io_write_options(datum_ctx *ctx, const datum_write_options *opt, datum_write_options *out)
{
    static const datum_write_options defaults = DATUM_WRITE_OPTIONS_INIT;
    *out = opt ? *opt : defaults;
    if (out->compress != 0 && out->compress != 1)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "compress must be 0 or 1, not %d", out->compress);
    if (out->compress && (out->deflate_level < 1 || out->deflate_level > 9))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "deflate level must be 1..9, not %d",
                              out->deflate_level);
    if (out->chunk_rows < 1)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "chunk_rows must be at least 1");
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Atomic files                                                             */

#define TEMP_MARK ".tmp-" /* then six random characters */

/* Fills x6[0..6) from a hash of the time, the process and the attempt;
 * O_EXCL makes a collision harmless (we try another name). */
static void temp_name(char *x6, unsigned attempt)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
                 ((uint64_t)(uintptr_t)x6 << 7) ^ attempt;
    for (int i = 0; i < 6; i++) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; /* SplitMix64 finalizer */
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x6[i] = alphabet[z % (sizeof alphabet - 1)];
    }
}

int io_temp_create(datum_ctx *ctx, const char *path, char **tmp, int *fd)
{
    /* The commit renames the temporary file over the path: over a device
     * such as /dev/null that would replace the device itself. */
    struct stat st;
    *fd = -1;
    *tmp = NULL;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return datum_ctx_fail(ctx, DATUM_E_ARG,
                              "cannot write %s: not a regular file (outputs are written to a "
                              "temporary file and renamed into place)", path);
    size_t n = strlen(path), x = n + strlen(TEMP_MARK);
    char *name = datum_calloc(ctx, x + 7, 1);
    int rc = name ? DATUM_OK : DATUM_E_NOMEM;
    *fd = -1;
    if (name) {
        memcpy(name, path, n);
        memcpy(name + n, TEMP_MARK, strlen(TEMP_MARK));
    }
    for (unsigned attempt = 0; rc == DATUM_OK && *fd < 0; attempt++) {
        temp_name(name + x, attempt);
        *fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (*fd < 0 && (errno != EEXIST || attempt == 100))
            rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot create %s", path);
    }
    if (rc != DATUM_OK) {
        datum_free(name);
        name = NULL;
    }
    *tmp = name;
    return rc;
}

int io_temp_commit(datum_ctx *ctx, const char *tmp, const char *path)
{
    /* Sync before the rename, so that a crash never leaves a renamed but
     * incomplete file in place of the old one. */
    int rc = DATUM_OK;
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0)
        rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot write %s", path);
    else if (rename(tmp, path) != 0)
        rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot write %s", path);
    if (fd >= 0) close(fd);
    if (rc != DATUM_OK) remove(tmp);
    return rc;
}

void io_temp_discard(char **tmp)
{
    if (!tmp || !*tmp) return;
    remove(*tmp);
    datum_free(*tmp);
    *tmp = NULL;
}

/* ------------------------------------------------------------------------ */
/* Text                                                                     */

int io_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p++;
        size_t more;
        uint32_t cp, min;
        if (c < 0x80) continue;
        if (c >= 0xC2 && c <= 0xDF) more = 1, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF) more = 2, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4) more = 3, cp = c & 0x07, min = 0x10000;
        else return 0;
        if ((size_t)(end - p) < more) return 0;
        for (size_t i = 0; i < more; i++) {
            if ((p[i] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        p += more;
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    }
    return 1;
}
