/*
 * archive.c - the archive, format version 1 (docs/archive-format.md): its
 * layout, the writer, and opening with every consistency check a reader
 * needs before it trusts the file.
 */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DATE_UNITS "days since 1970-01-01"

const io_dataset_desc io_dict_cols[IO_N_DICTS] = {
    {"dict/events", "event names, sorted by their UTF-8 bytes", NULL},
    {"dict/sections", "section names (possibly empty), sorted by their UTF-8 bytes", NULL},
    {"dict/pairs", "pair identifiers, sorted by their UTF-8 bytes", NULL},
};

const io_dataset_desc io_field_cols[IO_N_FIELD_COLS] = {
    {"fields/event", "event of each board field: index into /dict/events", NULL},
    {"fields/section", "section of each board field: index into /dict/sections", NULL},
    {"fields/board", "board number", NULL},
    {"fields/date", "latest date of the field's results", DATE_UNITS},
    {"fields/offset", "field f owns rows offset[f] .. offset[f+1]-1 of /results", NULL},
};

const io_dataset_desc io_result_cols[IO_N_RESULT_COLS] = {
    {"results/table", "table number", NULL},
    {"results/ns_pair", "North-South pair: index into /dict/pairs", NULL},
    {"results/ew_pair", "East-West pair: index into /dict/pairs", NULL},
    {"results/ns_score", "North-South score (0 on an adjusted result)", NULL},
    {"results/adjusted",
     "0: a real score; 1..8: adjusted A+, A, A-, A+/A-, A-/A+, A/A, A+/A+, A-/A- (NS/EW)", NULL},
    {"results/date", "date of the result", DATE_UNITS},
};

static const char *const kGroups[] = {"dict", "fields", "results"};

/* The integer root attributes: the version, then the summary. */
enum { A_VERSION, A_N_RESULTS, A_N_FIELDS, A_FIRST_DATE, A_LAST_DATE, A_HAS_ADJUSTED, N_INT_ATTRS };
static const char *const kIntAttrs[N_INT_ATTRS] = {"format_version", "n_results", "n_fields",
                                                   "first_date",     "last_date", "has_adjusted"};

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

static int write_root_attributes(hid_t file, const io_archive_content *c)
{
    const int64_t value[N_INT_ATTRS] = {DATUM_ARCHIVE_FORMAT_VERSION,
                                        (int64_t)c->n_results,
                                        (int64_t)c->n_fields,
                                        c->first_date,
                                        c->last_date,
                                        c->has_adjusted != 0};
    const hid_t type[N_INT_ATTRS] = {H5T_STD_I32LE, H5T_STD_U64LE, H5T_STD_U64LE,
                                     H5T_STD_I32LE, H5T_STD_I32LE, H5T_STD_I32LE};
    char created[32];
    time_t now = time(NULL);
    struct tm utc;
    if (!gmtime_r(&now, &utc) || !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc) ||
        io_h5_set_str_attr(file, "format", "datum-archive") < 0 ||
        io_h5_set_str_attr(file, "engine_version", datum_version()) < 0 ||
        io_h5_set_str_attr(file, "created", created) < 0)
        return -1;
    for (int i = 0; i < N_INT_ATTRS; i++)
        if (io_h5_set_int_attr(file, kIntAttrs[i], type[i], value[i]) < 0) return -1;
    return 0;
}

/* Writes everything into the open file; *what names the part that failed. */
static int write_content(hid_t file, const io_archive_content *c, const datum_write_options *opt,
                         int64_t *stage, const char **what)
{
    *what = "attributes";
    if (write_root_attributes(file, c) < 0) return -1;
    for (size_t g = 0; g < sizeof kGroups / sizeof *kGroups; g++) {
        *what = kGroups[g];
        if (io_h5_ensure_group(file, kGroups[g]) < 0) return -1;
    }
    for (int k = 0; k < IO_N_DICTS; k++) {
        *what = io_dict_cols[k].path;
        if (io_h5_write_strings(file, &io_dict_cols[k], c->dict[k], c->dict_len[k]) < 0) return -1;
    }
    for (int k = 0; k < IO_N_FIELD_COLS; k++) {
        *what = io_field_cols[k].path;
        c->fill(c->user, 1, k, stage);
        uint64_t n = c->n_fields + (k == IO_F_OFFSET);
        if (io_h5_write_ints(file, &io_field_cols[k], stage, n, opt) < 0) return -1;
    }
    for (int k = 0; k < IO_N_RESULT_COLS; k++) {
        if (k == IO_R_ADJUSTED && !c->has_adjusted) continue;
        *what = io_result_cols[k].path;
        c->fill(c->user, 0, k, stage);
        if (io_h5_write_ints(file, &io_result_cols[k], stage, c->n_results, opt) < 0) return -1;
    }
    return 0;
}

