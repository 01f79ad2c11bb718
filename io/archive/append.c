/*
 * append.c - new events added to an archive (format version 2,
 * docs/archive-format.md): the new rows imported as an ordinary archive, a
 * segment, into ARCHIVE.d; then a new root file, the manifest, renamed over
 * ARCHIVE. Nothing already there is written, so a kill at any moment leaves
 * the old manifest, and the old archive, in place; files it does not list
 * are ignored by readers and removed by the next append. Past
 * --max-segments, segments are merged into a new one (compact.c) before
 * that one rename, the merged ones removed after it.
 */
#include "io_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE_NAME "base.h5"

/* The archive as the append finds it: its parts, each with its summary and
 * its event names. */
typedef struct {
    io_part_entry *entry;
    datum_archive_info *info;
    char ***events;
    uint32_t *n_events;
    uint32_t n, cap;
    int version;
} state;

static void state_free(state *s)
{
    for (uint32_t i = 0; s->events && s->n_events && i < s->n; i++)
        io_free_dict(s->events[i], s->n_events[i]);
    io_part_entries_free(s->entry, s->n);
    datum_free(s->info);
    datum_free(s->events);
    datum_free(s->n_events);
}

/* One more part, of file name `file`, nothing read yet. */
static int state_add(datum_ctx *ctx, state *s, const char *file)
{
    void *const arrays[] = {&s->entry, &s->info, &s->events, &s->n_events};
    const size_t sizes[] = {sizeof *s->entry, sizeof *s->info, sizeof *s->events,
                            sizeof *s->n_events};
    size_t cap = s->cap;
    int rc = datum_reserve_all(ctx, &cap, (size_t)s->n + 1, 4, arrays, sizes);
    if (rc != DATUM_OK) return rc;
    s->cap = (uint32_t)cap;
    memset(&s->entry[s->n], 0, sizeof s->entry[s->n]);
    memset(&s->info[s->n], 0, sizeof s->info[s->n]);
    s->events[s->n] = NULL;
    s->n_events[s->n] = 0;
    if (!(s->entry[s->n].file = datum_strdup(ctx, file))) return DATUM_E_NOMEM;
    s->n++;
    return DATUM_OK;
}

/* Reads part i (the file at path): summary and event names. listed: the
 * manifest describes it, and a file that is not what it says is damage;
 * else its entry is filled in. */
static int read_part(datum_ctx *ctx, const char *archive, const char *path, state *s, uint32_t i,
                     int listed)
{
    hid_t file = H5I_INVALID_HID;
    struct stat st;
    io_part_entry *e = &s->entry[i];
    int rc = io_h5_open_checked(ctx, path, &file);
    if (rc == DATUM_OK) rc = io_check_format(ctx, file, path, &io_bridge_archive);
    if (rc == DATUM_OK && io_file_version(file) != IO_ARCHIVE_FILE_VERSION)
        rc = io_damaged(ctx, path, &io_bridge_archive, "a part must be of format version %d",
                        IO_ARCHIVE_FILE_VERSION);
    if (rc == DATUM_OK) rc = io_read_summary(ctx, file, path, &s->info[i]);
    if (rc == DATUM_OK)
        rc = io_read_dict(ctx, file, path, &io_bridge_archive, io_dict_cols[IO_D_EVENTS].path,
                          &s->n_events[i], &s->events[i]);
    if (file >= 0) io_h5_close_file(file);
    if (rc == DATUM_OK && stat(path, &st) != 0) rc = io_fail_errno(ctx, DATUM_E_IO, errno,
                                                                   "cannot open %s", path);
    if (rc != DATUM_OK) return rc;
    if (!listed) { /* the manifest will say what it holds */
        e->bytes = (uint64_t)st.st_size;
        e->n_results = s->info[i].n_results;
        e->n_fields = s->info[i].n_fields;
    } else if (e->bytes != (uint64_t)st.st_size || e->n_results != s->info[i].n_results ||
               e->n_fields != s->info[i].n_fields) {
        return io_damaged(ctx, archive, &io_bridge_archive,
                          "its part %s is not what the manifest says", path);
    }
    return DATUM_OK;
}

/* The archive's parts: the file itself (version 1, the future base) or
 * those its manifest lists (version 2). */
