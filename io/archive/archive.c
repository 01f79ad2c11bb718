/*
 * archive.c - opening an archive of format version 1 (docs/archive-format.md,
 * layout.c) with every consistency check a reader needs before it trusts
 * the file, and what an open archive tells: its summary and dictionaries.
 */
#include "io_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */

int io_archive_damaged(datum_ctx *ctx, const datum_archive *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = io_vdamaged(ctx, a->path, &io_bridge_archive, fmt, ap);
    va_end(ap);
    return rc;
}

/* The summary attributes; the dataset lengths are checked against them. */
static int read_summary(datum_ctx *ctx, datum_archive *a)
{
    int64_t v[IO_N_SUMMARY_ATTRS];
    for (int i = IO_A_N_RESULTS; i < IO_N_SUMMARY_ATTRS; i++)
        if (io_h5_get_int_attr(a->file, io_summary_attrs[i], &v[i]) < 0) {
            if (i >= IO_A_HAS_TEAMS && H5Aexists(a->file, io_summary_attrs[i]) == 0) v[i] = 0;
            else return io_archive_damaged(ctx, a, "attribute %s is missing or not an integer",
                                           io_summary_attrs[i]);
        }
    if (v[IO_A_N_RESULTS] < 0 || v[IO_A_N_FIELDS] < 0 || v[IO_A_FIRST_DATE] < INT32_MIN ||
        v[IO_A_FIRST_DATE] > INT32_MAX || v[IO_A_LAST_DATE] < INT32_MIN || v[IO_A_LAST_DATE] > INT32_MAX ||
        (v[IO_A_HAS_ADJUSTED] != 0 && v[IO_A_HAS_ADJUSTED] != 1) ||
        (v[IO_A_HAS_TEAMS] != 0 && v[IO_A_HAS_TEAMS] != 1) ||
        (v[IO_A_HAS_PUBLISHED] != 0 && v[IO_A_HAS_PUBLISHED] != 1) ||
        (v[IO_A_HAS_PUBLISHED_PERCENT] != 0 && v[IO_A_HAS_PUBLISHED_PERCENT] != 1))
        return io_archive_damaged(ctx, a, "a summary attribute is out of range");
    a->info.n_results = (uint64_t)v[IO_A_N_RESULTS];
    a->info.n_fields = (uint64_t)v[IO_A_N_FIELDS];
    a->info.first_date = (int32_t)v[IO_A_FIRST_DATE];
    a->info.last_date = (int32_t)v[IO_A_LAST_DATE];
    a->info.has_adjusted = (int)v[IO_A_HAS_ADJUSTED];
    a->info.has_teams = (int)v[IO_A_HAS_TEAMS];
    a->info.has_published = (int)v[IO_A_HAS_PUBLISHED];
    a->info.has_published_percent = (int)v[IO_A_HAS_PUBLISHED_PERCENT];
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
    /* /fields/deal_set came later and is optional: an archive has it or not. */
    a->info.has_deal_sets = H5Lexists(a->file, io_field_cols[IO_F_DEAL_SET].path, H5P_DEFAULT) > 0;
    for (int k = 0; k < IO_N_FIELD_COLS && rc == DATUM_OK; k++)
        if (io_has_field_col(k, a->info.has_deal_sets))
            rc = open_column(ctx, a, &io_field_cols[k], io_field_rules[k].kind,
                             a->info.n_fields + (k == IO_F_OFFSET), &a->fields[k]);
    for (int k = 0; k < IO_N_RESULT_COLS && rc == DATUM_OK; k++)
        if (io_has_result_col(k, a->info.has_adjusted, a->info.has_teams, a->info.has_published,
                              a->info.has_published_percent))
            rc = open_column(ctx, a, &io_result_cols[k], io_result_rules[k].kind,
                             a->info.n_results, &a->results[k]);
    return rc;
}

/* Loads /dict/... into memory. */
static int load_dict(datum_ctx *ctx, datum_archive *a, int k)
{
    return io_read_dict(ctx, a->file, a->path, &io_bridge_archive, io_dict_cols[k].path,
                        &a->dict_len[k], &a->dict[k]);
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
    uint64_t *buf = datum_calloc(ctx, BLOCK, sizeof *buf);
    io_window win = {0};
    int rc = buf ? DATUM_OK : DATUM_E_NOMEM;
    for (uint64_t first = 0; first < total && rc == DATUM_OK; first += BLOCK) {
        uint64_t n = total - first < BLOCK ? total - first : BLOCK;
        int64_t lo, hi;
        rc = io_window_read(ctx, &win, a->fields[IO_F_OFFSET], IO_KIND_U64, first, (size_t)n, buf,
                            datum_ctx_threads(ctx), &lo, &hi);
        if (rc != DATUM_OK) {
            if (rc == DATUM_E_FORMAT) rc = io_archive_damaged(ctx, a, "cannot read %s", name);
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
    datum_free(buf);
    return rc;
}

int datum_archive_open(datum_ctx *ctx, const char *path, datum_archive **out)
{
    datum_archive *a = datum_calloc(ctx, 1, sizeof *a);
    int rc = a ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    a->file = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_FIELD_COLS; k++) a->fields[k] = H5I_INVALID_HID;
    for (int k = 0; k < IO_N_RESULT_COLS; k++) a->results[k] = H5I_INVALID_HID;
    io_h5_silence();
    if (!(a->path = datum_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK) rc = io_h5_open_checked(ctx, path, &a->file);
    if (rc == DATUM_OK) rc = io_check_format(ctx, a->file, path, &io_bridge_archive);
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
    if (p->file >= 0) io_h5_close_file(p->file);
    for (int k = 0; k < IO_N_DICTS; k++) io_free_dict(p->dict[k], p->dict_len[k]);
    datum_free(p->path);
    datum_free(p);
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
