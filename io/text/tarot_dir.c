/*
 * tarot_dir.c - a directory of roadmap sheets written as a whole: every
 * file goes first into a staging directory beside the target (same file
 * system, so that the final moves are renames), and only the commit moves
 * them in. A failure while writing, which is when disks fill up, thus
 * leaves the target as it was.
 */
#include "io_common.h"
#include "datum_tarot_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file or subdirectory of the set: its name in DIR and its path in the
 * staging directory, both kept so that cleaning up allocates nothing. */
typedef struct {
    char *name, *staged;
} entry;

struct datum_tarot_sheet_dir {
    datum_ctx *ctx;
    char *dir;      /* the target, without trailing slashes */
    char *staging;  /* DIR.tmp-XXXXXX */
    entry *files;   /* written (or being written) */
    size_t n_files, files_cap;
    entry *subdirs; /* made in the staging directory */
    size_t n_subdirs, subdirs_cap;
};

/* "A/B" joined with a '/', malloc'd; NULL (recorded) if out of memory. */
static char *join(datum_ctx *ctx, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = datum_calloc(ctx, na + nb + 2, 1);
    if (s) {
        memcpy(s, a, na);
        s[na] = '/';
        memcpy(s + na + 1, b, nb + 1);
    }
    return s;
}

int datum_tarot_sheet_dir_create(datum_ctx *ctx, const char *dir, datum_tarot_sheet_dir **out)
{
    datum_tarot_sheet_dir *d = datum_calloc(ctx, 1, sizeof *d);
    struct stat st;
    *out = NULL;
    if (!d) return DATUM_E_NOMEM;
    d->ctx = ctx;
    int rc = (d->dir = datum_strdup(ctx, dir)) ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        size_t n = strlen(d->dir);
        while (n > 1 && d->dir[n - 1] == '/') d->dir[--n] = '\0';
        if (n == 0) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "empty directory name for the sheets");
    }
    if (rc == DATUM_OK && stat(d->dir, &st) == 0 && !S_ISDIR(st.st_mode))
        rc = io_fail_errno(ctx, DATUM_E_IO, ENOTDIR, "cannot write the sheets into %s", d->dir);
    if (rc == DATUM_OK) {
        size_t n = strlen(d->dir);
        if (!(d->staging = datum_calloc(ctx, n + sizeof ".tmp-XXXXXX", 1))) rc = DATUM_E_NOMEM;
        else {
            memcpy(d->staging, d->dir, n);
            memcpy(d->staging + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
            if (!mkdtemp(d->staging)) {
                rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot create %s", d->dir);
                datum_free(d->staging);
                d->staging = NULL;
            }
        }
    }
    if (rc != DATUM_OK) datum_tarot_sheet_dir_abort(&d);
    *out = d;
    return rc;
}

/* A name inside the set: FILE or SUBDIR/FILE, no empty part, "." or "..". */
static int valid_name(const char *name)
{
    const char *slash = strchr(name, '/');
    if (slash && strchr(slash + 1, '/')) return 0;
    for (const char *part = name; part; part = slash ? slash + 1 : NULL, slash = NULL) {
        size_t len = slash ? (size_t)(slash - part) : strlen(part);
        if (len == 0 || (len == 1 && part[0] == '.') || (len == 2 && !strncmp(part, "..", 2)))
            return 0;
    }
    return 1;
}

/* Appends {name[0..len), its staging path} to a list. */
static int add_entry(datum_tarot_sheet_dir *d, entry **list, size_t *n, size_t *cap,
                     const char *name, size_t len)
{
    int rc = datum_reserve(d->ctx, list, cap, *n + 1, sizeof **list);
    if (rc != DATUM_OK) return rc;
    entry *e = &(*list)[*n];
    *e = (entry){datum_calloc(d->ctx, len + 1, 1), NULL};
    if (e->name) memcpy(e->name, name, len);
    if (e->name) e->staged = join(d->ctx, d->staging, e->name);
    if (!e->staged) {
        datum_free(e->name);
        return DATUM_E_NOMEM;
    }
    (*n)++;
    return DATUM_OK;
}

/* Records the name (refusing it twice) and makes its subdirectory in the
 * staging directory if it has one. */
static int reserve_name(datum_tarot_sheet_dir *d, const char *name)
{
    if (!valid_name(name))
        return datum_ctx_fail(d->ctx, DATUM_E_ARG, "invalid sheet file name \"%s\"", name);
    for (size_t i = 0; i < d->n_files; i++)
        if (strcmp(d->files[i].name, name) == 0)
            return datum_ctx_fail(d->ctx, DATUM_E_ARG, "sheet file %s written twice", name);
    const char *slash = strchr(name, '/');
    size_t len = slash ? (size_t)(slash - name) : 0;
    int known = !slash;
    for (size_t i = 0; i < d->n_subdirs && !known; i++)
        known = strlen(d->subdirs[i].name) == len && strncmp(d->subdirs[i].name, name, len) == 0;
    if (!known) {
        int rc = add_entry(d, &d->subdirs, &d->n_subdirs, &d->subdirs_cap, name, len);
        if (rc != DATUM_OK) return rc;
        if (mkdir(d->subdirs[d->n_subdirs - 1].staged, 0777) != 0) {
            rc = io_fail_errno(d->ctx, DATUM_E_IO, errno, "cannot create %s",
                               d->subdirs[d->n_subdirs - 1].staged);
            d->n_subdirs--; /* not made: nothing to remove */
            datum_free(d->subdirs[d->n_subdirs].name);
            datum_free(d->subdirs[d->n_subdirs].staged);
            return rc;
        }
    }
    return add_entry(d, &d->files, &d->n_files, &d->files_cap, name, strlen(name));
}

