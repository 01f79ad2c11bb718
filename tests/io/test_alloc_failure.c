/* test_alloc_failure.c - every allocation of io/ made to fail in turn
 * (alloc_loop.h: io/ allocates only through engine/datum_alloc.h, whose
 * countdown refuses allocation k of a context): each failure must come back
 * as DATUM_E_NOMEM "out of memory", leave no file behind and leak nothing
 * (LeakSanitizer checks at exit). Allocations inside HDF5, libxml2 and
 * libdeflate are not counted. */
#include "alloc_loop.h"
#include "io_test_util.h"
#include "datum_io.h"
#include "datum_tarot_io.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#define CSV                                                                                        \
    "event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n"                           \
    "E,2024-03-02,A,1,1,P1,P2,420,\n"                                                              \
    "E,2024-03-02,A,1,2,P3,P4,,A+\n"                                                               \
    "E,2024-03-02,B,2,1,P5,P6,-50,\n"


/* 24 boards of 3 tables in one section: stored in HDF5 chunks of 8 rows
 * (kSmallChunks), so that the chunk reader decodes several chunks at a time,
 * in parallel. */
static void write_big_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score\n", f);
    for (int b = 1; b <= 24; b++)
        for (int t = 1; t <= 3; t++)
            fprintf(f, "E,2024-03-02,A,%d,%d,N%d,W%d,%d\n", b, t, t, t, 10 * ((b * t) % 7) - 30);
    assert_int_equal(fclose(f), 0);
}
static const datum_write_options kSmallChunks = {1, 1, 8};

/* Imports the CSV file `user` into a.h5. */
static int import(datum_ctx *ctx, void *user)
{
    const char *paths[] = {user};
    return datum_import_csv(ctx, paths, 1, "a.h5", &kSmallChunks);
}

static void test_import(void **state)
{
    tu_write("r.csv", CSV);
    alloc_loop_run(import, "r.csv", 1, ".");
    remove("a.h5");
    write_big_csv("big.csv");
    alloc_loop_run(import, "big.csv", 2, ".");
}

/* Imports `user` in the least memory budget (runs spilled to the scratch
 * file and merged), from its directory's listing, with a deal-free mix of
 * formats recognised by content. */
static int import_in_runs(datum_ctx *ctx, void *user)
{
    const char *args[] = {user};
    char **paths = NULL;
    size_t n = 0;
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    io.memory = DATUM_IMPORT_MEMORY_MIN;
    int rc = datum_import_paths(ctx, args, 1, NULL, &paths, &n);
    if (rc == DATUM_OK) rc = datum_import(ctx, (const char *const *)paths, n, "a.h5", &io, &kSmallChunks);
    datum_import_paths_free(paths, n);
    return rc;
}

/* Exports a.h5 as CSV, one event of it. */
static int export_csv(datum_ctx *ctx, void *user)
{
    (void)user;
    const char *events[] = {"E"};
    datum_export_options eo = DATUM_EXPORT_OPTIONS_INIT;
    eo.events = events;
    eo.n_events = 1;
    int rc = datum_export_csv(ctx, "a.h5", "e.csv", &eo);
    remove("e.csv");
    return rc;
}

/* 40 boards of 40 tables: about 190 KB of rows in memory, three times the
 * least budget. */
static void test_import_in_runs(void **state)
{
    (void)state;
    assert_int_equal(mkdir("in", 0777), 0);
    FILE *f = fopen("in/runs.csv", "w");
    assert_non_null(f);
    fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score\n", f);
    for (int b = 1; b <= 40; b++)
        for (int t = 1; t <= 40; t++)
            fprintf(f, "E,2024-03-02,A,%d,%d,N%d,W%d,%d\n", b, t, t, t, 10 * ((b * t) % 7) - 30);
    assert_int_equal(fclose(f), 0);
    alloc_loop_run(import_in_runs, "in", 1, ".");
    alloc_loop_run(import_in_runs, "in", 2, ".");
    datum_ctx *ctx = NULL;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(import_in_runs(ctx, "in"), DATUM_OK);
    datum_ctx_free(&ctx);
    alloc_loop_run(export_csv, NULL, 1, ".");
    remove("a.h5");
    remove("in/runs.csv");
    rmdir("in");
}

