/*
 * archive.c - opening an archive (docs/archive-format.md, layout.c) with
 * every consistency check a reader needs before it trusts the file, and what
 * an open archive tells: its summary and dictionaries. Format version 1 is
 * one file; version 2 a base file and the segments appended to it
 * (append.c), listed by a manifest, which this file presents as one archive:
 * the dictionaries merged, and the fields in the order of a single import
 * of all their rows (the runs), so that no reader sees the difference.
 */
#include "io_internal.h"
#include "datum_text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* One file of format version 1                                             */

int io_archive_damaged(datum_ctx *ctx, const datum_archive *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = io_vdamaged(ctx, a->path, &io_bridge_archive, fmt, ap);
    va_end(ap);
    return rc;
}

int io_part_damaged(datum_ctx *ctx, const io_part *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = io_vdamaged(ctx, p->path, &io_bridge_archive, fmt, ap);
    va_end(ap);
    return rc;
}

/* The summary attributes of a file (a part, or the root of version 2)
 * into *info; the dataset lengths are checked against them. */
int io_read_summary(datum_ctx *ctx, hid_t file, const char *path, datum_archive_info *info)
{
    int64_t v[IO_N_SUMMARY_ATTRS];
    for (int i = IO_A_N_RESULTS; i < IO_N_SUMMARY_ATTRS; i++)
        if (io_h5_get_int_attr(file, io_summary_attrs[i], &v[i]) < 0) {
            if (i >= IO_A_HAS_TEAMS && H5Aexists(file, io_summary_attrs[i]) == 0) v[i] = 0;
            else return io_damaged(ctx, path, &io_bridge_archive,
                                   "attribute %s is missing or not an integer", io_summary_attrs[i]);
        }
    if (v[IO_A_N_RESULTS] < 0 || v[IO_A_N_FIELDS] < 0 || v[IO_A_FIRST_DATE] < INT32_MIN ||
        v[IO_A_FIRST_DATE] > INT32_MAX || v[IO_A_LAST_DATE] < INT32_MIN || v[IO_A_LAST_DATE] > INT32_MAX ||
        (v[IO_A_HAS_ADJUSTED] != 0 && v[IO_A_HAS_ADJUSTED] != 1) ||
        (v[IO_A_HAS_TEAMS] != 0 && v[IO_A_HAS_TEAMS] != 1) ||
        (v[IO_A_HAS_PUBLISHED] != 0 && v[IO_A_HAS_PUBLISHED] != 1) ||
        (v[IO_A_HAS_PUBLISHED_PERCENT] != 0 && v[IO_A_HAS_PUBLISHED_PERCENT] != 1))
        return io_damaged(ctx, path, &io_bridge_archive, "a summary attribute is out of range");
    info->n_results = (uint64_t)v[IO_A_N_RESULTS];
    info->n_fields = (uint64_t)v[IO_A_N_FIELDS];
    info->first_date = (int32_t)v[IO_A_FIRST_DATE];
    info->last_date = (int32_t)v[IO_A_LAST_DATE];
    info->has_adjusted = (int)v[IO_A_HAS_ADJUSTED];
    info->has_teams = (int)v[IO_A_HAS_TEAMS];
    info->has_published = (int)v[IO_A_HAS_PUBLISHED];
    info->has_published_percent = (int)v[IO_A_HAS_PUBLISHED_PERCENT];
    info->format_version = IO_ARCHIVE_FILE_VERSION;
    return DATUM_OK;
}

/* Opens a column of the kind's class (integer, or real for F64) and checks
 * its length. */
static int open_column(datum_ctx *ctx, io_part *p, const io_dataset_desc *d, int kind,
                       uint64_t length, hid_t *ds)
{
    uint64_t n;
    int real = kind == IO_KIND_F64;
    *ds = io_h5_open_dataset(p->file, d->path);
    if (*ds < 0) return io_part_damaged(ctx, p, "%s is missing", d->path);
    if (io_h5_has_class(*ds, real ? H5T_FLOAT : H5T_INTEGER) != 1 || io_h5_length(*ds, &n) < 0)
        return io_part_damaged(ctx, p, "%s is not a 1-D %s dataset", d->path,
                               real ? "real" : "integer");
    if (n != length)
        return io_part_damaged(ctx, p, "%s has %llu elements, expected %llu", d->path,
                               (unsigned long long)n, (unsigned long long)length);
    return DATUM_OK;
}

