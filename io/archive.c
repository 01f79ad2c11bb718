/*
 * archive.c - the archive, format version 1 (docs/archive-format.md): its
 * layout (datasets, value rules, root attributes), shared by the writer
 * (archive_writer.c) and the reader, and opening with every consistency
 * check a reader needs before it trusts the file.
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
    {"dict/teams", "team names, sorted by their UTF-8 bytes", NULL},
    {"dict/matches", "match identifiers, sorted by their UTF-8 bytes", NULL},
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
     "0: a real score; 1..12: adjusted A+, A, A-, A+/A-, A-/A+, A/A, A+/A+, A-/A-, A+/A, A/A+, "
     "A-/A, A/A- (NS/EW)",
     NULL},
    {"results/date", "date of the result", DATE_UNITS},
    {"results/ns_team", "North-South team: index into /dict/teams; -1 outside a teams match", NULL},
    {"results/ew_team", "East-West team: index into /dict/teams; -1 outside a teams match", NULL},
    {"results/match", "teams match: index into /dict/matches; -1 outside a teams match", NULL},
    {"results/published_ns", "North-South's points as the scoring program published them "
                             "(USEBIO NS_*_POINTS); NaN: none", NULL},
    {"results/published_ew", "East-West's points as the scoring program published them "
                             "(USEBIO EW_*_POINTS); NaN: none", NULL},
    {"results/published_method",
     "what the published points are: 0 none, 1 butler, 2 cross_imps, 3 matchpoints, 4 imps, "
     "5 other", NULL},
};

const io_dataset_desc io_truth_strength = {
    "truth/pair_strength", "true strength of each pair of /dict/pairs, IMPs per board", NULL};

const io_value_rule io_field_rules[IO_N_FIELD_COLS] = {
    [IO_F_EVENT] = {IO_KIND_U32, 0, 0, IO_D_EVENTS},
    [IO_F_SECTION] = {IO_KIND_U32, 0, 0, IO_D_SECTIONS},
    [IO_F_BOARD] = {IO_KIND_I32, 1, INT32_MAX, -1},
    [IO_F_DATE] = {IO_KIND_I32, INT32_MIN, INT32_MAX, -1},
    [IO_F_OFFSET] = {IO_KIND_U64, 0, INT64_MAX, -1},
};

const io_value_rule io_result_rules[IO_N_RESULT_COLS] = {
    [IO_R_TABLE] = {IO_KIND_I32, 0, INT32_MAX, -1},
    [IO_R_NS_PAIR] = {IO_KIND_I32, 0, 0, IO_D_PAIRS},
    [IO_R_EW_PAIR] = {IO_KIND_I32, 0, 0, IO_D_PAIRS},
    [IO_R_NS_SCORE] = {IO_KIND_I32, -IO_MAX_SCORE, IO_MAX_SCORE, -1},
    [IO_R_ADJUSTED] = {IO_KIND_U8, 0, DATUM_ADJ_COUNT - 1, -1},
    [IO_R_DATE] = {IO_KIND_I32, INT32_MIN, INT32_MAX, -1},
    [IO_R_NS_TEAM] = {IO_KIND_I32, -1, 0, IO_D_TEAMS},
    [IO_R_EW_TEAM] = {IO_KIND_I32, -1, 0, IO_D_TEAMS},
    [IO_R_MATCH] = {IO_KIND_I32, -1, 0, IO_D_MATCHES},
    [IO_R_PUBLISHED_NS] = {IO_KIND_F64, 0, 0, -1},
    [IO_R_PUBLISHED_EW] = {IO_KIND_F64, 0, 0, -1},
    [IO_R_PUBLISHED_METHOD] = {IO_KIND_U8, 0, DATUM_PUBLISHED_COUNT - 1, -1},
};

const char *datum_published_method_name(int method)
{
    static const char *const name[DATUM_PUBLISHED_COUNT] = {"none",        "butler", "cross_imps",
                                                            "matchpoints", "imps",   "other"};
    return method >= 0 && method < DATUM_PUBLISHED_COUNT ? name[method] : NULL;
}

hid_t io_kind_memtype(int kind)
{
    switch (kind) {
    case IO_KIND_U8: return H5T_NATIVE_UINT8;
    case IO_KIND_U32: return H5T_NATIVE_UINT32;
    case IO_KIND_U64: return H5T_NATIVE_UINT64;
    case IO_KIND_F64: return H5T_NATIVE_DOUBLE;
    default: return H5T_NATIVE_INT32;
    }
}

size_t io_kind_size(int kind)
{
    return kind == IO_KIND_U8 ? 1 : kind == IO_KIND_U64 || kind == IO_KIND_F64 ? 8 : 4;
}

int io_has_result_col(int c, int has_adjusted, int has_teams, int has_published)
{
    if (c == IO_R_ADJUSTED) return has_adjusted;
    if (c >= IO_R_PUBLISHED_NS) return has_published;
    return c >= IO_R_NS_TEAM ? has_teams : 1;
}

int io_has_dict(int k, int has_teams) { return k >= IO_D_TEAMS ? has_teams : 1; }

/* The integer root attributes: the version, then the summary. has_teams
 * and has_published came later: an archive without them has neither. */