static int read_state(datum_ctx *ctx, const char *path, state *s)
{
    hid_t root = H5I_INVALID_HID;
    int rc = io_h5_open_checked(ctx, path, &root);
    if (rc == DATUM_OK) rc = io_check_format(ctx, root, path, &io_bridge_archive);
    if (rc == DATUM_OK) s->version = io_file_version(root);
    if (rc == DATUM_OK && s->version == IO_ARCHIVE_SEGMENTED_VERSION) {
        rc = io_read_manifest(ctx, root, path, &s->entry, &s->n);
        s->cap = s->n;
        if (rc == DATUM_OK &&
            (!(s->info = datum_calloc(ctx, s->n, sizeof *s->info)) ||
             !(s->events = datum_calloc(ctx, s->n, sizeof *s->events)) ||
             !(s->n_events = datum_calloc(ctx, s->n, sizeof *s->n_events))))
            rc = DATUM_E_NOMEM;
    } else if (rc == DATUM_OK) {
        rc = state_add(ctx, s, BASE_NAME);
    }
    if (root >= 0) io_h5_close_file(root);
    for (uint32_t i = 0; i < s->n && rc == DATUM_OK; i++) {
        char *part = s->version == IO_ARCHIVE_FILE_VERSION ? NULL
                                                           : io_part_path(ctx, path, s->entry[i].file);
        if (s->version != IO_ARCHIVE_FILE_VERSION && !part) rc = DATUM_E_NOMEM;
        else rc = read_part(ctx, path, part ? part : path, s, i, part != NULL);
        datum_free(part);
    }
    return rc;
}

/* Removes what a killed append left: files of the folder that the manifest
 * does not list, and the root's temporary files beside the archive. */
static int remove_leftovers(datum_ctx *ctx, const char *path, const char *dir, const state *s)
{
    /* A version 1 archive lists none: the folder is all leftovers. */
    int listing = s->version != IO_ARCHIVE_FILE_VERSION;
    int rc = io_remove_unlisted(ctx, path, dir, listing ? s->entry : NULL, listing ? s->n : 0, NULL);
    DIR *d;
    struct dirent *ent;
    /* PATH.tmp-XXXXXX, the root being written when the append was killed. */
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t base_len = strlen(base);
    char *parent = rc == DATUM_OK ? io_parent_dir(ctx, path) : NULL;
    if (rc == DATUM_OK && !parent) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK && (d = opendir(parent))) {
        while (rc == DATUM_OK && (ent = readdir(d))) {
            const char *name = ent->d_name;
            if (strncmp(name, base, base_len) || strncmp(name + base_len, ".tmp-", 5) ||
                strlen(name + base_len + 5) != 6)
                continue;
            char *file = datum_calloc(ctx, strlen(parent) + strlen(name) + 2, 1);
            if (!file) {
                rc = DATUM_E_NOMEM;
                break;
            }
            sprintf(file, "%s/%s", parent, name);
            unlink(file); /* a leftover: whether it goes now or later changes nothing */
            datum_free(file);
        }
        closedir(d);
    }
    datum_free(parent);
    return rc;
}

/* 1 if the event name is one of the archive's (each part's names are sorted). */
static int known_event(const state *s, uint32_t parts, const char *name)
{
    for (uint32_t p = 0; p < parts; p++) {
        uint32_t lo = 0, hi = s->n_events[p];
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int c = strcmp(s->events[p][mid], name);
            if (c == 0) return 1;
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
    }
    return 0;
}

/* The refusal of an event already in the archive, at the first row of the
 * input (in the order of the files and their lines) that belongs to one. */
static int refuse_known_event(datum_ctx *ctx, const char *archive, const state *s, uint32_t parts,
                              const char *const *paths, size_t n_paths,
                              const datum_import_options *io)
{
    datum_pbn_options again = {io->strict, 0};
    int rc = DATUM_OK;
    for (size_t f = 0; f < n_paths && rc == DATUM_OK; f++) {
        io_row_source src = {0};
        io_result_row row;
        int format = io->format;
        if (format == DATUM_FORMAT_AUTO) rc = io_detect_format(ctx, paths[f], &format);
        if (rc == DATUM_OK) rc = io_format_source(format)(ctx, paths[f], &again, &src);
        while (rc == DATUM_OK && (rc = src.next(src.self, &row)) == 1) {
            rc = DATUM_OK;
            if (known_event(s, parts, row.event)) {
                rc = datum_ctx_fail(ctx, DATUM_E_INPUT,
                                    "%s:%llu: column event: event \"%s\" is already in %s (an "
                                    "append adds new events only; to change an event, import "
                                    "all the rows again)",
                                    paths[f], (unsigned long long)row.line, row.event, archive);
                break;
            }
        }
        if (src.close) src.close(src.self);
    }
    return rc < 0 ? rc
                  : datum_ctx_fail(ctx, DATUM_E_INPUT, "%s: the input has events already in it "
                                                       "(an append adds new events only)", archive);
}