static int open_columns(datum_ctx *ctx, io_part *p)
{
    int rc = DATUM_OK;
    /* /fields/deal_set came later and is optional: an archive has it or not. */
    p->info.has_deal_sets = H5Lexists(p->file, io_field_cols[IO_F_DEAL_SET].path, H5P_DEFAULT) > 0;
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++)
        if (io_has_field_col(k, p->info.has_deal_sets))
            rc = open_column(ctx, p, &io_field_cols[k], io_field_rules[k].kind,
                             p->info.n_fields + (k == IO_F_OFFSET), &p->fields[k]);
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++)
        if (io_has_result_col(k, p->info.has_adjusted, p->info.has_teams, p->info.has_published,
                              p->info.has_published_percent))
            rc = open_column(ctx, p, &io_result_cols[k], io_result_rules[k].kind,
                             p->info.n_results, &p->results[k]);
    return rc;
}

/* The truth of a generated archive, if any: /truth/pair_strength, one real
 * per pair. */
static int find_truth(datum_ctx *ctx, io_part *p)
{
    const char *name = io_truth_strength.path;
    if (H5Lexists(p->file, "truth", H5P_DEFAULT) <= 0 || H5Lexists(p->file, name, H5P_DEFAULT) <= 0)
        return DATUM_OK;
    hid_t ds = H5Dopen2(p->file, name, H5P_DEFAULT), type = H5I_INVALID_HID;
    uint64_t n = 0;
    int ok = ds >= 0 && (type = H5Dget_type(ds)) >= 0 && H5Tget_class(type) == H5T_FLOAT &&
             io_h5_length(ds, &n) == 0 && n == p->dict_len[IO_D_PAIRS];
    if (type >= 0) H5Tclose(type);
    if (ds >= 0) H5Dclose(ds);
    if (!ok)
        return io_part_damaged(ctx, p, "%s is not a 1-D real dataset of %u elements", name,
                               p->dict_len[IO_D_PAIRS]);
    p->info.has_truth = 1;
    return DATUM_OK;
}

enum { SCAN_BLOCK = 1 << 16 }; /* fields read at a time when scanning a column */

/* offset[0] == 0, nondecreasing, last == n_results: read in blocks so that
 * opening needs no memory in proportion to the archive, decoded in parallel
 * (io_window) since every command waits for it. */
static int check_offsets(datum_ctx *ctx, io_part *p)
{
    const char *name = io_field_cols[IO_F_OFFSET].path;
    uint64_t total = p->info.n_fields + 1, prev = 0;
    uint64_t *buf = datum_calloc(ctx, SCAN_BLOCK, sizeof *buf);
    io_window win = {0};
    int rc = buf ? DATUM_OK : DATUM_E_NOMEM;
    for (uint64_t first = 0; first < total && rc == DATUM_OK; first += SCAN_BLOCK) {
        uint64_t n = total - first < SCAN_BLOCK ? total - first : SCAN_BLOCK;
        int64_t lo, hi;
        rc = io_window_read(ctx, &win, p->fields[IO_F_OFFSET], IO_KIND_U64, first, (size_t)n, buf,
                            datum_ctx_threads(ctx), &lo, &hi);
        if (rc != DATUM_OK) {
            if (rc == DATUM_E_FORMAT) rc = io_part_damaged(ctx, p, "cannot read %s", name);
            break;
        }
        /* Without branches first (serial, before every command: 9.2 M
         * offsets on decade); element by element only to name the first bad. */
        uint64_t bad = (first == 0 && buf[0] != 0) || buf[0] < prev; /* n >= 1 */
        for (uint64_t i = 1; i < n; i++) bad |= (uint64_t)(buf[i] < buf[i - 1]);
        if (!bad) {
            prev = buf[n - 1];
            continue;
        }
        for (uint64_t i = 0; i < n && rc == DATUM_OK; i++) {
            if (first + i == 0 && buf[i] != 0)
                rc = io_part_damaged(ctx, p, "%s[0] is %llu, not 0", name,
                                     (unsigned long long)buf[i]);
            else if (buf[i] < prev)
                rc = io_part_damaged(ctx, p, "%s decreases at element %llu", name,
                                     (unsigned long long)(first + i));
            prev = buf[i];
        }
    }
    if (rc == DATUM_OK && prev != p->info.n_results)
        rc = io_part_damaged(ctx, p, "%s ends at %llu, but there are %llu results", name,
                             (unsigned long long)prev, (unsigned long long)p->info.n_results);
    io_window_free(&win);
    datum_free(buf);
    return rc;
}

static void part_init(io_part *p)
{
    p->file = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_FIELD_COLS; k++) p->fields[k] = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_RESULT_COLS; k++) p->results[k] = H5I_INVALID_HID;
}

static void part_close(io_part *p)
{
    /* The file closes strongly: its datasets go with it. */
    if (p->file >= 0) io_h5_close_file(p->file);
    for (int k = 0; k < IO_N_DICTS; k++) {
        io_free_dict(p->dict[k], p->dict_len[k]);
        datum_free(p->remap[k]);
    }
    datum_free(p->path);
}

