/*
 * format.c - what opening the two archives (the bridge archive, archive.c,
 * and the tarot archive, tarot_archive.c) shares: the file checked before
 * HDF5 opens it, the format check, the dictionary reader and the message of
 * a damaged file.
 */
#include "io_internal.h"
#include "datum_tarot_io.h" /* DATUM_TAROT_ARCHIVE_FORMAT_VERSION */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const io_archive_kind io_bridge_archive = {"datum-archive", "datum archive", "archive",
                                           DATUM_ARCHIVE_FORMAT_VERSION};
const io_archive_kind io_tarot_archive = {"datum-tarot", "tarot archive", "tarot archive",
                                          DATUM_TAROT_ARCHIVE_FORMAT_VERSION};

int io_vdamaged(datum_ctx *ctx, const char *path, const io_archive_kind *kind, const char *fmt,
                va_list ap)
{
    if (io_h5_nomem(ctx) == DATUM_E_NOMEM) return DATUM_E_NOMEM; /* not damage: HDF5's memory */
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    return datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: damaged %s: %s", path, kind->noun, what);
}

int io_damaged(datum_ctx *ctx, const char *path, const io_archive_kind *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = io_vdamaged(ctx, path, kind, fmt, ap);
    va_end(ap);
    return rc;
}

/* A missing or unreadable file is an I/O error, reported as the system says;
 * a file that HDF5 cannot open is a format error. */
int io_h5_open_checked(datum_ctx *ctx, const char *path, hid_t *file)
{
    struct stat st;
    int err = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) err = errno;
    else if (fstat(fd, &st) != 0) err = errno;
    else if (S_ISDIR(st.st_mode)) err = EISDIR;
    if (fd >= 0) close(fd);
    if (err) return io_fail_errno(ctx, DATUM_E_IO, err, "cannot open %s", path);
    io_h5_silence();
    if (H5Fis_hdf5(path) <= 0 || (*file = io_h5_open_file(path)) < 0)
        return io_h5_nomem(ctx) ? DATUM_E_NOMEM : datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: not an HDF5 file (or damaged)", path);
    return DATUM_OK;
}

int io_check_format(datum_ctx *ctx, hid_t file, const char *path, const io_archive_kind *kind)
{
    char *format = NULL;
    int64_t version;
    int rc = io_h5_get_str_attr(ctx, file, "format", &format);
    if (rc == 1 && io_h5_nomem(ctx)) rc = DATUM_E_NOMEM;
    if (rc == 1 || (rc == DATUM_OK && strcmp(format, kind->format) != 0))
        rc = datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: not a %s%s%s%s", path, kind->name,
                            format ? " (format \"" : "", format ? format : "", format ? "\")" : "");
    else if (rc == DATUM_OK && io_h5_get_int_attr(file, "format_version", &version) < 0)
        rc = io_damaged(ctx, path, kind, "no format_version attribute");
    else if (rc == DATUM_OK && (version < 1 || version > kind->version))
        rc = datum_ctx_fail(ctx, DATUM_E_FORMAT,
                            "%s: %s format version %lld is not supported (this datum reads "
                            "version%s %d)",
                            path, kind->noun, (long long)version, kind->version > 1 ? "s 1 to" : "",
                            kind->version);
    datum_free(format);
    return rc;
}

int io_file_version(hid_t file)
{
    int64_t version;
    return io_h5_get_int_attr(file, "format_version", &version) < 0 ? -1 : (int)version;
}

/* Copies n strings (NULL for "") into one block of bytes and an array of
 * pointers into it, the first of which is the block. */