int io_archive_write(datum_ctx *ctx, const char *path, const io_archive_content *c,
                     const datum_write_options *opt)
{
    char *tmp = NULL;
    int fd = -1;
    hid_t file = H5I_INVALID_HID;
    const char *what = "file";
    uint64_t stage_len = c->n_results > c->n_fields ? c->n_results : c->n_fields + 1;
    int64_t *stage = NULL;
    int rc = io_temp_create(ctx, path, &tmp, &fd);
    if (rc != DATUM_OK) goto done;
    close(fd); /* HDF5 opens the file by name */
    if (!(stage = io_calloc(ctx, stage_len, sizeof *stage))) {
        rc = DATUM_E_NOMEM;
        goto done;
    }
    io_h5_silence();
    file = io_h5_create_file(tmp);
    if (file < 0 || write_content(file, c, opt, stage, &what) < 0) {
        rc = datum_ctx_fail(ctx, DATUM_E_IO, "cannot write %s (%s)", path, what);
        goto done;
    }
    herr_t closed = H5Fclose(file);
    file = H5I_INVALID_HID;
    if (closed < 0) {
        rc = datum_ctx_fail(ctx, DATUM_E_IO, "cannot write %s (closing the file)", path);
        goto done;
    }
    rc = io_temp_commit(ctx, tmp, path);
done:
    if (file >= 0) H5Fclose(file);
    if (rc != DATUM_OK) io_temp_discard(&tmp);
    free(tmp);
    free(stage);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */

int io_archive_damaged(datum_ctx *ctx, const datum_archive *a, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: damaged archive: %s", a->path, what);
}

/* A missing or unreadable file is an I/O error, reported as the system says. */
static int check_readable(datum_ctx *ctx, const char *path)
{
    struct stat st;
    int err = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) err = errno;
    else if (fstat(fd, &st) != 0) err = errno;
    else if (S_ISDIR(st.st_mode)) err = EISDIR;
    if (fd >= 0) close(fd);
    return err ? io_fail_errno(ctx, DATUM_E_IO, err, "cannot open %s", path) : DATUM_OK;
}

static int check_format(datum_ctx *ctx, datum_archive *a)
{
    char *format = NULL;
    int64_t version;
    int rc = io_h5_get_str_attr(ctx, a->file, "format", &format);
    if (rc == 1 || (rc == DATUM_OK && strcmp(format, "datum-archive") != 0))
        rc = datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: not a datum archive%s%s%s", a->path,
                            format ? " (format \"" : "", format ? format : "", format ? "\")" : "");
    else if (rc == DATUM_OK && io_h5_get_int_attr(a->file, kIntAttrs[A_VERSION], &version) < 0)
        rc = io_archive_damaged(ctx, a, "no format_version attribute");
    else if (rc == DATUM_OK && version != DATUM_ARCHIVE_FORMAT_VERSION)
        rc = datum_ctx_fail(ctx, DATUM_E_FORMAT,
                            "%s: archive format version %lld is not supported (this datum reads "
                            "version %d)",
                            a->path, (long long)version, DATUM_ARCHIVE_FORMAT_VERSION);
    free(format);
    return rc;
}