/* Everything in an open file of version 1 that a reader checks. */
static int open_part(datum_ctx *ctx, io_part *p)
{
    int rc = io_read_summary(ctx, p->file, p->path, &p->info);
    if (rc == DATUM_OK) rc = open_columns(ctx, p);
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++)
        if (io_has_dict(k, p->info.has_teams))
            rc = io_read_dict(ctx, p->file, p->path, &io_bridge_archive, io_dict_cols[k].path,
                              &p->dict_len[k], &p->dict[k]);
    if (rc == DATUM_OK) {
        p->info.n_events = p->dict_len[IO_D_EVENTS];
        p->info.n_sections = p->dict_len[IO_D_SECTIONS];
        p->info.n_pairs = p->dict_len[IO_D_PAIRS];
        p->info.n_teams = p->dict_len[IO_D_TEAMS];
        p->info.n_matches = p->dict_len[IO_D_MATCHES];
        rc = find_truth(ctx, p);
    }
    if (rc == DATUM_OK) rc = check_offsets(ctx, p);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Format version 2: the manifest                                           */

static const io_dataset_desc kManifest[] = {
    {"parts/file", "the parts of the archive, in order: the base, then the segments appended; "
                   "file names in the folder ARCHIVE.d", NULL},
    {"parts/bytes", "size of each part's file in bytes", NULL},
    {"parts/n_results", "results each part holds", NULL},
    {"parts/n_fields", "board fields each part holds", NULL},
};

static char *joined(datum_ctx *ctx, const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *s = datum_malloc(ctx, na + nb + nc + 1, 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb);
        memcpy(s + na + nb, c, nc + 1);
    }
    return s;
}

char *io_parts_dir(datum_ctx *ctx, const char *path) { return joined(ctx, path, ".d", ""); }

char *io_part_path(datum_ctx *ctx, const char *path, const char *file)
{
    return joined(ctx, path, ".d/", file);
}

void io_pause_point(const char *phase)
{
    const char *at = getenv("DATUM_TEST_PAUSE");
    size_t n = strlen(phase);
    int64_t seconds;
    if (at && strncmp(at, phase, n) == 0 && at[n] == ':' &&
        datum_parse_int(at + n + 1, strlen(at + n + 1), 0, 3600, &seconds) == DATUM_PARSE_OK)
        sleep((unsigned)seconds);
}

void io_kill_point(const char *phase)
{
    const char *at = getenv("DATUM_TEST_APPEND_KILL");
    if (at && strcmp(at, phase) == 0) raise(SIGKILL);
}

char *io_parent_dir(datum_ctx *ctx, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return datum_strdup(ctx, ".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *p = datum_calloc(ctx, n + 1, 1);
    if (p) memcpy(p, path, n);
    return p;
}

int io_sync_dir(datum_ctx *ctx, const char *dir)
{
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    int rc = fd >= 0 && fsync(fd) == 0 ? DATUM_OK
                                       : io_fail_errno(ctx, DATUM_E_IO, errno, "cannot sync %s", dir);
    if (fd >= 0) close(fd);
    return rc;
}

int io_lock_parts(datum_ctx *ctx, const char *path, const char *dir, int *lock_fd)
{
    *lock_fd = -1;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return io_fail_errno(ctx, DATUM_E_IO, errno, "cannot create %s", dir);
    char *name = io_part_path(ctx, path, IO_LOCK_NAME);
    if (!name) return DATUM_E_NOMEM;
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0666), rc = DATUM_OK;
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd < 0) rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot create %s", name);
    else if (fcntl(fd, F_SETLK, &lk) != 0)
        rc = errno == EACCES || errno == EAGAIN
                 ? datum_ctx_fail(ctx, DATUM_E_IO,
                                  "%s: another append or compaction of it is running", path)
                 : io_fail_errno(ctx, DATUM_E_IO, errno, "cannot lock %s", name);
    datum_free(name);
    if (rc != DATUM_OK && fd >= 0) close(fd);
    if (rc == DATUM_OK) *lock_fd = fd;
    return rc;
}

int io_remove_unlisted(datum_ctx *ctx, const char *path, const char *dir,
                       const io_part_entry *keep, uint32_t n_keep, const char *phase)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    int rc = DATUM_OK, removed = 0;
    if (!d) return io_fail_errno(ctx, DATUM_E_IO, errno, "cannot read %s", dir);
    while (rc == DATUM_OK && (ent = readdir(d))) {
        const char *name = ent->d_name;
        int kept = !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, IO_LOCK_NAME);
        for (uint32_t i = 0; i < n_keep && !kept; i++) kept = !strcmp(keep[i].file, name);
        if (kept) continue;
        char *file = io_part_path(ctx, path, name);
        if (!file) rc = DATUM_E_NOMEM;
        else if (unlink(file) != 0 && errno != ENOENT)
            rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot remove %s", file);
        datum_free(file);
        if (++removed == 1 && phase) io_kill_point(phase);
    }
    closedir(d);
    return rc;
}