enum {
    A_VERSION,
    A_N_RESULTS,
    A_N_FIELDS,
    A_FIRST_DATE,
    A_LAST_DATE,
    A_HAS_ADJUSTED,
    A_HAS_TEAMS,
    A_HAS_PUBLISHED,
    N_INT_ATTRS
};
static const char *const kIntAttrs[N_INT_ATTRS] = {
    "format_version", "n_results", "n_fields", "first_date", "last_date", "has_adjusted",
    "has_teams", "has_published"};

int io_archive_write_summary(hid_t file, const io_archive_summary *s)
{
    const int64_t value[N_INT_ATTRS] = {DATUM_ARCHIVE_FORMAT_VERSION,
                                        (int64_t)s->n_results,
                                        (int64_t)s->n_fields,
                                        s->first_date,
                                        s->last_date,
                                        s->has_adjusted != 0,
                                        s->has_teams != 0,
                                        s->has_published != 0};
    const hid_t type[N_INT_ATTRS] = {H5T_STD_I32LE, H5T_STD_U64LE, H5T_STD_U64LE, H5T_STD_I32LE,
                                     H5T_STD_I32LE, H5T_STD_I32LE, H5T_STD_I32LE, H5T_STD_I32LE};
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
        return datum_ctx_fail(ctx, DATUM_E_FORMAT, "%s: not an HDF5 file (or damaged)", path);
    return DATUM_OK;
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
        if (io_h5_get_int_attr(a->file, kIntAttrs[i], &v[i]) < 0) {
            if (i >= A_HAS_TEAMS && H5Aexists(a->file, kIntAttrs[i]) == 0) v[i] = 0;
            else return io_archive_damaged(ctx, a, "attribute %s is missing or not an integer",
                                           kIntAttrs[i]);
        }
    if (v[A_N_RESULTS] < 0 || v[A_N_FIELDS] < 0 || v[A_FIRST_DATE] < INT32_MIN ||
        v[A_FIRST_DATE] > INT32_MAX || v[A_LAST_DATE] < INT32_MIN || v[A_LAST_DATE] > INT32_MAX ||
        (v[A_HAS_ADJUSTED] != 0 && v[A_HAS_ADJUSTED] != 1) ||
        (v[A_HAS_TEAMS] != 0 && v[A_HAS_TEAMS] != 1) ||
        (v[A_HAS_PUBLISHED] != 0 && v[A_HAS_PUBLISHED] != 1))
        return io_archive_damaged(ctx, a, "a summary attribute is out of range");
    a->info.n_results = (uint64_t)v[A_N_RESULTS];
    a->info.n_fields = (uint64_t)v[A_N_FIELDS];
    a->info.first_date = (int32_t)v[A_FIRST_DATE];
    a->info.last_date = (int32_t)v[A_LAST_DATE];
    a->info.has_adjusted = (int)v[A_HAS_ADJUSTED];
    a->info.has_teams = (int)v[A_HAS_TEAMS];
    a->info.has_published = (int)v[A_HAS_PUBLISHED];
    a->info.format_version = DATUM_ARCHIVE_FORMAT_VERSION;
    return DATUM_OK;
}

/* Opens a column of the kind's class (integer, or real for F64) and checks
 * its length. */
static int open_column(datum_ctx *ctx, datum_archive *a, const io_dataset_desc *d, int kind,
                       uint64_t length, hid_t *ds)
{
    uint64_t n;
    int real = kind == IO_KIND_F64;
    *ds = io_h5_open_dataset(a->file, d->path);
    if (*ds < 0) return io_archive_damaged(ctx, a, "%s is missing", d->path);
    if (io_h5_has_class(*ds, real ? H5T_FLOAT : H5T_INTEGER) != 1 || io_h5_length(*ds, &n) < 0)
        return io_archive_damaged(ctx, a, "%s is not a 1-D %s dataset", d->path,
                                  real ? "real" : "integer");
    if (n != length)
        return io_archive_damaged(ctx, a, "%s has %llu elements, expected %llu", d->path,
                                  (unsigned long long)n, (unsigned long long)length);
    return DATUM_OK;
}