/* The summary attributes; the dataset lengths are checked against them. */
static int read_summary(datum_ctx *ctx, datum_archive *a)
{
    int64_t v[N_INT_ATTRS];
    for (int i = A_N_RESULTS; i < N_INT_ATTRS; i++)
        if (io_h5_get_int_attr(a->file, kIntAttrs[i], &v[i]) < 0)
            return io_archive_damaged(ctx, a, "attribute %s is missing or not an integer",
                                      kIntAttrs[i]);
    if (v[A_N_RESULTS] < 0 || v[A_N_FIELDS] < 0 || v[A_FIRST_DATE] < INT32_MIN ||
        v[A_FIRST_DATE] > INT32_MAX || v[A_LAST_DATE] < INT32_MIN || v[A_LAST_DATE] > INT32_MAX ||
        (v[A_HAS_ADJUSTED] != 0 && v[A_HAS_ADJUSTED] != 1))
        return io_archive_damaged(ctx, a, "a summary attribute is out of range");
    a->info.n_results = (uint64_t)v[A_N_RESULTS];
    a->info.n_fields = (uint64_t)v[A_N_FIELDS];
    a->info.first_date = (int32_t)v[A_FIRST_DATE];
    a->info.last_date = (int32_t)v[A_LAST_DATE];
    a->info.has_adjusted = (int)v[A_HAS_ADJUSTED];
    a->info.format_version = DATUM_ARCHIVE_FORMAT_VERSION;
    return DATUM_OK;
}

/* Opens an integer column and checks its length. */
static int open_column(datum_ctx *ctx, datum_archive *a, const io_dataset_desc *d, uint64_t length,
                       hid_t *ds)
{
    uint64_t n;
    *ds = io_h5_open_dataset(a->file, d->path);
    if (*ds < 0) return io_archive_damaged(ctx, a, "%s is missing", d->path);
    if (io_h5_is_integer(*ds) != 1 || io_h5_length(*ds, &n) < 0)
        return io_archive_damaged(ctx, a, "%s is not a 1-D integer dataset", d->path);
    if (n != length)
        return io_archive_damaged(ctx, a, "%s has %llu elements, expected %llu", d->path,
                                  (unsigned long long)n, (unsigned long long)length);
    return DATUM_OK;
}

static int open_columns(datum_ctx *ctx, datum_archive *a)
{
    int rc = DATUM_OK;
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++)
        rc = open_column(ctx, a, &io_field_cols[k], a->info.n_fields + (k == IO_F_OFFSET),
                         &a->fields[k]);
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++)
        if (k != IO_R_ADJUSTED || a->info.has_adjusted)
            rc = open_column(ctx, a, &io_result_cols[k], a->info.n_results, &a->results[k]);
    return rc;
}

/* Copies n strings (NULL for "") into one block of bytes and an array of
 * pointers into it. */
static int copy_dict(datum_ctx *ctx, datum_archive *a, int k, char *const *s, uint64_t n)
{
    size_t bytes = 0;
    for (uint64_t i = 0; i < n; i++) bytes += (s[i] ? strlen(s[i]) : 0) + 1;
    a->dict[k] = io_calloc(ctx, n, sizeof *a->dict[k]);
    a->dict_bytes[k] = io_calloc(ctx, bytes, 1);
    if (!a->dict[k] || !a->dict_bytes[k]) return DATUM_E_NOMEM;
    for (uint64_t i = 0, at = 0; i < n; i++) {
        size_t len = s[i] ? strlen(s[i]) : 0;
        a->dict[k][i] = a->dict_bytes[k] + at;
        if (len) memcpy(a->dict[k][i], s[i], len);
        at += len + 1;
    }
    return DATUM_OK;
}

/* Loads /dict/... into memory. */
static int load_dict(datum_ctx *ctx, datum_archive *a, int k, uint32_t *size)
{
    const char *name = io_dict_cols[k].path;
    hid_t ds = H5Dopen2(a->file, name, H5P_DEFAULT);
    uint64_t n = 0;
    char **h5 = NULL;
    int rc = DATUM_OK;
    if (ds < 0) rc = io_archive_damaged(ctx, a, "%s is missing", name);
    else if (io_h5_length(ds, &n) < 0 || n > INT32_MAX)
        rc = io_archive_damaged(ctx, a, "%s is not a 1-D dataset of at most 2^31-1 entries", name);
    else if (!(h5 = io_calloc(ctx, n, sizeof *h5))) rc = DATUM_E_NOMEM;
    else if (io_h5_read_strings(ds, n, h5) < 0)
        rc = io_archive_damaged(ctx, a, "%s is not a readable string dataset", name);
    if (rc == DATUM_OK) rc = copy_dict(ctx, a, k, h5, n);
    if (h5) io_h5_free_strings(n, h5);
    free(h5);
    if (ds >= 0) H5Dclose(ds);
    *size = (uint32_t)n;
    return rc;
}