void io_part_entries_free(io_part_entry *e, uint32_t n)
{
    for (uint32_t i = 0; e && i < n; i++) datum_free(e[i].file);
    datum_free(e);
}

/* A part's file name: a plain name in the folder, nothing that leaves it. */
static int plain_name(const char *s)
{
    return s[0] && s[0] != '.' && !strchr(s, '/');
}

int io_read_manifest(datum_ctx *ctx, hid_t root, const char *path, io_part_entry **out,
                     uint32_t *n_out)
{
    hid_t ds[4];
    uint64_t n = 0, len;
    char **names = NULL;
    uint64_t *col = NULL;
    io_part_entry *e = NULL;
    int rc = DATUM_OK;
    *out = NULL;
    *n_out = 0;
    for (int c = 0; c < 4; c++) ds[c] = H5I_INVALID_HID;
    for (int c = 0; c < 4 && rc == DATUM_OK; c++) {
        ds[c] = H5Dopen2(root, kManifest[c].path, H5P_DEFAULT);
        if (ds[c] < 0 || io_h5_length(ds[c], &len) < 0 || (c > 0 && len != n) ||
            (c == 0 && (len < 2 || len > UINT32_MAX))) /* a base and a segment at least */
            rc = io_damaged(ctx, path, &io_bridge_archive, "the manifest's %s is missing or of "
                            "the wrong length", kManifest[c].path);
        if (c == 0) n = len;
    }
    if (rc == DATUM_OK && (!(names = datum_calloc(ctx, n, sizeof *names)) ||
                           !(col = datum_calloc(ctx, n, sizeof *col)) ||
                           !(e = datum_calloc(ctx, n, sizeof *e))))
        rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK && io_h5_read_strings(ds[0], n, names, NULL, NULL) < 0)
        rc = io_damaged(ctx, path, &io_bridge_archive, "cannot read %s", kManifest[0].path);
    for (uint64_t i = 0; i < n && rc == DATUM_OK; i++) {
        if (!names[i] || !plain_name(names[i]))
            rc = io_damaged(ctx, path, &io_bridge_archive, "%s[%llu] is not a file name",
                            kManifest[0].path, (unsigned long long)i);
        else if (!(e[i].file = datum_strdup(ctx, names[i]))) rc = DATUM_E_NOMEM;
    }
    for (int c = 1; c < 4 && rc == DATUM_OK; c++) {
        if (io_h5_read_range(ds[c], H5T_NATIVE_UINT64, 0, n, col) < 0) {
            rc = io_damaged(ctx, path, &io_bridge_archive, "cannot read %s", kManifest[c].path);
            break;
        }
        for (uint64_t i = 0; i < n; i++)
            *(c == 1 ? &e[i].bytes : c == 2 ? &e[i].n_results : &e[i].n_fields) = col[i];
    }
    if (names) io_h5_free_strings(n, names);
    datum_free(names);
    datum_free(col);
    for (int c = 0; c < 4; c++)
        if (ds[c] >= 0) H5Dclose(ds[c]);
    if (rc != DATUM_OK) {
        io_part_entries_free(e, (uint32_t)n);
        return rc;
    }
    *out = e;
    *n_out = (uint32_t)n;
    return DATUM_OK;
}

int io_write_manifest(datum_ctx *ctx, hid_t root, const io_part_entry *e, uint32_t n)
{
    const char **names = datum_calloc(ctx, n, sizeof *names);
    int64_t *values = datum_calloc(ctx, n, sizeof *values);
    int rc = names && values ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t i = 0; i < n && rc == DATUM_OK; i++) names[i] = e[i].file;
    if (rc == DATUM_OK && (io_h5_ensure_group(root, "parts") < 0 ||
                           io_h5_write_strings(root, &kManifest[0], names, n) < 0))
        rc = -1;
    for (int c = 1; c < 4 && rc == DATUM_OK; c++) {
        for (uint32_t i = 0; i < n; i++)
            values[i] = (int64_t)(c == 1 ? e[i].bytes : c == 2 ? e[i].n_results : e[i].n_fields);
        if (io_h5_write_ints(root, &kManifest[c], values, n, NULL) < 0) rc = -1;
    }
    datum_free(names);
    datum_free(values);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Format version 2: the parts as one archive                               */

/* Merges dictionary k of the parts (each sorted, without repeats) into the
 * archive's, sorted, and fills each part's remap: a k-way merge by a heap
 * of the parts, by their next name, then their order. */