/* Opens a.h5 and reads it, in chunks of one field. */
static int read_archive(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    int rc = datum_archive_open(ctx, "a.h5", &a);
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 1, &r);
    while (rc == DATUM_OK) {
        rc = datum_chunk_reader_next(r, &c);
        if (c.n_fields == 0) break;
    }
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    return rc;
}

/* Writes out.h5 from a.h5 (a float64 column and a stored int8 one, which
 * takes the direct chunk path, in chunks of 8) and commits it; then removes
 * it again. */
static int write_output(datum_ctx *ctx, void *user)
{
    (void)user;
    const char *keys[] = {"method"}, *values[] = {"butler"};
    double v[72];
    for (int i = 0; i < 72; i++) v[i] = i % 25 - 12;
    datum_archive *a = NULL;
    datum_output *o = NULL;
    int rc = datum_archive_open(ctx, "a.h5", &a), c = 0, s = 0;
    if (rc == DATUM_OK)
        rc = datum_output_create(ctx, "out.h5", a, "cmd", keys, values, 1, &kSmallChunks, &o);
    if (rc == DATUM_OK) rc = c = datum_output_add_column(o, "fields", "datum", 24, "d");
    if (rc >= 0)
        rc = s = datum_output_add_stored_column(o, "results", "imps", 72, "i", DATUM_STORE_I8);
    if (rc >= 0) rc = datum_output_write(o, c, 0, 24, v);
    if (rc == DATUM_OK) rc = datum_output_write(o, s, 0, 40, v);
    if (rc == DATUM_OK) rc = datum_output_write(o, s, 40, 32, v + 40);
    if (rc == DATUM_OK) rc = datum_output_commit(&o);
    datum_output_abort(&o);
    datum_archive_close(&a);
    remove("out.h5");
    return rc;
}

static int write_csv(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_csv_writer *w = NULL;
    int rc = datum_csv_create(ctx, "out.csv", &w);
    if (rc == DATUM_OK) {
        datum_csv_str(w, "a,b");
        datum_csv_real(w, 0.1);
        datum_csv_end_row(w);
        rc = datum_csv_commit(&w);
    }
    remove("out.csv");
    return rc;
}

static void test_read_and_write(void **state)
{
    datum_ctx *ctx = NULL;
    write_big_csv("big.csv");
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(import(ctx, "big.csv"), DATUM_OK);
    datum_ctx_free(&ctx);
    alloc_loop_run(read_archive, NULL, 1, ".");
    alloc_loop_run(read_archive, NULL, 2, "."); /* several chunks decoded in parallel */
    alloc_loop_run(write_output, NULL, 2, ".");
    alloc_loop_run(write_csv, NULL, 1, ".");
}

/* ------------------------------------------------------------------------ */
/* Appending (format version 2): the append, and the merged reading         */

#define APPEND_CSV                                                                                 \
    "event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n"                           \
    "A first,2024-03-09,A,1,1,P1,P9,420,\n"                                                        \
    "A first,2024-03-09,A,1,2,P3,N4,,A-\n"                                                         \
    "A first,2024-03-09,B,1,1,P5,P6,-50,\n"                                                        \
    "Z last,2024-03-10,,3,1,P2,P8,100,\n"

/* Two sections of one event playing board 1 with the same deal. */
#define APPEND_PBN                                                                                 \
    "[Event \"M middle\"]\n[Section \"A\"]\n[Board \"1\"]\n"                                   \
    "[Deal \"N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765\"]\n"           \
    "[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 2 420\n3 4 450\n\n"                          \
    "[Event \"M middle\"]\n[Section \"B\"]\n[Board \"1\"]\n"                                   \
    "[Deal \"N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765\"]\n"           \
    "[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n5 6 170\n7 8 400\n\n"

/* Copies a file (not through the context: the copy is the scenario's set-up). */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[4096];
    size_t n;
    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* Removes an archive of format version 2 made by the appends below. */
static void remove_appended(const char *path, int segments)
{
    char name[256];
    for (int i = 0; i <= segments; i++) {
        if (i == 0) snprintf(name, sizeof name, "%s.d/base.h5", path);
        else snprintf(name, sizeof name, "%s.d/segment-%04d.h5", path, i);
        remove(name);
    }
    snprintf(name, sizeof name, "%s.d/lock", path);
    remove(name);
    snprintf(name, sizeof name, "%s.d", path);
    rmdir(name);
    remove(path);
}