/* offset[0] == 0, nondecreasing, last == n_results: read in blocks so that
 * opening needs no memory in proportion to the archive. */
static int check_offsets(datum_ctx *ctx, datum_archive *a)
{
    enum { BLOCK = 1 << 16 };
    const char *name = io_field_cols[IO_F_OFFSET].path;
    uint64_t total = a->info.n_fields + 1, prev = 0;
    uint64_t *buf = io_calloc(ctx, BLOCK, sizeof *buf);
    int rc = buf ? DATUM_OK : DATUM_E_NOMEM;
    for (uint64_t first = 0; first < total && rc == DATUM_OK; first += BLOCK) {
        uint64_t n = total - first < BLOCK ? total - first : BLOCK;
        if (io_h5_read_range(a->fields[IO_F_OFFSET], H5T_NATIVE_UINT64, first, n, buf) < 0) {
            rc = io_archive_damaged(ctx, a, "cannot read %s", name);
            break;
        }
        for (uint64_t i = 0; i < n && rc == DATUM_OK; i++) {
            if (first + i == 0 && buf[i] != 0)
                rc = io_archive_damaged(ctx, a, "%s[0] is %llu, not 0", name,
                                        (unsigned long long)buf[i]);
            else if (buf[i] < prev)
                rc = io_archive_damaged(ctx, a, "%s decreases at element %llu", name,
                                        (unsigned long long)(first + i));
            prev = buf[i];
        }
    }
    if (rc == DATUM_OK && prev != a->info.n_results)
        rc = io_archive_damaged(ctx, a, "%s ends at %llu, but there are %llu results", name,
                                (unsigned long long)prev, (unsigned long long)a->info.n_results);
    free(buf);
    return rc;
}

int datum_archive_open(datum_ctx *ctx, const char *path, datum_archive **out)
{
    datum_archive *a = io_calloc(ctx, 1, sizeof *a);
    int rc = a ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    a->file = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_FIELD_COLS; k++) a->fields[k] = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_RESULT_COLS; k++) a->results[k] = H5I_INVALID_HID;
    io_h5_silence();
    if (!(a->path = io_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = check_readable(ctx, path);
    if (rc == DATUM_OK && (H5Fis_hdf5(path) <= 0 || (a->file = io_h5_open_file(path)) < 0))
        rc = datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: not an HDF5 file (or damaged)", path);
    if (rc == DATUM_OK) rc = check_format(ctx, a);
    if (rc == DATUM_OK) rc = read_summary(ctx, a);
    if (rc == DATUM_OK) rc = open_columns(ctx, a);
    if (rc == DATUM_OK) rc = load_dict(ctx, a, IO_D_EVENTS, &a->info.n_events);
    if (rc == DATUM_OK) rc = load_dict(ctx, a, IO_D_SECTIONS, &a->info.n_sections);
    if (rc == DATUM_OK) rc = load_dict(ctx, a, IO_D_PAIRS, &a->info.n_pairs);
    if (rc == DATUM_OK) rc = check_offsets(ctx, a);
    if (rc != DATUM_OK) datum_archive_close(&a);
    *out = a;
    return rc;
}

void datum_archive_close(datum_archive **a)
{
    if (!a || !*a) return;
    datum_archive *p = *a;
    /* The file closes strongly: its datasets go with it. */
    if (p->file >= 0) H5Fclose(p->file);
    for (int k = 0; k < IO_N_DICTS; k++) {
        free(p->dict[k]);
        free(p->dict_bytes[k]);
    }
    free(p->path);
    free(p);
    *a = NULL;
}

void datum_archive_get_info(const datum_archive *a, datum_archive_info *info) { *info = a->info; }

static const char *dict_entry(const datum_archive *a, int k, uint32_t n, uint32_t index)
{
    return index < n ? a->dict[k][index] : NULL;
}

const char *datum_archive_event(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_EVENTS, a->info.n_events, index);
}

const char *datum_archive_section(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_SECTIONS, a->info.n_sections, index);
}

const char *datum_archive_pair(const datum_archive *a, uint32_t index)
{
    return dict_entry(a, IO_D_PAIRS, a->info.n_pairs, index);
}