static int merge_dict(datum_ctx *ctx, datum_archive *a, int k)
{
    uint32_t n = a->n_parts, m = 0;
    uint64_t total = 0;
    for (uint32_t p = 0; p < n; p++) total += a->parts[p].dict_len[k];
    uint32_t *heap = datum_calloc(ctx, n, sizeof *heap), *at = datum_calloc(ctx, n, sizeof *at);
    char **merged = datum_calloc(ctx, total, sizeof *merged);
    int rc = heap && at && merged ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t p = 0; p < n && rc == DATUM_OK; p++) {
        io_part *q = &a->parts[p];
        if (q->dict_len[k] && !(q->remap[k] = datum_calloc(ctx, q->dict_len[k], sizeof *q->remap[k])))
            rc = DATUM_E_NOMEM;
    }
#define HEAD(p) (a->parts[p].dict[k][at[p]])
#define BEFORE(p, q) (strcmp(HEAD(p), HEAD(q)) < 0 || (strcmp(HEAD(p), HEAD(q)) == 0 && (p) < (q)))
    for (uint32_t p = 0; p < n && rc == DATUM_OK; p++) {
        if (!a->parts[p].dict_len[k]) continue;
        uint32_t i = m++; /* sift up */
        for (; i > 0 && BEFORE(p, heap[(i - 1) / 2]); i = (i - 1) / 2) heap[i] = heap[(i - 1) / 2];
        heap[i] = p;
    }
    uint64_t len = 0;
    while (rc == DATUM_OK && m > 0) {
        uint32_t p = heap[0];
        if (len == 0 || strcmp(merged[len - 1], HEAD(p)) != 0) merged[len++] = HEAD(p);
        a->parts[p].remap[k][at[p]] = (uint32_t)(len - 1);
        if (++at[p] == a->parts[p].dict_len[k]) p = heap[--m]; /* the part is done */
        uint32_t i = 0; /* sift p down from the top */
        for (;;) {
            uint32_t c = 2 * i + 1;
            if (c >= m) break;
            if (c + 1 < m && BEFORE(heap[c + 1], heap[c])) c++;
            if (!BEFORE(heap[c], p)) break;
            heap[i] = heap[c];
            i = c;
        }
        if (m > 0) heap[i] = p;
    }
#undef BEFORE
#undef HEAD
    /* A part whose names keep their indices needs no translation. */
    for (uint32_t p = 0; p < n && rc == DATUM_OK; p++) {
        io_part *q = &a->parts[p];
        uint32_t i = 0;
        while (i < q->dict_len[k] && q->remap[k][i] == i) i++;
        if (i == q->dict_len[k]) {
            datum_free(q->remap[k]);
            q->remap[k] = NULL;
        }
    }
    if (rc == DATUM_OK && len > INT32_MAX)
        rc = io_archive_damaged(ctx, a, "%s has more than 2^31-1 names", io_dict_cols[k].path);
    if (rc == DATUM_OK) rc = io_copy_strings(ctx, merged, len, &a->dict[k]);
    if (rc == DATUM_OK) a->dict_len[k] = (uint32_t)len;
    datum_free(heap);
    datum_free(at);
    datum_free(merged);
    return rc;
}

/* Where each of part p's events is (a->events), from its /fields/event and
 * /fields/offset read in blocks: an event in two parts, or an event column
 * out of order, is damage. */
static int find_events(datum_ctx *ctx, datum_archive *a, uint32_t p, uint64_t *row_first,
                       uint64_t *row_end)
{
    io_part *q = &a->parts[p];
    uint32_t *ev = datum_calloc(ctx, SCAN_BLOCK, sizeof *ev);
    uint64_t *off = datum_calloc(ctx, SCAN_BLOCK, sizeof *off);
    io_window ev_win = {0}, off_win = {0};
    int rc = ev && off ? DATUM_OK : DATUM_E_NOMEM;
    uint32_t prev = 0;
    for (uint64_t first = 0; first < q->info.n_fields && rc == DATUM_OK; first += SCAN_BLOCK) {
        uint64_t n = q->info.n_fields - first < SCAN_BLOCK ? q->info.n_fields - first : SCAN_BLOCK;
        int64_t lo, hi;
        rc = io_window_read(ctx, &ev_win, q->fields[IO_F_EVENT], IO_KIND_U32, first, (size_t)n, ev,
                            datum_ctx_threads(ctx), &lo, &hi);
        if (rc == DATUM_OK)
            rc = io_window_read(ctx, &off_win, q->fields[IO_F_OFFSET], IO_KIND_U64, first,
                                (size_t)n, off, datum_ctx_threads(ctx), &lo, &hi);
        if (rc == DATUM_E_FORMAT)
            rc = io_part_damaged(ctx, q, "cannot read %s and %s from element %llu",
                                 io_field_cols[IO_F_EVENT].path, io_field_cols[IO_F_OFFSET].path,
                                 (unsigned long long)first);
        for (uint64_t i = 0; i < n && rc == DATUM_OK; i++) {
            uint64_t f = first + i;
            if (ev[i] >= q->dict_len[IO_D_EVENTS] || (f > 0 && ev[i] < prev)) {
                rc = io_part_damaged(ctx, q, "%s[%llu] = %u is out of range or order",
                                     io_field_cols[IO_F_EVENT].path, (unsigned long long)f, ev[i]);
                break;
            }
            if (f > 0 && ev[i] == prev) continue;
            const uint32_t *to = q->remap[IO_D_EVENTS]; /* NULL: the same indices */
            uint32_t event = to ? to[ev[i]] : ev[i];
            if (f > 0) {
                a->events[to ? to[prev] : prev].end = f;
                row_end[to ? to[prev] : prev] = off[i];
            }
            io_event_span *s = &a->events[event];
            if (s->end > 0) {
                rc = io_archive_damaged(ctx, a, "event \"%s\" is in two parts, %s and %s",
                                        q->dict[IO_D_EVENTS][ev[i]], a->parts[s->part].path,
                                        q->path);
                break;
            }
            *s = (io_event_span){p, f, q->info.n_fields}; /* end: until the next event */
            row_first[event] = off[i];
            row_end[event] = q->info.n_results; /* until the next */
            prev = ev[i];
        }
    }
    io_window_free(&ev_win);
    io_window_free(&off_win);
    datum_free(ev);
    datum_free(off);
    return rc;
}

