/*
 * compact.c - parts of an archive of format version 2 merged into one file
 * of version 1 (docs/archive-format.md "Compaction"): all of them
 * (datum_archive_compact: the archive becomes one file again) or some
 * segments (append.c's automatic merging). The parts are read as one
 * archive (archive.c: their events interleaved by name, as a single import
 * orders them; each part already sorted, each event in one part: a merge,
 * no sort) and written by the archive writer with the plan an import of
 * their rows computes, so the file is the one that import writes.
 */
#include "io_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SCAN_ROWS = 1 << 16 }; /* values read at a time by the plan's scan */

/* The least and greatest of column ds of part q (n values, of kind I32)
 * widen [*lo, *hi]. */
static int scan_column(datum_ctx *ctx, const io_part *q, hid_t ds, const char *name, uint64_t n,
                       int32_t *buf, int64_t *lo, int64_t *hi)
{
    io_window win = {0};
    int rc = DATUM_OK;
    for (uint64_t first = 0; first < n && rc == DATUM_OK; first += SCAN_ROWS) {
        size_t take = (size_t)(n - first < SCAN_ROWS ? n - first : SCAN_ROWS);
        int64_t seen_lo, seen_hi;
        rc = io_window_read(ctx, &win, ds, IO_KIND_I32, first, take, buf, datum_ctx_threads(ctx),
                            &seen_lo, &seen_hi);
        if (rc == DATUM_E_FORMAT) rc = io_part_damaged(ctx, q, "cannot read %s", name);
        for (size_t i = 0; i < take && rc == DATUM_OK; i++) {
            if (buf[i] < *lo) *lo = buf[i];
            if (buf[i] > *hi) *hi = buf[i];
        }
    }
    io_window_free(&win);
    return rc;
}

/* The plan of an import of the archive's rows (import.c's exact_plan): the
 * exact ranges of the boards, tables and scores, scanned in each part (the
 * parts' own types are of their own ranges), the dates from the summaries. */
static int import_plan(datum_ctx *ctx, const datum_archive *a, datum_archive_plan *plan)
{
    const datum_archive_info *i = &a->info;
    datum_archive_plan p = DATUM_ARCHIVE_PLAN_INIT;
    p.has_adjusted = i->has_adjusted;
    p.has_teams = i->has_teams;
    p.has_published = i->has_published;
    p.has_published_percent = i->has_published_percent;
    p.has_deal_sets = i->has_deal_sets;
    p.max_results = p.max_fields = i->n_results;
    *plan = p;
    if (i->n_results == 0) return DATUM_OK;
    p.min_date = i->first_date;
    p.max_date = i->last_date;
    int64_t board_lo = INT64_MAX, board_hi = INT64_MIN, table_lo = INT64_MAX,
            table_hi = INT64_MIN, score_lo = INT64_MAX, score_hi = INT64_MIN;
    int32_t *buf = datum_calloc(ctx, SCAN_ROWS, sizeof *buf);
    int rc = buf ? DATUM_OK : DATUM_E_NOMEM;
    for (uint32_t k = 0; k < a->n_parts && rc == DATUM_OK; k++) {
        const io_part *q = &a->parts[k];
        rc = scan_column(ctx, q, q->fields[IO_F_BOARD], io_field_cols[IO_F_BOARD].path,
                         q->info.n_fields, buf, &board_lo, &board_hi);
        if (rc == DATUM_OK)
            rc = scan_column(ctx, q, q->results[IO_R_TABLE], io_result_cols[IO_R_TABLE].path,
                             q->info.n_results, buf, &table_lo, &table_hi);
        if (rc == DATUM_OK)
            rc = scan_column(ctx, q, q->results[IO_R_NS_SCORE], io_result_cols[IO_R_NS_SCORE].path,
                             q->info.n_results, buf, &score_lo, &score_hi);
    }
    datum_free(buf);
    if (rc != DATUM_OK) return rc;
    /* The writer checks every value against these: out of the format's
     * range, the part is damaged (its own writer would have refused it). */
    if (board_lo < 1 || board_hi > INT32_MAX || table_lo < 0 || table_hi > INT32_MAX ||
        score_lo < -IO_MAX_SCORE || score_hi > IO_MAX_SCORE)
        return io_archive_damaged(ctx, a, "a board, table or score is out of range");
    p.max_board = (int32_t)board_hi;
    p.max_table = (int32_t)table_hi;
    p.min_score = (int32_t)score_lo;
    p.max_score = (int32_t)score_hi;
    *plan = p;
    return DATUM_OK;
}