/* Appends a.csv to a copy of the version 1 archive big.h5; then reads
 * the result through: opening (merging), chunks, an output. */
static int append_and_read(datum_ctx *ctx, void *user)
{
    (void)user;
    const char *paths[] = {"a.csv"};
    const char *keys[] = {"method"}, *values[] = {"butler"};
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_output *o = NULL;
    datum_chunk c;
    copy_file("big.h5", "ap.h5");
    int rc = datum_archive_append(ctx, "ap.h5", paths, 1, NULL, &kSmallChunks, NULL);
    if (rc == DATUM_OK) rc = datum_archive_open(ctx, "ap.h5", &a);
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 5, &r);
    while (rc == DATUM_OK && (rc = datum_chunk_reader_next(r, &c)) == DATUM_OK && c.n_fields) {}
    if (rc == DATUM_OK)
        rc = datum_output_create(ctx, "out.h5", a, "cmd", keys, values, 1, &kSmallChunks, &o);
    if (rc == DATUM_OK) rc = datum_output_commit(&o);
    datum_output_abort(&o);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    remove("out.h5");
    remove_appended("ap.h5", 1);
    return rc;
}

/* Reads m.h5 (a CSV base and a PBN segment: deal sets made for the base)
 * in whole events, one field a chunk. */
static int read_merged(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    int rc = datum_archive_open(ctx, "m.h5", &a);
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 1, &r);
    if (rc == DATUM_OK) rc = datum_chunk_reader_set_whole_events(r, 1);
    while (rc == DATUM_OK && (rc = datum_chunk_reader_next(r, &c)) == DATUM_OK && c.n_fields) {}
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    return rc;
}

static void test_append(void **state)
{
    datum_ctx *ctx = NULL;
    const char *big[] = {"big.csv"}, *pbn[] = {"m.pbn"};
    write_big_csv("big.csv");
    tu_write("a.csv", APPEND_CSV);
    tu_write("m.pbn", APPEND_PBN);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_import_csv(ctx, big, 1, "big.h5", &kSmallChunks), DATUM_OK);
    assert_int_equal(datum_import_csv(ctx, big, 1, "m.h5", &kSmallChunks), DATUM_OK);
    datum_import_options pbn_io = DATUM_IMPORT_OPTIONS_INIT;
    pbn_io.format = DATUM_FORMAT_PBN;
    assert_int_equal(datum_archive_append(ctx, "m.h5", pbn, 1, &pbn_io, &kSmallChunks, NULL),
                     DATUM_OK);
    datum_ctx_free(&ctx);
    alloc_loop_run(append_and_read, NULL, 1, ".");
    alloc_loop_run(read_merged, NULL, 2, ".");
}

/* A week of one event ("Week K") of 3 boards of 3 tables: the weeks make
 * segments of one size tier. */
static void write_week(const char *path, int k)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score\n", f);
    for (int b = 1; b <= 3; b++)
        for (int t = 1; t <= 3; t++)
            fprintf(f, "Week %d,2024-04-0%d,A,%d,%d,N%d,W%d,%d\n", k, 1 + k, b, t, t, t + k,
                    10 * ((b * t + k) % 7) - 30);
    assert_int_equal(fclose(f), 0);
}

/* Copies the archive seg.h5 of 4 segments (base.h5, segment-0001..4) to cp.h5. */
static void copy_segmented(void)
{
    char from[64], to[64];
    copy_file("seg.h5", "cp.h5");
    mkdir("cp.h5.d", 0777);
    for (int i = 0; i <= 4; i++) {
        if (i == 0) snprintf(from, sizeof from, "seg.h5.d/base.h5");
        else snprintf(from, sizeof from, "seg.h5.d/segment-%04d.h5", i);
        snprintf(to, sizeof to, "cp.h5.d/%s", from + strlen("seg.h5.d/"));
        copy_file(from, to);
    }
}