/* The runs: the events in the order of their names, each from its part,
 * the consecutive events of a part in one run. */
static int make_runs(datum_ctx *ctx, datum_archive *a, const uint64_t *row_first,
                     const uint64_t *row_end)
{
    uint32_t n = a->dict_len[IO_D_EVENTS];
    uint64_t field = 0, row = 0;
    if (!(a->runs = datum_calloc(ctx, n ? n : 1, sizeof *a->runs))) return DATUM_E_NOMEM;
    for (uint32_t e = 0; e < n; e++) {
        const io_event_span *s = &a->events[e];
        if (s->end == s->first) continue; /* a name without fields */
        uint64_t rows = row_end[e] - row_first[e];
        io_run *last = a->n_runs ? &a->runs[a->n_runs - 1] : NULL;
        if (last && last->part == s->part && last->part_field + last->n_fields == s->first) {
            last->n_fields += s->end - s->first;
            last->n_rows += rows;
        } else {
            a->runs[a->n_runs++] = (io_run){s->part, field, s->end - s->first, s->first,
                                            row, rows, row_first[e]};
        }
        field += s->end - s->first;
        row += rows;
    }
    if (field != a->info.n_fields || row != a->info.n_results)
        return io_archive_damaged(ctx, a, "the parts' fields do not add up");
    return DATUM_OK;
}

void io_summary_add(datum_archive_info *m, const datum_archive_info *i)
{
    if (i->n_results && (!m->n_results || i->first_date < m->first_date))
        m->first_date = i->first_date;
    if (i->n_results && (!m->n_results || i->last_date > m->last_date))
        m->last_date = i->last_date;
    m->n_results += i->n_results;
    m->n_fields += i->n_fields;
    m->has_adjusted |= i->has_adjusted;
    m->has_teams |= i->has_teams;
    m->has_published |= i->has_published;
    m->has_published_percent |= i->has_published_percent;
    m->has_deal_sets |= i->has_deal_sets;
}

/* The summary of the parts as one archive. */
static void merge_info(datum_archive *a)
{
    datum_archive_info *m = &a->info;
    memset(m, 0, sizeof *m);
    for (uint32_t p = 0; p < a->n_parts; p++) io_summary_add(m, &a->parts[p].info);
    /* The truth is the generator's, of the base's pairs: not of these. */
    m->has_truth = 0;
    m->format_version = IO_ARCHIVE_SEGMENTED_VERSION;
    m->n_segments = a->n_parts - 1;
}

/* Opens part i of the manifest: the file is there, of the size and the
 * counts the manifest says, of format version 1. */
static int open_listed(datum_ctx *ctx, datum_archive *a, uint32_t i, const io_part_entry *e)
{
    io_part *q = &a->parts[i];
    struct stat st;
    if (!(q->path = io_part_path(ctx, a->path, e->file))) return DATUM_E_NOMEM;
    if (stat(q->path, &st) != 0 || (uint64_t)st.st_size != e->bytes)
        return io_archive_damaged(ctx, a, "its part %s is missing or not of the %llu bytes the "
                                  "manifest says", q->path, (unsigned long long)e->bytes);
    int rc = io_h5_open_checked(ctx, q->path, &q->file);
    if (rc == DATUM_OK) rc = io_check_format(ctx, q->file, q->path, &io_bridge_archive);
    if (rc == DATUM_OK && io_file_version(q->file) != IO_ARCHIVE_FILE_VERSION)
        rc = io_part_damaged(ctx, q, "a part must be of format version %d",
                             IO_ARCHIVE_FILE_VERSION);
    if (rc == DATUM_OK) rc = open_part(ctx, q);
    if (rc == DATUM_OK && (q->info.n_results != e->n_results || q->info.n_fields != e->n_fields))
        rc = io_archive_damaged(ctx, a, "its part %s does not hold the results the manifest says",
                                q->path);
    return rc;
}