int io_merge_parts(datum_ctx *ctx, const char *path, const io_part_entry *e, uint32_t n,
                   const char *out_path, size_t max_rows, const datum_write_options *opt,
                   io_part_entry *made)
{
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_archive_writer *w = NULL;
    datum_archive_plan plan;
    datum_chunk chunk;
    struct stat st;
    int rc = io_archive_open_parts(ctx, path, e, n, &a);
    if (rc == DATUM_OK) rc = import_plan(ctx, a, &plan);
    if (rc == DATUM_OK) rc = datum_archive_writer_create(ctx, out_path, &plan, opt, &w);
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++)
        if (io_has_dict(k, plan.has_teams))
            rc = datum_archive_writer_dict(w, (datum_dict)k, (const char *const *)a->dict[k],
                                           a->dict_len[k]);
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, max_rows, &r);
    while (rc == DATUM_OK && (rc = datum_chunk_reader_next(r, &chunk)) == DATUM_OK &&
           chunk.n_fields > 0)
        rc = datum_archive_writer_append(w, &chunk);
    datum_chunk_reader_free(&r);
    if (rc == DATUM_OK) rc = datum_archive_writer_commit(&w);
    datum_archive_writer_abort(&w);
    if (rc == DATUM_OK && stat(out_path, &st) != 0)
        rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot open %s", out_path);
    if (rc == DATUM_OK)
        *made = (io_part_entry){NULL, (uint64_t)st.st_size, a->info.n_results, a->info.n_fields};
    datum_archive_close(&a);
    return rc;
}

/* Removes the folder of the parts (the lock last: it is held until then). */
static int remove_parts(datum_ctx *ctx, const char *path, const char *dir)
{
    int rc = io_remove_unlisted(ctx, path, dir, NULL, 0, "compact-removing");
    char *lock = rc == DATUM_OK ? io_part_path(ctx, path, IO_LOCK_NAME) : NULL;
    if (rc == DATUM_OK && !lock) rc = DATUM_E_NOMEM;
    if (lock) unlink(lock);
    datum_free(lock);
    if (rc == DATUM_OK && rmdir(dir) != 0 && errno != ENOENT)
        rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot remove %s", dir);
    return rc;
}

size_t io_merge_rows(size_t memory)
{
    size_t rows = (memory ? memory : DATUM_IMPORT_MEMORY_DEFAULT) / 128;
    return rows < ((size_t)1 << 16) ? (size_t)1 << 16 : rows > ((size_t)1 << 20) ? (size_t)1 << 20
                                                                                    : rows;
}

int datum_archive_compact(datum_ctx *ctx, const char *path, datum_compact_info *info,
                          size_t memory, const datum_write_options *opt)
{
    hid_t root = H5I_INVALID_HID;
    io_part_entry *e = NULL, made;
    uint32_t n = 0;
    char *dir = NULL, *parent = NULL;
    int lock_fd = -1, version = 0;
    struct stat st;
    memset(info, 0, sizeof *info);
    io_h5_silence();
    /* The archive must be there and be one before anything is made; a
     * version 1 archive is left as it is (no folder, no lock). */
    int rc = io_h5_open_checked(ctx, path, &root);
    if (rc == DATUM_OK) rc = io_check_format(ctx, root, path, &io_bridge_archive);
    if (rc == DATUM_OK) version = io_file_version(root);
    if (root >= 0) io_h5_close_file(root);
    root = H5I_INVALID_HID;
    if (rc != DATUM_OK || version == IO_ARCHIVE_FILE_VERSION) return rc;
    if (!(dir = io_parts_dir(ctx, path)) || !(parent = io_parent_dir(ctx, path)))
        rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK && stat(dir, &st) != 0)
        rc = io_damaged(ctx, path, &io_bridge_archive, "its folder %s is missing", dir);
    if (rc == DATUM_OK) rc = io_lock_parts(ctx, path, dir, &lock_fd);
    /* Under the lock: the manifest as it is now (an append may have ended
     * in between). */
    if (rc == DATUM_OK) rc = io_h5_open_checked(ctx, path, &root);
    if (rc == DATUM_OK) rc = io_check_format(ctx, root, path, &io_bridge_archive);
    if (rc == DATUM_OK && (version = io_file_version(root)) == IO_ARCHIVE_SEGMENTED_VERSION)
        rc = io_read_manifest(ctx, root, path, &e, &n);
    if (root >= 0) io_h5_close_file(root);
    if (rc == DATUM_OK && version == IO_ARCHIVE_SEGMENTED_VERSION) {
        /* The new file is renamed over the root: until then the archive is
         * the old one, whole; after, the new one, and the parts are
         * leftovers (ignored by readers of a version 1 file, removed by the
         * next append if a kill stops their removal here). */
        rc = io_merge_parts(ctx, path, e, n, path, io_merge_rows(memory), opt, &made);
        if (rc == DATUM_OK) rc = io_sync_dir(ctx, parent);
        io_kill_point("compact-renamed");
        if (rc == DATUM_OK) {
            *info = (datum_compact_info){n, made.n_results, made.n_fields, made.bytes};
            rc = remove_parts(ctx, path, dir);
        }
    }
    if (lock_fd >= 0) close(lock_fd);
    io_part_entries_free(e, n);
    datum_free(dir);
    datum_free(parent);
    return rc;
}