/* What a file holds: a sheet or the index. */
typedef struct {
    const datum_tarot_sheet *sheet;
    const datum_tarot_index_event *events;
    size_t n_events;
} content;

/* Writes one file of the set, synced before the commit renames it. */
static int write_file(datum_tarot_sheet_dir *d, const char *name, const content *what)
{
    int rc = reserve_name(d, name);
    if (rc != DATUM_OK) return rc;
    const char *path = d->files[d->n_files - 1].staged;
    char *shown = join(d->ctx, d->dir, name);
    FILE *f = shown ? fopen(path, "wb") : NULL;
    if (!shown) rc = DATUM_E_NOMEM;
    else if (!f) rc = io_fail_errno(d->ctx, DATUM_E_IO, errno, "cannot write %s", shown);
    if (f) {
        rc = what->sheet ? datum_tarot_sheet_write(d->ctx, what->sheet, f)
                         : datum_tarot_index_write(d->ctx, what->events, what->n_events, f);
        if (rc == DATUM_OK && fsync(fileno(f)) != 0)
            rc = io_fail_errno(d->ctx, DATUM_E_IO, errno, "cannot write %s", shown);
        if (fclose(f) != 0 && rc == DATUM_OK)
            rc = io_fail_errno(d->ctx, DATUM_E_IO, errno, "cannot write %s", shown);
    }
    datum_free(shown);
    return rc;
}

int datum_tarot_sheet_dir_add(datum_tarot_sheet_dir *d, const char *name,
                              const datum_tarot_sheet *sheet)
{
    if (!sheet) return datum_ctx_fail(d->ctx, DATUM_E_ARG, "no sheet");
    content what = {sheet, NULL, 0};
    return write_file(d, name, &what);
}

int datum_tarot_sheet_dir_add_index(datum_tarot_sheet_dir *d, const char *name,
                                    const datum_tarot_index_event *events, size_t n_events)
{
    content what = {NULL, events, n_events};
    return write_file(d, name, &what);
}

int datum_tarot_sheet_dir_reserve(datum_tarot_sheet_dir *d, const char *name, const char **path)
{
    *path = NULL;
    int rc = reserve_name(d, name);
    if (rc == DATUM_OK) *path = d->files[d->n_files - 1].staged;
    return rc;
}

/* mkdir that accepts an existing directory. */
static int ensure_dir(datum_ctx *ctx, const char *path)
{
    struct stat st;
    if (mkdir(path, 0777) == 0 || (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return DATUM_OK;
    return io_fail_errno(ctx, DATUM_E_IO, errno == EEXIST ? ENOTDIR : errno, "cannot create %s",
                         path);
}

int datum_tarot_sheet_dir_commit(datum_tarot_sheet_dir **dp)
{
    datum_tarot_sheet_dir *d = *dp;
    int rc = ensure_dir(d->ctx, d->dir);
    for (size_t i = 0; i < d->n_subdirs && rc == DATUM_OK; i++) {
        char *path = join(d->ctx, d->dir, d->subdirs[i].name);
        rc = path ? ensure_dir(d->ctx, path) : DATUM_E_NOMEM;
        datum_free(path);
    }
    for (size_t i = 0; i < d->n_files && rc == DATUM_OK; i++) {
        char *to = join(d->ctx, d->dir, d->files[i].name);
        if (!to) rc = DATUM_E_NOMEM;
        else if (rename(d->files[i].staged, to) != 0)
            rc = io_fail_errno(d->ctx, DATUM_E_IO, errno, "cannot write %s", to);
        datum_free(to);
    }
    datum_tarot_sheet_dir_abort(dp); /* what is left of the staging directory */
    return rc;
}

void datum_tarot_sheet_dir_abort(datum_tarot_sheet_dir **dp)
{
    if (!dp || !*dp) return;
    datum_tarot_sheet_dir *d = *dp;
    for (size_t i = 0; i < d->n_files; i++) {
        remove(d->files[i].staged); /* already moved by a commit: nothing to remove */
        datum_free(d->files[i].name);
        datum_free(d->files[i].staged);
    }
    for (size_t i = 0; i < d->n_subdirs; i++) {
        rmdir(d->subdirs[i].staged);
        datum_free(d->subdirs[i].name);
        datum_free(d->subdirs[i].staged);
    }
    if (d->staging) rmdir(d->staging);
    datum_free(d->files);
    datum_free(d->subdirs);
    datum_free(d->staging);
    datum_free(d->dir);
    datum_free(d);
    *dp = NULL;
}