/* The parts e[0..n) of the archive a (its path set) as one archive. */
static int open_parts(datum_ctx *ctx, datum_archive *a, const io_part_entry *e, uint32_t n)
{
    uint64_t *row_first = NULL, *row_end = NULL;
    int rc = DATUM_OK;
    if (!(a->parts = datum_calloc(ctx, n, sizeof *a->parts))) rc = DATUM_E_NOMEM;
    for (uint32_t i = 0; i < n && rc == DATUM_OK; i++) part_init(&a->parts[a->n_parts++]);
    for (uint32_t i = 0; i < n && rc == DATUM_OK; i++) rc = open_listed(ctx, a, i, &e[i]);
    if (rc == DATUM_OK) merge_info(a);
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++)
        if (io_has_dict(k, a->info.has_teams)) rc = merge_dict(ctx, a, k);
    uint32_t n_events = a->dict_len[IO_D_EVENTS];
    if (rc == DATUM_OK && (!(a->events = datum_calloc(ctx, n_events + 1, sizeof *a->events)) ||
                           !(row_first = datum_calloc(ctx, n_events + 1, sizeof *row_first)) ||
                           !(row_end = datum_calloc(ctx, n_events + 1, sizeof *row_end))))
        rc = DATUM_E_NOMEM;
    for (uint32_t p = 0; p < a->n_parts && rc == DATUM_OK; p++) rc = find_events(ctx, a, p, row_first, row_end);
    if (rc == DATUM_OK) rc = make_runs(ctx, a, row_first, row_end);
    datum_free(row_first);
    datum_free(row_end);
    return rc;
}