/* Compacts a copy of seg.h5, then reads it through. */
static int compact_copy(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_compact_info info;
    datum_archive *a = NULL;
    copy_segmented();
    int rc = datum_archive_compact(ctx, "cp.h5", &info, 0, &kSmallChunks);
    if (rc == DATUM_OK) rc = datum_archive_open(ctx, "cp.h5", &a);
    if (rc == DATUM_OK && info.n_parts != 5) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "not 5 parts");
    datum_archive_close(&a);
    remove_appended("cp.h5", 4);
    return rc;
}

/* A fifth week appended to a copy of seg.h5 with --max-segments 1: the 5
 * segments of one tier merged into one. */
static int merging_append(datum_ctx *ctx, void *user)
{
    (void)user;
    const char *paths[] = {"w5.csv"};
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    datum_append_info info;
    io.max_segments = 1;
    copy_segmented();
    int rc = datum_archive_append(ctx, "cp.h5", paths, 1, &io, &kSmallChunks, &info);
    if (rc == DATUM_OK && (info.n_merged != 5 || info.n_segments != 1))
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "merged %u into %u segments", info.n_merged,
                            info.n_segments);
    remove_appended("cp.h5", 6);
    return rc;
}

static void test_compact(void **state)
{
    (void)state;
    datum_ctx *ctx = NULL;
    const char *big[] = {"big.csv"};
    char name[32];
    write_big_csv("big.csv");
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_import_csv(ctx, big, 1, "seg.h5", &kSmallChunks), DATUM_OK);
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    io.max_segments = 0;
    for (int k = 1; k <= 5; k++) {
        snprintf(name, sizeof name, "w%d.csv", k);
        write_week(name, k);
        const char *paths[] = {name};
        if (k < 5)
            assert_int_equal(datum_archive_append(ctx, "seg.h5", paths, 1, &io, &kSmallChunks, NULL),
                             DATUM_OK);
    }
    datum_ctx_free(&ctx);
    alloc_loop_run(compact_copy, NULL, 2, ".");
    alloc_loop_run(merging_append, NULL, 1, ".");
}

/* The tarot import, archive reader and directory of sheets. */
static const datum_tarot_inputs kTarot = {"ad.csv", "players.csv", "defenses.csv", "pen.csv"};

static int tarot_import(datum_ctx *ctx, void *user)
{
    (void)user;
    return datum_tarot_import_csv(ctx, &kTarot, "t.h5", NULL);
}

/* Reads t.h5, writes a sheet and the index into a new directory, then
 * removes them again. */
static int tarot_read_and_sheets(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_tarot_data *d = NULL;
    datum_tarot_sheet_dir *dir = NULL;
    datum_tarot_sheet s = {DATUM_TAROT_ATTACK, "E", "14/03/2026", "A", NULL, "1C", NULL, 0,
                           {.rank = 1}, 1};
    int rc = datum_tarot_archive_read(ctx, "t.h5", &d);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_create(ctx, "sheets", &dir);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_add(dir, "e/attaque-A.html", &s);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_add_index(dir, "index.html", NULL, 0);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_commit(&dir);
    datum_tarot_sheet_dir_abort(&dir);
    datum_tarot_data_free(&d);
    remove("sheets/e/attaque-A.html");
    remove("sheets/index.html");
    rmdir("sheets/e");
    rmdir("sheets");
    return rc;
}

static void test_tarot(void **state)
{
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "E,2026-03-14,1,G,1,A,D1,62\n"
                       "E,2026-03-14,1,G,2,B,D2,-40\n"
                       "E,2026-03-14,2,GC,1,B,D1,150\n");
    tu_write("players.csv", "player,classement\nA,1C\nB,NC\nC,1K\nE,2T\nF,3P\nG,4C\n");
    tu_write("defenses.csv", "defense,player1,player2,player3\nD1,C,E,F\nD2,G,C,F\n");
    tu_write("pen.csv", "event,side,id,pm\nE,attack,A,1.5\nE,defense,D2,-1\n");
    alloc_loop_run(tarot_import, NULL, 1, ".");
    alloc_loop_run(tarot_read_and_sheets, NULL, 1, ".");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_import),
        tu_temp_dir_test(test_import_in_runs),
        tu_temp_dir_test(test_read_and_write),
        tu_temp_dir_test(test_append),
        tu_temp_dir_test(test_compact),
        tu_temp_dir_test(test_tarot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