/* Writes the new root (summary and manifest of the parts s lists) and
 * renames it over path. */
static int write_root(datum_ctx *ctx, const char *path, const state *s)
{
    datum_archive_info m = {0};
    for (uint32_t i = 0; i < s->n; i++) io_summary_add(&m, &s->info[i]);
    io_archive_summary sum = {m.n_results,    m.n_fields,         m.first_date,
                              m.last_date,    m.has_adjusted,     m.has_teams,
                              m.has_published, m.has_published_percent};
    char *tmp = NULL;
    hid_t file;
    int rc = io_h5_temp_create(ctx, path, &tmp, &file);
    if (rc != DATUM_OK) return rc;
    if (io_archive_write_summary(file, &sum, IO_ARCHIVE_SEGMENTED_VERSION) < 0)
        rc = io_h5_fail_write(ctx, path, "attributes");
    if (rc == DATUM_OK && (rc = io_write_manifest(ctx, file, s->entry, s->n)) < 0 &&
        rc != DATUM_E_NOMEM)
        rc = io_h5_fail_write(ctx, path, "manifest");
    herr_t closed = io_h5_close_file(file); /* flushes */
    if (rc == DATUM_OK && closed < 0) rc = io_h5_fail_write(ctx, path, "closing the file");
    io_kill_point("root-written");
    if (rc == DATUM_OK && (rc = io_temp_commit(ctx, tmp, path)) == DATUM_OK) { /* sync, rename */
        datum_free(tmp);
        tmp = NULL;
    }
    io_temp_discard(&tmp);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Merging segments (docs/archive-format.md "Merging segments")             */

/* Segments are tiered by size: tier t holds those of FANIN^t to
 * FANIN^(t+1) - 1 results. FANIN segments of a tier merged make one of a
 * higher tier, so a result is merged at most once per tier: about
 * log_FANIN(archive / week) times in all, and the segments of each tier
 * stay fewer than FANIN. */
enum { FANIN = 4 };

static int tier_of(uint64_t results)
{
    int t = 0;
    for (; results >= FANIN; results /= FANIN) t++;
    return t;
}

/* The number of a segment's file name segment-N.h5 (0 for any other). */
static uint32_t segment_number(const char *file)
{
    unsigned n = 0;
    int end = 0;
    return sscanf(file, "segment-%u.h5%n", &n, &end) == 1 && file[end] == '\0' ? n : 0;
}

/* A new segment's file name, numbered after every segment listed. */
static void new_segment_name(const state *s, char *name, size_t size)
{
    uint32_t last = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t k = segment_number(s->entry[i].file);
        if (k > last) last = k;
    }
    snprintf(name, size, "segment-%04u.h5", last + 1);
}

/* The segments to merge (pick[i] = 1; part 0, the base, never): none while
 * the archive has at most max_segments of them (0: never any); else, from
 * the lowest tier of at least FANIN segments, that tier's, and those of
 * each tier above that the merged segment would make FANIN (a cascade,
 * merged at once: no result twice in one append). Returns the number
 * picked (0 or at least FANIN). */
static uint32_t choose_merge(const state *s, uint32_t max_segments, uint8_t *pick)
{
    uint32_t segments = s->n - 1, picked = 0;
    memset(pick, 0, s->n);
    if (max_segments == 0 || segments <= max_segments) return 0;
    int lowest = -1;
    for (int t = 0; t < 64 && lowest < 0; t++) {
        uint32_t count = 0;
        for (uint32_t i = 1; i < s->n; i++) count += tier_of(s->info[i].n_results) == t;
        if (count >= FANIN) lowest = t;
    }
    if (lowest < 0) return 0;
    uint64_t merged = 0;
    for (int t = lowest; t < 64; t++) {
        uint32_t count = 0;
        for (uint32_t i = 1; i < s->n; i++) count += !pick[i] && tier_of(s->info[i].n_results) == t;
        /* Above the lowest: only the merged segment's tier, when it would
         * make FANIN there. */
        if (t > lowest && t < tier_of(merged)) continue;
        if (t > lowest && (t > tier_of(merged) || count + 1 < FANIN)) break;
        for (uint32_t i = 1; i < s->n; i++)
            if (!pick[i] && tier_of(s->info[i].n_results) == t) {
                pick[i] = 1;
                picked++;
                merged += s->info[i].n_results;
            }
    }
    return picked;
}