int io_copy_strings(datum_ctx *ctx, char *const *s, uint64_t n, char ***out)
{
    size_t bytes = 0;
    for (uint64_t i = 0; i < n; i++) bytes += (s[i] ? strlen(s[i]) : 0) + 1;
    char **entries = datum_calloc(ctx, n, sizeof *entries);
    char *block = n ? datum_calloc(ctx, bytes, 1) : NULL;
    if (!entries || (n && !block)) {
        datum_free(entries);
        datum_free(block);
        return DATUM_E_NOMEM;
    }
    for (uint64_t i = 0, at = 0; i < n; i++) {
        size_t len = s[i] ? strlen(s[i]) : 0;
        entries[i] = block + at;
        if (len) memcpy(entries[i], s[i], len);
        at += len + 1;
    }
    *out = entries;
    return DATUM_OK;
}

/* A dictionary's strings as HDF5 reads them, in blocks of ours: HDF5
 * allocated each (malloc) and released each (H5free_memory, an API call
 * under the library's lock), a third of the reading of decade's 296,508
 * event names (0.097 to 0.067 CPU s for its five dictionaries). */
typedef struct {
    datum_ctx *ctx;
    char **block;
    size_t n_blocks, blocks_cap;
    size_t used, room; /* of the last block */
    int nomem;
} string_blocks;

enum { STRING_BLOCK = 1 << 20 };

static void *string_block_alloc(size_t size, void *info)
{
    string_blocks *b = info;
    size = size ? size : 1;
    if (!b->n_blocks || size > b->room - b->used) {
        size_t bytes = size > STRING_BLOCK ? size : STRING_BLOCK;
        char *p = NULL;
        if (datum_reserve(b->ctx, &b->block, &b->blocks_cap, b->n_blocks + 1, sizeof *b->block) ==
            DATUM_OK)
            p = datum_malloc(b->ctx, bytes, 1);
        if (!p) {
            b->nomem = 1;
            return NULL;
        }
        b->block[b->n_blocks++] = p;
        b->used = 0;
        b->room = bytes;
    }
    char *at = b->block[b->n_blocks - 1] + b->used;
    b->used += size;
    return at;
}

static void string_blocks_free(string_blocks *b)
{
    for (size_t i = 0; i < b->n_blocks; i++) datum_free(b->block[i]);
    datum_free(b->block);
}

int io_read_dict(datum_ctx *ctx, hid_t file, const char *path, const io_archive_kind *kind,
                 const char *name, uint32_t *n_out, char ***out)
{
    string_blocks blocks = {.ctx = ctx};
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    uint64_t n = 0;
    char **h5 = NULL;
    int rc = DATUM_OK;
    *out = NULL;
    if (ds < 0) rc = io_damaged(ctx, path, kind, "%s is missing", name);
    else if (io_h5_length(ds, &n) < 0 || n > INT32_MAX)
        rc = io_damaged(ctx, path, kind, "%s is not a 1-D dataset of at most 2^31-1 entries", name);
    else if (!(h5 = datum_calloc(ctx, n, sizeof *h5))) rc = DATUM_E_NOMEM;
    else {
        errno = 0; /* an allocation failing inside HDF5 leaves ENOMEM, also when HDF5 has no
                      memory left to say so */
        if (io_h5_read_strings(ds, n, h5, string_block_alloc, &blocks) < 0) {
            int err = errno;
            if (blocks.nomem) { /* recorded by datum_malloc first: the message kept */
                (void)io_h5_nomem(ctx);
                rc = DATUM_E_NOMEM;
            } else if ((rc = io_h5_nomem(ctx)) == DATUM_OK)
                rc = err == ENOMEM ? datum_ctx_fail(ctx, DATUM_E_NOMEM,
                                                    "out of memory (HDF5, reading %s of %s)", name,
                                                    path)
                                   : io_damaged(ctx, path, kind, "%s is not a readable string "
                                                                 "dataset", name);
        }
    }
    if (rc == DATUM_OK) rc = io_copy_strings(ctx, h5, n, out);
    string_blocks_free(&blocks);
    datum_free(h5);
    if (ds >= 0) H5Dclose(ds);
    *n_out = rc == DATUM_OK ? (uint32_t)n : 0;
    return rc;
}

void io_free_dict(char **entries, uint32_t n)
{
    if (entries && n) datum_free(entries[0]);
    datum_free(entries);
}
