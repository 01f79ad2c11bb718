/*
 * inputs.c - what an import reads: the files named by its arguments (a
 * directory for the files under it, a list file for its lines), and each
 * file's format, recognised by its first bytes.
 */
#include "io_common.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int io_detect_format(datum_ctx *ctx, const char *path, int *format)
{
    unsigned char head[512];
    FILE *f = fopen(path, "rb");
    if (!f) return io_fail_errno(ctx, DATUM_E_IO, errno, "cannot open %s", path);
    size_t n = fread(head, 1, sizeof head, f), i = 0;
    fclose(f);
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3; /* UTF-8 BOM */
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
    /* An XML file is USEBIO (the reader says so if it is not); a PBN file
     * opens with a tag or a % comment; a results CSV with its header. */
    if (i < n && head[i] == '<') *format = DATUM_FORMAT_USEBIO;
    else if (i < n && (head[i] == '[' || head[i] == '%')) *format = DATUM_FORMAT_PBN;
    else *format = DATUM_FORMAT_CSV;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* The list of input paths                                                  */

typedef struct {
    datum_ctx *ctx;
    char **paths;
    size_t n, cap;
} path_list;

static int add_path(path_list *l, const char *path)
{
    int rc = datum_reserve(l->ctx, &l->paths, &l->cap, l->n + 1, sizeof *l->paths);
    if (rc != DATUM_OK) return rc;
    if (!(l->paths[l->n] = datum_strdup(l->ctx, path))) return DATUM_E_NOMEM;
    l->n++;
    return DATUM_OK;
}

static int compare_paths(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Adds the regular files under dir (recursively; names starting with '.'
 * skipped), unsorted. */
static int add_directory(path_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return io_fail_errno(l->ctx, DATUM_E_IO, errno, "cannot read %s", dir);
    int rc = DATUM_OK;
    char *path = NULL;
    size_t path_cap = 0;
    for (struct dirent *e; rc == DATUM_OK && (errno = 0, e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((rc = datum_reserve(l->ctx, &path, &path_cap, len, 1)) != DATUM_OK) break;
        snprintf(path, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) rc = io_fail_errno(l->ctx, DATUM_E_IO, errno, "cannot read %s", path);
        else if (S_ISDIR(st.st_mode)) rc = add_directory(l, path);
        else if (S_ISREG(st.st_mode)) rc = add_path(l, path);
    }
    if (rc == DATUM_OK && errno != 0) rc = io_fail_errno(l->ctx, DATUM_E_IO, errno, "cannot read %s", dir);
    closedir(d);
    datum_free(path);
    return rc;
}

/* A path given by the user: a file, or a directory's files in byte order. */
static int add_argument(path_list *l, const char *arg)
{
    struct stat st;
    if (stat(arg, &st) != 0) return io_fail_errno(l->ctx, DATUM_E_IO, errno, "cannot read %s", arg);
    if (!S_ISDIR(st.st_mode)) return add_path(l, arg);
    size_t first = l->n;
    int rc = add_directory(l, arg);
    if (rc == DATUM_OK && l->n == first)
        rc = datum_ctx_fail(l->ctx, DATUM_E_INPUT, "%s: no files in the directory", arg);
    if (rc == DATUM_OK) qsort(l->paths + first, l->n - first, sizeof *l->paths, compare_paths);
    return rc;
}

/* The paths of a list file, one a line. */
static int add_list(path_list *l, const char *list)
{
    int is_stdin = strcmp(list, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(list, "r");
    if (!f) return io_fail_errno(l->ctx, DATUM_E_IO, errno, "cannot read %s", list);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = DATUM_OK;
    while (rc == DATUM_OK && (len = getline(&line, &cap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (len > 0 && line[0] != '#') rc = add_argument(l, line);
    }
    if (rc == DATUM_OK && ferror(f)) rc = io_fail_errno(l->ctx, DATUM_E_IO, errno, "cannot read %s", list);
    free(line); /* getline's, not ours */
    if (!is_stdin) fclose(f);
    return rc;
}

int datum_import_paths(datum_ctx *ctx, const char *const *args, size_t n_args, const char *list,
                       char ***paths, size_t *n)
{
    path_list l = {ctx, NULL, 0, 0};
    int rc = DATUM_OK;
    for (size_t i = 0; i < n_args && rc == DATUM_OK; i++) rc = add_argument(&l, args[i]);
    if (rc == DATUM_OK && list) rc = add_list(&l, list);
    if (rc != DATUM_OK) {
        datum_import_paths_free(l.paths, l.n);
        l.paths = NULL;
        l.n = 0;
    }
    *paths = l.paths;
    *n = l.n;
    return rc;
}

void datum_import_paths_free(char **paths, size_t n)
{
    for (size_t i = 0; paths && i < n; i++) datum_free(paths[i]);
    datum_free(paths);
}