/* Merges the picked segments into one (file name `name`, in the folder):
 * in s, it takes the place of the first of them, the others go; their
 * paths go to *gone (gone_n of them, malloc'd), for removal once the new
 * root is in place. */
static int merge_picked(datum_ctx *ctx, const char *archive_path, state *s, const uint8_t *pick,
                        uint32_t picked, const char *name, size_t max_rows,
                        const datum_write_options *opt, char ***gone, uint32_t *gone_n)
{
    io_part_entry *e = datum_calloc(ctx, picked, sizeof *e), made;
    char *out = io_part_path(ctx, archive_path, name);
    uint32_t first = 0, k = 0;
    int rc = e && out && (*gone = datum_calloc(ctx, picked, sizeof **gone)) ? DATUM_OK
                                                                           : DATUM_E_NOMEM;
    for (uint32_t i = 1; i < s->n && rc == DATUM_OK; i++)
        if (pick[i]) {
            if (k == 0) first = i;
            e[k++] = s->entry[i];
        }
    if (rc == DATUM_OK)
        rc = io_merge_parts(ctx, archive_path, e, picked, out, max_rows, opt, &made);
    io_kill_point("merge-written");
    char *merged = rc == DATUM_OK ? datum_strdup(ctx, name) : NULL;
    if (rc == DATUM_OK && !merged) rc = DATUM_E_NOMEM;
    /* Their paths, for the removal after the commit (which allocates nothing). */
    for (uint32_t i = 1; i < s->n && rc == DATUM_OK; i++)
        if (pick[i] && !((*gone)[(*gone_n)++] = io_part_path(ctx, archive_path, s->entry[i].file)))
            rc = DATUM_E_NOMEM;
    if (rc != DATUM_OK) datum_free(merged);
    /* The state: the merged segment in the first one's place. */
    uint32_t to = 0, at = 0;
    for (uint32_t i = 0; i < s->n && rc == DATUM_OK; i++) {
        if (i == first) at = to;
        if (pick[i]) {
            datum_free(s->entry[i].file);
            io_free_dict(s->events[i], s->n_events[i]);
            s->events[i] = NULL;
            s->n_events[i] = 0;
            if (i != first) continue;
            s->entry[i].file = merged;
        }
        s->entry[to] = s->entry[i];
        s->info[to] = s->info[i];
        s->events[to] = s->events[i];
        s->n_events[to] = s->n_events[i];
        to++;
    }
    if (rc == DATUM_OK) {
        s->n = to;
        rc = read_part(ctx, archive_path, out, s, at, 0); /* its entry, summary and events */
    }
    if (rc == DATUM_OK && s->entry[at].bytes != made.bytes)
        rc = io_damaged(ctx, out, &io_bridge_archive,
                        "the merged segment changed as it was written");
    datum_free(e);
    datum_free(out);
    return rc;
}