static int open_segmented(datum_ctx *ctx, datum_archive *a, hid_t root)
{
    io_part_entry *e = NULL;
    uint32_t n = 0;
    datum_archive_info summary;
    int rc = io_read_summary(ctx, root, a->path, &summary);
    if (rc == DATUM_OK) rc = io_read_manifest(ctx, root, a->path, &e, &n);
    io_pause_point("manifest-read");
    if (rc == DATUM_OK) rc = open_parts(ctx, a, e, n);
    io_part_entries_free(e, n);
    if (rc == DATUM_OK && (summary.n_results != a->info.n_results ||
                           summary.n_fields != a->info.n_fields))
        rc = io_archive_damaged(ctx, a, "its parts do not hold the results it says");
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */

/* Format version 1: the file is the archive's one part, its fields one run. */
static int open_single(datum_ctx *ctx, datum_archive *a, hid_t file)
{
    if (!(a->parts = datum_calloc(ctx, 1, sizeof *a->parts))) {
        io_h5_close_file(file);
        return DATUM_E_NOMEM;
    }
    io_part *q = &a->parts[0];
    part_init(q);
    a->n_parts = 1;
    q->file = file;
    if (!(q->path = datum_strdup(ctx, a->path))) return DATUM_E_NOMEM;
    int rc = open_part(ctx, q);
    if (rc != DATUM_OK) return rc;
    if (!(a->runs = datum_calloc(ctx, 1, sizeof *a->runs))) return DATUM_E_NOMEM;
    a->runs[0] = (io_run){0, 0, q->info.n_fields, 0, 0, q->info.n_results, 0};
    a->n_runs = 1;
    for (int k = 0; k < IO_N_DICTS; k++) {
        a->dict[k] = q->dict[k];
        a->dict_len[k] = q->dict_len[k];
    }
    a->info = q->info;
    return DATUM_OK;
}

/* The counts of the dictionaries in the archive's summary. */
static void set_dict_counts(datum_archive *a)
{
    a->info.n_events = a->dict_len[IO_D_EVENTS];
    a->info.n_sections = a->dict_len[IO_D_SECTIONS];
    a->info.n_pairs = a->dict_len[IO_D_PAIRS];
    a->info.n_teams = a->dict_len[IO_D_TEAMS];
    a->info.n_matches = a->dict_len[IO_D_MATCHES];
}

/* datum_archive_open's one attempt. */
static int open_archive(datum_ctx *ctx, const char *path, datum_archive **out)
{
    datum_archive *a = datum_calloc(ctx, 1, sizeof *a);
    hid_t root = H5I_INVALID_HID;
    int rc = a ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    io_h5_silence();
    if (!(a->path = datum_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = io_h5_open_checked(ctx, path, &root);
    if (rc == DATUM_OK) rc = io_check_format(ctx, root, path, &io_bridge_archive);
    if (rc == DATUM_OK && io_file_version(root) == IO_ARCHIVE_FILE_VERSION) {
        rc = open_single(ctx, a, root); /* the part owns the file now */
        root = H5I_INVALID_HID;
    } else if (rc == DATUM_OK) {
        rc = open_segmented(ctx, a, root);
    }
    if (root >= 0) io_h5_close_file(root);
    if (rc == DATUM_OK) set_dict_counts(a);
    if (rc != DATUM_OK) datum_archive_close(&a);
    *out = a;
    return rc;
}

/* 1 if path now names another file than the one `before` describes: the
 * root was replaced meanwhile. */
static int replaced(const struct stat *before, const char *path)
{
    struct stat after;
    return stat(path, &after) == 0 &&
           (after.st_ino != before->st_ino || after.st_dev != before->st_dev);
}

int datum_archive_open(datum_ctx *ctx, const char *path, datum_archive **out)
{
    /* An append that merges segments, or a compaction, replaces the root
     * and then removes the parts the old one listed: a reader between the
     * two finds one missing. Once opened, a part stays readable (an open
     * file outlives its name), so only the opening can meet this; it then
     * opens the new root, a few times at most. */
    for (int attempt = 1;; attempt++) {
        struct stat before;
        int known = stat(path, &before) == 0;
        int rc = open_archive(ctx, path, out);
        if (rc != DATUM_E_FORMAT || !known || attempt == 3 || !replaced(&before, path)) return rc;
        datum_ctx_clear(ctx);
    }
}

int io_archive_open_parts(datum_ctx *ctx, const char *path, const io_part_entry *e, uint32_t n,
                          datum_archive **out)
{
    datum_archive *a = datum_calloc(ctx, 1, sizeof *a);
    int rc = a ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    io_h5_silence();
    if (!(a->path = datum_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = open_parts(ctx, a, e, n);
    if (rc == DATUM_OK) set_dict_counts(a);
    if (rc != DATUM_OK) datum_archive_close(&a);
    *out = a;
    return rc;
}

size_t io_run_find(const datum_archive *a, int by_row, uint64_t pos)
{
    size_t lo = 0, hi = a->n_runs; /* the last run starting at or before pos */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if ((by_row ? a->runs[mid].row : a->runs[mid].field) <= pos) lo = mid;
        else hi = mid;
    }
    return lo;
}

void datum_archive_close(datum_archive **a)
{
    if (!a || !*a) return;
    datum_archive *p = *a;
    /* The dictionaries are merged copies, except those of a file of format
     * version 1, its part's own. */
    for (int k = 0; k < IO_N_DICTS && p->n_parts > 0; k++)
        if (p->dict[k] != p->parts[0].dict[k]) io_free_dict(p->dict[k], p->dict_len[k]);
    for (uint32_t i = 0; i < p->n_parts; i++) part_close(&p->parts[i]);
    datum_free(p->parts);
    datum_free(p->runs);
    datum_free(p->events);
    datum_free(p->path);
    datum_free(p);
    *a = NULL;
}

void datum_archive_get_info(const datum_archive *a, datum_archive_info *info) { *info = a->info; }

const char *datum_archive_part(const datum_archive *a, uint32_t i, uint64_t *n_results)
{
    if (i >= a->n_parts) return NULL;
    if (n_results) *n_results = a->parts[i].info.n_results;
    return a->parts[i].path;
}

static const char *dict_entry(const datum_archive *a, int k, uint32_t index)
{
    return index < a->dict_len[k] ? a->dict[k][index] : NULL;
}

const char *datum_archive_event(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_EVENTS, index);
}

const char *datum_archive_section(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_SECTIONS, index);
}

const char *datum_archive_pair(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_PAIRS, index);
}

const char *datum_archive_team(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_TEAMS, index);
}

const char *datum_archive_match(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_MATCHES, index);
}

int datum_archive_read_truth(datum_ctx *ctx, datum_archive *a, double *strength)
{
    if (!a->info.has_truth) return DATUM_W_EMPTY;
    const io_part *q = &a->parts[0]; /* only an archive of one part has it */
    hid_t ds = H5Dopen2(q->file, io_truth_strength.path, H5P_DEFAULT);
    int rc = ds >= 0 ? io_h5_read_range(ds, H5T_NATIVE_DOUBLE, 0, a->info.n_pairs, strength) : -1;
    if (ds >= 0) H5Dclose(ds);
    return rc < 0 ? io_archive_damaged(ctx, a, "cannot read %s", io_truth_strength.path)
                  : DATUM_OK;
}