static int open_columns(datum_ctx *ctx, datum_archive *a)
{
    int rc = DATUM_OK;
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++)
        rc = open_column(ctx, a, &io_field_cols[k], io_field_rules[k].kind,
                         a->info.n_fields + (k == IO_F_OFFSET), &a->fields[k]);
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++)
        if (io_has_result_col(k, a->info.has_adjusted, a->info.has_teams, a->info.has_published))
            rc = open_column(ctx, a, &io_result_cols[k], io_result_rules[k].kind,
                             a->info.n_results, &a->results[k]);
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
static int load_dict(datum_ctx *ctx, datum_archive *a, int k)
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
    a->dict_len[k] = (uint32_t)n;
    return rc;
}

/* The truth of a generated archive, if any: /truth/pair_strength, one real
 * per pair. */
static int find_truth(datum_ctx *ctx, datum_archive *a)
{
    const char *name = io_truth_strength.path;
    if (H5Lexists(a->file, "truth", H5P_DEFAULT) <= 0 || H5Lexists(a->file, name, H5P_DEFAULT) <= 0)
        return DATUM_OK;
    hid_t ds = H5Dopen2(a->file, name, H5P_DEFAULT), type = H5I_INVALID_HID;
    uint64_t n = 0;
    int ok = ds >= 0 && (type = H5Dget_type(ds)) >= 0 && H5Tget_class(type) == H5T_FLOAT &&
             io_h5_length(ds, &n) == 0 && n == a->info.n_pairs;
    if (type >= 0) H5Tclose(type);
    if (ds >= 0) H5Dclose(ds);
    if (!ok)
        return io_archive_damaged(ctx, a, "%s is not a 1-D real dataset of %u elements", name,
                                  a->info.n_pairs);
    a->info.has_truth = 1;
    return DATUM_OK;
}

/* offset[0] == 0, nondecreasing, last == n_results: read in blocks so that
 * opening needs no memory in proportion to the archive, decoded in parallel
 * (io_window) since every command waits for it. */
static int check_offsets(datum_ctx *ctx, datum_archive *a)
{
    enum { BLOCK = 1 << 16 };
    const char *name = io_field_cols[IO_F_OFFSET].path;
    uint64_t total = a->info.n_fields + 1, prev = 0;
    uint64_t *buf = io_calloc(ctx, BLOCK, sizeof *buf);
    io_window win = {0};
    int rc = buf ? DATUM_OK : DATUM_E_NOMEM;
    for (uint64_t first = 0; first < total && rc == DATUM_OK; first += BLOCK) {
        uint64_t n = total - first < BLOCK ? total - first : BLOCK;
        int64_t lo, hi;
        if (io_window_read(&win, a->fields[IO_F_OFFSET], IO_KIND_U64, first, (size_t)n, buf,
                           datum_ctx_threads(ctx), &lo, &hi) < 0) {
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
    io_window_free(&win);
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
    if (rc == DATUM_OK) rc = io_h5_open_checked(ctx, path, &a->file);
    if (rc == DATUM_OK) rc = check_format(ctx, a);
    if (rc == DATUM_OK) rc = read_summary(ctx, a);
    if (rc == DATUM_OK) rc = open_columns(ctx, a);
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++)
        if (io_has_dict(k, a->info.has_teams)) rc = load_dict(ctx, a, k);
    if (rc == DATUM_OK) {
        a->info.n_events = a->dict_len[IO_D_EVENTS];
        a->info.n_sections = a->dict_len[IO_D_SECTIONS];
        a->info.n_pairs = a->dict_len[IO_D_PAIRS];
        a->info.n_teams = a->dict_len[IO_D_TEAMS];
        a->info.n_matches = a->dict_len[IO_D_MATCHES];
        rc = find_truth(ctx, a);
    }
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
    hid_t ds = H5Dopen2(a->file, io_truth_strength.path, H5P_DEFAULT);
    int rc = ds >= 0 ? io_h5_read_range(ds, H5T_NATIVE_DOUBLE, 0, a->info.n_pairs, strength) : -1;
    if (ds >= 0) H5Dclose(ds);
    return rc < 0 ? io_archive_damaged(ctx, a, "cannot read %s", io_truth_strength.path)
                  : DATUM_OK;
}