int datum_archive_append(datum_ctx *ctx, const char *archive_path, const char *const *paths,
                         size_t n_paths, datum_import_options *io, const datum_write_options *opt,
                         datum_append_info *info)
{
    datum_import_options defaults = DATUM_IMPORT_OPTIONS_INIT;
    if (!io) io = &defaults;
    state s = {0};
    char *dir = NULL, *segment = NULL, *base = NULL, *parent = NULL, *merged = NULL;
    char name[32], merged_name[32], **gone = NULL;
    uint32_t n_gone = 0;
    struct stat st;
    int lock_fd = -1, rc = DATUM_OK, imported = DATUM_OK, committed = 0, linked = 0;
    io_h5_silence();
    if (info) memset(info, 0, sizeof *info);
    /* The archive must be there, and readable, before anything is made. */
    hid_t probe = H5I_INVALID_HID;
    rc = io_h5_open_checked(ctx, archive_path, &probe);
    if (rc == DATUM_OK) rc = io_check_format(ctx, probe, archive_path, &io_bridge_archive);
    if (probe >= 0) io_h5_close_file(probe);
    if (rc == DATUM_OK && (!(dir = io_parts_dir(ctx, archive_path)) ||
                           !(parent = io_parent_dir(ctx, archive_path))))
        rc = DATUM_E_NOMEM;
    int made_dir = rc == DATUM_OK && stat(dir, &st) != 0;
    if (rc == DATUM_OK) rc = io_lock_parts(ctx, archive_path, dir, &lock_fd);
    if (rc == DATUM_OK) rc = read_state(ctx, archive_path, &s);
    if (rc == DATUM_OK) rc = remove_leftovers(ctx, archive_path, dir, &s);
    uint32_t old = s.n;
    if (rc == DATUM_OK) {
        new_segment_name(&s, name, sizeof name);
        if (!(segment = io_part_path(ctx, archive_path, name)) ||
            !(base = io_part_path(ctx, archive_path, BASE_NAME)))
            rc = DATUM_E_NOMEM;
    }
    if (rc == DATUM_OK) rc = imported = datum_import(ctx, paths, n_paths, segment, io, opt);
    if (rc >= 0) rc = state_add(ctx, &s, name);
    if (rc >= 0) rc = read_part(ctx, archive_path, segment, &s, old, 0);
    for (uint32_t e = 0; rc >= 0 && e < s.n_events[old]; e++)
        if (known_event(&s, old, s.events[old][e]))
            rc = refuse_known_event(ctx, archive_path, &s, old, paths, n_paths, io);
    io_kill_point("segment-written");
    datum_append_info added = {0};
    if (rc >= 0)
        added = (datum_append_info){s.info[old].n_results, s.info[old].n_fields, s.n_events[old],
                                    0, 0, 0};
    /* A version 1 archive becomes the base: a second name for the same file. */
    if (rc >= 0 && s.version == IO_ARCHIVE_FILE_VERSION) {
        if (link(archive_path, base) == 0) linked = 1;
        else rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot link %s to %s", archive_path, base);
    }
    /* Segments merged, the new one among them, before the one new root
     * lists the result: a kill leaves the old archive or the new one. */
    uint8_t *pick = rc >= 0 ? datum_calloc(ctx, s.n, 1) : NULL;
    if (rc >= 0 && !pick) rc = DATUM_E_NOMEM;
    uint32_t picked = rc >= 0 ? choose_merge(&s, io->max_segments, pick) : 0;
    for (uint32_t i = 0; i < s.n && picked; i++)
        added.merged_results += pick[i] ? s.info[i].n_results : 0;
    if (picked) {
        new_segment_name(&s, merged_name, sizeof merged_name);
        if (!(merged = io_part_path(ctx, archive_path, merged_name))) rc = DATUM_E_NOMEM;
    }
    if (rc >= 0 && picked)
        rc = merge_picked(ctx, archive_path, &s, pick, picked, merged_name,
                          io_merge_rows(io->memory), opt, &gone, &n_gone);
    if (rc >= 0) added.n_merged = picked;
    if (rc >= 0) rc = io_sync_dir(ctx, dir);
    io_kill_point("base-linked");
    if (rc >= 0 && (rc = write_root(ctx, archive_path, &s)) >= 0) committed = 1;
    io_kill_point("root-renamed");
    if (rc >= 0) rc = io_sync_dir(ctx, parent);
    /* The merged segments are no longer listed: leftovers, removed now (or,
     * after a kill, by the next append). */
    for (uint32_t i = 0; committed && i < n_gone; i++) unlink(gone[i]);
    added.n_segments = s.n - 1;
    if (rc >= 0 && info) *info = added;
    /* A failed append leaves nothing (what it made is not listed: gone now
     * rather than at the next append); once the new root is in place, the
     * append is done, whatever fails after. */
    if (rc < 0 && !committed) {
        if (segment) unlink(segment);
        if (merged) unlink(merged);
        if (linked) unlink(base);
        if (made_dir && lock_fd >= 0) {
            char *lock = io_part_path(ctx, archive_path, IO_LOCK_NAME);
            if (lock) unlink(lock);
            datum_free(lock);
            rmdir(dir);
        }
    }
    for (uint32_t i = 0; i < n_gone; i++) datum_free(gone[i]);
    datum_free(gone);
    datum_free(pick);
    datum_free(merged);
    if (lock_fd >= 0) close(lock_fd);
    state_free(&s);
    datum_free(dir);
    datum_free(segment);
    datum_free(base);
    datum_free(parent);
    return rc < 0 ? rc : imported;
}
